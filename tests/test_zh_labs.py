"""Issue 35, item 1: the Chinese labs (``labs/zh/NN_name.py`` + ``.ipynb``) are their English twins in another
language: the same cells of the same kinds, the same code (only its strings and comments translated), so the same
checks and exercise ids and the same Dashboards and Checkpoints; plus ``set_language("zh")`` in the first code cell.
nbval runs their notebooks like the English ones (``pytest --nbval labs`` collects ``labs/zh/`` too)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jupytext import read as read_text_notebook  # type: ignore[import-untyped]
from lab_tools import load_lab_tool

ROOT = Path(__file__).resolve().parents[1]
LABS = ROOT / "labs"
ZH = LABS / "zh"
CHINESE = re.compile(r"[\u4e00-\u9fff]")


SYNC = load_lab_tool("sync.py")
SOURCES = [p.name for p in SYNC.zh_sources()]


class _NoStrings(ast.NodeTransformer):
    """Every string of prose (words with spaces, or Chinese: docstrings, questions, checkpoint names) becomes ``""``;
    the strings that are data stay and must be the English lab's (event kinds, times, names: ``"rebalanced"``,
    ``"2s"``, ``"consumer:c2"``, ``"TopicTest"``)."""

    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        prose = isinstance(node.value, str) and (" " in node.value or bool(CHINESE.search(node.value)))
        return ast.Constant("") if prose else node

    def visit_Call(self, node: ast.Call) -> ast.Call:
        """What a cell prints beside its numbers is prose too (``print(n, "deliveries")``)."""
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            node.args = [ast.Constant("") if isinstance(a, ast.Constant) and isinstance(a.value, str) else a
                         for a in node.args]  # fmt: skip
        if isinstance(node.func, ast.Name) and node.func.id == "table" and len(node.args) > 1:
            headers = node.args[1]  # a printed table's headers are prose too ("level" → "级别"), even one word
            if isinstance(headers, ast.List):
                headers.elts = [ast.Constant("") if isinstance(e, ast.Constant) and isinstance(e.value, str) else e
                                for e in headers.elts]  # fmt: skip
        return node


def _code_shape(source: str) -> str:
    """A code cell's code with its strings blanked (comments are not in the tree); magics and ``...`` kept."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    tree = ast.parse("\n".join(lines))
    tree.body = [s for s in tree.body if not _is_set_language(s)]
    for stmt in tree.body:  # the import of set_language, beside the English lab's imports
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "rmqlab":
            stmt.names = [alias for alias in stmt.names if alias.name != "set_language"]
    return ast.dump(_NoStrings().visit(tree))


def _is_set_language(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "set_language")  # fmt: skip


