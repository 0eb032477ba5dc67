"""Sync each lab's jupytext source (``labs/NN_name.py``) with its notebook, and execute what changed.

Usage::

    .venv/bin/python labs/sync.py            # sync every pair; execute the notebooks whose cells changed
    .venv/bin/python labs/sync.py 03 04      # sync every pair; execute labs 03 and 04 even if unchanged
    .venv/bin/python labs/sync.py --no-execute   # only sync the pairs
    .venv/bin/python labs/sync.py --check    # change nothing; exit 1 if a pair differs or outputs are stale

The Chinese labs (``labs/zh/NN_name.py``, issue 35) are pairs too and go through the same steps; ``sync.py 03``
executes both languages' lab 03.

The ``.py`` file is what you edit (in an editor, or in JupyterLab, whose jupytext contents manager saves
both files of the pair). ``jupytext --sync`` carries the cells to the ``.ipynb`` and keeps its outputs;
then a notebook whose cells differ from the ones its outputs were made from is run top to bottom in a
fresh kernel (nbclient, no widget state: a Dashboard's figures would add megabytes, and a live kernel
redraws them), and the hash of the cells it ran is stored in ``metadata.rmqlab.executed_cells_sha256``
so ``tests/test_notebooks.py`` can tell fresh outputs from stale ones.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import nbformat
from jupytext import read as read_text_notebook  # type: ignore[import-untyped]
from jupytext.cli import jupytext as jupytext_cli  # type: ignore[import-untyped]

LABS = Path(__file__).resolve().parent
HASH_KEY = "executed_cells_sha256"


def sources() -> list[Path]:
    """The lab sources, ``labs/NN_name.py`` in lab order."""
    return sorted(LABS.glob("[0-9][0-9]*_*.py"))


def zh_sources() -> list[Path]:
    """The Chinese labs' sources, ``labs/zh/NN_name.py`` in lab order (each the twin of an English one)."""
    return sorted((LABS / "zh").glob("[0-9][0-9]*_*.py"))


def shown(path: Path) -> str:
    """A lab file's name as messages give it: ``03_x.ipynb``, or ``zh/03_x.ipynb`` for a Chinese lab."""
    return str(path.relative_to(LABS)) if path.parent == LABS / "zh" else path.name


def cells_hash(nb: Any) -> str:
    """Hash of every cell's type, source and metadata: what the saved outputs were made from."""
    data = [[c.cell_type, c.source, {k: v for k, v in c.metadata.items() if k != "execution"}] for c in nb.cells]
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def pair_differences(source: Path) -> list[str]:
    """How the ``.py`` source and its ``.ipynb`` differ (cell types, sources, metadata); empty when in sync."""
    notebook = source.with_suffix(".ipynb")
    if not notebook.exists():
        return [f"{notebook.name} is missing: run labs/sync.py"]
    text, saved = read_text_notebook(source), nbformat.read(notebook, as_version=4)
    problems = []
    if len(text.cells) != len(saved.cells):
        problems.append(f"{len(text.cells)} cells in {source.name}, {len(saved.cells)} in {notebook.name}")
    for i, (a, b) in enumerate(zip(text.cells, saved.cells, strict=False)):
        meta_b = {k: v for k, v in b.metadata.items() if k != "execution"}
        if (a.cell_type, a.source, dict(a.metadata)) != (b.cell_type, b.source, meta_b):
            problems.append(f"cell {i} ({b.get('id', '?')}) differs")
    if saved.metadata.get("jupytext", {}).get("formats") != "ipynb,py:percent":
        problems.append(f"{notebook.name} is not paired with its .py (metadata.jupytext.formats)")
    return problems


def execute(nb: Any, folder: Path = LABS) -> None:
    """Run ``nb`` top to bottom in a fresh python3 kernel started in ``folder`` (as "Restart and run all" does)."""
    from nbclient import NotebookClient

    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=300,
        store_widget_state=False,
        record_timing=False,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            text = output.get("text", "") + str(output.get("data", {}).get("text/plain", ""))
            if " at 0x" in text:  # an object address: differs on every run, so nbval would fail
                raise ValueError(f"cell {cell.id} shows an object address: {text[:80]!r}")
    nb.metadata["language_info"] = {"name": "python"}  # the kernel's exact version is not ours to pin
    nb.metadata.setdefault("rmqlab", {})[HASH_KEY] = cells_hash(nb)


def sync_pair(source: Path) -> None:
    """``jupytext --sync``: the newer file of the pair gives the cells, the ``.ipynb`` keeps its outputs."""
    jupytext_cli(["--quiet", "--sync", str(source)])


def sync(source: Path, force: bool, run: bool = True) -> str:
    """Sync one pair, execute it if its cells changed (or ``force``) unless ``run`` is off; say what was done."""
    sync_pair(source)
    notebook = source.with_suffix(".ipynb")
    nb = nbformat.read(notebook, as_version=4)
    if not force and nb.metadata.get("rmqlab", {}).get(HASH_KEY) == cells_hash(nb):
        return f"{shown(notebook)}: in sync, outputs fresh"
    if not run:
        return f"{shown(notebook)}: in sync, outputs stale (not executed)"
    execute(nb, notebook.parent)
    nbformat.write(nb, notebook)
    # The text file must stay at least as recent as the notebook, or jupytext's contents manager warns.
    os.utime(source)
    return f"{shown(notebook)}: executed"


def check() -> list[str]:
    """Every problem that ``--check`` reports: pairs out of sync, outputs not made from the current cells."""
    problems = []
    for source in sources() + zh_sources():
        problems += [f"{shown(source)}: {p}" for p in pair_differences(source)]
        notebook = source.with_suffix(".ipynb")
        if notebook.exists():
            nb = nbformat.read(notebook, as_version=4)
            if nb.metadata.get("rmqlab", {}).get(HASH_KEY) != cells_hash(nb):
                problems.append(f"{shown(notebook)}: outputs were not made from these cells: run labs/sync.py")
    return problems


def main(argv: list[str]) -> int:
    if "--check" in argv:
        problems = check()
        print("\n".join(problems) or "all lab pairs in sync, outputs fresh")
        return 1 if problems else 0
    wanted = [a for a in argv if not a.startswith("--")]
    unknown = [w for w in wanted if not any(s.name.startswith(w) for s in sources())]
    if unknown:
        print(f"no lab source starts with {', '.join(unknown)} (labs/NN_name.py)", file=sys.stderr)
        return 2
    for source in sources() + zh_sources():
        print(sync(source, force=any(source.name.startswith(w) for w in wanted), run="--no-execute" not in argv))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
