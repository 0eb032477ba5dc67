"""Exercises that make students predict: ``check`` a prediction, ``score`` a lab, ``assert_right`` for the grader.

A lab exercise is "predict, then run": the student writes ``answer_1 = ...`` in one cell, a later cell
runs the scenario, and ``check("03.1", answer_1, measured)`` compares the prediction with what the run
measured. What a check says *after* a prediction (the explanation, the hints) lives in
:mod:`rmqlab.course.bank`, keyed by the exercise id, never in the notebook: a student who scrolls
down before predicting finds no answer in the check cell's source, and the explanation appears only
once a real prediction has been checked.

``check`` prints its verdict and returns nothing (a returned bool would print a stray ``True``); it
never raises, because a traceback teaches nothing about RocketMQ. Grading is separate: the nbgrader
test cell calls :func:`assert_right` inside a hidden-tests region, which raises ``AssertionError``
for the autograder only. :func:`score` closes each lab with one verdict per exercise.

How an answer is compared (:func:`same`) and what an exercise declares (:class:`Exercise`, :class:`Hint`) are
:mod:`rmqlab.course.answers`'; the text tables the labs print (:func:`show_trace`, :func:`table`) are
:mod:`rmqlab.lab.trace_table`'s. Both are re-exported here, so a lab needs one import line.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.duration import format_duration
from ..core.errors import ConfigError
from ..lab.trace_table import DEFAULT_FIELDS, TABLE_WIDTH, Items, show_trace, table, trace_rows
from .answers import UNIT_MS, Exercise, Hint, Unit, same, spellings

__all__ = [
    "DEFAULT_FIELDS",
    "Exercise",
    "Hint",
    "Items",
    "assert_right",
    "check",
    "exercise",
    "exercises_of",
    "reset",
    "same",
    "score",
    "show_trace",
    "spellings",
    "table",
    "trace_rows",
]

Verdict = Literal["right", "hint", "wrong", "none"]

NO_ANSWER = "No prediction yet — replace the `...` in the answer cell with your prediction, run it, then run this cell."


@dataclass
class _Result:
    verdict: Verdict
    tries: int = 0
    answers: list[Any] = field(default_factory=list)
    pointed: bool = False  # the exercise's general ``hint`` was given


_RESULTS: dict[str, _Result] = {}
"""The verdicts checked in this kernel, by exercise id (``Restart and run all`` starts afresh)."""


def _bank() -> Mapping[str, Exercise]:
    from .bank import EXERCISES  # deferred: notebooks load the bank on the first check

    by_id: dict[str, Exercise] = {}
    for ex in EXERCISES:
        if ex.id in by_id:
            raise ConfigError("exercise_bank.EXERCISES", ex.id, "each exercise id once")
        by_id[ex.id] = ex
    return by_id


def exercise(exercise_id: str) -> Exercise:
    """The bank's declaration of ``exercise_id`` (``"03.1"``)."""
    bank = _bank()
    if exercise_id not in bank:
        raise ConfigError("exercise_id", exercise_id, f"one of the declared exercises: {', '.join(sorted(bank))}")
    return bank[exercise_id]


def exercises_of(lab: str) -> list[Exercise]:
    """The exercises of lab ``lab`` (``"03"``), in order."""
    return sorted((ex for ex in _bank().values() if ex.lab == lab), key=lambda ex: int(ex.id.split(".")[1]))


def reset() -> None:
    """Forget every verdict (what a kernel restart does); tests use it."""
    _RESULTS.clear()


def _shown(value: Any, unit: Unit | None) -> str:
    if unit is not None and isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value!r} {unit} ({format_duration(int(value * UNIT_MS[unit]))})"
    return repr(value)


def _say(text: str) -> None:
    """Print a verdict wrapped at :data:`TABLE_WIDTH` (between words), so it reads the same everywhere.

    One write, newline included: ``print`` writes the text and the newline separately, and a kernel that
    flushes between the two saves the verdict as two stream outputs.
    """
    print(textwrap.fill(text, TABLE_WIDTH, break_long_words=False, break_on_hyphens=False) + "\n", end="")


def check(exercise_id: str, answer: Any, measured: Any) -> None:
    """Print whether ``answer`` (the student's prediction) means ``measured`` (what the run gave), and why.

    No prediction (``...``): a reminder, nothing revealed. Right: the value and the explanation. A near
    miss with a declared hint: the hint only, so the student can predict again; the first other wrong
    prediction gets the exercise's general ``hint`` if it has one. Otherwise: the measured value and
    the explanation. Returns ``None`` so the cell prints nothing else.
    """
    ex = exercise(exercise_id)
    result = _RESULTS.setdefault(exercise_id, _Result("none"))
    if answer is Ellipsis:
        _say(NO_ANSWER)
        return
    result.tries += 1
    result.answers.append(answer)
    if same(answer, measured, ex.unit):
        result.verdict = "right"
        _say(f"Right — {_shown(measured, ex.unit)}. {ex.why}")
        return
    hint = ex.hint_for(answer, measured)
    if hint is None and ex.hint is not None and not result.pointed:
        hint, result.pointed = ex.hint, True
    if hint is not None:
        result.verdict = "hint"
        _say(f"Not quite — you predicted {answer!r}. Hint: {hint} Change your prediction and run both cells again.")
        return
    result.verdict = "wrong"
    _say(f"Not quite — you predicted {answer!r}, the run gives {_shown(measured, ex.unit)}. {ex.why}")


def assert_right(exercise_id: str) -> None:
    """Raise ``AssertionError`` unless the last check of ``exercise_id`` was right: the autograder's test.

    It sits in the check cell's ``### BEGIN HIDDEN TESTS`` region, so students never see a traceback
    and nbgrader (which runs the cell with the region restored) scores the exercise.
    """
    result = _RESULTS.get(exercise(exercise_id).id)
    if result is None:
        raise AssertionError(f"exercise {exercise_id}: the prediction was not checked")
    if result.verdict != "right":
        tries = "1 try" if result.tries == 1 else f"{result.tries} tries"
        raise AssertionError(f"exercise {exercise_id}: the prediction is {result.verdict!r} after {tries}")


def _ordinal(n: int) -> str:
    """``2`` → ``"2nd"``, ``11`` → ``"11th"``, ``22`` → ``"22nd"``."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def score(lab: str) -> None:
    """Print the lab's score: one row per exercise with its points and verdict, then the total."""
    rows, total, possible = [], 0, 0
    for ex in exercises_of(lab):
        result = _RESULTS.get(ex.id)
        possible += ex.points
        if result is None:
            verdict, got = "not checked yet", 0
        elif result.verdict == "right":
            verdict = "right" if result.tries == 1 else f"right on the {_ordinal(result.tries)} try"
            got = ex.points
        else:
            verdict = {"none": "no prediction yet", "hint": "not quite (hint given)", "wrong": "not quite"}[
                result.verdict
            ]
            got = 0
        total += got
        rows.append([ex.id, f"{got}/{ex.points}", verdict])
    if not rows:
        raise ConfigError("lab", lab, "a lab number with exercises in rmqlab.course.bank, such as '03'")
    print(table(rows, ["exercise", "points", "verdict"]))
    print(f"Lab {lab}: {total} of {possible} points")
