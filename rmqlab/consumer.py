"""``DefaultMQPushConsumer``: subscription, rebalance, the pull loop, offsets and lifecycle.

What happens to a pulled message is up to the consume service (concurrent or orderly, see
``consume_concurrently.py`` and ``consume_orderly.py``). This module is the plumbing both share:
``RebalanceImpl`` (who owns which queue), ``PullMessageService`` (fetching into ProcessQueues),
the offset store timers, heartbeats, and what a crash loses.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .broker import LockBatchResult, PullResult, PullStatus
from .errors import ConfigError
from .message import RETRY_PREFIX, retry_topic
from .namesrv import TopicRouteData
from .offset_store import LocalFileOffsetStore, OffsetStore, RemoteBrokerOffsetStore
from .process import ProcessGroup, Rpc, Sleep
from .process_queue import ProcessQueue
from .producer import DefaultMQProducer
from .protocol import (
    GetConsumerListByGroupRequest,
    GetMaxOffsetRequest,
    HeartbeatRequest,
    LockBatchMqRequest,
    NotifyConsumerIdsChangedRequest,
    PullMessageRequest,
    UnlockBatchMqRequest,
    UnregisterClientRequest,
)
from .queue import MessageQueue
from .rebalance import allocate_averagely, allocate_averagely_by_circle
from .remoting import ResponseExpiredException
from .scheduler import TimerKind, TimerLabel
from .trace import EventKind
from .validation import check_choice, check_int

if TYPE_CHECKING:
    from .lab import Lab

__all__ = ["ConsumeFromWhere", "DefaultMQPushConsumer", "MessageModel"]

REBALANCE_INTERVAL_MS = 20_000
PERSIST_CONSUMER_OFFSET_INTERVAL_MS = 5_000
HEARTBEAT_INTERVAL_MS = 30_000
POLL_NAME_SERVER_INTERVAL_MS = 30_000
PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION = 1_000
PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL = 50
CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND = 30_000
RPC_TIMEOUT_MS = 3_000
"""``ClientConfig.mqClientApiTimeout``: heartbeats, consumer lists and max offsets (3 s)."""
LOCK_BATCH_TIMEOUT_MS = 1_000
"""``RebalanceImpl.lock`` / ``lockAll``: ``lockBatchMQ(addr, body, 1000)``."""
OFFSET_ILLEGAL_FIXUP_DELAY_MS = 10_000
UNLOCK_DELAY_TIME_MILLS = 20_000

STRATEGIES = {"AVG": allocate_averagely, "AVG_BY_CIRCLE": allocate_averagely_by_circle}


class MessageModel(StrEnum):
    CLUSTERING = "CLUSTERING"
    """Each message goes to one consumer of the group; failures are retried via ``%RETRY%<group>``."""
    BROADCASTING = "BROADCASTING"
    """Every consumer gets every message; failed messages are dropped, never retried."""


class ConsumeFromWhere(StrEnum):
    CONSUME_FROM_LAST_OFFSET = "CONSUME_FROM_LAST_OFFSET"
    CONSUME_FROM_FIRST_OFFSET = "CONSUME_FROM_FIRST_OFFSET"


@dataclass(slots=True)
class PullRequest:
    """One queue's pull cursor."""

    mq: MessageQueue
    pq: ProcessQueue
    next_offset: int
    previously_locked: bool = False


