"""A leak search over everything a student can read: the student copy (``labs/make_student.py``), the wheel
(``pip wheel . --no-deps``, what every installed environment, the hub image and the JupyterLite site import), the
READMEs and the documentation site. The built JupyterLite site is searched, every file of it, by
``tests/browser/test_lite.py``, which builds it once for its browser tests too.

Searched for: every sentence of every explanation, near-miss hint and revealed box (the teacher's texts, which must
appear nowhere), the solutions (``### BEGIN SOLUTION`` regions), the teacher's sources, and each answer's telling
spellings (``tests/test_student_copy.py``'s rule: numbers of four digits or more, every spelling of a duration, and
answers written as text). Per exercise, "before its check" in the student copy is covered by
``tests/test_student_copy.py``; here the READMEs and the wheel are searched as a whole, since a student reads them
before any check.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import nbformat
import pytest
from built_once import rmqlab_wheel
from leak_search import SENTENCES, files_as_text, telling
from leak_search import search as _search

from rmqlab.lab.labs_command import TEACHER_NEEDS_CLONE

ROOT = Path(__file__).resolve().parents[1]
LAB_COUNT = len(list((ROOT / "labs").glob("[0-9][0-9]*_*.py")))
"""How many labs `rmqlab labs` writes: one notebook per lab source."""
READMES = (ROOT / "README.md", ROOT / "labs" / "README.md")


def test_the_search_finds_what_it_looks_for() -> None:
    """The searcher itself: a sentence of an explanation, a duration in any spelling, a solution region."""
    ex_id, sentence = SENTENCES[0]
    assert _search(iter([("x", f"Prose. {sentence} More prose.")])) == [f"{ex_id}: sentence {sentence!r} in x"]
    assert any("8 h 45 m 40 s" in leak for leak in _search(iter([("x", "it ends at 8 h 45 m 40 s")])))  # 03.2
    assert _search(iter([("x", "a\n### BEGIN SOLUTION\nanswer_1 = 3\n")])) == ["a solution region in x"]
    cp_id, cp_sentence = next(found for found in SENTENCES if found[0].startswith("checkpoint "))  # a checkpoint's
    assert _search(iter([("x", f"Prose. {cp_sentence} More prose.")])) == [f"{cp_id}: sentence {cp_sentence!r} in x"]
    assert telling(4, None) == [] and telling(True, None) == [] and "17 140" in telling(17140, "s")
    assert telling(100, "s") == [] and telling(("%DLQ%cg", 1), None) == [] and telling(["TopicTest@b:3"], None)


def test_the_student_copy_states_no_explanation_and_no_solution(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "labs" / "make_student.py"), str(ROOT / "labs"),
                           str(tmp_path)], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    texts = []
    for path in sorted(tmp_path.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        texts += [(f"{path.name} cell {c.id}", c.source) for c in nb.cells]
        assert all(not c.get("outputs") for c in nb.cells), path.name
    leaks = [leak for leak in _search(iter(texts)) if "sentence" in leak or "solution" in leak]
    assert leaks == []


def test_the_readmes_state_no_answer_and_no_explanation() -> None:
    assert _search((str(p.relative_to(ROOT)), p.read_text()) for p in READMES) == []


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's one build of the wheel (tests/built_once.py: the Lite site is built with the same file)."""
    return rmqlab_wheel(tmp_path_factory)


