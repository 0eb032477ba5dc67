"""EventLog: the trace as a table, filtered by message, kind and actor, ending at the controller position.

The filters are UI state (traitlets on the widgets); the rows are a pure function of the snapshot
and the filters. The newest row is the event the controller just reached.

Rows are read as the captions are (:mod:`rmqlab.narrate.steps`): cause before effect (a send-back above the
broker's put to the schedule topic or the DLQ, which the trace records first), and identical events folded into
one row with their count, period and time span ("× 50,386, every 1 s" from "15 s – 14 h"), so a broker that is down
for hours is one row, not fifty thousand.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as W

from rmqlab import EventKind, TraceEvent, format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.core.reasons import translated
from rmqlab.narrate import group_repeats, is_meaningful, reading_order, signature
from rmqlab.snapshot import LabSnapshot

from .base import guarded
from .event_table import CURRENT_STYLE, EventTableWidget, event_frames, event_table_html, event_table_json
from .framed import FramedView
from .frames import RunFrames
from .kind_names import kind_name

__all__ = [
    "ALL",
    "CURRENT_STYLE",
    "EventLog",
    "EventLogModel",
    "EventRowVM",
    "event_log_html",
    "event_log_model",
    "event_log_text",
]

ALL = N_("(all)")
"""A filter's "no filter" value (its label translated; the value stays, as a cell may set it)."""


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
    """The event's data as ``key=value`` pairs, the failures rmqlab words itself in the reader's language."""
    return translated(" ".join(f"{k}={v}" for k, v in e.data.items()))


def event_log_model(
    snap: LabSnapshot,
    *,
    msg_id: str = "",
    kind: str = ALL,
    actor: str = ALL,
    limit: int = 15,
    repeat_key: Callable[[TraceEvent], Hashable] = signature,
) -> EventLogModel:
    """The last ``limit`` rows of the events matching all filters (empty / ``ALL`` = no filter), in reading order
    with repeats folded (``matched`` counts events, not rows; ``repeat_key``: an event's
    :func:`~rmqlab.narrate.signature`, or where a run's frames keep it, :meth:`EventLog.models`)."""
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
    groups = group_repeats(matched, key=repeat_key, closes=is_meaningful) if limit else []
    rows = tuple(
        EventRowVM(
            g.first.seq,
            g.first_ms,
            g.first.kind.value,
            g.first.actor,
            _messages(g.first, g.last),
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


def _messages(first: TraceEvent, last: TraceEvent) -> str:
    """A row's message: its first event's, or ``M0001 – M0010`` for a group of sends of one millisecond, which
    repeat one another but for the message (:data:`rmqlab.narrate.repeats.BATCH_KINDS`)."""
    if first.msg_id and last.msg_id and last.msg_id != first.msg_id:
        return f"{first.msg_id} – {last.msg_id}"
    return first.msg_id or ""


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


def event_log_html(vm: EventLogModel) -> str:
    """A table with a bold, outlined current row: what ``scene.js`` draws for ``vm`` (a page with no script)."""
    return event_table_html(event_table_json(vm))


class EventLog(FramedView):
    """Filterable trace table (message id, kind, actor) synced with the controller position.

    The table is drawn by ``scene.js`` (:class:`~widgets.event_table.EventTableWidget`): the kernel's table, or,
    with the run's frames in the page, the table of the frame the page's player shows (no kernel round trip). A
    filter is the kernel's: changing one sends the frames again, filtered."""

    title = N_("Events")

    def __init__(self, *, limit: int = 15, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.limit = limit
        self.msg_filter = W.Text(
            value="", description=_("message"), placeholder="M0001", tooltip=_("show only events of this message id")
        )
        self.kind_filter = W.Dropdown(
            options=[(_(ALL), ALL), *[(kind_name(k.value), k.value) for k in EventKind]],
            value=ALL,
            description=_("kind"),
            tooltip=_("show only events of this kind"),
        )
        self.actor_filter = W.Dropdown(
            options=[(_(ALL), ALL)],
            value=ALL,
            description=_("actor"),
            tooltip=_("show only events of this consumer, producer or broker"),
        )
        on_change = guarded(self)(lambda change: self._on_filter())
        for w in (self.msg_filter, self.kind_filter, self.actor_filter):
            w.observe(on_change, names="value")
        self.canvas = EventTableWidget()
        self.children = (W.HBox([self.msg_filter, self.kind_filter, self.actor_filter]), self.canvas, self.debug)

    def model(self, snap: LabSnapshot, repeat_key: Callable[[TraceEvent], Hashable] = signature) -> EventLogModel:
        return event_log_model(
            snap,
            msg_id=self.msg_filter.value.strip(),
            kind=self.kind_filter.value,
            actor=self.actor_filter.value,
            limit=self.limit,
            repeat_key=repeat_key,
        )

    def models(self, snaps: Sequence[LabSnapshot]) -> list[EventLogModel]:
        """A run's frames, whose traces are one trace growing: each event's signature is found once, not again at
        every frame that lists it (most of a frame's cost)."""
        found: dict[int, Hashable] = {}
        """Event seq → its signature."""

        def signature_once(e: TraceEvent) -> Hashable:
            if e.seq not in found:
                found[e.seq] = signature(e)
            return found[e.seq]

        return [self.model(snap, signature_once) for snap in snaps]

    def to_text(self, vm: EventLogModel) -> str:
        return event_log_text(vm)

    def update(self, snap: LabSnapshot, mask: Callable[[Any], Any] | None = None) -> None:
        """As every framed view (the table waits while the page draws it), but the actor filter's choices follow
        the run at once: they are the kernel's, drawn by no frame."""
        super().update(snap, mask)
        self._offer_actors(_actors(snap))

    def _offer_actors(self, actors: tuple[str, ...]) -> None:
        options = ((_(ALL), ALL), *((actor, actor) for actor in actors))
        if tuple(self.actor_filter.options) != options:
            keep = self.actor_filter.value if self.actor_filter.value in actors else ALL
            with self.actor_filter.hold_trait_notifications():
                self.actor_filter.options = options
                self.actor_filter.value = keep

    def render(self, vm: EventLogModel) -> None:
        self._offer_actors(vm.actors)
        if self.live:
            self.canvas.table = event_table_json(vm)

    def draw_live(self) -> None:
        if self.vm is not None:
            self.canvas.table = event_table_json(self.vm)

    def page_frames(self, frames: RunFrames) -> dict[str, Any]:
        return event_frames(frames, self.models)

    def static_html(self) -> str:
        """The table now, as HTML ("" before the first snapshot)."""
        return "" if self.vm is None else event_log_html(self.vm)

    def _on_filter(self) -> None:
        """A filter changed: redraw, and give the page the run's frames filtered so (if it has them)."""
        self.refresh()
        if self.run_frames is not None and self.canvas.frames:
            self.send_page_frames(self.run_frames)
