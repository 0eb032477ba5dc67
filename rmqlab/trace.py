"""The append-only trace every view reads.

The engine appends one frozen :class:`TraceEvent` per observable step; widgets, the command line,
the invariant checker and the tests only read it. Events hold message *ids*, never bodies, so a long
run does not keep a second copy of every payload.

With ``enabled=False`` the trace keeps only per-kind counters (for benchmarks of the bare engine).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from enum import StrEnum
from operator import itemgetter
from types import MappingProxyType
from typing import Any

__all__ = ["EventKind", "Trace", "TraceEvent"]


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
    LOCK_ACQUIRED = "lock_acquired"
    LOCK_RENEWED = "lock_renewed"
    LOCK_REFUSED = "lock_refused"
    LOCK_EXPIRED = "lock_expired"
    UNLOCKED = "unlocked"
    SUSPENDED = "suspended"
    """Orderly: SUSPEND_CURRENT_QUEUE_A_MOMENT, the queue waits and the message is retried."""
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


class TraceEvent(tuple):
    """One thing that happened, at one virtual millisecond, to at most one message.

    Why a bare tuple: a long run records millions of events. A tuple is built in one C call, is
    immutable, and holds the event's details as a plain dict, which the garbage collector does not
    track when its values are plain str/int (most events); :attr:`data` hands readers a read-only view.
    """

    __slots__ = ()

    def __new__(
        cls, seq: int, time_ms: int, kind: EventKind, actor: str, msg_id: str | None, data: Mapping[str, Any]
    ) -> TraceEvent:
        return tuple.__new__(cls, (seq, time_ms, kind, actor, msg_id, dict(data)))

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)

    seq = property(itemgetter(0), doc="Position in the trace, from 1 (int).")
    time_ms = property(itemgetter(1), doc="Virtual time in ms (int).")
    kind = property(itemgetter(2), doc="What happened (an EventKind).")
    actor = property(itemgetter(3), doc="Who did it: a broker name, ``consumer:<id>``, ``producer:<name>`` …")
    msg_id = property(itemgetter(4), doc="The message's id, kept across retries (None for events about no message).")

    @property
    def data(self) -> Mapping[str, Any]:
        """The event's details, read-only."""
        return MappingProxyType(self[5])

    def get(self, key: str, default: Any = None) -> Any:
        """Shorthand for ``event.data.get(key, default)``."""
        return self[5].get(key, default)

    def to_dict(self) -> dict[str, Any]:
        """A plain JSON-ready dict (keys in a fixed order)."""
        return {
            "seq": self[0],
            "time_ms": self[1],
            "kind": self[2].value,
            "actor": self[3],
            "msg_id": self[4],
            **self[5],
        }

    def __repr__(self) -> str:
        return (
            f"TraceEvent(seq={self[0]!r}, time_ms={self[1]!r}, kind={self[2]!r}, actor={self[3]!r}, "
            f"msg_id={self[4]!r}, data={self.data!r})"
        )


_new_event = tuple.__new__
"""Builds a TraceEvent from a ready tuple in one C call (``record`` owns its kwargs dict, so no copy)."""


class Trace:
    """Append-only list of :class:`TraceEvent` plus per-kind counters."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._events: list[TraceEvent] = []
        self.counts: Counter[EventKind] = Counter()
        self._seq = 0

    def record(self, time_ms: int, kind: EventKind, actor: str, msg_id: str | None = None, **data: Any) -> None:
        """Append one event (or only count it when the trace is disabled)."""
        self.counts[kind] += 1
        if not self.enabled:
            return
        self._seq += 1
        self._events.append(_new_event(TraceEvent, (self._seq, time_ms, kind, actor, msg_id, data)))

    def tally(self, kind: EventKind, n: int = 1) -> None:
        """Count ``n`` events without recording them. Hot call sites use it when the trace is off, so they
        build no details: ``if trace.enabled: trace.record(...) else: trace.tally(kind)``."""
        self.counts[kind] += n

    def __len__(self) -> int:
        return len(self._events)

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

    def to_jsonl(self) -> str:
        """The whole trace as JSON lines; equal runs give equal strings, byte for byte."""
        return "".join(json.dumps(e.to_dict(), sort_keys=False, separators=(",", ":")) + "\n" for e in self._events)
