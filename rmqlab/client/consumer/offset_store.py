"""Consumer offset stores: broker-side in CLUSTERING, a local file in BROADCASTING.

Either way the consumer keeps offsets **in memory** and persists them every 5 s (first after 10 s),
on rebalance removal and on a clean shutdown. A crash loses whatever was not persisted yet, so the
restarted consumer replays those messages: at-least-once, never at-most-once.

Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/store/OffsetStore.java
    (OffsetStore)
Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/store/RemoteBrokerOffsetStore.java
    (RemoteBrokerOffsetStore.updateOffset, RemoteBrokerOffsetStore.readOffset, RemoteBrokerOffsetStore.persistAll,
    RemoteBrokerOffsetStore.removeOffset)
Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/store/LocalFileOffsetStore.java
    (LocalFileOffsetStore.persistAll, LocalFileOffsetStore.readOffset)
"""

from __future__ import annotations

from collections.abc import Container, Generator
from typing import TYPE_CHECKING, Any, Protocol

from ...common.message_queue import MessageQueue
from ...core.process import Rpc
from ...core.trace import EventKind
from ...remoting.exceptions import MQBrokerException
from ...remoting.protocol import QueryConsumerOffsetRequest, UpdateConsumerOffsetRequest

if TYPE_CHECKING:
    from ...core.context import Context

__all__ = ["LocalFileOffsetStore", "OffsetStore", "RemoteBrokerOffsetStore"]

QUERY_OFFSET_TIMEOUT_MS = 5_000
"""``RemoteBrokerOffsetStore.fetchConsumeOffsetFromBroker``: ``queryConsumerOffset(…, 1000 * 5)`` in 4.9.7."""


class OffsetStoreOwner(Protocol):
    """What an offset store knows of its consumer (``DefaultMQPushConsumer`` is one): who it is, and its context
    (the clock, the trace, the network and the machine's local offset files). Written here, so ``offset_store``
    imports nothing of ``consumer``."""

    context: Context
    actor: str
    client_id: str
    consumer_group: str


class OffsetStore:
    """In-memory offset table shared by both stores; subclasses decide where ``persist`` writes."""

    def __init__(self, consumer: OffsetStoreOwner) -> None:
        self.consumer = consumer
        self.offset_table: dict[MessageQueue, int] = {}
        """``offsetTable``: 4.9.7's ``ConcurrentMap<MessageQueue, AtomicLong>``, a hash map. Here a plain dict, in
        insertion order (never in hash order, so the same seed gives the same trace); :meth:`persist_all` walks it
        in queue order (topic, broker, queue id)."""

    def update_offset(self, mq: MessageQueue, offset: int, increase_only: bool) -> bool:
        """``updateOffset``: concurrent consumers only move forward; orderly ones overwrite. ``True`` if the offset in
        memory changed (an OFFSET_UPDATED event)."""
        old = self.offset_table.get(mq)
        if old is not None and increase_only and offset <= old:
            return False
        if old == offset:
            return False
        self.offset_table[mq] = offset
        context = self.consumer.context
        context.trace.offset_updated(context.now, self.consumer.actor, mq=mq, offset=offset, previous=old)
        return True

    def read_memory(self, mq: MessageQueue) -> int:
        offset: int = self.offset_table.get(mq, -1)
        return offset

    def remove_offset(self, mq: MessageQueue) -> None:
        self.offset_table.pop(mq, None)

    def read_offset_from_store(self, mq: MessageQueue) -> Generator[Any, Any, int]:
        """READ_FROM_STORE: the stored offset (cached in memory); −1 when there is none, −2 when asking failed.

        A generator, used as ``offset = yield from store.read_offset_from_store(mq)`` inside a process: asking the
        broker is a request that may wait or fail like any other.
        """
        raise NotImplementedError

    def persist(self, mq: MessageQueue) -> None:
        """``persist(mq)``: write the offset in memory for ``mq``, if there is one."""
        offset = self.offset_table.get(mq)
        if offset is not None:
            self.persist_offset(mq, offset)

    def persist_offset(self, mq: MessageQueue, offset: int) -> None:
        """Write ``offset`` for ``mq`` where this store keeps offsets (the broker, or the local offsets file)."""
        raise NotImplementedError

    def persist_all(self, mqs: Container[MessageQueue]) -> None:
        """``persistAll(mqs)``: persist every queue still assigned (``mqs``: the ProcessQueue table); forget cached
        queues that are no longer ours (``unusedMQ``), after the walk, as 4.9.7 does. Each entry's offset is sent as
        the walk finds it, as 4.9.7 walks ``offsetTable.entrySet()``; the walk goes in queue order (topic, broker,
        queue id), where ConcurrentHashMap's order is its own, so the trace of a run does not depend on hashes."""
        unused = []
        for mq in sorted(self.offset_table):
            if mq in mqs:
                self.persist_offset(mq, self.offset_table[mq])
            else:
                unused.append(mq)
        for mq in unused:
            del self.offset_table[mq]


