"""``DefaultMessageStore``: a broker's CommitLog and ConsumeQueues, ``putMessage`` with its delay rewrite, and the
services the store runs (``ScheduleMessageService``, ``CleanCommitLogService``).

The broker (:class:`~rmqlab.broker.broker_controller.Broker`) holds one store, as 4.9.7's ``BrokerController`` holds
its ``messageStore``; the store knows nothing of the broker's processors. A stored message wakes the pulls held on
its queue through the ``MessageArrivingListener`` the broker hands it (``NotifyMessageArrivingListener`` →
``PullRequestHoldService.notifyMessageArriving``).

Mirrors: store/src/main/java/org/apache/rocketmq/store/DefaultMessageStore.java
    (DefaultMessageStore.putMessage, DefaultMessageStore.getMaxOffsetInQueue,
    DefaultMessageStore.getOffsetInQueueByTime, DefaultMessageStore.start, DefaultMessageStore.shutdown,
    ReputMessageService.doReput)
Mirrors: store/src/main/java/org/apache/rocketmq/store/CommitLog.java
    (CommitLog.asyncPutMessage)
Mirrors: store/src/main/java/org/apache/rocketmq/store/ConsumeQueue.java
    (ConsumeQueue.getOffsetInQueueByTime)
Mirrors: store/src/main/java/org/apache/rocketmq/store/MessageArrivingListener.java
    (MessageArrivingListener.arriving)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..common.message import (
    DLQ_PREFIX,
    PROPERTY_DELAY,
    PROPERTY_REAL_QID,
    PROPERTY_REAL_TOPIC,
    SCHEDULE_TOPIC,
    MessageExt,
    offset_id,
    store_host_id,
)
from ..core.scheduler import Scheduler
from ..core.trace import Trace
from .clean_commit_log_service import CleanCommitLogService
from .commit_log import CommitLog, ConsumeQueue, ConsumeQueueEntry
from .put_message_status import PutMessageStatus
from .schedule_message_service import DelayLevelTable, ScheduleMessageService

__all__ = [
    "DefaultMessageStore",
    "MessageArrivingListener",
    "StoreFaults",
]

MessageArrivingListener = Callable[[str, int, int, str], None]
"""``MessageArrivingListener.arriving``: called for every message dispatched to its queue, with the topic, the queue
id, the queue's new max offset (the message's queue offset + 1) and the message's tag (``""`` when untagged: its tags
code is 0)."""


class StoreFaults(Protocol):
    """The one injected fault the store consults (the broker's :class:`~rmqlab.broker.broker_faults.BrokerFaults` is
    one): the status every put answers."""

    @property
    def put_status(self) -> PutMessageStatus:
        """``PUT_OK`` unless a teacher set another (a failing status stores nothing; see ``put_message_status``)."""


class DefaultMessageStore:
    """One broker's store: the CommitLog, a ConsumeQueue per (topic, queue id), and the store's services."""

    def __init__(
        self,
        broker_name: str,
        address: str,
        scheduler: Scheduler,
        trace: Trace,
        faults: StoreFaults,
        delay_levels: DelayLevelTable,
    ) -> None:
        self.name = broker_name
        """The broker's name: the actor of the store's trace events, and the store host of a stored message."""
        self.address = address
        """``brokerIP1:listenPort``, written into each stored message's ``offsetMsgId``."""
        self.store_host_id = store_host_id(address)
        """The first half of every ``offsetMsgId`` this store writes (:func:`create_message_id`), from ``address``."""
        self.scheduler = scheduler
        self.trace = trace
        self.faults = faults
        self.commit_log = CommitLog()
        self.consume_queues: dict[tuple[str, int], ConsumeQueue] = {}
        self.delay_levels = delay_levels
        self.message_arriving_listener: MessageArrivingListener = lambda topic, queue_id, logic_offset, tags: None
        """Set by the broker to its ``NotifyMessageArrivingListener`` (the hold service's ``arriving``; 4.9.7 passes it
        to the constructor)."""
        self.running = False
        self.schedule_service = ScheduleMessageService(self, scheduler, delay_levels)
        self.clean_commit_log_service = CleanCommitLogService(self)

    @property
    def put_status(self) -> PutMessageStatus:
        """What every put answers now (the ``put_status`` fault; the schedule service checks it before a delivery)."""
        return self.faults.put_status

    # ------------------------------------------------------------------ lifecycle
    def start(self, *, restart: bool = False) -> None:
        """``DefaultMessageStore.start``: the schedule service starts (after a restart: from ``delayOffset.json``)."""
        self.running = True
        self.schedule_service.start(restart=restart)

    def shutdown(self) -> None:
        """``DefaultMessageStore.shutdown``: the schedule service stops; the CommitLog and ConsumeQueues stay."""
        self.running = False
        self.schedule_service.stop()

    def find_consume_queue(self, topic: str, queue_id: int) -> ConsumeQueue | None:
        """``findConsumeQueue``: the queue's ConsumeQueue, ``None`` if nothing was ever stored in it."""
        return self.consume_queues.get((topic, queue_id))

    def max_offset(self, topic: str, queue_id: int) -> int:
        """``getMaxOffsetInQueue``: the offset the next message of the queue will get (0 for a queue never used)."""
        queue = self.consume_queues.get((topic, queue_id))
        return queue.max_offset if queue else 0

    def get_offset_in_queue_by_time(self, topic: str, queue_id: int, timestamp: int) -> int:
        """``ConsumeQueue.getOffsetInQueueByTime``: a binary search over the queue by store time.

        Not "the first message stored at or after ``timestamp``": an entry whose store time equals it is returned as
        soon as the search lands on one (with several at that millisecond, not necessarily the first); otherwise the
        nearer of the two neighbours, the earlier one on a tie — so a message stored *before* the timestamp can be
        the start, and a timestamp past every message gives the last message's offset, not the max offset. Entries
        whose CommitLog data is gone are skipped; an empty queue answers 0. A lab queue is one ConsumeQueue file
        (4.9.7 holds 300 000 entries a file), so the search spans the queue from its min offset.
        """
        queue = self.consume_queues.get((topic, queue_id))
        if queue is None:
            return 0
        low, high = queue.min_offset, queue.max_offset - 1
        left = right = -1
        left_time = right_time = -1
        while high >= low:
            mid = (low + high) // 2
            commit_log_offset = queue.entries[mid].commit_log_offset
            if commit_log_offset < self.commit_log.min_offset:
                low, left = mid + 1, mid
                continue
            msg = self.commit_log.get(commit_log_offset)
            if msg is None:  # pickupStoreTimestamp found nothing (−1)
                return 0
            store_time = msg.store_timestamp
            if store_time == timestamp:
                return mid
            if store_time > timestamp:
                high, right, right_time = mid - 1, mid, store_time
            else:
                low, left, left_time = mid + 1, mid, store_time
        if left_time == -1:
            return max(right, 0)  # (fileFromOffset + rightOffset) / 20 with rightOffset −1 is 0 in Java
        if right_time == -1:
            return left
        return right if abs(timestamp - left_time) > abs(timestamp - right_time) else left

    def put_message(self, msg: MessageExt) -> PutMessageStatus:
        """``CommitLog.asyncPutMessage`` + dispatch: store, rewrite delayed messages, wake held pulls."""
        now = self.scheduler.now
        properties = msg.properties
        level = msg.delay_time_level
        deliver_ts = 0
        if level > 0 and not msg.topic.startswith(SCHEDULE_TOPIC):
            if level > self.delay_levels.max_level:  # a level above the max is written as the max level
                level = self.delay_levels.max_level
                properties[PROPERTY_DELAY] = str(level)
            properties[PROPERTY_REAL_TOPIC] = msg.topic
            properties[PROPERTY_REAL_QID] = str(msg.queue_id)
            msg.topic = SCHEDULE_TOPIC
            msg.queue_id = level - 1
            deliver_ts = now + self.delay_levels.delays_ms[level - 1]  # computeDeliverTimestamp
        msg.store_timestamp = now
        msg.store_host = self.name
        self.commit_log.append(msg)
        msg.offset_msg_id = self.store_host_id + offset_id(msg.commit_log_offset)  # createMessageId
        key = (msg.topic, msg.queue_id)
        queue = self.consume_queues.get(key)
        if queue is None:
            queue = self.consume_queues[key] = ConsumeQueue(msg.topic, msg.queue_id)
        msg.queue_offset = queue.append(ConsumeQueueEntry(msg.commit_log_offset, deliver_ts))
        if deliver_ts:
            self.trace.scheduled(now, self.name, msg=msg, level=level, due_ms=deliver_ts)
            self.schedule_service.on_enqueue(level)
            return self.put_status
        self.trace.stored(now, self.name, msg=msg)
        if msg.topic.startswith(DLQ_PREFIX):
            self.trace.dead_lettered(now, self.name, msg=msg)
        # ReputMessageService.doReput: dispatched, then the held pulls of its queue are told (long polling is on)
        self.message_arriving_listener(msg.topic, msg.queue_id, msg.queue_offset + 1, msg.tags or "")
        return self.put_status
