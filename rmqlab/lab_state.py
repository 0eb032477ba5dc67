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
    from .broker import Broker
    from .consumer import DefaultMQPushConsumer
    from .delay import DelayLevelTable
    from .producer import DefaultMQProducer
    from .queue import MessageQueue
    from .scheduler import Scheduler
    from .trace import Trace

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
