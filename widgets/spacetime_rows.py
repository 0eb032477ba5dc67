"""Folding the trace into the space-time diagram's rows: :class:`RowBuilder` holds the lanes and rows so far,
one function per event kind draws that event (:mod:`widgets.spacetime_client_rows` for the clients' requests and
listener calls, :mod:`widgets.spacetime_broker_rows` for the broker's and the lab's own events), and
:func:`spacetime_view_model` folds a snapshot's trace through them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from rmqlab import EventKind, TraceEvent
from rmqlab.core.i18n import gettext as _
from rmqlab.narrate import group_repeats
from rmqlab.snapshot import LabSnapshot

from .spacetime_broker_rows import fault, hop, lifecycle, lock, lock_expired, note
from .spacetime_client_rows import (
    ListenerCall,
    consumed,
    delivered,
    local_retry,
    pulled,
    send_attempt,
    send_back,
    send_back_fallback,
    send_failed,
    send_result,
)
from .spacetime_model import Lane, Row, SpaceTimeModel, Span

__all__ = ["HANDLERS", "RowBuilder", "spacetime_view_model", "spacetime_view_models"]


class RowBuilder:
    """Folds the trace into rows, merging what one picture shows once (a result into its call, …)."""

    def __init__(self, snap: LabSnapshot, locks: bool) -> None:
        self.locks = locks
        self.cast = _cast(snap)
        """The clients and brokers of the snapshot it began with: its first lanes (:meth:`carry_on`)."""
        self.consumer_ids = {c.client_id for c in snap.consumers}
        self.brokers = {b.name for b in snap.brokers}
        self.queue_broker = {q.name: q.broker for q in snap.queues}
        self.queues_read: dict[str, str | None] = {}
        """Every queue an event was drawn for → the broker found for it (None: not in the snapshot)."""
        self.lanes: dict[str, Lane] = {}
        for name, group in snap.producers:
            self.ensure_lane("producer:" + name, "producer", name, _("producer · {group}").format(group=group))
        for b in snap.brokers:
            self.ensure_lane(
                "schedule:" + b.name, "schedule", _("{broker} schedule").format(broker=b.name), "ScheduleMessageService"
            )
            self.ensure_lane("broker:" + b.name, "broker", b.name, "broker")
        for c in snap.consumers:
            self.ensure_lane(
                "consumer:" + c.client_id, "consumer", c.client_id, _("consumer · {group}").format(group=c.group)
            )
        self.rows: list[Row] = []
        self.spans: list[Span] = []
        self.attempts: dict[tuple[str, str | None, int], int] = {}
        """(actor, msg id, attempt) → index of its SEND row."""
        self.calls: dict[tuple[str, str | None], int] = {}
        """(consumer lane, msg id) → index of its open LISTENER row."""
        self.batches: dict[int, ListenerCall] = {}
        """Row index → the listener call it draws (a consumeMessageBatchMaxSize batch is one call)."""
        self.lock_queues: dict[tuple[str, str, int, str], tuple[int, list[str]]] = {}
        """(client lane, broker lane, ms, verb) → (row index, queues) of the lock arrow being grown."""
        self.open: dict[tuple[str, str], int] = {}
        """(lane, span kind) → index in ``spans`` of an open span."""

    def ensure_lane(self, lane_id: str, kind: str, title: str, subtitle: str) -> str:
        """The lane ``lane_id``, added (right of the others) the first time an actor shows up."""
        if lane_id not in self.lanes:
            self.lanes[lane_id] = Lane(lane_id, kind, title, subtitle)
        return lane_id

    def lane_of(self, actor: str) -> str | None:
        """The lane an event's actor is drawn on (None: the lab itself, e.g. a WARNING)."""
        kind, _sep, name = actor.partition(":")
        if kind == "producer":
            client = name.split("/", 1)[0]
            if "/" in name and client in self.consumer_ids:
                return "consumer:" + client
            return self.ensure_lane(actor, "producer", name, "producer")
        if kind == "consumer":
            return self.ensure_lane(actor, "consumer", name, "consumer")
        if kind == "schedule":
            return self.ensure_lane(
                actor, "schedule", _("{broker} schedule").format(broker=name), "ScheduleMessageService"
            )
        if actor in self.brokers or (not name and actor != "lab"):
            return self.ensure_lane("broker:" + actor, "broker", actor, "broker")
        return None

    def broker_of(self, queue: str) -> str | None:
        """The broker that holds ``queue`` in the snapshot (None: it is not there), remembered for :meth:`carry_on`."""
        broker = self.queues_read[queue] = self.queue_broker.get(queue)
        return broker

    def carry_on(self, snap: LabSnapshot) -> bool:
        """Go on folding ``snap``'s later events here, if that draws what a builder folding its whole trace would:
        the same clients and brokers, and each queue drawn so far found on the same broker in ``snap``."""
        queues = {q.name: q.broker for q in snap.queues}
        if _cast(snap) != self.cast or any(queues.get(q) != b for q, b in self.queues_read.items()):
            return False
        self.queue_broker = queues
        return True

    def broker_lane(self, broker: str) -> str:
        return self.ensure_lane("broker:" + broker, "broker", broker, "broker")

    def add(self, row: Row) -> int:
        self.rows.append(row)
        return len(self.rows) - 1

    def span_open(self, lane: str, kind: str, seq: int) -> None:
        if (lane, kind) not in self.open:
            self.open[(lane, kind)] = len(self.spans)
            self.spans.append(Span(lane, kind, seq, None))

    def span_close(self, lane: str, kind: str, seq: int) -> None:
        i = self.open.pop((lane, kind), None)
        if i is not None:
            self.spans[i] = replace(self.spans[i], end_seq=seq)

    def fold(self, e: TraceEvent) -> None:
        """Draw one event with the function :data:`HANDLERS` names for its kind (bookkeeping draws nothing)."""
        lane = self.lane_of(e.actor)
        if lane is None:
            return
        handler = HANDLERS.get(e.kind)
        if handler is not None:
            handler(self, e, lane)


