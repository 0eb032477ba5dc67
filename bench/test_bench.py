"""Checks of the benchmark harness itself: ``pytest bench`` (kept out of the default ``tests/`` run).

A benchmark that measures the wrong workload is worse than none, so these pin the storm's exact
outcome at a size small enough to stay clear of pull flow control, where the engine must agree
with the arithmetic oracle to the millisecond.
"""

from __future__ import annotations

from bench.baseline_heapq import run_heapq
from bench.baseline_simpy import run_simpy
from bench.engine_storm import body_for, build_storm, check, predicted_last_dlq_ms, run_engine
from bench.measure import measure
from bench.step_latency import measure_steps
from bench.workload import expected
from rmqlab import EventKind


def test_small_storm_matches_the_oracle_exactly() -> None:
    """100 messages: 90 consumed, 10 dead-lettered at 17,140,000 ms, 300 deliveries, trace agrees."""
    run = run_engine(100)
    assert run.totals == {"consumed": 90, "dlq": 10, "deliveries": 300, "last_dlq_ms": 17_140_000}
    assert run.dlq_times == {"17140000": 10}
    assert run.last_first_poison_ms == 0
    assert run.delivered_events == 300 and run.dead_lettered_events == 10
    assert check(run, 100) == []


def test_trace_off_runs_the_same_storm_with_counters_only() -> None:
    """trace=False changes nothing observable but the event list, which stays empty."""
    on, off = run_engine(100, trace=True), run_engine(100, trace=False)
    assert off.totals == on.totals
    assert off.scheduler_steps == on.scheduler_steps
    assert off.trace_events == 0 and on.trace_events > 0
    assert off.delivered_events == 300


def test_messages_land_in_queue_i_mod_4_with_distinct_bodies() -> None:
    """The producer is seeded so message i is stored in queue i % 4, bodies carry their index."""
    lab, _ = build_storm(8, body_size=12)
    lab.run(until=1)
    stored = [e for e in lab.trace.of_kind(EventKind.STORED) if e.get("topic") == "StormTopic"]
    assert [e.get("queue_id") for e in stored] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert body_for(7, 12) == "000000000007"


def test_predicted_last_dlq_follows_the_100ms_schedule_grid() -> None:
    """A first consumption at t ms shifts the whole retry chain to the next 100 ms tick after t + 10 s."""
    assert predicted_last_dlq_ms(0) == 17_140_000
    assert predicted_last_dlq_ms(50) == 17_140_100
    assert predicted_last_dlq_ms(100) == 17_140_100
    assert predicted_last_dlq_ms(101) == 17_140_200
    assert predicted_last_dlq_ms(None) is None


def test_baselines_agree_with_the_oracle() -> None:
    """heapq and SimPy schedule exactly the oracle's deliveries."""
    assert run_heapq(1000) == expected(1000)
    assert run_simpy(1000) == expected(1000)


def test_measure_runs_a_model_in_a_child_process() -> None:
    """One JSON line comes back with totals, timings and a peak RSS above the pre-run reading."""
    result = measure("heapq", 1000)
    assert result.ok and result.totals == expected(1000)
    assert result.peak_rss >= result.rss_before > 0
    assert result.cpu_s > 0 and result.wall_s > 0


def test_step_latency_times_every_step() -> None:
    """Stepping one event at a time runs exactly the events ``run`` would."""
    lab, _ = build_storm(20)
    latency = measure_steps(lab, until_ms=18_000_000)
    assert latency.steps == lab.scheduler.steps
    assert latency.max_us >= latency.p99_us >= latency.p50_us > 0
    assert len(latency.slowest) == 5
