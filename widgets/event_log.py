"""EventLog: the trace as a table, filtered by message, kind and actor, ending at the controller position.

The filters are UI state (traitlets on the widgets); the rows are a pure function of the snapshot
and the filters. The newest row is the event the controller just reached.

Rows are read as the captions are (:mod:`rmqlab.narrate.steps`): cause before effect (a send-back above the
broker's put to the schedule topic or the DLQ, which the trace records first), and identical events folded into
one row with their count, period and time span ("× 50,386, every 1 s" from "15 s – 14 h"), so a broker that is down
for hours is one row, not fifty thousand.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as W

from rmqlab import EventKind, TraceEvent, format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.narrate import group_repeats, is_meaningful, reading_order, signature
from rmqlab.snapshot import LabSnapshot

from .base import SnapshotView, guarded

__all__ = ["ALL", "EventLog", "EventLogModel", "EventRowVM", "event_log_model", "event_log_text"]

ALL = "(all)"
CURRENT_STYLE = "font-weight:bold;outline:2px solid #0072B2"
"""The current row is bold and outlined, not only coloured."""


@dataclass(frozen=True, slots=True)
class EventRowVM:
    seq: int
    time_ms: int
    kind: str
    actor: str
    msg_id: str
    details: str
    current: bool
    """The last event of the trace so far (the controller's position) is in this row."""
    count: int = 1
    """How many identical events this row stands for (1: one event)."""
    last_ms: int | None = None
    """The time of the last of them (None for one event)."""
    repeats: str = ""
    """``× 50,386, every 1 s`` for a folded row, else empty."""

    @property
    def when(self) -> str:
        """The time column: ``1.500 s``, or ``15 s – 14 h`` for a folded row."""
        first = format_duration(self.time_ms)
        if self.last_ms is None or self.last_ms == self.time_ms:
            return first
        return f"{first} – {format_duration(self.last_ms)}"


@dataclass(frozen=True, slots=True)
class EventLogModel:
    rows: tuple[EventRowVM, ...]
    matched: int
    total: int
    actors: tuple[str, ...]


def _details(e: TraceEvent) -> str:
    return " ".join(f"{k}={v}" for k, v in e.data.items())


def event_log_model(
    snap: LabSnapshot, *, msg_id: str = "", kind: str = ALL, actor: str = ALL, limit: int = 15
) -> EventLogModel:
    """The last ``limit`` rows of the events matching all filters (empty / ``ALL`` = no filter), in reading order
    with repeats folded (``matched`` counts events, not rows)."""
    wanted_kind = None if kind == ALL else EventKind(kind)
    events = reading_order(snap.events)
    if not msg_id and wanted_kind is None and actor == ALL:
        matched: Sequence[TraceEvent] = events
    else:
        matched = [
            e
            for e in events
            if (not msg_id or e.msg_id == msg_id)
            and (wanted_kind is None or e.kind is wanted_kind)
            and (actor == ALL or e.actor == actor)
        ]
    last = snap.events[-1].seq if snap.events else 0
    groups = group_repeats(matched, key=signature, closes=is_meaningful) if limit else []
    rows = tuple(
        EventRowVM(
            g.first.seq,
            g.first_ms,
            g.first.kind.value,
            g.first.actor,
            g.first.msg_id or "",
            _details(g.first),
            last in (g.first.seq, g.last.seq),
            g.count,
            g.last_ms if g.count > 1 else None,
            g.summary.rpartition(",")[0] if g.count > 1 and g.last_ms != g.first_ms else g.summary,
        )
        for g in groups[-limit:]
    )
    actors = _actors(snap)
    return EventLogModel(rows, len(matched), len(snap.events), actors)


def _actors(snap: LabSnapshot) -> tuple[str, ...]:
    """Every actor the engine names, from the snapshot's structure (no scan of the trace)."""
    names = {"lab"}
    for b in snap.brokers:
        names.update((b.name, f"schedule:{b.name}"))
    names.update(f"consumer:{c.client_id}" for c in snap.consumers)
    names.update(f"producer:{p}" for p, _ in snap.producers)
    return tuple(sorted(names))


def event_log_text(vm: EventLogModel) -> str:
    """Fixed-width lines: ``>   12  1.000 s  delivered  consumer:c1  M0001  queue=…``."""
    lines = [_("{matched} of {total} events").format(matched=vm.matched, total=vm.total)]
    for r in vm.rows:
        mark = ">" if r.current else " "
        details = f"{r.repeats}: {r.details}" if r.repeats else r.details
        lines.append(f"{mark}{r.seq:>5}  {r.when:>12}  {r.kind:<18} {r.actor:<16} {r.msg_id:<6} {details}")
    return "\n".join(lines)


_HEADERS = (N_("time"), N_("kind"), N_("actor"), N_("msg"), N_("details"))
"""The event table's column headers (translated where shown)."""


def event_log_html(vm: EventLogModel) -> str:
    """A table with a bold, outlined current row."""
    head = "<tr><th>#</th>" + "".join(f"<th>{html.escape(_(w))}</th>" for w in _HEADERS) + "</tr>"
    body = "".join(
        f'<tr class="{"current" if r.current else ""}" style="{CURRENT_STYLE if r.current else ""}">'
        f'<td>{r.seq}</td><td style="white-space:nowrap">{html.escape(r.when)}</td>'
        f"<td>{html.escape(r.kind)}</td><td>{html.escape(r.actor)}</td><td>{html.escape(r.msg_id)}</td>"
        f"<td>{_repeats_html(r)}{html.escape(r.details)}</td></tr>"
        for r in vm.rows
    )
    return (
        f"<div>{html.escape(_('{matched} of {total} events').format(matched=vm.matched, total=vm.total))}</div>"
        f'<table class="rmq-events" aria-label="event log" style="font-size:12px">{head}{body}</table>'
    )


def _repeats_html(r: EventRowVM) -> str:
    return f'<b data-role="repeats">{html.escape(r.repeats)}</b>: ' if r.repeats else ""


class EventLog(SnapshotView):
    """Filterable trace table (message id, kind, actor) synced with the controller position."""

    title = N_("Events")

    def __init__(self, *, limit: int = 15, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.limit = limit
        self.msg_filter = W.Text(
            value="", description="message", placeholder="M0001", tooltip="show only events of this message id"
        )
        self.kind_filter = W.Dropdown(
            options=[ALL, *[k.value for k in EventKind]],
            value=ALL,
            description="kind",
            tooltip="show only events of this kind",
        )
        self.actor_filter = W.Dropdown(
            options=[ALL],
            value=ALL,
            description="actor",
            tooltip="show only events of this consumer, producer or broker",
        )
        on_change = guarded(self)(lambda change: self.refresh())
        for w in (self.msg_filter, self.kind_filter, self.actor_filter):
            w.observe(on_change, names="value")
        self.html = W.HTML()
        self.children = (W.HBox([self.msg_filter, self.kind_filter, self.actor_filter]), self.html, self.debug)

    def model(self, snap: LabSnapshot) -> EventLogModel:
        return event_log_model(
            snap,
            msg_id=self.msg_filter.value.strip(),
            kind=self.kind_filter.value,
            actor=self.actor_filter.value,
            limit=self.limit,
        )

    def to_text(self, vm: EventLogModel) -> str:
        return event_log_text(vm)

    def render(self, vm: EventLogModel) -> None:
        options = (ALL, *vm.actors)
        if tuple(self.actor_filter.options) != options:
            keep = self.actor_filter.value if self.actor_filter.value in options else ALL
            with self.actor_filter.hold_trait_notifications():
                self.actor_filter.options = options
                self.actor_filter.value = keep
        self.html.value = event_log_html(vm)
