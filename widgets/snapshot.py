"""``take_snapshot(lab)``: an immutable, plain-data copy of everything the views draw.

Views never touch live engine objects: a snapshot is taken once per controller position and every
view is a pure function of it. That is what makes "position k reached twice shows the same state"
testable — two snapshots compare equal field by field.

Some facts the engine does not keep as state (which offset was acked, which was sent back to
``%RETRY%``, which message sits at which ``SCHEDULE_TOPIC_XXXX`` offset) are folded from the trace by
:class:`TraceIndex`. The fold is incremental, so a controller keeps one index per Lab and each step
costs only the new events.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from rmqlab import EventKind, TraceEvent
from rmqlab.message import DLQ_PREFIX, RETRY_PREFIX, SCHEDULE_TOPIC
from rmqlab.queue import MessageQueue
from rmqlab.store import ConsumeQueue

if TYPE_CHECKING:
    from rmqlab import Lab

__all__ = [
    "BrokerSnap",
    "ConsumeQueueSnap",
    "ConsumerSnap",
    "LabSnapshot",
    "LockSnap",
    "OffsetState",
    "ProcessQueueSnap",
    "QueueCell",
    "ScheduleLevelSnap",
    "TraceIndex",
    "client_groups",
    "flow_edge",
    "queue_kind",
    "take_snapshot",
]

SCHEDULE_GROUP = "(schedule)"
"""Pseudo group for ``SCHEDULE_TOPIC_XXXX`` cells: ACKED there means "the schedule service delivered it"."""

_SUCCESS = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})


class OffsetState(StrEnum):
    """Where one ConsumeQueue offset stands for one consumer group."""

    STORED = "stored"
    """In the ConsumeQueue, not in any live ProcessQueue (not pulled yet, or pulled by a crashed client)."""
    PULLED = "pulled"
    """In a live ProcessQueue's ``msg_tree_map``, waiting for a consume thread."""
    CONSUMING = "consuming"
    """A listener is running on it right now (or it is in ``consuming_msg_orderly_tree_map``)."""
    ACKED = "acked"
    """Consumed successfully, or below the committed offset."""
    SENT_BACK = "sent_back"
    """Failed and handed to ``%RETRY%`` (or straight to ``%DLQ%``): this offset is done, a copy lives on."""


def queue_kind(topic: str) -> str:
    """``business`` / ``retry`` / ``dlq`` / ``schedule`` — the four lanes of the retry machinery."""
    if topic.startswith(RETRY_PREFIX):
        return "retry"
    if topic.startswith(DLQ_PREFIX):
        return "dlq"
    if topic == SCHEDULE_TOPIC:
        return "schedule"
    return "business"


@dataclass(frozen=True, slots=True)
class QueueCell:
    """One ConsumeQueue offset: the message stored there and its state per group."""

    offset: int
    msg_id: str | None
    states: tuple[tuple[str, OffsetState], ...]

    def state_for(self, group: str | None) -> OffsetState:
        """The state for ``group`` (STORED when that group has nothing to say about it)."""
        for name, state in self.states:
            if name == group:
                return state
        return OffsetState.STORED


@dataclass(frozen=True, slots=True)
class ConsumeQueueSnap:
    """One ConsumeQueue of one broker, with committed offsets per group (broker side)."""

    topic: str
    broker: str
    queue_id: int
    kind: str
    min_offset: int
    max_offset: int
    groups: tuple[str, ...]
    committed: tuple[tuple[str, int], ...]
    cells: tuple[QueueCell, ...]
    read_queue_nums: int | None = None
    """The topic's read queue count on this broker (``None``: no TopicConfig, e.g. the schedule topic)."""

    @property
    def listed(self) -> bool:
        """Whether the topic's route lists this queue; a queue at or above ``read_queue_nums`` is never pulled."""
        return self.read_queue_nums is None or self.queue_id < self.read_queue_nums

    @property
    def name(self) -> str:
        """``TOPIC@BROKER:QID`` as the trace spells queues."""
        return f"{self.topic}@{self.broker}:{self.queue_id}"


@dataclass(frozen=True, slots=True)
class ScheduleLevelSnap:
    """One delay level's queue in ``SCHEDULE_TOPIC_XXXX`` (queue id = level − 1)."""

    broker: str
    level: int
    delay_ms: int
    pending: int
    dues: tuple[tuple[str, int], ...]
    """(msg id, due ms) of the messages still waiting, in queue order."""


@dataclass(frozen=True, slots=True)
class LockSnap:
    """One broker ``RebalanceLockManager`` entry."""

    broker: str
    group: str
    queue: str
    client: str
    ms_left: int
    expired: bool
    renewals: int


