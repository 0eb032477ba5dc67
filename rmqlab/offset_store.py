"""Consumer offset stores: broker-side in CLUSTERING, a local file in BROADCASTING.

Either way the consumer keeps offsets **in memory** and persists them every 5 s (first after 10 s),
on rebalance removal and on a clean shutdown. A crash loses whatever was not persisted yet, so the
restarted consumer replays those messages: at-least-once, never at-most-once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .queue import MessageQueue
from .trace import EventKind

if TYPE_CHECKING:
    from .consumer import DefaultMQPushConsumer

__all__ = ["LocalFileOffsetStore", "OffsetStore", "RemoteBrokerOffsetStore"]


class OffsetStore:
    """In-memory offset table shared by both stores; subclasses decide where ``persist`` writes."""

    def __init__(self, consumer: DefaultMQPushConsumer) -> None:
        self.consumer = consumer
        self.offset_table: dict[MessageQueue, int] = {}

    def update_offset(self, mq: MessageQueue, offset: int, increase_only: bool) -> None:
        """``updateOffset``: concurrent consumers only move forward; orderly ones overwrite."""
        old = self.offset_table.get(mq)
        if old is not None and increase_only and offset <= old:
            return
        if old == offset:
            return
        self.offset_table[mq] = offset
        trace = self.consumer.lab.trace
        trace.record(
            self.consumer.lab.scheduler.now,
            EventKind.OFFSET_UPDATED,
            self.consumer.actor,
            None,
            queue=str(mq),
            offset=offset,
            previous=old,
        )

    def read_memory(self, mq: MessageQueue) -> int:
        return self.offset_table.get(mq, -1)

    def remove_offset(self, mq: MessageQueue) -> None:
        self.offset_table.pop(mq, None)

    def read_offset_from_store(self, mq: MessageQueue, done: Callable[[int], None]) -> None:
        raise NotImplementedError

    def persist(self, mq: MessageQueue) -> None:
        raise NotImplementedError

    def persist_all(self, mqs: Iterable[MessageQueue]) -> None:
        """Persist every queue still assigned; forget cached queues that are no longer ours."""
        keep = set(mqs)
        for mq in sorted(self.offset_table):
            if mq in keep:
                self.persist(mq)
        for mq in [m for m in self.offset_table if m not in keep]:
            del self.offset_table[mq]


class RemoteBrokerOffsetStore(OffsetStore):
    """CLUSTERING: the broker owns the group's offsets (``consumerOffset.json``)."""

    def persist(self, mq: MessageQueue) -> None:
        offset = self.offset_table.get(mq)
        if offset is None:
            return
        consumer = self.consumer
        if consumer.lab.remoting.reachable(consumer.client_id, mq.broker_name) is not None:
            return  # oneway update: a failure is only logged
        broker = consumer.lab.brokers[mq.broker_name]
        broker.commit_offset(consumer.consumer_group, mq.topic, mq.queue_id, offset, consumer.actor)

    def read_offset_from_store(self, mq: MessageQueue, done: Callable[[int], None]) -> None:
        """READ_FROM_STORE: ask the broker; −1 when it has none, −2 on a remoting error."""
        consumer = self.consumer
        if consumer.lab.remoting.reachable(consumer.client_id, mq.broker_name) is not None:
            done(-2)
            return
        broker = consumer.lab.brokers[mq.broker_name]
        offset = broker.query_consumer_offset(consumer.consumer_group, mq.topic, mq.queue_id)
        if offset >= 0:
            self.offset_table[mq] = offset
        done(offset)


class LocalFileOffsetStore(OffsetStore):
    """BROADCASTING: every instance keeps its own offsets file (``~/.rocketmq_offsets/<clientId>/<group>``)."""

    def persist(self, mq: MessageQueue) -> None:
        offset = self.offset_table.get(mq)
        if offset is None:
            return
        consumer = self.consumer
        files = consumer.lab.local_offset_files.setdefault((consumer.client_id, consumer.consumer_group), {})
        if files.get(mq) != offset:
            files[mq] = offset
            consumer.lab.trace.record(
                consumer.lab.now,
                EventKind.OFFSET_PERSISTED,
                consumer.actor,
                None,
                queue=str(mq),
                offset=offset,
                store="local",
            )

    def read_offset_from_store(self, mq: MessageQueue, done: Callable[[int], None]) -> None:
        consumer = self.consumer
        files = consumer.lab.local_offset_files.get((consumer.client_id, consumer.consumer_group), {})
        offset = files.get(mq, -1)
        if offset >= 0:
            self.offset_table[mq] = offset
        done(offset)
