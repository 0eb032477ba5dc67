"""``RebalanceConsumer``: what ``RebalanceImpl`` sees of its ``DefaultMQPushConsumerImpl``.

In 4.9.7 ``RebalancePushImpl`` holds the ``DefaultMQPushConsumerImpl`` and its ``MQClientInstance``, and reads the
consumer's group, subscriptions, ``processQueueTable``, offset store, pull service and where to start from. Stating
those members here, as a Protocol, lets :mod:`~rmqlab.client.consumer.rebalance_impl` name the consumer's type
without importing the consumer (which imports it), as :mod:`~rmqlab.client.consumer.push_consumer` does for the
consume services.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/DefaultMQPushConsumerImpl.java
    (DefaultMQPushConsumerImpl)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ...common.message_queue import MessageQueue
from ...core.scheduler import TimerKind, TimerLabel

if TYPE_CHECKING:
    from ...common.consumer_config import ConsumeFromWhere
    from ...core.context import Context
    from ...core.process import ProcessGroup
    from ...namesrv.route_info_manager import TopicRouteData
    from .flow_control import FlowControl
    from .offset_store import OffsetStore
    from .process_queue import ProcessQueue
    from .pull_message_service import PullMessageService

__all__ = ["RebalanceConsumer"]


class RebalanceConsumer(Protocol):
    """What a rebalance reads of its push consumer (``DefaultMQPushConsumer`` is one; in 4.9.7 ``RebalanceImpl``
    holds the ``DefaultMQPushConsumerImpl`` and its ``MQClientInstance``)."""

    context: Context
    processes: ProcessGroup
    actor: str
    client_id: str
    consumer_group: str
    orderly: bool
    pause: bool
    running: bool
    subscriptions: dict[str, frozenset[str] | None]
    process_queue_table: dict[MessageQueue, ProcessQueue]
    """``processQueueTable`` (4.9.7 keeps it in ``RebalanceImpl``; here on the consumer, where views read it)."""
    offset_store: OffsetStore
    consume_from_where: ConsumeFromWhere
    consume_timestamp: str
    _routes: dict[str, TopicRouteData]
    flow_control: FlowControl
    pull_message_service: PullMessageService

    @property
    def allocate(self) -> Callable[[str, str, list[MessageQueue], list[str]], list[MessageQueue]]:
        """The ``AllocateMessageQueueStrategy``: (group, this client id, all queues, all client ids) → its share."""

    @property
    def is_clustering(self) -> bool:
        """``MessageModel.CLUSTERING``: queues are shared out and locked at the broker."""

    def _label(self, kind: TimerKind, queue: MessageQueue | None = None, msg_ids: tuple[str, ...] = ()) -> TimerLabel:
        """What a wait of the consumer stands for, for views."""

    def schedule(
        self,
        delay_ms: int,
        kind: TimerKind,
        action: Callable[..., Any],
        *args: Any,
        queue: MessageQueue | None = None,
        msg_ids: tuple[str, ...] = (),
    ) -> None:
        """Run ``action(*args)`` after ``delay_ms`` on the consumer's scheduled executor."""
