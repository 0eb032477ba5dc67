"""Delay levels and the ScheduleMessageService that delivers delayed messages.

A message with delay level ``L > 0`` is not written to its topic: the CommitLog rewrites it to
``SCHEDULE_TOPIC_XXXX`` queue ``L - 1`` with ``REAL_TOPIC`` / ``REAL_QID`` properties, and the
consume-queue entry remembers ``deliverTimestamp = storeTimestamp + delay(L)``. One timer per level
walks that queue in order and puts each due message back on its real topic.

The real timer wakes every 100 ms (``DELAY_FOR_A_WHILE``) to look at the head of its queue. We
compute the tick at which the head becomes due and wake exactly then: the delivery times are the
same as with polling (same phase, same 100 ms grid), without 170,000 empty wake-ups per level in a
4 h 46 min run.

Each level's progress (the next offset to deliver) lives in memory and is written to ``delayOffset.json``
by a fixed-rate task, 10 s after start and every ``flushDelayOffsetInterval`` (10 s) after that
(``ScheduleMessageService.start``). A broker *crash* loses what was not written yet: at restart
``start`` → ``load`` reads the file back and ``correctDelayOffset`` clamps each offset into its
ConsumeQueue's ``[min, max]``, so a message delivered after the last persist is delivered a second time
(same ``UNIQ_KEY``, a new queue offset on its real topic), and a message still waiting is delivered at
its due time, or 1 s after the restart (``FIRST_DELAY_TIME``) if that has passed. Nothing parked is lost:
the CommitLog and ConsumeQueues survive a process crash. The persist task is computed, not scheduled (no
timer every 10 s in the views): the file holds the offsets as they were just before the last tick.

Mirrors: store/src/main/java/org/apache/rocketmq/store/schedule/ScheduleMessageService.java
    (ScheduleMessageService.start, ScheduleMessageService.load, ScheduleMessageService.correctDelayOffset,
    ScheduleMessageService.computeDeliverTimestamp, ScheduleMessageService.persist,
    DeliverDelayedMessageTimerTask.executeOnTimeup)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..common.message import (
    PROPERTY_DELAY,
    PROPERTY_REAL_QID,
    PROPERTY_REAL_TOPIC,
    SCHEDULE_TOPIC,
    MessageExt,
)
from ..common.message_queue import MessageQueue
from ..core.duration import format_duration, parse_duration
from ..core.errors import ConfigError
from ..core.scheduler import Scheduler, Timer, TimerKind, TimerLabel
from ..core.trace import EventKind, Trace
from .commit_log import CommitLog, ConsumeQueue
from .put_message_status import PutMessageStatus, is_failed_put

__all__ = [
    "DEFAULT_MESSAGE_DELAY_LEVEL",
    "DefaultMessageStore",
    "DelayLevelTable",
    "ScheduleMessageService",
]

DEFAULT_MESSAGE_DELAY_LEVEL = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"


class DelayLevelTable:
    """``MessageStoreConfig.messageDelayLevel`` parsed: level ``L`` (1-based) → milliseconds."""

    def __init__(self, spec: str | Sequence[int | str] = DEFAULT_MESSAGE_DELAY_LEVEL) -> None:
        parts = spec.split() if isinstance(spec, str) else list(spec)
        if not parts:
            raise ConfigError("message_delay_level", spec, "at least one delay, e.g. '1s 5s 10s'")
        self.delays_ms: tuple[int, ...] = tuple(
            parse_duration(p, f"message_delay_level[{i}]") for i, p in enumerate(parts)
        )
        self.labels: tuple[str, ...] = tuple(str(p) if isinstance(p, str) else format_duration(p) for p in parts)
        self.max_level = len(self.delays_ms)
        """``maxDelayLevel``: the number of entries (18 by default) — also the only cap."""

    def delay_ms(self, level: int) -> int:
        """Delay of ``level``; raises for a level outside ``1..max_level``."""
        if not 1 <= level <= self.max_level:
            raise ConfigError("delay_level", level, f"an int in 1..{self.max_level}")
        return self.delays_ms[level - 1]

    def __len__(self) -> int:
        return self.max_level


class DefaultMessageStore(Protocol):
    """What the schedule service reads and writes of its broker's store (``ScheduleMessageService`` holds a
    ``DefaultMessageStore``); :class:`~rmqlab.store.default_message_store.DefaultMessageStore` is one. Written here,
    as the store builds this service."""

    name: str
    trace: Trace
    commit_log: CommitLog
    @property
    def put_status(self) -> PutMessageStatus:
        """What the store answers a put (the ``put_status`` fault): a failing one stops the delivery."""

    def find_consume_queue(self, topic: str, queue_id: int) -> ConsumeQueue | None:
        """The ConsumeQueue of ``topic`` queue ``queue_id``, if it exists."""

    def put_message(self, msg: MessageExt) -> object:
        """Store ``msg`` (a due message, back in its real topic)."""


class ScheduleMessageService:
    """Per-level timers that move due messages from ``SCHEDULE_TOPIC_XXXX`` to their real topic."""

    FIRST_DELAY_TIME = 1000
    DELAY_FOR_A_WHILE = 100
    FIRST_PERSIST_DELAY = 10_000
    """``scheduleAtFixedRate(persist, 10000, flushDelayOffsetInterval)``: the first write, 10 s after start."""

    def __init__(
        self,
        broker: DefaultMessageStore,
        scheduler: Scheduler,
        levels: DelayLevelTable,
        flush_delay_offset_interval: int = 10_000,
    ) -> None:
        self.broker = broker
        self.scheduler = scheduler
        self.levels = levels
        if (
            isinstance(flush_delay_offset_interval, bool)
            or not isinstance(flush_delay_offset_interval, int)
            or flush_delay_offset_interval <= 0
        ):
            raise ConfigError(
                "flush_delay_offset_interval", flush_delay_offset_interval, "a positive int of milliseconds"
            )
        self.flush_delay_offset_interval = flush_delay_offset_interval
        """``MessageStoreConfig.flushDelayOffsetInterval`` (10 s): the period of the ``delayOffset.json`` writes."""
        self.offset_table: dict[int, int] = {}
        """In memory: level → next ConsumeQueue offset of ``SCHEDULE_TOPIC_XXXX`` queue ``level - 1`` to deliver."""
        self.persisted: dict[int, int] = {}
        """``delayOffset.json`` as last written (empty until the first persist: a fresh store has no file)."""
        self.persisted_at: int | None = None
        """When ``persisted`` was written (None: never); the file survives a crash, so this does too."""
        self._started_at = 0
        self._persisted_tick = -1
        self._timers: dict[int, Timer] = {}
        self._failing: set[int] = set()
        """Levels whose last delivery's put failed (one WARNING per failing streak, not one every 100 ms)."""
        self._phase = 0
        self.running = False
        self.actor = f"schedule:{broker.name}"
        self.level_queues = tuple(MessageQueue(SCHEDULE_TOPIC, broker.name, i) for i in range(levels.max_level))
        """``SCHEDULE_TOPIC_XXXX`` queue ``level - 1`` of this broker, per level: what each level's timer is about."""

    def start(self, *, restart: bool = False) -> None:
        """``start``: ``load`` the offsets (after a restart), then every level's timer ``FIRST_DELAY_TIME`` from now.

        At the broker's first start there is no ``delayOffset.json``; after a crash the in-memory table is gone
        and the file's offsets are what the timers start from.
        """
        now = self.scheduler.now
        if restart:
            self._load()
        self.running = True
        self._failing.clear()
        self._started_at = now
        self._persisted_tick = -1
        self._phase = now + self.FIRST_DELAY_TIME
        for level in range(1, self.levels.max_level + 1):
            self._arm(level)

    def stop(self) -> None:
        """The broker process died: cancel every timer; whatever was not persisted yet is lost at the restart."""
        self._catch_up_persist()
        self.running = False
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _last_persist_tick(self) -> int:
        """Time of the last fixed-rate ``persist`` at or before now, or -1 if none has run since ``start``."""
        first = self._started_at + self.FIRST_PERSIST_DELAY
        now = self.scheduler.now
        if now < first:
            return -1
        return first + (now - first) // self.flush_delay_offset_interval * self.flush_delay_offset_interval

    def _catch_up_persist(self) -> None:
        """Apply the persist ticks that have passed, before the offset table changes (or at a crash).

        At a millisecond where a persist and a delivery are both due, the persist runs first: it is the oldest
        task in the executor's queue (a periodic task keeps its sequence number; each delivery timer is new).
        A crash at the millisecond of a persist comes after it.
        """
        if not self.running:
            return
        tick = self._last_persist_tick()
        if tick > self._persisted_tick:
            self._persisted_tick = tick
            self.persisted = dict(self.offset_table)
            self.persisted_at = tick

    def delay_offset_file(self) -> tuple[dict[int, int], int | None, int | None]:
        """``(delayOffset.json's offsets, when it was last written, when the next write comes)``, read-only.

        For views: the file as ``persist`` left it at the last fixed-rate tick, without applying the ticks the
        service has not caught up with yet (the table has not changed since such a tick, or it would have: every
        change catches up first). A stopped service writes nothing (next write None)."""
        tick = self._last_persist_tick() if self.running else -1
        saved, written = dict(self.persisted), self.persisted_at
        if tick > self._persisted_tick:  # a persist ran since the last change: it wrote the table as it is
            saved, written = dict(self.offset_table), tick
        if not self.running:
            return saved, written, None
        first = self._started_at + self.FIRST_PERSIST_DELAY
        now = self.scheduler.now
        following = first if now < first else tick + self.flush_delay_offset_interval
        return saved, written, following

    def _load(self) -> None:
        """``load``: read ``delayOffset.json`` into the table, then ``correctDelayOffset``; traced when it matters."""
        lost = self.offset_table
        self.offset_table = dict(self.persisted)
        trace = self.broker.trace
        now = self.scheduler.now
        for level in range(1, self.levels.max_level + 1):
            queue = self.broker.find_consume_queue(SCHEDULE_TOPIC, level - 1)
            current = self.offset_table.get(level)
            if current is None:
                continue
            # 4.9.7's findConsumeQueue creates a missing queue, empty (min = max = 0): its level's offset becomes 0
            low, high = (queue.min_offset, queue.max_offset) if queue is not None else (0, 0)
            corrected = min(max(current, low), high)
            if corrected != current:
                self.offset_table[level] = corrected
                trace.record(
                    now,
                    EventKind.WARNING,
                    self.actor,
                    None,
                    message=f"correct delay offset [ delayLevel {level} ] from {current} to {corrected}",
                )
        for level in sorted(lost):
            loaded = self.offset_table.get(level, 0)
            if lost[level] > loaded:
                trace.record(
                    now,
                    EventKind.WARNING,
                    self.actor,
                    None,
                    message=(
                        f"delayOffset.json gives delay level {level} offset {loaded}, not {lost[level]}: "
                        f"{lost[level] - loaded} message(s) delivered since the last persist will be delivered again"
                    ),
                    level=level,
                    loaded_offset=loaded,
                    lost_offset=lost[level],
                )

    def on_enqueue(self, level: int) -> None:
        """A message was just parked at ``level``: make sure that level's timer will see it."""
        if self.running and level not in self._timers:
            self._arm(level)

    def _next_tick(self, not_before: int) -> int:
        """First timer tick at or after ``not_before`` on the 100 ms grid that starts at the phase."""
        if not_before <= self._phase:
            return self._phase
        steps = -((self._phase - not_before) // self.DELAY_FOR_A_WHILE)
        return self._phase + steps * self.DELAY_FOR_A_WHILE

    def _arm(self, level: int) -> None:
        queue = self.broker.find_consume_queue(SCHEDULE_TOPIC, level - 1)
        offset = self.offset_table.get(level, 0)
        if queue is None or offset >= queue.max_offset:
            self._timers.pop(level, None)
            return
        entry = queue.entries[offset]
        tick = self._next_tick(max(entry.deliver_timestamp, self.scheduler.now + 1))
        head = self.broker.commit_log.get(entry.commit_log_offset)
        label = TimerLabel(
            TimerKind.DELAY_LEVEL,
            self.actor,
            self.level_queues[level - 1],
            () if head is None else (head.msg_id,),
            level,
        )
        self._timers[level] = self.scheduler.schedule_at(tick, self._run_level, level, label=label)

    def _run_level(self, level: int) -> None:
        """``DeliverDelayedMessageTimerTask.executeOnTimeup`` for one level."""
        self._timers.pop(level, None)
        if not self.running:
            return
        queue = self.broker.find_consume_queue(SCHEDULE_TOPIC, level - 1)
        if queue is None:
            return
        now = self.scheduler.now
        self._catch_up_persist()  # the persists due by now see the table as it was before this run
        # the entries there now (``getIndexBuffer``): a delivery goes to its real topic, never back to this queue
        for offset in range(self.offset_table.get(level, 0), queue.max_offset):
            entry = queue.entries[offset]
            if entry.deliver_timestamp > now:
                break
            stored = self.broker.commit_log.get(entry.commit_log_offset)
            if stored is not None:
                if is_failed_put(self.broker.put_status):
                    self._put_failed(stored, level)
                    break  # syncDeliver: offset not advanced; the same message again DELAY_FOR_A_WHILE later
                self._failing.discard(level)
                self._deliver(stored, level)
            self.offset_table[level] = offset + 1
        self._arm(level)

    def _put_failed(self, stored: MessageExt, level: int) -> None:
        """``syncDeliver`` got a status other than PUT_OK: nothing stored, the level's offset stays, and the timer
        tries the same message again after ``DELAY_FOR_A_WHILE`` (100 ms) until a put succeeds. (The flush and slave
        statuses cannot happen here: ``messageTimeup`` sets ``setWaitStoreMsgOK(false)``.)"""
        if level in self._failing:
            return
        self._failing.add(level)
        self.broker.trace.record(
            self.scheduler.now,
            EventKind.WARNING,
            self.actor,
            stored.msg_id,
            message=(
                f"ScheduleMessageService put message failed: {self.broker.put_status.value}; delay level {level} "
                f"tries again every {self.DELAY_FOR_A_WHILE} ms"
            ),
            level=level,
        )

    def _deliver(self, stored: MessageExt, level: int) -> None:
        """``messageTimeup``: a new message on its real topic and queue, with the parked one's id, body, tags, keys,
        properties, born time and reconsume_times; ``put_message`` gives it its store time, offsets and store id.

        Only ``DELAY`` is cleared; ``REAL_TOPIC`` and ``REAL_QID`` are read, not removed, so the delivered copy
        (and a dead letter made from it) still carries them. The body is shared, as between any two CommitLog
        entries (the send-back's too): nothing changes a stored message's body, and each pull copies it.
        """
        properties = dict(stored.properties)
        properties.pop(PROPERTY_DELAY, None)
        msg = MessageExt(
            topic=properties[PROPERTY_REAL_TOPIC],
            queue_id=int(properties[PROPERTY_REAL_QID]),
            msg_id=stored.msg_id,
            body=stored.body,
            tags=stored.tags,
            keys=stored.keys,
            properties=properties,
            reconsume_times=stored.reconsume_times,
            born_timestamp=stored.born_timestamp,  # msgInner.setBornTimestamp(msgExt.getBornTimestamp())
        )
        now = self.scheduler.now
        self.broker.trace.delay_delivered(now, self.actor, msg=msg, level=level, waited_ms=now - stored.store_timestamp)
        self.broker.put_message(msg)

    def pending(self) -> dict[int, int]:
        """Level → number of parked messages not yet delivered (for views)."""
        out: dict[int, int] = {}
        for level in range(1, self.levels.max_level + 1):
            queue = self.broker.find_consume_queue(SCHEDULE_TOPIC, level - 1)
            if queue is not None:
                waiting = queue.max_offset - self.offset_table.get(level, 0)
                if waiting:
                    out[level] = waiting
        return out
