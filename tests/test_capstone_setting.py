"""Lab 09's second picture runs with Exercise 2's setting only once the student's own answer is right.

revD (defect 2): the cell under Exercise 2 computes ``needed`` (the ``max_reconsume_times`` that gives bad-card 6
deliveries) for its check, and the next picture was built with ``knobs={"max_reconsume_times": needed}``: after Run
All, which is what a student does first, its question read "With max_reconsume_times = 5, …" and the knob field
showed 5, the answer of the exercise just above, unanswered. Now the picture is built from ``answer_2`` once
``check("09.2")`` judged it right; before that the cell says to answer Exercise 2 first, and nothing below the
answer cell (the picture's question, knobs, the charts' titles) states a setting.

Each case runs the student copy (``labs/make_student.py``) in a kernel, as a student would: with no prediction,
with a wrong one and with the right one (read from the solved lab's solution region, not written here).
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from lab_tools import load_lab_tool

LABS = Path(__file__).resolve().parent.parent / "labs"
MAKE_STUDENT = load_lab_tool("make_student.py")
_DOCS_SPEC = importlib.util.spec_from_file_location("build_docs", LABS.parent / "docs" / "build_docs.py")
assert _DOCS_SPEC is not None and _DOCS_SPEC.loader is not None
BUILD_DOCS = importlib.util.module_from_spec(_DOCS_SPEC)
_DOCS_SPEC.loader.exec_module(BUILD_DOCS)
STEM = "09_capstone"
SETTING = re.compile(r"max_reconsume_times\W{0,4}(?:=|:)\W{0,4}(\d+)")
"""A setting stated: ``max_reconsume_times = 5``, ``max_reconsume_times=5``, ``"max_reconsume_times": 5``."""
WIDGET = "application/vnd.jupyter.widget-view+json"
SHOW_KNOB = 'print(None if fixed_dash is None else fixed_dash.knob_values()["max_reconsume_times"])'


def _solution() -> int:
    """Exercise 2's answer, from the solved lab's solution region."""
    source = (LABS / f"{STEM}.py").read_text()
    return int(re.search(r"### BEGIN SOLUTION\nanswer_2 = (\d+)\n", source).group(1))  # type: ignore[union-attr]


def _grade_id(cell: Any) -> str:
    return str(cell.metadata.get("nbgrader", {}).get("grade_id", ""))


def _run_student_copy(tmp_path: Path, folder: str, prediction: int | None) -> list[Any]:
    """The student copy of lab 09 (English, or the ``zh`` twin) with ``prediction`` in Exercise 2's answer cell (None:
    left as ``...``) and a last cell printing the picture's knob, run top to bottom; its cells."""
    from nbclient import NotebookClient

    out = tmp_path / (folder or "en")
    assert MAKE_STUDENT.main([str(LABS / folder), str(out)]) == 0
    nb = nbformat.read(out / f"{STEM}.ipynb", as_version=4)
    answer = next(c for c in nb.cells if _grade_id(c) == "ex09_2_answer")
    assert "answer_2 = ..." in answer.source and "BEGIN SOLUTION" not in answer.source
    if prediction is not None:
        answer.source = answer.source.replace("answer_2 = ...", f"answer_2 = {prediction}")
    nb.cells.append(nbformat.v4.new_code_cell(SHOW_KNOB))
    NotebookClient(nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(out)}}).execute()
    return list(nb.cells)


def _printed(cell: Any) -> str:
    return "".join(o.text for o in cell.get("outputs", []) if o.output_type == "stream")


def _picture(cells: list[Any]) -> Any:
    return next(c for c in cells if c.cell_type == "code" and "fixed_dash = Dashboard(" in c.source)


def _stated_after_the_answer_cell(cells: list[Any]) -> list[str]:
    """Every setting stated in a source or an output (text, HTML, a chart's JSON) from Exercise 2's answer cell on,
    save the knob the test's own last cell prints."""
    start = next(i for i, c in enumerate(cells) if _grade_id(c) == "ex09_2_answer")
    texts = [c.source + json.dumps(c.get("outputs", []), ensure_ascii=False) for c in cells[start:-1]]
    return [m.group(0) for text in texts for m in SETTING.finditer(text)]


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["", "zh"])
def test_before_exercise_2_is_answered_the_picture_waits_and_no_setting_shows(tmp_path: Path, folder: str) -> None:
    cells = _run_student_copy(tmp_path, folder, None)
    picture = _picture(cells)
    assert not any(WIDGET in o.get("data", {}) for o in picture.outputs)
    assert "Exercise 2" in _printed(picture) or "练习 2" in _printed(picture)
    assert _stated_after_the_answer_cell(cells) == []
    assert _printed(cells[-1]).strip() == "None"


@pytest.mark.slow
def test_a_wrong_setting_does_not_build_the_picture(tmp_path: Path) -> None:
    wrong = _solution() + 1
    cells = _run_student_copy(tmp_path, "", wrong)
    picture = _picture(cells)
    assert not any(WIDGET in o.get("data", {}) for o in picture.outputs)
    assert "Answer Exercise 2 first" in _printed(picture)
    assert _printed(cells[-1]).strip() == "None"


@pytest.mark.slow
def test_the_right_setting_builds_the_picture_with_it(tmp_path: Path) -> None:
    right = _solution()
    cells = _run_student_copy(tmp_path, "", right)
    picture = _picture(cells)
    assert any(WIDGET in o.get("data", {}) for o in picture.outputs)
    assert _printed(picture) == ""
    assert _printed(cells[-1]).strip() == str(right)


@pytest.mark.parametrize("folder", ["", "zh"])
def test_the_solved_labs_outputs_state_no_setting_either(folder: str) -> None:
    """The documentation site shows each lab's saved outputs (run solved) under a blank answer cell
    (``docs/build_docs.py``): the fix picture, drawn from the judged answer, is shown without its outputs there (its
    Events table and captions state the setting: the orderly suspend's maxReconsumeTimes), its question says "the
    setting you found above", and the chart's title names Exercise 2, so no output below the answer cell states the
    setting on the page."""
    cells = list(nbformat.read(LABS / folder / f"{STEM}.ipynb", as_version=4).cells)
    assert any(WIDGET in o.get("data", {}) for o in _picture(cells).outputs)  # solved: the picture is there
    for cell in cells:  # ... and the page shows the lab as released: the picture drawn from the answer is not
        BUILD_DOCS._as_released(cell)
    assert not _picture(cells).outputs
    assert _stated_after_the_answer_cell([*cells, nbformat.v4.new_code_cell("")]) == []
