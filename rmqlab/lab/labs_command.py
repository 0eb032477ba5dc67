"""``rmqlab labs [DIR] [--lang en|zh] [--teacher] [--colab] [--force]``: the labs, written where one can open them.

After ``pip install 'rmqlab[lab]'`` there is no repository to open: the wheel carries the labs' jupytext sources
(``labs/NN_name.py``, installed as ``rmqlab/labs/``) and this command builds notebooks from them. The wheel's
sources are already released (``setup.py``: solutions and hidden checks out, issue 31), since nothing installed may
state an answer; the solved ones are the repository's.

- the student copy (the default): each source becomes a notebook, which ``labs/make_student.py`` — the same tool
  ``make lab`` runs — releases as nbgrader would (answers and hidden checks out, outputs cleared). A notebook the
  student has changed since it was written is kept unless ``--force``;
- ``--teacher`` (from a clone of the repository only): the solved notebooks, with ``nbgrader_config.py`` for a
  course directory;
- ``--colab``: the student copy with one cell in front that, in Google Colab only, installs rmqlab and turns on
  Colab's widget manager (outside Colab the cell does nothing, so the same notebook runs anywhere).

In a source checkout the sources are the repository's ``labs/`` folder itself.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

__all__ = ["COLAB_CELL_TAG", "LANGUAGES", "TEACHER_NEEDS_CLONE", "lab_sources", "write_labs"]

LANGUAGES = ("en", "zh")
"""``--lang``: English sources are ``labs/NN_name.py``, Chinese ones ``labs/zh/NN_name.py``."""
COLAB_CELL_TAG = "rmqlab-colab-setup"
COLAB_SETUP = """\
# Google Colab: install rmqlab and turn on Colab's manager for third-party widgets (does nothing elsewhere)
import sys

if "google.colab" in sys.modules:
    %pip install -q "rmqlab[lab]"
    from google.colab import output

    output.enable_custom_widget_manager()"""
LAB_EXTRA_HINT = "pip install 'rmqlab[lab,teacher]'"


class LabsError(Exception):
    """A request ``rmqlab labs`` cannot carry out; the message says why and what to do (exit code 2)."""


TEACHER_NEEDS_CLONE = (
    "--teacher: the solved labs come with the repository, not with an installed rmqlab (which carries the student "
    "copy only): git clone the rmqlab repository, then run `make teacher` or `rmqlab labs DIR --teacher` in it"
)


def _installed_labs() -> Path | None:
    """``rmqlab/labs`` when rmqlab runs from a wheel (its sources released: no answers), ``None`` in a checkout."""
    installed = Path(__file__).resolve().parents[1] / "labs"
    return installed if (installed / "make_student.py").is_file() else None


def lab_sources(lang: str = "en") -> Path:
    """The folder of the labs' jupytext sources in ``lang``: ``rmqlab/labs`` when installed, ``labs/`` in a checkout."""
    if lang not in LANGUAGES:
        raise LabsError(f"--lang {lang!r}: the labs are written in {' and '.join(LANGUAGES)}")
    base = _installed_labs() or Path(__file__).resolve().parents[2] / "labs"
    folder = base if lang == "en" else base / lang
    if not any(folder.glob("[0-9][0-9]*_*.py")):
        if lang != "en":
            raise LabsError(f"--lang {lang}: this version of rmqlab has no labs in that language yet; --lang en")
        raise LabsError(f"no lab sources in {folder} (a broken install? pip install --force-reinstall rmqlab)")
    return folder


