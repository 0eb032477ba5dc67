"""Exercises that make students predict, and plain-text trace tables for the lab notebooks.

A lab exercise is "predict, then run": the student writes ``answer_1 = ...`` in one cell, a later cell
runs the scenario, and ``check("03.1", answer_1, measured)`` compares the prediction with what the run
measured. What a check says *after* a prediction (the explanation, the hints) lives in
:mod:`rmqlab.exercise_bank`, keyed by the exercise id, never in the notebook: a student who scrolls
down before predicting finds no answer in the check cell's source, and the explanation appears only
once a real prediction has been checked.

``check`` prints its verdict and returns nothing (a returned bool would print a stray ``True``); it
never raises, because a traceback teaches nothing about RocketMQ. Grading is separate: the nbgrader
test cell calls :func:`assert_right` inside a hidden-tests region, which raises ``AssertionError``
for the autograder only. :func:`score` closes each lab with one verdict per exercise.

Predictions are compared by meaning, not spelling (:func:`same`): ``"True"`` is ``True``, ``"4"`` is
``4``, and for an exercise whose unit is a duration, ``17140``, ``"17 140 s"`` and ``"4h45m40s"`` are
the same number of seconds (parsed with :func:`rmqlab.duration.parse_duration`).

:func:`show_trace` and :func:`table` turn the trace into fixed-width text: the labs show text before
pictures, text is what nbval can compare byte for byte, and rows are wrapped between ``key=value``
items (never inside one) so a table stays readable in a narrow output area.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .duration import format_duration, parse_duration
from .errors import ConfigError
from .trace import EventKind, TraceEvent

__all__ = [
    "DEFAULT_FIELDS",
    "Exercise",
    "Hint",
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

Unit = Literal["s", "ms"]
Verdict = Literal["right", "hint", "wrong", "none"]

NO_ANSWER = "No prediction yet — replace the `...` in the answer cell with your prediction, run it, then run this cell."
TABLE_WIDTH = 100
"""Widest line :func:`table` prints before wrapping the last column: narrower than JupyterLab's output area."""

_EXERCISE_ID = re.compile(r"^(\d\d[a-z]?)\.(\d+)$")
"""``NN.k`` or ``NNa.k``: a lab split in two (02a, 02b) keeps its number and gets a letter."""
_UNIT_MS: Mapping[str, int] = {"s": 1000, "ms": 1}
_NUMBER = re.compile(r"^[+-]?\d+(?:[ ,_\u00a0\u202f]\d{3})*(?:\.\d+)?$")
_TRUE, _FALSE, _NONE = ("true", "yes"), ("false", "no"), ("none", "nothing", "null")


@dataclass(frozen=True)
class Hint:
    """A nudge for a near miss, shown *instead of* the answer so the student can predict again.

    ``off_by``: the prediction differs from the measured value by exactly one of these amounts (either
    sign, in the exercise's unit) — e.g. ``off_by=(1,)`` on a delivery count for "the first delivery is
    not a retry". ``equals``: the prediction is this particular wrong value (a known misconception).
    A hint's text must not contain the answer (``tests/test_student_copy.py`` checks it).
    """

    text: str
    off_by: tuple[float, ...] = ()
    equals: tuple[Any, ...] = ()

    def matches(self, answer: Any, expected: Any, unit: Unit | None) -> bool:
        """Whether this hint fits ``answer`` (already known not to be ``expected``)."""
        if any(same(answer, wrong, unit) for wrong in self.equals):
            return True
        got, want = _number(answer, unit), _number(expected, unit)
        if got is None or want is None:
            return False
        return any(math.isclose(abs(got - want), abs(delta), abs_tol=1e-9) for delta in self.off_by)


@dataclass(frozen=True)
class Exercise:
    """One predict-then-run question of a lab, as the hidden bank declares it.

    ``id`` is ``"NN.k"`` (lab NN, exercise k; ``"02b.1"`` in a lettered lab); its nbgrader cells are
    ``grade_id`` ``exNN_k_answer`` (the prediction) and ``exNN_k`` (the check, worth ``points``). ``why``
    is revealed with the measured value once a prediction is right, or wrong with no hint left to give.
    ``unit`` makes the comparison duration-aware (``"s"``: the answer is a number of seconds, and ``"4h45m40s"`` is
    accepted for 17140). ``hints`` fit particular near misses and may be given any number of times;
    ``hint`` points at the mechanism for the first wrong prediction no near-miss hint fits.
    """

    id: str
    why: str
    unit: Unit | None = None
    hints: tuple[Hint, ...] = ()
    points: int = 1
    hint: str | None = None

    def __post_init__(self) -> None:
        if not _EXERCISE_ID.match(self.id):
            raise ConfigError(
                "id", self.id, "'NN.k': a two-digit lab number (and an optional letter), a dot, the exercise number"
            )
        if self.unit not in (None, *_UNIT_MS):
            raise ConfigError("unit", self.unit, "None, 's' or 'ms'")
        if self.points < 1:
            raise ConfigError("points", self.points, "a whole number of points >= 1")

    @property
    def lab(self) -> str:
        """The lab number (``"03"`` for ``"03.1"``, ``"02b"`` for ``"02b.1"``)."""
        return self.id.split(".")[0]

    @property
    def grade_id(self) -> str:
        """The nbgrader ``grade_id`` of the check cell (``"ex03_1"``)."""
        return "ex" + self.id.replace(".", "_")

    def hint_for(self, answer: Any, expected: Any) -> str | None:
        """The first declared hint that fits a wrong ``answer``, else a unit hint, else ``None``."""
        for hint in self.hints:
            if hint.matches(answer, expected, self.unit):
                return hint.text
        got, want = _number(answer, None), _number(expected, None)
        if self.unit == "s" and got is not None and want is not None and want != 0 and got == want * 1000:
            return "That is the value in milliseconds; the question asks for seconds."
        return None


