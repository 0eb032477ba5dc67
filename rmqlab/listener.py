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


class ConsumeConcurrentlyContext:
    """``ConsumeConcurrentlyContext``: the listener may set ``ack_index`` and ``delay_level_when_next_consume``."""

    __slots__ = ("ack_index", "delay_level_when_next_consume", "message_queue")

    def __init__(self, message_queue: Any) -> None:
        self.message_queue = message_queue
        self.ack_index = INTEGER_MAX_VALUE
        self.delay_level_when_next_consume = 0


class ConsumeOrderlyContext:
    """``ConsumeOrderlyContext``: ``auto_commit`` and a per-call ``suspend_current_queue_time_millis``."""

    __slots__ = ("auto_commit", "message_queue", "suspend_current_queue_time_millis")

    def __init__(self, message_queue: Any) -> None:
        self.message_queue = message_queue
        self.auto_commit = True
        self.suspend_current_queue_time_millis = -1


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
RESULT_WORDS = {
    "CONSUME_SUCCESS",
    "RECONSUME_LATER",
    "SUCCESS",
    "SUSPEND_CURRENT_QUEUE_A_MOMENT",
    "COMMIT",
    "ROLLBACK",
    "null",
    "raise",
    "hang",
}


def _parse_result(value: Any, where: str, orderly: bool) -> Any:
    """One scripted result: a status word, ``null``, ``raise``, ``hang`` or ``{"take": "2s", "then": ...}``."""
    if isinstance(value, Mapping):
        unknown = set(value) - {"take", "then"}
        if unknown or "take" not in value:
            raise ConfigError(where, dict(value), "{'take': <duration>, 'then': <result>}")
        inner = _parse_result(value.get("then", "SUCCESS" if orderly else "CONSUME_SUCCESS"), where + ".then", orderly)
        took = parse_duration(value["take"], where + ".take")
        if isinstance(inner, Delayed):
            return Delayed(took + inner.took_ms, inner.status, inner.error)
        if inner is HANG:
            return HANG
        return Delayed(took, inner)
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
