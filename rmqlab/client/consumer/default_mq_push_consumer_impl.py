"""``DefaultMQPushConsumerImpl``: what a push consumer does — start, shutdown, suspend and resume, and the parts that
pull, rebalance and consume.

The public :class:`~rmqlab.client.consumer.default_mq_push_consumer.DefaultMQPushConsumer` holds the settings and this
impl; the impl holds the public object back (``default_mq_push_consumer``) and reads the settings there, as 4.9.7's
impl does. Its parts are objects that hold the impl: ``client_instance`` (``MQClientInstance``: the scheduled and
rebalance threads, heartbeats, routes), ``rebalance_impl`` (``RebalancePushImpl``: who owns which queue, orderly
locks), ``pull_message_service`` and ``flow_control`` (fetching into ProcessQueues, and when a pull is put off),
``consume_service`` (concurrent or orderly, made at start) and ``offset_store``.

A lab consumer can also crash (``crash``): its process dies, nothing is persisted, the brokers see its channels close.
A crashed or shut-down consumer can be started again, as a new process of the same client would be.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/DefaultMQPushConsumerImpl.java
    (DefaultMQPushConsumerImpl.start, DefaultMQPushConsumerImpl.shutdown, DefaultMQPushConsumerImpl.suspend,
    DefaultMQPushConsumerImpl.resume, DefaultMQPushConsumerImpl.registerMessageListener,
    DefaultMQPushConsumerImpl.copySubscription, DefaultMQPushConsumerImpl.getMaxReconsumeTimes,
    DefaultMQPushConsumerImpl.executeTaskLater)
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from ...common.message import RETRY_PREFIX, retry_topic
from ...common.message_queue import MessageQueue
from ...core.errors import ConfigError
from ...core.process import ProcessGroup
from ...core.scheduler import TimerKind, TimerLabel
from ...core.trace import EventKind
from ...namesrv.route_info_manager import TopicRouteData
from ...remoting.protocol import UnregisterClientRequest
from ..mq_client_instance import MQClientInstance
from ..producer.default_mq_producer import DefaultMQProducer
from .consume_message_concurrently_service import ConsumeMessageConcurrentlyService
from .consume_message_orderly_service import ConsumeMessageOrderlyService
from .consume_message_service import shutdown_gracefully
from .flow_control import FlowControl
from .offset_store import LocalFileOffsetStore, OffsetStore, RemoteBrokerOffsetStore
from .process_queue import ProcessQueue
from .pull_message_service import PullMessageService
from .push_consumer_settings import PushConsumerSettings
from .rebalance_push_impl import RebalancePushImpl

__all__ = ["DefaultMQPushConsumerImpl"]


class DefaultMQPushConsumerImpl:
    """The working half of a push consumer; its ``DefaultMQPushConsumer`` holds it and the settings."""

    def __init__(self, default_mq_push_consumer: PushConsumerSettings) -> None:
        consumer = self.default_mq_push_consumer = default_mq_push_consumer
        """The public object: the settings are read there (``this.defaultMQPushConsumer``)."""
        self.message_listener_inner: Callable[..., Any] | None = None
        """``messageListenerInner``: the registered listener."""
        self.consume_orderly = False
        """``consumeOrderly``: the listener is a ``MessageListenerOrderly``."""
        self.running = False
        """``serviceState == RUNNING``."""
        self.pause = False
        """``pause``: set by ``suspend()``, cleared by ``resume()`` and by a stop."""
        self.stop_reason: str | None = None
        """How the last incarnation ended: ``"crash"`` or ``"shutdown"`` (``None``: never stopped, or running)."""
        self.generation = 0
        """How many times this consumer started (for listeners that behave differently after a restart)."""
        self.processes = ProcessGroup(consumer.context.scheduler, consumer.context.remoting, consumer.actor)
        """This incarnation's threads and scheduled tasks; a crash kills them all."""
        self.process_queue_table: dict[MessageQueue, ProcessQueue] = {}
        """``processQueueTable`` (4.9.7 keeps it in ``RebalanceImpl``; here on the impl, which every part holds)."""
        self.topic_route_table: dict[str, TopicRouteData] = {}
        """``MQClientInstance.topicRouteTable``: the subscribed topics' routes, as last read from the name server
        (here on the impl: it outlives the client instance, which is made anew at each start)."""
        self.offset_store: OffsetStore = self._new_offset_store()
        consumer.offset_store = self.offset_store
        self.flow_control = FlowControl(self)
        self.rebalance_impl = RebalancePushImpl(self)
        self.pull_message_service = PullMessageService(self, self.flow_control, self.rebalance_impl)
        self.client_instance = MQClientInstance(self)
        """``mQClientFactory``: this consumer's scheduled and rebalance threads (made anew at each start)."""
        self.consume_service: Any = None
        """``consumeMessageService``: ``ConsumeMessageConcurrentlyService`` or ``ConsumeMessageOrderlyService``."""
        self.inner_producer: DefaultMQProducer | None = None
        """``mQClientFactory.getDefaultMQProducer()``: the client's own producer (``CLIENT_INNER_PRODUCER``)."""
        self.in_listener = False
        """True while this consumer's listener is being called (``run_listener``)."""
        self.crash_requested = False
        """The listener called ``crash()``: ``run_listener`` crashes the consumer once the call returns."""

    def _label(self, kind: TimerKind, queue: MessageQueue | None = None, msg_ids: tuple[str, ...] = ()) -> TimerLabel:
        """What a wait of this consumer stands for, for views (``lab.snapshot().timers``)."""
        return TimerLabel(kind, self.default_mq_push_consumer.actor, queue, msg_ids)

    def schedule(
        self,
        delay_ms: int,
        kind: TimerKind,
        action: Callable[..., Any],
        *args: Any,
        queue: MessageQueue | None = None,
        msg_ids: tuple[str, ...] = (),
    ) -> None:
        """``executeTaskLater``: run ``action(*args)`` after ``delay_ms`` on this client's scheduled executor (gone
        with a crash)."""
        self.processes.schedule(delay_ms, self._label(kind, queue, msg_ids), action, *args)

    def _new_offset_store(self) -> OffsetStore:
        """``RemoteBrokerOffsetStore`` in CLUSTERING, ``LocalFileOffsetStore`` in BROADCASTING."""
        consumer = self.default_mq_push_consumer
        return RemoteBrokerOffsetStore(consumer) if consumer.is_clustering else LocalFileOffsetStore(consumer)

    def register_message_listener(self, listener: Callable[..., Any], *, orderly: bool) -> None:
        """``registerMessageListener``: the listener, and whether it consumes orderly."""
        self.message_listener_inner, self.consume_orderly = listener, orderly

    def effective_max_reconsume_times(self) -> int:
        """``getMaxReconsumeTimes``: −1 means 16 for concurrent consumers and ``Integer.MAX_VALUE`` for orderly ones
        (``ConsumeMessageOrderlyService.getMaxReconsumeTimes``)."""
        max_reconsume_times = self.default_mq_push_consumer.max_reconsume_times
        if max_reconsume_times != -1:
            return max_reconsume_times
        return 2**31 - 1 if self.consume_orderly else 16

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """``DefaultMQPushConsumerImpl.start``: check the config, copy the subscriptions, make the offset store and
        the consume service, heartbeat, rebalance, start the timers."""
        consumer = self.default_mq_push_consumer
        context = consumer.context
        if self.running:
            expected = "a consumer that is not already running"
            if self.consume_service.stopped:
                expected = "a consumer whose shutdown has ended (it still awaits an answer or its consume pool)"
            raise ConfigError("start", consumer.client_id, expected)
        if self.message_listener_inner is None:
            raise ConfigError("listener", None, "a registered listener before start()")
        if not consumer.subscriptions:
            raise ConfigError("subscriptions", {}, "at least one subscribe(topic) before start()")
        for topic in consumer.subscriptions:
            if (
                not topic.startswith(RETRY_PREFIX)
                and context.namesrv.route(topic) is None
                and topic not in context.namesrv.topics()
            ):
                raise ConfigError("topic", topic, "a topic created with lab.create_topic(...)")
        if consumer.is_clustering:  # copySubscription: the group's retry topic is subscribed too
            consumer.subscriptions.setdefault(retry_topic(consumer.consumer_group), None)
        self.running = True
        self.stop_reason = None
        self.crash_requested = False
        self.generation += 1
        self.processes = ProcessGroup(context.scheduler, context.remoting, consumer.actor)
        self.client_instance = MQClientInstance(self)
        context.remoting.register_client(consumer.client_id, self.client_instance.on_broker_request)
        self.process_queue_table = {}
        self.offset_store = self._new_offset_store()
        consumer.offset_store = self.offset_store
        if self.inner_producer is None:
            name = f"{consumer.client_id}/inner"
            self.inner_producer = DefaultMQProducer(context, "CLIENT_INNER_PRODUCER", name=name)
        service = ConsumeMessageOrderlyService if self.consume_orderly else ConsumeMessageConcurrentlyService
        self.consume_service = service(self)
        context.trace.record(
            context.now,
            EventKind.LIFECYCLE,
            consumer.actor,
            None,
            event="start",
            group=consumer.consumer_group,
            mode="orderly" if self.consume_orderly else "concurrently",
            message_model=consumer.message_model.value,
        )
        self.client_instance.update_routes()
        self.client_instance.start_scheduled_task()
        self.client_instance.rebalance_service.start()
        self.processes.spawn(self.client_instance.start_up())
        self.consume_service.start()

    def shutdown(self) -> None:
        """A clean stop (``DefaultMQPushConsumerImpl.shutdown(awaitTerminateMillis)``): the consume service stops
        taking requests, then orderly locks are released, offsets persisted and the group left (the others
        rebalance).

        With ``await_termination_millis_when_shutdown`` > 0 the consume pool first gets that long to finish its
        requests, queued ones included (``shutdown_gracefully``: twice that, if some are still running) while pulls,
        rebalances and the 5 s offset persistence go on; what finishes in time is committed by the final persist.
        """
        if not self.running or self.consume_service.stopped:
            return
        self.consume_service.shutdown()
        self.processes.spawn(self._shutdown(self.default_mq_push_consumer.await_termination_millis_when_shutdown))

    def _shutdown(self, wait: int) -> Generator[Any, Any, None]:
        """The rest of ``shutdown``, as a thread of this consumer: the consume pool's wait (if any), the orderly
        service's ``unlockAllMQ`` (its last step, each broker's answer awaited), then ``persistConsumerOffset``, the
        stop, and ``unregisterConsumer`` at every broker. With no await and no fault all of it is one millisecond."""
        consumer = self.default_mq_push_consumer
        context = consumer.context
        if wait > 0:
            context.trace.record(
                context.now, EventKind.LIFECYCLE, consumer.actor, None, event="shutting_down",
                group=consumer.consumer_group, await_ms=wait,
            )  # fmt: skip
            label = self._label(TimerKind.SHUTDOWN_AWAIT)
            yield from shutdown_gracefully(self.consume_service.pool, self.processes, wait, label)
        if isinstance(self.consume_service, ConsumeMessageOrderlyService) and consumer.is_clustering:
            yield from self.consume_service.unlock_all_mq()
        self.offset_store.persist_all(self.process_queue_table)
        self._stop("shutdown")
        for broker_name in self.client_instance.broker_names():
            context.remoting.invoke_oneway(
                consumer.client_id, broker_name, UnregisterClientRequest(consumer.client_id, consumer.consumer_group)
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
        consumer = self.default_mq_push_consumer
        self.consume_service.kill()
        self._stop("crash")
        consumer.context.remoting.client_closed(consumer.client_id, consumer.consumer_group)

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
        consumer = self.default_mq_push_consumer
        self.running = False
        self.pause = False  # the flag lives in the process that stops
        self.stop_reason = how
        self.processes.kill_all()
        for pq in self.process_queue_table.values():
            pq.dropped = True
        consumer.context.trace.record(
            consumer.context.now, EventKind.LIFECYCLE, consumer.actor, None, event=how, group=consumer.consumer_group
        )
