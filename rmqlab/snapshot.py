"""``lab.snapshot()``: an immutable, plain-data copy of everything a view may show.

The engine owns this copy because only the engine knows its own internals: which ProcessQueue a
consumer holds, what the broker's ``RebalanceLockManager`` says, which timers are armed. Views,
:func:`~rmqlab.check_invariants` and the report read the snapshot and never the live objects, so
an engine refactoring changes this module and nothing outside ``rmqlab/``.

A snapshot holds no live engine object: only ints, strings, enums, :class:`MessageQueue` values and
frozen dataclasses, sorted by names and queues (never by ``id()``), so equal positions of a run give
equal snapshots — that is what makes "position k reached twice shows the same state" testable.

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

from .consume_orderly import ConsumeMessageOrderlyService
from .lock import BROKER_LOCK_MAX_LIVE_TIME_MS
from .message import DLQ_PREFIX, PROPERTY_REAL_TOPIC, RETRY_PREFIX, SCHEDULE_TOPIC
from .process_queue import REBALANCE_LOCK_MAX_LIVE_TIME_MS
from .queue import MessageQueue
from .scheduler import Priority, TimerKind, TimerLabel
from .store import ConsumeQueue
from .trace import EventKind, TraceEvent

if TYPE_CHECKING:
    from .broker import Broker
    from .consumer import DefaultMQPushConsumer
    from .lab_state import LabState
    from .process_queue import ProcessQueue

__all__ = [
    "BROADCAST_SUMMARY_ORDER",
    "BROKER_LEASE_MS",
    "CLIENT_TRUST_MS",
    "SCHEDULE_GROUP",
    "BrokerSnap",
    "ConsumeQueueSnap",
    "ConsumerSnap",
    "LabSnapshot",
    "LockSnap",
    "OffsetState",
    "ProcessQueueSnap",
    "QueueCell",
    "ScheduleLevelSnap",
    "TimerSnap",
    "TraceIndex",
    "client_groups",
    "copy_group",
    "flow_edge",
    "queue_kind",
    "take_snapshot",
]

BROKER_LEASE_MS = BROKER_LOCK_MAX_LIVE_TIME_MS
"""The broker lease (60 s) a :class:`LockSnap` counts down, for views."""
CLIENT_TRUST_MS = REBALANCE_LOCK_MAX_LIVE_TIME_MS
"""The client's trust window (30 s) a :class:`ProcessQueueSnap` counts down, for views."""
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
    DROPPED = "dropped"
    """Failed and gone, never acked: a BROADCASTING failure (``BROADCAST_DROPPED``), or a send-back the
    broker answered SUCCESS without storing a copy (``retryQueueNums`` 0). The offset moves on regardless."""


BROADCAST_SUMMARY_ORDER = (
    OffsetState.CONSUMING,
    OffsetState.PULLED,
    OffsetState.DROPPED,
    OffsetState.STORED,
    OffsetState.SENT_BACK,
    OffsetState.ACKED,
)
"""A BROADCASTING group's cell state is the first of these any instance has: in flight somewhere, else dropped by
one of them (never shown as acked), else still waiting for one, else acked by all."""


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
    tags: str | None = None
    keys: str | None = None
    """The message's ``KEYS`` (an ordered lab's sharding key, for a stable token colour)."""
    reconsume_times: int = 0
    """``reconsumeTimes`` of this stored copy (a retry copy counts the failures before it)."""
    store_ms: int = 0
    """When the broker stored this copy."""
    real_topic: str | None = None
    """``SCHEDULE_TOPIC_XXXX`` cells: the topic the message goes back to when due (``REAL_TOPIC``)."""
    deliver_ms: int | None = None
    """``SCHEDULE_TOPIC_XXXX`` cells: ``deliverTimestamp`` = store time + the level's delay."""
    instance_states: tuple[tuple[str, OffsetState], ...] = ()
    """BROADCASTING: (client id, state) per instance, since every instance consumes every message on its own.
    The group's entry in ``states`` is then their summary (see :data:`BROADCAST_SUMMARY_ORDER`)."""

    def state_for(self, group: str | None) -> OffsetState:
        """The state for ``group`` (STORED when that group has nothing to say about it)."""
        for name, state in self.states:
            if name == group:
                return state
        return OffsetState.STORED

    def state_for_instance(self, client_id: str) -> OffsetState:
        """A BROADCASTING instance's own state (STORED when it has nothing to say about it)."""
        for name, state in self.instance_states:
            if name == client_id:
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
    def mq(self) -> MessageQueue:
        """The engine's key for this queue."""
        return MessageQueue(self.topic, self.broker, self.queue_id)

    @property
    def listed(self) -> bool:
        """Whether the topic's route lists this queue; a queue at or above ``read_queue_nums`` is never pulled."""
        return self.read_queue_nums is None or self.queue_id < self.read_queue_nums

    @property
    def name(self) -> str:
        """``TOPIC@BROKER:QID`` as the trace spells queues (for display)."""
        return str(self.mq)


