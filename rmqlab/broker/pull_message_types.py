"""What the hold service keeps: a held pull (``PullRequest``), and the long-polling limits.

What a pull answers (``PullResult``, ``PullStatus``) is wire data, in :mod:`rmqlab.remoting.protocol`.

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/longpolling/PullRequest.java
    (PullRequest)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..common.message_queue import MessageQueue
from ..core.scheduler import Timer

__all__ = [
    "BROKER_SUSPEND_MAX_TIME_MILLIS",
    "MAX_TRANSFER_COUNT",
]

BROKER_SUSPEND_MAX_TIME_MILLIS = 15_000
MAX_TRANSFER_COUNT = 32


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
