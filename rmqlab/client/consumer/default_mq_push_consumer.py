"""``DefaultMQPushConsumer``: the public push consumer — its settings, its subscription and listener, and the
calls a program makes (``start``, ``shutdown``, ``suspend``, ``resume``).

As in 4.9.7 this class holds the settings and a ``default_mq_push_consumer_impl``
(:class:`~rmqlab.client.consumer.default_mq_push_consumer_impl.DefaultMQPushConsumerImpl`), which does the work: its
lifecycle, and the parts that pull, rebalance and consume. The impl holds this object back and reads the settings
here. What happens to a pulled message is up to the consume service (concurrent or orderly, see
``consume_message_concurrently_service.py`` and ``consume_message_orderly_service.py``).

A lab reads the consumer's running state here too (``running``, ``process_queue_table``, ``consume_service`` …):
those are the impl's, shown through read-only properties, as a Java program reaches them through
``getDefaultMQPushConsumerImpl()``. ``offset_store`` is a field of both, as in Java (``setOffsetStore``).

Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/DefaultMQPushConsumer.java
    (DefaultMQPushConsumer.subscribe, DefaultMQPushConsumer.registerMessageListener, DefaultMQPushConsumer.start,
    DefaultMQPushConsumer.shutdown, DefaultMQPushConsumer.suspend, DefaultMQPushConsumer.resume,
    DefaultMQPushConsumer.getDefaultMQPushConsumerImpl, DefaultMQPushConsumer.getOffsetStore)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...common.consumer_config import ConsumeFromWhere, MessageModel
from ...common.message_queue import MessageQueue
from ...common.util_all import check_consume_timestamp, time_millis_to_human_string3
from ...core.errors import ConfigError
from ...core.validation import MAX_HORIZON_MS, check_choice, check_int
from ..mq_client_instance import MQClientInstance
from .allocate_message_queue import allocate_averagely, allocate_averagely_by_circle
from .default_mq_push_consumer_impl import DefaultMQPushConsumerImpl
from .flow_control import check_consume_thread_max, check_topic_threshold
from .offset_store import OffsetStore
from .process_queue import ProcessQueue
from .pull_message_service import PullRequest

if TYPE_CHECKING:
    from ...core.context import Context

__all__ = ["ConsumeFromWhere", "DefaultMQPushConsumer", "MessageModel", "PullRequest"]

HALF_AN_HOUR_MS = 30 * 60_000
"""``consumeTimestamp``'s default: ``System.currentTimeMillis() - (1000 * 60 * 30)``."""

STRATEGIES = {"AVG": allocate_averagely, "AVG_BY_CIRCLE": allocate_averagely_by_circle}


