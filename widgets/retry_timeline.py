"""RetryTimeline: one row per message — its deliveries, the delay level and duration of every wait, the DLQ.

The default schedule spans hours with the first retries 10 s apart, so no linear or log axis
keeps 17 deliveries both to scale and apart. The row is therefore **ordinal**: one column per
delivery, numbered in its token, so markers never overlap; each wait between two deliveries is
labelled with what RocketMQ chose — its delay level and duration (``L3 · 10 s`` … ``L18 · 2 h``; an
orderly suspend reads ``suspend · 1 s``, a client-side retry ``local · 5 s``) — and each delivery with
its time **since first stored** (the schedule as the spec writes it: 0, 10, 40, 100 … s).
Under every row a thin **proportional bar** on the shared absolute virtual-time axis (bottom) shows the
same deliveries to scale, and the row's label says when the message was first stored, so absolute =
first stored + since. The **now** line crosses the bars at the snapshot's time; a wait still pending is
dashed up to a hollow "due" circle with its countdown and a now tick on it. A ``%DLQ%`` write ends
the row with a DLQ box; a dropped BROADCASTING message ends with a crossed one.

Only what happened up to the controller's position is drawn (the snapshot holds nothing else); a
pending wait's due time is shown because the broker already holds it (``SCHEDULE_TOPIC_XXXX``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rmqlab import EventKind, TraceEvent, format_duration
from rmqlab.common.message import RETRY_PREFIX
from rmqlab.core.i18n import N_
from rmqlab.snapshot import LabSnapshot

from .palette import OKABE_ITO
from .scene import Mark as SceneMark
from .scene import Scene, SceneView, legend_marks, text_width

__all__ = [
    "MARKS",
    "Mark",
    "RetryTimeline",
    "TimelineModel",
    "Wait",
    "message_count",
    "retry_timeline_model",
    "retry_timeline_scene",
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
_SUCCESS = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})


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

    @property
    def duration_ms(self) -> int:
        return self.end_ms - self.start_ms

    @property
    def label(self) -> str:
        """``L3 · 10 s`` — what the student compares with ``messageDelayLevel``."""
        head = f"L{self.level}" if self.kind == "delay" else self.kind
        return f"{head} · {format_duration(self.duration_ms)}"


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
            ok = d["status"] in _SUCCESS
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
                f"{format_duration(w.start_ms)}→{format_duration(w.end_ms)}{'' if w.done else ' (pending)'}",
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
    return f"{n} message" if n == 1 else f"{n} messages"


# ---------------------------------------------------------------------------------------------- the drawing
LEFT_W = 150
"""The row labels' column."""
LEGEND_H = 46
HEADER_H = 30
ROW_H = 96
RIGHT_PAD = 24
"""Room right of the last column for its half of a time label."""
TARGET_W = 960
"""The width a long schedule is squeezed into (17 deliveries fit; labels then alternate between two lines)."""
TOKEN_R = 9
LABEL_PX = 11
MIN_STEP, MAX_STEP = 40, 112
SCOPE = '[data-testid="rq-retry-timeline"]'
_NICE_MS = (
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
    600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
)  # fmt: skip
"""Tick spacings of the absolute axis (1 ms … 1 day): the first that keeps labels ~90 px apart is used."""


def _css() -> str:
    o = OKABE_ITO
    return f"""
{SCOPE} .rq-rt-label {{ font-size: {LABEL_PX}px; }}
{SCOPE} .rq-rt-wait {{ stroke: {o["reddish_purple"]}; stroke-width: 3; }}
{SCOPE} .rq-rt-local {{ stroke: {o["orange"]}; stroke-width: 3; }}
{SCOPE} .rq-rt-pending {{ stroke: {o["reddish_purple"]}; stroke-width: 2; stroke-dasharray: 5 3; }}
{SCOPE} .rq-rt-link {{ stroke: var(--jp-ui-font-color2, #616161); stroke-width: 1.5; }}
{SCOPE} .rq-rt-due {{ fill: none; stroke: {o["reddish_purple"]}; stroke-width: 2; stroke-dasharray: 3 2; }}
{SCOPE} .rq-rt-dlq {{ fill: var(--jp-ui-font-color1, #1f1f1f); stroke: none; }}
{SCOPE} text.rq-rt-dlq-text {{ fill: var(--jp-layout-color0, #ffffff); font-size: 11px; font-weight: 700; }}
{SCOPE} .rq-rt-dropped {{ fill: none; stroke: {o["vermillion"]}; stroke-width: 2; }}
{SCOPE} .rq-rt-bar {{ stroke: var(--jp-border-color2, #c7c7c7); stroke-width: 3; }}
{SCOPE} .rq-rt-tick {{ stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-width: 1.5; }}
{SCOPE} .rq-rt-tick-fail {{ stroke: {o["vermillion"]}; stroke-width: 1.5; }}
{SCOPE} .rq-rt-tick-ok {{ stroke: {o["bluish_green"]}; stroke-width: 2; }}
{SCOPE} .rq-rt-now {{ stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2; }}
{SCOPE} text.rq-rt-now-text {{ fill: var(--jp-brand-color1, #1976d2); font-weight: 600; }}
"""


