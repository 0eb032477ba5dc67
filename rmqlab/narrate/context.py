"""What a :class:`~rmqlab.narrate.Narrator` remembers of earlier events, and the small formatters every caption uses.

The "why" of a caption often lives in earlier events (the broker a failed attempt went to, the delay level a
send-back was parked at, the ``maxReconsumeTimes`` carried on a group's send-backs); :class:`CaptionContext`
keeps exactly that and nothing else, so captions are a pure function of the trace prefix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.duration import format_duration
from ..core.trace import EventKind, TraceEvent

__all__ = ["CaptionContext", "copy_number", "dur", "level_wait", "name_of", "remember_copy"]


@dataclass(slots=True)
class CaptionContext:
    """The context the captions of later events need, updated by the caption functions as they are fed."""

    consume_mode: dict[str, str] = field(default_factory=dict)
    """Consumer actor → ``orderly`` | ``concurrently``."""
    message_model: dict[str, str] = field(default_factory=dict)
    """Consumer actor → ``CLUSTERING`` | ``BROADCASTING``."""
    group_of: dict[str, str] = field(default_factory=dict)
    """Consumer actor → its group."""
    max_reconsume_times: dict[str, int] = field(default_factory=dict)
    """Group → ``maxReconsumeTimes`` seen on its send-backs."""
    last_attempt: dict[tuple[str, str], Mapping[str, Any]] = field(default_factory=dict)
    """(producer, msg) → its last SEND_ATTEMPT's data."""
    last_outcome: dict[tuple[str, str], str] = field(default_factory=dict)
    """(producer, msg) → the last attempt's outcome."""
    broker_did: dict[str, list[TraceEvent]] = field(default_factory=dict)
    """Msg → SCHEDULED / DEAD_LETTERED events since it was consumed."""
    inner_send: set[str] = field(default_factory=set)
    """Msgs the client itself re-sent to %RETRY% since they were consumed."""
    cleaned: dict[str, int] = field(default_factory=dict)
    """Msg → how long it had been consuming when cleanExpiredMsg sent it back (ms)."""
    parked: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Msg → (time it was parked, its due time ``deliverTimestamp``) of its latest SCHEDULED: a delivery's caption
    says the level's delay (due − parked), not the time since storing, which a broker restart stretches."""
    restarted_at: dict[str, int] = field(default_factory=dict)
    """Broker → the time it last came back up (``broker_up``): a delivery after it may be late or a second copy."""
    last_hop: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    """Msg → (time, level, topic) of its last DELAY_DELIVERED."""
    removed_at: dict[tuple[str, str], int] = field(default_factory=dict)
    """(consumer, queue) → the time a rebalance removed it."""
    expired: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Queue → (time, previous holder) of a lock takeover."""
    delivery_rt: dict[str, int] = field(default_factory=dict)
    """Msg → reconsumeTimes of its latest delivery (the plain line counts failures: "for the 2nd time")."""
    batch_of: dict[str, list[str]] = field(default_factory=dict)
    """Msg → the ids of the batch its latest delivery handed to the listener, in order (one list per batch)."""
    open_batch: dict[str, tuple[list[str], int]] = field(default_factory=dict)
    """Consumer actor → the batch its DELIVERED events are filling and that batch's size."""
    consume_result: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Msg → (status, return type) of its latest consume result: why a send-back that follows happened."""
    sent_back: set[str] = field(default_factory=set)
    """Msgs sent back since they were consumed (the first of a batch's says where ``ackIndex`` was)."""
    stored_copies: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    """Msg → the (queue, offset) of each copy a broker stored of it in a business topic, in store order: a second one
    is a duplicate under the same id (a SYNC try whose answer was lost and was sent again; a delay offset rolled back
    by a broker crash), and the plain line says "a second copy"."""


_NOT_BUSINESS = ("%RETRY%", "%DLQ%", "SCHEDULE_TOPIC_XXXX")
"""Topics whose stored messages are a message's later life, not a copy of it (``MixAll.RETRY_GROUP_TOPIC_PREFIX``,
``DLQ_GROUP_TOPIC_PREFIX``, ``TopicValidator.RMQ_SYS_SCHEDULE_TOPIC``)."""


def copy_number(ctx: CaptionContext, e: TraceEvent) -> int:
    """Which copy of its message ``e`` is about (1 for the first, 2 for a second copy …), from the context before it:
    a STORED in a business topic or the DELAY_DELIVERED that is about to store one is the next copy; a DELIVERED is
    the copy stored at its queue and offset; any other event, 1."""
    msg, d = e.msg_id or "", e.data
    stored = ctx.stored_copies.get(msg, [])
    if e.kind in (EventKind.STORED, EventKind.DELAY_DELIVERED):
        return len(stored) + 1 if not str(d.get("topic", "")).startswith(_NOT_BUSINESS) else 1
    if e.kind is EventKind.DELIVERED:
        at = (str(d.get("queue", "")), d.get("queue_offset"))
        return next((n for n, copy in enumerate(stored, start=1) if copy == at), 1)
    return 1


def remember_copy(ctx: CaptionContext, e: TraceEvent) -> None:
    """After ``e``'s captions: a STORED in a business topic is one more copy of its message."""
    d = e.data
    if e.kind is EventKind.STORED and e.msg_id and not str(d.get("topic", "")).startswith(_NOT_BUSINESS):
        queue = f"{d.get('topic')}@{e.actor}:{d.get('queue_id')}"
        ctx.stored_copies.setdefault(e.msg_id, []).append((queue, int(d.get("queue_offset", -1))))


def level_wait(ctx: CaptionContext, e: TraceEvent) -> tuple[int, int, int | None]:
    """``(the level's delay, the due time, the restart)`` of a DELAY_DELIVERED ``e``, from its message's SCHEDULED.

    The delay is ``deliverTimestamp − storeTimestamp`` (the level's), not the event's ``waited_ms`` (now − stored),
    which a broker that was down stretches. The restart is the time its broker came back up, when that was at or
    after the due time (the restart is why the delivery is late, or, with an offset read back from
    ``delayOffset.json``, why it comes a second time); else ``None``. Without a SCHEDULED, the wait is all we know."""
    waited = int(e.data.get("waited_ms", 0))
    parked_at, due = ctx.parked.get(e.msg_id or "", (e.time_ms - waited, e.time_ms))
    restart = ctx.restarted_at.get(name_of(e.actor))
    return due - parked_at, due, restart if restart is not None and restart >= due else None


def name_of(actor: str) -> str:
    """``consumer:c1`` → ``c1``; ``producer:pg`` → ``pg``; brokers stay as they are."""
    return actor.split(":", 1)[1] if ":" in actor else actor


def dur(ms: int) -> str:
    return format_duration(int(ms))
