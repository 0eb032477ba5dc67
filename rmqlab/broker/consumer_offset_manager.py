"""``ConsumerOffsetManager``: the offsets consumer groups committed to one broker.

A CLUSTERING consumer commits its offsets here (``UPDATE_CONSUMER_OFFSET`` every 5 s, and piggybacked on each pull);
the broker overwrites what it had, even with a smaller offset. A change is an OFFSET_PERSISTED event.

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/offset/ConsumerOffsetManager.java
    (ConsumerOffsetManager.commitOffset, ConsumerOffsetManager.offsetTable)
"""

from __future__ import annotations

from ..common.message_queue import MessageQueue
from ..core.scheduler import Scheduler
from ..core.trace import EventKind, Trace

__all__ = ["ConsumerOffsetManager"]


class ConsumerOffsetManager:
    """The offset table of one broker: (group, topic, queue id) → the committed offset."""

    def __init__(self, broker_name: str, scheduler: Scheduler, trace: Trace) -> None:
        self.broker_name = broker_name
        self.scheduler = scheduler
        self.trace = trace
        self.consumer_offsets: dict[tuple[str, str, int], int] = {}
        """``offsetTable``."""

    def commit_offset(self, group: str, topic: str, queue_id: int, offset: int, actor: str = "") -> None:
        """``commitOffset`` (the broker overwrites); a change is traced under ``actor`` (the committing client)."""
        key = (group, topic, queue_id)
        if self.consumer_offsets.get(key) != offset:
            self.consumer_offsets[key] = offset
            self.trace.record(
                self.scheduler.now,
                EventKind.OFFSET_PERSISTED,
                actor or self.broker_name,
                None,
                queue=str(MessageQueue(topic, self.broker_name, queue_id)),
                offset=offset,
                group=group,
                store="broker",
            )
