"""Latency fault tolerance: a producer that sidelines a slow or failing broker for a while (4.9.7).

Off by default (``sendLatencyFaultEnable = false``). When on, ``MQFaultStrategy`` does two things:

* after every send attempt, ``updateFaultItem(broker, latency, isolation)`` turns the attempt's latency
  into a *not-available duration* with two tables, scanned from the top::

      latencyMax            50   100   550    1000    2000    3000    15000  ms
      notAvailableDuration   0     0  30000  60000  120000  180000  600000  ms

  A failed attempt (``isolation``) counts as 30 000 ms, hence 600 s. Even a *successful* send that took
  550 ms keeps its broker out of the queue choice for 30 s.
* ``selectOneMessageQueue`` takes the first queue, in round-robin order, whose broker is available again,
  ignoring the broker that just failed (that is the non-latency rule); if none is, ``pickOneAtLeast`` picks
  the least bad broker and 4.9.7 *rewrites* a queue of the route's list to point at it.

Times are virtual milliseconds; ``FaultItem.isAvailable`` is ``now - startTimestamp >= 0``.

Mirrors: client/src/main/java/org/apache/rocketmq/client/latency/MQFaultStrategy.java
    (MQFaultStrategy.selectOneMessageQueue, MQFaultStrategy.updateFaultItem,
    MQFaultStrategy.computeNotAvailableDuration)
Mirrors: client/src/main/java/org/apache/rocketmq/client/latency/LatencyFaultToleranceImpl.java
    (LatencyFaultToleranceImpl.updateFaultItem, LatencyFaultToleranceImpl.isAvailable,
    LatencyFaultToleranceImpl.remove, LatencyFaultToleranceImpl.pickOneAtLeast)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...common.message_queue import MessageQueue
from ...core.errors import ConfigError
from .topic_publish_info import ThreadLocalIndex

__all__ = [
    "ISOLATION_LATENCY_MS",
    "LATENCY_MAX",
    "NOT_AVAILABLE_DURATION",
    "FaultItem",
    "LatencyFaultToleranceImpl",
    "MQFaultStrategy",
]

LATENCY_MAX = (50, 100, 550, 1000, 2000, 3000, 15000)
"""``MQFaultStrategy.latencyMax`` (ms)."""
NOT_AVAILABLE_DURATION = (0, 0, 30000, 60000, 120000, 180000, 600000)
"""``MQFaultStrategy.notAvailableDuration`` (ms), index for index with :data:`LATENCY_MAX`."""
ISOLATION_LATENCY_MS = 30000
"""The latency a failed attempt is charged with (``isolation ? 30000 : currentLatency``)."""

_INT_MIN = -(1 << 31)


def _java_int(value: int) -> int:
    """Wrap like a Java ``int`` (the local ``index++`` in ``selectOneMessageQueue`` may overflow)."""
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def _java_abs_mod(index: int, size: int) -> int:
    """``Math.abs(index) % size`` with Java's rules, then ``if (pos < 0) pos = 0``.

    ``Math.abs(Integer.MIN_VALUE)`` is still negative and Java's ``%`` keeps the dividend's sign, so that
    one index can give a negative position, which 4.9.7 replaces by 0.
    """
    if index == _INT_MIN:
        return 0  # -(2**31 % size) is 0 or negative, and a negative position becomes 0
    return abs(index) % size


def _chm_bin(name: str) -> int:
    """The bin of ``name`` in a 32-bin ``ConcurrentHashMap`` (``spread(hashCode) & 31``).

    ``pickOneAtLeast`` copies the fault table in the map's iteration order before a *stable* sort, so brokers
    that compare equal (same availability, latency and start time) keep that order. ``new
    ConcurrentHashMap(16)`` has 32 bins; rmqlab assumes fewer than 25 brokers (Java resizes past 24).
    """
    h = 0
    for ch in name:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return (h ^ (h >> 16)) & 0x7FFFFFFF & 31


@dataclass(slots=True)
class FaultItem:
    """One broker's entry: the latency of its last attempt and when it is available again."""

    name: str
    current_latency: int
    start_timestamp: int
    seq: int
    """When it was put in the table: items of one ``ConcurrentHashMap`` bin iterate in this order."""

    def is_available(self, now: int) -> bool:
        return now - self.start_timestamp >= 0


