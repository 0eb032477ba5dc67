"""Flow control of a push consumer's pulls: when ``pullMessage`` puts a pull off, and for how long.

A push consumer pulls as fast as its broker answers; what slows it down is ``DefaultMQPushConsumerImpl.pullMessage``
declining to send a pull and asking ``PullMessageService`` to try again later (``executePullRequestLater``):

* the consumer is paused (``suspend()``): 1000 ms, ``PULL_TIME_DELAY_MILLS_WHEN_SUSPEND``;
* the ProcessQueue caches more than ``pullThresholdForQueue`` messages (1000), or more than
  ``pullThresholdSizeForQueue`` MiB of bodies (100), or (concurrent) spans more than ``consumeConcurrentlyMaxSpan``
  offsets (2000): 50 ms, ``PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL``;
* (orderly, clustering) the queue is not locked at the broker: 1000 ms, ``pullTimeDelayMillsWhenException``;
* the pull failed, for want of an answer or with an error answer: 1000 ms, ``pullTimeDelayMillsWhenException``;
  but 20 ms (``PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL``) if the answer was ``FLOW_CONTROL`` (215).

Each one is a ``PULL_DEFERRED`` trace event with its ``reason`` and ``delay_ms``. The cached size counts message
bodies only, in whole MiB (``msgSize / (1024 * 1024)``, integer division): 100 MiB + 1 byte is still 100 MiB.

``pullThresholdForTopic`` / ``pullThresholdSizeForTopic`` (−1: off) are not checked by ``pullMessage`` at all:
``RebalancePushImpl.messageQueueChanged`` divides them by the number of ProcessQueues this consumer holds (every
topic's, the ``%RETRY%`` queue included) after each rebalance that changed something, and overwrites the per-queue
thresholds with ``Math.max(1, threshold / count)``.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/DefaultMQPushConsumerImpl.java
    (DefaultMQPushConsumerImpl.pullMessage, DefaultMQPushConsumerImpl.executePullRequestLater)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/RebalancePushImpl.java
    (RebalancePushImpl.messageQueueChanged)
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from ...common.message_queue import MessageQueue
from ...core.errors import ConfigError
from ...core.trace import EventKind
from ...core.validation import as_int, check_int
from ...remoting.exceptions import MQBrokerException, RemoteError
from ...remoting.response_code import ResponseCode
from .process_queue import ProcessQueue

if TYPE_CHECKING:
    from .push_consumer_settings import PushConsumerSettings

__all__ = [
    "PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL",
    "PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL",
    "PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION",
    "PULL_TIME_DELAY_MILLS_WHEN_SUSPEND",
    "DeferReason",
    "FlowControl",
    "check_consume_thread_max",
    "check_topic_threshold",
]

PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION = 1_000
"""``pullTimeDelayMillsWhenException``: the impl's field says 3000, but its constructor copies the
``DefaultMQPushConsumer``'s ``ClientConfig`` value, 1000."""
PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL = 50
PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL = 20
PULL_TIME_DELAY_MILLS_WHEN_SUSPEND = 1_000
MIB = 1024 * 1024


class DeferReason(StrEnum):
    """Why ``pullMessage`` put a pull off (the ``reason`` of a ``PULL_DEFERRED`` event)."""

    PAUSED = "paused"
    """``isPause()``: the consumer was suspended."""
    FLOW_CONTROL_COUNT = "flow_control_count"
    """``cachedMessageCount > pullThresholdForQueue``."""
    FLOW_CONTROL_SIZE = "flow_control_size"
    """``cachedMessageSizeInMiB > pullThresholdSizeForQueue``."""
    FLOW_CONTROL_SPAN = "flow_control_span"
    """Concurrent only: ``processQueue.getMaxSpan() > consumeConcurrentlyMaxSpan``."""
    NOT_LOCKED = "not_locked"
    """Orderly (clustering) only: "pull message later because not locked in broker"."""
    EXCEPTION = "exception"
    """The pull failed (``PullCallback.onException``), or an orderly queue's start offset could not be computed."""
    BROKER_FLOW_CONTROL = "broker_flow_control"
    """The broker answered ``ResponseCode.FLOW_CONTROL`` (215)."""


def check_topic_threshold(parameter: str, value: Any, high: int) -> int:
    """``pullThresholdForTopic`` / ``pullThresholdSizeForTopic``: −1 (off) or an int in ``1..high`` (checkConfig)."""
    number = as_int(value)
    if number is None or not (number == -1 or 1 <= number <= high):
        raise ConfigError(parameter, value, f"-1 (no topic-wide limit) or an int in 1..{high}")
    return number


def check_consume_thread_max(thread_min: int, value: Any) -> int:
    """``consumeThreadMax``: an int in 1..1000, not below ``consumeThreadMin`` (``checkConfig``).

    Nothing else reads it, as in 4.9.7: the consume pool is ``new ThreadPoolExecutor(consumeThreadMin,
    consumeThreadMax, 60 s, new LinkedBlockingQueue<Runnable>())``, and a pool whose queue is unbounded starts a
    thread beyond its core size only when the queue refuses a task, which never happens. ``consume_thread_min``
    threads consume, however long the queue grows.
    """
    thread_max = check_int("consume_thread_max", value, 1, 1000)
    if thread_min > thread_max:
        raise ConfigError("consume_thread_min", thread_min, f"an int <= consume_thread_max ({thread_max})")
    return thread_max


