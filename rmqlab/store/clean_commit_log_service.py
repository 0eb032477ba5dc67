"""``DefaultMessageStore.CleanCommitLogService``: messages older than ``fileReservedTime`` (72 h) are deleted in
the 04:00 window, dead letters included; the file being written (here: the newest message) is kept.

Mirrors: store/src/main/java/org/apache/rocketmq/store/DefaultMessageStore.java
    (CleanCommitLogService.deleteExpiredFiles, CleanCommitLogService.isTimeToDelete)
Mirrors: store/src/main/java/org/apache/rocketmq/store/MappedFileQueue.java
    (MappedFileQueue.deleteExpiredFileByTime)
"""

from __future__ import annotations

from typing import Protocol

from ..core.scheduler import Scheduler, TimerKind, TimerLabel
from ..core.trace import EventKind, Trace
from .commit_log import CommitLog, ConsumeQueue

__all__ = [
    "DAY_MS",
    "DELETE_WHEN_HOUR",
    "FILE_RESERVED_TIME_MS",
    "CleanCommitLogService",
]

FILE_RESERVED_TIME_MS = 72 * 3_600_000
DELETE_WHEN_HOUR = 4
CLEAN_RESOURCE_INTERVAL_MS = 10_000
DAY_MS = 86_400_000


class MessageStore(Protocol):
    """What the service reads of its ``DefaultMessageStore`` (:class:`~rmqlab.store.default_message_store.
    DefaultMessageStore` is one; written here, as the store builds this service)."""

    name: str
    scheduler: Scheduler
    trace: Trace
    commit_log: CommitLog
    consume_queues: dict[tuple[str, int], ConsumeQueue]
    running: bool


class CleanCommitLogService:
    """Retention: the store's ``cleanCommitLogService``, run by the store's scheduled task every 10 s."""

    def __init__(self, store: MessageStore) -> None:
        self.store = store

    def start(self) -> None:
        """The first run: the next 04:00 window."""
        store = self.store
        store.scheduler.schedule_at(
            self._next_delete_window(store.scheduler.now),
            self._clean_commit_log,
            label=TimerLabel(TimerKind.RETENTION, store.name),
        )

    @staticmethod
    def _next_delete_window(now: int) -> int:
        """Start of the next ``deleteWhen`` hour (04:00; virtual time 0 is midnight of day 0)."""
        start = (now // DAY_MS) * DAY_MS + DELETE_WHEN_HOUR * 3_600_000
        return start if start >= now else start + DAY_MS

    def _clean_commit_log(self) -> None:
        """``CleanCommitLogService``: during the 04:xx hour, every 10 s, delete messages at least 72 h old.

        RocketMQ deletes whole 1 GiB files; a lab-sized CommitLog is far smaller, so each message stands for its
        own file. Retry, schedule and DLQ messages are ordinary entries: a DLQ message is *not* kept longer.

        The newest entry stands for the file being written, which is never deleted by age: 4.9.7's
        ``MappedFileQueue.deleteExpiredFileByTime`` stops one short of the last file (``int mfsLength = mfs.length
        - 1; for (int i = 0; i < mfsLength; i++)``, MappedFileQueue.java l. 359-363), so a quiet broker keeps its
        last message. A file goes once ``System.currentTimeMillis() >= liveMaxTimestamp`` (l. 365-366): stored at
        the cutoff or before.
        """
        store = self.store
        now = store.scheduler.now
        if store.running:
            cutoff = now - FILE_RESERVED_TIME_MS
            log = store.commit_log
            first = log.min_offset
            end = first
            while end < log.max_offset - 1:  # the newest entry: the file being written
                msg = log.get(end)
                if msg is not None and msg.store_timestamp > cutoff:
                    break
                end += 1
            if end > first:
                topics: dict[str, int] = {}
                for offset in range(first, end):
                    msg = log.get(offset)
                    if msg is not None:
                        topics[msg.topic] = topics.get(msg.topic, 0) + 1
                log.delete_before(end)
                for queue in store.consume_queues.values():
                    while (
                        queue.min_offset < queue.max_offset and queue.entries[queue.min_offset].commit_log_offset < end
                    ):
                        queue.min_offset += 1
                store.trace.record(
                    now,
                    EventKind.RETENTION_DELETED,
                    store.name,
                    None,
                    count=end - first,
                    topics=dict(sorted(topics.items())),
                )
        next_tick = now + CLEAN_RESOURCE_INTERVAL_MS
        if (next_tick % DAY_MS) // 3_600_000 != DELETE_WHEN_HOUR:
            next_tick = self._next_delete_window(next_tick)
        store.scheduler.schedule_at(
            next_tick, self._clean_commit_log, label=TimerLabel(TimerKind.RETENTION, store.name)
        )