def _calls(source: str, names: tuple[str, ...]) -> list[str]:
    """The calls of ``names`` in ``source`` with their arguments, prose blanked: ``check('00.1', answer_1, …)``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        called = getattr(node.func, "id", getattr(node.func, "attr", "")) if isinstance(node, ast.Call) else ""
        if called in names:  # a function (check, Dashboard) or a method (dash.controller.seek_time)
            found.append(ast.unparse(_NoStrings().visit(node)))
    return found


def _exercise_ids(source: str) -> list[str]:
    """The exercise ids the checks and the score name (``check("03.1", …)``, ``score("03")``)."""
    ids = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("check", "score"):
            first = node.args[0]
            assert isinstance(first, ast.Constant)
            ids.append(str(first.value))
    return ids


def _cells(path: Path) -> list[Any]:
    return list(read_text_notebook(path).cells)


def _english(name: str) -> Path:
    return LABS / name


def test_the_chinese_labs_are_there() -> None:
    """At least the tour and lab 03, each the twin of an English lab of the same name, with a Chinese index."""
    assert {"00_tour.py", "03_delay_levels_schedule.py"} <= set(SOURCES)
    assert all(_english(name).is_file() for name in SOURCES)
    index = (ZH / "README.md").read_text(encoding="utf-8")
    for name in SOURCES:
        assert f"]({name.removesuffix('.py')}.ipynb)" in index


@pytest.mark.parametrize("name", SOURCES)
def test_same_cells_same_code_same_checks_same_dashboards(name: str) -> None:
    english, chinese = _cells(_english(name)), _cells(ZH / name)
    assert [c.cell_type for c in chinese] == [c.cell_type for c in english]
    assert [c.metadata for c in chinese] == [c.metadata for c in english]  # tags (nbval), nbgrader ids and points
    for en, zh in zip(english, chinese, strict=True):
        if en.cell_type == "code":
            assert _code_shape(zh.source) == _code_shape(en.source), zh.source[:200]
            for marker in ("### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"):
                assert zh.source.count(marker) == en.source.count(marker)
    en_code = "\n".join(c.source for c in english if c.cell_type == "code")
    zh_code = "\n".join(c.source for c in chinese if c.cell_type == "code")
    assert _exercise_ids(zh_code) == _exercise_ids(en_code)
    watched = ("check", "Dashboard", "Checkpoint", "seek_time")
    assert _calls(zh_code, watched) == _calls(en_code, watched)


@pytest.mark.parametrize("name", SOURCES)
def test_chinese_from_the_first_code_cell(name: str) -> None:
    """``set_language("zh")`` in the first code cell, so every dashboard and caption after it is Chinese; every
    markdown cell but links is Chinese prose."""
    cells = _cells(ZH / name)
    first = next(c for c in cells if c.cell_type == "code")
    assert 'set_language("zh")' in first.source
    tree = ast.parse(first.source)
    assert any(_is_set_language(s) for s in tree.body)
    prose = [c.source for c in cells if c.cell_type == "markdown" and not c.source.startswith("[")]
    assert [p[:40] for p in prose if not CHINESE.search(p)] == []
    comments = [t.string for t in tokenize.generate_tokens(io.StringIO((ZH / name).read_text()).readline)
                if t.type == tokenize.COMMENT and "←" in t.string]  # fmt: skip
    assert comments and all(CHINESE.search(c) for c in comments)


@pytest.mark.parametrize("name", SOURCES)
def test_the_pair_is_in_sync_and_its_outputs_fresh(name: str) -> None:
    """``labs/sync.py`` keeps the Chinese pairs as it keeps the English ones; the saved outputs are one run of these
    cells, in Chinese (the clock line of the tour's Dashboard), with every check right."""
    assert SYNC.pair_differences(ZH / name) == [], "run: .venv/bin/python labs/sync.py"
    nb = nbformat.read(ZH / name.replace(".py", ".ipynb"), as_version=4)
    assert nb.metadata["rmqlab"][SYNC.HASH_KEY] == SYNC.cells_hash(nb), "run: .venv/bin/python labs/sync.py"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.id for c in code if any(o.output_type == "error" for o in c.outputs)] == []
    checks = [c for c in code if c.metadata.get("nbgrader", {}).get("grade")]
    assert checks and all(c.outputs[0].text.startswith("正确——") for c in checks)  # "Right — ", in Chinese
    if name == "00_tour.py":
        clock = next(c for c in code if "clock_text" in c.source)
        english = nbformat.read(LABS / name.replace(".py", ".ipynb"), as_version=4)
        english_clock = next(c for c in english.cells if c.cell_type == "code" and "clock_text" in c.source)
        assert clock.outputs[0].text == english_clock.outputs[0].text.replace(" event ", " 事件 ")
        assert "事件" in clock.outputs[0].text


def test_sync_names_a_chinese_lab_by_its_folder() -> None:
    assert SYNC.shown(ZH / "00_tour.ipynb") == "zh/00_tour.ipynb"
    assert SYNC.shown(LABS / "00_tour.ipynb") == "00_tour.ipynb"


def test_the_chinese_student_copy(tmp_path: Path) -> None:
    """``rmqlab labs DIR --lang zh`` writes the Chinese labs released (answers out), with their index."""
    from rmqlab.lab.labs_command import write_labs

    written = write_labs(tmp_path, lang="zh", out=io.StringIO())
    assert sorted(p.name for p in written) == [name.replace(".py", ".ipynb") for name in SOURCES]
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == (ZH / "README.md").read_text(encoding="utf-8")
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert "### BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
        assert 'set_language(\\"zh\\")' in text and "先预测，再运行" in text