def _need(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as missing:
        raise LabsError(f"rmqlab labs needs {missing.name}: {LAB_EXTRA_HINT}") from missing


def _make_student(sources: Path) -> ModuleType:
    """``make_student.py`` beside the English sources, loaded as a module (it is a script, not a package module)."""
    path = sources / "make_student.py"
    if not path.is_file():  # the Chinese sources are in labs/zh/
        path = sources.parent / "make_student.py"
    spec = importlib.util.spec_from_file_location("rmqlab_make_student", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as missing:
        raise LabsError(f"rmqlab labs needs {missing.name} to write the student copy: {LAB_EXTRA_HINT}") from missing
    return module


def _notebooks(sources: Path, into: Path, *, colab: bool) -> list[Path]:
    """Each jupytext source in ``sources`` as an (unexecuted) notebook in ``into``; README.md copied."""
    jupytext: Any = _need("jupytext")
    nbformat: Any = _need("nbformat")
    written = []
    for source in sorted(sources.glob("[0-9][0-9]*_*.py")):
        nb = jupytext.read(source)
        nb.metadata.pop("jupytext", None)
        if colab:
            cell = nbformat.v4.new_code_cell(COLAB_SETUP, metadata={"tags": [COLAB_CELL_TAG]})
            nb.cells.insert(0, cell)
        out = into / f"{source.stem}.ipynb"
        nbformat.write(nb, out)
        written.append(out)
    if (sources / "README.md").is_file():
        shutil.copy(sources / "README.md", into / "README.md")
    return written


def write_labs(
    target: Path, *, lang: str = "en", teacher: bool = False, colab: bool = False, force: bool = False,
    out: TextIO | None = None,
) -> list[Path]:  # fmt: skip
    """Write the labs into ``target`` and return the notebooks now there; prints what was done to ``out``."""
    out = out or sys.stdout
    if teacher and _installed_labs() is not None:
        raise LabsError(TEACHER_NEEDS_CLONE)
    sources = lab_sources(lang)
    if target.exists() and not target.is_dir():
        raise LabsError(f"DIR {str(target)!r} is a file; give a folder (it is created if absent)")
    target.mkdir(parents=True, exist_ok=True)
    if teacher:
        existing = [p.name for p in target.glob("[0-9][0-9]*_*.ipynb")]
        if existing and not force:
            raise LabsError(f"{target} already has {len(existing)} notebooks; --force overwrites them")
        written = _notebooks(sources, target, colab=colab)
        config = sources / "nbgrader_config.py"
        if not config.is_file():
            config = sources.parent / "nbgrader_config.py"
        shutil.copy(config, target / "nbgrader_config.py")
        out.write(f"wrote {len(written)} solved notebooks and nbgrader_config.py to {target}\n")
        return written
    make_student = _make_student(sources)
    said = io.StringIO()
    with tempfile.TemporaryDirectory(prefix="rmqlab-labs-") as tmp:
        _notebooks(sources, Path(tmp), colab=colab)
        with contextlib.redirect_stdout(said):  # its "wrote 12 student notebooks to DIR"
            status = make_student.main([*(["--force"] if force else []), tmp, str(target)])
    out.write(_in_language(said.getvalue()))
    if status != 0:
        raise LabsError(f"make_student.py stopped with exit code {status}")
    return sorted(target.glob("[0-9][0-9]*_*.ipynb"))


def _in_language(said: str) -> str:
    """What ``labs/make_student.py`` printed (it runs without rmqlab, so in English), in the current language: its
    two lines through the catalog, any other as it is."""
    from rmqlab.core.i18n import gettext as _

    lines = []
    for line in said.splitlines():
        if wrote := re.fullmatch(r"wrote (\d+) student notebooks to (.+)", line):
            line = _("wrote {n} student notebooks to {target}").format(n=wrote[1], target=wrote[2])
        elif kept := re.fullmatch(r"kept (\d+) you have changed \((.*)\); --force overwrites them", line):
            line = _("kept {n} you have changed ({names}); --force overwrites them").format(n=kept[1], names=kept[2])
        lines.append(line + "\n")
    return "".join(lines)


def how_to_open(target: Path, *, colab: bool) -> str:
    """What to do next, for the person who typed the command (in the current language)."""
    from rmqlab.core.i18n import gettext as _

    if colab:
        return _(
            "Open in Colab: https://colab.research.google.com → File → Upload notebook → a notebook from {target}\n"
            "  (its first cell installs rmqlab there and turns on Colab's widget manager; run the cells in order)\n"
        ).format(target=target)
    return _(
        "Open them with:  jupyter lab {target}\n"
        "  (or: jupyter notebook {target}; start with 00_tour.ipynb, README.md lists every lab)\n"
    ).format(target=target)
