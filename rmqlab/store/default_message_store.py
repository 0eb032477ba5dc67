"""``DefaultMessageStore`` and the broker's managers of topics and offsets: the state every processor works on.

Topic configs (``TopicConfigManager``), subscription groups (``SubscriptionGroupManager``), the CommitLog and
ConsumeQueues with ``putMessage`` (and its delay rewrite), and consumer offsets (``ConsumerOffsetManager``).

Mirrors: store/src/main/java/org/apache/rocketmq/store/DefaultMessageStore.java
    (DefaultMessageStore.putMessage, DefaultMessageStore.getMaxOffsetInQueue,
    DefaultMessageStore.getOffsetInQueueByTime)
Mirrors: store/src/main/java/org/apache/rocketmq/store/CommitLog.java
    (CommitLog.asyncPutMessage)
Mirrors: store/src/main/java/org/apache/rocketmq/store/ConsumeQueue.java
    (ConsumeQueue.getOffsetInQueueByTime)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/topic/TopicConfigManager.java
    (TopicConfigManager.updateTopicConfig)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/subscription/SubscriptionGroupManager.java
    (SubscriptionGroupManager.findSubscriptionGroupConfig)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/offset/ConsumerOffsetManager.java
    (ConsumerOffsetManager.commitOffset, ConsumerOffsetManager.queryOffset)
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..broker.client_channel_info import _ClientChannel
from ..broker.pull_message_types import _HeldPull
from ..common.message import (
    DLQ_PREFIX,
    PROPERTY_DELAY,
    PROPERTY_REAL_QID,
    PROPERTY_REAL_TOPIC,
    PROPERTY_RETRY_TOPIC,
    SCHEDULE_TOPIC,
    MessageExt,
    create_message_id,
)
from ..common.message_queue import MessageQueue
from ..common.topic_config import PERM_RW, SubscriptionGroupConfig, TopicConfig
from ..core.scheduler import Scheduler
from ..core.trace import EventKind, Trace
from ..remoting.remoting import Remoting, ResponseCode
from .commit_log import CommitLog, ConsumeQueue, ConsumeQueueEntry
from .put_message_status import PutMessageStatus
from .schedule_message_service import DelayLevelTable, ScheduleMessageService

__all__ = [
    "BrokerStore",
]

class BrokerStore:
    """The store and managers of one broker; :class:`~rmqlab.broker.broker_controller.Broker` is this plus its
    processors."""

    # The broker's state (set in ``Broker.__init__``); the processors mixed into ``Broker`` share it.
    name: str
    address: str
    scheduler: Scheduler
    trace: Trace
    rng: random.Random
    remoting: Remoting
    up: bool
    dlq_readable: bool
    broker_permission: int
    response_delay_ms: int
    lose_responses: bool
    put_status: PutMessageStatus
    reject_send_back: bool
    send_error: ResponseCode | None
    send_responses: list[tuple[ResponseCode, str]]
    send_back_error: tuple[ResponseCode, str] | None
    query_offset_error: tuple[ResponseCode, str] | None
    commit_log: CommitLog
    consume_queues: dict[tuple[str, int], ConsumeQueue]
    topic_config: dict[str, TopicConfig]
    subscription_groups: dict[str, SubscriptionGroupConfig]
    consumer_offsets: dict[tuple[str, str, int], int]
    consumer_groups: dict[str, dict[str, _ClientChannel]]
    delay_levels: DelayLevelTable
    schedule_service: ScheduleMessageService
    _held: dict[tuple[str, int], list[_HeldPull]]
    on_topic_config: Callable[[BrokerStore, TopicConfig], None]
    """Called with every new or changed topic config: the broker registers it with the name server."""

    def _notify_message_arriving(self, topic: str, queue_id: int) -> None:
        """``MessageArrivingListener``: a stored message wakes the pulls held on its queue (the pull processor)."""

    # ------------------------------------------------------------------ topics and storage
    def create_topic(self, topic: str, queue_nums: int, perm: int = PERM_RW) -> TopicConfig:
        """Create ``topic`` with ``queue_nums`` read and write queues; an existing one is kept as is."""
        existing = self.topic_config.get(topic)
        if existing is not None:
            return existing
        return self.update_topic(topic, queue_nums, queue_nums, perm)

    def update_topic(self, topic: str, read_queue_nums: int, write_queue_nums: int, perm: int) -> TopicConfig:
        """``AdminBrokerProcessor.updateAndCreateTopic``: replace the config and register it with the name server.

        Nothing else changes: stored messages stay in their ConsumeQueues, including queues the new config no
        longer lists; clients see the new route on their next name-server poll.
        """
        config = TopicConfig(topic, read_queue_nums, write_queue_nums, perm)
        self.topic_config[topic] = config
        self.on_topic_config(self, self.registered_config(config))
        return config

    def registered_config(self, config: TopicConfig) -> TopicConfig:
        """What the name server is told about ``config`` (``registerBrokerAll`` / ``registerIncrementBrokerData``).

        A broker whose own permission is not read+write registers *every* topic with the broker's permission
        instead of the topic's: that is how a read-only broker leaves the producers' routes (they list only
        writable queues) while consumers go on reading it. The broker's own table keeps the topic's permission.
        """
        if self.broker_permission == PERM_RW:
            return config
        return TopicConfig(config.topic_name, config.read_queue_nums, config.write_queue_nums, self.broker_permission)

    def update_broker_permission(self, perm: int) -> None:
        """``updateBrokerConfig`` with ``brokerPermission``: keep it, re-register every topic (``registerBrokerAll``).

        Clients see the new routes on their next name-server poll; until then a producer's cached route still
        lists this broker, and its sends are stored (4.9.7 refuses a plain send only for an *order* topic).
        """
        self.broker_permission = perm
        for topic in sorted(self.topic_config):
            self.on_topic_config(self, self.registered_config(self.topic_config[topic]))

    def find_consume_queue(self, topic: str, queue_id: int) -> ConsumeQueue | None:
        return self.consume_queues.get((topic, queue_id))

    def max_offset(self, topic: str, queue_id: int) -> int:
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
        msg.offset_msg_id = create_message_id(self.address, msg.commit_log_offset)
        key = (msg.topic, msg.queue_id)
        queue = self.consume_queues.get(key)
        if queue is None:
            queue = self.consume_queues[key] = ConsumeQueue(msg.topic, msg.queue_id)
        msg.queue_offset = queue.append(ConsumeQueueEntry(msg.commit_log_offset, deliver_ts))
        trace = self.trace
        if deliver_ts:
            trace.record(
                now,
                EventKind.SCHEDULED,
                self.name,
                msg.msg_id,
                level=level,
                real_topic=properties[PROPERTY_REAL_TOPIC],
                due_ms=deliver_ts,
                reconsume_times=msg.reconsume_times,
            )
            self.schedule_service.on_enqueue(level)
            return self.put_status
        trace.record(
            now,
            EventKind.STORED,
            self.name,
            msg.msg_id,
            topic=msg.topic,
            queue_id=msg.queue_id,
            queue_offset=msg.queue_offset,
            reconsume_times=msg.reconsume_times,
        )
        if msg.topic.startswith(DLQ_PREFIX):
            trace.record(
                now,
                EventKind.DEAD_LETTERED,
                self.name,
                msg.msg_id,
                group=msg.topic[len(DLQ_PREFIX) :],
                topic=msg.topic,
                reconsume_times=msg.reconsume_times,
                original_topic=properties.get(PROPERTY_RETRY_TOPIC, msg.topic),
            )
        self._notify_message_arriving(msg.topic, msg.queue_id)
        return self.put_status

    def subscription_group(self, group: str) -> SubscriptionGroupConfig:
        """The group's config, auto-created with the defaults on first use (``autoCreateSubscriptionGroup``)."""
        sub = self.subscription_groups.get(group)
        if sub is None:
            sub = self.subscription_groups[group] = SubscriptionGroupConfig(group)
        return sub

    # ------------------------------------------------------------------ offsets
    def query_consumer_offset(self, group: str, topic: str, queue_id: int) -> int:
        """``queryConsumerOffset``: the stored offset; else 0 if offset 0 is still kept; else -1."""
        stored = self.consumer_offsets.get((group, topic, queue_id))
        if stored is not None:
            return stored
        queue = self.consume_queues.get((topic, queue_id))
        if queue is None or queue.min_offset <= 0:
            return 0
        return -1

    def commit_offset(self, group: str, topic: str, queue_id: int, offset: int, actor: str = "") -> None:
        """``ConsumerOffsetManager.commitOffset`` (the broker overwrites); a change is traced."""
        key = (group, topic, queue_id)
        if self.consumer_offsets.get(key) != offset:
            self.consumer_offsets[key] = offset
            self.trace.record(
                self.scheduler.now,
                EventKind.OFFSET_PERSISTED,
                actor or self.name,
                None,
                queue=str(MessageQueue(topic, self.name, queue_id)),
                offset=offset,
                group=group,
                store="broker",
            )