CSS = _css()
LEGEND: tuple[tuple[str, str, str], ...] = (
    ("token", OKABE_ITO["vermillion"], N_("delivery n: failed")),
    ("token", OKABE_ITO["bluish_green"], N_("delivery n: consumed")),
    ("token", OKABE_ITO["yellow"], N_("in the listener")),
    ("line", "rq-rt-wait", N_("wait: delay level · duration")),
    ("line", "rq-rt-pending", N_("waiting now (due …)")),
    ("rect", "rq-rt-dlq", N_("written to %DLQ%")),
    ("line", "rq-rt-tick", N_("to scale: real time")),
    ("line", "rq-rt-now", N_("now")),
)


_TICK_CLASS = {MARKS["consumed_failed"][1]: "rq-rt-tick-fail", MARKS["consumed_ok"][1]: "rq-rt-tick-ok"}


def _token_fill(vm: TimelineModel, lane: int, n: int) -> tuple[str, str]:
    """(fill, result text) of delivery ``n``: the result's colour, yellow while the listener runs."""
    for m in vm.marks:
        if m.lane == lane and m.delivery == n and m.kind in ("consumed_ok", "consumed_failed"):
            return MARKS[m.kind][1], m.label
    return MARKS["delivered"][1], "in the listener"


def _nice_step(span_ms: int, px: float) -> int:
    for step in _NICE_MS:
        if span_ms / step * 90 <= px:
            return step
    return _NICE_MS[-1]


@dataclass(frozen=True, slots=True)
class _Grid:
    """The timeline's geometry: one column per delivery (``step`` px), labels on one or two staggered lines, and
    the proportional bars' absolute axis (``plot_w`` px for ``span_ms``)."""

    step: float
    wait_rows: int
    since_rows: int
    plot_w: float
    span_ms: int

    def abs_x(self, t_ms: int) -> float:
        """Where virtual time ``t_ms`` sits on the absolute (to-scale) axis."""
        return LEFT_W + self.plot_w * min(max(t_ms, 0), self.span_ms) / self.span_ms

    def col_x(self, n: int) -> float:
        """The centre of delivery ``n``'s column."""
        return LEFT_W + self.step * (n - 0.5)

    def since_y(self, y: float, n: int) -> float:
        """The baseline of column ``n``'s "time since first stored" label (two staggered lines when crowded)."""
        return y + 21 + 12 * (n % self.since_rows)


def _grid(vm: TimelineModel) -> _Grid:
    """As wide as TARGET_W allows; a label wider than one column alternates between two lines (two columns of
    room), or three when two would make the picture wider than TARGET_W (a long schedule at the 11 px labels)."""
    columns = max((vm.deliveries(i) + 1 for i in range(len(vm.lanes))), default=1)
    widest_wait = max((text_width(w.label, LABEL_PX) for w in vm.waits), default=0.0)
    widest_since = max((text_width(format_duration(m.t_ms), LABEL_PX) for m in vm.marks), default=0.0)
    fit = (TARGET_W - LEFT_W - RIGHT_PAD) / columns
    lines = 2 if max(widest_wait, widest_since) / 2 + 3 <= max(fit, MIN_STEP) else 3
    step = min(max(fit, MIN_STEP, widest_wait / lines + 3, widest_since / lines + 3), MAX_STEP)

    def rows(widest: float) -> int:
        return max(1, min(lines, math.ceil(widest / (step - 6))))

    return _Grid(step, rows(widest_wait), rows(widest_since), columns * step, max(vm.now_ms, 1))


