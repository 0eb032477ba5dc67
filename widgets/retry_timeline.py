"""RetryTimeline: one lane per message — deliveries, results, delay levels waited, hops, the DLQ.

Time runs from the moment the message was first stored, so the default schedule reads as in the
spec: deliveries at 0, 10, 40, 100 … 17 140 s. A log axis makes the early retries and the two-hour
waits fit on one screen; on it a time of 0 is drawn at 1 ms (log axes cannot show 0).

Each kind of mark has its own plotly trace, symbol and colour, so updating a step only swaps
arrays inside ``fig.batch_update()`` — the figure is built once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ipywidgets as W
import plotly.graph_objects as go

from rmqlab import EventKind, format_duration
from rmqlab.message import RETRY_PREFIX

from .base import SnapshotView, guarded
from .palette import OKABE_ITO
from .snapshot import LabSnapshot

__all__ = ["MARKS", "RetryTimeline", "TimelineModel", "retry_timeline_model", "retry_timeline_text"]

MARKS: dict[str, tuple[str, str]] = {
    "delivered": ("circle-open", OKABE_ITO["blue"]),
    "consumed_ok": ("circle", OKABE_ITO["bluish_green"]),
    "consumed_failed": ("x", OKABE_ITO["vermillion"]),
    "retry_hop": ("triangle-right", OKABE_ITO["orange"]),
    "dead_lettered": ("square", OKABE_ITO["black"]),
}
"""Mark kind → (plotly symbol, Okabe–Ito colour): shape and colour both differ."""
WAIT_COLOUR = OKABE_ITO["reddish_purple"]
_SUCCESS = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})


@dataclass(frozen=True, slots=True)
class Mark:
    kind: str
    t_ms: int
    """Milliseconds since the lane's message was first stored."""
    lane: int
    label: str


@dataclass(frozen=True, slots=True)
class Wait:
    start_ms: int
    end_ms: int
    lane: int
    level: int
    done: bool
    """False while the message is still parked in SCHEDULE_TOPIC_XXXX (end = due time)."""


@dataclass(frozen=True, slots=True)
class TimelineModel:
    lanes: tuple[str, ...]
    origins_ms: tuple[int, ...]
    marks: tuple[Mark, ...]
    waits: tuple[Wait, ...]
    hidden: int
    """Messages left out by ``max_lanes``."""
    log: bool


def retry_timeline_model(
    snap: LabSnapshot,
    *,
    msg_ids: tuple[str, ...] | None = None,
    only_retried: bool = False,
    max_lanes: int = 30,
    log: bool = False,
) -> TimelineModel:
    """Lanes (message ids in order) with every retry-relevant event placed on them."""
    per_msg: dict[str, list[Any]] = {}
    retried: set[str] = set()
    wanted = None if msg_ids is None else set(msg_ids)
    for e in snap.events:
        mid = e.msg_id
        if mid is None or (wanted is not None and mid not in wanted):
            continue
        per_msg.setdefault(mid, []).append(e)
        if e.kind is EventKind.SEND_BACK or e.kind is EventKind.SUSPENDED:
            retried.add(mid)
    ids = sorted(
        m for m, evs in per_msg.items() if any(e.kind is EventKind.STORED or e.kind is EventKind.SCHEDULED for e in evs)
    )
    if only_retried:
        ids = [m for m in ids if m in retried]
    hidden = max(0, len(ids) - max_lanes)
    ids = ids[:max_lanes]
    marks: list[Mark] = []
    waits: list[Wait] = []
    origins = []
    for lane, mid in enumerate(ids):
        evs = per_msg[mid]
        t0 = next(e.time_ms for e in evs if e.kind in (EventKind.STORED, EventKind.SCHEDULED))
        origins.append(t0)
        n = 0
        open_wait: tuple[int, int, int] | None = None
        for e in evs:
            k, d, t = e.kind, e.data, e.time_ms - t0
            if k is EventKind.DELIVERED:
                n += 1
                marks.append(
                    Mark(
                        "delivered", t, lane, f"delivery #{n} reconsume_times={d['reconsume_times']} from {d['queue']}"
                    )
                )
            elif k is EventKind.CONSUMED:
                ok = d["status"] in _SUCCESS
                marks.append(
                    Mark(
                        "consumed_ok" if ok else "consumed_failed",
                        t,
                        lane,
                        f"{d['status']} ({d['return_type']}, took {format_duration(d['took_ms'])})",
                    )
                )
            elif k is EventKind.SCHEDULED:
                open_wait = (t, d["due_ms"] - t0, d["level"])
            elif k is EventKind.DELAY_DELIVERED and open_wait is not None:
                waits.append(Wait(open_wait[0], t, lane, open_wait[2], True))
                open_wait = None
            elif k is EventKind.STORED and d["topic"].startswith(RETRY_PREFIX):
                marks.append(
                    Mark("retry_hop", t, lane, f"stored in {d['topic']} (reconsume_times={d['reconsume_times']})")
                )
            elif k is EventKind.DEAD_LETTERED:
                marks.append(
                    Mark(
                        "dead_lettered",
                        t,
                        lane,
                        f"dead-lettered to {d['topic']} after {d['reconsume_times']} reconsumes",
                    )
                )
        if open_wait is not None:
            waits.append(Wait(open_wait[0], open_wait[1], lane, open_wait[2], False))
    return TimelineModel(tuple(ids), tuple(origins), tuple(marks), tuple(waits), hidden, log)


