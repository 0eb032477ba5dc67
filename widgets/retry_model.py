"""The retry timeline's view-model: one lane per message (per group or instance when several see it), its
deliveries, results, waits and end, folded from the trace, and the plain text the labs print.

:mod:`widgets.retry_timeline` tells how the picture reads; :mod:`widgets.retry_scene` draws this model.
"""

from __future__ import annotations

from dataclasses import dataclass

from rmqlab import EventKind, TraceEvent, format_duration
from rmqlab.common.message import RETRY_PREFIX
from rmqlab.core.i18n import ngettext
from rmqlab.lab.report import SUCCESS_STATUSES
from rmqlab.snapshot import LabSnapshot

from .masked_words import hidden_short
from .palette import OKABE_ITO

__all__ = [
    "MARKS",
    "Mark",
    "TimelineModel",
    "Wait",
    "message_count",
    "retry_timeline_model",
    "retry_timeline_text",
]


MARKS: dict[str, tuple[str, str]] = {
    "delivered": ("token", OKABE_ITO["yellow"]),
    "consumed_ok": ("token", OKABE_ITO["bluish_green"]),
    "consumed_failed": ("token", OKABE_ITO["vermillion"]),
    "retry_hop": ("tick", OKABE_ITO["orange"]),
    "dead_lettered": ("box", OKABE_ITO["black"]),
    "dropped": ("box", OKABE_ITO["vermillion"]),
}
"""Mark kind → (glyph, Okabe–Ito colour). A delivery's token takes its result's colour (yellow while the
listener runs); the number inside says which delivery it is, so colour is never the only cue."""


@dataclass(frozen=True, slots=True)
class Mark:
    """One thing that happened to a message, placed on its row."""

    kind: str
    t_ms: int
    """Milliseconds since the lane's message was first stored."""
    lane: int
    label: str
    delivery: int = 0
    """The delivery (1-based) this mark belongs to: its column (a DLQ write: the column after the last)."""


@dataclass(frozen=True, slots=True)
class Wait:
    """A stretch between two deliveries: a delay level in SCHEDULE_TOPIC_XXXX, an orderly suspend, a local retry."""

    start_ms: int
    end_ms: int
    lane: int
    level: int
    done: bool
    """False while the message still waits (end = its due time)."""
    after: int = 0
    """The delivery this wait follows (0: delayed before its first delivery, e.g. a producer delay level)."""
    kind: str = "delay"
    """``delay`` (a level of the schedule), ``suspend`` (orderly SUSPEND_CURRENT_QUEUE_A_MOMENT) or ``local``
    (the client re-consumes after 5 s because send-back and its fallback both failed)."""
    hidden: bool = False
    """A "when" checkpoint asks when this wait ends: its length and end read ``?`` (:mod:`widgets.checkpoint_mask`)."""

    @property
    def duration_ms(self) -> int:
        return self.end_ms - self.start_ms

    @property
    def length(self) -> str:
        """``10 s``, or ``?`` while hidden."""
        return hidden_short() if self.hidden else format_duration(self.duration_ms)

    @property
    def end(self) -> str:
        """The end, since the message was first stored: ``40 s``, or ``?`` while hidden."""
        return hidden_short() if self.hidden else format_duration(self.end_ms)

    @property
    def label(self) -> str:
        """``L3 · 10 s`` — what the student compares with ``messageDelayLevel``."""
        head = f"L{self.level}" if self.kind == "delay" else self.kind
        return f"{head} · {self.length}"


@dataclass(frozen=True, slots=True)
class TimelineModel:
    """Rows (message ids, in order), their origins, marks and waits, and where "now" is."""

    lanes: tuple[str, ...]
    origins_ms: tuple[int, ...]
    """Absolute virtual time each lane's message was first stored."""
    marks: tuple[Mark, ...]
    waits: tuple[Wait, ...]
    hidden: int
    """Messages left out by ``max_lanes``."""
    now_ms: int = 0
    position: int = 0
    lane_msgs: tuple[str, ...] = ()
    """The message id of each lane (a message seen by several groups or broadcast instances has several lanes)."""

    def deliveries(self, lane: int) -> int:
        """How many deliveries the lane's message has had."""
        return max((m.delivery for m in self.marks if m.lane == lane and m.kind != "dead_lettered"), default=0)


