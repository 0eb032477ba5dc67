"""Write the student copy of the labs with nbgrader's own release steps: solutions and hidden tests out.

Usage::

    python labs/make_student.py labs build/student-labs            # keeps notebooks a student has changed
    python labs/make_student.py --force labs build/student-labs    # overwrites them

Each notebook goes through the steps ``nbgrader generate_assignment`` runs, done here with nbformat alone so that
a student's environment needs no nbgrader (``tests/test_student_copy.py`` checks the result is nbgrader's): clear
the solutions (the ``### BEGIN SOLUTION`` region of each answer cell goes, leaving ``answer_1 = ...  # ← your
prediction``), clear the hidden tests (the check cell's call to the grader goes), lock the cells (answer cells
undeletable, check and read-only cells also uneditable) and clear the outputs (a saved "Right — …" verdict would
give the answer away). The pairing with the jupytext source and the execution hash are dropped: a student's copy is
a plain notebook. ``README.md`` is copied as it is.

The same regions come out of the jupytext sources the wheel carries (``released_source``, run by ``setup.py`` at
build time): an installed rmqlab holds no answer (issue 31), and ``rmqlab labs`` releases those sources to this same
copy. So this module imports nbformat only where it reads or writes a notebook: the build has no nbformat.

A notebook the student has edited since it was written (its cells no longer hash to what this tool
wrote) is kept, so ``make lab`` never throws away a student's predictions; ``--force`` overwrites.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

CODE_STUB = ""
"""What replaces a solution region: nothing, since the line above it already reads ``answer_1 = ...``.

``labs/nbgrader_config.py`` sets the same ``ClearSolutions.code_stub`` for ``nbgrader generate_assignment``."""
COPIED = ("README.md",)
USAGE = "usage: python labs/make_student.py [--force] SOURCE_DIR TARGET_DIR"
WRITTEN_KEY = "student_cells_sha256"


def _cells_hash(nb: Any) -> str:
    data = [[c.cell_type, c.source] for c in nb.cells]
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()


REGIONS = (
    ("### BEGIN SOLUTION", "### END SOLUTION", CODE_STUB),
    ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS", None),
)
"""What goes from a cell: (first line, last line, what replaces the region — ``None``: nothing, not even a line)."""
CLEARED_METADATA = ("collapsed", "scrolled", "execution")
JUPYTEXT_METADATA = ("lines_to_next_cell",)
"""How jupytext lays a cell out in the ``.py`` file (blank lines after it): the pairing's, not the student's; it
also depends on the solution the cell held, so a copy released from the wheel's sources would differ in it."""


def _without_regions(source: str) -> str:
    lines: list[str] = []
    inside: tuple[str, str, str | None] | None = None
    for line in source.split("\n"):
        if inside is None:
            inside = next((r for r in REGIONS if r[0] in line), None)
            if inside is None:
                lines.append(line)
            elif inside[2] is not None:
                lines += inside[2].split("\n")
        elif inside[1] in line:
            inside = None
    if inside is not None:
        raise ValueError(f"a region opened by {inside[0]!r} is never closed by {inside[1]!r}")
    return "\n".join(lines).rstrip()  # the empty stub leaves a trailing newline


def released_source(source: str) -> str:
    """A lab's jupytext source (``labs/NN_name.py``) as the wheel carries it: each cell (from one ``# %%`` line to
    the next) as :func:`studentize` leaves it, followed by the blank lines it had, so that jupytext reads the same
    cells and metadata from it as from the released notebook."""
    released = []
    for cell in re.split(r"(?m)^(?=# %%)", source):
        body = cell.rstrip("\n")
        released.append(_without_regions(body) + cell[len(body) :])
    return "".join(released)


def _lock(cell: Any) -> None:
    """nbgrader's LockCells: answer cells cannot be deleted; check and read-only cells neither deleted nor edited."""
    meta = cell.metadata.get("nbgrader", {})
    if meta.get("solution"):
        cell.metadata["deletable"] = False
    elif meta.get("grade") or meta.get("locked"):
        cell.metadata["deletable"] = False
        cell.metadata["editable"] = False


def studentize(nb: Any) -> Any:
    """Return ``nb`` as released to students (in place, and returned for chaining)."""
    for cell in nb.cells:
        cell.source = _without_regions(cell.source)
        _lock(cell)
        for key in JUPYTEXT_METADATA:
            cell.metadata.pop(key, None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            for key in CLEARED_METADATA:
                cell.metadata.pop(key, None)
    nb.metadata.pop("jupytext", None)
    nb.metadata["rmqlab"] = {WRITTEN_KEY: _cells_hash(nb)}
    return nb


def _edited(path: Path) -> bool:
    """Whether the student copy at ``path`` was changed since this tool wrote it."""
    import nbformat

    if not path.exists():
        return False
    nb = nbformat.read(path, as_version=4)
    return bool(nb.metadata.get("rmqlab", {}).get(WRITTEN_KEY) != _cells_hash(nb))


def main(argv: list[str]) -> int:
    import nbformat

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