@dataclass(frozen=True, slots=True)
class ScheduleLevelSnap:
    """One delay level's queue in ``SCHEDULE_TOPIC_XXXX`` (queue id = level − 1)."""

    broker: str
    level: int
    delay_ms: int
    pending: int
    dues: tuple[tuple[str, int], ...]
    """(msg id, due ms) of the messages still waiting, in queue order (due = store time + the level's delay)."""
    next_tick_ms: int | None = None
    """When the level's timer next wakes (the head's due time on the service's 100 ms grid); None: not armed."""

    @property
    def mq(self) -> MessageQueue:
        """``SCHEDULE_TOPIC_XXXX@broker:level-1``."""
        return MessageQueue(SCHEDULE_TOPIC, self.broker, self.level - 1)


@dataclass(frozen=True, slots=True)
class LockSnap:
    """One broker ``RebalanceLockManager`` entry: who holds an orderly queue, and the lease times."""

    broker: str
    group: str
    queue: str
    client: str
    ms_left: int
    """Milliseconds until ``expires_ms`` (negative once expired)."""
    expired: bool
    """``now − last_update_ms > 60000``: the next client that asks takes it over."""
    renewals: int
    """LOCK_RENEWED events for (group, queue) so far in the trace."""
    acquired_ms: int = 0
    """When ``client`` got this lease (first lock, or take-over of an expired one)."""
    last_update_ms: int = 0
    """The last successful lock or renewal (``LockEntry.lastUpdateTimestamp``)."""
    expires_ms: int = 0
    """``last_update_ms + 60000`` (``rocketmq.broker.rebalance.lockMaxLiveTime``); expired strictly after it."""

    @property
    def mq(self) -> MessageQueue:
        """The locked queue as the engine keys it."""
        return MessageQueue.parse(self.queue)


@dataclass(frozen=True, slots=True)
class BrokerSnap:
    """A broker: up or down, its lock table, its schedule levels and its injected faults."""

    name: str
    up: bool
    locks: tuple[LockSnap, ...]
    schedule: tuple[ScheduleLevelSnap, ...]
    faults: tuple[tuple[str, object], ...]
    members: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Group → client ids the broker knows from heartbeats (what ``findConsumerIdList`` answers), sorted."""
    committed_offsets: tuple[tuple[str, MessageQueue, int], ...] = ()
    """Every (group, queue, offset) in the broker's ``consumerOffset.json``, sorted by group and queue."""


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
    """The offset the next ``remove_message``/``commit`` would store (None when nothing is in flight):
    the smallest ``msg_tree_map`` key, or, orderly, ``commit() = last consuming key + 1``."""
    client_id: str = ""
    """The consumer instance owning this ProcessQueue."""
    group: str = ""
    last_lock_ms: int = 0
    """``lastLockTimestamp``: the last successful broker lock or renewal as this client saw it."""
    trust_until_ms: int = 0
    """``last_lock_ms + 30000`` (``REBALANCE_LOCK_MAX_LIVE_TIME``): after it the client stops consuming."""
    lock_expired: bool = False
    """The client-side ``isLockExpired()`` (now − last_lock_ms > 30000), whatever the broker thinks."""
    last_pull_ms: int = 0
    """``lastPullTimestamp``: when the pull loop last ran for this queue."""
    last_consume_ms: int = 0
    """``lastConsumeTimestamp``."""
    msg_count: int = 0
    """``msgCount``: messages held (both maps)."""
    memory_offset: int | None = None
    """The client's in-memory committed offset for this queue (``offsetTable``), not yet persisted maybe."""
    broker_offset: int | None = None
    """The persisted offset: the broker's ``consumerOffset`` (CLUSTERING) or the local file (BROADCASTING)."""
    msg_tree_ids: tuple[str, ...] = ()
    """The message ids of ``msg_tree_keys``, in the same order."""
    consuming_ids: tuple[str, ...] = ()
    """The message ids of ``consuming_keys``, in the same order."""

    @property
    def mq(self) -> MessageQueue:
        """The queue as the engine keys it."""
        return MessageQueue.parse(self.queue)