_LANE_KINDS = frozenset(
    {
        EventKind.STORED,
        EventKind.SCHEDULED,
        EventKind.DELAY_DELIVERED,
        EventKind.DELIVERED,
        EventKind.CONSUMED,
        EventKind.SUSPENDED,
        EventKind.LOCAL_RETRY,
        EventKind.DEAD_LETTERED,
        EventKind.BROADCAST_DROPPED,
    }
)
"""The events a row draws (SEND_BACK only marks a message as retried)."""


def retry_timeline_model(
    snap: LabSnapshot,
    *,
    msg_ids: tuple[str, ...] | None = None,
    only_retried: bool = False,
    max_lanes: int = 30,
) -> TimelineModel:
    """Rows (message ids in order) with every retry-relevant event placed on them.

    A message consumed by one group is one row named by its id. Each consumer group keeps its own retry
    chain (``%RETRY%<group>``), and in BROADCASTING each instance its own copy, so a message seen by
    several is one row per group (``M0001 · cgA``) or per instance (``M0001 · c1``); its first store is
    shared by all of them.
    """
    groups = dict(snap.groups)
    broadcasting = {c.group for c in snap.consumers if c.message_model == "BROADCASTING"}
    per_msg: dict[str, list[tuple[str | None, TraceEvent]]] = {}
    retried: set[str] = set()
    wanted = None if msg_ids is None else set(msg_ids)
    for e in snap.events:
        mid = e.msg_id
        if mid is None or (wanted is not None and mid not in wanted):
            continue
        if e.kind is EventKind.SEND_BACK or e.kind is EventKind.SUSPENDED:
            retried.add(mid)
        if e.kind in _LANE_KINDS:
            per_msg.setdefault(mid, []).append((_owner(e, groups, broadcasting), e))
    rows: list[tuple[str, list[TraceEvent]]] = []
    for mid in sorted(per_msg):
        evs = per_msg[mid]
        if not any(e.kind is EventKind.STORED or e.kind is EventKind.SCHEDULED for _, e in evs):
            continue
        if only_retried and mid not in retried:
            continue
        owners = sorted({who for who, _ in evs if who is not None})
        if len(owners) <= 1:
            rows.append((mid, [e for _, e in evs]))
        else:
            rows.extend((f"{mid} · {o}", [e for who, e in evs if who in (None, o)]) for o in owners)
    hidden = max(0, len(rows) - max_lanes)
    rows = rows[:max_lanes]
    marks: list[Mark] = []
    waits: list[Wait] = []
    origins = [_fold_lane(evs, lane, marks, waits) for lane, (_, evs) in enumerate(rows)]
    names = tuple(name for name, _ in rows)
    msgs = tuple(evs[0].msg_id or "" for _, evs in rows)
    return TimelineModel(names, tuple(origins), tuple(marks), tuple(waits), hidden, snap.now_ms, snap.trace_len, msgs)


def _owner(e: TraceEvent, groups: dict[str, str], broadcasting: set[str]) -> str | None:
    """Whose retry chain ``e`` belongs to: a group, a BROADCASTING instance, or None (shared: the first store)."""
    if e.actor in groups:
        group = groups[e.actor]
        return e.actor.partition(":")[2] if group in broadcasting else group
    topic = e.get("real_topic") or e.get("topic") or ""
    if topic.startswith(RETRY_PREFIX):
        return topic[len(RETRY_PREFIX) :]
    if e.kind is EventKind.DEAD_LETTERED:
        return str(e.get("group"))
    return None


