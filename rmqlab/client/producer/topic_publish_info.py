"""``TopicPublishInfo``: a producer's cached route of one topic, and how it picks a queue from it (4.9.7).

``selectOneMessageQueue(lastBrokerName)`` is plain round robin over the route's writable queues, skipping the
broker the previous attempt of the same send went to; the round-robin counter is a seeded ``ThreadLocalIndex``
so that a lab is reproducible (Java seeds it with ``Math.abs(random.nextInt())``).

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/producer/TopicPublishInfo.java
    (TopicPublishInfo.selectOneMessageQueue)
Mirrors: client/src/main/java/org/apache/rocketmq/client/common/ThreadLocalIndex.java
    (ThreadLocalIndex.incrementAndGet)
"""

from __future__ import annotations

from dataclasses import dataclass

from ...common.message_queue import MessageQueue
from ...namesrv.route_info_manager import TopicRouteData

__all__ = ["ThreadLocalIndex", "TopicPublishInfo"]


class ThreadLocalIndex:
    """``ThreadLocalIndex``: a seeded counter; ``increment_and_get`` wraps like ``& 0x7FFFFFFF``."""

    def __init__(self, start: int) -> None:
        self.value = start

    def increment_and_get(self) -> int:
        self.value = (self.value + 1) & 0x7FFFFFFF
        return self.value


@dataclass(slots=True)
class TopicPublishInfo:
    """``TopicPublishInfo``: a producer's cached route of one topic and *its own* list of writable queues.

    The list is a copy, because with latency fault tolerance 4.9.7 may re-point one of its queues at another
    broker (see :meth:`rmqlab.client.producer.latency_fault_tolerance.MQFaultStrategy.select_latency_aware`);
    it is rebuilt only when the name server's route changes (``topicRouteDataIsChange``), so such a rewrite lasts
    until then.
    """

    route: TopicRouteData
    message_queue_list: list[MessageQueue]

    @classmethod
    def of(cls, route: TopicRouteData) -> TopicPublishInfo:
        """``topicRouteData2TopicPublishInfo``."""
        return cls(route, list(route.message_queue_list))

    def ok(self) -> bool:
        """``ok()``: the topic has at least one writable queue."""
        return bool(self.message_queue_list)

    def write_queue_nums(self) -> dict[str, int]:
        """``getQueueIdByBroker`` for every broker: its ``writeQueueNums`` in the route (any permission)."""
        return {q.broker_name: q.write_queue_nums for q in self.route.queue_datas}

    def select_one_message_queue(
        self, last_broker_name: str | None, send_which_queue: ThreadLocalIndex
    ) -> MessageQueue:
        """``selectOneMessageQueue(lastBrokerName)``: round robin, avoiding the broker that just failed.

        If every queue is on ``last_broker_name`` (a one-broker topic), one more round-robin pick: the retries
        then rotate through that broker's queues.
        """
        queues = self.message_queue_list
        if last_broker_name is None:
            return queues[send_which_queue.increment_and_get() % len(queues)]
        for _ in range(len(queues)):
            mq = queues[send_which_queue.increment_and_get() % len(queues)]
            if mq.broker_name != last_broker_name:
                return mq
        return queues[send_which_queue.increment_and_get() % len(queues)]