@dataclass(frozen=True, slots=True)
class ConsumerSnap:
    """A push consumer instance and its ProcessQueues and in-memory offset store."""

    client_id: str
    group: str
    running: bool
    orderly: bool
    message_model: str
    subscriptions: tuple[str, ...]
    process_queues: tuple[ProcessQueueSnap, ...]
    offset_store: tuple[tuple[str, int], ...]
    crashed: bool = False
    """Stopped by a crash (nothing persisted, broker locks left to expire), not a clean shutdown."""
    assigned: tuple[MessageQueue, ...] = ()
    """Queues this instance owns now (ProcessQueues not dropped), sorted; empty unless running."""
    busy_threads: int = 0
    """Consume threads running a ConsumeRequest now."""
    waiting_requests: int = 0
    """ConsumeRequests queued for a free consume thread."""
    local_offsets: tuple[tuple[MessageQueue, int], ...] = ()
    """BROADCASTING: this instance's offset file (``~/.rocketmq_offsets``), what a restart resumes from; sorted."""

    @property
    def actor(self) -> str:
        """How the trace names this instance (``consumer:<client id>``)."""
        return f"consumer:{self.client_id}"

    def process_queue(self, mq: MessageQueue | str) -> ProcessQueueSnap:
        """This instance's ProcessQueue for ``mq`` (KeyError names the ones it has)."""
        name = str(mq)
        for pq in self.process_queues:
            if pq.queue == name:
                return pq
        raise KeyError(f"{name!r}; {self.client_id} has {[pq.queue for pq in self.process_queues]}")


