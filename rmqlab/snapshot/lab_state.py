"""``LabState``: what :mod:`rmqlab.snapshot` reads of a Lab to copy it into plain data.

The :class:`~rmqlab.lab.Lab` builds its snapshot (``lab.snapshot()``) and the snapshot reads the Lab's clock,
trace, clients, brokers and timers. Stating those members here, as a Protocol of read-only properties, lets the
snapshot name its argument's type without importing ``lab`` (which imports it): no import cycle, type-only
imports included.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..broker.broker_controller import Broker
    from ..client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
    from ..client.producer.default_mq_producer import DefaultMQProducer
    from ..common.message_queue import MessageQueue
    from ..core.scheduler import Scheduler
    from ..core.trace import Trace
    from ..remoting.remoting import Remoting
    from ..store.schedule_message_service import DelayLevelTable

__all__ = ["LabState"]


class LabState(Protocol):
    """The members of a Lab a snapshot reads (``Lab`` is one); none of them is changed by taking a snapshot."""

    @property
    def now(self) -> int:
        """Virtual time in ms."""

    @property
    def trace(self) -> Trace:
        """The event log."""

    @property
    def scheduler(self) -> Scheduler:
        """The clock and its timers (``lab.snapshot().timers``)."""

    @property
    def remoting(self) -> Remoting:
        """The network: its partitions and the requests waiting for an answer."""

    @property
    def brokers(self) -> Mapping[str, Broker]:
        """Brokers by name."""

    @property
    def producers(self) -> Mapping[str, DefaultMQProducer]:
        """Producers by name."""

    @property
    def consumers(self) -> Mapping[str, DefaultMQPushConsumer]:
        """Consumers by client id."""

    @property
    def local_offset_files(self) -> Mapping[tuple[str, str], Mapping[MessageQueue, int]]:
        """``LocalFileOffsetStore``'s files, by (client id, group)."""

    @property
    def delay_levels(self) -> DelayLevelTable:
        """The brokers' ``messageDelayLevel`` table."""
