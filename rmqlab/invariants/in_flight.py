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
    from ..lab import Lab
    from .audience import Audience

__all__ = ["committed_offset", "waiting_copies"]


def waiting_copies(lab: Lab, audience: Audience) -> tuple[dict[str, str], dict[str, tuple[MessageQueue, int]]]:
    """Where copies still wait for this audience (state, not trace), in one pass over the stores.

    Returns msg id → where it is in flight (``process_queue``, ``scheduled``, ``stored``), and msg id →
    (queue, the topic's read queue count) for copies stranded in a queue the route does not list.
    """
    found: dict[str, str] = {}
    stranded: dict[str, tuple[MessageQueue, int]] = {}
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
            read_queues = None
            if topic == SCHEDULE_TOPIC:
                start = broker.schedule_service.offset_table.get(qid + 1, 0)
                where = "scheduled"
            elif topic in topics:
                mq = MessageQueue(topic, name, qid)
                start = committed_offset(lab, audience, mq)
                config = broker.topic_config.get(topic)
                if config is not None and qid >= config.read_queue_nums:
                    read_queues = config.read_queue_nums
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
                if read_queues is None:
                    found.setdefault(msg.msg_id, where)
                else:
                    stranded.setdefault(msg.msg_id, (mq, read_queues))
    return found, stranded


def committed_offset(lab: Lab, audience: Audience, mq: MessageQueue) -> int:
    """The offset this audience has committed for ``mq`` (broker for CLUSTERING, local file for BROADCASTING)."""
    if audience.clustering:
        return lab.brokers[mq.broker_name].consumer_offsets.get((audience.group, mq.topic, mq.queue_id), 0)
    client = audience.consumers[0].client_id
    return lab.local_offset_files.get((client, audience.group), {}).get(mq, 0)
