"""``RebalanceConsumer``: what ``RebalanceImpl`` sees of its ``DefaultMQPushConsumerImpl``.

In 4.9.7 ``RebalancePushImpl`` holds the ``DefaultMQPushConsumerImpl`` and its ``MQClientInstance``, and reads the
impl's ``processQueueTable``, offset store and pull service, and the public consumer's group, subscription and where
to start from. Stating those members here, as a Protocol, lets :mod:`~rmqlab.client.consumer.rebalance_impl` name the
impl's type without importing it (it imports the rebalance), as :mod:`~rmqlab.client.consumer.push_consumer` does for
the consume services.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/DefaultMQPushConsumerImpl.java
    (DefaultMQPushConsumerImpl)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ...common.message_queue import MessageQueue
from ...core.scheduler import TimerKind, TimerLabel

if TYPE_CHECKING:
    from ...core.process import ProcessGroup
    from ...namesrv.route_info_manager import TopicRouteData
    from .flow_control import FlowControl
    from .offset_store import OffsetStore
    from .process_queue import ProcessQueue
    from .pull_message_service import PullMessageService
    from .push_consumer_settings import PushConsumerSettings

__all__ = ["RebalanceConsumer"]


class RebalanceConsumer(Protocol):
    """What a rebalance reads of its push consumer's impl (``DefaultMQPushConsumerImpl`` is one: in 4.9.7
    ``RebalancePushImpl`` holds the ``DefaultMQPushConsumerImpl``, and reads the settings from its
    ``DefaultMQPushConsumer``)."""

    processes: ProcessGroup
    consume_orderly: bool
    pause: bool
    running: bool
    process_queue_table: dict[MessageQueue, ProcessQueue]
    """``processQueueTable`` (4.9.7 keeps it in ``RebalanceImpl``; here on the impl, which every part holds)."""
    offset_store: OffsetStore
    topic_route_table: dict[str, TopicRouteData]
    flow_control: FlowControl
    pull_message_service: PullMessageService

    @property
    def default_mq_push_consumer(self) -> PushConsumerSettings:
        """The public ``DefaultMQPushConsumer``: group, subscription, allocation strategy, where to start from."""

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
