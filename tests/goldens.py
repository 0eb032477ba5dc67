"""The golden files beside each scenario in ``examples/``, and the one command that rewrites them.

Each ``examples/<name>.json|yaml`` has two: ``<name>.expected.json``, what ``rmqlab run FILE --json`` prints
(the report the lesson tests read), and ``<name>.expected.txt``, what ``rmqlab run FILE`` prints (the
``format_timeline`` text between the scenario's title and its summary line). The JSON is for asserting; the
timeline is for reviewing: a changed golden reads as a diff of events in virtual time, one event per
``time  actor  kind  msg`` line.

Tests only compare (``tests/test_examples.py``) and never write tracked files. After an intended engine
change, regenerate on purpose and read the diff, which is the behaviour change::

    python -m tests.goldens                      # every example, both files
    python -m tests.goldens ack_index_split      # one example (its stem), both files

or one file by hand, which writes the same bytes::

    python -m rmqlab run examples/X.yaml --json > examples/X.expected.json
    python -m rmqlab run examples/X.yaml > examples/X.expected.txt
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from pathlib import Path

from rmqlab.lab.cli import main as rmqlab_main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FORMATS = {".expected.json": ["--json"], ".expected.txt": []}
"""Golden file suffix → the extra ``rmqlab run`` arguments whose output it holds."""


def scenarios(directory: Path = EXAMPLES) -> list[Path]:
    """The scenario files of ``directory``, by name (golden files are not scenarios)."""
    return sorted(p for p in directory.iterdir() if p.suffix in {".json", ".yaml"} and ".expected" not in p.name)


def golden_path(scenario: Path, suffix: str) -> Path:
    """``examples/X.yaml`` → ``examples/X<suffix>``."""
    return scenario.with_name(scenario.stem + suffix)


def render(scenario: Path, suffix: str) -> str:
    """What ``rmqlab run`` prints for ``scenario`` in the golden format ``suffix`` (in-process, no shell)."""
    out, err = io.StringIO(), io.StringIO()
    code = rmqlab_main(["run", str(scenario), *FORMATS[suffix]], stdout=out, stderr=err)
    if code != 0:
        raise RuntimeError(f"rmqlab run {scenario.name} {' '.join(FORMATS[suffix])}: exit {code}: {err.getvalue()}")
    return out.getvalue()


def main(argv: Sequence[str] | None = None, directory: Path = EXAMPLES) -> int:
    """Rewrite the golden files of the named examples (all when none is named); print what changed."""
    names = list(sys.argv[1:] if argv is None else argv)
    known = {p.stem: p for p in scenarios(directory)}
    unknown = [n for n in names if n not in known]
    if unknown:
        print(f"goldens: no scenario {', '.join(unknown)} in {directory}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    for scenario in [known[n] for n in names] if names else known.values():
        for suffix in FORMATS:
            path = golden_path(scenario, suffix)
            text = render(scenario, suffix)
            old = path.read_text(encoding="utf-8") if path.is_file() else None
            if text != old:
                path.write_text(text, encoding="utf-8")
                print(f"{'rewrote' if old is not None else 'created'} {path.relative_to(directory.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
