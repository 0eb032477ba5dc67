"""Time-axis ticks: one rule for every view that draws virtual time to scale (the retry timeline, the lease view).

A view picks its tick spacing from a *ladder* of round durations: the first rung whose ticks stay at least
``min_gap_px`` apart when ``span_ms`` is drawn ``width_px`` wide. Each view keeps its own ladder (what reads
well on its axis: the retry timeline's runs from 1 ms to a day, the lease view's from 5 s to an hour, where
20 s is the lockAll period); the rule is the same.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["NICE_STEPS_MS", "tick_step", "tick_times"]

NICE_STEPS_MS: tuple[int, ...] = (
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
    600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
)  # fmt: skip
"""Round tick spacings from 1 ms to 1 day (the default ladder)."""


def tick_step(span_ms: int, *, width_px: float, min_gap_px: float, ladder: Sequence[int] = NICE_STEPS_MS) -> int:
    """The first spacing of ``ladder`` whose ticks over ``span_ms`` drawn ``width_px`` wide are ``min_gap_px`` apart.

    Past the top rung (a span longer than the ladder was made for) the spacing is the top rung times
    ``span_ms // (top × the ticks that fit)``, at least once.
    """
    for step in ladder:
        if span_ms / step * min_gap_px <= width_px:
            return step
    top = ladder[-1]
    return top * max(1, int(span_ms // (top * (width_px / min_gap_px))))


def tick_times(span_ms: int, step: int) -> range:
    """The tick times from 0 up to ``span_ms`` (included when it falls on a tick), ``step`` apart."""
    return range(0, span_ms + 1, step)