class RemoteBrokerOffsetStore(OffsetStore):
    """CLUSTERING: the broker owns the group's offsets (``consumerOffset.json``)."""

    def __init__(self, consumer: OffsetStoreOwner) -> None:
        super().__init__(consumer)
        self._failing: set[MessageQueue] = set()
        """Queues whose last offset update could not be sent (traced once until one gets through)."""

    def persist_offset(self, mq: MessageQueue, offset: int) -> None:
        """``updateConsumeOffsetToBroker(mq, offset, oneway=true)``: a request lost in a partition is only logged,
        and the next ``persistAll`` (5 s later) sends the offset again."""
        consumer = self.consumer
        request = UpdateConsumerOffsetRequest(
            group=consumer.consumer_group, client=consumer.actor, topic=mq.topic, queue_id=mq.queue_id, offset=offset
        )
        error = consumer.context.remoting.invoke_oneway(consumer.client_id, mq.broker_name, request)
        if error is None:
            if self._failing:  # most rounds nothing failed before: no set to look in
                self._failing.discard(mq)
        elif mq not in self._failing:  # 4.9.7 logs every failed round; the trace tells the first of a run
            self._failing.add(mq)
            consumer.context.trace.record(
                consumer.context.now,
                EventKind.WARNING,
                consumer.actor,
                None,
                # the Java's own log line (persistAll: log.error("updateConsumeOffsetToBroker exception, " + mq, e)),
                # with the offset and the error; what happens next is the narration's to say, in the reader's language
                message=f"updateConsumeOffsetToBroker exception, {mq} offset {offset}: {error.name}",
            )

    def read_offset_from_store(self, mq: MessageQueue) -> Generator[Any, Any, int]:
        """READ_FROM_STORE: ``QUERY_CONSUMER_OFFSET`` at the queue's broker; −1 when it has none, −2 on an error.

        Any error *answer* (``MQBrokerException``, QUERY_NOT_FOUND or another code) is −1, "no offset in broker";
        only a request that got no answer (timeout, connect failure) is −2.
        """
        consumer = self.consumer
        request = QueryConsumerOffsetRequest(consumer.consumer_group, mq.topic, mq.queue_id)
        offset, error = yield Rpc(consumer.client_id, mq.broker_name, request, QUERY_OFFSET_TIMEOUT_MS)
        if isinstance(error, MQBrokerException):
            return -1
        if error is not None:
            return -2
        if offset >= 0:
            self.offset_table[mq] = offset
        return int(offset)


class LocalFileOffsetStore(OffsetStore):
    """BROADCASTING: every instance keeps its own offsets file (``~/.rocketmq_offsets/<clientId>/<group>``)."""

    def persist_offset(self, mq: MessageQueue, offset: int) -> None:
        """Write ``offset`` into this instance's offsets file (``LocalFileOffsetStore.persistAll`` writes the file)."""
        consumer = self.consumer
        files = consumer.context.local_offset_files.setdefault((consumer.client_id, consumer.consumer_group), {})
        if files.get(mq) != offset:
            files[mq] = offset
            consumer.context.trace.record(
                consumer.context.now,
                EventKind.OFFSET_PERSISTED,
                consumer.actor,
                None,
                queue=str(mq),
                offset=offset,
                store="local",
            )

    def read_offset_from_store(self, mq: MessageQueue) -> Generator[Any, Any, int]:
        """READ_FROM_STORE: the local offsets file (no request, so nothing to wait for)."""
        consumer = self.consumer
        files = consumer.context.local_offset_files.get((consumer.client_id, consumer.consumer_group), {})
        offset = files.get(mq, -1)
        if offset >= 0:
            self.offset_table[mq] = offset
        return offset
        yield  # a generator like the remote store's
