"""A broker as a view sees it: up or down, its ``RebalanceLockManager`` table, its ``ScheduleMessageService``
levels and its injected faults.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..broker.rebalance_lock_manager import BROKER_LOCK_MAX_LIVE_TIME_MS
from ..common.message import SCHEDULE_TOPIC
from ..common.message_queue import MessageQueue

__all__ = ["BROKER_LEASE_MS", "BrokerSnap", "DelayOffsetSnap", "LockSnap", "ScheduleLevelSnap"]


BROKER_LEASE_MS = BROKER_LOCK_MAX_LIVE_TIME_MS
"""The broker lease (60 s) a :class:`LockSnap` counts down, for views."""


@dataclass(frozen=True, slots=True)
class ScheduleLevelSnap:
    """One delay level's queue in ``SCHEDULE_TOPIC_XXXX`` (queue id = level − 1)."""

    broker: str
    level: int
    delay_ms: int
    pending: int
    dues: tuple[tuple[str, int], ...]
    """(msg id, due ms) of the messages still waiting, in queue order (due = store time + the level's delay)."""
    next_tick_ms: int | None = None
    """When the level's timer next wakes (the head's due time on the service's 100 ms grid); None: not armed."""

    @property
    def mq(self) -> MessageQueue:
        """``SCHEDULE_TOPIC_XXXX@broker:level-1``."""
        return MessageQueue(SCHEDULE_TOPIC, self.broker, self.level - 1)


@dataclass(frozen=True, slots=True)
class DelayOffsetSnap:
    """A broker's ``ScheduleMessageService`` progress: each level's next offset in memory (``offsetTable``) and as
    ``delayOffset.json`` last saved it (``ConfigManager.persist``, every ``flushDelayOffsetInterval``, 10 s; read back
    by ``load()`` at a restart). A level whose live offset is past its saved one delivers again after a crash."""

    live: tuple[tuple[int, int], ...]
    """(level, next offset to deliver) in memory, by level (levels that have delivered or been loaded)."""
    saved: tuple[tuple[int, int], ...]
    """(level, offset) in ``delayOffset.json``, by level; empty before the first write (no file)."""
    written_ms: int | None
    """When the file was last written; None: never."""
    next_write_ms: int | None
    """When the next write comes; None while the broker is down."""
    interval_ms: int = 10_000
    """``flushDelayOffsetInterval``."""


@dataclass(frozen=True, slots=True)
class LockSnap:
    """One broker ``RebalanceLockManager`` entry: who holds an orderly queue, and the lease times."""

    broker: str
    group: str
    queue: str
    client: str
    ms_left: int
    """Milliseconds until ``expires_ms`` (negative once expired)."""
    expired: bool
    """``now − last_update_ms > 60000``: the next client that asks takes it over."""
    renewals: int
    """LOCK_RENEWED events for (group, queue) so far in the trace."""
    acquired_ms: int = 0
    """When ``client`` got this lease (first lock, or take-over of an expired one)."""
    last_update_ms: int = 0
    """The last successful lock or renewal (``LockEntry.lastUpdateTimestamp``)."""
    expires_ms: int = 0
    """``last_update_ms + 60000`` (``rocketmq.broker.rebalance.lockMaxLiveTime``); expired strictly after it."""

    @property
    def mq(self) -> MessageQueue:
        """The locked queue as the engine keys it."""
        return MessageQueue.parse(self.queue)


@dataclass(frozen=True, slots=True)
class BrokerSnap:
    """A broker: up or down, its lock table, its schedule levels and its injected faults."""

    name: str
    up: bool
    locks: tuple[LockSnap, ...]
    schedule: tuple[ScheduleLevelSnap, ...]
    faults: tuple[tuple[str, object], ...]
    members: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Group → client ids the broker knows from heartbeats (what ``findConsumerIdList`` answers), sorted."""
    committed_offsets: tuple[tuple[str, MessageQueue, int], ...] = ()
    """Every (group, queue, offset) in the broker's ``consumerOffset.json``, sorted by group and queue."""
    delay_offsets: DelayOffsetSnap | None = None
    """The schedule service's live and saved (``delayOffset.json``) offsets."""
    retry_queue_nums: tuple[tuple[str, int], ...] = ()
    """Group → its ``SubscriptionGroupConfig.retryQueueNums`` on this broker, for the groups it has a config of, sorted:
    0 means a send-back is answered SUCCESS and stored nowhere, whatever ``%RETRY%`` topic exists."""
