"""In flight: where a message still waits for an audience, read from the engine's state (not the trace).

The state comes from :meth:`Lab.snapshot`: its ProcessQueues (with their message ids), ConsumeQueue cells
(with the stored copy's id and, in ``SCHEDULE_TOPIC_XXXX``, its real topic) and committed offsets.

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

from ..common.message import SCHEDULE_TOPIC, dlq_topic
from ..common.message_queue import MessageQueue
from ..snapshot import SCHEDULE_GROUP, OffsetState

if TYPE_CHECKING:
    from ..snapshot import LabSnapshot
    from .audience import Audience

__all__ = ["committed_offset", "waiting_copies"]


def waiting_copies(
    snap: LabSnapshot, audience: Audience
) -> tuple[dict[str, str], dict[str, tuple[MessageQueue, int]], dict[str, str]]:
    """Where copies still wait for this audience (state, not trace), in one pass over the snapshot's stores.

    Returns msg id → where it is in flight (``process_queue``, ``scheduled``, ``stored``), msg id →
    (queue, the topic's read queue count) for copies stranded in a queue the route does not list, and msg id →
    the queue (``str(mq)``) it waits in.
    """
    found: dict[str, str] = {}
    queue_of: dict[str, str] = {}
    stranded: dict[str, tuple[MessageQueue, int]] = {}
    topics = audience.topics()
    clients = {c.client_id for c in audience.consumers}
    committed = _committed_offsets(snap, audience)
    for consumer in snap.consumers:
        if consumer.client_id not in clients or not consumer.running:
            continue
        for pq in consumer.process_queues:
            if pq.dropped:
                continue
            for msg_id in (*pq.msg_tree_ids, *pq.consuming_ids):
                found.setdefault(msg_id, "process_queue")
                queue_of.setdefault(msg_id, pq.queue)
    for queue in snap.queues:
        read_queues = None
        if queue.topic == SCHEDULE_TOPIC:
            start = 0
            where = "scheduled"
        elif queue.topic in topics:
            start = committed.get(queue.mq, 0)
            if queue.read_queue_nums is not None and not queue.listed:
                read_queues = queue.read_queue_nums
            where = "stored"
        else:
            continue
        for cell in queue.cells:
            if cell.offset < start or cell.msg_id is None:
                continue
            if where == "scheduled":
                if cell.state_for(SCHEDULE_GROUP) is OffsetState.ACKED:
                    continue  # the schedule service delivered it already
                real = cell.real_topic or ""
                if real not in topics and real != dlq_topic(audience.group):
                    continue
            if read_queues is None:
                found.setdefault(cell.msg_id, where)
                queue_of.setdefault(cell.msg_id, queue.name)
            else:
                stranded.setdefault(cell.msg_id, (queue.mq, read_queues))
    return found, stranded, queue_of


def _committed_offsets(snap: LabSnapshot, audience: Audience) -> dict[MessageQueue, int]:
    """Every queue's committed offset for this audience, indexed once (absent: 0, nothing committed)."""
    if audience.clustering:
        return {
            queue: offset
            for broker in snap.brokers
            for group, queue, offset in broker.committed_offsets
            if group == audience.group
        }
    return dict(snap.consumer(audience.consumers[0].client_id).local_offsets)


def committed_offset(snap: LabSnapshot, audience: Audience, mq: MessageQueue) -> int:
    """The offset this audience has committed for ``mq`` (broker for CLUSTERING, local file for BROADCASTING)."""
    if audience.clustering:
        for group, queue, offset in snap.broker(mq.broker_name).committed_offsets:
            if group == audience.group and queue == mq:
                return offset
        return 0
    consumer = snap.consumer(audience.consumers[0].client_id)
    return dict(consumer.local_offsets).get(mq, 0)
