"""Listener statuses and contexts, plus scripted listeners for scenarios.

A listener is any callable ``listener(msgs, context) -> status``. Virtual time does not pass while
Python runs, so a listener that "takes 20 s" says so: ``return after("20s", CONSUME_SUCCESS)``;
one that raises after a while: ``return after("2s", error="db down")``; one that never returns:
``return HANG``. Returning ``None`` or raising counts exactly like RECONSUME_LATER (concurrent) or
SUSPEND_CURRENT_QUEUE_A_MOMENT (orderly) — RocketMQ does not distinguish them afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .duration import parse_duration
from .errors import ConfigError
from .message import MessageExt

__all__ = [
    "HANG",
    "ConsumeConcurrentlyContext",
    "ConsumeConcurrentlyStatus",
    "ConsumeOrderlyContext",
    "ConsumeOrderlyStatus",
    "Delayed",
    "ScriptedListener",
    "after",
]

INTEGER_MAX_VALUE = 2**31 - 1


class ConsumeConcurrentlyStatus(StrEnum):
    CONSUME_SUCCESS = "CONSUME_SUCCESS"
    RECONSUME_LATER = "RECONSUME_LATER"


class ConsumeOrderlyStatus(StrEnum):
    SUCCESS = "SUCCESS"
    SUSPEND_CURRENT_QUEUE_A_MOMENT = "SUSPEND_CURRENT_QUEUE_A_MOMENT"
    COMMIT = "COMMIT"
    """Deprecated: only meaningful with ``auto_commit = False``."""
    ROLLBACK = "ROLLBACK"
    """Deprecated: only meaningful with ``auto_commit = False``."""


def _integral(value: Any) -> Any:
    """``3.0`` → ``3``; anything else as it is (the engine warns about a value that is not an int when it reads it).

    The one rule of :mod:`rmqlab.validation`: an integral float is the int it equals, in a scenario file (where
    JSON Schema's integers include ``3.0``) and in a Python listener alike.
    """
    return int(value) if isinstance(value, float) and value.is_integer() else value


class ConsumeConcurrentlyContext:
    """``ConsumeConcurrentlyContext``: the listener may set ``ack_index`` and ``delay_level_when_next_consume``.

    Both are Java ints: an integral float (``ctx.ack_index = 3.0``) is stored as the int it equals; anything
    else that is not an int (``"x"``, ``2.5``) is a WARNING when the consume service reads it, and its default.
    """

    __slots__ = ("_ack_index", "_delay_level_when_next_consume", "message_queue")

    def __init__(self, message_queue: Any) -> None:
        self.message_queue = message_queue
        self._ack_index: Any = INTEGER_MAX_VALUE
        self._delay_level_when_next_consume: Any = 0

    @property
    def ack_index(self) -> Any:
        """The index of the last message consumed successfully (default: the whole batch)."""
        return self._ack_index

    @ack_index.setter
    def ack_index(self, value: Any) -> None:
        self._ack_index = _integral(value)

    @property
    def delay_level_when_next_consume(self) -> Any:
        """The failed messages' delay level: 0 the broker's choice (3 + reconsume times), -1 to the DLQ now."""
        return self._delay_level_when_next_consume

    @delay_level_when_next_consume.setter
    def delay_level_when_next_consume(self, value: Any) -> None:
        self._delay_level_when_next_consume = _integral(value)


class ConsumeOrderlyContext:
    """``ConsumeOrderlyContext``: ``auto_commit`` and a per-call ``suspend_current_queue_time_millis``.

    ``suspend_current_queue_time_millis`` is a Java long: an integral float is stored as the int it equals.
    """

    __slots__ = ("_suspend_current_queue_time_millis", "auto_commit", "message_queue")

    def __init__(self, message_queue: Any) -> None:
        self.message_queue = message_queue
        self.auto_commit = True
        self._suspend_current_queue_time_millis: Any = -1

    @property
    def suspend_current_queue_time_millis(self) -> Any:
        """This call's suspend time (-1: the consumer's ``suspend_current_queue_time_millis``)."""
        return self._suspend_current_queue_time_millis

    @suspend_current_queue_time_millis.setter
    def suspend_current_queue_time_millis(self, value: Any) -> None:
        self._suspend_current_queue_time_millis = _integral(value)


@dataclass(frozen=True, slots=True)
class Delayed:
    """A listener result that arrives ``took_ms`` after the call (status, or an error raised then)."""

    took_ms: int
    status: Any = None
    error: str | None = None


class _Hang:
    """The listener never returns (its thread stays blocked)."""

    def __repr__(self) -> str:
        return "HANG"


HANG = _Hang()


def after(took: int | str, status: Any = None, *, error: str | None = None) -> Delayed:
    """Result of a listener that runs for ``took`` (e.g. ``"20s"``) and then returns or raises."""
    return Delayed(parse_duration(took, "took"), status, error)


# ---------------------------------------------------------------------- scripted listeners
MAX_THEN_STEPS = 100
"""A scripted ``{"take": ..., "then": ...}`` chain has at most 100 steps (a scenario file's nesting limit allows
about 28): the chain is walked in a loop, so a 5,000-step or self-referencing chain built in Python is one
ConfigError, never a RecursionError."""


def _parse_result(value: Any, where: str, orderly: bool) -> Any:
    """One scripted result: a status word, ``null``, ``raise``, ``hang`` or ``{"take": "2s", "then": ...}``.

    A ``take``/``then`` chain adds its durations up: ``{"take": "1s", "then": {"take": "2s", "then": "X"}}`` is
    ``X`` after 3 s; a chain ending in ``hang`` hangs.
    """
    took, path, head = 0, where, value
    for _ in range(MAX_THEN_STEPS):
        if not isinstance(value, Mapping):
            break
        unknown = set(value) - {"take", "then"}
        if unknown or "take" not in value:
            raise ConfigError(path, dict(value), "{'take': <duration>, 'then': <result>}")
        took += parse_duration(value["take"], path + ".take")
        value, path = value.get("then", "SUCCESS" if orderly else "CONSUME_SUCCESS"), path + ".then"
    else:
        if isinstance(value, Mapping):
            raise ConfigError(where, head, f"a take/then chain of at most {MAX_THEN_STEPS} steps (this one has more)")
    inner = _parse_word(value, path, orderly)
    if path == where or inner is HANG:
        return inner
    if isinstance(inner, Delayed):
        return Delayed(took + inner.took_ms, inner.status, inner.error)
    return Delayed(took, inner)


def _parse_word(value: Any, where: str, orderly: bool) -> Any:
    """A result that is not a take/then mapping."""
    if value is None or value == "null":
        return None
    if value == "raise":
        return Delayed(0, None, "RuntimeException: scripted failure")
    if value == "hang":
        return HANG
    allowed = ConsumeOrderlyStatus if orderly else ConsumeConcurrentlyStatus
    try:
        return allowed(value)
    except ValueError:
        words = ", ".join([*(m.value for m in allowed), "null", "raise", "hang", "{'take': .., 'then': ..}"])
        raise ConfigError(where, value, f"one of {words}") from None


@dataclass(frozen=True, slots=True)
class _Rule:
    keys: str | None
    tags: str | None
    body: Any
    results: tuple[Any, ...]


class ScriptedListener:
    """A listener whose answer for a message depends on its ``reconsume_times`` (attempt index).

    ``results[i]`` answers the delivery with ``reconsume_times == i``; the last result repeats. Rules
    select messages by ``keys``, ``tags`` or ``body``; the first matching rule wins, else ``default``.
    With a batch, the first message's answer is the batch's.
    """

    def __init__(
        self,
        default: Sequence[Any] = ("CONSUME_SUCCESS",),
        rules: Sequence[Mapping[str, Any]] = (),
        *,
        orderly: bool = False,
        where: str = "listener",
    ) -> None:
        self.orderly = orderly
        self.default = self._results(default, f"{where}.default")
        parsed = []
        for i, rule in enumerate(rules):
            match = rule.get("match", {})
            unknown = set(match) - {"keys", "tags", "body"}
            if unknown:
                raise ConfigError(f"{where}.rules[{i}].match", dict(match), "keys, tags and/or body")
            parsed.append(
                _Rule(
                    match.get("keys"),
                    match.get("tags"),
                    match.get("body"),
                    self._results(rule.get("results"), f"{where}.rules[{i}].results"),
                )
            )
        self.rules = tuple(parsed)

    def _results(self, results: Any, where: str) -> tuple[Any, ...]:
        if isinstance(results, str) or not isinstance(results, Sequence) or not results:
            raise ConfigError(where, results, "a non-empty list of results")
        return tuple(_parse_result(r, f"{where}[{i}]", self.orderly) for i, r in enumerate(results))

    def results_for(self, msg: MessageExt) -> tuple[Any, ...]:
        for rule in self.rules:
            if rule.keys is not None and msg.keys != rule.keys:
                continue
            if rule.tags is not None and msg.tags != rule.tags:
                continue
            if rule.body is not None and msg.body != rule.body:
                continue
            return rule.results
        return self.default

    def __call__(self, msgs: Sequence[MessageExt], context: Any) -> Any:
        results = self.results_for(msgs[0])
        outcome = results[min(msgs[0].reconsume_times, len(results) - 1)]
        if isinstance(outcome, Delayed) and outcome.error and outcome.took_ms == 0:
            raise RuntimeError(outcome.error)
        return outcome


Listener = Callable[[Sequence[MessageExt], Any], Any]