def retry_timeline_scene(vm: TimelineModel) -> Scene:
    """The timeline as a Scene (rows, the shared absolute axis, the now line, a legend)."""
    g = _grid(vm)
    width = int(max(LEFT_W + g.plot_w + RIGHT_PAD, LEFT_W + 4 * 170))
    top = LEGEND_H + HEADER_H
    marks: list[SceneMark] = []
    for col in range(4):
        items = LEGEND[2 * col : 2 * col + 2]
        marks.extend(legend_marks(items, x=LEFT_W + 170 * col, y=10, key=f"legend{col}", gap=18))
    title = "deliveries, one column each (not to scale) · under each: time since first stored"
    marks.append(SceneMark("text", "axis:title", x=LEFT_W, y=top - 12, text=title, cls="rq-muted rq-rt-label"))
    for lane in range(len(vm.lanes)):
        marks.extend(_lane_marks(vm, g, lane, y=top + lane * ROW_H + 32))
    bars_top = top + 32 + 46 - 6 if vm.lanes else top  # from the first row's bar down
    ay = top + len(vm.lanes) * ROW_H + 10
    marks.extend(_axis_marks(vm, g, ay=ay, bars_top=bars_top, width=width))
    height = int(ay + 40)
    label = f"Retry timeline: {message_count(len(set(vm.lane_msgs)))}, now {format_duration(vm.now_ms)}"
    extra = (("now-ms", str(vm.now_ms)), ("position", str(vm.position)), ("lanes", str(len(vm.lanes))))
    return Scene(width, height, tuple(marks), label=label, testid="rq-retry-timeline", css=CSS, extra=extra)


def _lane_marks(vm: TimelineModel, g: _Grid, lane: int, y: float) -> list[SceneMark]:
    """One message's row: its name and state, the waits (under the tokens), the row's end (DLQ / dropped box),
    the numbered deliveries, and the same deliveries to scale on a bar under them."""
    mid = vm.lanes[lane]
    origin = vm.origins_ms[lane]
    lane_marks = [m for m in vm.marks if m.lane == lane]
    waits = [w for w in vm.waits if w.lane == lane]
    n = vm.deliveries(lane)
    end = next((m for m in lane_marks if m.kind in ("dead_lettered", "dropped")), None)
    pending = next((w for w in waits if not w.done), None)
    state = _lane_state(vm, lane, n, end, pending)
    key = f"rt:{mid}"
    marks = [
        SceneMark("text", f"{key}:id", x=8, y=y + 4, text=mid, cls="rq-title", role="lane"),
        SceneMark(
            "text",
            f"{key}:origin",
            x=8,
            y=y + 19,
            text=f"first stored {format_duration(origin)}",
            cls="rq-muted rq-rt-label",
            role="origin",
            title=f"{origin} ms",
        ),
        SceneMark("text", f"{key}:state", x=8, y=y + 32, text=state, cls="rq-rt-label", role="lane-state"),
    ]
    for w in waits:
        marks.extend(_wait_marks(vm, g, w, key=key, y=y, origin=origin))
    if end is not None:
        marks.extend(_end_marks(g, end, key=key, y=y))
    delivered = [m for m in lane_marks if m.kind == "delivered"]
    for m in delivered:
        marks.extend(_delivery_marks(vm, g, m, key=key, y=y, origin=origin))
    marks.extend(_bar_marks(vm, g, delivered, end, key=key, by=y + 46, origin=origin))
    return marks