@dataclass(frozen=True, slots=True)
class TimerSnap:
    """One pending scheduler entry a student could see ticking: when it fires, what it is, whose it is."""

    due_ms: int
    remaining_ms: int
    """``due_ms − now``."""
    kind: TimerKind
    owner: str
    """The actor that armed it: ``consumer:c1``, ``producer:pg``, ``broker-a``, ``schedule:broker-a``, ``lab``."""
    queue: MessageQueue | None = None
    msg_ids: tuple[str, ...] = ()
    level: int | None = None
    detail: str = ""
    priority: Priority = Priority.NORMAL
    seq: int = 0
    """The scheduler's sequence number: unique, stable across equal runs, the tie-break at equal times; 0 for a
    task that waits its turn on a client's scheduled thread (the thread itself waits for the first one due)."""


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
    timers: tuple[TimerSnap, ...] = field(default=())
    """Every pending timer, in the order they will fire (time, priority, seq); a stopped consumer's are gone."""

    @classmethod
    def of(cls, lab: LabState, index: TraceIndex | None = None) -> LabSnapshot:
        """Same as :meth:`Lab.snapshot`."""
        return take_snapshot(lab, index)

    def queue(self, name: MessageQueue | str) -> ConsumeQueueSnap:
        """The queue ``name`` (a MessageQueue or ``TOPIC@BROKER:QID``; KeyError names the known ones)."""
        text = str(name)
        for q in self.queues:
            if q.name == text:
                return q
        raise KeyError(f"{str(name)!r}; have {[q.name for q in self.queues]}")

    def consumer(self, client_id: str) -> ConsumerSnap:
        """The consumer with this client id."""
        for c in self.consumers:
            if c.client_id == client_id:
                return c
        raise KeyError(f"{client_id!r}; have {[c.client_id for c in self.consumers]}")

    def broker(self, name: str) -> BrokerSnap:
        """The broker called ``name``."""
        for b in self.brokers:
            if b.name == name:
                return b
        raise KeyError(f"{name!r}; have {[b.name for b in self.brokers]}")

    def process_queues(self, mq: MessageQueue | str) -> tuple[ProcessQueueSnap, ...]:
        """Every instance's ProcessQueue for ``mq`` (two during a rebalance handover), by client id."""
        name = str(mq)
        return tuple(pq for c in self.consumers for pq in c.process_queues if pq.queue == name)

    def timers_of(self, *kinds: TimerKind, owner: str | None = None) -> tuple[TimerSnap, ...]:
        """The pending timers of these kinds (all kinds when none given), of ``owner`` when given."""
        return tuple(t for t in self.timers if (not kinds or t.kind in kinds) and (owner is None or t.owner == owner))

    def locks(self, group: str | None = None) -> tuple[LockSnap, ...]:
        """Every broker lock entry (of ``group`` when given), by broker, group and queue."""
        return tuple(lock for b in self.brokers for lock in b.locks if group is None or lock.group == group)


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
        self.copy_stored: dict[tuple[str, str], bool] = {}
        """(group, msg id) → a %RETRY%/%DLQ% copy was stored since the group's last delivery of it."""
        self.broadcast_clients: dict[str, str] = {}
        """Actor → client id of the BROADCASTING instances (from their start events): each is its own audience."""

    def audience(self, actor: str, group: str) -> str:
        """Whose offsets ``actor`` works on: its group (CLUSTERING), or itself (a BROADCASTING instance)."""
        return self.broadcast_clients.get(actor, group)

    def catch_up(self, lab: LabState) -> None:
        """Fold every event appended since the last call."""
        trace = lab.trace
        groups = client_groups(lab)
        for i in range(self.seen, len(trace)):
            e = trace[i]
            self._fold(e, groups)
            edge = flow_edge(e, groups)
            if edge is not None:
                self.flows.add(edge)
        self.seen = len(trace)

    def _fold(self, e: TraceEvent, groups: Mapping[str, str]) -> None:
        kind, d = e.kind, e.data
        msg_id = e.msg_id or ""
        if kind is EventKind.LIFECYCLE and d.get("event") == "start":
            if d.get("message_model") == "BROADCASTING":
                self.broadcast_clients[e.actor] = e.actor.partition(":")[2]
            else:
                self.broadcast_clients.pop(e.actor, None)
        elif kind is EventKind.STORED:
            name = str(MessageQueue(d["topic"], e.actor, d["queue_id"]))
            self.offset_msg[(name, d["queue_offset"])] = msg_id
            self._note_copy(e)
        elif kind is EventKind.SCHEDULED:
            level = d["level"]
            offset = self.schedule_count[(e.actor, level)]
            self.schedule_count[(e.actor, level)] += 1
            name = str(MessageQueue(SCHEDULE_TOPIC, e.actor, level - 1))
            self.offset_msg[(name, offset)] = msg_id
            self.schedule_due[(e.actor, level, offset)] = (msg_id, d["due_ms"])
            self._note_copy(e)
        elif kind is EventKind.DELIVERED:
            key = (self.audience(e.actor, d["group"]), d["queue"], d["queue_offset"])
            self.in_listener.add(key)
            self.last_delivery[(e.actor, msg_id)] = key
            self.terminal.pop(key, None)
            self.copy_stored[(d["group"], msg_id)] = False
        elif kind is EventKind.CONSUMED:
            delivery = self.last_delivery.get((e.actor, msg_id))
            if delivery is not None:
                self.in_listener.discard(delivery)
                if d["status"] in _SUCCESS:
                    self.terminal[delivery] = OffsetState.ACKED
        elif kind in (EventKind.SEND_BACK, EventKind.SEND_BACK_FALLBACK):
            delivery = self.last_delivery.get((e.actor, msg_id))
            group = groups.get(e.actor)
            if delivery is not None and group is not None and d.get("ok"):
                # The broker stores the copy before it answers: no copy by now means retryQueueNums 0 dropped it.
                stored = self.copy_stored.get((group, msg_id), False)
                self.terminal[delivery] = OffsetState.SENT_BACK if stored else OffsetState.DROPPED
        elif kind is EventKind.BROADCAST_DROPPED:
            delivery = self.last_delivery.get((e.actor, msg_id))
            if delivery is not None:
                self.terminal[delivery] = OffsetState.DROPPED
        elif kind is EventKind.LOCK_RENEWED:
            self.renewals[(d["group"], d["queue"])] += 1

    def _note_copy(self, e: TraceEvent) -> None:
        """If ``e`` stored a retry or DLQ copy, remember it for the group the copy's topic names."""
        group = copy_group(e)
        if group is not None:
            key = (group, e.msg_id or "")
            if key in self.copy_stored:
                self.copy_stored[key] = True