def retry_timeline_text(vm: TimelineModel) -> str:
    """One line per lane: ``M0001: D@0 s ✗@0 s wait L3 0 s→10 s D@10 s … DLQ@17140 s``."""
    glyph = {
        "delivered": "D",
        "consumed_ok": "✓",
        "consumed_failed": "✗",
        "retry_hop": "→RETRY",
        "dead_lettered": "DLQ",
    }
    lines = []
    for lane, mid in enumerate(vm.lanes):
        items: list[tuple[int, int, str]] = [
            (m.t_ms, 0, f"{glyph[m.kind]}@{format_duration(m.t_ms)}") for m in vm.marks if m.lane == lane
        ]
        items += [
            (
                w.start_ms,
                1,
                f"wait L{w.level} {format_duration(w.start_ms)}→{format_duration(w.end_ms)}"
                f"{'' if w.done else ' (pending)'}",
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


def _x(ms: int, log: bool) -> float:
    return max(ms, 1) / 1000 if log else ms / 1000


class RetryTimeline(SnapshotView):
    """Plotly FigureWidget with a linear/log toggle; one trace per mark kind plus one for waits."""

    title = "Retry timeline"

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
        self.scale = W.ToggleButtons(
            options=["linear", "log"],
            value="linear",
            description="time axis",
            tooltips=["linear time since first stored", "log time (0 drawn at 1 ms)"],
        )
        self.scale.observe(guarded(self)(lambda change: self.refresh()), names="value")
        self.figure = go.FigureWidget(
            data=[
                go.Scatter(
                    x=[],
                    y=[],
                    mode="lines",
                    name="delay wait",
                    line={"color": WAIT_COLOUR, "width": 6},
                    opacity=0.5,
                    hoverinfo="text",
                )
            ]
            + [
                go.Scatter(
                    x=[],
                    y=[],
                    mode="markers",
                    name=kind.replace("_", " "),
                    hoverinfo="text",
                    marker={"symbol": sym, "color": colour, "size": 10, "line": {"width": 2, "color": colour}},
                )
                for kind, (sym, colour) in MARKS.items()
            ],
            layout=go.Layout(
                height=320,
                margin={"l": 60, "r": 10, "t": 30, "b": 40},
                xaxis={"title": {"text": "seconds since first stored"}, "type": "linear"},
                yaxis={"autorange": "reversed", "tickmode": "array"},
                title={"text": "retry timeline"},
            ),
        )
        self.children = (self.scale, self.figure, self.debug)

    def model(self, snap: LabSnapshot) -> TimelineModel:
        return retry_timeline_model(
            snap,
            msg_ids=self.msg_ids,
            only_retried=self.only_retried,
            max_lanes=self.max_lanes,
            log=self.scale.value == "log",
        )

    def to_text(self, vm: TimelineModel) -> str:
        return retry_timeline_text(vm)

    def render(self, vm: TimelineModel) -> None:
        log = vm.log
        wx: list[float | None] = []
        wy: list[int | None] = []
        wt: list[str | None] = []
        for w in vm.waits:
            label = f"delay level {w.level}: {format_duration(w.end_ms - w.start_ms)}"
            wx += [_x(w.start_ms, log), _x(w.end_ms, log), None]
            wy += [w.lane, w.lane, None]
            wt += [label, label, None]
        with self.figure.batch_update():
            self.figure.data[0].update(x=wx, y=wy, hovertext=wt)
            for i, kind in enumerate(MARKS, start=1):
                marks = [m for m in vm.marks if m.kind == kind]
                self.figure.data[i].update(
                    x=[_x(m.t_ms, log) for m in marks], y=[m.lane for m in marks], hovertext=[m.label for m in marks]
                )
            self.figure.layout.xaxis.type = "log" if log else "linear"
            self.figure.layout.yaxis.tickvals = list(range(len(vm.lanes)))
            self.figure.layout.yaxis.ticktext = list(vm.lanes)
            # a fixed range keeps lanes of messages not delivered yet on screen (autorange only spans marks)
            self.figure.layout.yaxis.range = [len(vm.lanes) - 0.5, -0.5] if vm.lanes else None
            self.figure.layout.yaxis.autorange = False if vm.lanes else "reversed"
            more = f" (+{vm.hidden} more)" if vm.hidden else ""
            self.figure.layout.title.text = f"retry timeline — {message_count(len(vm.lanes))}{more}"
