"""Write the student copy of the labs with nbgrader's own release steps: solutions and hidden tests out.

Usage::

    python labs/make_student.py labs build/student-labs            # keeps notebooks a student has changed
    python labs/make_student.py --force labs build/student-labs    # overwrites them

Each notebook goes through the preprocessors ``nbgrader generate_assignment`` runs: ``ClearSolutions``
(the ``### BEGIN SOLUTION`` region of each answer cell goes, leaving ``answer_1 = ...  # ← your
prediction``), ``ClearHiddenTests`` (the check cell's ``assert_right`` for the autograder goes),
``LockCells`` and ``ClearOutput`` (a saved "Right — …" verdict would give the answer away). The pairing
with the jupytext source and the execution hash are dropped: a student's copy is a plain notebook.
``README.md`` is copied as it is.

A notebook the student has edited since it was written (its cells no longer hash to what this tool
wrote) is kept, so ``make lab`` never throws away a student's predictions; ``--force`` overwrites.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbgrader.preprocessors import ClearHiddenTests, ClearOutput, ClearSolutions, LockCells  # type: ignore[import-untyped]

CODE_STUB = ""
"""What replaces a solution region: nothing, since the line above it already reads ``answer_1 = ...``.

``labs/nbgrader_config.py`` sets the same ``ClearSolutions.code_stub`` for ``nbgrader generate_assignment``."""
COPIED = ("README.md",)
USAGE = "usage: python labs/make_student.py [--force] SOURCE_DIR TARGET_DIR"
WRITTEN_KEY = "student_cells_sha256"


def _cells_hash(nb: Any) -> str:
    data = [[c.cell_type, c.source] for c in nb.cells]
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()


def studentize(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return ``nb`` as released to students (in place, and returned for chaining)."""
    resources: dict[str, Any] = {}
    for step in (
        ClearSolutions(code_stub={"python": CODE_STUB}),
        ClearHiddenTests(),
        LockCells(),
        ClearOutput(),
    ):
        nb, resources = step.preprocess(nb, resources)
    for cell in nb.cells:
        cell.source = cell.source.rstrip()  # the empty stub leaves a trailing newline
        if cell.cell_type == "code":
            cell.metadata.pop("execution", None)
    nb.metadata.pop("jupytext", None)
    nb.metadata["rmqlab"] = {WRITTEN_KEY: _cells_hash(nb)}
    return nb


def _edited(path: Path) -> bool:
    """Whether the student copy at ``path`` was changed since this tool wrote it."""
    if not path.exists():
        return False
    nb = nbformat.read(path, as_version=4)
    return bool(nb.metadata.get("rmqlab", {}).get(WRITTEN_KEY) != _cells_hash(nb))


def main(argv: list[str]) -> int:
    force = "--force" in argv
    args = [a for a in argv if a != "--force"]
    if len(args) != 2:
        print(USAGE, file=sys.stderr)
        return 2
    source, target = Path(args[0]), Path(args[1])
    notebooks = sorted(source.glob("[0-9][0-9]*_*.ipynb"))
    if not notebooks:
        print(f"no notebooks in {source}", file=sys.stderr)
        return 1
    target.mkdir(parents=True, exist_ok=True)
    kept = []
    for path in notebooks:
        out = target / path.name
        if not force and _edited(out):
            kept.append(path.name)
            continue
        nbformat.write(studentize(nbformat.read(path, as_version=4)), out)
    for name in COPIED:
        if (source / name).exists():
            shutil.copy(source / name, target / name)
    print(f"wrote {len(notebooks) - len(kept)} student notebooks to {target}")
    if kept:
        print(f"kept {len(kept)} you have changed ({', '.join(kept)}); --force overwrites them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
