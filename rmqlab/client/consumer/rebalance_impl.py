"""``RebalanceImpl``: which queues this consumer owns, and (orderly) the broker locks on them.

``doRebalance`` asks a broker who is in the group, allocates the topic's queues (``AllocateMessageQueueStrategy``),
drops the queues it lost and starts a ProcessQueue and a pull loop for each new one: after an orderly lock, at the
offset ``computePullFromWhere`` finds. Every question to a broker is a request through remoting, so it can be slow,
lost or refused like any other.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/RebalanceImpl.java
    (RebalanceImpl.doRebalance, RebalanceImpl.rebalanceByTopic, RebalanceImpl.updateProcessQueueTableInRebalance,
    RebalanceImpl.lock, RebalanceImpl.lockAll, RebalanceImpl.unlockAll, RebalanceImpl.unlock)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/RebalancePushImpl.java
    (RebalancePushImpl.removeUnnecessaryMessageQueue, RebalancePushImpl.computePullFromWhere)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/factory/MQClientInstance.java
    (MQClientInstance.findConsumerIdList)
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from ...broker.broker_controller import LockBatchResult
from ...common.consumer_config import ConsumeFromWhere
from ...common.message import RETRY_PREFIX
from ...common.message_queue import MessageQueue
from ...common.util_all import parse_date
from ...core.process import Rpc
from ...core.scheduler import TimerKind
from ...core.trace import EventKind
from ...namesrv.route_info_manager import TopicRouteData
from ...remoting.protocol import (
    GetConsumerListByGroupRequest,
    GetMaxOffsetRequest,
    LockBatchMqRequest,
    SearchOffsetRequest,
    UnlockBatchMqRequest,
)
from .process_queue import ProcessQueue
from .pull_message_service import PullMessageService, PullRequest

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


class RebalanceImpl(PullMessageService):
    """``RebalancePushImpl``, mixed into
    :class:`~rmqlab.client.consumer.default_mq_push_consumer.DefaultMQPushConsumer`."""

    # The consumer's state these methods work on, beyond the pull service's.
    running: bool
    allocate: Callable[[str, str, list[MessageQueue], list[str]], list[MessageQueue]]
    consume_from_where: ConsumeFromWhere
    consume_timestamp: str
    _routes: dict[str, TopicRouteData]

    # ------------------------------------------------------------------ rebalance
    def do_rebalance(self) -> Generator[Any, Any, None]:
        """``RebalanceImpl.doRebalance`` for every subscribed topic (business and retry); only ever run by the
        client's one :class:`~rmqlab.client.consumer.rebalance_service.RebalanceService` thread, so two never overlap.
        Nothing while the consumer is paused (``DefaultMQPushConsumerImpl.doRebalance`` checks ``pause`` first)."""
        if not self.running or self.pause:
            return
        for topic in sorted(self.subscriptions):
            route = self._routes.get(topic) or self.context.namesrv.route(topic)
            if route is None:
                continue
            self._routes[topic] = route
            mq_all = sorted(route.read_queues())
            if self.is_clustering:
                cid_all = yield from self._find_consumer_id_list(route)
                if not cid_all:
                    # A restarted broker knows no consumers until their next heartbeat: the allocation strategy's
                    # check throws on an empty list and rebalanceByTopic keeps the current queues.
                    continue
                allocated = self.allocate(self.consumer_group, self.client_id, mq_all, cid_all)
            else:
                allocated = mq_all
            yield from self._update_process_queue_table(topic, set(allocated))

    def _find_consumer_id_list(self, route: TopicRouteData) -> Generator[Any, Any, list[str] | None]:
        """``findConsumerIdList``: ask one broker of the topic (the first that answers) who is in the group."""
        for q in route.queue_datas:
            if self.context.remoting.reachable(self.client_id, q.broker_name) is None:
                ids, error = yield Rpc(
                    self.client_id, q.broker_name, GetConsumerListByGroupRequest(self.consumer_group), RPC_TIMEOUT_MS
                )
                return None if error is not None else list(ids)
        return None

    def _update_process_queue_table(self, topic: str, allocated: set[MessageQueue]) -> Generator[Any, Any, None]:
        """``updateProcessQueueTableInRebalance``: drop queues we lost, add (and lock) new ones.

        A queue we keep but have not pulled for ``PULL_MAX_IDLE_TIME`` (120 s) is dropped and removed too (4.9.7
        logs it as "[BUG] … because pull is pause, so try to fixed it"); the loop below then re-creates it with a
        fresh ProcessQueue and PullRequest at once. That is how a push consumer recovers a queue whose pull loop
        stopped: for instance an orderly queue dropped while its listener held the consume lock (so it stayed in
        the table, dropped) and then allocated back to this consumer, whose pulls skip a dropped ProcessQueue.
        """
        now = self.context.now
        removed, added = [], []
        for mq in sorted(m for m in self.process_queue_table if m.topic == topic):
            pq = self.process_queue_table[mq]
            if mq not in allocated:
                pq.dropped = True
                if (yield from self._remove_unnecessary_message_queue(mq, pq)):
                    del self.process_queue_table[mq]
                    removed.append(mq)
            elif pq.is_pull_expired(now):
                pq.dropped = True
                if (yield from self._remove_unnecessary_message_queue(mq, pq)):
                    del self.process_queue_table[mq]
                    removed.append(mq)
                    self.context.trace.record(
                        now,
                        EventKind.WARNING,
                        self.actor,
                        None,
                        message=f"[BUG] doRebalance, {self.consumer_group}, remove unnecessary mq, {mq}, because pull "
                        f"is pause (none for {now - pq.last_pull_timestamp} ms), so try to fixed it",
                    )
        new_requests = []
        for mq in sorted(allocated):
            if mq in self.process_queue_table:
                continue
            if self.orderly and self.is_clustering and not (yield from self.lock(mq)):
                continue
            self.offset_store.remove_offset(mq)
            # ``new ProcessQueue()`` comes after the lock's answer and before the offset query: its lastLockTimestamp
            # and lastPullTimestamp are that moment, not the start of this rebalance
            created_ms = self.context.now
            next_offset = yield from self._compute_pull_from_where(mq)
            if next_offset is None or next_offset < 0:  # it threw, or could not tell: "add new mq failed"
                continue
            pq = ProcessQueue(created_ms)
            if self.orderly and self.is_clustering:
                pq.locked, pq.last_lock_timestamp = True, created_ms
            self.process_queue_table[mq] = pq
            new_requests.append(PullRequest(mq, pq, next_offset))
            added.append(mq)
        if removed or added:
            thresholds = self._message_queue_changed()
            owned = sorted(str(m) for m in self.process_queue_table if m.topic == topic)
            self.context.trace.record(
                self.context.now,
                EventKind.REBALANCED,
                self.actor,
                None,
                topic=topic,
                queues=owned,
                added=[str(m) for m in added],
                removed=[str(m) for m in removed],
                **thresholds,
            )
        for request in new_requests:
            self.processes.spawn(self._pull_loop(request))

    def _remove_unnecessary_message_queue(self, mq: MessageQueue, pq: ProcessQueue) -> Generator[Any, Any, bool]:
        """``RebalancePushImpl.removeUnnecessaryMessageQueue``: persist and forget the queue's offset; an orderly
        queue is released at its broker only once its consume lock is had.

        The rebalance waits up to 1 s for a listener holding the consume lock to return (the whole rebalance
        waits with it: one thread). If it does not, the queue stays in the table, dropped, and the next rebalance
        tries again; ``try_unlock_times`` counts the failures.
        """
        self.offset_store.persist(mq)
        self.offset_store.remove_offset(mq)
        if not (self.orderly and self.is_clustering):
            return True
        label = self._label(TimerKind.CONSUME_LOCK_WAIT, mq)
        if (yield from pq.consume_lock.try_acquire(self.processes, CONSUME_LOCK_WAIT_MS, label)):
            try:
                self._unlock_delay(mq, pq)
            finally:
                pq.consume_lock.release()
            return True
        self.context.trace.record(
            self.context.now,
            EventKind.WARNING,
            self.actor,
            None,
            message=f"[WRONG]mq is consuming, so can not unlock it, {mq}. maybe hanged for a while, "
            f"{pq.try_unlock_times}",
        )
        pq.try_unlock_times += 1
        return False

    def _unlock_delay(self, mq: MessageQueue, pq: ProcessQueue) -> None:
        """``unlockDelay``: messages still cached → unlock 20 s later, so their in-flight work can drain."""
        if pq.has_temp_message():
            self.schedule(UNLOCK_DELAY_TIME_MILLS, TimerKind.UNLOCK_DELAYED, self._unlock, mq, queue=mq)
        else:
            self._unlock(mq)

    def _compute_pull_from_where(self, mq: MessageQueue) -> Generator[Any, Any, int | None]:
        """``computePullFromWhereWithException`` for the three supported starting points.

        −1: could not tell (the offset query failed: ``readOffset`` −2 gives −1, no exception); ``None``: it threw
        (the broker's max offset, or its offset for the timestamp, could not be had). Rebalance skips the queue
        either way; an orderly queue's first pull tells them apart (``DefaultMQPushConsumerImpl.pullMessage``).
        A queue with no committed offset starts at: 0 (FIRST_OFFSET, or a ``%RETRY%`` queue under LAST_OFFSET), the
        max offset (LAST_OFFSET, or a ``%RETRY%`` queue under TIMESTAMP), or the broker's answer for
        ``consume_timestamp`` (TIMESTAMP: ``searchOffset``, see ``get_offset_in_queue_by_time``).
        """
        last = yield from self.offset_store.read_offset_from_store(mq)
        if last >= 0:
            return last
        if last == -2:
            return -1
        where, retry = self.consume_from_where, mq.topic.startswith(RETRY_PREFIX)
        if where is ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET or (
            retry and where is ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET
        ):
            return 0
        if where is ConsumeFromWhere.CONSUME_FROM_TIMESTAMP and not retry:
            timestamp = parse_date(self.consume_timestamp)
            assert timestamp is not None  # checked when the consumer was made
            request: object = SearchOffsetRequest(mq.topic, mq.queue_id, timestamp)
        else:
            request = GetMaxOffsetRequest(mq.topic, mq.queue_id)
        offset, error = yield Rpc(self.client_id, mq.broker_name, request, MQ_ADMIN_TIMEOUT_MS)
        return None if error is not None else int(offset)

    # ------------------------------------------------------------------ orderly broker locks
    def lock(self, mq: MessageQueue) -> Generator[Any, Any, bool]:
        """``RebalanceImpl.lock``: lock one queue at its broker; mirror success in the ProcessQueue."""
        asked_ms = self.context.now
        result = yield from self._lock_batch(mq.broker_name, (mq,), "lock")
        if result is None:
            return False
        now = self.context.now
        if mq in result.locked:
            pq = self.process_queue_table.get(mq)
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
        self.context.trace.record(
            self.context.now, kind, self.actor, None, queue=str(mq), group=self.consumer_group, asked_ms=asked_ms
        )

    def _record_refused(self, mq: MessageQueue, result: LockBatchResult) -> None:
        """The broker answered but did not lock ``mq`` for us: someone else's lease is still live."""
        self.context.trace.record(
            self.context.now,
            EventKind.LOCK_REFUSED,
            self.actor,
            None,
            queue=str(mq),
            group=self.consumer_group,
            holder=result.holders.get(mq),
        )

    def _lock_batch(
        self, broker_name: str, mqs: tuple[MessageQueue, ...], via: str
    ) -> Generator[Any, Any, LockBatchResult | None]:
        """``lockBatchMQ`` at one broker (1 s timeout); ``None`` when the request failed.

        Each request is a LOCK_BATCH event when its answer (or failure) comes: what was asked, granted and refused.
        """
        asked_ms = self.context.now
        request = LockBatchMqRequest(self.consumer_group, self.client_id, mqs)
        result, error = yield Rpc(self.client_id, broker_name, request, LOCK_BATCH_TIMEOUT_MS)
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
        self.context.trace.record(
            self.context.now, EventKind.LOCK_BATCH, self.actor, None, broker=broker_name, group=self.consumer_group,
            via=via, queues=queues, asked_ms=asked_ms, **outcome,
        )  # fmt: skip
        if error is None:
            return locked
        self._log_batch_exception("lockBatchMQ", mqs, error, "not locked")
        return None

    def _log_batch_exception(self, call: str, mqs: tuple[MessageQueue, ...], error: Any, consequence: str) -> None:
        """4.9.7's ``log.error("<call> exception, " + mqs, e)`` for a failed lock or unlock request, as a WARNING."""
        queues = ", ".join(str(mq) for mq in mqs)
        self.context.trace.record(
            self.context.now, EventKind.WARNING, self.actor, None,
            message=f"{call} exception, {queues}: {error.name}; {consequence}",
        )  # fmt: skip

    def _queues_by_broker(self) -> list[tuple[str, tuple[MessageQueue, ...]]]:
        """``buildProcessQueueTableByBrokerName``: the table's queues grouped by broker (both sorted, so every run
        asks the brokers in the same order)."""
        table = self.process_queue_table
        return [
            (name, tuple(sorted(mq for mq in table if mq.broker_name == name)))
            for name in sorted({mq.broker_name for mq in table})
        ]

    def lock_all(self) -> Generator[Any, Any, None]:
        """``lockAll``: renew every orderly queue's lock; queues the broker refuses become unlocked."""
        for broker_name, mqs in self._queues_by_broker():
            asked_ms = self.context.now
            result = yield from self._lock_batch(broker_name, mqs, "lockAll")
            if result is None:
                continue
            now = self.context.now
            for mq in mqs:
                pq = self.process_queue_table.get(mq)
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
        for broker_name, mqs in self._queues_by_broker():
            request = UnlockBatchMqRequest(self.consumer_group, self.client_id, mqs)
            _, error = yield Rpc(self.client_id, broker_name, request, LOCK_BATCH_TIMEOUT_MS)
            if error is not None:
                self._log_batch_exception("unlockBatchMQ", mqs, error, "still marked locked")
                continue
            for mq in mqs:
                pq = self.process_queue_table.get(mq)
                if pq is not None:
                    pq.locked = False

    def _unlock(self, mq: MessageQueue) -> None:
        """``unlock(mq, oneway=true)``: the release is traced at the broker, where it takes effect."""
        self.context.remoting.invoke_oneway(
            self.client_id, mq.broker_name, UnlockBatchMqRequest(self.consumer_group, self.client_id, (mq,))
        )
