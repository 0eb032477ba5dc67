"""The append-only trace every view reads.

The engine appends one frozen :class:`TraceEvent` per observable step; widgets, the command line,
the invariant checker and the tests only read it. Events hold message *ids*, never bodies, so a long
run does not keep a second copy of every payload.

Read it by what happened, not by position: :meth:`Trace.where` (kind and fields), :meth:`Trace.first`,
:meth:`Trace.last`, :meth:`Trace.find` and :meth:`Trace.at` (one virtual millisecond).

A :class:`CountingTrace` has the same interface and keeps only per-kind counters (``Lab(trace=False)``,
for benchmarks of the bare engine).

Mirrors: logging/src/main/java/org/apache/rocketmq/logging/InternalLogger.java
    (InternalLogger.info, InternalLogger.warn)
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

__all__ = ["CountingTrace", "EventKind", "Trace", "TraceEvent"]


class EventKind(StrEnum):
    """Every kind of event the engine records, in RocketMQ's vocabulary."""

    SEND_ATTEMPT = "send_attempt"
    """A producer attempt to one broker queue (``attempt`` counts from 1)."""
    SEND_RESULT = "send_result"
    """Outcome of one attempt: SEND_OK, a non-OK SendStatus, or an exception name."""
    SEND_FAILED = "send_failed"
    """The whole send failed; ``error`` is what the application sees."""
    STORED = "stored"
    """A broker appended a message to its CommitLog and ConsumeQueue."""
    SCHEDULED = "scheduled"
    """A delayed message was parked in ``SCHEDULE_TOPIC_XXXX`` queue ``level - 1``."""
    DELAY_DELIVERED = "delay_delivered"
    """The ScheduleMessageService moved a due message back to its real topic."""
    PULLED = "pulled"
    """A pull returned messages into a ProcessQueue."""
    PULL_DEFERRED = "pull_deferred"
    """``executePullRequestLater``: a queue's next pull waits ``delay_ms`` for a ``reason`` (flow control, paused,
    not locked, an exception)."""
    PULL_EMPTY = "pull_empty"
    """A pull answered without messages: ``status`` NO_MATCHED_MSG or NO_NEW_MSG (``correctTagsOffset``: the
    offset moves to ``next_offset`` when the ProcessQueue is empty; ``corrected`` says it moved) or OFFSET_ILLEGAL
    (ProcessQueue dropped, the offset fixed 10 s later). A NO_NEW_MSG that moves nothing (a long poll that waited
    15 s in vain) is not recorded."""
    DELIVERED = "delivered"
    """A listener was called with a message (one event per message of the batch)."""
    CONSUMED = "consumed"
    """A listener returned (or raised); ``status`` is the effective status."""
    SEND_BACK = "send_back"
    """CONSUMER_SEND_MSG_BACK from a concurrent consumer (``ok`` true/false)."""
    SEND_BACK_FALLBACK = "send_back_fallback"
    """The client produced a new ``%RETRY%`` message itself because send-back failed."""
    LOCAL_RETRY = "local_retry"
    """Send-back and fallback both failed: re-consume locally after 5000 ms."""
    DEAD_LETTERED = "dead_lettered"
    """A message was written to ``%DLQ%<group>``."""
    BROADCAST_DROPPED = "broadcast_dropped"
    """BROADCASTING: a failed message is logged and dropped, never retried."""
    OFFSET_UPDATED = "offset_updated"
    """The client's offset store moved (committed offset = ProcessQueue low-water mark)."""
    OFFSET_PERSISTED = "offset_persisted"
    """A committed offset reached the broker (or the local offset file)."""
    REBALANCED = "rebalanced"
    """A consumer's allocation of queues changed."""
    LOCK_BATCH = "lock_batch"
    """One LOCK_BATCH_MQ request (``RebalanceImpl.lock`` or ``lockAll``) and its answer: the ``queues`` asked,
    those ``locked`` and ``refused`` (with their ``holders``), or the ``error`` when the broker could not answer."""
    LOCK_ACQUIRED = "lock_acquired"
    LOCK_RENEWED = "lock_renewed"
    LOCK_REFUSED = "lock_refused"
    LOCK_EXPIRED = "lock_expired"
    UNLOCKED = "unlocked"
    SUSPENDED = "suspended"
    """Orderly: SUSPEND_CURRENT_QUEUE_A_MOMENT, the queue waits and the message is retried."""
    CONSUME_REQUEST = "consume_request"
    """Orderly: a ConsumeRequest for a queue, made for pulled messages (``submitConsumeRequest``, ``delay_ms`` 0, only
    when the queue is not being consumed already) or scheduled (``submitConsumeRequestLater``: ``delay_ms`` after the
    10..30000 ms clamp), with its ``reason``."""
    CLEAN_EXPIRED = "clean_expired"
    """cleanExpiredMsg sent back a message that has been consuming for longer than consumeTimeout."""
    RETENTION_DELETED = "retention_deleted"
    """CleanCommitLogService deleted messages older than ``fileReservedTime`` (72 h) — DLQ ones too."""
    FAULT = "fault"
    """An injected fault took effect."""
    ADMIN = "admin"
    """An operator changed a broker's configuration (``mqadmin``, e.g. ``updateSubGroup``)."""
    LIFECYCLE = "lifecycle"
    """A consumer or producer started, shut down, crashed or restarted."""
    WARNING = "warning"
    """Something RocketMQ only logs (e.g. deprecated status) — kept visible for students."""


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One thing that happened, at one virtual millisecond, to at most one message.

    Frozen, so a view can never rewrite history; the details are copied into a private dict and handed
    out read-only through :attr:`data`.
    """

    seq: int
    """Position in the trace, from 1."""
    time_ms: int
    """Virtual time in ms."""
    kind: EventKind
    """What happened."""
    actor: str
    """Who did it: a broker name, ``consumer:<id>``, ``producer:<name>`` …"""
    msg_id: str | None
    """The message's id, kept across retries (None for events about no message)."""
    details: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """The event's details (use :attr:`data` or :meth:`get` to read them)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "details", dict(self.details))

    @property
    def data(self) -> Mapping[str, Any]:
        """The event's details, read-only."""
        return MappingProxyType(self.details)

    def get(self, key: str, default: Any = None) -> Any:
        """Shorthand for ``event.data.get(key, default)``."""
        return self.details.get(key, default)

    def to_dict(self) -> dict[str, Any]:
        """A plain JSON-ready dict (keys in a fixed order)."""
        return {
            "seq": self.seq,
            "time_ms": self.time_ms,
            "kind": self.kind.value,
            "actor": self.actor,
            "msg_id": self.msg_id,
            **self.details,
        }

    def __repr__(self) -> str:
        return (
            f"TraceEvent(seq={self.seq!r}, time_ms={self.time_ms!r}, kind={self.kind!r}, actor={self.actor!r}, "
            f"msg_id={self.msg_id!r}, data={dict(self.details)!r})"
        )


