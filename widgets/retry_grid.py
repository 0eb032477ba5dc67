"""The retry timeline's geometry: sizes, and the :class:`Grid` that places delivery columns, staggered labels and
the proportional bars' absolute axis."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rmqlab import format_duration

from .retry_model import TimelineModel
from .scene import text_width

__all__ = [
    "HEADER_H",
    "LABEL_PX",
    "LEFT_W",
    "LEGEND_H",
    "MAX_STEP",
    "MIN_STEP",
    "RIGHT_PAD",
    "ROW_H",
    "SCOPE",
    "TARGET_W",
    "TOKEN_R",
    "Grid",
    "timeline_grid",
]

LEFT_W = 150
"""The row labels' column."""
LEGEND_H = 46
HEADER_H = 30
ROW_H = 96
RIGHT_PAD = 24
"""Room right of the last column for its half of a time label."""
TARGET_W = 868
"""The width a long schedule is squeezed into: JupyterLab's output area at 1300 px with the file browser open
(``tests/test_flow_fits.OUTPUT_AREA_PX``). It was 960, and lab 03's 17 deliveries were cut at delivery 17 and
"L18 · 2 h" (revA item 16)."""
TOKEN_R = 9
LABEL_PX = 11
MIN_STEP, MAX_STEP = 30, 112
SCOPE = '[data-testid="rq-retry-timeline"]'


@dataclass(frozen=True, slots=True)
class Grid:
    """The timeline's geometry: one column per delivery (``step`` px), labels on one or two staggered lines, and
    the proportional bars' absolute axis (``plot_w`` px for ``span_ms``)."""

    step: float
    wait_rows: int
    since_rows: int
    plot_w: float
    span_ms: int
    since_every: int = 1
    """Every how many columns a "time since first stored" label is written (counted back from the row's last
    column, which always has one): labels wider than two columns would otherwise collide, or (on a third line)
    cross the to-scale bar under them. A thinned column's time stays in its token's tooltip."""

    def abs_x(self, t_ms: int) -> float:
        """Where virtual time ``t_ms`` sits on the absolute (to-scale) axis."""
        return LEFT_W + self.plot_w * min(max(t_ms, 0), self.span_ms) / self.span_ms

    def col_x(self, n: int) -> float:
        """The centre of delivery ``n``'s column."""
        return LEFT_W + self.step * (n - 0.5)

    def since_shown(self, n: int, last: int) -> bool:
        """Whether column ``n`` of a row whose last column is ``last`` has its label (see :attr:`since_every`)."""
        return (last - n) % self.since_every == 0

    def since_y(self, y: float, n: int, last: int) -> float:
        """The baseline of column ``n``'s "time since first stored" label (two staggered lines when crowded)."""
        return y + 21 + 12 * (((last - n) // self.since_every) % self.since_rows)


def timeline_grid(vm: TimelineModel) -> Grid:
    """As wide as TARGET_W allows; a label wider than one column alternates between two lines (two columns of
    room); a "since" label wider than that is written every few columns only (:attr:`Grid.since_every`)."""
    columns = max((vm.deliveries(i) + 1 for i in range(len(vm.lanes))), default=1)
    widest_wait = max((text_width(w.label, LABEL_PX) for w in vm.waits), default=0.0)
    widest_since = max((text_width(format_duration(m.t_ms), LABEL_PX) for m in vm.marks), default=0.0)
    fit = (TARGET_W - LEFT_W - RIGHT_PAD) / columns
    step = min(max(fit, MIN_STEP, min(widest_wait / 2 + 3, fit), min(widest_since / 2 + 3, fit)), MAX_STEP)

    def rows(widest: float) -> int:
        return 1 if widest + 6 <= step else 2

    every = max(1, math.ceil((widest_since + 6) / (2 * step)))
    return Grid(step, rows(widest_wait), rows(widest_since), columns * step, max(vm.now_ms, 1), every)
