"""What one trace event is: its kind (:class:`EventKind`, in RocketMQ's vocabulary) and its fields
(:class:`TraceEvent`). :mod:`rmqlab.core.trace` is the log that records and holds them.

Mirrors: client/src/main/java/org/apache/rocketmq/client/trace/TraceType.java
    (TraceType)
Mirrors: client/src/main/java/org/apache/rocketmq/client/trace/TraceContext.java
    (TraceContext)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

__all__ = ["EventKind", "TraceEvent"]


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
    """CleanCommitLogService deleted messages ``fileReservedTime`` (72 h) old or more — DLQ ones too, never the
    newest (the file being written)."""
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
