"""The views stay readable in one sitting: no widgets module over about 350 lines, no function over 60 (issue 33).

Every module is held to it; a module that grows past the bound, or a new long function, fails this test with its
name and length.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rmqlab.widgets

WIDGETS = Path(rmqlab.widgets.__file__).parent
MAX_MODULE_LINES = 360
MAX_FUNCTION_LINES = 60


def _modules() -> list[Path]:
    return sorted(WIDGETS.glob("*.py"))


def test_the_views_modules_are_found() -> None:
    names = {p.name for p in _modules()}
    assert {"spacetime_view.py", "flow_view.py", "retry_timeline.py", "lease_view.py", "ticks.py"} <= names
    assert {"controller.py", "controller_controls.py", "controller_faults.py", "export.py", "export_png.py"} <= names


def test_no_widgets_module_is_over_the_bound() -> None:
    long = {p.name: n for p in _modules() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}


def test_no_widgets_function_is_over_the_bound() -> None:
    long = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long[f"{path.name}:{node.name}"] = length
    assert long == {}
