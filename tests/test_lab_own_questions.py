"""Every checkpoint of labs 01b, 02b and 03 (both languages) asks its own question, saying what its section changed:
three fell back to the generic "Where is M0002 after the next step?" / "When is M0001 delivered next?" (revC
defect 8: 01b's latency switch, 02b's broken link, 03's second failure)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LABS = Path(__file__).resolve().parent.parent / "labs"
NAMES = ["01b_send_status_timeout.py", "02b_send_back_failures.py", "03_delay_levels_schedule.py"]


def _checkpoints(path: Path) -> list[tuple[str, bool]]:
    """(name, has a question=) of every ``Checkpoint(...)`` the lab's source writes."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Checkpoint":
            words = {k.arg: k.value for k in node.keywords}
            name = words.get("name")
            label = name.value if isinstance(name, ast.Constant) else "?"
            out.append((str(label), "question" in words))
    return out


@pytest.mark.parametrize("path", [LABS / n for n in NAMES] + [LABS / "zh" / n for n in NAMES], ids=str)
def test_every_checkpoint_asks_its_own_question(path: Path) -> None:
    found = _checkpoints(path)
    assert len(found) >= 3, found
    assert [name for name, asked in found if not asked] == []
