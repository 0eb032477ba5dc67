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
from ..core.trace import TraceEvent

__all__ = ["CaptionContext", "dur", "name_of"]


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


def name_of(actor: str) -> str:
    """``consumer:c1`` → ``c1``; ``producer:pg`` → ``pg``; brokers stay as they are."""
    return actor.split(":", 1)[1] if ":" in actor else actor


def dur(ms: int) -> str:
    return format_duration(int(ms))