class LatencyFaultToleranceImpl:
    """The fault table: broker name → :class:`FaultItem`."""

    def __init__(self, which_item_worst_start: int) -> None:
        self.fault_item_table: dict[str, FaultItem] = {}
        self.which_item_worst = ThreadLocalIndex(which_item_worst_start)
        self._inserted = 0

    def update_fault_item(self, name: str, current_latency: int, not_available_duration: int, now: int) -> None:
        """Overwrite (or create) the broker's item: the *last* attempt decides, good or bad."""
        item = self.fault_item_table.get(name)
        if item is None:
            self._inserted += 1
            self.fault_item_table[name] = FaultItem(name, current_latency, now + not_available_duration, self._inserted)
        else:
            item.current_latency = current_latency
            item.start_timestamp = now + not_available_duration

    def is_available(self, name: str, now: int) -> bool:
        """A broker with no item is available."""
        item = self.fault_item_table.get(name)
        return item is None or item.is_available(now)

    def remove(self, name: str | None) -> None:
        if name is not None:
            self.fault_item_table.pop(name, None)

    def pick_one_at_least(self, now: int) -> str | None:
        """Sort the items (available first, then lower latency, then earlier start) and pick from the better half.

        With one item it is that one; otherwise ``whichItemWorst.incrementAndGet() % (n / 2)``, so with two or
        three items always the best.
        """
        items = sorted(self.fault_item_table.values(), key=lambda item: (_chm_bin(item.name), item.seq))
        items.sort(key=lambda item: (not item.is_available(now), item.current_latency, item.start_timestamp))
        if not items:
            return None
        half = len(items) // 2
        if half <= 0:
            return items[0].name
        return items[self.which_item_worst.increment_and_get() % half].name


def _check_table(parameter: str, value: object) -> tuple[int, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or not value:
        raise ConfigError(parameter, value, "a non-empty list of ints >= 0 (ms)")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ConfigError(parameter, value, "a non-empty list of ints >= 0 (ms)")
    return tuple(value)


class MQFaultStrategy:
    """``MQFaultStrategy``: the on/off switch, the two tables and the fault table."""

    def __init__(
        self,
        *,
        send_latency_fault_enable: bool,
        which_item_worst_start: int,
        latency_max: Sequence[int] = LATENCY_MAX,
        not_available_duration: Sequence[int] = NOT_AVAILABLE_DURATION,
    ) -> None:
        if not isinstance(send_latency_fault_enable, bool):
            raise ConfigError("send_latency_fault_enable", send_latency_fault_enable, "True or False")
        self.send_latency_fault_enable = send_latency_fault_enable
        self.latency_max = _check_table("latency_max", latency_max)
        self.not_available_duration = _check_table("not_available_duration", not_available_duration)
        if len(self.latency_max) != len(self.not_available_duration):
            raise ConfigError(
                "not_available_duration",
                list(not_available_duration),
                f"{len(self.latency_max)} durations, one per latency_max entry",
            )
        self.latency_fault_tolerance = LatencyFaultToleranceImpl(which_item_worst_start)

    def compute_not_available_duration(self, current_latency: int) -> int:
        """From the top: the first ``latencyMax[i] <= latency`` gives ``notAvailableDuration[i]``; else 0."""
        for i in range(len(self.latency_max) - 1, -1, -1):
            if current_latency >= self.latency_max[i]:
                return self.not_available_duration[i]
        return 0

    def update_fault_item(self, broker_name: str, current_latency: int, isolation: bool, now: int) -> int | None:
        """After an attempt; returns when the broker is available again, or ``None`` when the strategy is off."""
        if not self.send_latency_fault_enable:
            return None
        duration = self.compute_not_available_duration(ISOLATION_LATENCY_MS if isolation else current_latency)
        self.latency_fault_tolerance.update_fault_item(broker_name, current_latency, duration, now)
        return now + duration

    def select_latency_aware(
        self,
        queues: list[MessageQueue],
        write_queue_nums: dict[str, int],
        index: int,
        next_index: ThreadLocalIndex,
        now: int,
    ) -> MessageQueue:
        """The ``sendLatencyFaultEnable`` branch of ``selectOneMessageQueue``.

        ``queues`` is the producer's ``TopicPublishInfo.messageQueueList`` for the topic, which this method may
        change in place, as 4.9.7 does: when no broker is available, the round-robin queue it falls back to is
        re-pointed at ``pickOneAtLeast``'s broker and a new queue id (4.9.8 returns a copy instead). The list
        keeps that queue until the producer's route changes. ``index`` is ``sendWhichQueue.incrementAndGet()``.
        """
        fault = self.latency_fault_tolerance
        size = len(queues)
        for _ in range(size):
            pos = _java_abs_mod(index, size)
            index = _java_int(index + 1)
            mq = queues[pos]
            if fault.is_available(mq.broker_name, now):
                return mq
        not_best = fault.pick_one_at_least(now)
        write_nums = write_queue_nums.get(not_best, -1) if not_best is not None else -1
        if write_nums > 0:
            pos = _java_abs_mod(next_index.increment_and_get(), size)
            mq = queues[pos]
            if not_best is not None:
                mq = MessageQueue(mq.topic, not_best, next_index.increment_and_get() % write_nums)
                queues[pos] = mq  # 4.9.7's setBrokerName / setQueueId on the shared MessageQueue
            return mq
        fault.remove(not_best)
        return queues[_java_abs_mod(next_index.increment_and_get(), size)]
