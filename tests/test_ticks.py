"""The shared time-axis tick rule (widgets.ticks) that the retry timeline and the lease view draw with."""

from __future__ import annotations

from rmqlab.widgets.ticks import NICE_STEPS_MS, tick_step, tick_times

LEASE_LADDER = (5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000)


def test_the_first_rung_that_keeps_ticks_apart_is_chosen() -> None:
    # 100 s over 900 px with labels 90 px apart: at most 10 intervals, so 10 s (5 s would give 20)
    assert tick_step(100_000, width_px=900, min_gap_px=90) == 10_000
    # one more millisecond and 10 s no longer fits: the next rung, 15 s
    assert tick_step(100_001, width_px=900, min_gap_px=90) == 15_000


def test_a_span_that_exactly_fills_the_width_keeps_its_rung() -> None:
    assert tick_step(100_000, width_px=640, min_gap_px=64, ladder=LEASE_LADDER) == 10_000
    assert tick_step(100_001, width_px=640, min_gap_px=64, ladder=LEASE_LADDER) == 20_000


def test_short_spans_get_millisecond_ticks() -> None:
    assert tick_step(1, width_px=900, min_gap_px=90) == 1
    assert tick_step(35, width_px=300, min_gap_px=90) == 20


def test_past_the_top_rung_whole_multiples_of_it() -> None:
    # 10 intervals fit; 25 h of lease is 2 × the top rung (1 h) per tick, as 20 h was 2 × and 19 h 1 ×
    hour = 3_600_000
    assert tick_step(25 * hour, width_px=640, min_gap_px=64, ladder=LEASE_LADDER) == 2 * hour
    assert tick_step(19 * hour, width_px=640, min_gap_px=64, ladder=LEASE_LADDER) == hour
    assert tick_step(3 * 86_400_000, width_px=90, min_gap_px=90) == NICE_STEPS_MS[-1] * 3


def test_tick_times_include_the_end_when_it_falls_on_a_tick() -> None:
    assert list(tick_times(60_000, 20_000)) == [0, 20_000, 40_000, 60_000]
    assert list(tick_times(59_999, 20_000)) == [0, 20_000, 40_000]
    assert list(tick_times(0, 5)) == [0]
