"""Exercises that make students predict: ``check`` a prediction, ``show_me`` the outcome, ``score`` a lab.

A lab exercise is "predict, then run": the student writes ``answer_1 = ...`` in one cell and
``check("03.1", answer_1, measured)`` (or ``check("03.1", answer_1)``) judges it against the sealed bank
(:mod:`rmqlab.course.bank`): the answer is stored there only as a salted hash, and what a check says after a
prediction (the explanation, a near-miss hint) is sealed under the prediction that unlocks it
(:mod:`rmqlab.course.sealed`). So nothing a student can read or import states an answer, and a wrong guess never
prints it: after wrong guesses the student may ask :func:`show_me`, which plays the lab's dashboard to the outcome
(the lab registers how with :func:`register_show_me`), so the answer comes from the mechanism, not a printed value.

``check`` prints its verdict and returns nothing (a returned bool would print a stray ``True``); it
never raises, because a traceback teaches nothing about RocketMQ. Grading is separate: each check cell's hidden
test calls :func:`rmqlab.course.grading.verify` with the prediction, which the autograder scores (and
:mod:`rmqlab.course.autograde` double-checks outside the kernel). :func:`score` closes each lab with one verdict per
exercise.

How an answer is compared is :mod:`rmqlab.course.answers`' and :mod:`rmqlab.course.sealed`'s; the text tables the
labs print (:func:`show_trace`, :func:`table`) are :mod:`rmqlab.lab.trace_table`'s, re-exported here, so a lab needs
one import line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.duration import format_duration
from ..core.errors import ConfigError
from ..core.i18n import N_, current_language
from ..core.i18n import gettext as _
from ..lab.trace_table import DEFAULT_FIELDS, TABLE_WIDTH, Items, fill, show_trace, table, trace_rows
from . import bank
from .answers import UNIT_MS, Unit, same, spellings
from .bank import SealedExercise
from .grading import FREE_JUDGEMENTS, JUDGED, judge
from .sealed import canonical

__all__ = [
    "DEFAULT_FIELDS",
    "Items",
    "SealedExercise",
    "assert_right",
    "check",
    "exercise",
    "exercises_of",
    "register_show_me",
    "reset",
    "same",
    "score",
    "show_me",
    "show_trace",
    "spellings",
    "table",
    "trace_rows",
]

Verdict = Literal["right", "hint", "wrong", "none"]

WITHHELD = N_(
    "This is prediction {n} judged for {exercise} in this kernel: after {free}, the self-check no longer says whether "
    "a prediction is right, so trying values in a loop finds nothing. Your answer cell is graded as you submit it. "
    "{hint}Work it out from the run (`show_me({exercise})` plays it), or ask your teacher."
)
"""What a check says once :data:`~rmqlab.course.grading.FREE_JUDGEMENTS` predictions were judged for an exercise
in this kernel (by ``check`` or by ``judge`` itself) and none was right."""
NO_ANSWER = N_("No prediction yet — replace the `...` in the answer cell with your prediction, run it, then run this "
              "cell.")
_NOT_GIVEN: Any = object()


@dataclass
class _Result:
    verdict: Verdict
    tries: int = 0
    answers: list[Any] = field(default_factory=list)
    pointed: bool = False  # the exercise's general ``hint`` was given


_RESULTS: dict[str, _Result] = {}
"""The verdicts checked in this kernel, by exercise id (``Restart and run all`` starts afresh)."""
_SHOW_ME: dict[str, Callable[[], Any]] = {}
"""What :func:`show_me` does for an exercise, as its lab registered it (:func:`register_show_me`)."""


def _bank() -> Mapping[str, SealedExercise]:
    by_id: dict[str, SealedExercise] = {}
    for ex in bank.EXERCISES:
        if ex.id in by_id:
            raise ConfigError("bank.EXERCISES", ex.id, "each exercise id once")
        by_id[ex.id] = ex
    return by_id


def exercise(exercise_id: str) -> SealedExercise:
    """The bank's record of ``exercise_id`` (``"03.1"``)."""
    by_id = _bank()
    if exercise_id not in by_id:
        raise ConfigError("exercise_id", exercise_id, f"one of the declared exercises: {', '.join(sorted(by_id))}")
    return by_id[exercise_id]


