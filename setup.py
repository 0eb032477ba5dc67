"""The one build step pyproject.toml cannot state: the wheel carries the labs as released, not solved (issue 31).

``labs/`` installs as the package ``rmqlab.labs`` (pyproject.toml) so that ``rmqlab labs DIR`` works after a
``pip install`` (issue 35). But ``labs/NN_name.py`` are the teacher's solved sources, and nothing installed may state
an answer. So the build writes each lab source with its solutions and hidden tests taken out by
``labs/make_student.py``'s own ``released_source`` (plain text: this build imports nothing but setuptools), and
of the scripts in ``labs/`` keeps only ``make_student.py``, which ``rmqlab labs`` runs: the teacher's tools
(``nbgrader_config.py``, ``sync.py``) and the notebooks stay in the repository. The solved labs come with a clone
(``make teacher``). ``tests/test_leaks.py`` searches the wheel and runs ``rmqlab labs`` from it.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import shutil
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
LABS = ROOT / "labs"
LABS_PACKAGE = "rmqlab.labs"
LAB_SOURCE = "[0-9][0-9]*_*.py"
"""A lab's jupytext source, in ``labs/`` or a language's folder (``labs/zh/``): the glob ``rmqlab labs`` reads."""
SHIPPED_SCRIPTS = ("make_student",)
"""The only other Python files of ``labs/`` the wheel carries: ``rmqlab labs`` releases the notebooks with it."""


def _released_source() -> Any:
    """``released_source`` from ``labs/make_student.py`` (a script, so loaded from its path; nbformat not needed)."""
    spec = importlib.util.spec_from_file_location("rmqlab_make_student", LABS / "make_student.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.released_source


def _is_lab_source(path: str) -> bool:
    where = Path(path).resolve()
    return LABS in where.parents and fnmatch.fnmatch(where.name, LAB_SOURCE)


class BuildPy(build_py):
    """setuptools' ``build_py``: the lab sources written as released, the teacher's tools in ``labs/`` left out."""

    def run(self) -> None:
        # build/lib outlives a build: a former build's solved sources or sync.py must not slip into this wheel
        shutil.rmtree(Path(self.build_lib, *LABS_PACKAGE.split(".")), ignore_errors=True)
        super().run()

    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        modules: list[tuple[str, str, str]] = super().find_package_modules(package, package_dir)
        if package != LABS_PACKAGE:
            return modules
        return [(pkg, name, path) for pkg, name, path in modules if name in SHIPPED_SCRIPTS or _is_lab_source(path)]

    def copy_file(self, infile: str, outfile: str, *args: Any, **kwargs: Any) -> tuple[str, bool]:
        """Every module and data file is copied through here: a lab source is written released instead."""
        if not _is_lab_source(infile):
            copied: tuple[str, bool] = super().copy_file(infile, outfile, *args, **kwargs)
            return copied
        released = _released_source()(Path(infile).read_text(encoding="utf-8"))
        Path(outfile).parent.mkdir(parents=True, exist_ok=True)
        Path(outfile).write_text(released, encoding="utf-8")
        return outfile, True


setup(cmdclass={"build_py": BuildPy})
