"""``ProducerSettings``: what ``DefaultMQProducerImpl`` reads of its ``DefaultMQProducer``.

In 4.9.7 the public ``DefaultMQProducer`` holds the settings (group, ``sendMsgTimeout``, the retry counts) and
``DefaultMQProducerImpl`` reads them from it. Stating those members here, as a Protocol, lets
:mod:`~rmqlab.client.producer.default_mq_producer_impl` name the producer's type without importing the public class
(which imports it), as :mod:`~rmqlab.client.consumer.rebalance_consumer` does for the rebalance.

Mirrors: client/src/main/java/org/apache/rocketmq/client/producer/DefaultMQProducer.java
    (DefaultMQProducer)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ...core.context import Context
    from ...core.process import ProcessGroup
    from .latency_fault_tolerance import MQFaultStrategy
    from .topic_publish_info import ThreadLocalIndex

__all__ = ["ProducerSettings"]


class ProducerSettings(Protocol):
    """What the impl reads from its ``DefaultMQProducer`` (the public object holds the settings, as in Java)."""

    context: Context
    name: str
    actor: str
    running: bool
    producer_group: str
    send_msg_timeout: int
    retry_times_when_send_failed: int
    retry_times_when_send_async_failed: int
    retry_another_broker_when_not_store_ok: bool
    send_which_queue: ThreadLocalIndex
    fault_strategy: MQFaultStrategy
    processes: ProcessGroup
