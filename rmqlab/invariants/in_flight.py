"""In flight: where a message still waits for an audience, read from the engine's state (not the trace).

A copy is in flight when it is stored above the audience's committed offset, parked in
``SCHEDULE_TOPIC_XXXX`` for one of its topics (or its DLQ), or held in a live ProcessQueue — which
includes a message waiting for its 5 s local retry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..message import PROPERTY_REAL_TOPIC, SCHEDULE_TOPIC, dlq_topic
from ..queue import MessageQueue

if TYPE_CHECKING:
    from ..lab import Lab
    from .audience import Audience

__all__ = ["committed_offset", "where_in_flight"]


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
            elif topic in topics:
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


def committed_offset(lab: Lab, audience: Audience, mq: MessageQueue) -> int:
    """The offset this audience has committed for ``mq`` (broker for CLUSTERING, local file for BROADCASTING)."""
    if audience.clustering:
        return lab.brokers[mq.broker_name].consumer_offsets.get((audience.group, mq.topic, mq.queue_id), 0)
    client = audience.consumers[0].client_id
    return lab.local_offset_files.get((client, audience.group), {}).get(mq, 0)
