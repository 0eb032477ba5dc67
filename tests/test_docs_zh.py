"""Issue 35, item 1: every hand-written page of the documentation site has a Chinese twin in ``docs/zh/`` that says
the same things: as many headings, the same code blocks, the same names and values in its inline code, a link to
the English page and back, and no line break between two Chinese characters (a browser shows it as a space in
the middle of a sentence). Reads the markdown only: the site build is ``tests/test_docs.py``."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = _load("build_docs", DOCS / "build_docs.py")
REFLOW = _load("labs_reflow_zh", ROOT / "labs" / "reflow_zh.py")
HAND_WRITTEN = sorted(p.name for p in DOCS.glob("*.md") if p.name not in BUILD.GENERATED)
FENCE = re.compile(r"(?ms)^[ \t]*(```|~~~)[^\n]*\n.*?^[ \t]*\1[ \t]*$")


def fenced_blocks(text: str) -> list[str]:
    """Each fenced code block, fences and indentation included, as written."""
    return [m.group(0) for m in FENCE.finditer(text)]


def headings(text: str) -> list[str]:
    """The heading lines outside code (``# …`` to ``###### …``), their levels only: the words are translated."""
    return [line.split(" ", 1)[0] for line in FENCE.sub("", text).splitlines() if re.match(r"#{1,6} ", line)]


def outline(text: str) -> dict[str, int]:
    """How many table rows, list items and paragraphs the page has outside code: a twin drops none of them."""
    lines = FENCE.sub("CODE", text).split("\n")
    rows = sum(1 for line in lines if line.startswith("|"))
    items = sum(1 for line in lines if re.match(r"\s*(?:[-*+]|\d+\.) ", line))
    starts = zip(["", *lines], lines, strict=False)  # each line with the one before it
    paragraphs = sum(1 for before, line in starts if line.strip() and not before.strip())
    return {"table rows": rows, "list items": items, "paragraphs": paragraphs}


def inline_code(text: str) -> list[str]:
    """Every inline code span outside the fenced blocks, spaces normalised (a span may wrap in the English)."""
    return sorted(" ".join(span.split()) for span in re.findall(r"`([^`]+)`", FENCE.sub("", text)))


def prose(text: str) -> str:
    """The text without its code: what is translated (the English has about 1.5 Chinese characters a word)."""
    return re.sub(r"`[^`]+`", "", FENCE.sub("", text))


def test_the_hand_written_pages_are_known() -> None:
    """The pages the twins are checked for: what docs/ holds, not a list that can fall behind it."""
    assert {"classroom.md", "slides.md", "life-of-a-message.md", "state.md"} <= set(HAND_WRITTEN)
    assert "java-map.md" not in HAND_WRITTEN  # generated from the engine's docstrings, English only
    assert set(HAND_WRITTEN) | BUILD.GENERATED == set(BUILD.PAGES)  # every page of docs/ is on the site
    assert set(BUILD.ZH_PAGES) == set(HAND_WRITTEN)  # and every Chinese twin in its 简体中文 part


@pytest.mark.parametrize("name", HAND_WRITTEN)
def test_every_hand_written_page_has_a_chinese_twin(name: str) -> None:
    english = (DOCS / name).read_text(encoding="utf-8")
    twin = DOCS / "zh" / name
    assert twin.is_file(), f"docs/{name} has no Chinese twin docs/zh/{name}"
    chinese = twin.read_text(encoding="utf-8")
    assert headings(chinese) == headings(english)
    assert outline(chinese) == outline(english)
    assert fenced_blocks(chinese) == fenced_blocks(english)  # code is not translated
    assert inline_code(chinese) == inline_code(english)  # the same names, calls, paths and values
    assert f"](zh/{name})" in english and f"](../{name})" in chinese  # each links to the other
    assert REFLOW.stray_breaks(chinese) == [], f"run reflow (labs/reflow_zh.py) on docs/zh/{name}"
    english_words = len(re.findall(r"[A-Za-z]+", prose(english)))
    assert len(re.findall(r"[\u4e00-\u9fff]", prose(chinese))) > english_words  # the prose translated, not kept


def test_the_checks_see_a_difference() -> None:
    """A changed code block, a missing heading and a stray break are each caught."""
    page = "# 标题\n\n正文第一行，\n第二行。\n\n## 小节\n\n```python\nx = 1\n```\n"
    assert headings(page) == ["#", "##"] and headings(page.replace("## 小节\n", "")) == ["#"]
    assert fenced_blocks(page) == ["```python\nx = 1\n```"] != fenced_blocks(page.replace("x = 1", "x = 2"))
    assert inline_code("`a` and\n`b\nc`") == ["a", "b c"]
    assert outline(page) == {"table rows": 0, "list items": 0, "paragraphs": 4}
    assert outline(page + "\n- 一\n- 二\n") == {"table rows": 0, "list items": 2, "paragraphs": 5}
    assert REFLOW.stray_breaks(page) != [] and REFLOW.stray_breaks(REFLOW.reflow(page)) == []
