"""The grader's own check, outside the student's kernel: ``nbgrader autograde`` steps for the labs.

A check cell's hidden test (:func:`rmqlab.course.grading.verify`) runs in the kernel that ran the student's code,
and code in a notebook can patch anything in its own kernel (the grading module, ``hashlib``). So after the
notebook has executed, :func:`check_predictions` reads each answer cell *as submitted*, in the grader's process:
the last ``answer_k = <value>`` of the cell must be a plain Python literal (a number, a text, True/False/None, a
list or tuple of them — a prediction, not code) and the right one for the sealed bank. When it is not, the check
cell gets an error output, which nbgrader scores 0, whatever the kernel printed. It never turns a failed test into
a passed one. :func:`drop_widget_state` keeps widget state out of the autograded copy (it is most of its size and
the teacher's feedback does not need it).

Both are plain functions ``(nb, resources) -> (nb, resources)``, which nbconvert accepts as preprocessors by
import path; ``labs/nbgrader_config.py`` puts them after nbgrader's ``Execute``.
"""

from __future__ import annotations

import ast
import importlib
import re
from typing import Any

from .bank import EXERCISES
from .grading import judge

__all__ = ["check_predictions", "drop_widget_state", "submitted_answer"]

_ANSWER_CELL = re.compile(r"^ex(\d\d[a-z]?)_(\d+)_answer$")
_CHECK_CELL = re.compile(r"^ex(\d\d[a-z]?)_(\d+)$")
_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _grade_id(cell: Any) -> str:
    return str(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", ""))


def submitted_answer(source: str, k: str) -> tuple[bool, Any]:
    """``(True, value)`` for the last top-level ``answer_k = <literal>`` of an answer cell, else ``(False, why)``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False, "the answer cell is not valid Python"
    value: Any = None
    found = False
    for node in tree.body:
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == [f"answer_{k}"]:
            value, found = node.value, True
    if not found:
        return False, f"the answer cell does not assign answer_{k}"
    try:
        literal = ast.literal_eval(value)
    except ValueError:
        return False, f"answer_{k} is not a plain value (a number, a text, True/False/None, a list of them)"
    if literal is Ellipsis:
        return False, "no prediction"
    return True, literal


def _failure(message: str) -> Any:
    v4: Any = importlib.import_module("nbformat.v4")  # nbgrader brings nbformat; the engine does not need it
    text = f"AssertionError: {message} (checked by the grader outside the notebook)"
    return v4.new_output("error", ename="AssertionError", evalue=message, traceback=[text])


def check_predictions(nb: Any, resources: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Fail every check cell whose answer cell, as submitted, is not the right literal prediction."""
    by_id = {ex.id: ex for ex in EXERCISES}
    verdicts: dict[str, str | None] = {}  # exercise id → None when right, else why not
    for cell in nb.cells:
        match = _ANSWER_CELL.match(_grade_id(cell))
        if match is None or cell.cell_type != "code":
            continue
        ex_id = f"{match[1]}.{match[2]}"
        if ex_id in verdicts:
            verdicts[ex_id] = "two answer cells for one exercise"
            continue
        ok, value = submitted_answer(cell.source, match[2])
        if not ok:
            verdicts[ex_id] = str(value)
        elif ex_id in by_id:
            verdict, _ = judge(by_id[ex_id], value)
            verdicts[ex_id] = None if verdict == "right" else f"the prediction is not right ({verdict})"
    for cell in nb.cells:
        match = _CHECK_CELL.match(_grade_id(cell))
        if match is None or cell.cell_type != "code" or f"{match[1]}.{match[2]}" not in by_id:
            continue
        reason = verdicts.get(f"{match[1]}.{match[2]}", "no answer cell for this exercise")
        if reason is not None:
            cell.outputs.append(_failure(f"exercise {match[1]}.{match[2]}: {reason}"))
    return nb, resources


def drop_widget_state(nb: Any, resources: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Remove saved widget state and widget views, with the static HTML a dashboard offers beside its view (its
    pictures: tens of KB each, which a teacher grading predictions does not need); the text/plain stand-in stays."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if data.pop(_WIDGET_VIEW, None) is not None:
                data.pop("text/html", None)
    return nb, resources
