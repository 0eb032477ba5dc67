"""What a prediction means: how an answer is read and compared.

Predictions are compared by meaning, not spelling (:func:`same`): ``"True"`` is ``True``, ``"4"`` is
``4``, and for an exercise whose unit is a duration, ``7200``, ``"7 200 s"`` and ``"2h"`` are
the same number of seconds (parsed with :func:`rmqlab.core.duration.parse_duration`). :func:`spellings` is the other
direction: every way a notebook could write a value, which the leak test looks for.

:mod:`rmqlab.course.sealed` reads a prediction with :func:`number` before it hashes it; the exercises' texts are the
teacher's (``teacher/``), sealed into :mod:`rmqlab.course.bank`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ..core.duration import format_duration, parse_duration
from ..core.errors import ConfigError

__all__ = ["UNIT_MS", "Unit", "number", "same", "spellings"]

Unit = Literal["s", "ms"]

UNIT_MS: Mapping[str, int] = {"s": 1000, "ms": 1}
"""Milliseconds per answer unit."""
_NUMBER = re.compile(r"^[+-]?\d+(?:[ ,_\u00a0\u202f]\d{3})*(?:\.\d+)?$")
_TRUE, _FALSE, _NONE = ("true", "yes"), ("false", "no"), ("none", "nothing", "null")


def number(value: Any, unit: Unit | None) -> float | None:
    """``value`` as a number in ``unit`` if it means one: ``4``, ``"7 200"``, and with a unit ``"2h"``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if unit is not None and _NUMBER.match(bare := re.sub(rf"\s*{unit}$", "", text)):
        text = bare  # "7 200 s" with unit "s" is the number 7200
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
    value (``"7 200"`` is 7200, int vs float does not matter); with a ``unit``, durations are parsed
    (``"2h"`` is 7200 s). A bool is never a number (``True`` is not ``1``), and sequences match
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
