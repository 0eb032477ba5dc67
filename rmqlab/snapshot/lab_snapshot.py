""":class:`LabSnapshot` and :func:`take_snapshot`: one frozen copy of everything a view may show at ``lab.now``.

The copy is taken from the live engine objects (brokers, consumers, the scheduler) through
:class:`~rmqlab.snapshot.lab_state.LabState`, each family by its own module's dataclasses; the per-offset facts come
from a caught-up :class:`~rmqlab.snapshot.trace_index.TraceIndex`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..broker.broker_faults import BrokerFaults
from ..client.consumer.consume_message_orderly_service import ConsumeMessageOrderlyService
from ..client.consumer.process_queue import REBALANCE_LOCK_MAX_LIVE_TIME_MS
from ..common.message import SCHEDULE_TOPIC
from ..common.message_queue import MessageQueue
from ..core.scheduler import Priority, TimerKind, TimerLabel
from ..core.trace import TraceEvent
from .brokers import BrokerSnap, DelayOffsetSnap, LockSnap, ScheduleLevelSnap
from .cells import audiences_of, queue_snaps
from .clients import ConsumerSnap, FaultItemSnap, ProcessQueueSnap, RequestSnap, TimerSnap
from .queues import ConsumeQueueSnap
from .trace_index import TraceIndex, client_groups

if TYPE_CHECKING:
    from ..broker.broker_controller import Broker
    from ..client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
    from ..client.consumer.process_queue import ProcessQueue
    from .lab_state import LabState

__all__ = ["HEALTHY_BROKER", "LabSnapshot", "fault_fields", "take_snapshot"]


def fault_fields(faults: BrokerFaults) -> tuple[tuple[str, object], ...]:
    """A broker's injected faults as :attr:`BrokerSnap.faults` lists them (``BrokerFaults()``: a healthy broker's,
    what the run's first picture shows of a broker whose fault the factory set: ``widgets.origin``)."""
    return (
        ("response_delay_ms", faults.response_delay_ms),
        ("lose_responses", faults.lose_responses),
        ("put_status", faults.put_status.value),
        ("reject_send_back", faults.reject_send_back),
    )


HEALTHY_BROKER = fault_fields(BrokerFaults())
"""The faults of a broker with none injected."""


@dataclass(frozen=True, slots=True)
class LabSnapshot:
    """Everything a view may draw at one controller position (equal positions → equal snapshots).

    It is also the public way for a test or a teacher to read engine state (``lab.snapshot()``): frozen copies
    with RocketMQ's names, so reading never changes the run and code that reads it does not break when the
    engine's internals move. ``docs/state.md`` lists what is where.
    """

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
    partitions: tuple[tuple[str, str], ...] = field(default=())
    """Cut links (``lab.partition``): (client id, broker name), sorted."""
    requests: tuple[RequestSnap, ...] = field(default=())
    """Requests waiting for an answer (the ``responseTable``), in send order."""
    kept_out: tuple[FaultItemSnap, ...] = field(default=())
    """Brokers a producer's latency fault tolerance keeps out of its queue choice now, by producer and broker."""

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

    def lock(self, group: str, mq: MessageQueue | str) -> LockSnap | None:
        """The ``RebalanceLockManager`` entry of ``group`` for ``mq`` at its broker (expired ones too), or ``None``.

        Who holds an orderly queue is the broker's answer, not the client's ``ProcessQueue.locked`` mirror (see
        :meth:`process_queues`); the two disagree for up to 30 s after a crash, which is what lab 07 teaches.
        """
        name = str(mq)
        return next((lock for lock in self.locks(group) if lock.queue == name), None)

    def committed_offset(self, group: str, mq: MessageQueue | str) -> int | None:
        """The broker's committed offset of ``group`` for ``mq`` (``consumerOffset.json``), or ``None`` if it has none.

        This is what a restarted or new instance of the group resumes from (``QUERY_CONSUMER_OFFSET``); the
        consumer's in-memory offset (:attr:`ProcessQueueSnap.memory_offset`) reaches it only at the next persist.
        """
        queue = MessageQueue.parse(str(mq))
        broker = self.broker(queue.broker_name)
        return next((off for g, q, off in broker.committed_offsets if g == group and q == queue), None)


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
        in_listener=pq.consume_lock.held,
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
        msg_size=pq.msg_size,
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
        shutting_down=c.running and service is not None and service.stopped,
        begin_times=tuple(sorted(service.begin_times.items()))
        if c.running and isinstance(service, ConsumeMessageOrderlyService)
        else (),
    )