def _fold_lane(evs: list[TraceEvent], lane: int, marks: list[Mark], waits: list[Wait]) -> int:
    """Place one message's events on its lane; returns its origin (first stored, absolute ms)."""
    t0 = next(e.time_ms for e in evs if e.kind in (EventKind.STORED, EventKind.SCHEDULED))
    n = 0
    open_wait: Wait | None = None

    def close(t: int) -> None:
        nonlocal open_wait
        if open_wait is not None:
            waits.append(Wait(open_wait.start_ms, t, lane, open_wait.level, True, open_wait.after, open_wait.kind))
            open_wait = None

    for e in evs:
        k, d, t = e.kind, e.data, e.time_ms - t0
        if k is EventKind.DELIVERED:
            if open_wait is not None and open_wait.kind != "delay":
                close(t)
            n += 1
            label = f"delivery #{n} reconsume_times={d['reconsume_times']} from {d['queue']} ({e.actor})"
            marks.append(Mark("delivered", t, lane, label, n))
        elif k is EventKind.CONSUMED:
            ok = d["status"] in SUCCESS_STATUSES
            label = f"{d['status']} ({d['return_type']}, took {format_duration(d['took_ms'])})"
            marks.append(Mark("consumed_ok" if ok else "consumed_failed", t, lane, label, n))
        elif k is EventKind.SCHEDULED:
            open_wait = Wait(t, d["due_ms"] - t0, lane, d["level"], False, n)
        elif k is EventKind.DELAY_DELIVERED and open_wait is not None:
            close(t)
        elif k is EventKind.SUSPENDED:
            open_wait = Wait(t, t + d["retry_in_ms"], lane, 0, False, n, "suspend")
        elif k is EventKind.LOCAL_RETRY:
            open_wait = Wait(t, t + d["retry_in_ms"], lane, 0, False, n, "local")
        elif k is EventKind.STORED and d["topic"].startswith(RETRY_PREFIX):
            label = f"stored in {d['topic']} (reconsume_times={d['reconsume_times']})"
            marks.append(Mark("retry_hop", t, lane, label, n + 1))
        elif k is EventKind.DEAD_LETTERED:
            label = f"dead-lettered to {d['topic']} after {d['reconsume_times']} reconsumes"
            marks.append(Mark("dead_lettered", t, lane, label, n + 1))
        elif k is EventKind.BROADCAST_DROPPED:
            marks.append(Mark("dropped", t, lane, f"dropped by {e.actor}: {d['message']}", n + 1))
    if open_wait is not None:
        waits.append(open_wait)
    return t0


_GLYPH = {
    "delivered": "D",
    "consumed_ok": "✓",
    "consumed_failed": "✗",
    "retry_hop": "→RETRY",
    "dead_lettered": "DLQ",
    "dropped": "DROPPED",
}


def retry_timeline_text(vm: TimelineModel) -> str:
    """One line per lane: ``M0001: D@0 s ✗@0 s wait L3 0 s→10 s D@10 s … DLQ@100 s``."""
    lines = []
    for lane, mid in enumerate(vm.lanes):
        items: list[tuple[int, int, str]] = [
            (m.t_ms, 0, f"{_GLYPH[m.kind]}@{format_duration(m.t_ms)}") for m in vm.marks if m.lane == lane
        ]
        items += [
            (
                w.start_ms,
                1,
                f"{'wait L' + str(w.level) if w.kind == 'delay' else w.kind} "
                f"{format_duration(w.start_ms)}→{w.end}{'' if w.done else ' (pending)'}",
            )
            for w in vm.waits
            if w.lane == lane
        ]
        lines.append(f"{mid}: " + " ".join(text for _, _, text in sorted(items, key=lambda i: (i[0], i[1]))))
    if vm.hidden:
        lines.append(f"(+{vm.hidden} more messages)")
    return "\n".join(lines) or "(no messages yet)"


def message_count(n: int) -> str:
    """``1 message``, ``5 messages``."""
    return ngettext("{n} message", "{n} messages", n).format(n=n)