class DefaultMQPushConsumer:
    """A push consumer instance; its ``client_id`` is its name (sorted as a string in rebalance)."""

    def __init__(
        self,
        lab: Lab,
        consumer_group: str,
        *,
        name: str | None = None,
        message_model: MessageModel | str = MessageModel.CLUSTERING,
        consume_from_where: ConsumeFromWhere | str = ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
        consume_message_batch_max_size: int = 1,
        pull_batch_size: int = 32,
        max_reconsume_times: int = -1,
        consume_timeout: int = 15,
        suspend_current_queue_time_millis: int = 1000,
        consume_thread_min: int = 20,
        pull_threshold_for_queue: int = 1000,
        consume_concurrently_max_span: int = 2000,
        allocate_message_queue_strategy: str = "AVG",
    ) -> None:
        if not isinstance(consumer_group, str) or not consumer_group or consumer_group.startswith("%"):
            raise ConfigError("consumer_group", consumer_group, "a non-empty name not starting with '%'")
        self.lab = lab
        self.consumer_group = consumer_group
        self.client_id = name or f"{consumer_group}-{len(lab.consumers) + 1}"
        self.actor = f"consumer:{self.client_id}"
        """How the trace names this consumer."""
        self.message_model = check_choice("message_model", message_model, MessageModel)
        self.consume_from_where = check_choice("consume_from_where", consume_from_where, ConsumeFromWhere)
        self.consume_message_batch_max_size = check_int(
            "consume_message_batch_max_size", consume_message_batch_max_size, 1, 1024
        )
        self.pull_batch_size = check_int("pull_batch_size", pull_batch_size, 1, 1024)
        self.max_reconsume_times = check_int("max_reconsume_times", max_reconsume_times, -1, 2**31 - 1)
        self.consume_timeout = check_int("consume_timeout", consume_timeout, 1, 10**6)
        """Minutes, as in RocketMQ (``consumeTimeout = 15``)."""
        self.suspend_current_queue_time_millis = check_int(
            "suspend_current_queue_time_millis", suspend_current_queue_time_millis, -(2**63), 2**63 - 1
        )
        """Any Java long, as ``setSuspendCurrentQueueTimeMillis`` takes it: 10..30000 ms is applied where it is used
        (``ConsumeMessageOrderlyService.submitConsumeRequestLater``), so 0 means 10 ms and 60 000 means 30 s."""
        self.consume_thread_min = check_int("consume_thread_min", consume_thread_min, 1, 1000)
        self.pull_threshold_for_queue = check_int("pull_threshold_for_queue", pull_threshold_for_queue, 1, 65535)
        self.consume_concurrently_max_span = check_int(
            "consume_concurrently_max_span", consume_concurrently_max_span, 1, 65535
        )
        if allocate_message_queue_strategy not in STRATEGIES:
            raise ConfigError(
                "allocate_message_queue_strategy", allocate_message_queue_strategy, "one of " + ", ".join(STRATEGIES)
            )
        self.allocate = STRATEGIES[allocate_message_queue_strategy]
        self.subscriptions: dict[str, frozenset[str] | None] = {}
        self.listener: Callable[..., Any] | None = None
        self.orderly = False
        self.running = False
        self.stop_reason: str | None = None
        """How the last incarnation ended: ``"crash"`` or ``"shutdown"`` (``None``: never stopped, or running)."""
        self.generation = 0
        """How many times this instance started (for listeners that behave differently after a restart)."""
        self.processes = ProcessGroup(lab.scheduler, lab.remoting, self.actor)
        """This incarnation's threads and scheduled tasks; a crash kills them all."""
        self._rebalancing = False
        """A rebalance is running (waiting on a request); another one asked for meanwhile sets ``_rebalance_again``."""
        self._rebalance_again = False
        self.process_queue_table: dict[MessageQueue, ProcessQueue] = {}
        self._routes: dict[str, TopicRouteData] = {}
        self.offset_store: OffsetStore = self._new_offset_store()
        self.consume_service: Any = None
        self.inner_producer: DefaultMQProducer | None = None
        self.in_listener = False
        """True while this consumer's listener is being called (``run_listener``)."""
        self.crash_requested = False
        """The listener called ``crash()``: ``run_listener`` crashes the consumer once the call returns."""

    # ------------------------------------------------------------------ configuration
    @property
    def is_clustering(self) -> bool:
        return self.message_model is MessageModel.CLUSTERING

    def _new_offset_store(self) -> OffsetStore:
        return RemoteBrokerOffsetStore(self) if self.is_clustering else LocalFileOffsetStore(self)

    def subscribe(self, topic: str, sub_expression: str = "*") -> None:
        """Subscribe to ``topic`` with ``"*"`` or a tag expression like ``"TagA || TagB"``."""
        if not isinstance(topic, str) or not topic:
            raise ConfigError("topic", topic, "a non-empty topic name")
        if not isinstance(sub_expression, str) or not sub_expression.strip():
            raise ConfigError("sub_expression", sub_expression, "'*' or tags joined by '||'")
        expr = sub_expression.strip()
        tags = None if expr == "*" else frozenset(t.strip() for t in expr.split("||") if t.strip())
        self.subscriptions[topic] = tags

    def register_message_listener(self, listener: Callable[..., Any]) -> None:
        """A ``MessageListenerConcurrently``: ``listener(msgs, ConsumeConcurrentlyContext)``."""
        if not callable(listener):
            raise ConfigError("listener", listener, "a callable listener(msgs, context)")
        self.listener, self.orderly = listener, False

    def register_message_listener_orderly(self, listener: Callable[..., Any]) -> None:
        """A ``MessageListenerOrderly``: ``listener(msgs, ConsumeOrderlyContext)``."""
        if not callable(listener):
            raise ConfigError("listener", listener, "a callable listener(msgs, context)")
        self.listener, self.orderly = listener, True

    def effective_max_reconsume_times(self) -> int:
        """−1 means 16 for concurrent consumers and ``Integer.MAX_VALUE`` for orderly ones."""
        if self.max_reconsume_times != -1:
            return self.max_reconsume_times
        return 2**31 - 1 if self.orderly else 16

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """``DefaultMQPushConsumerImpl.start``: copy subscriptions, heartbeat, rebalance, start timers."""
        from .consume_concurrently import ConsumeMessageConcurrentlyService
        from .consume_orderly import ConsumeMessageOrderlyService

        if self.running:
            raise ConfigError("start", self.client_id, "a consumer that is not already running")
        if self.listener is None:
            raise ConfigError("listener", None, "a registered listener before start()")
        if not self.subscriptions:
            raise ConfigError("subscriptions", {}, "at least one subscribe(topic) before start()")
        for topic in self.subscriptions:
            if (
                not topic.startswith(RETRY_PREFIX)
                and self.lab.namesrv.route(topic) is None
                and topic not in self.lab.namesrv.topics()
            ):
                raise ConfigError("topic", topic, "a topic created with lab.create_topic(...)")
        if self.is_clustering:
            self.subscriptions.setdefault(retry_topic(self.consumer_group), None)
        self.running = True
        self.stop_reason = None
        self.crash_requested = False
        self.generation += 1
        self.processes = ProcessGroup(self.lab.scheduler, self.lab.remoting, self.actor)
        self._rebalancing = self._rebalance_again = False
        self.lab.remoting.register_client(self.client_id, self._on_broker_request)
        self.process_queue_table = {}
        self.offset_store = self._new_offset_store()
        if self.inner_producer is None:
            self.inner_producer = DefaultMQProducer(self.lab, "CLIENT_INNER_PRODUCER", name=f"{self.client_id}/inner")
        service = ConsumeMessageOrderlyService if self.orderly else ConsumeMessageConcurrentlyService
        self.consume_service = service(self)
        self.lab.trace.record(
            self.lab.now,
            EventKind.LIFECYCLE,
            self.actor,
            None,
            event="start",
            group=self.consumer_group,
            mode="orderly" if self.orderly else "concurrently",
            message_model=self.message_model.value,
        )
        self._update_routes()
        self.processes.spawn(self._start_up())
        self.processes.spawn(self._rebalance_service())
        self.processes.spawn(self._persist_service())
        self.processes.spawn(self._heartbeat_service())
        self.processes.spawn(self._route_service())
        self.consume_service.start()

    def shutdown(self) -> None:
        """A clean stop: persist offsets, release orderly locks, leave the group (others rebalance)."""
        if not self.running:
            return
        self.consume_service.shutdown()
        for pq in self.process_queue_table.values():
            pq.dropped = True
        self.offset_store.persist_all(self.process_queue_table)
        if self.orderly and self.is_clustering:
            for mq in sorted(self.process_queue_table):
                self._unlock(mq)
        self._stop("shutdown")
        for broker_name in self._broker_names():
            self.lab.remoting.invoke_oneway(
                self.client_id, broker_name, UnregisterClientRequest(self.client_id, self.consumer_group)
            )

    def crash(self) -> None:
        """Kill the process: nothing is persisted, locks stay at the broker until they expire.

        Called from this consumer's own listener, the crash happens when the listener call returns (a thread
        cannot tear down the generator it runs in); nothing of that call's result is processed.
        """
        if not self.running:
            return
        if self.in_listener:
            self.crash_requested = True
            return
        self.consume_service.kill()
        self._stop("crash")
        self.lab.remoting.client_closed(self.client_id, self.consumer_group)

    def _stop(self, how: str) -> None:
        self.running = False
        self.stop_reason = how
        self.processes.kill_all()
        for pq in self.process_queue_table.values():
            pq.dropped = True
        self.lab.trace.record(self.lab.now, EventKind.LIFECYCLE, self.actor, None, event=how, group=self.consumer_group)

    def _label(self, kind: TimerKind, queue: MessageQueue | None = None, msg_ids: tuple[str, ...] = ()) -> TimerLabel:
        """What a wait of this consumer stands for, for views (``lab.snapshot().timers``)."""
        return TimerLabel(kind, self.actor, queue, msg_ids)

    def schedule(
        self,
        delay_ms: int,
        kind: TimerKind,
        action: Callable[..., Any],
        *args: Any,
        queue: MessageQueue | None = None,
        msg_ids: tuple[str, ...] = (),
    ) -> None:
        """Run ``action(*args)`` after ``delay_ms`` on this client's scheduled executor (gone with a crash)."""
        self.processes.schedule(delay_ms, self._label(kind, queue, msg_ids), action, *args)

    # ------------------------------------------------------------------ periodic services
    def _start_up(self) -> Generator[Any, Any, None]:
        """``start()``'s last steps: ``sendHeartbeatToAllBrokerWithLock``, then ``rebalanceImmediately``."""
        yield from self._send_heartbeat()
        yield from self.do_rebalance()

    def _rebalance_service(self) -> Generator[Any, Any, None]:
        """``RebalanceService``: ``doRebalance`` every 20 s."""
        while True:
            yield Sleep(REBALANCE_INTERVAL_MS, self._label(TimerKind.REBALANCE))
            yield from self.do_rebalance()

    def _persist_service(self) -> Generator[Any, Any, None]:
        """``persistAllConsumerOffset``: first after 10 s, then every 5 s."""
        yield Sleep(10_000, self._label(TimerKind.PERSIST_OFFSET))
        while True:
            self.offset_store.persist_all(self.process_queue_table)
            yield Sleep(PERSIST_CONSUMER_OFFSET_INTERVAL_MS, self._label(TimerKind.PERSIST_OFFSET))

    def _heartbeat_service(self) -> Generator[Any, Any, None]:
        """``sendHeartbeatToAllBrokerWithLock`` every 30 s."""
        while True:
            yield Sleep(HEARTBEAT_INTERVAL_MS, self._label(TimerKind.HEARTBEAT))
            yield from self._send_heartbeat()

    def _route_service(self) -> Generator[Any, Any, None]:
        """``updateTopicRouteInfoFromNameServer`` every 30 s."""
        while True:
            yield Sleep(POLL_NAME_SERVER_INTERVAL_MS, self._label(TimerKind.ROUTE_POLL))
            self._update_routes()

    def _update_routes(self) -> None:
        for topic in self.subscriptions:
            route = self.lab.namesrv.route(topic)
            if route is not None:
                self._routes[topic] = route

    def _broker_names(self) -> list[str]:
        """Every broker of every subscribed topic's route, by name."""
        return sorted({q.broker_name for r in self._routes.values() for q in r.queue_datas})

    def _send_heartbeat(self) -> Generator[Any, Any, None]:
        """Heartbeat every broker of every subscribed topic's route, one after the other (a failure is logged)."""
        request = HeartbeatRequest(self.client_id, self.consumer_group, self.is_clustering)
        for name in self._broker_names():
            yield Rpc(self.client_id, name, request, RPC_TIMEOUT_MS)
        if self.is_clustering:
            self._update_routes()

    def _on_broker_request(self, broker_name: str, request: object) -> None:
        """``ClientRemotingProcessor``: a broker-initiated request."""
        if isinstance(request, NotifyConsumerIdsChangedRequest):
            self.notify_consumer_ids_changed(broker_name)

    def notify_consumer_ids_changed(self, broker_name: str) -> None:
        """The broker says the group changed: rebalance right away (``rebalanceImmediately``)."""
        if self.running:
            self.processes.spawn(self._rebalance_now())

    def _rebalance_now(self) -> Generator[Any, Any, None]:
        yield Sleep(0, self._label(TimerKind.REBALANCE))
        yield from self.do_rebalance()

    # ------------------------------------------------------------------ rebalance
    def do_rebalance(self) -> Generator[Any, Any, None]:
        """``RebalanceService``'s one thread: one ``doRebalance`` at a time.

        Java runs every rebalance on a single thread. Here the 20 s round, a broker's notification and start-up are
        separate processes, and with slow responses a rebalance waits on its requests; a rebalance asked for while
        one runs is done once that one has finished, so two never build ProcessQueues for the same queue.
        """
        if self._rebalancing:
            self._rebalance_again = True
            return
        self._rebalancing = True
        try:
            while True:
                self._rebalance_again = False
                yield from self._do_rebalance()
                if not self._rebalance_again:
                    return
        finally:
            self._rebalancing = False

    def _do_rebalance(self) -> Generator[Any, Any, None]:
        """``RebalanceImpl.doRebalance`` for every subscribed topic (business and retry)."""
        if not self.running:
            return
        for topic in sorted(self.subscriptions):
            route = self._routes.get(topic) or self.lab.namesrv.route(topic)
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
            if self.lab.remoting.reachable(self.client_id, q.broker_name) is None:
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
        now = self.lab.now
        removed, added = [], []
        for mq in sorted(m for m in self.process_queue_table if m.topic == topic):
            pq = self.process_queue_table[mq]
            if mq not in allocated:
                pq.dropped = True
                if self._remove_unnecessary_message_queue(mq, pq):
                    del self.process_queue_table[mq]
                    removed.append(mq)
            elif pq.is_pull_expired(now):
                pq.dropped = True
                if self._remove_unnecessary_message_queue(mq, pq):
                    del self.process_queue_table[mq]
                    removed.append(mq)
                    self.lab.trace.record(
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
            next_offset = yield from self._compute_pull_from_where(mq)
            if next_offset < 0:
                continue
            pq = ProcessQueue(now)
            if self.orderly and self.is_clustering:
                pq.locked, pq.last_lock_timestamp = True, now
            self.process_queue_table[mq] = pq
            new_requests.append(PullRequest(mq, pq, next_offset))
            added.append(mq)
        if removed or added:
            owned = sorted(str(m) for m in self.process_queue_table if m.topic == topic)
            self.lab.trace.record(
                now,
                EventKind.REBALANCED,
                self.actor,
                None,
                topic=topic,
                queues=owned,
                added=[str(m) for m in added],
                removed=[str(m) for m in removed],
            )
        for request in new_requests:
            self.processes.spawn(self._pull_loop(request))

    def _remove_unnecessary_message_queue(self, mq: MessageQueue, pq: ProcessQueue) -> bool:
        """Persist the queue's offset; an orderly queue mid-listener is kept until the next rebalance."""
        self.offset_store.persist(mq)
        self.offset_store.remove_offset(mq)
        if self.orderly and self.is_clustering:
            if pq.consume_lock_holder is not None:
                pq.try_unlock_times += 1
                return False
            if pq.has_temp_message():
                self.schedule(UNLOCK_DELAY_TIME_MILLS, TimerKind.UNLOCK_DELAYED, self._unlock, mq, queue=mq)
            else:
                self._unlock(mq)
        return True

    def _compute_pull_from_where(self, mq: MessageQueue) -> Generator[Any, Any, int]:
        """``computePullFromWhereWithException`` for the two supported starting points (−1: could not tell)."""
        last = yield from self.offset_store.read_offset_from_store(mq)
        if last >= 0:
            return last
        if last == -2:
            return -1
        if self.consume_from_where is ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET or mq.topic.startswith(RETRY_PREFIX):
            return 0
        max_offset, error = yield Rpc(
            self.client_id, mq.broker_name, GetMaxOffsetRequest(mq.topic, mq.queue_id), RPC_TIMEOUT_MS
        )
        return -1 if error is not None else int(max_offset)

    # ------------------------------------------------------------------ orderly broker locks
    def lock(self, mq: MessageQueue) -> Generator[Any, Any, bool]:
        """``RebalanceImpl.lock``: lock one queue at its broker; mirror success in the ProcessQueue."""
        result = yield from self._lock_batch(mq.broker_name, (mq,))
        if result is None:
            return False
        now = self.lab.now
        if mq in result.locked:
            pq = self.process_queue_table.get(mq)
            if pq is not None:
                pq.locked, pq.last_lock_timestamp = True, now
            self.lab.trace.record(
                now, EventKind.LOCK_ACQUIRED, self.actor, None, queue=str(mq), group=self.consumer_group
            )
            return True
        self.lab.trace.record(
            now,
            EventKind.LOCK_REFUSED,
            self.actor,
            None,
            queue=str(mq),
            group=self.consumer_group,
            holder=result.holders.get(mq),
        )
        return False

    def _lock_batch(
        self, broker_name: str, mqs: tuple[MessageQueue, ...]
    ) -> Generator[Any, Any, LockBatchResult | None]:
        """``lockBatchMQ`` at one broker (3 s timeout); ``None`` when the request failed."""
        request = LockBatchMqRequest(self.consumer_group, self.client_id, mqs)
        result, error = yield Rpc(self.client_id, broker_name, request, LOCK_BATCH_TIMEOUT_MS)
        if error is None:
            return result
        queues = ", ".join(str(mq) for mq in mqs)
        self.lab.trace.record(
            self.lab.now,
            EventKind.WARNING,
            self.actor,
            None,
            message=f"lockBatchMQ exception, {queues}: {error.name} ({getattr(error, 'reason', '')}); not locked",
        )
        return None

    def lock_all(self) -> Generator[Any, Any, None]:
        """``lockAll``: renew every orderly queue's lock; queues the broker refuses become unlocked."""
        for broker_name in sorted({mq.broker_name for mq in self.process_queue_table}):
            mqs = tuple(sorted(mq for mq in self.process_queue_table if mq.broker_name == broker_name))
            result = yield from self._lock_batch(broker_name, mqs)
            if result is None:
                continue
            now = self.lab.now
            for mq in mqs:
                pq = self.process_queue_table.get(mq)
                if pq is None:
                    continue
                if mq in result.locked:
                    was = pq.locked
                    pq.locked, pq.last_lock_timestamp = True, now
                    kind = EventKind.LOCK_RENEWED if was else EventKind.LOCK_ACQUIRED
                    self.lab.trace.record(now, kind, self.actor, None, queue=str(mq), group=self.consumer_group)
                elif pq.locked:
                    pq.locked = False
                    self.lab.trace.record(
                        now,
                        EventKind.LOCK_REFUSED,
                        self.actor,
                        None,
                        queue=str(mq),
                        group=self.consumer_group,
                        holder=result.holders.get(mq),
                    )

    def _unlock(self, mq: MessageQueue) -> None:
        """``unlock(mq, oneway=true)``: the release is traced at the broker, where it takes effect."""
        self.lab.remoting.invoke_oneway(
            self.client_id, mq.broker_name, UnlockBatchMqRequest(self.consumer_group, self.client_id, (mq,))
        )

    # ------------------------------------------------------------------ pulling
    def _pull_loop(self, request: PullRequest) -> Generator[Any, Any, None]:
        """``PullMessageService`` for one queue: ``pullMessage``, wait for the answer, hand the messages to the
        consume service, and go again, until the ProcessQueue is dropped (or the consumer dies with its processes).

        Every round starts with a hand-off (``executePullRequestImmediately``): the pull runs after the work already
        queued for this millisecond. A pull error waits 1 s (``PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION``), flow control
        50 ms.
        """
        pq, mq = request.pq, request.mq
        delay, kind = 0, TimerKind.PULL
        while True:
            yield Sleep(delay, self._label(kind, mq))
            if pq.dropped:
                return
            delay, kind = PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION, TimerKind.PULL_LATER
            now = self.lab.now
            pq.last_pull_timestamp = now
            if pq.msg_count > self.pull_threshold_for_queue or (
                not self.orderly and pq.max_span() > self.consume_concurrently_max_span
            ):
                delay = PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL
                continue
            if self.orderly and self.is_clustering:
                if not pq.locked:
                    continue
                if not request.previously_locked:
                    offset = yield from self.offset_store.read_offset_from_store(mq)
                    if offset >= 0:
                        request.next_offset = offset
                    request.previously_locked = True
            commit = self.offset_store.read_memory(mq) if self.is_clustering else -1
            pull = PullMessageRequest(
                self.consumer_group,
                self.actor,
                mq,
                request.next_offset,
                self.subscriptions.get(mq.topic),
                commit if commit > 0 else None,
                self.pull_batch_size,
            )
            sent_at = now
            result, error = yield Rpc(self.client_id, mq.broker_name, pull, CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND)
            if error is not None:
                if isinstance(error, ResponseExpiredException):
                    self.lab.trace.record(
                        self.lab.now,
                        EventKind.WARNING,
                        self.actor,
                        None,
                        message=f"pull of {mq} sent at {sent_at} ms: wait response timeout "
                        f"{CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND}ms; pull again in "
                        f"{PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION} ms",
                    )
                continue  # executePullRequestLater(1000)
            delay, kind = 0, TimerKind.PULL
            if not self._on_pull_result(request, result):
                return

    def _on_pull_result(self, request: PullRequest, result: PullResult) -> bool:
        """``PullCallback.onSuccess``; ``False`` when this queue's pull loop ends (dropped, or OFFSET_ILLEGAL)."""
        pq, mq = request.pq, request.mq
        if result.status is PullStatus.FOUND:
            request.next_offset = result.next_begin_offset
            if pq.dropped:
                return False
            dispatch = pq.put_message(result.msgs)
            self.lab.trace.record(
                self.lab.now,
                EventKind.PULLED,
                self.actor,
                None,
                queue=str(mq),
                offsets=[m.queue_offset for m in result.msgs],
                msg_ids=[m.msg_id for m in result.msgs],
                next_offset=result.next_begin_offset,
            )
            self.consume_service.submit_consume_request(result.msgs, pq, mq, dispatch)
            return True
        if result.status in (PullStatus.NO_NEW_MSG, PullStatus.NO_MATCHED_MSG):
            request.next_offset = result.next_begin_offset
            if pq.msg_count == 0 and not pq.consuming_msg_orderly_tree_map:
                self.offset_store.update_offset(mq, request.next_offset, True)
            return True
        # OFFSET_ILLEGAL
        request.next_offset = result.next_begin_offset
        pq.dropped = True
        self.lab.trace.record(
            self.lab.now,
            EventKind.WARNING,
            self.actor,
            None,
            message=f"OFFSET_ILLEGAL on {mq}; fixing offset to {result.next_begin_offset}",
        )

        def fix() -> None:
            self.offset_store.update_offset(mq, request.next_offset, False)
            self.offset_store.persist(mq)
            self.process_queue_table.pop(mq, None)

        self.schedule(OFFSET_ILLEGAL_FIXUP_DELAY_MS, TimerKind.OFFSET_FIXUP, fix, queue=mq)
        return False