def exercises_of(lab: str) -> list[SealedExercise]:
    """The exercises of lab ``lab`` (``"03"``), in order."""
    return sorted((ex for ex in _bank().values() if ex.lab == lab), key=lambda ex: int(ex.id.split(".")[1]))


def reset() -> None:
    """Forget every verdict, every judgement counted and every registered ``show_me`` (what a kernel restart does);
    tests use it."""
    _RESULTS.clear()
    _SHOW_ME.clear()
    JUDGED.clear()


def _shown(value: Any, unit: Unit | None) -> str:
    if unit is not None and isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value!r} {unit} ({format_duration(int(value * UNIT_MS[unit]))})"
    return repr(value)


def _say(text: str) -> None:
    """Print a verdict wrapped at :data:`TABLE_WIDTH` (between words, and between Chinese characters), paragraph by
    paragraph.

    One write, newline included: ``print`` writes the text and the newline separately, and a kernel that
    flushes between the two saves the verdict as two stream outputs.
    """
    paragraphs = [fill(p, TABLE_WIDTH) for p in text.split("\n\n")]
    print("\n\n".join(paragraphs) + "\n", end="")


def check(exercise_id: str, answer: Any, measured: Any = _NOT_GIVEN) -> None:
    """Print whether ``answer`` (the student's prediction) is right, and why — never the answer to a wrong one.

    No prediction (``...``): a reminder, nothing revealed. Right: the value and the explanation (unsealed by the
    prediction itself). A near miss with a declared hint: the hint only, so the student can predict again; the
    first other wrong prediction gets the exercise's general ``hint``; after that, an invitation to predict again
    or to :func:`show_me` the run's outcome. ``measured`` (what this run gave) is shown with a right answer, and a
    note is added when it differs from the course's value (the lab was changed above). Returns ``None``.
    """
    ex = exercise(exercise_id)
    result = _RESULTS.setdefault(exercise_id, _Result("none"))
    if answer is Ellipsis:
        _say(_(NO_ANSWER))
        return
    result.tries += 1
    result.answers.append(answer)
    judged_enough = JUDGED[ex.id] >= FREE_JUDGEMENTS and result.verdict != "right"
    if judged_enough and canonical(answer, ex.kind, ex.unit) is not None:
        _withhold(ex, result)
        return
    verdict, text = judge(ex, answer)
    if verdict == "right":
        result.verdict = "right"
        shown = _shown(answer if measured is _NOT_GIVEN else measured, ex.unit)
        note = ""
        if measured is not _NOT_GIVEN and canonical(measured, ex.kind, ex.unit) != canonical(answer, ex.kind, ex.unit):
            note = _(" (This run measured another value: the lab above was changed; the course's run gives yours.)")
        _say(_("Right — {value}.{note} {explanation}").format(value=shown, note=note, explanation=text))
        return
    if verdict == "unreadable":
        result.verdict = "hint"
        _say(_("Not quite — you predicted {answer}; this exercise expects {kind}. Change your prediction and run "
               "both cells again.").format(answer=repr(answer), kind=ex.kind_words))  # fmt: skip
        return
    general = ex.hint_in(current_language())
    if verdict != "hint" and general is not None and not result.pointed:
        verdict, text, result.pointed = "hint", general, True
    if verdict == "hint":
        result.verdict = "hint"
        _say(_("Not quite — you predicted {answer}. Hint: {hint} Change your prediction and run both cells again.")
             .format(answer=repr(answer), hint=text))  # fmt: skip
        return
    result.verdict = "wrong"
    _say(_("Not quite — you predicted {answer}. Predict again, or run `show_me({exercise})` to watch the run play to "
           "the outcome, and read the answer from the mechanism.").format(answer=repr(answer),
                                                                           exercise=repr(exercise_id)))  # fmt: skip