@dataclass(frozen=True, slots=True)
class BrokerSnap:
    """A broker: up or down, its lock table, its schedule levels and its injected faults."""

    name: str
    up: bool
    locks: tuple[LockSnap, ...]
    schedule: tuple[ScheduleLevelSnap, ...]
    faults: tuple[tuple[str, object], ...]


@dataclass(frozen=True, slots=True)
class ProcessQueueSnap:
    """A client ProcessQueue: the TreeMaps, the lock mirror, and what the next commit would be."""

    queue: str
    msg_tree_keys: tuple[int, ...]
    consuming_keys: tuple[int, ...]
    locked: bool
    lock_age_ms: int
    dropped: bool
    in_listener: bool
    """The ProcessQueue consume lock is held (orderly: a listener is mid-batch)."""
    local_lock_held: bool
    """The consumer's local ``MessageQueueLock`` for this queue is held (orderly)."""
    commit_offset: int | None
    """The offset the next ``remove_message``/``commit`` would store (None when nothing is in flight)."""


@dataclass(frozen=True, slots=True)
class ConsumerSnap:
    """A push consumer and its ProcessQueues and in-memory offset store."""

    client_id: str
    group: str
    running: bool
    orderly: bool
    message_model: str
    subscriptions: tuple[str, ...]
    process_queues: tuple[ProcessQueueSnap, ...]
    offset_store: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class LabSnapshot:
    """Everything a view may draw at one controller position (equal positions → equal snapshots)."""

    now_ms: int
    trace_len: int
    events: tuple[TraceEvent, ...]
    brokers: tuple[BrokerSnap, ...]
    queues: tuple[ConsumeQueueSnap, ...]
    consumers: tuple[ConsumerSnap, ...]
    producers: tuple[tuple[str, str], ...]
    """(producer name, producer group)."""
    delay_levels_ms: tuple[int, ...] = field(default=())
    flows: tuple[tuple[str, str], ...] = field(default=())
    """Every topology edge a message has travelled so far (see :func:`flow_edge`)."""
    groups: tuple[tuple[str, str], ...] = field(default=())
    """Trace actor → client group, for :func:`flow_edge` on recent events."""

    def queue(self, name: str) -> ConsumeQueueSnap:
        """The queue called ``TOPIC@BROKER:QID`` (KeyError names the known ones)."""
        for q in self.queues:
            if q.name == name:
                return q
        raise KeyError(f"{name!r}; have {[q.name for q in self.queues]}")

    def consumer(self, client_id: str) -> ConsumerSnap:
        """The consumer with this client id."""
        for c in self.consumers:
            if c.client_id == client_id:
                return c
        raise KeyError(f"{client_id!r}; have {[c.client_id for c in self.consumers]}")


class TraceIndex:
    """Incremental fold of the trace into the per-offset facts the engine does not keep.

    Feed it the same events in the same order and it holds the same facts; :meth:`catch_up` reads
    only what was appended since the last call.
    """

    def __init__(self) -> None:
        self.seen = 0
        self.offset_msg: dict[tuple[str, int], str] = {}
        self.terminal: dict[tuple[str, str, int], OffsetState] = {}
        self.in_listener: set[tuple[str, str, int]] = set()
        self.last_delivery: dict[tuple[str, str], tuple[str, str, int]] = {}
        self.schedule_count: Counter[tuple[str, int]] = Counter()
        self.schedule_due: dict[tuple[str, int, int], tuple[str, int]] = {}
        self.renewals: Counter[tuple[str, str]] = Counter()
        self.flows: set[tuple[str, str]] = set()

    def catch_up(self, lab: Lab) -> None:
        """Fold every event appended since the last call."""
        trace = lab.trace
        groups = client_groups(lab)
        for i in range(self.seen, len(trace)):
            e = trace[i]
            self._fold(e)
            edge = flow_edge(e, groups)
            if edge is not None:
                self.flows.add(edge)
        self.seen = len(trace)

    def _fold(self, e: TraceEvent) -> None:
        kind, d = e.kind, e.data
        if kind is EventKind.STORED:
            name = f"{d['topic']}@{e.actor}:{d['queue_id']}"
            self.offset_msg[(name, d["queue_offset"])] = e.msg_id or ""
        elif kind is EventKind.SCHEDULED:
            level = d["level"]
            offset = self.schedule_count[(e.actor, level)]
            self.schedule_count[(e.actor, level)] += 1
            name = f"{SCHEDULE_TOPIC}@{e.actor}:{level - 1}"
            self.offset_msg[(name, offset)] = e.msg_id or ""
            self.schedule_due[(e.actor, level, offset)] = (e.msg_id or "", d["due_ms"])
        elif kind is EventKind.DELIVERED:
            key = (d["group"], d["queue"], d["queue_offset"])
            self.in_listener.add(key)
            self.last_delivery[(e.actor, e.msg_id or "")] = key
            self.terminal.pop(key, None)
        elif kind is EventKind.CONSUMED:
            delivery = self.last_delivery.get((e.actor, e.msg_id or ""))
            if delivery is not None:
                self.in_listener.discard(delivery)
                if d["status"] in _SUCCESS:
                    self.terminal[delivery] = OffsetState.ACKED
        elif kind in (EventKind.SEND_BACK, EventKind.SEND_BACK_FALLBACK):
            delivery = self.last_delivery.get((e.actor, e.msg_id or ""))
            if delivery is not None and d.get("ok"):
                self.terminal[delivery] = OffsetState.SENT_BACK
        elif kind is EventKind.BROADCAST_DROPPED:
            delivery = self.last_delivery.get((e.actor, e.msg_id or ""))
            if delivery is not None:
                self.terminal[delivery] = OffsetState.ACKED
        elif kind is EventKind.LOCK_RENEWED:
            self.renewals[(d["group"], d["queue"])] += 1