def _wait_marks(vm: TimelineModel, g: _Grid, w: Wait, *, key: str, y: float, origin: int) -> list[SceneMark]:
    """A wait between two deliveries, labelled; a pending one ends in a hollow "due" circle with its countdown
    and a now cursor on the line."""
    x1 = g.col_x(w.after) + TOKEN_R if w.after else LEFT_W
    x2 = g.col_x(w.after + 1) - TOKEN_R
    cls = "rq-rt-pending" if not w.done else "rq-rt-local" if w.kind != "delay" else "rq-rt-wait"
    wkey = f"{key}:w{w.after}"
    tip = (
        f"{w.label}: {format_duration(w.start_ms)} → {format_duration(w.end_ms)} since first stored"
        f"{'' if w.done else ' (waiting)'}"
    )
    marks = [
        SceneMark("line", wkey, x=x1, y=y, x2=x2, y2=y, cls=cls, role="wait", title=tip),
        SceneMark(
            "text",
            f"{wkey}:label",
            x=(x1 + x2) / 2,
            y=y - 14 - 12 * (w.after % g.wait_rows),
            text=w.label,
            anchor="middle",
            cls="rq-rt-label",
            role="wait-label",
            title=tip,
        ),
    ]
    if w.done:
        return marks
    due_x = g.col_x(w.after + 1)
    left = max(w.end_ms + origin - vm.now_ms, 0)
    due_title = f"due at {format_duration(w.end_ms + origin)}"
    marks.append(
        SceneMark("circle", f"{key}:due", x=due_x, y=y, r=TOKEN_R, cls="rq-rt-due", role="due", title=due_title)
    )
    marks.append(
        SceneMark(
            "text",
            f"{key}:due:t",
            x=due_x,
            y=g.since_y(y, w.after + 1),
            anchor="middle",
            text=f"due in {format_duration(left)}",
            cls="rq-rt-label",
            role="countdown",
        )
    )
    frac = (vm.now_ms - origin - w.start_ms) / max(w.duration_ms, 1)
    nx = x1 + (x2 - x1) * min(max(frac, 0.0), 1.0)
    now_title = f"now: {format_duration(vm.now_ms)}"
    marks.append(
        SceneMark(
            "line", f"{key}:now", x=nx, y=y - 5, x2=nx, y2=y + 5, cls="rq-rt-now", role="now-cursor", title=now_title
        )
    )
    return marks


def _end_marks(g: _Grid, end: Mark, *, key: str, y: float) -> list[SceneMark]:
    """The end of a row after its last delivery: a black DLQ box, or a crossed box for a dropped message."""
    ex = g.col_x(end.delivery)
    dlq = end.kind == "dead_lettered"
    return [
        SceneMark(
            "line", f"{key}:endlink", x=g.col_x(end.delivery - 1) + TOKEN_R, y=y, x2=ex - 16, y2=y, cls="rq-rt-link"
        ),
        SceneMark(
            "rect",
            f"{key}:end",
            x=ex - 16,
            y=y - 8,
            w=32,
            h=16,
            cls="rq-rt-dlq" if dlq else "rq-rt-dropped",
            role=end.kind,
            title=f"{end.label} at {format_duration(end.t_ms)} since first stored",
        ),
        SceneMark(
            "text",
            f"{key}:end:t",
            x=ex,
            y=y + 3.5,
            text="DLQ" if dlq else "✗",
            anchor="middle",
            cls="rq-rt-dlq-text" if dlq else "rq-rt-label",
        ),
        SceneMark(
            "text",
            f"{key}:end:since",
            x=ex,
            y=g.since_y(y, end.delivery),
            anchor="middle",
            text=format_duration(end.t_ms),
            cls="rq-rt-label",
            role="since",
            title=end.label,
        ),
    ]


def _delivery_marks(vm: TimelineModel, g: _Grid, m: Mark, *, key: str, y: float, origin: int) -> list[SceneMark]:
    """Delivery ``m``: a numbered token in its result's colour, its time since first stored under it."""
    fill, result = _token_fill(vm, m.lane, m.delivery)
    x = g.col_x(m.delivery)
    at = format_duration(m.t_ms + origin)
    tip = f"{m.label}: {result} — {format_duration(m.t_ms)} after first stored, at {at}"
    return [
        SceneMark(
            "token",
            f"{key}:d{m.delivery}",
            x=x,
            y=y,
            r=TOKEN_R,
            text=str(m.delivery),
            fill=fill,
            role="delivery",
            title=tip,
        ),
        SceneMark(
            "text",
            f"{key}:d{m.delivery}:since",
            x=x,
            y=g.since_y(y, m.delivery),
            anchor="middle",
            text=format_duration(m.t_ms),
            cls="rq-rt-label",
            role="since",
            title=tip,
        ),
    ]


