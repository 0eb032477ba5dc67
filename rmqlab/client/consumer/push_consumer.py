"""``PushConsumer``: what the consume services see of their ``DefaultMQPushConsumerImpl``.

:class:`~rmqlab.client.consumer.default_mq_push_consumer.DefaultMQPushConsumer` builds its consume service (concurrent
or orderly) and hands it itself; the service reads the consumer's settings, calls back into its rebalance (queue locks)
and its scheduled
executor. Stating those members here, as a Protocol, lets ``consume_concurrently`` and ``consume_orderly`` name
the consumer's type without importing ``consumer`` (which imports them): no import cycle, type-only imports
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
    from ...core.context import Context
    from ...core.process import ProcessGroup
    from ..producer.default_mq_producer import DefaultMQProducer
    from .offset_store import OffsetStore
    from .process_queue import ProcessQueue
    from .rebalance_impl import RebalanceImpl

__all__ = ["PushConsumer"]


class PushConsumer(Protocol):
    """The members of a push consumer its consume service uses (``DefaultMQPushConsumer`` is one)."""

    context: Context
    actor: str
    client_id: str
    consumer_group: str
    consume_message_batch_max_size: int
    consume_thread_min: int
    consume_timeout: int
    suspend_current_queue_time_millis: int
    listener: Callable[..., Any] | None
    in_listener: bool
    crash_requested: bool
    inner_producer: DefaultMQProducer | None
    offset_store: OffsetStore
    process_queue_table: dict[MessageQueue, ProcessQueue]
    processes: ProcessGroup

    @property
    def is_clustering(self) -> bool:
        """``MessageModel.CLUSTERING``: queues are shared out and locked at the broker."""

    def effective_max_reconsume_times(self) -> int:
        """``getMaxReconsumeTimes``: −1 means 16 (concurrent) or ``Integer.MAX_VALUE`` (orderly)."""

    def crash(self) -> None:
        """Kill the consumer's process (asked for from inside a listener: after the listener returns)."""

    @property
    def rebalance_impl(self) -> RebalanceImpl:
        """The consumer's ``RebalanceImpl``: ``lock`` one queue at its broker, ``lockAll`` to renew them all."""

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

    def _label(self, kind: TimerKind, queue: MessageQueue | None = None, msg_ids: tuple[str, ...] = ()) -> TimerLabel:
        """What a wait of this consumer stands for, for views."""
