"""Where every message is, for every owner: the message-flow view-model computed from a snapshot.

:func:`flow_view_model` lists the places (producers, queues, delay levels, ProcessQueues, then the outcome trays),
then lets every copy of every message *offer* itself where the snapshot holds it, in the order of
:mod:`widgets.flow_view`'s rules: live ProcessQueues, ConsumeQueue offsets, delay levels, send-backs that stored
no copy, the producers. For each (owner, message) the most advanced live place wins (:data:`_PRIORITY`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from rmqlab import EventKind, TimerKind, format_duration
from rmqlab.common.message import DLQ_PREFIX, RETRY_PREFIX
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import ConsumeQueueSnap, LabSnapshot, OffsetState

from .flow_clocks import with_consumer_state
from .flow_copies import copy_numbers, failed_try_ghosts
from .flow_dead_letters import offer_dead_letters, retry_unused
from .flow_delay_offsets import with_delay_offsets
from .flow_extras import REFUSED
from .flow_facts import SnapshotFacts, TraceFacts, owner_of, trace_facts
from .flow_kept_out import with_kept_out
from .flow_model import (
    BROADCAST_WHY,
    NO_COPY_WHY,
    NOT_STARTED,
    ConsumerVM,
    FlowVM,
    Place,
    PlaceKind,
    TokenState,
    TokenVM,
    countdown,
    countdown_time,
)
from .flow_send_budget import with_send_budgets
from .flow_uncommitted import with_uncommitted
from .palette import token_colour

__all__ = ["flow_view_model"]

_PRIORITY: dict[str, int] = {
    "pulled": 0,
    "consuming": 0,
    "stored": 1,
    "delayed": 2,
    "dead": 3,
    "dropped": 4,
    "done": 5,
    "sending": 6,
    "send_failed": 6,
}
"""Which place wins when a message's owner has several copies (lower first, see :mod:`widgets.flow_view`)."""
_PQ_WAITS = {
    TimerKind.SUSPEND: (N_("suspended · again in {time}"), N_("suspended · again now")),
    TimerKind.LOCAL_RETRY: (N_("local retry in {time}"), N_("local retry now")),
    TimerKind.CONSUME_YIELD: (  # 10 ms: no countdown to show ("again in 0 s" read as a suspension)
        N_("60 s in a row: thread given back, resubmitted"),
        N_("60 s in a row: thread given back, resubmitted"),
    ),
}
"""Timers that hold a ProcessQueue's messages, and what its box says: (while the timer runs, when it is due)."""


def flow_view_model(snap: LabSnapshot) -> FlowVM:
    """Where every message is for every owner at ``snap`` (see :mod:`widgets.flow_view` for the rules)."""
    facts = trace_facts(snap.events)
    seen = SnapshotFacts.of(snap)
    places = _producer_and_broker_places(snap)
    consumers = _consumer_boxes(snap, seen, places)
    best = _Placement(copies=copy_numbers(snap))
    _offer_process_queues(best, snap, seen, facts)
    sent_back = _offer_consume_queues(best, snap, seen, facts)
    _offer_delay_levels(best, snap, seen)
    for owner, msg in sorted(sent_back):  # sent back, and no copy anywhere (also a copy gone by retention)
        if (owner, msg, 1) not in best.winners:
            best.offer(owner, msg, f"dropped:{owner}", "dropped", facts.last_rt.get(msg, 0), why=_(NO_COPY_WHY))
    _offer_at_producers(best, seen, facts)
    tokens = tuple(
        replace(t, put_status=facts.not_ok[t.msg_id]) if t.state == "stored" and t.msg_id in facts.not_ok else t
        for t in best.tokens(seen.colour_key, snap.now_ms)
    )
    owners_seen = sorted({owner_of(c) for c in snap.consumers} | {t.owner for t in tokens if t.owner})
    places.extend(_outcome_places(snap, tokens, owners_seen))
    known = {p.key for p in places}
    for t in tokens:  # a token in a place the snapshot lists nowhere would be drawn nowhere: say so loudly
        if t.place not in known:
            raise ValueError(f"token {t.key} is in place {t.place!r}, which the view-model does not draw")
    note = _("colour = sharding key (else message id)") if seen.ordered else _("colour = message id")
    vm = FlowVM(
        now_ms=snap.now_ms,
        position=snap.trace_len,
        brokers=tuple((b.name, b.up) for b in snap.brokers),
        producers=tuple(name for name, _ in snap.producers),
        consumers=tuple(consumers),
        places=tuple(places),
        tokens=tokens,
        ordered=seen.ordered,
        colour_note=note,
        owners=tuple(owners_seen),
        focus=next((e.msg_id for e in reversed(snap.events) if e.msg_id is not None), ""),
        retry_paths=not snap.consumers or any(c.message_model != "BROADCASTING" for c in snap.consumers),
        ghosts=tuple(g for g in failed_try_ghosts(snap, seen.colour_key) if g.place in known),
    )
    for finish in (with_consumer_state, with_kept_out, with_uncommitted, with_delay_offsets, with_send_budgets):
        vm = finish(vm, snap)  # what each consumer waits for, then the marks that read the whole picture
    return vm


