"""The space-time diagram's event-indexed time axis: where each row sits (one row per event, a gap where virtual
time jumps), the time at the first row of each instant, the breaks, and the now line under the last row."""

from __future__ import annotations

from rmqlab import format_duration
from rmqlab.core.i18n import gettext as _

from .scene import Mark
from .spacetime_model import Row, SpaceTimeModel

__all__ = ["AXIS_W", "GAP_H", "ROW_H", "now_marks", "row_ys", "time_axis"]

AXIS_W = 104
"""Width of the time axis column (labels right-aligned against the axis line)."""
ROW_H = 22
GAP_H = 10
"""Extra space where virtual time jumps between two rows (the axis break)."""


def row_ys(
    vm: SpaceTimeModel, rows: tuple[Row, ...], top: float
) -> tuple[dict[int, float], list[tuple[int, float]], float]:
    """Each row's y (one row per event, a gap where virtual time jumps), the gaps' axis breaks, and the now
    line's y (a gap above it too when time moved on since the last row)."""
    ys: dict[int, float] = {}
    y = top + ROW_H * 0.5
    prev_t: int | None = None
    breaks: list[tuple[int, float]] = []
    for r in rows:
        if prev_t is not None:
            y += ROW_H
            if r.time_ms != prev_t:
                y += GAP_H
                breaks.append((r.seq, y - ROW_H / 2 - GAP_H / 2))
        ys[r.seq] = y
        prev_t = r.time_ms
    last_y = y if rows else top
    now_gap = GAP_H if rows and vm.now_ms != prev_t else 0
    return ys, breaks, last_y + ROW_H + now_gap  # no row yet: a row's height under the axis title, "now" clear of it


def time_axis(
    rows: tuple[Row, ...], ys: dict[int, float], breaks: list[tuple[int, float]], *, top: float, bottom: float
) -> list[Mark]:
    """The event-indexed time axis: a tick and time at the first row of each instant, a break mark at each jump."""
    marks = [Mark("line", "axis", x=AXIS_W - 6, y=top, x2=AXIS_W - 6, y2=bottom, cls="rq-axis", role="axis")]
    shown_t: int | None = None
    for r in rows:
        if r.time_ms != shown_t:
            ty = ys[r.seq]
            marks.append(Mark("line", f"tick:{r.seq}", x=AXIS_W - 10, y=ty, x2=AXIS_W - 6, y2=ty, cls="rq-axis"))
            marks.append(
                Mark(
                    "text",
                    f"tick:{r.seq}:t",
                    x=AXIS_W - 13,
                    y=ty + 4,
                    text=format_duration(r.time_ms),
                    anchor="end",
                    role="time-tick",
                    title=f"{r.time_ms} ms",
                )
            )
            shown_t = r.time_ms
    for seq, by in breaks:
        x = AXIS_W - 6
        d = f"M{x - 4},{by + 1} l8,-3 M{x - 4},{by + 4} l8,-3"
        marks.append(Mark("path", f"break:{seq}", d=d, cls="rq-axis", role="axis-break"))
    return marks


def now_marks(vm: SpaceTimeModel, *, now_y: float, lanes_right: float) -> list[Mark]:
    """The now line across every lane, "now" over it and the time under it (one line would not fit the axis)."""
    title = _("now: {time} (position {position})").format(time=format_duration(vm.now_ms), position=vm.position)
    return [
        Mark("line", "now", x=AXIS_W - 6, y=now_y, x2=lanes_right, y2=now_y, cls="rq-st-now", role="now", title=title),
        Mark("text", "now:label", x=AXIS_W - 13, y=now_y - 4, text=_("now"), anchor="end", cls="rq-st-now-text"),
        Mark(
            "text",
            "now:t",
            x=AXIS_W - 13,
            y=now_y + 13,
            text=format_duration(vm.now_ms),
            anchor="end",
            cls="rq-st-now-text",
            role="now-label",
            title=f"{vm.now_ms} ms",
        ),
    ]
