"""What a prediction means: the exercise declarations (:class:`Exercise`, :class:`Hint`) and how an answer is compared.

Predictions are compared by meaning, not spelling (:func:`same`): ``"True"`` is ``True``, ``"4"`` is
``4``, and for an exercise whose unit is a duration, ``17140``, ``"17 140 s"`` and ``"4h45m40s"`` are
the same number of seconds (parsed with :func:`rmqlab.core.duration.parse_duration`). :func:`spellings` is the other
direction: every way a notebook could write a value, which the leak test looks for.

The bank (:mod:`rmqlab.course.bank`) is data built from these classes, and :mod:`rmqlab.course.exercises` checks
predictions against it; neither imports the other at module level, so the three import as a DAG.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..core.duration import format_duration, parse_duration
from ..core.errors import ConfigError

__all__ = ["UNIT_MS", "Exercise", "Hint", "Unit", "number", "same", "spellings"]

Unit = Literal["s", "ms"]

_EXERCISE_ID = re.compile(r"^(\d\d[a-z]?)\.(\d+)$")
"""``NN.k`` or ``NNa.k``: a lab split in two (02a, 02b) keeps its number and gets a letter."""
UNIT_MS: Mapping[str, int] = {"s": 1000, "ms": 1}
"""Milliseconds per answer unit."""
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
        got, want = number(answer, unit), number(expected, unit)
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
        if self.unit not in (None, *UNIT_MS):
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
        got, want = number(answer, None), number(expected, None)
        if self.unit == "s" and got is not None and want is not None and want != 0 and got == want * 1000:
            return "That is the value in milliseconds; the question asks for seconds."
        return None


def number(value: Any, unit: Unit | None) -> float | None:
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
    return ms / UNIT_MS[unit]


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
        got = number(answer, unit)
        return got is not None and got == float(expected)
    if isinstance(expected, str):
        return isinstance(answer, str) and answer.strip().lower() == expected.strip().lower()
    if isinstance(expected, Sequence) and isinstance(answer, Sequence) and not isinstance(answer, str):
        return len(answer) == len(expected) and all(same(a, e, unit) for a, e in zip(answer, expected, strict=True))
    return bool(answer == expected)


def spellings(value: Any, unit: Unit | None = None) -> list[str]:
    """The ways a notebook could write ``value`` that would give it away (what the leak test looks for).

    Numbers: plain, with thousands separators, and for a duration every :mod:`rmqlab.core.duration`-style
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
            words = format_duration(n * UNIT_MS[unit])
            out += [words, words.replace(" ", ""), words.replace(" h ", "h ").replace(" m ", "m ").replace(" s", "s")]
            out += [words.replace(" m ", " min "), f"{n} {unit}", f"{n}{unit}"]
        return sorted(set(out), key=out.index)
    if isinstance(value, Sequence):
        return [s for item in value for s in spellings(item, unit)]
    return [str(value)]