@dataclass(slots=True)
class _Placement:
    """The winning copy so far for each (owner, msg id, stored copy): an offer wins over an earlier one only if it
    ranks lower."""

    copies: dict[tuple[str, int], int] = field(default_factory=dict)
    """(queue name, offset) → copy number of a message stored twice (:func:`widgets.flow_copies.copy_numbers`)."""
    winners: dict[tuple[str, str, int], tuple[int, str, TokenState, int, int | None, int | None, str]] = field(
        default_factory=dict
    )
    """(owner, msg id, copy) → (priority, place, state, reconsume times, offset, due, why)."""

    def offer(
        self,
        owner: str,
        msg: str,
        place: str,
        state: TokenState,
        rt: int,
        offset: int | None = None,
        due: int | None = None,
        why: str = "",
        stored_at: tuple[str, int] | None = None,
        copy: int = 1,
    ) -> None:
        """Offer a place; ``stored_at`` (queue name, offset) names the business-queue copy it is of, if any."""
        rank = _PRIORITY[state]
        copy = self.copies.get(stored_at, 1) if stored_at is not None else copy
        old = self.winners.get((owner, msg, copy))
        if old is None or rank < old[0]:
            self.winners[(owner, msg, copy)] = (rank, place, state, rt, offset, due, why)

    def tokens(self, colour_key: dict[str, str], now: int) -> tuple[TokenVM, ...]:
        """One token per winner, coloured by sharding key or msg id, in drawing order."""
        made = (
            TokenVM(
                key=f"msg:{owner}:{msg}" + (f":copy{copy}" if copy > 1 else ""),
                msg_id=msg,
                owner=owner,
                place=place,
                state=state,
                reconsume_times=rt,
                colour=token_colour(colour_key.get(msg, msg)),
                colour_by=colour_key.get(msg, msg),
                offset=offset,
                due_ms=due,
                countdown="" if due is None else countdown(due - now),
                why=why,
                copy=copy,
            )
            for (owner, msg, copy), (_, place, state, rt, offset, due, why) in self.winners.items()
        )
        return tuple(sorted(made, key=_token_order))


def _queue_label(q: ConsumeQueueSnap, many_brokers: bool) -> str:
    label = f"{q.topic}:{q.queue_id}"
    return f"{label} · {q.broker}" if many_brokers else label


def _waiting(kind: TimerKind, ms: int) -> str:
    """``local retry in 5 s`` / ``suspended · again now``, in the current language."""
    running, due = _PQ_WAITS[kind]
    return _(running).format(time=countdown_time(ms)) if ms > 0 else _(due)


def _producer_and_broker_places(snap: LabSnapshot) -> list[Place]:
    """The producers, then per broker its business, ``%RETRY%`` and ``%DLQ%`` queues and its pending delay levels."""
    places = [Place(f"producer:{name}", "producer", name, "producers", owner=name) for name, _ in snap.producers]
    for q in snap.queues:
        if q.kind in ("business", "retry", "dlq"):
            note = retry_unused(snap, q) or ("" if q.listed else _("not in route"))
            kind: PlaceKind = "retry" if q.kind == "retry" else "dlq" if q.kind == "dlq" else "business"
            label = _queue_label(q, False)
            places.append(Place("queue:" + q.name, kind, label, f"broker:{q.broker}", note=note, deleted=q.min_offset))
    for b in snap.brokers:
        for level in b.schedule:
            if level.pending:
                label = _("level {level} · {delay}").format(level=level.level, delay=format_duration(level.delay_ms))
                places.append(Place(f"delay:{b.name}:{level.level}", "delay", label, f"broker:{b.name}"))
    return places