def _withhold(ex: SealedExercise, result: _Result) -> None:
    """No verdict: :data:`WITHHELD`, with the exercise's general hint; the prediction is counted as judged."""
    JUDGED[ex.id] += 1
    result.verdict = "hint" if result.verdict == "hint" else "wrong"
    general = ex.hint_in(current_language())
    hint = _("Hint: {hint} ").format(hint=general) if general else ""
    _say(_(WITHHELD).format(n=JUDGED[ex.id], exercise=repr(ex.id), free=FREE_JUDGEMENTS, hint=hint))


def register_show_me(exercise_id: str, action: Callable[[], Any]) -> None:
    """Say what :func:`show_me` does for ``exercise_id``: typically play the lab's dashboard to the outcome.

    ``action`` is called with no arguments when the student asks; what it returns is returned by ``show_me`` (a
    widget returned as a cell's last value is displayed). A lab registers it in the cell that builds its dashboard::

        register_show_me("03.1", lambda: dashboard.play_to_end())
    """
    exercise(exercise_id)
    if not callable(action):
        raise ConfigError("action", action, "a function of no arguments (what show_me should do)")
    _SHOW_ME[exercise_id] = action


def show_me(exercise_id: str) -> Any:
    """After a wrong prediction: play the run to the outcome the exercise asks about (no value is printed).

    Before any prediction it asks for one first: seeing the outcome is the reward for having predicted.
    """
    ex = exercise(exercise_id)
    result = _RESULTS.get(ex.id)
    if result is None or result.tries == 0:
        _say(_("Predict first: write your prediction in the answer cell and check it; then show_me plays the run."))
        return None
    action = _SHOW_ME.get(ex.id)
    if action is None:
        _say(_("Press ▶ Play on this lab's dashboard and watch the run to its end: the outcome this exercise asks "
               "about happens there. Then predict again and check."))  # fmt: skip
        return None
    _say(_("Watch the dashboard play the run to the outcome this exercise asks about; then predict again and check."))
    return action()


def assert_right(exercise_id: str) -> None:
    """Raise ``AssertionError`` unless the last check of ``exercise_id`` in this kernel was right.

    A convenience for a teacher's own tests; the autograder does not use it (a student could rebind it): the check
    cells' hidden tests call :func:`rmqlab.course.grading.verify` on the prediction itself.
    """
    result = _RESULTS.get(exercise(exercise_id).id)
    if result is None:
        raise AssertionError(f"exercise {exercise_id}: the prediction was not checked")
    if result.verdict != "right":
        tries = "1 try" if result.tries == 1 else f"{result.tries} tries"
        raise AssertionError(f"exercise {exercise_id}: the prediction is {result.verdict!r} after {tries}")


def _ordinal(n: int) -> str:
    """``2`` → ``"2nd"``, ``11`` → ``"11th"``, ``22`` → ``"22nd"``; in Chinese the number alone (第 2 次)."""
    if current_language() != "en":
        return str(n)
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


_VERDICT_WORDS = {"none": N_("no prediction yet"), "hint": N_("not quite (hint given)"), "wrong": N_("not quite")}
"""What :func:`score` says of an exercise not (yet) right, by verdict (translated where printed)."""


def score(lab: str) -> None:
    """Print the lab's score: one row per exercise with its points and verdict, then the total."""
    rows, total, possible = [], 0, 0
    for ex in exercises_of(lab):
        result = _RESULTS.get(ex.id)
        possible += ex.points
        if result is None:
            verdict, got = _("not checked yet"), 0
        elif result.verdict == "right":
            later = _("right on the {nth} try").format(nth=_ordinal(result.tries))
            verdict = _("right") if result.tries == 1 else later
            got = ex.points
        else:
            verdict = _(_VERDICT_WORDS[result.verdict])
            got = 0
        total += got
        rows.append([ex.id, f"{got}/{ex.points}", verdict])
    if not rows:
        raise ConfigError("lab", lab, "a lab number with exercises in rmqlab.course.bank, such as '03'")
    print(table(rows, [_("exercise"), _("points"), _("verdict")]))
    print(_("Lab {lab}: {total} of {possible} points").format(lab=lab, total=total, possible=possible))
