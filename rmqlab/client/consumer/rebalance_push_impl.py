"""``RebalancePushImpl``: the push consumer's rebalance — how it gives a queue up and where a new queue starts.

4.9.7's ``RebalanceImpl`` leaves three steps to its subclass; the push consumer's are here: before a lost queue is
forgotten its offset is persisted and (orderly) its broker lock released, once no listener holds the queue's consume
lock (``removeUnnecessaryMessageQueue``, ``unlockDelay``); a new queue starts at the committed offset, or where
``consumeFromWhere`` says (``computePullFromWhereWithException``); the per-queue pull thresholds follow the number of
queues held (``messageQueueChanged``, in :class:`~rmqlab.client.consumer.flow_control.FlowControl`).

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/RebalancePushImpl.java
    (RebalancePushImpl.removeUnnecessaryMessageQueue, RebalancePushImpl.unlockDelay,
    RebalancePushImpl.computePullFromWhereWithException)
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ...common.consumer_config import ConsumeFromWhere
from ...common.message import RETRY_PREFIX
from ...common.message_queue import MessageQueue
from ...common.util_all import parse_date
from ...core.process import Rpc
from ...core.scheduler import TimerKind
from ...core.trace import EventKind
from ...remoting.protocol import GetMaxOffsetRequest, SearchOffsetRequest
from .process_queue import ProcessQueue
from .rebalance_impl import RebalanceImpl

__all__ = ["RebalancePushImpl"]

MQ_ADMIN_TIMEOUT_MS = 6_000
"""``MQAdminImpl.timeoutMillis``: ``maxOffset`` and ``searchOffset`` (6 s; nothing in 4.9.7 sets it otherwise)."""
UNLOCK_DELAY_TIME_MILLS = 20_000
"""``RebalancePushImpl.unlockDelay``: a removed orderly queue with messages still cached is unlocked 20 s later."""
CONSUME_LOCK_WAIT_MS = 1_000
"""``removeUnnecessaryMessageQueue``: ``pq.getConsumeLock().tryLock(1000, TimeUnit.MILLISECONDS)``."""


class RebalancePushImpl(RebalanceImpl):
    """The push consumer's ``RebalanceImpl``; the consumer's impl holds one."""

    def remove_unnecessary_message_queue(self, mq: MessageQueue, pq: ProcessQueue) -> Generator[Any, Any, bool]:
        """``RebalancePushImpl.removeUnnecessaryMessageQueue``: persist and forget the queue's offset; an orderly
        queue is released at its broker only once its consume lock is had.

        The rebalance waits up to 1 s for a listener holding the consume lock to return (the whole rebalance
        waits with it: one thread). If it does not, the queue stays in the table, dropped, and the next rebalance
        tries again; ``try_unlock_times`` counts the failures.
        """
        impl, consumer = self.default_mq_push_consumer_impl, self.default_mq_push_consumer
        impl.offset_store.persist(mq)
        impl.offset_store.remove_offset(mq)
        if not (impl.consume_orderly and consumer.is_clustering):
            return True
        label = impl._label(TimerKind.CONSUME_LOCK_WAIT, mq)
        if (yield from pq.consume_lock.try_acquire(impl.processes, CONSUME_LOCK_WAIT_MS, label)):
            try:
                self._unlock_delay(mq, pq)
            finally:
                pq.consume_lock.release()
            return True
        consumer.context.trace.record(
            consumer.context.now,
            EventKind.WARNING,
            consumer.actor,
            None,
            message=f"[WRONG]mq is consuming, so can not unlock it, {mq}. maybe hanged for a while, "
            f"{pq.try_unlock_times}",
        )
        pq.try_unlock_times += 1
        return False

    def _unlock_delay(self, mq: MessageQueue, pq: ProcessQueue) -> None:
        """``unlockDelay``: messages still cached → unlock 20 s later, so their in-flight work can drain."""
        impl = self.default_mq_push_consumer_impl
        if pq.has_temp_message():
            impl.schedule(UNLOCK_DELAY_TIME_MILLS, TimerKind.UNLOCK_DELAYED, self.unlock, mq, queue=mq)
        else:
            self.unlock(mq)

    def compute_pull_from_where(self, mq: MessageQueue) -> Generator[Any, Any, int | None]:
        """``computePullFromWhereWithException`` for the three supported starting points.

        −1: could not tell (the offset query failed: ``readOffset`` −2 gives −1, no exception); ``None``: it threw
        (the broker's max offset, or its offset for the timestamp, could not be had). Rebalance skips the queue
        either way; an orderly queue's first pull tells them apart (``DefaultMQPushConsumerImpl.pullMessage``).
        A queue with no committed offset starts at: 0 (FIRST_OFFSET, or a ``%RETRY%`` queue under LAST_OFFSET), the
        max offset (LAST_OFFSET, or a ``%RETRY%`` queue under TIMESTAMP), or the broker's answer for
        ``consume_timestamp`` (TIMESTAMP: ``searchOffset``, see ``get_offset_in_queue_by_time``).
        """
        impl, consumer = self.default_mq_push_consumer_impl, self.default_mq_push_consumer
        last = yield from impl.offset_store.read_offset_from_store(mq)
        if last >= 0:
            return last
        if last == -2:
            return -1
        where, retry = consumer.consume_from_where, mq.topic.startswith(RETRY_PREFIX)
        if where is ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET or (
            retry and where is ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET
        ):
            return 0
        if where is ConsumeFromWhere.CONSUME_FROM_TIMESTAMP and not retry:
            timestamp = parse_date(consumer.consume_timestamp)
            assert timestamp is not None  # checked when the consumer was made
            request: object = SearchOffsetRequest(mq.topic, mq.queue_id, timestamp)
        else:
            request = GetMaxOffsetRequest(mq.topic, mq.queue_id)
        offset, error = yield Rpc(consumer.client_id, mq.broker_name, request, MQ_ADMIN_TIMEOUT_MS)
        return None if error is not None else int(offset)