def copy_group(e: TraceEvent) -> str | None:
    """The consumer group whose ``%RETRY%``/``%DLQ%`` copy event ``e`` stores, or ``None``.

    A send-back's copy is stored either straight into its topic (STORED: the DLQ, or a retry with
    delay level 0 after a broker-side reset) or parked in ``SCHEDULE_TOPIC_XXXX`` with ``REAL_TOPIC``
    set (SCHEDULED: every ordinary retry). Both count: the broker stored the copy before it answered.
    """
    if e.kind is EventKind.STORED:
        topic = str(e.data["topic"])
    elif e.kind is EventKind.SCHEDULED:
        topic = str(e.data["real_topic"])
    else:
        return None
    for prefix in (RETRY_PREFIX, DLQ_PREFIX):
        if topic.startswith(prefix):
            return topic[len(prefix) :]
    return None


def client_groups(lab: LabState) -> dict[str, str]:
    """Trace actor (``producer:pg``, ``consumer:c1``) → its group, for :func:`flow_edge`."""
    groups = {f"producer:{name}": p.producer_group for name, p in lab.producers.items()}
    groups.update({c.actor: c.consumer_group for c in lab.consumers.values()})
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
        return f"pg:{group}", "queue:" + str(MessageQueue(d["topic"], d["broker"], d["queue_id"]))
    if kind is EventKind.DELIVERED:
        return f"queue:{d['queue']}", f"cg:{d['group']}"
    if kind is EventKind.SCHEDULED:
        return f"topic:{d['real_topic']}", "queue:" + str(MessageQueue(SCHEDULE_TOPIC, e.actor, d["level"] - 1))
    if kind is EventKind.DELAY_DELIVERED:
        broker = e.actor.split(":", 1)[1]
        source = MessageQueue(SCHEDULE_TOPIC, broker, d["level"] - 1)
        return f"queue:{source}", "queue:" + str(MessageQueue(d["topic"], broker, d["queue_id"]))
    if kind is EventKind.DEAD_LETTERED:
        return f"cg:{d['group']}", "queue:" + str(MessageQueue(d["topic"], e.actor, 0))
    if kind is EventKind.SEND_BACK or kind is EventKind.SEND_BACK_FALLBACK:
        group = groups.get(e.actor)
        if group is not None and e.actor.startswith("consumer:"):
            return f"cg:{group}", f"topic:{RETRY_PREFIX}{group}"
    return None


def _persisted_offset(lab: LabState, consumer: DefaultMQPushConsumer, mq: MessageQueue) -> int | None:
    """The offset a restarted instance would resume from: the broker's (CLUSTERING) or the local file's."""
    if consumer.is_clustering:
        broker = lab.brokers.get(mq.broker_name)
        return None if broker is None else broker.consumer_offsets.get((consumer.consumer_group, mq.topic, mq.queue_id))
    return lab.local_offset_files.get((consumer.client_id, consumer.consumer_group), {}).get(mq)


