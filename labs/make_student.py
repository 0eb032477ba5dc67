"""Write a student copy of the labs: answers blanked, every output cleared.

Usage::

    python labs/make_student.py labs build/student-labs

Cells tagged ``solution`` get the source the generator stored in their ``rmqlab_student_source``
metadata (``answer_1 = ...``); without it they become a placeholder comment. *All* outputs and
execution counts are removed too, because a saved check cell ("Right — 17140 …") would give the
answer away. Non-notebook files (``README.md``) are copied as they are.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nbformat

STUDENT_KEY = "rmqlab_student_source"
PLACEHOLDER = "# Your answer here"
COPIED = ("README.md",)


def studentize(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return ``nb`` with solutions replaced and outputs cleared (in place, and returned for chaining)."""
    for cell in nb.cells:
        if "solution" in cell.metadata.get("tags", []):
            cell.source = cell.metadata.get(STUDENT_KEY, PLACEHOLDER)
        cell.metadata.pop(STUDENT_KEY, None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nb


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    source, target = Path(argv[0]), Path(argv[1])
    notebooks = sorted(source.glob("*.ipynb"))
    if not notebooks:
        print(f"no notebooks in {source}", file=sys.stderr)
        return 1
    target.mkdir(parents=True, exist_ok=True)
    for path in notebooks:
        nb = studentize(nbformat.read(path, as_version=4))
        nbformat.write(nb, target / path.name)
    for name in COPIED:
        if (source / name).exists():
            shutil.copy(source / name, target / name)
    print(f"wrote {len(notebooks)} student notebooks to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