@dataclass
class _Result:
    verdict: Verdict
    tries: int = 0
    answers: list[Any] = field(default_factory=list)
    pointed: bool = False  # the exercise's general ``hint`` was given


_RESULTS: dict[str, _Result] = {}
"""The verdicts checked in this kernel, by exercise id (``Restart and run all`` starts afresh)."""


def _bank() -> Mapping[str, Exercise]:
    from .exercise_bank import EXERCISES  # deferred: the bank imports Exercise and Hint from here

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


def _number(value: Any, unit: Unit | None) -> float | None:
    """``value`` as a number in ``unit`` if it means one: ``4``, ``"17 140"``, and with a unit ``"4h45m40s"``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if unit is not None and _NUMBER.match(bare := re.sub(rf"\s*{unit}$", "", text)):
        text = bare  # "17 140 s" with unit "s" is the number 17140
    if _NUMBER.match(text):
        return float(re.sub(r"[ ,_\u00a0\u202f]", "", text))
    if unit is None:
        return None
    try:
        ms = parse_duration(re.sub(r"(\d)\s*min\b", r"\1m", text), "answer")
    except ConfigError:
        return None
    return ms / _UNIT_MS[unit]


def _word(value: str) -> bool | str | None:
    """``"True"`` → ``True``, ``"None"`` → ``None``; any other text is returned trimmed and lower-cased."""
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if text in _NONE:
        return None
    return text


def same(answer: Any, expected: Any, unit: Unit | None = None) -> bool:
    """Whether a prediction means the measured value: forgiving of spelling, strict about meaning.

    Words ignore case and surrounding spaces; ``"True"``/``"None"`` are the values; numbers compare by
    value (``"17 140"`` is 17140, int vs float does not matter); with a ``unit``, durations are parsed
    (``"4h45m40s"`` is 17140 s). A bool is never a number (``True`` is not ``1``), and sequences match
    element by element (a list may stand for a tuple).
    """
    if isinstance(expected, bool) or expected is None:
        got = _word(answer) if isinstance(answer, str) else answer
        return got is expected
    if isinstance(answer, bool) or answer is None:
        return False
    if isinstance(expected, int | float):
        got = _number(answer, unit)
        return got is not None and got == float(expected)
    if isinstance(expected, str):
        return isinstance(answer, str) and answer.strip().lower() == expected.strip().lower()
    if isinstance(expected, Sequence) and isinstance(answer, Sequence) and not isinstance(answer, str):
        return len(answer) == len(expected) and all(same(a, e, unit) for a, e in zip(answer, expected, strict=True))
    return bool(answer == expected)


def _shown(value: Any, unit: Unit | None) -> str:
    if unit is not None and isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value!r} {unit} ({format_duration(int(value * _UNIT_MS[unit]))})"
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
        raise ConfigError("lab", lab, "a lab number with exercises in rmqlab.exercise_bank, such as '03'")
    print(table(rows, ["exercise", "points", "verdict"]))
    print(f"Lab {lab}: {total} of {possible} points")


def spellings(value: Any, unit: Unit | None = None) -> list[str]:
    """The ways a notebook could write ``value`` that would give it away (what the leak test looks for).

    Numbers: plain, with thousands separators, and for a duration every :mod:`rmqlab.duration`-style
    spelling; strings: themselves; sequences: each element's spellings. Bools and ``None`` have none
    that could be told from ordinary text.
    """
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, int | float):
        n = int(value) if float(value).is_integer() else value
        out = [str(n)]
        if isinstance(n, int) and abs(n) >= 1000:
            out += [f"{n:,}", f"{n:,}".replace(",", " "), f"{n:,}".replace(",", "\u202f")]
        if unit is not None and isinstance(n, int):
            words = format_duration(n * _UNIT_MS[unit])
            out += [words, words.replace(" ", ""), words.replace(" h ", "h ").replace(" m ", "m ").replace(" s", "s")]
            out += [words.replace(" m ", " min "), f"{n} {unit}", f"{n}{unit}"]
        return sorted(set(out), key=out.index)
    if isinstance(value, Sequence):
        return [s for item in value for s in spellings(item, unit)]
    return [str(value)]


DEFAULT_FIELDS: Mapping[EventKind, tuple[str, ...]] = {
    EventKind.SEND_ATTEMPT: ("mode", "attempt", "broker", "queue_id"),
    EventKind.SEND_RESULT: ("attempt", "broker", "outcome"),
    EventKind.SEND_FAILED: ("error",),
    EventKind.STORED: ("topic", "queue_id", "queue_offset", "reconsume_times"),
    EventKind.SCHEDULED: ("level", "real_topic", "due_ms", "reconsume_times"),
    EventKind.DELAY_DELIVERED: ("level", "topic", "waited_ms"),
    EventKind.DELIVERED: ("topic", "queue", "queue_offset", "reconsume_times"),
    EventKind.CONSUMED: ("status", "return_type", "took_ms"),
    EventKind.SEND_BACK: ("ok", "broker", "delay_level", "reconsume_times"),
    EventKind.DEAD_LETTERED: ("topic", "reconsume_times", "original_topic"),
    EventKind.OFFSET_UPDATED: ("queue", "offset"),
    EventKind.OFFSET_PERSISTED: ("queue", "offset"),
}
"""The data keys worth a column for each event kind (everything else is still in ``event.data``)."""


class Items(tuple[str, ...]):
    """A table cell made of items (``key=value`` pairs): printed space-separated, wrapped only between items."""

    __slots__ = ()


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Items):
        return " ".join(value)
    if isinstance(value, list | tuple):
        return ",".join(_cell(v) for v in value)
    return "" if value is None else str(value)


def _wrap(items: Sequence[str], width: int) -> list[str]:
    """Greedy line filling of whole items; an item wider than ``width`` gets a line of its own."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + 1 + len(item) <= width:
            lines[-1] += " " + item
        else:
            lines.append(item)
    return lines or [""]


