"""The JupyterLite site's labs, built without a browser or the network: ``lite/build_lite.py``'s notebook step on
fresh student copies (``make student``: ``labs`` → ``build/student-labs``, ``labs/zh`` → ``build/student-labs/zh``).
The Chinese labs are in the site's ``zh`` folder, released as the English ones are: answers blanked, no hidden
test, no output, no explanation, Pyodide's kernel. (The whole site, served and opened in Chromium, is
``tests/browser/test_lite.py``'s, which searches every file of it for leaks.)"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from leak_search import search

ROOT = Path(__file__).resolve().parents[1]
CHINESE_SOURCES = sorted(p.name for p in (ROOT / "labs" / "zh").glob("[0-9][0-9]*_*.ipynb"))


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    work = tmp_path_factory.mktemp("lite-labs")
    make_student = _module(ROOT / "labs" / "make_student.py")
    assert make_student.main([str(ROOT / "labs"), str(work / "student")]) == 0
    assert make_student.main([str(ROOT / "labs" / "zh"), str(work / "student" / "zh")]) == 0
    names = _module(ROOT / "lite" / "build_lite.py").lab_notebooks(work / "student", work / "files")
    return work / "files", names


def test_the_chinese_labs_are_a_folder_of_the_site(site_files: tuple[Path, list[str]]) -> None:
    files, names = site_files
    assert CHINESE_SOURCES, "labs/zh has no notebook"
    assert [n for n in names if n.startswith("zh/")] == [f"zh/{n}" for n in CHINESE_SOURCES]
    assert sorted(p.name for p in (files / "zh").iterdir()) == sorted([*CHINESE_SOURCES, "README.md"])
    assert (files / "zh" / "README.md").read_text() == (ROOT / "labs" / "zh" / "README.md").read_text()
    assert [n for n in names if "/" not in n] == sorted(p.name for p in (ROOT / "labs").glob("[0-9][0-9]*_*.ipynb"))


@pytest.mark.parametrize("name", CHINESE_SOURCES)
def test_each_chinese_lab_in_the_site_is_released(name: str, site_files: tuple[Path, list[str]]) -> None:
    """Pyodide's kernel; every answer cell blank; no solution, hidden test or output; Chinese prose; nothing of
    the bank's explanations or hints (English or Chinese) and no solution region (the leak search)."""
    nb = nbformat.read(site_files[0] / "zh" / name, as_version=4)
    assert nb.metadata["kernelspec"]["display_name"] == "Python (Pyodide)"
    sources = [c.source for c in nb.cells]
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in nb.cells if c.cell_type == "code")
    assert not any("BEGIN SOLUTION" in s or "BEGIN HIDDEN TESTS" in s for s in sources)
    answers = [s for s in sources if re.match(r"answer_\d+ = ", s)]
    assert answers and all(re.match(r"answer_\d+ = \.\.\.(\s|$)", s) for s in answers), answers
    assert any(re.search(r"set_language\(\"zh\"\)", s) for s in sources)
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", s)) for s in sources if s) > len(nb.cells) // 3
    leaks = search((f"{name} cell {i}", s) for i, s in enumerate(sources))
    assert [leak for leak in leaks if "sentence" in leak or "solution" in leak] == []


def test_no_lab_in_the_site_installs_anything(site_files: tuple[Path, list[str]]) -> None:
    """rmqlab and everything the labs import are in the site's Pyodide, loaded by the kernel itself (issue 35 item
    2): no lab, English or Chinese, starts with a ``%pip install`` / piplite cell for the student to wait on."""
    files, names = site_files
    assert "00_tour.ipynb" in names and "zh/00_tour.ipynb" in names
    for name in names:
        nb = nbformat.read(files / name, as_version=4)
        installs = [c.source for c in nb.cells if c.cell_type == "code"
                    and re.search(r"%pip|piplite|micropip|pip install", c.source)]  # fmt: skip
        assert installs == [], name
