"""Set up a teacher on a hub: a teacher's Jupyter and an nbgrader course directory with the solved labs.

    python deploy/nbgrader/make_teacher.py CHECKOUT HOME [--owner USER]

writes the teacher role into ``HOME/.jupyter`` (``deploy/jupyter_roles.py``: formgrader, Create Assignment,
Validate; it wins over the environment's hub-student role because the hub sets ``JUPYTER_PREFER_ENV_PATH=0``) with
``HOME/.jupyter/nbgrader_config.py``, which points the Formgrader at ``HOME/course`` with the course's settings
(without it the Formgrader works on ``HOME`` and autogrades with nbgrader's defaults: no grader's look at the answer
cells outside the kernel, so a patched kernel would score), and
makes ``HOME/course``: ``nbgrader_config.py`` (``labs/nbgrader_config.py``: how the labs are released and graded)
and ``source/labNN/NN_x.ipynb`` for each solved lab of ``CHECKOUT/labs``, unpaired from its jupytext source (else
JupyterLab's jupytext would write ``NN_x.py`` beside a notebook the teacher opens, solutions and all, and nbgrader
releases every file of ``source/labNN`` to the students; a released notebook still paired would also write one
beside each student's copy and into their submission). Nothing the teacher already has is overwritten. Then, in
``~/course`` (or from the Formgrader): ``nbgrader generate_assignment lab03``, ``nbgrader release_assignment lab03``,
and after the students submit ``nbgrader collect lab03`` and ``nbgrader autograde lab03`` (docs/classroom.md).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

FORMGRADER_CONFIG = """\
# Written by deploy/nbgrader/make_teacher.py: the Formgrader (and nbgrader run anywhere) works on the course
# directory, with its settings (how the labs are released and autograded: labs/nbgrader_config.py).
c = get_config()  # noqa: F821
c.CourseDirectory.root = {course!r}
load_subconfig({course!r} + "/nbgrader_config.py")  # noqa: F821
"""
"""``~/.jupyter/nbgrader_config.py`` of a teacher: nbgrader reads it wherever it runs, the Formgrader included."""


def assignment_of(notebook: Path) -> str:
    """``03_delay_levels_schedule.ipynb`` → ``lab03``; ``04b_…`` → ``lab04b``."""
    return "lab" + notebook.name.split("_", 1)[0]


def unpaired(notebook: str) -> str:
    """A notebook's JSON without its jupytext pairing (``metadata.jupytext``), written as nbformat writes it."""
    data = json.loads(notebook)
    data.get("metadata", {}).pop("jupytext", None)
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def setup(checkout: Path, home: Path) -> list[Path]:
    """Write the teacher's config and course directory; the paths created (existing ones are kept)."""
    spec = importlib.util.spec_from_file_location("jupyter_roles", checkout / "deploy" / "jupyter_roles.py")
    assert spec is not None and spec.loader is not None
    roles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(roles)
    created: list[Path] = list(roles.write("teacher", home / ".jupyter"))
    course = home / "course"
    formgrader = home / ".jupyter" / "nbgrader_config.py"
    if not formgrader.exists():
        formgrader.write_text(FORMGRADER_CONFIG.format(course=str(course)))
        created.append(formgrader)
    config = course / "nbgrader_config.py"
    if not config.exists():
        course.mkdir(parents=True, exist_ok=True)
        shutil.copy(checkout / "labs" / "nbgrader_config.py", config)
        created.append(config)
    for notebook in sorted((checkout / "labs").glob("[0-9][0-9]*_*.ipynb")):
        target = course / "source" / assignment_of(notebook) / notebook.name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(unpaired(notebook.read_text()))
            created.append(target)
    return created


def main(argv: list[str]) -> int:
    owner = None
    if "--owner" in argv:
        i = argv.index("--owner")
        owner, argv = argv[i + 1], argv[:i] + argv[i + 2 :]
    if len(argv) != 2:
        print("usage: python deploy/nbgrader/make_teacher.py CHECKOUT HOME [--owner USER]", file=sys.stderr)
        return 2
    created = setup(Path(argv[0]), Path(argv[1]))
    if owner is not None:
        home = Path(argv[1])
        subprocess.run(["chown", "-R", f"{owner}:", str(home / ".jupyter"), str(home / "course")], check=True)
    print(f"make_teacher: {len(created)} files written under {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
