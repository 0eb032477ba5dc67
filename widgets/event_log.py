"""EventLog: the trace as a table, filtered by message, kind and actor, ending at the controller position.

The filters are UI state (traitlets on the widgets); the rows are a pure function of the snapshot
and the filters. The newest row is the event the controller just reached.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as W

from rmqlab import EventKind, TraceEvent, format_duration

from .base import SnapshotView, guarded
from .snapshot import LabSnapshot

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
    """The last event of the trace so far (the controller's position)."""


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
    """The last ``limit`` events matching all filters (empty / ``ALL`` = no filter)."""
    wanted_kind = None if kind == ALL else EventKind(kind)
    if not msg_id and wanted_kind is None and actor == ALL:
        matched: Sequence[TraceEvent] = snap.events
    else:
        matched = [
            e
            for e in snap.events
            if (not msg_id or e.msg_id == msg_id)
            and (wanted_kind is None or e.kind is wanted_kind)
            and (actor == ALL or e.actor == actor)
        ]
    last = snap.events[-1].seq if snap.events else 0
    rows = (
        tuple(
            EventRowVM(e.seq, e.time_ms, e.kind.value, e.actor, e.msg_id or "", _details(e), e.seq == last)
            for e in matched[-limit:]
        )
        if limit
        else ()
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
    lines = [f"{vm.matched} of {vm.total} events"]
    for r in vm.rows:
        mark = ">" if r.current else " "
        lines.append(
            f"{mark}{r.seq:>5}  {format_duration(r.time_ms):>12}  {r.kind:<18} {r.actor:<16} {r.msg_id:<6} {r.details}"
        )
    return "\n".join(lines)


def event_log_html(vm: EventLogModel) -> str:
    """A table with a bold, outlined current row."""
    head = "<tr><th>#</th><th>time</th><th>kind</th><th>actor</th><th>msg</th><th>details</th></tr>"
    body = "".join(
        f'<tr class="{"current" if r.current else ""}" style="{CURRENT_STYLE if r.current else ""}">'
        f"<td>{r.seq}</td><td>{html.escape(format_duration(r.time_ms))}</td><td>{html.escape(r.kind)}</td>"
        f"<td>{html.escape(r.actor)}</td><td>{html.escape(r.msg_id)}</td><td>{html.escape(r.details)}</td></tr>"
        for r in vm.rows
    )
    return (
        f"<div>{vm.matched} of {vm.total} events</div>"
        f'<table class="rmq-events" aria-label="event log" style="font-size:12px">{head}{body}</table>'
    )


class EventLog(SnapshotView):
    """Filterable trace table (message id, kind, actor) synced with the controller position."""

    title = "Events"

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
