"""The scripts of ``labs/`` (``sync.py``, ``make_student.py``, ``reflow_zh.py``) as modules, for the tests that
check what they do: they are run as scripts, not installed, so they are loaded from their files."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

LABS = Path(__file__).resolve().parents[1] / "labs"


def load_lab_tool(script: str) -> ModuleType:
    """``labs/<script>`` loaded as a module named ``labs_<stem>``."""
    path = LABS / script
    spec = importlib.util.spec_from_file_location(f"labs_{path.stem}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
