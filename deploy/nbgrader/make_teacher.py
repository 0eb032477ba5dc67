"""Set up a teacher on a hub: a teacher's Jupyter and an nbgrader course directory with the solved labs.

    python deploy/nbgrader/make_teacher.py CHECKOUT HOME [--owner USER]

writes the teacher role into ``HOME/.jupyter`` (``deploy/jupyter_roles.py``: formgrader, Create Assignment,
Validate; it wins over the environment's hub-student role because the hub sets ``JUPYTER_PREFER_ENV_PATH=0``) and
makes ``HOME/course``: ``nbgrader_config.py`` (``labs/nbgrader_config.py``: how the labs are released and graded)
and ``source/labNN/NN_x.ipynb`` for each solved lab of ``CHECKOUT/labs``. Nothing the teacher already has is
overwritten. Then, in ``~/course``: ``nbgrader generate_assignment lab03``, ``nbgrader release_assignment lab03``,
and after the students submit ``nbgrader collect lab03`` and ``nbgrader autograde lab03`` (docs/classroom.md).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path


def assignment_of(notebook: Path) -> str:
    """``03_delay_levels_schedule.ipynb`` → ``lab03``; ``04b_…`` → ``lab04b``."""
    return "lab" + notebook.name.split("_", 1)[0]


def setup(checkout: Path, home: Path) -> list[Path]:
    """Write the teacher's config and course directory; the paths created (existing ones are kept)."""
    spec = importlib.util.spec_from_file_location("jupyter_roles", checkout / "deploy" / "jupyter_roles.py")
    assert spec is not None and spec.loader is not None
    roles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(roles)
    created: list[Path] = list(roles.write("teacher", home / ".jupyter"))
    course = home / "course"
    config = course / "nbgrader_config.py"
    if not config.exists():
        course.mkdir(parents=True, exist_ok=True)
        shutil.copy(checkout / "labs" / "nbgrader_config.py", config)
        created.append(config)
    for notebook in sorted((checkout / "labs").glob("[0-9][0-9]*_*.ipynb")):
        target = course / "source" / assignment_of(notebook) / notebook.name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(notebook, target)
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