def _bar_marks(
    vm: TimelineModel, g: _Grid, delivered: list[Mark], end: Mark | None, *, key: str, by: float, origin: int
) -> list[SceneMark]:
    """The proportional bar: the same deliveries (and the end) to scale on the shared absolute axis."""
    marks = [
        SceneMark("line", f"{key}:bar", x=LEFT_W, y=by, x2=LEFT_W + g.plot_w, y2=by, cls="rq-rt-bar", role="bar"),
        SceneMark("text", f"{key}:bar:t", x=8, y=by + 4, text="to scale ▸", cls="rq-muted rq-rt-label"),
    ]
    for m in delivered:
        fill, _ = _token_fill(vm, m.lane, m.delivery)
        tx = g.abs_x(m.t_ms + origin)
        marks.append(
            SceneMark(
                "line",
                f"{key}:t{m.delivery}",
                x=tx,
                y=by - 5,
                x2=tx,
                y2=by + 5,
                cls=_TICK_CLASS.get(fill, "rq-rt-tick"),
                role="tick",
                title=f"delivery {m.delivery} at {format_duration(m.t_ms + origin)}",
            )
        )
    if end is not None:
        tx = g.abs_x(end.t_ms + origin)
        title = f"{end.label} at {format_duration(end.t_ms + origin)}"
        marks.append(
            SceneMark(
                "rect", f"{key}:tend", x=tx - 3, y=by - 3, w=6, h=6, cls="rq-rt-dlq", role="tick-end", title=title
            )
        )
    return marks


def _axis_marks(vm: TimelineModel, g: _Grid, *, ay: float, bars_top: float, width: int) -> list[SceneMark]:
    """The shared absolute axis under the rows, its ticks, the now line through every bar, and how many
    messages are not shown."""
    marks = [SceneMark("line", "axis", x=LEFT_W, y=ay, x2=LEFT_W + g.plot_w, y2=ay, cls="rq-axis", role="axis")]
    tick = _nice_step(g.span_ms, g.plot_w)
    t = 0
    while t <= g.span_ms:
        x = g.abs_x(t)
        marks.append(SceneMark("line", f"axis:{t}", x=x, y=ay, x2=x, y2=ay + 4, cls="rq-axis"))
        marks.append(
            SceneMark(
                "text",
                f"axis:{t}:t",
                x=x,
                y=ay + 15,
                text=format_duration(t),
                anchor="middle",
                cls="rq-muted rq-rt-label",
                role="axis-tick",
            )
        )
        t += tick
    marks.append(
        SceneMark("text", "axis:abs", x=8, y=ay + 4, text="virtual time", cls="rq-muted rq-rt-label", role="axis-title")
    )
    nx = g.abs_x(vm.now_ms)
    now_title = f"now: {format_duration(vm.now_ms)} (position {vm.position})"
    marks.append(
        SceneMark("line", "now", x=nx, y=bars_top, x2=nx, y2=ay + 20, cls="rq-rt-now", role="now", title=now_title)
    )
    marks.append(
        SceneMark(
            "text",
            "now:t",
            x=nx,
            y=ay + 31,
            text=f"now {format_duration(vm.now_ms)}",
            anchor="end" if nx > width / 2 else "start",
            cls="rq-rt-now-text rq-rt-label",
            role="now-label",
        )
    )
    if vm.hidden:
        hidden = f"+{message_count(vm.hidden)} not shown"
        marks.append(SceneMark("text", "hidden", x=8, y=ay + 31, text=hidden, cls="rq-muted rq-rt-label"))
    return marks


def _lane_state(vm: TimelineModel, lane: int, n: int, end: Mark | None, pending: Wait | None) -> str:
    """The row's last word: where the message is now."""
    if end is not None:
        return "→ %DLQ%" if end.kind == "dead_lettered" else "✗ dropped (BROADCASTING)"
    if pending is not None:
        return f"waiting {pending.label.split(' · ')[0]}"
    if n == 0:
        return "stored, not delivered yet"
    fill, _ = _token_fill(vm, lane, n)
    if fill == MARKS["consumed_ok"][1]:
        return f"✓ consumed (delivery {n})"
    if fill == MARKS["delivered"][1]:
        return "in the listener"
    return f"✗ failed ({n} deliveries)"


class RetryTimeline(SceneView):
    """The retry timeline drawn as a Scene (see the module docstring); ``to_text`` is what the labs print."""

    title = N_("Retry timeline")

    def __init__(
        self,
        *,
        only_retried: bool = False,
        max_lanes: int = 30,
        msg_ids: tuple[str, ...] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.only_retried, self.max_lanes, self.msg_ids = only_retried, max_lanes, msg_ids

    def model(self, snap: LabSnapshot) -> TimelineModel:
        return retry_timeline_model(
            snap, msg_ids=self.msg_ids, only_retried=self.only_retried, max_lanes=self.max_lanes
        )

    def scene(self, vm: TimelineModel) -> Scene:
        return retry_timeline_scene(vm)

    def to_text(self, vm: TimelineModel) -> str:
        return retry_timeline_text(vm)
