"""``PushConsumer``: what the consume services see of their ``DefaultMQPushConsumerImpl``.

:class:`~rmqlab.client.consumer.default_mq_push_consumer_impl.DefaultMQPushConsumerImpl` builds its consume service
(concurrent or orderly) and hands it itself, as 4.9.7's ``new ConsumeMessageConcurrentlyService(this, listener)``;
the service reads the settings from the impl's ``default_mq_push_consumer`` and calls back into the impl's rebalance
(queue locks), its offset store and its scheduled executor. Stating those members here, as a Protocol, lets the
consume services name the impl's type without importing it (it imports them): no import cycle, type-only imports
included.

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
    from ..producer.default_mq_producer import DefaultMQProducer
    from .offset_store import OffsetStore
    from .process_queue import ProcessQueue
    from .push_consumer_settings import PushConsumerSettings
    from .rebalance_impl import RebalanceImpl

__all__ = ["PushConsumer"]


class PushConsumer(Protocol):
    """The members of a push consumer's impl its consume service uses (``DefaultMQPushConsumerImpl`` is one)."""

    message_listener_inner: Callable[..., Any] | None
    in_listener: bool
    crash_requested: bool
    inner_producer: DefaultMQProducer | None
    offset_store: OffsetStore
    process_queue_table: dict[MessageQueue, ProcessQueue]
    processes: ProcessGroup

    @property
    def default_mq_push_consumer(self) -> PushConsumerSettings:
        """The public ``DefaultMQPushConsumer``, where the settings are read."""

    @property
    def rebalance_impl(self) -> RebalanceImpl:
        """The consumer's ``RebalanceImpl``: ``lock`` one queue at its broker, ``lockAll`` to renew them all."""

    def effective_max_reconsume_times(self) -> int:
        """``getMaxReconsumeTimes``: −1 means 16 (concurrent) or ``Integer.MAX_VALUE`` (orderly)."""

    def crash(self) -> None:
        """Kill the consumer's process (asked for from inside a listener: after the listener returns)."""

    def schedule(
        self,
        delay_ms: int,
        kind: TimerKind,
        action: Callable[..., Any],
        *args: Any,
        queue: MessageQueue | None = None,
        msg_ids: tuple[str, ...] = (),
    ) -> None:
        """Run ``action(*args)`` after ``delay_ms`` on the consumer's scheduled executor (``executeTaskLater``)."""

    def _label(self, kind: TimerKind, queue: MessageQueue | None = None, msg_ids: tuple[str, ...] = ()) -> TimerLabel:
        """What a wait of this consumer stands for, for views."""