def _consumer_boxes(snap: LabSnapshot, seen: SnapshotFacts, places: list[Place]) -> list[ConsumerVM]:
    """One box per consumer instance; its live ProcessQueues are appended to ``places`` with what they wait for."""
    waits: dict[tuple[str, str], str] = {}
    """(consumer actor, queue) → what its ProcessQueue waits for (orderly suspend, local retry) and how long."""
    for timer in snap.timers:
        if timer.queue is not None and timer.kind in _PQ_WAITS:
            waits.setdefault((timer.owner, str(timer.queue)), _waiting(timer.kind, timer.remaining_ms))
    started = {
        e.actor.split(":", 1)[-1]
        for e in snap.events
        if e.kind is EventKind.LIFECYCLE and e.data.get("event") == "start"
    }
    consumers: list[ConsumerVM] = []
    for c in snap.consumers:
        how = _("orderly") if c.orderly else _("concurrently")
        stopped = _("crashed") if c.crashed else _("shut down") if c.client_id in started else _(NOT_STARTED)
        detail = f"{c.message_model} · {how}" if c.running else stopped
        consumers.append(ConsumerVM(c.client_id, c.group, c.running, detail))
        for pq in c.process_queues:
            if pq.dropped:
                continue
            listed = seen.queues_by_name.get(pq.queue)
            label = pq.queue if listed is None else _queue_label(listed, seen.many_brokers)
            note = waits.get((c.actor, pq.queue), "")
            places.append(
                Place(f"pq:{c.client_id}:{pq.queue}", "process_queue", label, "consumers", owner=c.client_id, note=note)
            )
    return consumers


def _offer_process_queues(best: _Placement, snap: LabSnapshot, seen: SnapshotFacts, facts: TraceFacts) -> None:
    """Rule 1: a message in a live ProcessQueue of an instance of its owner (``pulled``, or ``consuming``)."""
    for c in snap.consumers:
        if not c.running:
            continue
        owner = owner_of(c)
        for pq in c.process_queues:
            pq_queue = seen.queues_by_name.get(pq.queue)
            if pq.dropped or pq_queue is None:
                continue
            ids = {one.offset: one for one in pq_queue.cells}
            consuming = set(pq.consuming_keys)
            for off in sorted(set(pq.msg_tree_keys) | consuming):
                pq_cell = ids.get(off)
                if pq_cell is None or pq_cell.msg_id is None:
                    continue
                state: TokenState = "pulled"
                if off in consuming or pq_cell.state_for(c.group) is OffsetState.CONSUMING:
                    state = "consuming"
                rt = pq_cell.reconsume_times
                if facts.delivered_at.get((c.client_id, pq_cell.msg_id)) == (pq.queue, off):
                    # the client's own count: an orderly suspend or a local retry raises it without a new copy
                    rt = max(rt, facts.delivered_rt[(c.client_id, pq_cell.msg_id)])
                at = (pq.queue, off)
                best.offer(owner, pq_cell.msg_id, f"pq:{c.client_id}:{pq.queue}", state, rt, off, stored_at=at)


def _offer_consume_queues(
    best: _Placement, snap: LabSnapshot, seen: SnapshotFacts, facts: TraceFacts
) -> set[tuple[str, str]]:
    """Rules 2, 4, 5, 6: each stored copy, for each owner of its topic, by the offset's state for that owner.
    Returns the (owner, msg id) pairs sent back (rule 5 looks for their copy once every place has offered)."""
    sent_back: set[tuple[str, str]] = set()
    for q in snap.queues:
        if q.kind == "schedule":
            continue
        place = "queue:" + q.name
        if q.kind == "dlq":
            offer_dead_letters(best, q, seen.owners_of_topic.get(q.topic, ()))
            continue
        owners = list(seen.owners_of_topic.get(q.topic, ()))
        if q.kind == "retry" and q.topic[len(RETRY_PREFIX) :] not in owners:
            owners.append(q.topic[len(RETRY_PREFIX) :])
        for cell in q.cells:
            msg = cell.msg_id
            if msg is None:
                continue
            rt = cell.reconsume_times
            at = (q.name, cell.offset)
            if not owners:
                best.offer("", msg, place, "stored", rt, cell.offset, stored_at=at)
            for owner in owners:
                if owner in seen.broadcasting:
                    outcome = facts.outcome.get((owner, msg))
                    if outcome == "dropped":
                        rt = facts.delivered_rt.get((owner, msg), rt)
                        best.offer(owner, msg, f"dropped:{owner}", "dropped", rt, why=_(BROADCAST_WHY))
                    elif outcome == "done" or cell.offset < seen.client_offsets.get((owner, q.name), 0):
                        best.offer(owner, msg, f"done:{owner}", "done", facts.delivered_rt.get((owner, msg), rt))
                    else:
                        best.offer(owner, msg, place, "stored", rt, cell.offset)
                    continue
                st = cell.state_for(owner)
                if st is OffsetState.ACKED:
                    best.offer(owner, msg, f"done:{owner}", "done", rt, stored_at=at)
                elif st is OffsetState.DROPPED:
                    why = BROADCAST_WHY if msg in facts.broadcast_dropped else NO_COPY_WHY
                    best.offer(owner, msg, f"dropped:{owner}", "dropped", rt, why=why, stored_at=at)
                elif st is OffsetState.SENT_BACK:
                    sent_back.add((owner, msg))
                else:  # STORED, or PULLED/CONSUMING by a ProcessQueue drawn above (that offer wins)
                    best.offer(owner, msg, place, "stored", rt, cell.offset, stored_at=at)
    return sent_back


