"""The broker's ``RebalanceLockManager``: which client holds which orderly queue.

An orderly consumer may only consume a queue it has locked at the broker. The lock is a lease:
an entry is *expired* once ``now - last_update > 60000`` ms (``rocketmq.broker.rebalance.lockMaxLiveTime``)
— 60 s on the broker, while the client stops trusting its own copy after 30 s and renews every 20 s.
An expired entry, even someone else's, is simply taken over by the next client that asks.

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/client/rebalance/RebalanceLockManager.java
    (RebalanceLockManager.tryLockBatch, RebalanceLockManager.unlockBatch, LockEntry.isExpired)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..common.message_queue import MessageQueue

__all__ = ["BROKER_LOCK_MAX_LIVE_TIME_MS", "LockEntry", "RebalanceLockManager"]

BROKER_LOCK_MAX_LIVE_TIME_MS = 60_000


@dataclass(slots=True)
class LockEntry:
    """Who holds a queue, and when they last renewed it."""

    client_id: str
    last_update_timestamp: int
    acquired_timestamp: int
    """When ``client_id`` got the entry: its first lock, or its take-over of an expired one (for views)."""


class RebalanceLockManager:
    """group → (queue → :class:`LockEntry`), with RocketMQ's take-over-if-expired rule."""

    def __init__(self, now: Callable[[], int], max_live_time_ms: int = BROKER_LOCK_MAX_LIVE_TIME_MS):
        self._now = now
        self.max_live_time_ms = max_live_time_ms
        self.table: dict[str, dict[MessageQueue, LockEntry]] = {}

    def is_expired(self, entry: LockEntry) -> bool:
        """``LockEntry.isExpired``: strictly more than the max live time since the last renewal."""
        return self._now() - entry.last_update_timestamp > self.max_live_time_ms

    def try_lock_batch(
        self, group: str, mqs: Iterable[MessageQueue], client_id: str
    ) -> tuple[set[MessageQueue], list[tuple[MessageQueue, str]]]:
        """``tryLockBatch``: returns (queues now locked by ``client_id``, [(queue, previous holder)] taken over)."""
        now = self._now()
        locked: set[MessageQueue] = set()
        taken_over: list[tuple[MessageQueue, str]] = []
        groups = self.table.setdefault(group, {})
        for mq in mqs:
            entry = groups.get(mq)
            if entry is None:
                groups[mq] = LockEntry(client_id, now, now)
                locked.add(mq)
            elif entry.client_id == client_id:
                entry.last_update_timestamp = now
                locked.add(mq)
            elif self.is_expired(entry):
                taken_over.append((mq, entry.client_id))
                entry.client_id = client_id
                entry.last_update_timestamp = now
                entry.acquired_timestamp = now
                locked.add(mq)
        return locked, taken_over

    def unlock_batch(self, group: str, mqs: Iterable[MessageQueue], client_id: str) -> set[MessageQueue]:
        """``unlockBatch``: remove entries owned by ``client_id``; others' entries are left alone."""
        groups = self.table.get(group, {})
        released = set()
        for mq in mqs:
            entry = groups.get(mq)
            if entry is not None and entry.client_id == client_id:
                del groups[mq]
                released.add(mq)
        return released

    def holder(self, group: str, mq: MessageQueue) -> tuple[str, int] | None:
        """(client id, ms left before expiry) of the live holder, or ``None`` (for views)."""
        entry = self.table.get(group, {}).get(mq)
        if entry is None or self.is_expired(entry):
            return None
        return entry.client_id, entry.last_update_timestamp + self.max_live_time_ms - self._now()
