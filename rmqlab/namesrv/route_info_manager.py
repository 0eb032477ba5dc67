"""The name server: which brokers serve which topic, with how many queues.

Brokers register a topic's queues when they create it and drop out of every route when their channel
closes (they go down). Clients keep a *cached* copy, refreshed every 30 s
(``pollNameServerInterval``): for up to 30 s after a broker dies, producers still pick its queues.

Mirrors: namesrv/src/main/java/org/apache/rocketmq/namesrv/routeinfo/RouteInfoManager.java
    (RouteInfoManager.registerBroker, RouteInfoManager.pickupTopicRouteData, RouteInfoManager.onChannelDestroy)
Mirrors: common/src/main/java/org/apache/rocketmq/common/protocol/route/TopicRouteData.java
    (TopicRouteData)
Mirrors: common/src/main/java/org/apache/rocketmq/common/protocol/route/QueueData.java
    (QueueData)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..common.message_queue import MessageQueue

__all__ = ["NameServer", "QueueData", "TopicRouteData"]


@dataclass(frozen=True, slots=True)
class QueueData:
    """One broker's share of a topic (``QueueData``)."""

    broker_name: str
    read_queue_nums: int
    write_queue_nums: int
    perm: int


@dataclass(frozen=True)
class TopicRouteData:
    """A topic's route: its per-broker queue data, sorted by broker name."""

    topic: str
    queue_datas: tuple[QueueData, ...]

    @cached_property
    def message_queue_list(self) -> tuple[MessageQueue, ...]:
        """``TopicPublishInfo.messageQueueList``: the writable queues in route order, built once per route."""
        return tuple(
            MessageQueue(self.topic, q.broker_name, i)
            for q in self.queue_datas
            if q.perm & 2
            for i in range(q.write_queue_nums)
        )

    def write_queues(self) -> list[MessageQueue]:
        """``topicRouteData2TopicPublishInfo``: a fresh list of :attr:`message_queue_list` (for selectors)."""
        return list(self.message_queue_list)

    def read_queues(self) -> list[MessageQueue]:
        """``topicRouteData2TopicSubscribeInfo``: readable queues (what rebalance allocates)."""
        return [
            MessageQueue(self.topic, q.broker_name, i)
            for q in self.queue_datas
            if q.perm & 4
            for i in range(q.read_queue_nums)
        ]


class NameServer:
    """``RouteInfoManager`` reduced to what routing decisions need."""

    def __init__(self) -> None:
        self._topics: dict[str, dict[str, QueueData]] = {}
        self._down: set[str] = set()

    def register(self, broker_name: str, topic: str, read: int, write: int, perm: int) -> None:
        """A broker announces (or updates) its queues for ``topic``."""
        self._topics.setdefault(topic, {})[broker_name] = QueueData(broker_name, read, write, perm)

    def broker_down(self, broker_name: str) -> None:
        """``onChannelDestroy``: the broker leaves every route at once."""
        self._down.add(broker_name)

    def broker_up(self, broker_name: str) -> None:
        """The broker registers again with all its topics."""
        self._down.discard(broker_name)

    def route(self, topic: str) -> TopicRouteData | None:
        """``getRouteInfoByTopic``; ``None`` when no live broker serves the topic."""
        brokers = self._topics.get(topic, {})
        live = tuple(q for name, q in sorted(brokers.items()) if name not in self._down)
        return TopicRouteData(topic, live) if live else None

    def topics(self) -> list[str]:
        return sorted(self._topics)
