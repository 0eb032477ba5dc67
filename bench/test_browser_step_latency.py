"""The browser step-latency harness: its summary arithmetic (`python -m bench.browser_step_latency` runs it)."""

from __future__ import annotations

import pytest

from bench.browser_step_latency import StepTimes, summarise


def test_summary_takes_median_p95_and_max_of_each_column() -> None:
    pairs = [[float(i), float(i) + 5, 1.5] for i in range(1, 41)]
    pings = [10.0] * 39 + [90.0]
    assert summarise(pairs, pings) == StepTimes(
        steps=40,
        frame_median_ms=20.5,
        frame_p95_ms=38.0,
        frame_max_ms=40.0,
        paint_median_ms=25.5,
        paint_p95_ms=43.0,
        draw_median_ms=1.5,
        ping_median_ms=10.0,
        ping_p95_ms=10.0,
    )


def test_nothing_timed_is_an_error_naming_the_counts() -> None:
    with pytest.raises(ValueError, match="nothing timed: 0 steps, 3 pings"):
        summarise([], [1.0, 2.0, 3.0])
