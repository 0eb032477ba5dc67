"""The small error tree of rmqlab.

Outcomes of the simulated system (a message dead-lettered, a send that failed) are *data* in the
trace, never exceptions. Exceptions are for misuse of the library::

    RmqlabError
    ├── ConfigError (also ValueError)      a bad option: names the parameter, the value, what is allowed
    │   └── ScenarioError                  a bad scenario file: names the field path
    └── SimulationError (also RuntimeError) the engine was driven wrongly (e.g. run until the past)

Mirrors: client/src/main/java/org/apache/rocketmq/client/exception/MQClientException.java
    (MQClientException)
"""

from __future__ import annotations

import math
import reprlib
from typing import Any

__all__ = ["ConfigError", "RmqlabError", "ScenarioError", "SimulationError", "cut", "short_repr"]

MAX_SHOWN_CHARS = 200
"""Longest value an error message shows: a 10^6-leaf document must not become a 10 MB error line."""

_SMALL_NODES = 200


class _BoundedRepr(reprlib.Repr):
    """reprlib with small limits, and ints too long for ``repr`` (over 4,300 digits) described, not printed."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxtuple = self.maxlist = self.maxarray = self.maxdict = self.maxset = self.maxfrozenset = 6
        self.maxdeque = 6
        self.maxstring = 80
        self.maxlong = 40
        self.maxother = 80

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 128:
            power = int(math.log10(abs(x)))  # float rounding can be one too high near a power of ten
            if 10**power > abs(x):
                power -= 1
            return f"<an int of {power + 1} digits>"
        return super().repr_int(x, level)


_REPR = _BoundedRepr()


def _is_small(value: Any) -> bool:
    """True when ``value`` has few nodes and short strings, so plain ``repr`` is cheap and short.

    Counted without recursion and stopping early: a YAML alias bomb shares its nodes, so walking it
    in full would take exponential time.
    """
    stack, seen = [value], 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > _SMALL_NODES:
            return False
        if isinstance(item, str | bytes | bytearray):
            if len(item) > MAX_SHOWN_CHARS:
                return False
        elif isinstance(item, int) and not isinstance(item, bool):
            if item.bit_length() > 128:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
    return True


def cut(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def short_repr(value: Any) -> str:
    """``repr(value)`` when it is short; else a bounded summary (never more than ~MAX_SHOWN_CHARS characters)."""
    try:
        text = repr(value) if _is_small(value) else _REPR.repr(value)
    except Exception as exc:  # a user object whose __repr__ raises must not hide the real error
        text = f"<{type(value).__name__} (repr failed: {type(exc).__name__})>"
    return cut(text)


class RmqlabError(Exception):
    """Base class of every error rmqlab raises on purpose."""


class ConfigError(RmqlabError, ValueError):
    """An option or argument is out of range, of the wrong type, or names something unknown."""

    def __init__(self, parameter: str, value: Any, allowed: str) -> None:
        self.parameter = parameter
        self.value = value
        self.allowed = allowed
        # the value and the allowed text are cut (the exception keeps the full value): an error line stays short
        super().__init__(f"{cut(parameter)}={short_repr(value)} is not allowed: expected {cut(allowed, 1000)}")


class ScenarioError(ConfigError):
    """A scenario file is malformed; ``parameter`` is the JSON path of the offending field."""


class SimulationError(RmqlabError, RuntimeError):
    """The engine was asked to do something impossible, such as running backwards in time."""