HANDLERS: dict[EventKind, Callable[[RowBuilder, TraceEvent, str], None]] = {
    EventKind.SEND_ATTEMPT: send_attempt,
    EventKind.SEND_RESULT: send_result,
    EventKind.SEND_FAILED: send_failed,
    EventKind.PULLED: pulled,
    EventKind.DELIVERED: delivered,
    EventKind.CONSUMED: consumed,
    EventKind.SEND_BACK: send_back,
    EventKind.SEND_BACK_FALLBACK: send_back_fallback,
    EventKind.LOCAL_RETRY: local_retry,
    EventKind.SCHEDULED: hop,
    EventKind.DELAY_DELIVERED: hop,
    EventKind.DEAD_LETTERED: hop,
    EventKind.SUSPENDED: note,
    EventKind.BROADCAST_DROPPED: note,
    EventKind.CLEAN_EXPIRED: note,
    EventKind.REBALANCED: note,
    EventKind.ADMIN: note,
    EventKind.RETENTION_DELETED: note,
    EventKind.LIFECYCLE: lifecycle,
    EventKind.FAULT: fault,
    EventKind.LOCK_ACQUIRED: lock,
    EventKind.LOCK_RENEWED: lock,
    EventKind.LOCK_REFUSED: lock,
    EventKind.UNLOCKED: lock,
    EventKind.LOCK_EXPIRED: lock_expired,
}
"""Event kind → the function that draws it. Bookkeeping (offsets, STORED, warnings) draws nothing."""


def spacetime_view_model(snap: LabSnapshot, *, locks: bool = True) -> SpaceTimeModel:
    """The space-time diagram of everything in ``snap.events`` (the trace up to the controller's position).

    ``locks=False`` leaves out lock requests and renewals (an orderly run renews every 20 s). A broker's
    ``ScheduleMessageService`` lane is drawn from its first event on (a run without delays never needs its width).
    """
    b = RowBuilder(snap, locks)
    for e in snap.events:
        b.fold(e)
    return _model_of(b, snap)


def spacetime_view_models(snaps: Sequence[LabSnapshot], *, locks: bool = True) -> list[SpaceTimeModel]:
    """:func:`spacetime_view_model` of each snapshot of a run, in order, folding each event once: a snapshot's trace
    is the one before's and what came after it, so one :class:`RowBuilder` goes on from where it stopped. It starts
    again when the trace is not a continuation, or when the snapshot would have drawn the events so far otherwise
    (:meth:`RowBuilder.carry_on`: a client that joined, a queue gone)."""
    out = []
    b: RowBuilder | None = None
    folded: tuple[TraceEvent, ...] = ()
    for snap in snaps:
        events = snap.events
        if b is None or events[: len(folded)] != folded or not b.carry_on(snap):
            b, folded = RowBuilder(snap, locks), ()
        for e in events[len(folded) :]:
            b.fold(e)
        folded = events
        out.append(_model_of(b, snap))
    return out


def _cast(snap: LabSnapshot) -> tuple[object, ...]:
    """The clients and brokers :class:`RowBuilder` lays its first lanes out for."""
    return (snap.producers, tuple(b.name for b in snap.brokers), tuple((c.client_id, c.group) for c in snap.consumers))


def _model_of(b: RowBuilder, snap: LabSnapshot) -> SpaceTimeModel:
    """The diagram of what ``b`` folded so far, at ``snap``'s time (lanes without a row or span left out)."""
    rows = _fold_repeats(b.rows, b.spans)
    used = {r.src for r in rows} | {r.dst for r in rows} | {s.lane for s in b.spans}
    lanes = tuple(lane for lane in b.lanes.values() if lane.kind != "schedule" or lane.id in used)
    return SpaceTimeModel(lanes, rows, tuple(b.spans), snap.now_ms, snap.trace_len)


def _fold_repeats(rows: list[Row], spans: list[Span]) -> tuple[Row, ...]:
    """Identical rows (same kind, lanes and label; only the time differs) become one row labelled ``× 12, every
    20 s, 20 s – 4 m``, as the captions and the Events tab fold them (:func:`rmqlab.narrate.group_repeats`). Rows
    that start or end a span stay apart (the span is drawn between them)."""
    ends = {s.start_seq for s in spans} | {s.end_seq for s in spans if s.end_seq is not None}

    def key(r: Row) -> object:
        return r.seq if r.seq in ends else (r.kind, r.src, r.dst, r.label)

    out = []
    for g in group_repeats(rows, key=key, closes=lambda r: True):
        first: Row = g.first
        if g.count == 1:
            out.append(first)
        else:
            label, detail = f"{first.label} {g.summary}", f"{first.detail} ({g.summary})"
            out.append(replace(first, label=label, detail=detail, repeats=g.count))
    return tuple(out)
