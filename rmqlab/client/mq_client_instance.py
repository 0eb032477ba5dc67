"""``MQClientInstance``: a push consumer's client instance — its scheduled thread (route poll, heartbeat, offset
persistence), its rebalance thread, and what a broker asks of it (``ClientRemotingProcessor``: the group changed).

In 4.9.7 one ``MQClientInstance`` per client id serves all its producers and consumers; a lab client has one
consumer, whose ``DefaultMQPushConsumerImpl`` holds its instance (``mQClientFactory``) and is held by it (as the
``MQConsumerInner`` in the instance's ``consumerTable``); the settings it needs (client id, group, subscription) are
read from the impl's ``DefaultMQPushConsumer``.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/factory/MQClientInstance.java
    (MQClientInstance.startScheduledTask, MQClientInstance.updateTopicRouteInfoFromNameServer,
    MQClientInstance.sendHeartbeatToAllBrokerWithLock, MQClientInstance.persistAllConsumerOffset,
    MQClientInstance.rebalanceImmediately)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/ClientRemotingProcessor.java
    (ClientRemotingProcessor.notifyConsumerIdsChanged)
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any, Protocol

from ..common.message_queue import MessageQueue
from ..core.process import ProcessGroup, Rpc, Sleep
from ..core.scheduled_executor import ScheduledExecutor
from ..core.scheduler import TimerKind, TimerLabel
from ..namesrv.route_info_manager import TopicRouteData
from ..remoting.protocol import HeartbeatRequest, NotifyConsumerIdsChangedRequest
from .consumer.offset_store import OffsetStore
from .consumer.process_queue import ProcessQueue
from .consumer.rebalance_impl import RPC_TIMEOUT_MS, RebalanceImpl
from .consumer.rebalance_service import RebalanceService

if TYPE_CHECKING:
    from .consumer.push_consumer_settings import PushConsumerSettings

__all__ = ["MQClientInstance"]

PERSIST_CONSUMER_OFFSET_INTERVAL_MS = 5_000
HEARTBEAT_FIRST_DELAY_MS = 1_000
HEARTBEAT_INTERVAL_MS = 30_000
POLL_NAME_SERVER_FIRST_DELAY_MS = 10
POLL_NAME_SERVER_INTERVAL_MS = 30_000
PERSIST_CONSUMER_OFFSET_FIRST_DELAY_MS = 10_000


class ClientConsumer(Protocol):
    """What the client instance reads of the consumer impl it serves (``MQConsumerInner``;
    ``DefaultMQPushConsumerImpl`` is one)."""

    processes: ProcessGroup
    running: bool
    process_queue_table: dict[MessageQueue, ProcessQueue]
    offset_store: OffsetStore
    topic_route_table: dict[str, TopicRouteData]
    """``topicRouteTable``: the routes of the subscribed topics, as last read from the name server."""

    @property
    def default_mq_push_consumer(self) -> PushConsumerSettings:
        """The public ``DefaultMQPushConsumer``: client id, group, subscription, message model (heartbeats in
        CLUSTERING also make the broker create the group's ``%RETRY%`` topic)."""

    @property
    def rebalance_impl(self) -> RebalanceImpl:
        """The consumer's rebalance, which the rebalance thread runs."""

    def _label(self, kind: TimerKind, queue: MessageQueue | None = None, msg_ids: tuple[str, ...] = ()) -> TimerLabel:
        """What a wait of the consumer stands for, for views."""


class MQClientInstance:
    """The client instance of one push consumer: its scheduled thread, its rebalance thread, its route table's
    refresh, its heartbeats and what a broker asks of it. The consumer's impl holds one, made anew at each start (a
    crash ends its threads with the consumer's processes)."""

    def __init__(self, impl: ClientConsumer) -> None:
        self.default_mq_push_consumer_impl = impl
        self.default_mq_push_consumer = impl.default_mq_push_consumer
        """The public consumer: its client id, group and subscription."""
        self.scheduled_executor = ScheduledExecutor(impl.processes)
        """``MQClientFactoryScheduledThread``: route poll, heartbeat, offset persistence (made anew at start)."""
        self.rebalance_service = RebalanceService(
            impl.processes, impl._label(TimerKind.REBALANCE), impl.rebalance_impl.do_rebalance
        )
        """``rebalanceService``: the one thread that runs the consumer's rebalances."""

    # ------------------------------------------------------------------ periodic services
    def start_up(self) -> Generator[Any, Any, None]:
        """``start()``'s last steps: ``sendHeartbeatToAllBrokerWithLock``, then ``rebalanceImmediately`` (which
        cuts short the rebalance thread's first 20 s wait)."""
        yield from self.send_heartbeat()
        self.rebalance_service.wakeup()

    def start_scheduled_task(self) -> None:
        """``MQClientInstance.startScheduledTask``: route poll after 10 ms, heartbeat after 1 s, offset persistence
        after 10 s, then every 30 s, 30 s and 5 s, all at a fixed rate on one scheduled thread (a heartbeat
        stuck on a slow broker delays the persistence due meanwhile)."""
        impl = self.default_mq_push_consumer_impl
        executor = self.scheduled_executor = ScheduledExecutor(impl.processes)
        executor.schedule_at_fixed_rate(
            POLL_NAME_SERVER_FIRST_DELAY_MS,
            POLL_NAME_SERVER_INTERVAL_MS,
            impl._label(TimerKind.ROUTE_POLL),
            self.update_routes,
        )
        executor.schedule_at_fixed_rate(
            HEARTBEAT_FIRST_DELAY_MS,
            HEARTBEAT_INTERVAL_MS,
            impl._label(TimerKind.HEARTBEAT),
            self.send_heartbeat,
        )
        executor.schedule_at_fixed_rate(
            PERSIST_CONSUMER_OFFSET_FIRST_DELAY_MS,
            PERSIST_CONSUMER_OFFSET_INTERVAL_MS,
            impl._label(TimerKind.PERSIST_OFFSET),
            self.persist_all,
        )
        executor.start()

    def persist_all(self) -> None:
        """``persistAllConsumerOffset``."""
        impl = self.default_mq_push_consumer_impl
        impl.offset_store.persist_all(impl.process_queue_table)

    def update_routes(self) -> None:
        """``updateTopicRouteInfoFromNameServer``: every subscribed topic's route, into the impl's route table."""
        consumer = self.default_mq_push_consumer
        for topic in consumer.subscriptions:
            route = consumer.context.namesrv.route(topic)
            if route is not None:
                self.default_mq_push_consumer_impl.topic_route_table[topic] = route

    def broker_names(self) -> list[str]:
        """Every broker of every subscribed topic's route, by name."""
        routes = self.default_mq_push_consumer_impl.topic_route_table.values()
        return sorted({q.broker_name for r in routes for q in r.queue_datas})

    def send_heartbeat(self) -> Generator[Any, Any, None]:
        """Heartbeat every broker of every subscribed topic's route, one after the other (a failure is logged)."""
        consumer = self.default_mq_push_consumer
        request = HeartbeatRequest(consumer.client_id, consumer.consumer_group, consumer.is_clustering)
        for name in self.broker_names():
            yield Rpc(consumer.client_id, name, request, RPC_TIMEOUT_MS)
        if consumer.is_clustering:
            self.update_routes()

    def on_broker_request(self, broker_name: str, request: object) -> None:
        """``ClientRemotingProcessor``: a broker-initiated request."""
        if isinstance(request, NotifyConsumerIdsChangedRequest):
            self.notify_consumer_ids_changed()

    def notify_consumer_ids_changed(self) -> None:
        """The broker says the group changed: rebalance right away (``rebalanceImmediately``)."""
        impl = self.default_mq_push_consumer_impl
        if impl.running:
            impl.processes.spawn(self.process_notification())

    def process_notification(self) -> Generator[Any, Any, None]:
        """The client's remoting thread takes the request after the work already queued at this millisecond,
        then wakes the rebalance thread."""
        yield Sleep(0, self.default_mq_push_consumer_impl._label(TimerKind.REBALANCE))
        self.rebalance_service.wakeup()
