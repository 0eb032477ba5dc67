"""``RebalanceImpl``: which queues this consumer owns, and (orderly) the broker locks on them.

``doRebalance`` asks a broker who is in the group, allocates the topic's queues (``AllocateMessageQueueStrategy``),
drops the queues it lost and starts a ProcessQueue and a pull loop for each new one: after an orderly lock, at the
offset ``computePullFromWhere`` finds. Every question to a broker is a request through remoting, so it can be slow,
lost or refused like any other. As in 4.9.7 the class is abstract: how a queue is given up and where a new one
starts are the push consumer's (:mod:`rmqlab.client.consumer.rebalance_push_impl`), and the consumer's impl holds a
``RebalancePushImpl``, which holds the impl back (``defaultMQPushConsumerImpl``).

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/RebalanceImpl.java
    (RebalanceImpl.doRebalance, RebalanceImpl.rebalanceByTopic, RebalanceImpl.updateProcessQueueTableInRebalance,
    RebalanceImpl.lock, RebalanceImpl.lockAll, RebalanceImpl.unlockAll, RebalanceImpl.unlock)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/factory/MQClientInstance.java
    (MQClientInstance.findConsumerIdList)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ...common.message_queue import MessageQueue
from ...core.process import Rpc
from ...core.trace import EventKind
from ...namesrv.route_info_manager import TopicRouteData
from ...remoting.protocol import (
    GetConsumerListByGroupRequest,
    LockBatchMqRequest,
    LockBatchResult,
    UnlockBatchMqRequest,
)
from .process_queue import ProcessQueue
from .pull_message_service import PullRequest
from .rebalance_consumer import RebalanceConsumer

if TYPE_CHECKING:
    pass

__all__ = ["RebalanceImpl"]

RPC_TIMEOUT_MS = 3_000
"""``ClientConfig.mqClientApiTimeout``: heartbeats and consumer lists (3 s)."""
MQ_ADMIN_TIMEOUT_MS = 6_000
"""``MQAdminImpl.timeoutMillis``: ``maxOffset`` and ``searchOffset`` (6 s; nothing in 4.9.7 sets it otherwise)."""
LOCK_BATCH_TIMEOUT_MS = 1_000
"""``lock`` / ``lockAll``: ``lockBatchMQ(addr, body, 1000)``; ``unlockAll``: ``unlockBatchMQ(addr, body, 1000, …)``."""
UNLOCK_DELAY_TIME_MILLS = 20_000
"""``RebalancePushImpl.unlockDelay``: a removed orderly queue with messages still cached is unlocked 20 s later."""
CONSUME_LOCK_WAIT_MS = 1_000
"""``removeUnnecessaryMessageQueue``: ``pq.getConsumeLock().tryLock(1000, TimeUnit.MILLISECONDS)``."""


class RebalanceImpl(ABC):
    """``RebalanceImpl``: which queues the consumer owns (``doRebalance``) and, for orderly consumers, the broker
    locks on them; :class:`~rmqlab.client.consumer.rebalance_push_impl.RebalancePushImpl` is the push consumer's."""

    def __init__(self, impl: RebalanceConsumer) -> None:
        self.default_mq_push_consumer_impl = impl
        self.default_mq_push_consumer = impl.default_mq_push_consumer
        """The public consumer: group, subscription, allocation strategy, where to start from."""

    @abstractmethod
    def remove_unnecessary_message_queue(self, mq: MessageQueue, pq: ProcessQueue) -> Generator[Any, Any, bool]:
        """``removeUnnecessaryMessageQueue``: give up ``mq``; ``False`` if it cannot be given up yet."""

    @abstractmethod
    def compute_pull_from_where(self, mq: MessageQueue) -> Generator[Any, Any, int | None]:
        """``computePullFromWhereWithException``: where a new queue's pulls start (−1: cannot tell, ``None``: threw)."""

    # ------------------------------------------------------------------ rebalance
    def do_rebalance(self) -> Generator[Any, Any, None]:
        """``RebalanceImpl.doRebalance`` for every subscribed topic (business and retry); only ever run by the
        client's one :class:`~rmqlab.client.consumer.rebalance_service.RebalanceService` thread, so two never overlap.
        Nothing while the consumer is paused (``DefaultMQPushConsumerImpl.doRebalance`` checks ``pause`` first)."""
        impl, consumer = self.default_mq_push_consumer_impl, self.default_mq_push_consumer
        if not impl.running or impl.pause:
            return
        for topic in sorted(consumer.subscriptions):
            route = impl.topic_route_table.get(topic) or consumer.context.namesrv.route(topic)
            if route is None:
                continue
            impl.topic_route_table[topic] = route
            mq_all = sorted(route.read_queues())
            if consumer.is_clustering:
                cid_all = yield from self._find_consumer_id_list(route)
                if not cid_all:
                    # A restarted broker knows no consumers until their next heartbeat: the allocation strategy's
                    # check throws on an empty list and rebalanceByTopic keeps the current queues.
                    continue
                allocated = consumer.allocate(consumer.consumer_group, consumer.client_id, mq_all, cid_all)
            else:
                allocated = mq_all
            yield from self._update_process_queue_table(topic, allocated)

    def _find_consumer_id_list(self, route: TopicRouteData) -> Generator[Any, Any, list[str] | None]:
        """``findConsumerIdList``: ask one broker of the topic (the first that answers) who is in the group."""
        consumer = self.default_mq_push_consumer
        for q in route.queue_datas:
            if consumer.context.remoting.reachable(consumer.client_id, q.broker_name) is None:
                request = GetConsumerListByGroupRequest(consumer.consumer_group)
                ids, error = yield Rpc(consumer.client_id, q.broker_name, request, RPC_TIMEOUT_MS)
                return None if error is not None else list(ids)
        return None

    def _update_process_queue_table(self, topic: str, allocated: list[MessageQueue]) -> Generator[Any, Any, None]:
        """``updateProcessQueueTableInRebalance``: drop queues we lost, add (and lock) new ones.

        ``allocated`` is the strategy's list (``mqSet``): both averaging strategies pick from the sorted ``mqAll`` in
        its order, so walking it sorted costs no real sort (a set would have to be sorted afresh every 20 s).

        A queue we keep but have not pulled for ``PULL_MAX_IDLE_TIME`` (120 s) is dropped and removed too (4.9.7
        logs it as "[BUG] … because pull is pause, so try to fixed it"); the loop below then re-creates it with a
        fresh ProcessQueue and PullRequest at once. That is how a push consumer recovers a queue whose pull loop
        stopped: for instance an orderly queue dropped while its listener held the consume lock (so it stayed in
        the table, dropped) and then allocated back to this consumer, whose pulls skip a dropped ProcessQueue.
        """
        impl, consumer = self.default_mq_push_consumer_impl, self.default_mq_push_consumer
        now = consumer.context.now
        mq_set = set(allocated)
        removed, added = [], []
        for mq in sorted(m for m in impl.process_queue_table if m.topic == topic):
            pq = impl.process_queue_table[mq]
            if mq not in mq_set:
                pq.dropped = True
                if (yield from self.remove_unnecessary_message_queue(mq, pq)):
                    del impl.process_queue_table[mq]
                    removed.append(mq)
            elif pq.is_pull_expired(now):
                pq.dropped = True
                if (yield from self.remove_unnecessary_message_queue(mq, pq)):
                    del impl.process_queue_table[mq]
                    removed.append(mq)
                    consumer.context.trace.record(
                        now,
                        EventKind.WARNING,
                        consumer.actor,
                        None,
                        message=f"[BUG] doRebalance, {consumer.consumer_group}, remove unnecessary mq, {mq}, because "
                        f"pull is pause (none for {now - pq.last_pull_timestamp} ms), so try to fixed it",
                    )
        new_requests = []
        for mq in sorted(allocated):
            if mq in impl.process_queue_table:
                continue
            if impl.consume_orderly and consumer.is_clustering and not (yield from self.lock(mq)):
                continue
            impl.offset_store.remove_offset(mq)
            # ``new ProcessQueue()`` comes after the lock's answer and before the offset query: its lastLockTimestamp
            # and lastPullTimestamp are that moment, not the start of this rebalance
            created_ms = consumer.context.now
            next_offset = yield from self.compute_pull_from_where(mq)
            if next_offset is None or next_offset < 0:  # it threw, or could not tell: "add new mq failed"
                continue
            pq = ProcessQueue(created_ms)
            if impl.consume_orderly and consumer.is_clustering:
                pq.locked, pq.last_lock_timestamp = True, created_ms
            impl.process_queue_table[mq] = pq
            new_requests.append(PullRequest(mq, pq, next_offset))
            added.append(mq)
        if removed or added:
            thresholds = impl.flow_control.message_queue_changed()
            owned = sorted(str(m) for m in impl.process_queue_table if m.topic == topic)
            consumer.context.trace.record(
                consumer.context.now,
                EventKind.REBALANCED,
                consumer.actor,
                None,
                topic=topic,
                queues=owned,
                added=[str(m) for m in added],
                removed=[str(m) for m in removed],
                **thresholds,
            )
        for request in new_requests:
            impl.processes.spawn(impl.pull_message_service.pull_loop(request))

    # ------------------------------------------------------------------ orderly broker locks
    def lock(self, mq: MessageQueue) -> Generator[Any, Any, bool]:
        """``RebalanceImpl.lock``: lock one queue at its broker; mirror success in the ProcessQueue."""
        impl, consumer = self.default_mq_push_consumer_impl, self.default_mq_push_consumer
        asked_ms = consumer.context.now
        result = yield from self._lock_batch(mq.broker_name, (mq,), "lock")
        if result is None:
            return False
        now = consumer.context.now
        if mq in result.locked:
            pq = impl.process_queue_table.get(mq)
            if pq is not None:
                pq.locked, pq.last_lock_timestamp = True, now
            self._record_locked(EventKind.LOCK_ACQUIRED, mq, asked_ms)
            return True
        self._record_refused(mq, result)
        return False

    def _record_locked(self, kind: EventKind, mq: MessageQueue, asked_ms: int) -> None:
        """LOCK_ACQUIRED or LOCK_RENEWED when the answer arrives; ``asked_ms`` is when the request left, the
        earliest moment the broker can have started the lease (its 60 s count from its own clock, which the
        client never learns: ``LockBatchResponseBody`` carries only the locked set)."""
        consumer = self.default_mq_push_consumer
        consumer.context.trace.record(
            consumer.context.now, kind, consumer.actor, None, queue=str(mq), group=consumer.consumer_group,
            asked_ms=asked_ms,
        )  # fmt: skip

    def _record_refused(self, mq: MessageQueue, result: LockBatchResult) -> None:
        """The broker answered but did not lock ``mq`` for us: someone else's lease is still live."""
        consumer = self.default_mq_push_consumer
        consumer.context.trace.record(
            consumer.context.now,
            EventKind.LOCK_REFUSED,
            consumer.actor,
            None,
            queue=str(mq),
            group=consumer.consumer_group,
            holder=result.holders.get(mq),
        )

    def _lock_batch(
        self, broker_name: str, mqs: tuple[MessageQueue, ...], via: str
    ) -> Generator[Any, Any, LockBatchResult | None]:
        """``lockBatchMQ`` at one broker (1 s timeout); ``None`` when the request failed.

        Each request is a LOCK_BATCH event when its answer (or failure) comes: what was asked, granted and refused.
        """
        consumer = self.default_mq_push_consumer
        asked_ms = consumer.context.now
        request = LockBatchMqRequest(consumer.consumer_group, consumer.client_id, mqs)
        result, error = yield Rpc(consumer.client_id, broker_name, request, LOCK_BATCH_TIMEOUT_MS)
        queues = [str(mq) for mq in mqs]
        outcome: dict[str, Any]
        if error is None:
            locked: LockBatchResult = result
            refused = [mq for mq in mqs if mq not in locked.locked]
            outcome = {
                "locked": [str(mq) for mq in mqs if mq in locked.locked],
                "refused": [str(mq) for mq in refused],
                "holders": {str(mq): locked.holders.get(mq) for mq in refused},
            }
        else:
            outcome = {"error": error.name}
        consumer.context.trace.record(
            consumer.context.now, EventKind.LOCK_BATCH, consumer.actor, None, broker=broker_name,
            group=consumer.consumer_group, via=via, queues=queues, asked_ms=asked_ms, **outcome,
        )  # fmt: skip
        if error is None:
            return locked
        self._log_batch_exception("lockBatchMQ", mqs, error, "not locked")
        return None

    def _log_batch_exception(self, call: str, mqs: tuple[MessageQueue, ...], error: Any, consequence: str) -> None:
        """4.9.7's ``log.error("<call> exception, " + mqs, e)`` for a failed lock or unlock request, as a WARNING."""
        consumer = self.default_mq_push_consumer
        queues = ", ".join(str(mq) for mq in mqs)
        consumer.context.trace.record(
            consumer.context.now, EventKind.WARNING, consumer.actor, None,
            message=f"{call} exception, {queues}: {error.name}; {consequence}",
        )  # fmt: skip

    def _queues_by_broker(self) -> list[tuple[str, tuple[MessageQueue, ...]]]:
        """``buildProcessQueueTableByBrokerName``: the table's queues grouped by broker (both sorted, so every run
        asks the brokers in the same order)."""
        impl = self.default_mq_push_consumer_impl
        table = impl.process_queue_table
        return [
            (name, tuple(sorted(mq for mq in table if mq.broker_name == name)))
            for name in sorted({mq.broker_name for mq in table})
        ]

    def lock_all(self) -> Generator[Any, Any, None]:
        """``lockAll``: renew every orderly queue's lock; queues the broker refuses become unlocked."""
        impl, consumer = self.default_mq_push_consumer_impl, self.default_mq_push_consumer
        for broker_name, mqs in self._queues_by_broker():
            asked_ms = consumer.context.now
            result = yield from self._lock_batch(broker_name, mqs, "lockAll")
            if result is None:
                continue
            now = consumer.context.now
            for mq in mqs:
                pq = impl.process_queue_table.get(mq)
                if pq is None:
                    continue
                if mq in result.locked:
                    was = pq.locked
                    pq.locked, pq.last_lock_timestamp = True, now
                    self._record_locked(EventKind.LOCK_RENEWED if was else EventKind.LOCK_ACQUIRED, mq, asked_ms)
                elif pq.locked:
                    pq.locked = False
                    self._record_refused(mq, result)

    def unlock_all(self) -> Generator[Any, Any, None]:
        """``unlockAll(oneway=false)``, the last step of ``ConsumeMessageOrderlyService.shutdown`` (before offsets
        are persisted): one UNLOCK_BATCH_MQ per broker with every queue of the table, each answer awaited (1 s at
        most) before the next broker is asked. A broker's SUCCESS marks its ProcessQueues unlocked; an error or no
        answer in time is only logged in 4.9.7, so they stay marked locked. The release is traced at the broker."""
        impl, consumer = self.default_mq_push_consumer_impl, self.default_mq_push_consumer
        for broker_name, mqs in self._queues_by_broker():
            request = UnlockBatchMqRequest(consumer.consumer_group, consumer.client_id, mqs)
            _, error = yield Rpc(consumer.client_id, broker_name, request, LOCK_BATCH_TIMEOUT_MS)
            if error is not None:
                self._log_batch_exception("unlockBatchMQ", mqs, error, "still marked locked")
                continue
            for mq in mqs:
                pq = impl.process_queue_table.get(mq)
                if pq is not None:
                    pq.locked = False

    def unlock(self, mq: MessageQueue) -> None:
        """``unlock(mq, oneway=true)``: the release is traced at the broker, where it takes effect."""
        consumer = self.default_mq_push_consumer
        consumer.context.remoting.invoke_oneway(
            consumer.client_id, mq.broker_name, UnlockBatchMqRequest(consumer.consumer_group, consumer.client_id, (mq,))
        )
