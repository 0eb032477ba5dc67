"""Option checks shared by every public constructor: one message shape for every bad value."""

from __future__ import annotations

from enum import Enum
from typing import Any, TypeVar

from .errors import ConfigError

__all__ = ["check_choice", "check_int"]

E = TypeVar("E", bound=Enum)


def check_int(parameter: str, value: Any, low: int, high: int) -> int:
    """Return ``value`` if it is an int in ``[low, high]``, else raise a :class:`ConfigError`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(parameter, value, f"an int in {low}..{high}")
    if not low <= value <= high:
        raise ConfigError(parameter, value, f"an int in {low}..{high}")
    return value


def check_choice(parameter: str, value: Any, enum: type[E]) -> E:
    """Coerce ``value`` to a member of ``enum`` (by value or name) or raise a :class:`ConfigError`."""
    if isinstance(value, enum):
        return value
    for member in enum:
        if value == member.value or value == member.name:
            return member
    raise ConfigError(parameter, value, "one of " + ", ".join(str(m.value) for m in enum))
