"""Checks of the benchmark harness itself: ``pytest bench`` (kept out of the default ``tests/`` run).

A benchmark that measures the wrong workload is worse than none, so these pin the storm's exact
outcome at a size small enough to stay clear of pull flow control, where the engine must agree
with the arithmetic oracle to the millisecond.
"""

from __future__ import annotations

from bench.baseline_heapq import run_heapq
from bench.baseline_simpy import run_simpy
from bench.baseline_simpy_pipeline import run_pipeline, run_simpy_pipeline
from bench.engine_storm import BROKER, body_for, build_storm, check, predicted_last_dlq_ms, run_engine
from bench.measure import measure
from bench.step_latency import measure_steps
from bench.workload import RETRY_DELAYS_MS, expected
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
    assert run_simpy_pipeline(1000) == expected(1000)


def test_simpy_pipeline_delivers_at_the_oracle_times_without_flow_control() -> None:
    """4,000 messages: 1,000 per queue, 1,200 retries per schedule tick; no flow control trips.

    Then every delivery of the pipeline model happens at the oracle's millisecond: all first
    deliveries at 0, the 1,200 failures (400 poison, 800 transient) again at 10 s and 40 s, and the
    400 poison messages at each later sum of delays, the DLQ write at 17,140,000 ms.
    """
    run = run_pipeline(4000, record_deliveries=True)
    assert run.totals == expected(4000)
    assert run.totals["last_dlq_ms"] == 17_140_000
    assert run.dlq_times == {17_140_000: 400}
    want = {0: {0: 4000}, 1: {10_000: 1200}, 2: {40_000: 1200}}
    want.update({k: {sum(RETRY_DELAYS_MS[:k]): 400} for k in range(3, 17)})
    assert run.delivery_times == want


def test_simpy_pipeline_leaves_the_broker_state_the_engine_leaves() -> None:
    """No stage is skipped: same CommitLog size, ConsumeQueue sizes, persisted offsets, schedule offsets.

    1,000 messages: 1,000 sends + 2,100 send-backs (2,000 parked in SCHEDULE_TOPIC_XXXX, 100 to the
    DLQ) + 2,000 moves back to %RETRY%cg = 5,100 CommitLog entries.
    """
    run = run_pipeline(1000)
    lab, _ = build_storm(1000, trace=False)
    lab.run(until=expected(1000)["last_dlq_ms"] + 3_600_000)
    engine = lab.brokers[BROKER]
    assert len(run.broker.commit_log) == engine.commit_log.max_offset == 5100
    sizes = {key: len(entries) for key, entries in run.broker.consume_queues.items()}
    assert sizes == {key: queue.max_offset for key, queue in engine.consume_queues.items()}
    assert sizes[("%RETRY%cg", 0)] == 2000 and sizes[("%DLQ%cg", 0)] == 100
    assert run.broker.consumer_offsets == engine.consumer_offsets
    assert run.broker.consumer_offsets[("cg", "StormTopic", 0)] == 250
    assert run.broker.schedule_service.offset_table == engine.schedule_service.offset_table


def test_simpy_pipeline_flow_control_at_10k() -> None:
    """10,000 messages: flow control trips, and the last DLQ write is 17,140,200 ms (engine: 17,140,100).

    Each queue gets 2,500 messages at t=0. A pull is delayed 50 ms once its ProcessQueue holds more
    than 1,000, and in the SimPy model a queue takes in 1,168 messages per millisecond before that
    (20 ConsumeRequests per 5 pulls: simpy.Resource hands a freed thread over one event later than
    the engine's pool). So first deliveries are 4 × 1,168 at 0 and at 50 ms, the remaining 656 at
    100 ms. The retry queue trips too: of the 1,598 retries due at the 10,100 ms tick, 126 wait
    until 10,150, so their chains run one 100 ms tick late; the 40 poison messages among them
    reach the DLQ at 17,140,200 instead of 17,140,100.
    """
    run = run_pipeline(10_000, record_deliveries=True)
    assert (run.totals["consumed"], run.totals["dlq"], run.totals["deliveries"]) == (9000, 1000, 30_000)
    assert run.delivery_times is not None
    assert run.delivery_times[0] == {0: 4672, 50: 4672, 100: 656}
    assert run.last_first_poison_ms == 100
    assert run.delivery_times[1] == {10_000: 1402, 10_100: 1472, 10_150: 126}
    assert run.delivery_times[2] == {40_000: 1402, 40_100: 1472, 40_200: 126}
    assert run.dlq_times == {17_140_000: 467, 17_140_100: 493, 17_140_200: 40}
    assert run.totals["last_dlq_ms"] == 17_140_200


def test_measure_runs_a_model_in_a_child_process() -> None:
    """One JSON line comes back with totals, timings and a peak RSS above the pre-run reading."""
    result = measure("heapq", 1000)
    assert result.ok and result.totals == expected(1000)
    assert result.peak_rss >= result.rss_before > 0
    assert result.cpu_s > 0 and result.wall_s > 0


def test_measure_runs_the_simpy_pipeline_model() -> None:
    """The pipeline model is registered with measure.py; its counts are checked like the engine's."""
    result = measure("simpy_pipeline", 1000)
    assert result.ok and result.totals == expected(1000)
    assert result.extra["dlq_times"] == {"17140000": 100}


def test_step_latency_times_every_step() -> None:
    """Stepping one event at a time runs exactly the events ``run`` would."""
    lab, _ = build_storm(20)
    latency = measure_steps(lab, until_ms=18_000_000)
    assert latency.steps == lab.scheduler.steps
    assert latency.max_us >= latency.p99_us >= latency.p50_us > 0
    assert len(latency.slowest) == 5


def test_simpy_pipeline_with_the_gc_paused_gives_the_same_run_and_restores_the_gc() -> None:
    """Pausing the collector changes only how fast the model runs, and only for the run itself."""
    import gc

    assert gc.isenabled()
    paused = run_pipeline(1000, pause_gc=True)
    assert gc.isenabled()
    plain = run_pipeline(1000)
    assert paused.totals == plain.totals == expected(1000)
    assert paused.dlq_times == plain.dlq_times
