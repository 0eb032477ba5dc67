"""What a pull answers (``PullResult``, ``PullStatus``) and what the hold service keeps (a held pull).

Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/PullResult.java
    (PullResult)
Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/PullStatus.java
    (PullStatus)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/longpolling/PullRequest.java
    (PullRequest)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ..common.message import (
    MessageExt,
)
from ..common.message_queue import MessageQueue
from ..core.scheduler import Timer

__all__ = [
    "BROKER_SUSPEND_MAX_TIME_MILLIS",
    "MAX_TRANSFER_COUNT",
    "PullResult",
    "PullStatus",
]

BROKER_SUSPEND_MAX_TIME_MILLIS = 15_000
MAX_TRANSFER_COUNT = 32


class PullStatus(StrEnum):
    """``PullStatus``."""

    FOUND = "FOUND"
    NO_NEW_MSG = "NO_NEW_MSG"
    NO_MATCHED_MSG = "NO_MATCHED_MSG"
    OFFSET_ILLEGAL = "OFFSET_ILLEGAL"


@dataclass(slots=True)
class PullResult:
    """What a pull returns to the client."""

    status: PullStatus
    next_begin_offset: int
    min_offset: int
    max_offset: int
    msgs: list[MessageExt] = field(default_factory=list)


@dataclass(slots=True)
class _HeldPull:
    """A pull the broker holds (``PullRequestHoldService``) until messages arrive or 15 s pass."""

    client_id: str
    group: str
    mq: MessageQueue
    offset: int
    tags: frozenset[str] | None
    opaque: int
    """The client's request number: the broker answers it (``Remoting.reply``), or forgets it in a connection reset
    (``Remoting.forget``)."""
    timer: Timer | None = None