def _process_queue_snap(
    lab: LabState, consumer: DefaultMQPushConsumer, mq: MessageQueue, pq: ProcessQueue
) -> ProcessQueueSnap:
    now = lab.now
    service = consumer.consume_service
    local = service.mq_locks.get(mq) if isinstance(service, ConsumeMessageOrderlyService) else None
    keys = tuple(pq.msg_tree_map.keys())
    consuming = tuple(pq.consuming_msg_orderly_tree_map.keys())
    keys_ids = tuple(m.msg_id for m in pq.msg_tree_map.values())
    consuming_ids = tuple(m.msg_id for m in pq.consuming_msg_orderly_tree_map.values())
    if consuming:
        commit: int | None = consuming[-1] + 1
    elif keys:
        commit = keys[0]
    else:
        commit = None
    memory = consumer.offset_store.offset_table.get(mq)
    return ProcessQueueSnap(
        queue=str(mq),
        msg_tree_keys=keys,
        consuming_keys=consuming,
        locked=pq.locked,
        lock_age_ms=now - pq.last_lock_timestamp,
        dropped=pq.dropped,
        in_listener=pq.consume_lock_holder is not None,
        local_lock_held=bool(local is not None and local.held),
        commit_offset=commit,
        client_id=consumer.client_id,
        group=consumer.consumer_group,
        last_lock_ms=pq.last_lock_timestamp,
        trust_until_ms=pq.last_lock_timestamp + REBALANCE_LOCK_MAX_LIVE_TIME_MS,
        lock_expired=pq.is_lock_expired(now),
        last_pull_ms=pq.last_pull_timestamp,
        last_consume_ms=pq.last_consume_timestamp,
        msg_count=pq.msg_count,
        memory_offset=memory,
        broker_offset=_persisted_offset(lab, consumer, mq),
        msg_tree_ids=keys_ids,
        consuming_ids=consuming_ids,
    )


def _consumer_snap(lab: LabState, c: DefaultMQPushConsumer) -> ConsumerSnap:
    table = sorted(c.process_queue_table.items(), key=lambda item: item[0])
    pqs = tuple(_process_queue_snap(lab, c, mq, pq) for mq, pq in table) if c.running else ()
    service = c.consume_service
    pool = service.pool if c.running and service is not None else None
    return ConsumerSnap(
        c.client_id,
        c.consumer_group,
        c.running,
        c.orderly,
        c.message_model.value,
        tuple(sorted(c.subscriptions)),
        pqs,
        tuple(sorted((str(mq), off) for mq, off in c.offset_store.offset_table.items())),
        crashed=not c.running and c.stop_reason == "crash",
        assigned=tuple(mq for mq, pq in table if not pq.dropped) if c.running else (),
        busy_threads=pool.busy if pool is not None else 0,
        waiting_requests=len(pool.waiting) if pool is not None else 0,
        local_offsets=tuple(sorted(lab.local_offset_files.get((c.client_id, c.consumer_group), {}).items())),
    )


def _lock_snaps(b: Broker, index: TraceIndex, now: int) -> tuple[LockSnap, ...]:
    manager = b.lock_manager
    locks = []
    for group in sorted(manager.table):
        for mq, entry in sorted(manager.table[group].items(), key=lambda item: item[0]):
            expires = entry.last_update_timestamp + manager.max_live_time_ms
            locks.append(
                LockSnap(
                    b.name,
                    group,
                    str(mq),
                    entry.client_id,
                    expires - now,
                    manager.is_expired(entry),
                    index.renewals[(group, str(mq))],
                    acquired_ms=entry.acquired_timestamp,
                    last_update_ms=entry.last_update_timestamp,
                    expires_ms=expires,
                )
            )
    return tuple(locks)