def client_groups(lab: Lab) -> dict[str, str]:
    """Trace actor (``producer:pg``, ``consumer:c1``) → its group, for :func:`flow_edge`."""
    groups = {f"producer:{name}": p.producer_group for name, p in lab.producers.items()}
    groups.update({f"consumer:{cid}": c.consumer_group for cid, c in lab.consumers.items()})
    return groups


def flow_edge(e: TraceEvent, groups: Mapping[str, str]) -> tuple[str, str] | None:
    """The topology edge a message travels over in event ``e`` (None for bookkeeping events).

    Node names: ``pg:<group>``, ``cg:<group>``, ``topic:<topic>``, ``queue:<TOPIC@BROKER:QID>``.
    """
    d = e.data
    kind = e.kind
    if kind is EventKind.SEND_ATTEMPT:
        group = groups.get(e.actor)
        if group is None:
            return None
        return f"pg:{group}", f"queue:{d['topic']}@{d['broker']}:{d['queue_id']}"
    if kind is EventKind.DELIVERED:
        return f"queue:{d['queue']}", f"cg:{d['group']}"
    if kind is EventKind.SCHEDULED:
        return f"topic:{d['real_topic']}", f"queue:{SCHEDULE_TOPIC}@{e.actor}:{d['level'] - 1}"
    if kind is EventKind.DELAY_DELIVERED:
        broker = e.actor.split(":", 1)[1]
        return f"queue:{SCHEDULE_TOPIC}@{broker}:{d['level'] - 1}", f"queue:{d['topic']}@{broker}:{d['queue_id']}"
    if kind is EventKind.DEAD_LETTERED:
        return f"cg:{d['group']}", f"queue:{d['topic']}@{e.actor}:0"
    if kind is EventKind.SEND_BACK or kind is EventKind.SEND_BACK_FALLBACK:
        group = groups.get(e.actor)
        if group is not None and e.actor.startswith("consumer:"):
            return f"cg:{group}", f"topic:{RETRY_PREFIX}{group}"
    return None


def _process_queue_snap(consumer: object, mq: MessageQueue, pq: object, now: int) -> ProcessQueueSnap:
    service = getattr(consumer, "consume_service", None)
    local = getattr(service, "mq_locks", {}).get(mq)
    keys = tuple(pq.msg_tree_map.keys())  # type: ignore[attr-defined]
    consuming = tuple(pq.consuming_msg_orderly_tree_map.keys())  # type: ignore[attr-defined]
    if consuming:
        commit: int | None = consuming[-1] + 1
    elif keys:
        commit = keys[0]
    else:
        commit = None
    return ProcessQueueSnap(
        queue=str(mq),
        msg_tree_keys=keys,
        consuming_keys=consuming,
        locked=pq.locked,  # type: ignore[attr-defined]
        lock_age_ms=now - pq.last_lock_timestamp,  # type: ignore[attr-defined]
        dropped=pq.dropped,  # type: ignore[attr-defined]
        in_listener=pq.consume_lock_holder is not None,  # type: ignore[attr-defined]
        local_lock_held=bool(local is not None and local.held),
        commit_offset=commit,
    )