class Trace:
    """The append-only list of :class:`TraceEvent` every view reads, plus per-kind counters.

    Engine code calls :meth:`record` and nothing else; whether the event is kept or only counted is the
    trace's business (:class:`CountingTrace`), never a branch at the call site.
    """

    enabled = True
    """``True``: events are kept. A :class:`CountingTrace` says ``False``."""

    def __init__(self) -> None:
        self._events: list[TraceEvent] = []
        self._counts: Counter[EventKind] = Counter()
        """Events of each kind so far."""

    @property
    def counts(self) -> Counter[EventKind]:
        """How many events of each kind were recorded (kinds never recorded are left out), in :class:`EventKind`
        order: a copy, so a reader cannot change the trace's own tally."""
        return Counter({kind: self._counts[kind] for kind in EventKind if self._counts[kind]})

    def record(self, time_ms: int, kind: EventKind, actor: str, msg_id: str | None = None, /, **data: Any) -> None:
        """Append one event; the keywords are its details.

        The four fixed parameters are positional-only, so a detail may have any name, ``kind`` or ``actor``
        included.
        """
        self._counts[kind] += 1
        self._events.append(TraceEvent(len(self._events) + 1, time_ms, kind, actor, msg_id, data))

    def __len__(self) -> int:
        return len(self._events)

    def __repr__(self) -> str:
        """What a student sees on evaluating ``lab.trace``: its size, the virtual time it spans, and the count
        of each kind (in :class:`EventKind` order, so equal runs print equal text) instead of a bare address."""
        from .duration import format_duration

        kinds = ", ".join(f"{kind.value}={self._counts[kind]}" for kind in EventKind if self._counts[kind])
        if not self.enabled:
            return f"Trace(disabled, {self._counts.total()} events counted: {kinds or 'none'})"
        if not self._events:
            return "Trace(0 events)"
        first, last = self._events[0].time_ms, self._events[-1].time_ms
        span = f"{format_duration(first)} … {format_duration(last)}"
        return f"Trace({len(self._events)} events, {span}: {kinds})"

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(self._events)

    def __getitem__(self, index: int) -> TraceEvent:
        return self._events[index]

    @property
    def events(self) -> tuple[TraceEvent, ...]:
        """An immutable view of all events so far."""
        return tuple(self._events)

    def of_kind(self, *kinds: EventKind) -> list[TraceEvent]:
        """Events of the given kinds, in order."""
        wanted = set(kinds)
        return [e for e in self._events if e.kind in wanted]

    def for_message(self, msg_id: str) -> list[TraceEvent]:
        """Every event about one message id (the id is kept across retries)."""
        return [e for e in self._events if e.msg_id == msg_id]

    def where(self, *kinds: EventKind | str, **fields: Any) -> list[TraceEvent]:
        """The events of ``kinds`` (any kind if none is given) whose ``fields`` all match, in order.

        A field is one of the event's attributes (``time_ms``, ``actor``, ``msg_id``) or one of its details
        (``queue``, ``status``, ``reconsume_times`` …): ``where(EventKind.DELIVERED, msg_id="M0001",
        reconsume_times=1)``. An event without that detail does not match. Seeking by what happened, not by
        the position in the trace, keeps a question (and a test) right when an unrelated event is added.
        A kind may be given by its value (``"delivered"``); one that is no :class:`EventKind` is a ValueError.
        """
        return list(self._matching(kinds, fields, self._events))

    def find(self, *kinds: EventKind | str, **fields: Any) -> TraceEvent | None:
        """The first event :meth:`where` would list, or ``None`` if there is none."""
        return next(self._matching(kinds, fields, self._events), None)

    def first(self, *kinds: EventKind | str, **fields: Any) -> TraceEvent:
        """The first event :meth:`where` would list; :class:`LookupError` naming the query if there is none."""
        event = self.find(*kinds, **fields)
        if event is None:
            raise LookupError(f"no event {_query(kinds, fields)} in {self!r}")
        return event

    def last(self, *kinds: EventKind | str, **fields: Any) -> TraceEvent:
        """The last event :meth:`where` would list; :class:`LookupError` naming the query if there is none."""
        event = next(self._matching(kinds, fields, reversed(self._events)), None)
        if event is None:
            raise LookupError(f"no event {_query(kinds, fields)} in {self!r}")
        return event

    def at(self, time: int | str, *kinds: EventKind | str, **fields: Any) -> list[TraceEvent]:
        """The events of one virtual millisecond (``1500`` or ``"1.5s"``), filtered as by :meth:`where`."""
        from .duration import parse_duration

        return self.where(*kinds, time_ms=parse_duration(time, "time"), **fields)

    @staticmethod
    def _matching(
        kinds: tuple[EventKind | str, ...], fields: Mapping[str, Any], events: Iterable[TraceEvent]
    ) -> Iterator[TraceEvent]:
        wanted = {EventKind(k) for k in kinds}
        return (e for e in events if (not wanted or e.kind in wanted) and _matches(e, fields))

    def to_jsonl(self) -> str:
        """The whole trace as JSON lines; equal runs give equal strings, byte for byte."""
        return "".join(json.dumps(e.to_dict(), sort_keys=False, separators=(",", ":")) + "\n" for e in self._events)