def _kept_out(lab: LabState, now: int) -> tuple[FaultItemSnap, ...]:
    """Each producer's fault table (``MQFaultStrategy.latencyFaultTolerance``), only the items not available at
    ``now`` (``FaultItem.isAvailable``: ``now - startTimestamp >= 0``); empty when the strategy is off."""
    out = []
    for name in sorted(lab.producers):
        strategy = lab.producers[name].fault_strategy
        if not strategy.send_latency_fault_enable:
            continue
        table = strategy.latency_fault_tolerance.fault_item_table
        for broker in sorted(table):
            item = table[broker]
            if not item.is_available(now):
                out.append(FaultItemSnap(name, broker, item.current_latency, item.start_timestamp))
    return tuple(out)


def _request_snaps(lab: LabState) -> tuple[RequestSnap, ...]:
    """The ``responseTable``: each request still waiting, what it is and when its client gives up on it."""
    out = []
    for opaque in sorted(lab.remoting.response_table):
        future = lab.remoting.response_table[opaque]
        code = getattr(future.request, "code", None)
        gives_up = None
        timer = future.timer
        if timer is not None and timer.label is not None and timer.label.kind is TimerKind.REQUEST_TIMEOUT:
            gives_up = lab.scheduler.due_time(timer)
        out.append(
            RequestSnap(
                client=future.client,
                broker=future.broker,
                code=code.name if code is not None else type(future.request).__name__,
                begin_ms=future.begin_ms,
                timeout_ms=future.timeout_ms,
                gives_up_ms=gives_up,
            )
        )
    return tuple(out)


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
        executor = lab.consumers[cid].client_instance.scheduled_executor
        entries += [(due, Priority.NORMAL, 0, label) for due, label in executor.queued()]
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
        cq = b.message_store.find_consume_queue(SCHEDULE_TOPIC, level - 1)
        if cq is None:
            continue
        done = service.offset_table.get(level, 0)
        dues = tuple(index.schedule_due[(b.name, level, o)] for o in range(done, cq.max_offset))
        delay = service.levels.delay_ms(level)
        levels.append(ScheduleLevelSnap(b.name, level, delay, len(dues), dues, ticks.get(level)))
    return tuple(levels)


def _delay_offsets(b: Broker) -> DelayOffsetSnap:
    """``ScheduleMessageService.offsetTable`` against ``delayOffset.json`` (read-only: nothing is caught up)."""
    service = b.schedule_service
    saved, written, following = service.delay_offset_file()
    return DelayOffsetSnap(
        live=tuple(sorted(service.offset_table.items())),
        saved=tuple(sorted(saved.items())),
        written_ms=written,
        next_write_ms=following,
        interval_ms=service.flush_delay_offset_interval,
    )


def take_snapshot(lab: LabState, index: TraceIndex | None = None) -> LabSnapshot:
    """Copy the Lab's state at ``lab.now`` into frozen plain data (``index`` is caught up first)."""
    if index is None:
        index = TraceIndex()
    index.catch_up(lab)
    now = lab.now
    timers = _timer_snaps(lab)
    consumers = tuple(_consumer_snap(lab, lab.consumers[cid]) for cid in sorted(lab.consumers))
    audiences = audiences_of(consumers)

    brokers: list[BrokerSnap] = []
    queues: list[ConsumeQueueSnap] = []
    for bname in sorted(lab.brokers):
        b = lab.brokers[bname]
        faults = fault_fields(b.faults)
        members = tuple((group, tuple(sorted(b.consumer_groups[group]))) for group in sorted(b.consumer_groups))
        offsets = tuple(
            sorted(
                (group, MessageQueue(topic, bname, qid), off) for (group, topic, qid), off in b.consumer_offsets.items()
            )
        )
        locks, schedule = _lock_snaps(b, index, now), _schedule_snaps(b, index, timers)
        groups = b.subscription_group_manager.subscription_groups
        retry_nums = tuple(sorted((g, config.retry_queue_nums) for g, config in groups.items()))
        brokers.append(
            BrokerSnap(bname, b.up, locks, schedule, faults, members, offsets, _delay_offsets(b), retry_nums)
        )
        queues.extend(queue_snaps(b, index, audiences))
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
        partitions=tuple(sorted(lab.remoting.faults.partitions)),
        requests=_request_snaps(lab),
        kept_out=_kept_out(lab, now),
    )
