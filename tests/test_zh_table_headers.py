"""The tables a Chinese lab prints have Chinese headers: zh/03 printed "level", "delivered at (s)" and "scheduled at"
(revC defect 10). A header may keep an identifier (``reconsume_times``), never an English word."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ZH = Path(__file__).resolve().parent.parent / "labs" / "zh"
IDENTIFIER = ("_",)
"""What makes a lowercase ASCII word an identifier in a header: an underscore (``reconsume_times``)."""
UNITS = frozenset({"s", "ms"})


def _headers(source: str) -> list[str]:
    """The header strings of every ``table(rows, [headers])`` call in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "table" and len(node.args) > 1:
            header = node.args[1]
            if isinstance(header, ast.List):
                found += [e.value for e in header.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return found


def _english(header: str) -> list[str]:
    words = header.replace("(", " ").replace(")", " ").split()
    return [w for w in words if w.isascii() and w.isalpha() and w.islower() and w not in UNITS
            and not any(c in w for c in IDENTIFIER)]  # fmt: skip


@pytest.mark.parametrize("name", ["03_delay_levels_schedule.py"])
def test_a_chinese_labs_table_headers_are_chinese(name: str) -> None:
    headers = _headers((ZH / name).read_text())
    assert len(headers) == 7, headers
    assert [(h, _english(h)) for h in headers if _english(h)] == []


def test_the_check_finds_an_english_header() -> None:
    assert _english("delivered at (s)") == ["delivered", "at"]
    assert _english("reconsume_times") == [] and _english("投递时间 (s)") == []
