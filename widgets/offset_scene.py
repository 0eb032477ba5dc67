"""Drawing the offset strip: the strips one under the other, cells with letters, brackets over holes and the
orderly consuming map, the pointers under each strip, and the legend."""

from __future__ import annotations

from collections.abc import Callable

from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import OffsetState

from .offset_model import OffsetStripModel, StripRow, quiet_note
from .palette import STATE_GLYPH, STATE_STYLE
from .scene import Mark, Scene, text_width

__all__ = ["CELL_PX", "STRIP_CSS", "offset_strip_scene"]

CELL_PX = 24
"""Width and height of one offset cell, in px."""


STATE_WORDS = {
    OffsetState.STORED: N_("stored"),
    OffsetState.PULLED: N_("pulled"),
    OffsetState.CONSUMING: N_("consuming"),
    OffsetState.ACKED: N_("acked"),
    OffsetState.SENT_BACK: N_("sent_back"),
    OffsetState.DROPPED: N_("dropped"),
}
"""A cell's state in its tooltip: the state's own name in English, its word in Chinese."""

_LEGEND: tuple[tuple[OffsetState, str], ...] = (
    (OffsetState.STORED, N_("stored, not pulled by this instance")),
    (OffsetState.PULLED, N_("pulled: in msgTreeMap, waiting (in flight)")),
    (OffsetState.CONSUMING, N_("consuming: a listener runs on it")),
    (OffsetState.ACKED, N_("done (acked)")),
    (OffsetState.SENT_BACK, N_("sent back to %RETRY% (done here, a copy lives on)")),
    (OffsetState.DROPPED, N_("dropped: failed and no copy kept (message lost)")),
)


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
    if vm.quiet:
        note = quiet_note(vm.quiet)
        marks.append(Mark("text", "quiet", x=_LEFT, y=y + 11, text=note, cls="rq-muted", role="strip-quiet"))
        width = max(width, _LEFT + text_width(note) + 8)
        y += 18
    for client, why in vm.gone:
        gone = _("{client}: no ProcessQueues ({why})").format(client=client, why=why)
        marks.append(Mark("text", f"gone:{client}", x=_LEFT, y=y + 11, text=gone, cls="rq-muted", role="strip-gone"))
        y += 18
    if not vm.rows and not vm.gone:
        marks.append(Mark("text", "empty", x=_LEFT, y=y + 11, text=_("(no ProcessQueues)"), cls="rq-muted"))
        y += 18
    y += 8
    marks.extend(_legend(y))
    y += 14 * len(_LEGEND) + 6
    return Scene(
        int(width),
        int(y),
        tuple(marks),
        label=_("ProcessQueue offset strips"),
        testid="rq-offset-strip",
        css=STRIP_CSS,
        extra=(("rows", str(len(vm.rows))), ("now-ms", str(vm.now_ms))),
    )


def _strip(marks: list[Mark], r: StripRow, y: float) -> float:
    """One ProcessQueue's strip from ``y``: its title and flags, the cells, the brackets and the pointers under
    them; returns the width it needs."""
    rid = f"strip:{r.consumer}:{r.queue}"
    flags = [_("orderly") if r.orderly else _("concurrently")]
    if r.orderly:
        flags.append(_("locked") if r.locked else _("not locked"))
    if r.dropped:
        flags.append(_("dropped"))
    title = f"{r.consumer} · {r.queue}"
    marks.append(Mark("text", f"{rid}:title", x=_LEFT, y=y + 11, text=title, cls="rq-title", role="strip-title"))
    flags_x = _LEFT + text_width(title, 12) + 10
    marks.append(Mark("text", f"{rid}:flags", x=flags_x, y=y + 11, text=" · ".join(flags), cls="rq-muted"))
    if not r.cells:
        empty = _("no messages in this queue yet")
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
        tip = _("offset {offset}").format(offset=c.offset) + f" · {c.msg_id or '?'} · {_(STATE_WORDS[c.state])}"
        if c.hole:
            tip += " · " + _("a hole: done, but above the committed offset (consumed again after a crash)")
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
        ("holes", "rq-hole", _("holes: done above the committed offset")),
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
        if p.hidden:  # a checkpoint asks about it: its label says "?", and no arrow says where it is
            label = Mark("text", f"{rid}:ptr:{p.name}:label", x=px, y=ty, text=p.label, cls="rq-pointer",
                         title=p.why, role="strip-pointer-label")  # fmt: skip
            marks.append(label)
            width = max(width, px + text_width(p.label, 11) + 8)
            ay += _POINTER_ROW
            continue
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
