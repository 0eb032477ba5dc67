"""Durations in virtual milliseconds: parse ``"10s"``, ``"4h46m"``, ``1500``; format for humans.

Everything in the engine is an ``int`` of milliseconds; strings exist so that scenarios and labs read
like RocketMQ's own configuration (``messageDelayLevel = "1s 5s 10s ..."``).

Mirrors: store/src/main/java/org/apache/rocketmq/store/schedule/ScheduleMessageService.java
    (ScheduleMessageService.parseDelayLevel)
"""

from __future__ import annotations

import re
from fractions import Fraction

from .errors import ConfigError

__all__ = ["format_duration", "parse_duration"]

_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)")
"""One number+unit part: ASCII digits only (``\\d`` would take Arabic-Indic or Devanagari digits too)."""
_WHOLE = re.compile(r"[0-9]+")
MAX_DURATION_TEXT = 64
"""The longest duration string read: far above any real one (``"6d23h59m59s999ms"`` has 16 characters), and short
enough that a 5,000-digit string is refused at once, before any number is converted."""


def parse_duration(value: int | str, parameter: str = "duration", *, allow_negative: bool = False) -> int:
    """Return ``value`` in whole milliseconds.

    Accepts a non-negative ``int`` (already ms) or a string of number+unit parts such as
    ``"250ms"``, ``"10s"``, ``"1h30m"``, ``"2h30m15s"``. ``parameter`` names the option in errors.
    """
    allowed = "an int of milliseconds or a string like '250ms', '10s', '4h46m'"
    if isinstance(value, bool):
        raise ConfigError(parameter, value, allowed)
    if isinstance(value, int):
        if value < 0 and not allow_negative:
            raise ConfigError(parameter, value, "a duration >= 0 ms")
        return value
    if isinstance(value, float) and value.is_integer():
        return parse_duration(int(value), parameter, allow_negative=allow_negative)
    if not isinstance(value, str):
        raise ConfigError(parameter, value, allowed)
    if len(value) > MAX_DURATION_TEXT:
        raise ConfigError(
            parameter, value, f"{allowed}, of at most {MAX_DURATION_TEXT} characters ({len(value)} given)"
        )
    text = value.strip().replace(" ", "")
    if _WHOLE.fullmatch(text):
        return int(text)
    pos, total = 0, Fraction(0)
    for match in _PART.finditer(text):
        if match.start() != pos:
            raise ConfigError(parameter, value, f"{allowed} (ASCII digits 0-9)")
        total += Fraction(match.group(1)) * _UNIT_MS[match.group(2)]  # exact: no float rounding to a whole ms
        pos = match.end()
    if pos != len(text) or pos == 0:
        raise ConfigError(parameter, value, f"{allowed} (ASCII digits 0-9)")
    if total.denominator != 1:
        raise ConfigError(parameter, value, "a whole number of milliseconds")
    return int(total)


def format_duration(ms: int, *, exact: bool = False) -> str:
    """Format ``ms`` compactly for a clock readout: ``0 ms``, ``250 ms``, ``10 s``, ``1 m 5 s``, ``2 h 30 m 15 s``.

    Sub-second parts are kept only below one minute, so an hour-scale schedule stays readable; ``exact`` keeps
    them at every scale (``1 m 41.500 s``), for a timeline where two events half a second apart must not read
    as simultaneous.
    """
    if ms < 0:
        return "-" + format_duration(-ms, exact=exact)
    if exact and ms >= 60_000 and ms % 1000:
        whole_minutes = format_duration(ms - ms % 60_000)
        seconds, rest = divmod(ms % 60_000, 1000)
        return f"{whole_minutes} {seconds}.{rest:03d} s"
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        seconds, rest = divmod(ms, 1000)
        return f"{seconds}.{rest:03d} s".replace(".000 s", " s")
    days, rest = divmod(ms // 1000, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [(days, "d"), (hours, "h"), (minutes, "m"), (seconds, "s")]
    return " ".join(f"{n} {unit}" for n, unit in parts if n) or "0 s"
