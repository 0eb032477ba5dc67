"""``MQClientInstance``'s part of a push consumer: its scheduled thread (route poll, heartbeat, offset persistence)
and what a broker asks of it (``ClientRemotingProcessor``: the group changed).

In 4.9.7 one ``MQClientInstance`` per client id serves all its producers and consumers; a lab client has one
consumer, so these methods are mixed into
:class:`~rmqlab.client.consumer.default_mq_push_consumer.DefaultMQPushConsumer`, with the consumer-wide helpers its
parts share: the message model, and scheduling on the client's threads.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/factory/MQClientInstance.java
    (MQClientInstance.startScheduledTask, MQClientInstance.updateTopicRouteInfoFromNameServer,
    MQClientInstance.sendHeartbeatToAllBrokerWithLock, MQClientInstance.persistAllConsumerOffset,
    MQClientInstance.rebalanceImmediately)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/ClientRemotingProcessor.java
    (ClientRemotingProcessor.notifyConsumerIdsChanged)
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from ..common.consumer_config import MessageModel
from ..common.message_queue import MessageQueue
from ..core.process import ProcessGroup, Rpc, Sleep
from ..core.scheduled_executor import ScheduledExecutor
from ..core.scheduler import TimerKind, TimerLabel
from ..namesrv.route_info_manager import TopicRouteData
from ..remoting.protocol import HeartbeatRequest, NotifyConsumerIdsChangedRequest
from .consumer.offset_store import OffsetStore
from .consumer.process_queue import ProcessQueue
from .consumer.rebalance_impl import RPC_TIMEOUT_MS
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


class MQClientInstance:
    """The client instance's services, mixed into
    :class:`~rmqlab.client.consumer.default_mq_push_consumer.DefaultMQPushConsumer`."""

    # The consumer's state these methods work on (set by ``DefaultMQPushConsumer.__init__`` / ``start``).
    context: Context
    message_model: MessageModel
    processes: ProcessGroup
    actor: str
    client_id: str
    consumer_group: str
    running: bool
    subscriptions: dict[str, frozenset[str] | None]
    process_queue_table: dict[MessageQueue, ProcessQueue]
    offset_store: OffsetStore
    _routes: dict[str, TopicRouteData]
    scheduled_executor: ScheduledExecutor
    rebalance_service: RebalanceService

    @property
    def is_clustering(self) -> bool:
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

    # ------------------------------------------------------------------ periodic services
    def _start_up(self) -> Generator[Any, Any, None]:
        """``start()``'s last steps: ``sendHeartbeatToAllBrokerWithLock``, then ``rebalanceImmediately`` (which
        cuts short the rebalance thread's first 20 s wait)."""
        yield from self._send_heartbeat()
        self.rebalance_service.wakeup()

    def _start_scheduled_task(self) -> None:
        """``MQClientInstance.startScheduledTask``: route poll after 10 ms, heartbeat after 1 s, offset persistence
        after 10 s, then every 30 s, 30 s and 5 s, all at a fixed rate on one scheduled thread (a heartbeat
        stuck on a slow broker delays the persistence due meanwhile)."""
        executor = self.scheduled_executor = ScheduledExecutor(self.processes)
        executor.schedule_at_fixed_rate(
            POLL_NAME_SERVER_FIRST_DELAY_MS,
            POLL_NAME_SERVER_INTERVAL_MS,
            self._label(TimerKind.ROUTE_POLL),
            self._update_routes,
        )
        executor.schedule_at_fixed_rate(
            HEARTBEAT_FIRST_DELAY_MS, HEARTBEAT_INTERVAL_MS, self._label(TimerKind.HEARTBEAT), self._send_heartbeat
        )
        executor.schedule_at_fixed_rate(
            PERSIST_CONSUMER_OFFSET_FIRST_DELAY_MS,
            PERSIST_CONSUMER_OFFSET_INTERVAL_MS,
            self._label(TimerKind.PERSIST_OFFSET),
            self._persist_all,
        )
        executor.start()

    def _persist_all(self) -> None:
        """``persistAllConsumerOffset``."""
        self.offset_store.persist_all(self.process_queue_table)

    def _update_routes(self) -> None:
        for topic in self.subscriptions:
            route = self.context.namesrv.route(topic)
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
            self.notify_consumer_ids_changed()

    def notify_consumer_ids_changed(self) -> None:
        """The broker says the group changed: rebalance right away (``rebalanceImmediately``)."""
        if self.running:
            self.processes.spawn(self._process_notification())

    def _process_notification(self) -> Generator[Any, Any, None]:
        """The client's remoting thread takes the request after the work already queued at this millisecond,
        then wakes the rebalance thread."""
        yield Sleep(0, self._label(TimerKind.REBALANCE))
        self.rebalance_service.wakeup()