class DefaultMQPushConsumer:
    """A push consumer instance; its ``client_id`` is its name (sorted as a string in rebalance)."""

    def __init__(
        self,
        context: Context,
        consumer_group: str,
        *,
        name: str | None = None,
        message_model: MessageModel | str = MessageModel.CLUSTERING,
        consume_from_where: ConsumeFromWhere | str = ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
        consume_timestamp: str | None = None,
        consume_message_batch_max_size: int = 1,
        pull_batch_size: int = 32,
        max_reconsume_times: int = -1,
        consume_timeout: int = 15,
        suspend_current_queue_time_millis: int = 1000,
        consume_thread_min: int = 20,
        consume_thread_max: int = 20,
        pull_threshold_for_queue: int = 1000,
        pull_threshold_size_for_queue: int = 100,
        pull_threshold_for_topic: int = -1,
        pull_threshold_size_for_topic: int = -1,
        pull_interval: int = 0,
        consume_concurrently_max_span: int = 2000,
        allocate_message_queue_strategy: str = "AVG",
        await_termination_millis_when_shutdown: int = 0,
    ) -> None:
        if not isinstance(consumer_group, str) or not consumer_group or consumer_group.startswith("%"):
            raise ConfigError("consumer_group", consumer_group, "a non-empty name not starting with '%'")
        self.context = context
        self.consumer_group = consumer_group
        self.client_id = name or f"{consumer_group}-1"
        self.actor = f"consumer:{self.client_id}"
        """How the trace names this consumer."""
        self.message_model = check_choice("message_model", message_model, MessageModel)
        self.consume_from_where = check_choice("consume_from_where", consume_from_where, ConsumeFromWhere)
        if consume_timestamp is None:
            consume_timestamp = time_millis_to_human_string3(context.now - HALF_AN_HOUR_MS)
        self.consume_timestamp = check_consume_timestamp(consume_timestamp)
        """``yyyyMMddHHmmss`` on the lab clock (``rmqlab.common.util_all``: 0 ms is 20000101000000), read only under
        CONSUME_FROM_TIMESTAMP; by default half an hour before this consumer was made, as 4.9.7's field initialiser."""
        self.consume_message_batch_max_size = check_int(
            "consume_message_batch_max_size", consume_message_batch_max_size, 1, 1024
        )
        self.pull_batch_size = check_int("pull_batch_size", pull_batch_size, 1, 1024)
        self.max_reconsume_times = check_int("max_reconsume_times", max_reconsume_times, -1, 2**31 - 1)
        self.consume_timeout = check_int("consume_timeout", consume_timeout, 1, 10**6)
        """Minutes, as in RocketMQ (``consumeTimeout = 15``)."""
        self.suspend_current_queue_time_millis = check_int(
            "suspend_current_queue_time_millis", suspend_current_queue_time_millis, -(2**63), 2**63 - 1
        )
        """Any Java long, as ``setSuspendCurrentQueueTimeMillis`` takes it: 10..30000 ms is applied where it is used
        (``ConsumeMessageOrderlyService.submitConsumeRequestLater``), so 0 means 10 ms and 60 000 means 30 s."""
        self.consume_thread_min = check_int("consume_thread_min", consume_thread_min, 1, 1000)
        self.consume_thread_max = check_consume_thread_max(consume_thread_min, consume_thread_max)
        """Checked, and otherwise without effect as in 4.9.7 (``flow_control.check_consume_thread_max``)."""
        self.pull_threshold_for_queue = check_int("pull_threshold_for_queue", pull_threshold_for_queue, 1, 65535)
        self.pull_threshold_size_for_queue = check_int(
            "pull_threshold_size_for_queue", pull_threshold_size_for_queue, 1, 1024
        )
        """MiB of message bodies (``flow_control.py``)."""
        self.pull_threshold_for_topic = check_topic_threshold(
            "pull_threshold_for_topic", pull_threshold_for_topic, 6553500
        )
        self.pull_threshold_size_for_topic = check_topic_threshold(
            "pull_threshold_size_for_topic", pull_threshold_size_for_topic, 102400
        )
        self.pull_interval = check_int("pull_interval", pull_interval, 0, 65535)
        """ms between a pull that found messages and the next one (0: at once)."""
        self.consume_concurrently_max_span = check_int(
            "consume_concurrently_max_span", consume_concurrently_max_span, 1, 65535
        )
        self.await_termination_millis_when_shutdown = check_int(
            "await_termination_millis_when_shutdown", await_termination_millis_when_shutdown, 0, MAX_HORIZON_MS
        )
        """How long ``shutdown()`` waits for in-flight consume requests before it persists offsets (0: not at all)."""
        if allocate_message_queue_strategy not in STRATEGIES:
            raise ConfigError(
                "allocate_message_queue_strategy", allocate_message_queue_strategy, "one of " + ", ".join(STRATEGIES)
            )
        self.allocate = STRATEGIES[allocate_message_queue_strategy]
        self.subscriptions: dict[str, frozenset[str] | None] = {}
        """``subscription``: topic → tags (``None``: every tag); ``start`` adds ``%RETRY%<group>`` in CLUSTERING."""
        self.listener: Callable[..., Any] | None = None
        """``messageListener``: the registered listener."""
        self.offset_store: OffsetStore
        """``offsetStore``: set by the impl whenever it makes one (at construction, and anew at each start)."""
        self.default_mq_push_consumer_impl = DefaultMQPushConsumerImpl(self)
        """``defaultMQPushConsumerImpl``: the lifecycle, and the parts that pull, rebalance and consume."""

    @property
    def is_clustering(self) -> bool:
        """``MessageModel.CLUSTERING``: queues shared out in the group, offsets at the broker, orderly locks there."""
        return self.message_model is MessageModel.CLUSTERING

    # ------------------------------------------------------------------ configuration
    def subscribe(self, topic: str, sub_expression: str = "*") -> None:
        """Subscribe to ``topic`` with ``"*"`` or a tag expression like ``"TagA || TagB"``."""
        if not isinstance(topic, str) or not topic:
            raise ConfigError("topic", topic, "a non-empty topic name")
        if not isinstance(sub_expression, str) or not sub_expression.strip():
            raise ConfigError("sub_expression", sub_expression, "'*' or tags joined by '||'")
        expr = sub_expression.strip()
        tags = None if expr == "*" else frozenset(t.strip() for t in expr.split("||") if t.strip())
        self.subscriptions[topic] = tags

    def register_message_listener(self, listener: Callable[..., Any]) -> None:
        """A ``MessageListenerConcurrently``: ``listener(msgs, ConsumeConcurrentlyContext)``."""
        if not callable(listener):
            raise ConfigError("listener", listener, "a callable listener(msgs, context)")
        self.listener = listener
        self.default_mq_push_consumer_impl.register_message_listener(listener, orderly=False)

    def register_message_listener_orderly(self, listener: Callable[..., Any]) -> None:
        """A ``MessageListenerOrderly``: ``listener(msgs, ConsumeOrderlyContext)``."""
        if not callable(listener):
            raise ConfigError("listener", listener, "a callable listener(msgs, context)")
        self.listener = listener
        self.default_mq_push_consumer_impl.register_message_listener(listener, orderly=True)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """``start()``: the impl's ``start`` (check, copy the subscriptions, heartbeat, rebalance, start timers)."""
        self.default_mq_push_consumer_impl.start()

    def shutdown(self) -> None:
        """``shutdown()``: the impl's ``shutdown(awaitTerminationMillisWhenShutdown)``, a clean stop."""
        self.default_mq_push_consumer_impl.shutdown()

    def crash(self) -> None:
        """Kill the consumer's process (a lab fault, no Java call): nothing is persisted, locks stay at the broker
        until they expire. From this consumer's own listener, the crash happens when the listener call returns."""
        self.default_mq_push_consumer_impl.crash()

    def suspend(self) -> None:
        """``suspend()``: stop pulling (every pull put off by 1000 ms, every rebalance skipped) until ``resume()``."""
        self.default_mq_push_consumer_impl.suspend()

    def resume(self) -> None:
        """``resume()``: pull again, and rebalance at once."""
        self.default_mq_push_consumer_impl.resume()

    # ------------------------------------------------------------------ the impl's state, for labs and views
    @property
    def orderly(self) -> bool:
        """``getDefaultMQPushConsumerImpl().isConsumeOrderly()``: the listener is orderly."""
        return self.default_mq_push_consumer_impl.consume_orderly

    @property
    def running(self) -> bool:
        """The impl's ``serviceState`` is RUNNING."""
        return self.default_mq_push_consumer_impl.running

    @property
    def pause(self) -> bool:
        """The impl's ``isPause()``: ``suspend()`` was called and ``resume()`` not yet."""
        return self.default_mq_push_consumer_impl.pause

    @property
    def stop_reason(self) -> str | None:
        """How the last incarnation ended: ``"crash"`` or ``"shutdown"`` (``None``: never stopped, or running)."""
        return self.default_mq_push_consumer_impl.stop_reason

    @property
    def generation(self) -> int:
        """How many times this consumer started (for listeners that behave differently after a restart)."""
        return self.default_mq_push_consumer_impl.generation

    @property
    def process_queue_table(self) -> dict[MessageQueue, ProcessQueue]:
        """``getRebalanceImpl().getProcessQueueTable()``: the queues held, each with its ProcessQueue."""
        return self.default_mq_push_consumer_impl.process_queue_table

    @property
    def consume_service(self) -> Any:
        """``getConsumeMessageService()``: the concurrent or orderly consume service (``None`` before the first
        start)."""
        return self.default_mq_push_consumer_impl.consume_service

    @property
    def client_instance(self) -> MQClientInstance:
        """``getmQClientFactory()``: the scheduled and rebalance threads of this incarnation."""
        return self.default_mq_push_consumer_impl.client_instance