def _timer_snaps(lab: LabState) -> tuple[TimerSnap, ...]:
    """The scheduler's live entries as plain data (a crashed client's timers were cancelled with its processes),
    with the housekeeping tasks that wait their turn on a consumer's scheduled thread."""
    now = lab.now
    entries = lab.scheduler.timers()
    for cid in sorted(lab.consumers):
        entries += [(due, Priority.NORMAL, 0, label) for due, label in lab.consumers[cid].scheduled_executor.queued()]
    entries.sort(key=lambda entry: entry[:3])
    out = []
    for due, priority, seq, label in entries:
        if label is None:
            label = TimerLabel(TimerKind.OTHER, "")
        out.append(
            TimerSnap(
                due,
                due - now,
                label.kind,
                label.owner,
                label.queue,
                label.msg_ids,
                label.level,
                label.detail,
                priority,
                seq,
            )
        )
    return tuple(out)


def _schedule_snaps(b: Broker, index: TraceIndex, timers: tuple[TimerSnap, ...]) -> tuple[ScheduleLevelSnap, ...]:
    ticks = {
        t.level: t.due_ms for t in timers if t.kind is TimerKind.DELAY_LEVEL and t.owner == b.schedule_service.actor
    }
    levels = []
    service = b.schedule_service
    for level in range(1, service.levels.max_level + 1):
        cq = b.find_consume_queue(SCHEDULE_TOPIC, level - 1)
        if cq is None:
            continue
        done = service.offset_table.get(level, 0)
        dues = tuple(index.schedule_due[(b.name, level, o)] for o in range(done, cq.max_offset))
        delay = service.levels.delay_ms(level)
        levels.append(ScheduleLevelSnap(b.name, level, delay, len(dues), dues, ticks.get(level)))
    return tuple(levels)


def take_snapshot(lab: LabState, index: TraceIndex | None = None) -> LabSnapshot:
    """Copy the Lab's state at ``lab.now`` into frozen plain data (``index`` is caught up first)."""
    if index is None:
        index = TraceIndex()
    index.catch_up(lab)
    now = lab.now
    timers = _timer_snaps(lab)
    consumers = tuple(_consumer_snap(lab, lab.consumers[cid]) for cid in sorted(lab.consumers))
    audiences = _audiences(consumers)

    brokers: list[BrokerSnap] = []
    queues: list[ConsumeQueueSnap] = []
    for bname in sorted(lab.brokers):
        b = lab.brokers[bname]
        faults = (
            ("response_delay_ms", b.response_delay_ms),
            ("lose_responses", b.lose_responses),
            ("put_status", b.put_status.value),
            ("reject_send_back", b.reject_send_back),
        )
        members = tuple((group, tuple(sorted(b.consumer_groups[group]))) for group in sorted(b.consumer_groups))
        offsets = tuple(
            sorted(
                (group, MessageQueue(topic, bname, qid), off) for (group, topic, qid), off in b.consumer_offsets.items()
            )
        )
        locks, schedule = _lock_snaps(b, index, now), _schedule_snaps(b, index, timers)
        brokers.append(BrokerSnap(bname, b.up, locks, schedule, faults, members, offsets))
        queues.extend(_queue_snaps(b, index, audiences))
    producers = tuple(sorted((name, p.producer_group) for name, p in lab.producers.items()))
    return LabSnapshot(
        now_ms=now,
        trace_len=len(lab.trace),
        events=lab.trace.events,
        brokers=tuple(brokers),
        queues=tuple(queues),
        consumers=consumers,
        producers=producers,
        delay_levels_ms=lab.delay_levels.delays_ms,
        flows=tuple(sorted(index.flows)),
        groups=tuple(sorted(client_groups(lab).items())),
        timers=timers,
    )


@dataclass(slots=True)
class _Audience:
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


def _audiences(consumers: Iterable[ConsumerSnap]) -> list[_Audience]:
    """The audiences of the lab's consumers, sorted by key (CLUSTERING groups merge their instances)."""
    by_key: dict[str, _Audience] = {}
    for c in consumers:
        broadcasting = c.message_model == "BROADCASTING"
        key = c.client_id if broadcasting else c.group
        audience = by_key.setdefault(key, _Audience(key, c.group, broadcasting))
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


def _queue_snaps(b: Broker, index: TraceIndex, audiences: list[_Audience]) -> list[ConsumeQueueSnap]:
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


def _summary(own: Mapping[str, OffsetState], instances: Iterable[_Audience], group: str) -> OffsetState:
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
