"""QueueView: every ConsumeQueue as a row of cells by offset, coloured and lettered by state.

The consumer offset (what the group's offset store would commit) is marked with ``>`` / a thick
left border, the broker's max offset closes the row. Only a window of ``max_cells`` cells is drawn,
starting a few cells before the consumer offset, so a 1,000-message queue stays readable.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import ipywidgets as W

from .base import SnapshotView
from .palette import STATE_GLYPH, STATE_PATTERN, STATE_STYLE, state_legend
from .snapshot import SCHEDULE_GROUP, LabSnapshot, OffsetState

__all__ = ["CellVM", "QueueRowVM", "QueueView", "QueueViewModel", "queue_view_model", "queue_view_text"]

ALL_KINDS = ("business", "retry", "schedule", "dlq")


@dataclass(frozen=True, slots=True)
class CellVM:
    offset: int
    msg_id: str | None
    state: OffsetState
    colour: str
    glyph: str
    consumer_offset: bool
    """This cell is the group's consumer offset: the next commit point."""


@dataclass(frozen=True, slots=True)
class QueueRowVM:
    name: str
    kind: str
    group: str | None
    min_offset: int
    max_offset: int
    consumer_offset: int | None
    broker_offset: int | None
    hidden_before: int
    hidden_after: int
    cells: tuple[CellVM, ...]
    unlisted_note: str = ""
    """Why no consumer pulls this queue, when its topic's route does not list it (else empty)."""


@dataclass(frozen=True, slots=True)
class QueueViewModel:
    rows: tuple[QueueRowVM, ...]
    legend: str


def queue_view_model(
    snap: LabSnapshot, *, group: str | None = None, kinds: tuple[str, ...] = ALL_KINDS, max_cells: int = 40
) -> QueueViewModel:
    """Rows for the queues of ``kinds``; states for ``group`` (default: each queue's first group)."""
    offsets: dict[tuple[str, str], int] = {}
    for c in snap.consumers:
        for queue, off in c.offset_store:
            offsets[(c.group, queue)] = max(off, offsets.get((c.group, queue), -1))
    rows = []
    for q in snap.queues:
        if q.kind not in kinds:
            continue
        if q.kind == "schedule":
            g: str | None = SCHEDULE_GROUP
        elif group is not None:
            g = group if group in q.groups else None
        else:
            g = q.groups[0] if q.groups else None
        consumer = offsets.get((g, q.name)) if g else None
        broker = dict(q.committed).get(g) if g else None
        anchor = consumer if consumer is not None else (broker if broker is not None else q.min_offset)
        start = max(q.min_offset, min(anchor - 4, q.max_offset - max_cells))
        end = min(q.max_offset, start + max_cells)
        cells = tuple(
            CellVM(
                c.offset,
                c.msg_id,
                (s := c.state_for(g)),
                STATE_STYLE[s],
                STATE_GLYPH[s],
                c.offset == consumer,
            )
            for c in q.cells[start - q.min_offset : end - q.min_offset]
        )
        rows.append(
            QueueRowVM(
                q.name,
                q.kind,
                g,
                q.min_offset,
                q.max_offset,
                consumer,
                broker,
                start - q.min_offset,
                q.max_offset - end,
                cells,
                ""
                if q.listed
                else f"not in the route: {q.topic} lists {q.read_queue_nums} read queue(s), so it is never pulled",
            )
        )
    return QueueViewModel(tuple(rows), state_legend())


def queue_view_text(vm: QueueViewModel) -> str:
    """``TopicTest@broker-a:0 [cg] 0:R >1:P | consumer=1 broker=0 max=2`` per queue."""
    lines = []
    for r in vm.rows:
        cells = " ".join(f"{'>' if c.consumer_offset else ''}{c.offset}:{c.glyph}" for c in r.cells)
        if r.hidden_before:
            cells = f"…{r.hidden_before} " + cells
        if r.hidden_after:
            cells += f" …{r.hidden_after}"
        marks = f"consumer={_dash(r.consumer_offset)} broker={_dash(r.broker_offset)} max={r.max_offset}"
        if r.unlisted_note:
            marks += f" | {r.unlisted_note}"
        lines.append(f"{r.name} [{r.group or '-'}] {cells or '(empty)'} | {marks}")
    lines.append(vm.legend)
    return "\n".join(lines)


def _dash(value: int | None) -> str:
    return "-" if value is None else str(value)


def queue_view_html(vm: QueueViewModel) -> str:
    """A row of lettered, patterned cells per queue; titles carry offset, message id and state."""
    out = ['<div class="rmq-queues" role="list" style="font-family:monospace;font-size:12px">']
    for r in vm.rows:
        cells = []
        for c in r.cells:
            border = "border-left:3px solid #000;" if c.consumer_offset else ""
            title = html.escape(f"offset {c.offset} · {c.msg_id or '?'} · {c.state.value}")
            cells.append(
                f'<span class="cell {c.state.value}" title="{title}" style="display:inline-block;width:1.6em;'
                f"text-align:center;margin:1px;background:{STATE_PATTERN[c.state]},{c.colour};"
                f'{border}">{c.glyph}</span>'
            )
        label = html.escape(f"{r.name} [{r.group or '-'}]")
        marks = html.escape(f"consumer={_dash(r.consumer_offset)} broker={_dash(r.broker_offset)} max={r.max_offset}")
        if r.unlisted_note:
            marks += f' <strong class="unlisted">{html.escape(r.unlisted_note)}</strong>'
        before = f"…{r.hidden_before} " if r.hidden_before else ""
        after = f" …{r.hidden_after}" if r.hidden_after else ""
        out.append(
            f'<div role="listitem" aria-label="{label}"><span style="display:inline-block;width:22em">{label}</span>'
            f"{before}{''.join(cells)}{after}"
            f'<span class="max" style="border:1px dashed #000;margin-left:3px;padding:0 2px">max {r.max_offset}</span>'
            f" {marks}</div>"
        )
    out.append(f"<div>{html.escape(vm.legend)}</div></div>")
    return "".join(out)


class QueueView(SnapshotView):
    """ConsumeQueues by offset; ``group`` / ``kinds`` / ``max_cells`` pick what is drawn."""

    title = "Queues"

    def __init__(
        self, *, group: str | None = None, kinds: tuple[str, ...] = ALL_KINDS, max_cells: int = 40, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.group, self.kinds, self.max_cells = group, kinds, max_cells
        self.html = W.HTML(description_allow_html=False)
        self.children = (self.html, self.debug)

    def model(self, snap: LabSnapshot) -> QueueViewModel:
        return queue_view_model(snap, group=self.group, kinds=self.kinds, max_cells=self.max_cells)

    def to_text(self, vm: QueueViewModel) -> str:
        return queue_view_text(vm)

    def render(self, vm: QueueViewModel) -> None:
        self.html.value = queue_view_html(vm)
