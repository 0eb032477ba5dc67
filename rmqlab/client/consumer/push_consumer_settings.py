"""``PushConsumerSettings``: what ``DefaultMQPushConsumerImpl`` and its parts read of their ``DefaultMQPushConsumer``.

In 4.9.7 the public ``DefaultMQPushConsumer`` holds the settings (group, message model, thresholds, batch sizes,
timeouts, the subscription) and the impl reads them from it (``this.defaultMQPushConsumer.getPullBatchSize()``);
``RebalancePushImpl.messageQueueChanged`` even writes the per-queue thresholds back into it. Stating those members
here, as a Protocol, lets the impl and its parts name the public object's type without importing it (it imports
them), as :mod:`~rmqlab.client.producer.producer_settings` does for the producer.

Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/DefaultMQPushConsumer.java
    (DefaultMQPushConsumer)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from ...common.message_queue import MessageQueue

if TYPE_CHECKING:
    from ...common.consumer_config import ConsumeFromWhere, MessageModel
    from ...core.context import Context
    from .offset_store import OffsetStore

__all__ = ["PushConsumerSettings"]


class PushConsumerSettings(Protocol):
    """The settings the impl reads from its ``DefaultMQPushConsumer`` (the public object holds them, as in Java)."""

    context: Context
    actor: str
    """How the trace names the consumer (``consumer:c1``)."""
    client_id: str
    consumer_group: str
    message_model: MessageModel
    consume_from_where: ConsumeFromWhere
    consume_timestamp: str
    consume_message_batch_max_size: int
    pull_batch_size: int
    max_reconsume_times: int
    consume_timeout: int
    suspend_current_queue_time_millis: int
    consume_thread_min: int
    pull_threshold_for_queue: int
    pull_threshold_size_for_queue: int
    pull_threshold_for_topic: int
    pull_threshold_size_for_topic: int
    pull_interval: int
    consume_concurrently_max_span: int
    await_termination_millis_when_shutdown: int
    subscriptions: dict[str, frozenset[str] | None]
    """``subscription``: topic → tags (``None``: every tag); the impl adds ``%RETRY%<group>`` at start."""
    offset_store: OffsetStore
    """``setOffsetStore``: the impl's offset store, set by the impl when it makes one."""

    @property
    def is_clustering(self) -> bool:
        """``MessageModel.CLUSTERING``: queues shared out in the group, offsets at the broker, orderly locks there."""

    @property
    def allocate(self) -> Callable[[str, str, list[MessageQueue], list[str]], list[MessageQueue]]:
        """The ``AllocateMessageQueueStrategy``: (group, this client id, all queues, all client ids) → its share."""