_ATTRIBUTES = frozenset({"seq", "time_ms", "actor", "msg_id"})
"""Fields :meth:`Trace.where` reads from the event itself; any other field is a detail."""
_MISSING = object()


def _matches(event: TraceEvent, fields: Mapping[str, Any]) -> bool:
    for name, value in fields.items():
        got = getattr(event, name) if name in _ATTRIBUTES else event.details.get(name, _MISSING)
        if got is _MISSING or got != value:
            return False
    return True


def _query(kinds: tuple[EventKind | str, ...], fields: Mapping[str, Any]) -> str:
    """``kind=delivered|consumed msg_id='M0001'``: a lookup as an error message shows it."""
    parts = [f"kind={'|'.join(EventKind(k).value for k in kinds)}"] if kinds else []
    return " ".join(parts + [f"{name}={value!r}" for name, value in fields.items()]) or "at all"


class CountingTrace(Trace):
    """A trace that keeps no events, only :attr:`counts` (``Lab(trace=False)``).

    Same interface as :class:`Trace`, so the engine records the same way whether a student is watching or a
    benchmark is timing; readers that need the events check :attr:`enabled`.
    """

    enabled = False

    def record(self, time_ms: int, kind: EventKind, actor: str, msg_id: str | None = None, /, **data: Any) -> None:
        """Count the event; keep nothing else."""
        self._counts[kind] += 1
