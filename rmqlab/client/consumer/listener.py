"""Listener statuses and contexts, plus scripted listeners for scenarios.

A listener is any callable ``listener(msgs, context) -> status``. Virtual time does not pass while
Python runs, so a listener that "takes 20 s" says so: ``return after("20s", CONSUME_SUCCESS)``;
one that raises after a while: ``return after("2s", error="db down")``; one that never returns:
``return HANG``. Returning ``None`` or raising counts exactly like RECONSUME_LATER (concurrent) or
SUSPEND_CURRENT_QUEUE_A_MOMENT (orderly) — RocketMQ does not distinguish them afterwards.

Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/listener/ConsumeConcurrentlyStatus.java
    (ConsumeConcurrentlyStatus)
Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/listener/ConsumeOrderlyStatus.java
    (ConsumeOrderlyStatus)
Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/listener/ConsumeConcurrentlyContext.java
    (ConsumeConcurrentlyContext)
Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/listener/ConsumeOrderlyContext.java
    (ConsumeOrderlyContext)
Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/listener/MessageListenerConcurrently.java
    (MessageListenerConcurrently.consumeMessage)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ...common.message import MessageExt
from ...core.duration import parse_duration
from ...core.errors import ConfigError

__all__ = [
    "HANG",
    "CallAnswer",
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

    The one rule of :mod:`rmqlab.core.validation`: an integral float is the int it equals, in a scenario file (where
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


@dataclass(frozen=True, slots=True)
class CallAnswer:
    """A scripted result that also sets this call's context fields, as a Java listener sets them before returning.

    ``{"return": "RECONSUME_LATER", "delay_level_when_next_consume": 5}``: this delivery fails and its retry waits
    at level 5; the next delivery's answer may set another level. 4.9.7 reads ``ackIndex`` /
    ``delayLevelWhenNextConsume`` (``ConsumeMessageConcurrentlyService.processConsumeResult``) and
    ``suspendCurrentQueueTimeMillis`` (``ConsumeMessageOrderlyService.processConsumeResult``) only after the listener
    returns, so setting them at the call's start changes nothing else.
    """

    result: Any
    context: tuple[tuple[str, int], ...]


CONTEXT_FIELDS: dict[bool, dict[str, tuple[int, int]]] = {
    False: {"ack_index": (-1, INTEGER_MAX_VALUE), "delay_level_when_next_consume": (-1, 18)},
    True: {"suspend_current_queue_time_millis": (-(2**63), 2**63 - 1)},
}
"""The context fields a scripted answer may set (concurrent: ``False``, orderly: ``True``) and their ranges: the same
as the listener-wide settings of a scenario file."""


def _parse_answer(value: Mapping[str, Any], where: str, orderly: bool) -> CallAnswer:
    """``{"return": <result>, <context field>: <int>, …}``: one call's result and the context fields it sets."""
    allowed = CONTEXT_FIELDS[orderly]
    other = CONTEXT_FIELDS[not orderly]
    settings: list[tuple[str, int]] = []
    for name, field_value in value.items():
        if name == "return":
            continue
        path = f"{where}.{name}"
        if name in other:
            kind = "orderly consumers (orderly: true)" if orderly is False else "concurrent consumers (orderly: false)"
            raise ConfigError(path, field_value, f"only for {kind}")
        if name not in allowed:
            raise ConfigError(path, field_value, "return or a context field: one of " + ", ".join(allowed))
        low, high = allowed[name]
        number = _integral(field_value)
        if isinstance(number, bool) or not isinstance(number, int) or not low <= number <= high:
            raise ConfigError(path, field_value, f"an int in {low}..{high}")
        settings.append((name, number))
    result = _parse_result(value["return"], f"{where}.return", orderly)
    if isinstance(result, CallAnswer):
        raise ConfigError(f"{where}.return", value["return"], "a result without context fields (set them once)")
    return CallAnswer(result, tuple(settings))


def _parse_result(value: Any, where: str, orderly: bool) -> Any:
    """One scripted result: a status word, ``null``, ``raise``, ``hang``, ``{"take": "2s", "then": ...}`` or
    ``{"return": <result>, <context field>: <int>}`` (:class:`CallAnswer`).

    A ``take``/``then`` chain adds its durations up: ``{"take": "1s", "then": {"take": "2s", "then": "X"}}`` is
    ``X`` after 3 s; a chain ending in ``hang`` hangs.
    """
    if isinstance(value, Mapping) and "return" in value:
        return _parse_answer(value, where, orderly)
    took, path, head = 0, where, value
    for _ in range(MAX_THEN_STEPS):
        if not isinstance(value, Mapping) or "return" in value:
            break
        unknown = set(value) - {"take", "then"}
        if unknown or "take" not in value:
            allowed = "{'take': <duration>, 'then': <result>} or {'return': <result>, <context field>: <int>}"
            raise ConfigError(path, dict(value), allowed)
        took += parse_duration(value["take"], path + ".take")
        value, path = value.get("then", "SUCCESS" if orderly else "CONSUME_SUCCESS"), path + ".then"
    else:
        if isinstance(value, Mapping):
            raise ConfigError(where, head, f"a take/then chain of at most {MAX_THEN_STEPS} steps (this one has more)")
    if isinstance(value, Mapping):  # {"take": .., "then": {"return": .., <context field>: ..}}
        answer = _parse_answer(value, path, orderly)
        return CallAnswer(_after(took, answer.result), answer.context)
    inner = _parse_word(value, path, orderly)
    return inner if path == where else _after(took, inner)


def _after(took: int, inner: Any) -> Any:
    """``inner`` arriving ``took`` ms later (a hang stays a hang)."""
    if inner is HANG:
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
        words = ", ".join(
            [*(m.value for m in allowed), "null", "raise", "hang", "{'take': .., 'then': ..}", "{'return': .., …}"]
        )
        raise ConfigError(where, value, f"one of {words}") from None


@dataclass(frozen=True, slots=True)
class _Rule:
    msg_id: str | None
    keys: str | None
    tags: str | None
    body: Any
    results: tuple[Any, ...]


class ScriptedListener:
    """A listener whose answer for a message depends on its ``reconsume_times`` (attempt index).

    ``results[i]`` answers the delivery with ``reconsume_times == i``; the last result repeats. Rules
    select messages by ``msg_id`` (the client's ``UNIQ_KEY``, which a retry keeps), ``keys``, ``tags`` or ``body``;
    the first matching rule wins, else ``default``. With a batch, the first message's answer is the batch's, and so
    are the context fields a :class:`CallAnswer` sets: ``{"return": "RECONSUME_LATER",
    "delay_level_when_next_consume": 5}`` fails this delivery and retries it at level 5, as a Java listener that
    sets ``context.setDelayLevelWhenNextConsume(5)`` before returning.
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
            unknown = set(match) - {"msg_id", "keys", "tags", "body"}
            if unknown:
                raise ConfigError(f"{where}.rules[{i}].match", dict(match), "msg_id, keys, tags and/or body")
            parsed.append(
                _Rule(
                    match.get("msg_id"),
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
            if rule.msg_id is not None and msg.msg_id != rule.msg_id:
                continue
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
        if isinstance(outcome, CallAnswer):
            for name, value in outcome.context:
                setattr(context, name, value)
            outcome = outcome.result
        if isinstance(outcome, Delayed) and outcome.error and outcome.took_ms == 0:
            raise RuntimeError(outcome.error)
        return outcome


Listener = Callable[[Sequence[MessageExt], Any], Any]
