"""In flight: where a message still waits for an audience, read from the engine's state (not the trace).

A copy is in flight when it is stored above the audience's committed offset, parked in
``SCHEDULE_TOPIC_XXXX`` for one of its topics (or its DLQ), or held in a live ProcessQueue — which
includes a message waiting for its 5 s local retry.

A copy stored in a queue its topic's route no longer lists (``queue_id >= readQueueNums``) is not in
flight but **stranded**: no consumer will ever pull it, though it stays on disk until retention. That
happens after ``updateTopic`` shrinks a topic, or when ``retryQueueNums`` is raised after
``%RETRY%<group>`` was created (the send-back picks ``random % retryQueueNums``; the topic keeps its size).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..message import PROPERTY_REAL_TOPIC, SCHEDULE_TOPIC, dlq_topic
from ..queue import MessageQueue

if TYPE_CHECKING:
    from ..broker import Broker
    from ..lab import Lab
    from .audience import Audience

__all__ = ["committed_offset", "stranded_copies", "where_in_flight"]


def where_in_flight(lab: Lab, audience: Audience) -> dict[str, str]:
    """Msg id → where a copy still waits for this audience (state, not trace)."""
    found: dict[str, str] = {}
    topics = audience.topics()
    for consumer in audience.consumers:
        if not consumer.running:
            continue
        for pq in consumer.process_queue_table.values():
            if pq.dropped:
                continue
            for msg in (*pq.msg_tree_map.values(), *pq.consuming_msg_orderly_tree_map.values()):
                found.setdefault(msg.msg_id, "process_queue")
    for name, broker in sorted(lab.brokers.items()):
        for (topic, qid), queue in sorted(broker.consume_queues.items()):
            if topic == SCHEDULE_TOPIC:
                start = broker.schedule_service.offset_table.get(qid + 1, 0)
                where = "scheduled"
            elif topic in topics and _listed(broker, topic, qid):
                start = committed_offset(lab, audience, MessageQueue(topic, name, qid))
                where = "stored"
            else:
                continue
            for entry in queue.entries[start:]:
                msg = broker.commit_log.get(entry.commit_log_offset)
                if msg is None:
                    continue
                if where == "scheduled":
                    real = msg.properties.get(PROPERTY_REAL_TOPIC, "")
                    if real not in topics and real != dlq_topic(audience.group):
                        continue
                found.setdefault(msg.msg_id, where)
    return found


def stranded_copies(lab: Lab, audience: Audience) -> dict[str, tuple[MessageQueue, int]]:
    """Msg id → (queue, the topic's read queue count) for copies above the committed offset of an unlisted queue."""
    found: dict[str, tuple[MessageQueue, int]] = {}
    topics = audience.topics()
    for name, broker in sorted(lab.brokers.items()):
        for (topic, qid), queue in sorted(broker.consume_queues.items()):
            if topic not in topics or _listed(broker, topic, qid):
                continue
            mq = MessageQueue(topic, name, qid)
            for entry in queue.entries[committed_offset(lab, audience, mq) :]:
                msg = broker.commit_log.get(entry.commit_log_offset)
                if msg is not None:
                    found.setdefault(msg.msg_id, (mq, broker.topic_config[topic].read_queue_nums))
    return found


def _listed(broker: Broker, topic: str, queue_id: int) -> bool:
    """Whether the topic's route lists this queue (a queue of an unknown topic counts as listed)."""
    config = broker.topic_config.get(topic)
    return config is None or queue_id < config.read_queue_nums


def committed_offset(lab: Lab, audience: Audience, mq: MessageQueue) -> int:
    """The offset this audience has committed for ``mq`` (broker for CLUSTERING, local file for BROADCASTING)."""
    if audience.clustering:
        return lab.brokers[mq.broker_name].consumer_offsets.get((audience.group, mq.topic, mq.queue_id), 0)
    client = audience.consumers[0].client_id
    return lab.local_offset_files.get((client, audience.group), {}).get(mq, 0)