def _offer_delay_levels(best: _Placement, snap: LabSnapshot, seen: SnapshotFacts) -> None:
    """Rule 3: a copy waiting in a ``SCHEDULE_TOPIC_XXXX`` level, for the owner its real topic names (``%DLQ%cg``
    too: an orderly consumer's last send-back waits there for the dead-letter topic; it is not "dropped")."""
    for b in snap.brokers:
        for level in b.schedule:
            for msg, due in level.dues:
                real, rt = seen.parked.get((b.name, level.level, msg), ("", 0))
                copy = 1
                if real.startswith((RETRY_PREFIX, DLQ_PREFIX)):
                    owners = [real.removeprefix(RETRY_PREFIX).removeprefix(DLQ_PREFIX)]
                else:  # a producer's delayed message: parked again after a delivery, it is the next copy
                    owners = list(seen.owners_of_topic.get(real, ())) or [""]
                    copy = best.copies.get((msg, -1), 0) + 1
                for owner in owners:
                    best.offer(owner, msg, f"delay:{b.name}:{level.level}", "delayed", rt, due=due, copy=copy)


def _offer_at_producers(best: _Placement, seen: SnapshotFacts, facts: TraceFacts) -> None:
    """Rule 7: a message nothing stored (yet) is at its producer, ``sending`` or ``send failed``."""
    for msg, (producer, topic) in facts.sent_topic.items():
        if msg in facts.stored:
            continue
        state: TokenState = "send_failed" if msg in facts.failed else "sending"
        place = f"failed:{producer}" if state == "send_failed" else f"producer:{producer}"
        for owner in seen.owners_of_topic.get(topic, ()) or [""]:
            best.offer(owner, msg, place, state, 0)
    for msg, producer in facts.refused.items():  # no topic (nothing was sent): one token, for no group
        best.offer("", msg, f"failed:{producer}", "send_failed", 0, why=_(REFUSED))


def _outcome_places(snap: LabSnapshot, tokens: tuple[TokenVM, ...], owners_seen: list[str]) -> list[Place]:
    """Each owner's "consumed" tray, its "dropped" tray when something was dropped (with why), and a producer's
    "send failed" place when a send failed."""
    places = [
        Place(f"done:{owner}", "done", _("consumed · {owner}").format(owner=owner), "outcome", owner=owner)
        for owner in owners_seen
    ]
    for owner in owners_seen:
        whys = sorted({t.why for t in tokens if t.place == f"dropped:{owner}"})
        if whys:
            label = _("dropped · {owner}").format(owner=owner)
            places.append(Place(f"dropped:{owner}", "dropped", label, "outcome", owner=owner, note=" / ".join(whys)))
    for name, _sent in snap.producers:
        if any(t.place == f"failed:{name}" for t in tokens):
            places.append(Place(f"failed:{name}", "send_failed", _("send failed"), "producers", owner=name))
    return places


def _token_order(t: TokenVM) -> tuple[Any, ...]:
    """Tokens in a place: by due time (delay), by offset (queues), else by msg id; then by owner."""
    return (
        t.place,
        t.due_ms if t.due_ms is not None else -1,
        t.offset if t.offset is not None else -1,
        t.msg_id,
        t.owner,
        t.copy,
    )
