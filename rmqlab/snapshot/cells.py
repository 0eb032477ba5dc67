"""Each ConsumeQueue cell's state per audience: a CLUSTERING group, or one BROADCASTING instance.

Live ProcessQueues say first (pulled, consuming), then what the trace says (acked, sent back, dropped), then the
committed offset (acked below it, stored above it); a BROADCASTING group's state summarises its instances'.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..common.message import PROPERTY_REAL_TOPIC
from ..common.message_queue import MessageQueue
from ..store.commit_log import ConsumeQueue
from .clients import ConsumerSnap
from .queues import BROADCAST_SUMMARY_ORDER, SCHEDULE_GROUP, ConsumeQueueSnap, OffsetState, QueueCell, queue_kind
from .trace_index import TraceIndex

if TYPE_CHECKING:
    from ..broker.broker_controller import Broker

__all__ = ["Audience", "audiences_of", "queue_snaps"]


@dataclass(slots=True)
class Audience:
    """Who an offset's state is about while a snapshot is built: a CLUSTERING group, or one BROADCASTING instance."""

    key: str
    """The group, or the instance's client id."""
    group: str
    broadcasting: bool
    topics: set[str] = field(default_factory=set)
    live: dict[str, list[tuple[frozenset[int], frozenset[int]]]] = field(default_factory=dict)
    """Queue name → (msg_tree keys, consuming keys) of each live ProcessQueue of the audience."""
    offsets: dict[str, int] = field(default_factory=dict)
    """Queue name → the highest offset the clients have committed (in memory, or a BROADCASTING offset file)."""


def audiences_of(consumers: Iterable[ConsumerSnap]) -> list[Audience]:
    """The audiences of the lab's consumers, sorted by key (CLUSTERING groups merge their instances)."""
    by_key: dict[str, Audience] = {}
    for c in consumers:
        broadcasting = c.message_model == "BROADCASTING"
        key = c.client_id if broadcasting else c.group
        audience = by_key.setdefault(key, Audience(key, c.group, broadcasting))
        audience.topics.update(c.subscriptions)
        if broadcasting:
            for mq, off in c.local_offsets:
                audience.offsets[str(mq)] = max(off, audience.offsets.get(str(mq), -1))
        if c.running:
            for pq in c.process_queues:
                if not pq.dropped:
                    sets = (frozenset(pq.msg_tree_keys), frozenset(pq.consuming_keys))
                    audience.live.setdefault(pq.queue, []).append(sets)
            for queue, off in c.offset_store:
                audience.offsets[queue] = max(off, audience.offsets.get(queue, -1))
    return [by_key[key] for key in sorted(by_key)]


def queue_snaps(b: Broker, index: TraceIndex, audiences: list[Audience]) -> list[ConsumeQueueSnap]:
    """Every ConsumeQueue of ``b`` (and every queue its topics' routes list), cell by cell."""
    service = b.schedule_service
    keys = set(b.consume_queues)
    keys.update((t, q) for t, cfg in b.topic_config.items() for q in range(cfg.read_queue_nums))
    out = []
    for topic, qid in sorted(keys):
        cq = b.consume_queues.get((topic, qid)) or ConsumeQueue(topic, qid)
        name = str(MessageQueue(topic, b.name, qid))
        kind = queue_kind(topic)
        mine = [a for a in audiences if topic in a.topics]
        groups = tuple(sorted({a.group for a in mine}))
        committed = tuple(
            (g, b.consumer_offsets[(g, topic, qid)]) for g in groups if (g, topic, qid) in b.consumer_offsets
        )
        broker_floor = dict(committed)
        floor = {a.key: max(broker_floor.get(a.key, -1), a.offsets.get(name, -1)) for a in mine if not a.broadcasting}
        floor.update({a.key: a.offsets.get(name, -1) for a in mine if a.broadcasting})
        instances = [a for a in mine if a.broadcasting]
        cells = []
        delivered = service.offset_table.get(qid + 1, 0) if kind == "schedule" else 0
        for offset in range(cq.min_offset, cq.max_offset):
            entry = cq.entries[offset]
            msg = b.commit_log.get(entry.commit_log_offset)
            if msg is None:  # retention advances min_offset past deleted messages, so this does not happen
                cells.append(QueueCell(offset, None, ()))
                continue
            if kind == "schedule":
                state = OffsetState.ACKED if offset < delivered else OffsetState.STORED
                states: tuple[tuple[str, OffsetState], ...] = ((SCHEDULE_GROUP, state),)
                real_topic, deliver = msg.properties.get(PROPERTY_REAL_TOPIC), entry.deliver_timestamp
            else:
                own = {a.key: _cell_state(a.key, name, offset, a.live.get(name, ()), index, floor[a.key]) for a in mine}
                states = tuple((g, own[g] if g in own else _summary(own, instances, g)) for g in groups)
                real_topic, deliver = None, None
            cells.append(
                QueueCell(
                    offset,
                    msg.msg_id,
                    states,
                    msg.tags,
                    msg.keys,
                    msg.reconsume_times,
                    msg.store_timestamp,
                    real_topic,
                    deliver,
                    tuple((a.key, own[a.key]) for a in instances) if kind != "schedule" else (),
                )
            )
        config = b.topic_config.get(topic)
        out.append(
            ConsumeQueueSnap(
                topic,
                b.name,
                qid,
                kind,
                cq.min_offset,
                cq.max_offset,
                groups,
                committed,
                tuple(cells),
                None if config is None else config.read_queue_nums,
            )
        )
    return out


def _summary(own: Mapping[str, OffsetState], instances: Iterable[Audience], group: str) -> OffsetState:
    """A BROADCASTING group's state: the first of :data:`BROADCAST_SUMMARY_ORDER` any of its instances has."""
    have = {own[a.key] for a in instances if a.group == group}
    return next((s for s in BROADCAST_SUMMARY_ORDER if s in have), OffsetState.STORED)


def _cell_state(
    audience: str,
    queue: str,
    offset: int,
    pqs: Iterable[tuple[frozenset[int], frozenset[int]]],
    index: TraceIndex,
    committed: int,
) -> OffsetState:
    """Live ProcessQueues first, then what the trace says, then the committed offset."""
    for waiting, consuming in pqs:
        if offset in consuming:
            return OffsetState.CONSUMING
        if offset in waiting:
            return OffsetState.CONSUMING if (audience, queue, offset) in index.in_listener else OffsetState.PULLED
    terminal = index.terminal.get((audience, queue, offset))
    if terminal is not None:
        return terminal
    if offset < committed:
        return OffsetState.ACKED
    return OffsetState.STORED
