"""``DefaultMQPushConsumer``: subscription, rebalance, the pull loop, offsets and lifecycle.

What happens to a pulled message is up to the consume service (concurrent or orderly, see
``consume_message_concurrently_service.py`` and ``consume_message_orderly_service.py``). This module is the plumbing
both share: the configuration, the lifecycle and what a crash loses. This class plays both 4.9.7 roles, the public
``DefaultMQPushConsumer`` and its ``DefaultMQPushConsumerImpl``, and holds the impl's parts, each an object that
holds the consumer back: ``client_instance`` (``MQClientInstance``: the scheduled and rebalance threads, heartbeats,
routes), ``rebalance_impl`` (``RebalancePushImpl``: who owns which queue, orderly locks), ``pull_message_service``
and ``flow_control`` (fetching into ProcessQueues, and when a pull is put off), ``consume_service`` (made at start)
and ``offset_store``.

Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/DefaultMQPushConsumer.java
    (DefaultMQPushConsumer.subscribe, DefaultMQPushConsumer.registerMessageListener, DefaultMQPushConsumer.start,
    DefaultMQPushConsumer.shutdown, DefaultMQPushConsumer.suspend, DefaultMQPushConsumer.resume)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/DefaultMQPushConsumerImpl.java
    (DefaultMQPushConsumerImpl.start, DefaultMQPushConsumerImpl.shutdown,
    DefaultMQPushConsumerImpl.getMaxReconsumeTimes)
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from ...common.consumer_config import ConsumeFromWhere, MessageModel
from ...common.message import RETRY_PREFIX, retry_topic
from ...common.message_queue import MessageQueue
from ...common.util_all import check_consume_timestamp, time_millis_to_human_string3
from ...core.errors import ConfigError
from ...core.process import ProcessGroup
from ...core.scheduler import TimerKind, TimerLabel
from ...core.trace import EventKind
from ...core.validation import MAX_HORIZON_MS, check_choice, check_int
from ...namesrv.route_info_manager import TopicRouteData
from ...remoting.protocol import (
    UnregisterClientRequest,
)
from ..mq_client_instance import MQClientInstance
from ..producer.default_mq_producer import DefaultMQProducer
from .allocate_message_queue import allocate_averagely, allocate_averagely_by_circle
from .consume_message_service import shutdown_gracefully
from .flow_control import FlowControl, check_consume_thread_max, check_topic_threshold
from .offset_store import LocalFileOffsetStore, OffsetStore, RemoteBrokerOffsetStore
from .process_queue import ProcessQueue
from .pull_message_service import PullMessageService, PullRequest
from .rebalance_push_impl import RebalancePushImpl

if TYPE_CHECKING:
    from ...core.context import Context

__all__ = ["ConsumeFromWhere", "DefaultMQPushConsumer", "MessageModel", "PullRequest"]

HALF_AN_HOUR_MS = 30 * 60_000
"""``consumeTimestamp``'s default: ``System.currentTimeMillis() - (1000 * 60 * 30)``."""

STRATEGIES = {"AVG": allocate_averagely, "AVG_BY_CIRCLE": allocate_averagely_by_circle}