def test_the_wheel_states_no_answer_no_explanation_and_has_no_teacher_sources(wheel: Path) -> None:
    """Every member of the wheel, whatever its kind (the message catalogs too); answers everywhere but RECORD (file
    sizes, whose digits may match a number by chance)."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "rmqlab/course/bank.json" in names
    assert [n for n in names if n.startswith("teacher/") or "/teacher/" in n or n.startswith("labs/")] == []
    members = list(files_as_text(wheel.parent))
    assert len(members) == len(names) and any(where.endswith(".mo") for where, _ in members)
    assert _search(iter(members), answers_in=lambda where: not where.endswith(".dist-info/RECORD")) == []


def _cells(path: Path) -> list[tuple[str, str, dict[str, Any]]]:
    return [(c.cell_type, c.source, dict(c.metadata)) for c in nbformat.read(path, as_version=4).cells]


def test_rmqlab_labs_from_the_wheel_writes_the_student_copy_and_sends_teachers_to_the_repository(
    wheel: Path, tmp_path: Path
) -> None:
    """Installed, ``rmqlab labs`` releases the wheel's (already released) sources to the very notebooks ``make
    student`` writes from the solved ones; ``--teacher`` says the solved labs come with a clone, and writes nothing."""
    installed = tmp_path / "site-packages"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(installed)
    assert sorted(p.name for p in (installed / "rmqlab" / "labs").iterdir() if not p.name[0].isdigit()) == [
        "README.md", "make_student.py", "zh"]  # fmt: skip  (zh: the Chinese labs, rmqlab labs --lang zh)

    def rmqlab_labs(*argv: str) -> subprocess.CompletedProcess[str]:
        code = "import sys, rmqlab; assert rmqlab.__file__.startswith(sys.argv[1]); sys.argv[0:2] = ['rmqlab']; " \
               "from rmqlab.lab.cli import console_main; sys.exit(console_main())"  # fmt: skip
        return subprocess.run([sys.executable, "-c", code, str(installed), "labs", *argv], cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(installed)}, capture_output=True, text=True,
                              timeout=300)  # fmt: skip

    done = rmqlab_labs(str(tmp_path / "mine"))
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.startswith(f"wrote {LAB_COUNT} student notebooks to {tmp_path / 'mine'}\n")
    made = subprocess.run([sys.executable, str(ROOT / "labs" / "make_student.py"), str(ROOT / "labs"),
                           str(tmp_path / "make")], capture_output=True, text=True)  # fmt: skip
    assert made.returncode == 0, made.stderr
    names = sorted(p.name for p in (tmp_path / "make").iterdir())
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == names and len(names) == LAB_COUNT + 1  # + README
    for name in names:
        if name.endswith(".ipynb"):
            assert _cells(tmp_path / "mine" / name) == _cells(tmp_path / "make" / name), name
    done = rmqlab_labs(str(tmp_path / "solved"), "--teacher")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"rmqlab: error: {TEACHER_NEEDS_CLONE}\n"
    assert not (tmp_path / "solved").exists()


def test_the_docs_site_shows_the_labs_as_released(tmp_path: Path) -> None:
    """The documentation site (``make docs``: a public page) renders each lab without its solutions, hidden tests,
    verdicts or score: no explanation sentence (an exercise's or a checkpoint's), no solution region; the pictures and
    tables stay (a static picture's checkpoints and the frames past them are sealed: widgets/page_seal.py)."""
    spec = importlib.util.spec_from_file_location("build_docs", ROOT / "docs" / "build_docs.py")
    assert spec is not None and spec.loader is not None
    build_docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_docs)
    build_docs.stage(tmp_path / "src")
    texts, with_outputs = [], 0
    for path in sorted((tmp_path / "src" / "labs").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            with_outputs += bool(cell.get("outputs"))
            outputs = "\n".join(json.dumps(o) for o in cell.get("outputs", []))
            texts.append((f"{path.name} cell {cell.id}", f"{cell.source}\n{outputs}"))
            assert "HIDDEN TESTS" not in cell.source and "BEGIN SOLUTION" not in cell.source
    assert with_outputs > 50  # the runs' tables and pictures are still shown
    # a lab's picture, rendered static, checks its checkpoints without a kernel, from sealed boxes: no checkpoint
    # explanation is in the page either (before stop 35 they were, filled from the run)
    assert [leak for leak in _search(iter(texts)) if "sentence" in leak or "solution" in leak] == []
