"""``MQClientInstance``: a push consumer's client instance — its scheduled thread (route poll, heartbeat, offset
persistence), its rebalance thread, and what a broker asks of it (``ClientRemotingProcessor``: the group changed).

In 4.9.7 one ``MQClientInstance`` per client id serves all its producers and consumers; a lab client has one
consumer, which holds its instance (``DefaultMQPushConsumerImpl.mQClientFactory``) and is held by it.

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
    from ..core.context import Context

__all__ = ["MQClientInstance"]

PERSIST_CONSUMER_OFFSET_INTERVAL_MS = 5_000
HEARTBEAT_FIRST_DELAY_MS = 1_000
HEARTBEAT_INTERVAL_MS = 30_000
POLL_NAME_SERVER_FIRST_DELAY_MS = 10
POLL_NAME_SERVER_INTERVAL_MS = 30_000
PERSIST_CONSUMER_OFFSET_FIRST_DELAY_MS = 10_000


class ClientConsumer(Protocol):
    """What the client instance reads of the consumer it serves (``DefaultMQPushConsumer`` is one)."""

    context: Context
    processes: ProcessGroup
    client_id: str
    consumer_group: str
    running: bool
    subscriptions: dict[str, frozenset[str] | None]
    process_queue_table: dict[MessageQueue, ProcessQueue]
    offset_store: OffsetStore
    _routes: dict[str, TopicRouteData]
    """``topicRouteTable``: the routes of the subscribed topics, as last read from the name server."""

    @property
    def is_clustering(self) -> bool:
        """``MessageModel.CLUSTERING``: heartbeats also make the broker create the group's ``%RETRY%`` topic."""

    @property
    def rebalance_impl(self) -> RebalanceImpl:
        """The consumer's rebalance, which the rebalance thread runs."""

    def _label(self, kind: TimerKind, queue: MessageQueue | None = None, msg_ids: tuple[str, ...] = ()) -> TimerLabel:
        """What a wait of the consumer stands for, for views."""


class MQClientInstance:
    """The client instance of one push consumer: its scheduled thread, its rebalance thread, its route table's
    refresh, its heartbeats and what a broker asks of it. The consumer holds one, made anew at each start (a crash
    ends its threads with the consumer's processes)."""

    def __init__(self, consumer: ClientConsumer) -> None:
        self.consumer = consumer
        self.scheduled_executor = ScheduledExecutor(consumer.processes)
        """``MQClientFactoryScheduledThread``: route poll, heartbeat, offset persistence (made anew at start)."""
        self.rebalance_service = RebalanceService(
            consumer.processes, consumer._label(TimerKind.REBALANCE), consumer.rebalance_impl.do_rebalance
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
        executor = self.scheduled_executor = ScheduledExecutor(self.consumer.processes)
        executor.schedule_at_fixed_rate(
            POLL_NAME_SERVER_FIRST_DELAY_MS,
            POLL_NAME_SERVER_INTERVAL_MS,
            self.consumer._label(TimerKind.ROUTE_POLL),
            self.update_routes,
        )
        executor.schedule_at_fixed_rate(
            HEARTBEAT_FIRST_DELAY_MS,
            HEARTBEAT_INTERVAL_MS,
            self.consumer._label(TimerKind.HEARTBEAT),
            self.send_heartbeat,
        )
        executor.schedule_at_fixed_rate(
            PERSIST_CONSUMER_OFFSET_FIRST_DELAY_MS,
            PERSIST_CONSUMER_OFFSET_INTERVAL_MS,
            self.consumer._label(TimerKind.PERSIST_OFFSET),
            self.persist_all,
        )
        executor.start()

    def persist_all(self) -> None:
        """``persistAllConsumerOffset``."""
        self.consumer.offset_store.persist_all(self.consumer.process_queue_table)

    def update_routes(self) -> None:
        for topic in self.consumer.subscriptions:
            route = self.consumer.context.namesrv.route(topic)
            if route is not None:
                self.consumer._routes[topic] = route

    def broker_names(self) -> list[str]:
        """Every broker of every subscribed topic's route, by name."""
        return sorted({q.broker_name for r in self.consumer._routes.values() for q in r.queue_datas})

    def send_heartbeat(self) -> Generator[Any, Any, None]:
        """Heartbeat every broker of every subscribed topic's route, one after the other (a failure is logged)."""
        request = HeartbeatRequest(self.consumer.client_id, self.consumer.consumer_group, self.consumer.is_clustering)
        for name in self.broker_names():
            yield Rpc(self.consumer.client_id, name, request, RPC_TIMEOUT_MS)
        if self.consumer.is_clustering:
            self.update_routes()

    def on_broker_request(self, broker_name: str, request: object) -> None:
        """``ClientRemotingProcessor``: a broker-initiated request."""
        if isinstance(request, NotifyConsumerIdsChangedRequest):
            self.notify_consumer_ids_changed()

    def notify_consumer_ids_changed(self) -> None:
        """The broker says the group changed: rebalance right away (``rebalanceImmediately``)."""
        if self.consumer.running:
            self.consumer.processes.spawn(self.process_notification())

    def process_notification(self) -> Generator[Any, Any, None]:
        """The client's remoting thread takes the request after the work already queued at this millisecond,
        then wakes the rebalance thread."""
        yield Sleep(0, self.consumer._label(TimerKind.REBALANCE))
        self.rebalance_service.wakeup()