class DefaultMQPushConsumer:
    """A push consumer instance; its ``client_id`` is its name (sorted as a string in rebalance)."""

    def __init__(
        self,
        context: Context,
        consumer_group: str,
        *,
        name: str | None = None,
        message_model: MessageModel | str = MessageModel.CLUSTERING,
        consume_from_where: ConsumeFromWhere | str = ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
        consume_timestamp: str | None = None,
        consume_message_batch_max_size: int = 1,
        pull_batch_size: int = 32,
        max_reconsume_times: int = -1,
        consume_timeout: int = 15,
        suspend_current_queue_time_millis: int = 1000,
        consume_thread_min: int = 20,
        consume_thread_max: int = 20,
        pull_threshold_for_queue: int = 1000,
        pull_threshold_size_for_queue: int = 100,
        pull_threshold_for_topic: int = -1,
        pull_threshold_size_for_topic: int = -1,
        pull_interval: int = 0,
        consume_concurrently_max_span: int = 2000,
        allocate_message_queue_strategy: str = "AVG",
        await_termination_millis_when_shutdown: int = 0,
    ) -> None:
        if not isinstance(consumer_group, str) or not consumer_group or consumer_group.startswith("%"):
            raise ConfigError("consumer_group", consumer_group, "a non-empty name not starting with '%'")
        self.context = context
        self.consumer_group = consumer_group
        self.client_id = name or f"{consumer_group}-1"
        self.actor = f"consumer:{self.client_id}"
        """How the trace names this consumer."""
        self.message_model = check_choice("message_model", message_model, MessageModel)
        self.consume_from_where = check_choice("consume_from_where", consume_from_where, ConsumeFromWhere)
        if consume_timestamp is None:
            consume_timestamp = time_millis_to_human_string3(context.now - HALF_AN_HOUR_MS)
        self.consume_timestamp = check_consume_timestamp(consume_timestamp)
        """``yyyyMMddHHmmss`` on the lab clock (``rmqlab.common.util_all``: 0 ms is 20000101000000), read only under
        CONSUME_FROM_TIMESTAMP; by default half an hour before this consumer was made, as 4.9.7's field initialiser."""
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
        self.consume_thread_max = check_consume_thread_max(consume_thread_min, consume_thread_max)
        """Checked, and otherwise without effect as in 4.9.7 (``flow_control.check_consume_thread_max``)."""
        self.pull_threshold_for_queue = check_int("pull_threshold_for_queue", pull_threshold_for_queue, 1, 65535)
        self.pull_threshold_size_for_queue = check_int(
            "pull_threshold_size_for_queue", pull_threshold_size_for_queue, 1, 1024
        )
        """MiB of message bodies (``flow_control.py``)."""
        self.pull_threshold_for_topic = check_topic_threshold(
            "pull_threshold_for_topic", pull_threshold_for_topic, 6553500
        )
        self.pull_threshold_size_for_topic = check_topic_threshold(
            "pull_threshold_size_for_topic", pull_threshold_size_for_topic, 102400
        )
        self.pull_interval = check_int("pull_interval", pull_interval, 0, 65535)
        """ms between a pull that found messages and the next one (0: at once)."""
        self.consume_concurrently_max_span = check_int(
            "consume_concurrently_max_span", consume_concurrently_max_span, 1, 65535
        )
        self.await_termination_millis_when_shutdown = check_int(
            "await_termination_millis_when_shutdown", await_termination_millis_when_shutdown, 0, MAX_HORIZON_MS
        )
        """How long ``shutdown()`` waits for in-flight consume requests before it persists offsets (0: not at all)."""
        if allocate_message_queue_strategy not in STRATEGIES:
            raise ConfigError(
                "allocate_message_queue_strategy", allocate_message_queue_strategy, "one of " + ", ".join(STRATEGIES)
            )
        self.allocate = STRATEGIES[allocate_message_queue_strategy]
        self.subscriptions: dict[str, frozenset[str] | None] = {}
        self.listener: Callable[..., Any] | None = None
        self.orderly = False
        self.running = False
        self.pause = False
        """``DefaultMQPushConsumerImpl.pause``: set by ``suspend()``, cleared by ``resume()`` and by a stop."""
        self.stop_reason: str | None = None
        """How the last incarnation ended: ``"crash"`` or ``"shutdown"`` (``None``: never stopped, or running)."""
        self.generation = 0
        """How many times this instance started (for listeners that behave differently after a restart)."""
        self.processes = ProcessGroup(context.scheduler, context.remoting, self.actor)
        """This incarnation's threads and scheduled tasks; a crash kills them all."""
        self.process_queue_table: dict[MessageQueue, ProcessQueue] = {}
        self._routes: dict[str, TopicRouteData] = {}
        self.offset_store: OffsetStore = self._new_offset_store()
        self.flow_control = FlowControl(self)
        self.rebalance_impl = RebalancePushImpl(self)
        self.pull_message_service = PullMessageService(self, self.flow_control, self.rebalance_impl)
        self.client_instance = MQClientInstance(self)
        """``mQClientFactory``: this consumer's scheduled and rebalance threads (made anew at each start)."""
        self.consume_service: Any = None
        self.inner_producer: DefaultMQProducer | None = None
        self.in_listener = False
        """True while this consumer's listener is being called (``run_listener``)."""
        self.crash_requested = False
        """The listener called ``crash()``: ``run_listener`` crashes the consumer once the call returns."""

    @property
    def is_clustering(self) -> bool:
        """``MessageModel.CLUSTERING``: queues shared out in the group, offsets at the broker, orderly locks there."""
        return self.message_model is MessageModel.CLUSTERING

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

    # ------------------------------------------------------------------ configuration
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
        from .consume_message_concurrently_service import ConsumeMessageConcurrentlyService
        from .consume_message_orderly_service import ConsumeMessageOrderlyService

        if self.running:
            expected = "a consumer that is not already running"
            if self.consume_service.stopped:
                expected = "a consumer whose shutdown has ended (it still awaits an answer or its consume pool)"
            raise ConfigError("start", self.client_id, expected)
        if self.listener is None:
            raise ConfigError("listener", None, "a registered listener before start()")
        if not self.subscriptions:
            raise ConfigError("subscriptions", {}, "at least one subscribe(topic) before start()")
        for topic in self.subscriptions:
            if (
                not topic.startswith(RETRY_PREFIX)
                and self.context.namesrv.route(topic) is None
                and topic not in self.context.namesrv.topics()
            ):
                raise ConfigError("topic", topic, "a topic created with lab.create_topic(...)")
        if self.is_clustering:
            self.subscriptions.setdefault(retry_topic(self.consumer_group), None)
        self.running = True
        self.stop_reason = None
        self.crash_requested = False
        self.generation += 1
        self.processes = ProcessGroup(self.context.scheduler, self.context.remoting, self.actor)
        self.client_instance = MQClientInstance(self)
        self.context.remoting.register_client(self.client_id, self.client_instance.on_broker_request)
        self.process_queue_table = {}
        self.offset_store = self._new_offset_store()
        if self.inner_producer is None:
            self.inner_producer = DefaultMQProducer(
                self.context, "CLIENT_INNER_PRODUCER", name=f"{self.client_id}/inner"
            )
        service = ConsumeMessageOrderlyService if self.orderly else ConsumeMessageConcurrentlyService
        self.consume_service = service(self)
        self.context.trace.record(
            self.context.now,
            EventKind.LIFECYCLE,
            self.actor,
            None,
            event="start",
            group=self.consumer_group,
            mode="orderly" if self.orderly else "concurrently",
            message_model=self.message_model.value,
        )
        self.client_instance.update_routes()
        self.client_instance.start_scheduled_task()
        self.client_instance.rebalance_service.start()
        self.processes.spawn(self.client_instance.start_up())
        self.consume_service.start()

    def shutdown(self) -> None:
        """A clean stop (``DefaultMQPushConsumerImpl.shutdown``): the consume service stops taking requests, then
        orderly locks are released, offsets persisted and the group left (the others rebalance).

        With ``await_termination_millis_when_shutdown`` > 0 the consume pool first gets that long to finish its
        requests, queued ones included (``shutdown_gracefully``: twice that, if some are still running) while pulls,
        rebalances and the 5 s offset persistence go on; what finishes in time is committed by the final persist.
        """
        if not self.running or self.consume_service.stopped:
            return
        self.consume_service.shutdown()
        self.processes.spawn(self._shutdown(self.await_termination_millis_when_shutdown))

    def _shutdown(self, wait: int) -> Generator[Any, Any, None]:
        """The rest of ``shutdown``, as a thread of this consumer: the consume pool's wait (if any), the orderly
        service's ``unlockAllMQ`` (its last step, each broker's answer awaited), then ``persistConsumerOffset``, the
        stop, and ``unregisterConsumer`` at every broker. With no await and no fault all of it is one millisecond."""
        if wait > 0:
            self.context.trace.record(
                self.context.now, EventKind.LIFECYCLE, self.actor, None, event="shutting_down",
                group=self.consumer_group, await_ms=wait,
            )  # fmt: skip
            label = self._label(TimerKind.SHUTDOWN_AWAIT)
            yield from shutdown_gracefully(self.consume_service.pool, self.processes, wait, label)
        if self.orderly and self.is_clustering:
            yield from self.rebalance_impl.unlock_all()
        self.offset_store.persist_all(self.process_queue_table)
        self._stop("shutdown")
        for broker_name in self.client_instance.broker_names():
            self.context.remoting.invoke_oneway(
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
        self.context.remoting.client_closed(self.client_id, self.consumer_group)

    def suspend(self) -> None:
        """``suspend()``: stop pulling. While paused every pull is put off by 1000 ms and every rebalance does
        nothing (``doRebalance`` checks the flag); what was pulled already is still consumed."""
        self.pause = True
        self.flow_control.log_pause("suspend")

    def resume(self) -> None:
        """``resume()``: pull again, and rebalance at once. 4.9.7 calls ``doRebalance`` in the caller's thread,
        beside the rebalance thread's 20 s wait; here the rebalance thread is woken instead (its next wait starts
        after this rebalance), so that two rebalances never overlap."""
        self.pause = False
        self.flow_control.log_pause("resume")
        if self.running:
            self.processes.spawn(self.client_instance.process_notification())

    def _stop(self, how: str) -> None:
        self.running = False
        self.pause = False  # the flag lives in the process that stops
        self.stop_reason = how
        self.processes.kill_all()
        for pq in self.process_queue_table.values():
            pq.dropped = True
        self.context.trace.record(
            self.context.now, EventKind.LIFECYCLE, self.actor, None, event=how, group=self.consumer_group
        )
