"""OffsetStripView: each ProcessQueue as a strip of offsets, with the committed offset as a pointer.

The lesson it carries: a concurrent consumer commits the **smallest key** still in ``msgTreeMap``
(``ProcessQueue.removeMessage``), so one slow message pins the committed offset while the offsets
above it are already done — *holes* that a crash consumes again. The strip shows, per consumer
instance and ProcessQueue, one cell per offset of the queue (min to max offset), each in one state:

* ``S`` stored — in the ConsumeQueue, not pulled by this instance;
* ``P`` pulled — in ``msgTreeMap``, waiting for a consume thread (in flight);
* ``C`` consuming — a listener is running on it (orderly: it sits in ``consumingMsgOrderlyTreeMap``);
* ``A`` done — consumed successfully (or below the committed offset);
* ``R`` sent back — failed and handed to ``%RETRY%`` (the offset is done, a copy lives on);
* ``X`` dropped — a BROADCASTING failure, or a send-back under ``retryQueueNums`` 0: the offset moves on
  and the message is gone.

Under the strip, labelled arrows point at offset boundaries: the instance's committed offset (its
in-memory offset store, what ``updateOffset`` last stored), the persisted offset (the broker's
``consumerOffsetTable``; BROADCASTING: the instance's local file), and for an orderly consumer
``commit() = lastKey + 1`` of ``consumingMsgOrderlyTreeMap`` next to the concurrent low-water mark
(the smallest key), which is what a concurrent consumer would commit. States carry a letter, so they
differ without colour.

The view-model is a pure function of the snapshot and its trace events (which offset this instance
delivered, acked, sent back or dropped); nothing here reads engine objects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from rmqlab import EventKind, TraceEvent
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import ConsumeQueueSnap, LabSnapshot, OffsetState, copy_group

from .palette import STATE_GLYPH, STATE_STYLE
from .scene import Mark, Scene, SceneView, text_width

__all__ = [
    "CELL_PX",
    "FINISHED",
    "OffsetStripModel",
    "OffsetStripView",
    "StripCell",
    "StripPointer",
    "StripRow",
    "offset_strip_model",
    "offset_strip_scene",
    "offset_strip_text",
]

CELL_PX = 24
"""Width and height of one offset cell, in px."""


FINISHED = frozenset({OffsetState.ACKED, OffsetState.SENT_BACK, OffsetState.DROPPED})
"""Done, sent back or dropped: nothing more happens to this offset in this ProcessQueue."""

_LEGEND: tuple[tuple[OffsetState, str], ...] = (
    (OffsetState.STORED, N_("stored, not pulled by this instance")),
    (OffsetState.PULLED, N_("pulled: in msgTreeMap, waiting (in flight)")),
    (OffsetState.CONSUMING, N_("consuming: a listener runs on it")),
    (OffsetState.ACKED, N_("done (acked)")),
    (OffsetState.SENT_BACK, N_("sent back to %RETRY% (done here, a copy lives on)")),
    (OffsetState.DROPPED, N_("dropped: failed and no copy kept (message lost)")),
)

_SUCCESS = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})

STRIP_CSS = """
.rq-scene .rq-cell { stroke: var(--jp-border-color1, #9e9e9e); stroke-width: 1; }
.rq-scene .rq-cell.rq-dropped { fill: var(--jp-layout-color1, #ffffff); stroke: var(--jp-error-color1, #d32f2f);
  stroke-dasharray: 3 2; }
.rq-scene .rq-cell.rq-hole { stroke: var(--jp-warn-color0, #bf5b00); stroke-width: 2.5; }
.rq-scene .rq-cell.rq-consuming-map { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2.5; }
.rq-scene text.rq-glyph { fill: #000000; font-weight: 600; font-size: 11px; }
.rq-scene text.rq-glyph.rq-cell-dropped-glyph { fill: var(--jp-error-color1, #d32f2f); }
.rq-scene text.rq-offset { font-size: 11px; }
.rq-scene .rq-bracket { stroke-width: 2; fill: none; }
.rq-scene .rq-bracket.rq-hole { stroke: var(--jp-warn-color0, #bf5b00); }
.rq-scene .rq-bracket.rq-consuming-map { stroke: var(--jp-brand-color1, #1976d2); }
.rq-scene text.rq-pointer { font-size: 11px; }
"""


@dataclass(frozen=True, slots=True)
class StripCell:
    """One offset of the queue as this instance sees it."""

    offset: int
    msg_id: str | None
    state: OffsetState
    hole: bool = False
    """Finished, yet above an unfinished offset at or above the committed one: consumed again after a crash."""
    in_consuming_map: bool = False
    """Orderly: the offset sits in ``consumingMsgOrderlyTreeMap`` (taken by ``takeMessages``)."""


@dataclass(frozen=True, slots=True)
class StripPointer:
    """A labelled arrow at the boundary *before* ``offset`` (offsets are "the next one to consume")."""

    name: str
    """``committed`` / ``broker`` / ``commit()`` / ``low-water``."""
    offset: int
    label: str
    why: str
    """The Java behind the pointer (the arrow's tooltip)."""


@dataclass(frozen=True, slots=True)
class StripRow:
    """One (consumer instance, ProcessQueue)."""

    consumer: str
    group: str
    queue: str
    orderly: bool
    dropped: bool
    locked: bool
    min_offset: int
    max_offset: int
    cells: tuple[StripCell, ...]
    """The cells drawn (a window of at most ``max_cells``; see ``hidden_before`` / ``hidden_after``)."""
    pointers: tuple[StripPointer, ...]
    msg_tree_keys: tuple[int, ...]
    consuming_keys: tuple[int, ...]
    hidden_before: int = 0
    hidden_after: int = 0

    @property
    def holes(self) -> tuple[int, ...]:
        """Offsets already finished above the committed offset (re-consumed if the instance crashed now)."""
        return tuple(c.offset for c in self.cells if c.hole)

    def pointer(self, name: str) -> StripPointer | None:
        """The pointer called ``name`` (None when it is not drawn)."""
        for p in self.pointers:
            if p.name == name:
                return p
        return None


@dataclass(frozen=True, slots=True)
class OffsetStripModel:
    """Every strip at one controller position, plus instances whose ProcessQueues are gone."""

    now_ms: int
    rows: tuple[StripRow, ...]
    gone: tuple[tuple[str, str], ...] = ()
    """(client id, why) of consumers that are not running: ``crash`` / ``shutdown`` / ``not started``."""


def _instance_facts(events: Iterable[TraceEvent]) -> dict[tuple[str, str, int], OffsetState]:
    """Fold the trace into per-instance offset facts: (client id, queue, offset) → finished state or CONSUMING.

    A (re)start clears the instance's facts: the new incarnation has fresh ProcessQueues and consumes
    again from the broker's offset, so what the old one finished above that offset is *not* done for it.
    A send-back the broker answered SUCCESS without storing a ``%RETRY%``/``%DLQ%`` copy (``retryQueueNums``
    0) is DROPPED, not SENT_BACK: the broker stores the copy before it answers.
    """
    facts: dict[tuple[str, str, int], OffsetState] = {}
    last: dict[tuple[str, str], tuple[str, str, int]] = {}
    copy_stored: dict[tuple[str, str], bool] = {}
    """(group, msg id) → a retry/DLQ copy was stored since the group's last delivery of it."""
    group_of: dict[str, str] = {}
    for e in events:
        kind = e.kind
        d = e.data
        copy_of = copy_group(e)
        if copy_of is not None:
            if (copy_of, e.msg_id or "") in copy_stored:
                copy_stored[(copy_of, e.msg_id or "")] = True
            continue
        if not e.actor.startswith("consumer:"):
            continue
        client = e.actor[len("consumer:") :]
        if kind is EventKind.DELIVERED:
            key = (client, d["queue"], d["queue_offset"])
            facts[key] = OffsetState.CONSUMING
            last[(client, e.msg_id or "")] = key
            group_of[client] = d["group"]
            copy_stored[(d["group"], e.msg_id or "")] = False
        elif kind is EventKind.CONSUMED:
            found = last.get((client, e.msg_id or ""))
            if found is None:
                continue
            if d.get("status") in _SUCCESS:
                facts[found] = OffsetState.ACKED
            elif facts.get(found) is OffsetState.CONSUMING:
                del facts[found]
        elif kind in (EventKind.SEND_BACK, EventKind.SEND_BACK_FALLBACK):
            found = last.get((client, e.msg_id or ""))
            if found is not None and d.get("ok"):
                stored = copy_stored.get((group_of.get(client, ""), e.msg_id or ""), False)
                facts[found] = OffsetState.SENT_BACK if stored else OffsetState.DROPPED
        elif kind is EventKind.BROADCAST_DROPPED:
            found = last.get((client, e.msg_id or ""))
            if found is not None:
                facts[found] = OffsetState.DROPPED
        elif kind is EventKind.LIFECYCLE and d.get("event") == "start":
            for key in [k for k in facts if k[0] == client]:
                del facts[key]
    return facts


def _lifecycle(events: Iterable[TraceEvent]) -> dict[str, str]:
    """Client id → its last lifecycle event (``start`` / ``crash`` / ``shutdown``)."""
    last: dict[str, str] = {}
    for e in events:
        if e.kind is EventKind.LIFECYCLE and e.actor.startswith("consumer:"):
            last[e.actor[len("consumer:") :]] = str(e.data.get("event"))
    return last


def _window(lo: int, hi: int, focus: int, max_cells: int) -> tuple[int, int]:
    """The offsets [start, end) to draw: all of [lo, hi) if it fits, else ``max_cells`` starting near ``focus``."""
    if hi - lo <= max_cells:
        return lo, hi
    start = max(lo, min(focus - 2, hi - max_cells))
    return start, start + max_cells


def offset_strip_model(snap: LabSnapshot, *, include_empty: bool = True, max_cells: int = 48) -> OffsetStripModel:
    """One :class:`StripRow` per (running consumer instance, ProcessQueue), in client id then queue order.

    ``include_empty=False`` leaves out ProcessQueues of queues that never held a message.
    ``max_cells`` bounds the cells per strip (a long queue shows a window starting just below the
    lowest pointer or unfinished offset).
    """
    if isinstance(max_cells, bool) or not isinstance(max_cells, int) or max_cells < 4:
        raise ValueError(f"max_cells={max_cells!r}; expected an int of at least 4")
    facts = _instance_facts(snap.events)
    how = _lifecycle(snap.events)
    queues: dict[str, ConsumeQueueSnap] = {q.name: q for q in snap.queues}
    rows: list[StripRow] = []
    gone: list[tuple[str, str]] = []
    for c in snap.consumers:
        if not c.running:
            gone.append((c.client_id, "crash" if c.crashed else how.get(c.client_id, "not started")))
            continue
        for pq in c.process_queues:
            q = queues.get(pq.queue)
            lo, hi = (q.min_offset, q.max_offset) if q is not None else (0, 0)
            if not include_empty and hi == lo:
                continue
            broker, committed = pq.broker_offset, pq.memory_offset
            msg_ids = {cell.offset: cell.msg_id for cell in q.cells} if q is not None else {}
            waiting, consuming = set(pq.msg_tree_keys), set(pq.consuming_keys)
            states: list[tuple[int, OffsetState]] = []
            floor = max(committed if committed is not None else -1, broker if broker is not None else -1)
            for offset in range(lo, hi):
                fact = facts.get((c.client_id, pq.queue, offset))
                if offset in consuming:
                    state = OffsetState.CONSUMING
                elif offset in waiting:
                    state = OffsetState.CONSUMING if fact is OffsetState.CONSUMING else OffsetState.PULLED
                elif fact is not None and fact in FINISHED:
                    state = fact
                elif offset < floor:
                    state = OffsetState.ACKED
                else:
                    state = OffsetState.STORED
                states.append((offset, state))
            # a hole: finished, at or above the committed offset, with an unfinished offset below it
            lowest_open = min((o for o, s in states if s not in FINISHED and o >= (committed or 0)), default=None)
            local = c.message_model == "BROADCASTING"
            pointers = _pointers(c.orderly, local, committed, broker, pq.msg_tree_keys, pq.consuming_keys)
            focus = min([p.offset for p in pointers] + ([lowest_open] if lowest_open is not None else []), default=lo)
            start, end = _window(lo, hi, focus, max_cells)
            cells = tuple(
                StripCell(
                    o,
                    msg_ids.get(o),
                    s,
                    hole=lowest_open is not None and s in FINISHED and o > lowest_open,
                    in_consuming_map=o in consuming,
                )
                for o, s in states
                if start <= o < end
            )
            rows.append(
                StripRow(
                    c.client_id,
                    c.group,
                    pq.queue,
                    c.orderly,
                    pq.dropped,
                    pq.locked,
                    lo,
                    hi,
                    cells,
                    pointers,
                    pq.msg_tree_keys,
                    pq.consuming_keys,
                    start - lo,
                    hi - end,
                )
            )
    return OffsetStripModel(snap.now_ms, tuple(rows), tuple(gone))


def _pointers(
    orderly: bool,
    local: bool,
    committed: int | None,
    broker: int | None,
    keys: tuple[int, ...],
    consuming: tuple[int, ...],
) -> tuple[StripPointer, ...]:
    out: list[StripPointer] = []
    if committed is not None and committed >= 0:
        why = (
            "the offset store: ConsumeMessageOrderlyService.processConsumeResult → updateOffset(commit())"
            if orderly
            else "the offset store: processConsumeResult → removeMessage returns the smallest key still in "
            "msgTreeMap (or queueOffsetMax + 1 when empty) → updateOffset"
        )
        out.append(StripPointer("committed", committed, f"committed {committed}", why))
    if broker is not None and broker >= 0:
        why = (
            "BROADCASTING: LocalFileOffsetStore.persistAll writes the offset to the instance's own file every 5 s"
            if local
            else "the broker's consumerOffsetTable: persistConsumerOffset every 5 s and the commit offset of each pull"
        )
        out.append(StripPointer("broker", broker, f"{'local file' if local else 'broker'} {broker}", why))
    if orderly:
        if consuming:
            out.append(
                StripPointer(
                    "commit()",
                    consuming[-1] + 1,
                    f"commit() = lastKey + 1 = {consuming[-1] + 1}",
                    "ProcessQueue.commit(): consumingMsgOrderlyTreeMap.lastKey() + 1, stored on SUCCESS",
                )
            )
        low = min((*keys, *consuming), default=None)
        if low is not None:
            out.append(
                StripPointer(
                    "low-water",
                    low,
                    f"low-water {low} (concurrent would commit)",
                    "ProcessQueue.removeMessage (concurrent): the smallest key still in the maps",
                )
            )
    return tuple(out)


def _fmt_keys(keys: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(k) for k in keys) + "]"


def offset_strip_text(vm: OffsetStripModel) -> str:
    """One line per ProcessQueue: ``c1 TopicTest@broker-a:0 0:A 1:C 2:A | committed=1 broker=1 | holes 2 3``."""
    lines = []
    for r in vm.rows:
        cells = " ".join(f"{c.offset}:{STATE_GLYPH[c.state]}" for c in r.cells) or "(empty)"
        if r.hidden_before:
            cells = f"…{r.hidden_before} " + cells
        if r.hidden_after:
            cells += f" …{r.hidden_after}"
        line = f"{r.consumer} {r.queue} {cells}"
        facts = [f"msg_tree_map={_fmt_keys(r.msg_tree_keys)}"]
        if r.orderly:
            facts.append(f"consuming={_fmt_keys(r.consuming_keys)}")
        for p in r.pointers:
            facts.append(f"{p.name}={p.offset}")
        line += " | " + " ".join(facts)
        if r.holes:
            line += " | holes " + " ".join(str(o) for o in r.holes)
        if r.dropped:
            line += " (dropped)"
        lines.append(line)
    for client, why in vm.gone:
        lines.append(f"{client}: no ProcessQueues ({why})")
    return "\n".join(lines) or "(no ProcessQueues)"


# ---------------------------------------------------------------- drawing

_ROW_TITLE = 14
_OFFSET_ROW = 12
_POINTER_ROW = 15
_LEFT = 8


def _row_height(r: StripRow) -> int:
    if not r.cells:
        return _ROW_TITLE + 18
    brackets = (1 if any(c.hole for c in r.cells) else 0) + (1 if any(c.in_consuming_map for c in r.cells) else 0)
    return _ROW_TITLE + _OFFSET_ROW + CELL_PX + 6 + brackets * _POINTER_ROW + len(r.pointers) * _POINTER_ROW + 10


def offset_strip_scene(vm: OffsetStripModel) -> Scene:
    """The strips one under the other, pointers under each strip, the legend at the bottom.

    Pointer rows are ordered rightmost first, so an arrow from a lower row never crosses the label of
    a row above it (labels start just right of their own arrow).
    """
    marks: list[Mark] = []
    y = 6.0
    width = 360.0
    for r in vm.rows:
        width = max(width, _strip(marks, r, y))
        y += _row_height(r)
    for client, why in vm.gone:
        gone = f"{client}: no ProcessQueues ({why})"
        marks.append(Mark("text", f"gone:{client}", x=_LEFT, y=y + 11, text=gone, cls="rq-muted", role="strip-gone"))
        y += 18
    if not vm.rows and not vm.gone:
        marks.append(Mark("text", "empty", x=_LEFT, y=y + 11, text="(no ProcessQueues)", cls="rq-muted"))
        y += 18
    y += 8
    marks.extend(_legend(y))
    y += 14 * len(_LEGEND) + 6
    return Scene(
        int(width),
        int(y),
        tuple(marks),
        label="ProcessQueue offset strips",
        testid="rq-offset-strip",
        css=STRIP_CSS,
        extra=(("rows", str(len(vm.rows))), ("now-ms", str(vm.now_ms))),
    )


def _strip(marks: list[Mark], r: StripRow, y: float) -> float:
    """One ProcessQueue's strip from ``y``: its title and flags, the cells, the brackets and the pointers under
    them; returns the width it needs."""
    rid = f"strip:{r.consumer}:{r.queue}"
    flags = ["orderly" if r.orderly else "concurrently"]
    if r.orderly:
        flags.append("locked" if r.locked else "not locked")
    if r.dropped:
        flags.append("dropped")
    title = f"{r.consumer} · {r.queue}"
    marks.append(Mark("text", f"{rid}:title", x=_LEFT, y=y + 11, text=title, cls="rq-title", role="strip-title"))
    flags_x = _LEFT + text_width(title, 12) + 10
    marks.append(Mark("text", f"{rid}:flags", x=flags_x, y=y + 11, text=" · ".join(flags), cls="rq-muted"))
    if not r.cells:
        empty = "no messages in this queue yet"
        marks.append(Mark("text", f"{rid}:empty", x=_LEFT + 8, y=y + _ROW_TITLE + 8, text=empty, cls="rq-muted"))
        return 0.0
    x0 = _LEFT + (30 if r.hidden_before else 0)
    top = y + _ROW_TITLE + _OFFSET_ROW
    first = r.cells[0].offset

    def bx(offset: int) -> float:
        return x0 + (offset - first) * CELL_PX

    if r.hidden_before:
        marks.append(Mark("text", f"{rid}:before", x=_LEFT, y=top + 16, text=f"…{r.hidden_before}", cls="rq-muted"))
    marks.extend(_cells(r, rid, top, bx))
    end_x = bx(r.cells[-1].offset + 1)
    if r.hidden_after:
        marks.append(Mark("text", f"{rid}:after", x=end_x + 4, y=top + 16, text=f"…{r.hidden_after}", cls="rq-muted"))
    width, ay = _brackets(marks, r, rid, top + CELL_PX + 6, bx, end_x)
    return max(width, _pointers_under(marks, r, rid, ay, top, bx), end_x + 40)


def _cells(r: StripRow, rid: str, top: float, bx: Callable[[int], float]) -> list[Mark]:
    """A cell per offset in its state's colour and letter; the offset above every few cells (as many as its
    numbers fit)."""
    marks: list[Mark] = []
    first = r.cells[0].offset
    step = max(1, -(-text_width(str(r.max_offset), 11) // (CELL_PX - 2)))
    for c in r.cells:
        cx = bx(c.offset)
        cls = "rq-cell"
        if c.state is OffsetState.DROPPED:
            cls += " rq-dropped"
        if c.hole:
            cls += " rq-hole"
        if c.in_consuming_map:
            cls += " rq-consuming-map"
        tip = f"offset {c.offset} · {c.msg_id or '?'} · {c.state.value}"
        if c.hole:
            tip += " · a hole: done, but above the committed offset (consumed again after a crash)"
        marks.append(
            Mark(
                "rect",
                f"{rid}:cell:{c.offset}",
                x=cx + 1,
                y=top,
                w=CELL_PX - 2,
                h=CELL_PX,
                cls=cls,
                fill=STATE_STYLE[c.state],
                title=tip,
                role="strip-cell",
            )
        )
        glyph_cls = "rq-glyph rq-cell-dropped-glyph" if c.state is OffsetState.DROPPED else "rq-glyph"
        marks.append(
            Mark(
                "text",
                f"{rid}:glyph:{c.offset}",
                x=cx + CELL_PX / 2,
                y=top + CELL_PX / 2 + 4,
                text=STATE_GLYPH[c.state],
                cls=glyph_cls,
                anchor="middle",
                role="strip-glyph",
            )
        )
        if (c.offset - first) % step == 0:
            x = cx + CELL_PX / 2
            marks.append(
                Mark(
                    "text",
                    f"{rid}:off:{c.offset}",
                    x=x,
                    y=top - 3,
                    text=str(c.offset),
                    cls="rq-muted rq-offset",
                    anchor="middle",
                )
            )
    return marks


def _brackets(
    marks: list[Mark], r: StripRow, rid: str, ay: float, bx: Callable[[int], float], end_x: float
) -> tuple[float, float]:
    """Brackets under the holes and under consumingMsgOrderlyTreeMap, labelled right of the strip's end (so no
    pointer arrow, all at or left of the end, crosses a label); returns the width needed and the next row's y."""
    width = 0.0
    for name, cls, label in (
        ("holes", "rq-hole", "holes: done above the committed offset"),
        ("consuming-map", "rq-consuming-map", "consumingMsgOrderlyTreeMap"),
    ):
        span = [c.offset for c in r.cells if (c.hole if name == "holes" else c.in_consuming_map)]
        if not span:
            continue
        xa, xb = bx(span[0]) + 2, bx(span[-1] + 1) - 2
        d = f"M{xa:.1f},{ay - 4:.1f} V{ay:.1f} H{xb:.1f} V{ay - 4:.1f}"
        marks.append(Mark("path", f"{rid}:{name}", d=d, cls=f"rq-bracket {cls}", role=f"strip-{name}"))
        marks.append(
            Mark(
                "text",
                f"{rid}:{name}:label",
                x=end_x + 8,
                y=ay + 4,
                text=label,
                cls="rq-muted",
                role="strip-span-label",
            )
        )
        width = max(width, end_x + 8 + text_width(label, 11) + 8)
        ay += _POINTER_ROW
    return width, ay


def _pointers_under(
    marks: list[Mark], r: StripRow, rid: str, ay: float, top: float, bx: Callable[[int], float]
) -> float:
    """One row per pointer (committed offset, next pull…), rightmost first, an arrow up to its cell; returns the
    width needed."""
    width = 0.0
    first = r.cells[0].offset
    for p in sorted(r.pointers, key=lambda p: (-p.offset, p.name)):
        px = bx(max(min(p.offset, r.cells[-1].offset + 1), first))
        ty = ay + 8
        marks.append(
            Mark(
                "line",
                f"{rid}:ptr:{p.name}",
                x=px,
                y=ty - 3,
                x2=px,
                y2=top + CELL_PX + 2,
                cls="rq-arrow",
                arrow=True,
                title=p.why,
                role="strip-pointer",
            )
        )
        marks.append(
            Mark(
                "text",
                f"{rid}:ptr:{p.name}:label",
                x=px + 4,
                y=ty,
                text=p.label,
                cls="rq-pointer",
                title=p.why,
                role="strip-pointer-label",
            )
        )
        width = max(width, px + 4 + text_width(p.label, 11) + 8)
        ay += _POINTER_ROW
    return width


def _legend(y: float) -> list[Mark]:
    """A swatch with its letter per state (colour and letter, so greyscale still reads)."""
    marks: list[Mark] = []
    for i, (state, label) in enumerate(_LEGEND):
        cy = y + i * 14
        cls = "rq-cell rq-dropped" if state is OffsetState.DROPPED else "rq-cell"
        marks.append(
            Mark(
                "rect", f"legend:{i}:g", x=_LEFT, y=cy - 6, w=14, h=12, cls=cls, fill=STATE_STYLE[state], role="legend"
            )
        )
        glyph_cls = "rq-glyph rq-cell-dropped-glyph" if state is OffsetState.DROPPED else "rq-glyph"
        marks.append(
            Mark(
                "text",
                f"legend:{i}:l",
                x=_LEFT + 7,
                y=cy + 4,
                text=STATE_GLYPH[state],
                cls=glyph_cls,
                anchor="middle",
                role="legend",
            )
        )
        marks.append(
            Mark("text", f"legend:{i}:t", x=_LEFT + 20, y=cy + 4, text=_(label), cls="rq-muted", role="legend")
        )
    return marks


class OffsetStripView(SceneView):
    """The ProcessQueues as offset strips (replaces the TreeMap text rows); ``text`` is the plain rendering."""

    title = N_("ProcessQueues")

    def __init__(self, *, include_empty: bool = True, max_cells: int = 48, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.include_empty = include_empty
        self.max_cells = max_cells

    def model(self, snap: LabSnapshot) -> OffsetStripModel:
        return offset_strip_model(snap, include_empty=self.include_empty, max_cells=self.max_cells)

    def to_text(self, vm: OffsetStripModel) -> str:
        return offset_strip_text(vm)

    def scene(self, vm: OffsetStripModel) -> Scene:
        return offset_strip_scene(vm)
