"""``DefaultMessageStore.CleanCommitLogService``: messages older than ``fileReservedTime`` (72 h) are deleted in
the 04:00 window, dead letters included.

Mirrors: store/src/main/java/org/apache/rocketmq/store/DefaultMessageStore.java
    (CleanCommitLogService.deleteExpiredFiles, CleanCommitLogService.isTimeToDelete)
"""

from __future__ import annotations

from ..core.scheduler import TimerKind, TimerLabel
from ..core.trace import EventKind
from .default_message_store import BrokerStore

__all__ = [
    "FILE_RESERVED_TIME_MS",
    "CleanCommitLogService",
]

FILE_RESERVED_TIME_MS = 72 * 3_600_000
DELETE_WHEN_HOUR = 4
CLEAN_RESOURCE_INTERVAL_MS = 10_000
DAY_MS = 86_400_000


class CleanCommitLogService(BrokerStore):
    """Retention, mixed into :class:`~rmqlab.broker.broker_controller.Broker`."""


    # ------------------------------------------------------------------ retention
    @staticmethod
    def _next_delete_window(now: int) -> int:
        """Start of the next ``deleteWhen`` hour (04:00; virtual time 0 is midnight of day 0)."""
        start = (now // DAY_MS) * DAY_MS + DELETE_WHEN_HOUR * 3_600_000
        return start if start >= now else start + DAY_MS

    def _clean_commit_log(self) -> None:
        """``CleanCommitLogService``: during the 04:xx hour, every 10 s, delete messages older than 72 h.

        RocketMQ deletes whole 1 GiB files; a lab-sized CommitLog is far smaller, so each message stands for its
        own file. Retry, schedule and DLQ messages are ordinary entries: a DLQ message is *not* kept longer.
        """
        now = self.scheduler.now
        if self.up:
            cutoff = now - FILE_RESERVED_TIME_MS
            log = self.commit_log
            first = log.min_offset
            end = first
            while end < log.max_offset:
                msg = log.get(end)
                if msg is not None and msg.store_timestamp >= cutoff:
                    break
                end += 1
            if end > first:
                topics: dict[str, int] = {}
                for offset in range(first, end):
                    msg = log.get(offset)
                    if msg is not None:
                        topics[msg.topic] = topics.get(msg.topic, 0) + 1
                log.delete_before(end)
                for queue in self.consume_queues.values():
                    while (
                        queue.min_offset < queue.max_offset and queue.entries[queue.min_offset].commit_log_offset < end
                    ):
                        queue.min_offset += 1
                self.trace.record(
                    now,
                    EventKind.RETENTION_DELETED,
                    self.name,
                    None,
                    count=end - first,
                    topics=dict(sorted(topics.items())),
                )
        next_tick = now + CLEAN_RESOURCE_INTERVAL_MS
        if (next_tick % DAY_MS) // 3_600_000 != DELETE_WHEN_HOUR:
            next_tick = self._next_delete_window(next_tick)
        self.scheduler.schedule_at(next_tick, self._clean_commit_log, label=TimerLabel(TimerKind.RETENTION, self.name))