class FlowControlled(Protocol):
    """What flow control reads of its push consumer's impl (``DefaultMQPushConsumerImpl`` is one); the thresholds
    it reads, and ``messageQueueChanged`` sets, are the public consumer's settings."""

    consume_orderly: bool
    pause: bool
    """``DefaultMQPushConsumerImpl.pause``: set by the consumer's ``suspend()``, cleared by its ``resume()`` (and
    gone with the process: a crash or shutdown clears it)."""
    process_queue_table: dict[MessageQueue, ProcessQueue]

    @property
    def default_mq_push_consumer(self) -> PushConsumerSettings:
        """The public ``DefaultMQPushConsumer``, where the thresholds are read and set."""


class FlowControl:
    """The flow-control part of ``DefaultMQPushConsumerImpl``: the gates of ``pullMessage`` and the per-queue
    thresholds ``messageQueueChanged`` derives; the consumer's impl holds one."""

    def __init__(self, impl: FlowControlled) -> None:
        self.default_mq_push_consumer_impl = impl
        self.default_mq_push_consumer = impl.default_mq_push_consumer
        """The public consumer: its thresholds (``getPullThresholdForQueue()`` …)."""

    def log_pause(self, what: str) -> None:
        """What 4.9.7 logs at ``suspend()`` / ``resume()`` ("suspend this consumer, <group>"), as a WARNING event."""
        consumer = self.default_mq_push_consumer
        message = f"{what} this consumer, {consumer.consumer_group}"
        consumer.context.trace.record(consumer.context.now, EventKind.WARNING, consumer.actor, None, message=message)

    def pull_deferral(self, pq: ProcessQueue) -> tuple[DeferReason, int, dict[str, Any]] | None:
        """``pullMessage``'s gates before the orderly lock check, in their order: paused, cached count, cached
        size, concurrent span. The reason, the delay and the figures it was decided on; ``None``: pull."""
        impl, consumer = self.default_mq_push_consumer_impl, self.default_mq_push_consumer
        if impl.pause:
            return DeferReason.PAUSED, PULL_TIME_DELAY_MILLS_WHEN_SUSPEND, {}
        count, size_mib = pq.msg_count, pq.msg_size // MIB
        if count > consumer.pull_threshold_for_queue:
            figures = {"cached_count": count, "threshold": consumer.pull_threshold_for_queue}
            if consumer.pull_threshold_for_topic != -1:
                figures["topic_threshold"] = consumer.pull_threshold_for_topic
            return DeferReason.FLOW_CONTROL_COUNT, PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL, figures
        if size_mib > consumer.pull_threshold_size_for_queue:
            figures = {"cached_mib": size_mib, "threshold": consumer.pull_threshold_size_for_queue}
            if consumer.pull_threshold_size_for_topic != -1:
                figures["topic_threshold"] = consumer.pull_threshold_size_for_topic
            return DeferReason.FLOW_CONTROL_SIZE, PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL, figures
        if not impl.consume_orderly and pq.max_span() > consumer.consume_concurrently_max_span:
            figures = {"span": pq.max_span(), "threshold": consumer.consume_concurrently_max_span}
            return DeferReason.FLOW_CONTROL_SPAN, PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL, figures
        return None

    @staticmethod
    def error_deferral(error: RemoteError) -> tuple[DeferReason, int, dict[str, Any]]:
        """``PullCallback.onException``: 20 ms after a FLOW_CONTROL (215) answer, 1000 ms after anything else.

        The 4.9.7 broker never answers a pull with 215: an overloaded broker says SYSTEM_BUSY (2), "[OVERLOAD]system
        busy, start flow control for a while" or "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control …", and that
        is an ordinary exception to the client: 1000 ms.
        """
        if isinstance(error, MQBrokerException):
            figures: dict[str, Any] = {"error": error.name, "code": error.code.name}
            if error.code is ResponseCode.FLOW_CONTROL:
                return DeferReason.BROKER_FLOW_CONTROL, PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL, figures
            return DeferReason.EXCEPTION, PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION, figures
        return DeferReason.EXCEPTION, PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION, {"error": error.name}

    def record_deferral(self, mq: MessageQueue, reason: DeferReason, delay_ms: int, figures: dict[str, Any]) -> int:
        """Trace ``executePullRequestLater(pullRequest, delay_ms)``; return the delay."""
        consumer = self.default_mq_push_consumer
        consumer.context.trace.record(
            consumer.context.now,
            EventKind.PULL_DEFERRED,
            consumer.actor,
            None,
            queue=str(mq),
            reason=reason.value,
            delay_ms=delay_ms,
            **figures,
        )
        return delay_ms

    def message_queue_changed(self) -> dict[str, int]:
        """``RebalancePushImpl.messageQueueChanged``: a topic-wide limit becomes ``max(1, limit / queues held)``.

        ``processQueueTable.size()`` counts every topic's queues, the ``%RETRY%<group>`` one too: 1000 for a topic
        of 4 queues held with its retry queue is 200 per queue, not 250. Returns the new per-queue values (for the
        REBALANCED event), none when no topic-wide limit is set.
        """
        impl, consumer = self.default_mq_push_consumer_impl, self.default_mq_push_consumer
        held = len(impl.process_queue_table)
        changed: dict[str, int] = {}
        if held == 0:
            return changed
        if consumer.pull_threshold_for_topic != -1:
            consumer.pull_threshold_for_queue = max(1, consumer.pull_threshold_for_topic // held)
            changed["pull_threshold_for_queue"] = consumer.pull_threshold_for_queue
        if consumer.pull_threshold_size_for_topic != -1:
            consumer.pull_threshold_size_for_queue = max(1, consumer.pull_threshold_size_for_topic // held)
            changed["pull_threshold_size_for_queue"] = consumer.pull_threshold_size_for_queue
        return changed