def take_snapshot(lab: Lab, index: TraceIndex | None = None) -> LabSnapshot:
    """Copy the Lab's state at ``lab.now`` into frozen plain data (``index`` is caught up first)."""
    if index is None:
        index = TraceIndex()
    index.catch_up(lab)
    now = lab.now
    consumers: list[ConsumerSnap] = []
    live: dict[tuple[str, str], list[tuple[frozenset[int], frozenset[int]]]] = {}
    groups_of_topic: dict[str, set[str]] = {}
    client_offsets: dict[tuple[str, str], int] = {}
    for client_id in sorted(lab.consumers):
        c = lab.consumers[client_id]
        pqs = tuple(
            _process_queue_snap(c, mq, pq, now) for mq, pq in sorted(c.process_queue_table.items(), key=lambda i: i[0])
        )
        store = tuple(sorted((str(mq), off) for mq, off in c.offset_store.offset_table.items()))
        consumers.append(
            ConsumerSnap(
                client_id,
                c.consumer_group,
                c.running,
                c.orderly,
                c.message_model.value,
                tuple(sorted(c.subscriptions)),
                pqs if c.running else tuple(),
                store,
            )
        )
        for topic in c.subscriptions:
            groups_of_topic.setdefault(topic, set()).add(c.consumer_group)
        if c.running:
            for pq in pqs:
                if not pq.dropped:
                    sets = (frozenset(pq.msg_tree_keys), frozenset(pq.consuming_keys))
                    live.setdefault((c.consumer_group, pq.queue), []).append(sets)
            for queue, off in store:
                key = (c.consumer_group, queue)
                client_offsets[key] = max(off, client_offsets.get(key, -1))

    brokers: list[BrokerSnap] = []
    queues: list[ConsumeQueueSnap] = []
    for bname in sorted(lab.brokers):
        b = lab.brokers[bname]
        locks = []
        for group in sorted(b.lock_manager.table):
            for mq, entry in sorted(b.lock_manager.table[group].items(), key=lambda i: i[0]):
                left = entry.last_update_timestamp + b.lock_manager.max_live_time_ms - now
                locks.append(
                    LockSnap(
                        bname,
                        group,
                        str(mq),
                        entry.client_id,
                        left,
                        b.lock_manager.is_expired(entry),
                        index.renewals[(group, str(mq))],
                    )
                )
        levels = []
        service = b.schedule_service
        for level in range(1, service.levels.max_level + 1):
            cq = b.find_consume_queue(SCHEDULE_TOPIC, level - 1)
            if cq is None:
                continue
            done = service.offset_table.get(level, 0)
            dues = tuple(index.schedule_due[(bname, level, o)] for o in range(done, cq.max_offset))
            levels.append(ScheduleLevelSnap(bname, level, service.levels.delay_ms(level), len(dues), dues))
        faults = (
            ("response_delay_ms", b.response_delay_ms),
            ("lose_responses", b.lose_responses),
            ("put_status", b.put_status.value),
            ("reject_send_back", b.reject_send_back),
        )
        brokers.append(BrokerSnap(bname, b.up, tuple(locks), tuple(levels), faults))

        keys = set(b.consume_queues)
        keys.update((t, q) for t, cfg in b.topic_config.items() for q in range(cfg.read_queue_nums))
        for topic, qid in sorted(keys):
            cq = b.consume_queues.get((topic, qid)) or ConsumeQueue(topic, qid)
            name = f"{topic}@{bname}:{qid}"
            kind = queue_kind(topic)
            groups = tuple(sorted(groups_of_topic.get(topic, ())))
            committed = tuple(
                (g, b.consumer_offsets[(g, topic, qid)]) for g in groups if (g, topic, qid) in b.consumer_offsets
            )
            floor = {g: max(dict(committed).get(g, -1), client_offsets.get((g, name), -1)) for g in groups}
            cells = []
            delivered = service.offset_table.get(qid + 1, 0) if kind == "schedule" else 0
            for offset in range(cq.min_offset, cq.max_offset):
                msg_id = index.offset_msg.get((name, offset))
                if kind == "schedule":
                    state = OffsetState.ACKED if offset < delivered else OffsetState.STORED
                    cells.append(QueueCell(offset, msg_id, ((SCHEDULE_GROUP, state),)))
                    continue
                states = []
                for g in groups:
                    states.append((g, _cell_state(g, name, offset, live.get((g, name), ()), index, floor[g])))
                cells.append(QueueCell(offset, msg_id, tuple(states)))
            config = b.topic_config.get(topic)
            queues.append(
                ConsumeQueueSnap(
                    topic,
                    bname,
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
    producers = tuple(sorted((name, p.producer_group) for name, p in lab.producers.items()))
    return LabSnapshot(
        now_ms=now,
        trace_len=len(lab.trace),
        events=lab.trace.events,
        brokers=tuple(brokers),
        queues=tuple(queues),
        consumers=tuple(consumers),
        producers=producers,
        delay_levels_ms=lab.delay_levels.delays_ms,
        flows=tuple(sorted(index.flows)),
        groups=tuple(sorted(client_groups(lab).items())),
    )


def _cell_state(
    group: str,
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
            return OffsetState.CONSUMING if (group, queue, offset) in index.in_listener else OffsetState.PULLED
    terminal = index.terminal.get((group, queue, offset))
    if terminal is not None:
        return terminal
    if offset < committed:
        return OffsetState.ACKED
    return OffsetState.STORED