def table(rows: Iterable[Sequence[Any]], headers: Sequence[str], max_width: int = TABLE_WIDTH) -> str:
    """A fixed-width text table (left-aligned, two spaces between columns) — stable for nbval.

    A row wider than ``max_width`` continues on indented lines; only the last column wraps, and only
    between the items of an :class:`Items` cell or between words, never inside a value.
    """
    raw = [list(row) for row in rows]
    body = [[_cell(v) for v in row] for row in raw]
    widths = [len(h) for h in headers]
    for row in body:
        for i, text in enumerate(row[:-1]):
            widths[i] = max(widths[i], len(text))
    lead = sum(widths[:-1]) + 2 * (len(headers) - 1)
    last = max([len(headers[-1])] + [len(row[-1]) for row in body])
    widths[-1] = min(last, max(max_width - lead, len(headers[-1]), 20))
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row, values in zip(body, raw, strict=True):
        tail = values[-1]
        items = list(tail) if isinstance(tail, Items) else row[-1].split(" ")
        wrapped = _wrap(items, widths[-1]) if len(row[-1]) > widths[-1] else [row[-1]]
        head = "  ".join(t.ljust(w) for t, w in zip(row[:-1], widths[:-1], strict=True))
        lines.append((head + "  " + wrapped[0]).rstrip() if head or len(headers) > 1 else wrapped[0])
        lines += [(" " * (lead if len(headers) > 1 else 2) + more).rstrip() for more in wrapped[1:]]
    return "\n".join(lines)


def trace_rows(events: Iterable[TraceEvent], fields: Sequence[str] | None = None) -> list[list[Any]]:
    """One row per event: time, kind, actor, message id, then the ``key=value`` details (as :class:`Items`)."""
    rows: list[list[Any]] = []
    for event in events:
        keys = fields if fields is not None else DEFAULT_FIELDS.get(event.kind, tuple(event.data))
        details = Items(f"{k}={_cell(event.data[k])}" for k in keys if k in event.data)
        rows.append([format_duration(event.time_ms), event.kind.value, event.actor, event.msg_id or "", details])
    return rows


def show_trace(
    events: Iterable[TraceEvent],
    *kinds: EventKind | str,
    msg_id: str | None = None,
    fields: Sequence[str] | None = None,
    limit: int | None = None,
) -> None:
    """Print the events (optionally only some kinds / one message) as a text table; ``limit`` keeps the first n."""
    wanted = {EventKind(k) for k in kinds}
    chosen = [e for e in events if (not wanted or e.kind in wanted) and (msg_id is None or e.msg_id == msg_id)]
    shown = chosen if limit is None else chosen[:limit]
    print(table(trace_rows(shown, fields), ["time", "event", "actor", "msg", "details"]))
    if len(shown) < len(chosen):
        print(f"… {len(chosen) - len(shown)} more")
