"""The retry storm on the real engine: producer, broker, ScheduleMessageService, push consumer, DLQ.

Unlike the baselines this runs the full RocketMQ pipeline: 100,000 SYNC sends into one topic of
``N_QUEUES`` queues on one broker, one concurrent consumer with default options, send-back to the
broker on every failure, parking in ``SCHEDULE_TOPIC_XXXX`` and redelivery through ``%RETRY%cg``
until reconsumeTimes reaches 16 and the broker writes the message to ``%DLQ%cg``.

All sends happen inside one callback at t=0 (a producer looping, as an application would) so that
every message is stored at the same virtual millisecond, which is what the arithmetic oracle in
:mod:`bench.workload` assumes. The totals are read from the engine's own state (DLQ consume queue
and its CommitLog entries), not from the trace, so they are the same with ``trace=False``.

Run ``python -m bench.engine_storm --n 10000 [--trace off] [--body-size 1024] [--json]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

from bench.measure import peak_rss_bytes
from bench.workload import N_QUEUES, RETRY_DELAYS_MS, Totals, expected, measured_totals, outcome_plan, run_horizon_ms
from rmqlab import ConsumeConcurrentlyStatus, EventKind, Lab, Message, dlq_topic

__all__ = ["GROUP", "TOPIC", "StormRun", "body_for", "build_storm", "predicted_last_dlq_ms", "run_engine"]

TOPIC = "StormTopic"
GROUP = "cg"
BROKER = "broker-a"

SCHEDULE_TICK_MS = 100
"""ScheduleMessageService's 100 ms grid (phase: broker start + 1 s, so the grid is multiples of 100)."""

_SUCCESS = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
_LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER


def body_for(i: int, size: int) -> str:
    """A distinct body of exactly ``size`` characters for message ``i`` (no interning, no sharing).

    Distinct objects matter for the memory check: if every message shared one body, a copy made by
    the engine would be invisible in RSS only because it was never a copy to begin with.
    """
    return str(i).zfill(size)


@dataclass(slots=True)
class StormRun:
    """What one engine run measured: the workload totals plus engine-side counters."""

    totals: Totals
    wall_s: float
    scheduler_steps: int
    trace_events: int
    delivered_events: int
    dead_lettered_events: int
    listener_calls: int
    last_first_poison_ms: int | None
    """Latest virtual time at which a poison message was delivered the first time."""
    dlq_times: dict[str, int]
    """Store timestamp (ms, as a string for JSON) → number of DLQ writes at that time."""


def predicted_last_dlq_ms(last_first_poison_ms: int | None) -> int | None:
    """When the last DLQ write must happen, given when the last poison message was first consumed.

    The first retry is due 10 s after that consumption and is delivered on the next 100 ms tick of
    the ScheduleMessageService; every later delay is a whole number of ticks, so the chain stays on
    the grid. The oracle's 17,140,000 ms is the special case "every first delivery at t=0".
    """
    if last_first_poison_ms is None:
        return None
    first_due = last_first_poison_ms + RETRY_DELAYS_MS[0]
    first_tick = -(-first_due // SCHEDULE_TICK_MS) * SCHEDULE_TICK_MS
    return first_tick + sum(RETRY_DELAYS_MS[1:])


def build_storm(n: int, *, trace: bool = True, body_size: int = 10) -> tuple[Lab, dict[str, int]]:
    """Set up (but do not run) the storm; returns the lab and the listener's live counters.

    The listener recovers ``i`` from the message keys: keys are what a real application would use
    to correlate a delivery with its business record.
    """
    lab = Lab(seed=1, trace=trace)
    lab.add_broker(BROKER)
    lab.create_topic(TOPIC, queues=N_QUEUES)
    # send_which_queue_start=3: the first increment gives 4, so message i lands in queue i % 4.
    producer = lab.add_producer("pg", send_which_queue_start=3)
    plans = [outcome_plan(i) for i in range(n)]
    counters = {"calls": 0, "succeeded": 0, "last_first_poison_ms": -1}

    def listener(msgs: list[Any], _ctx: Any) -> ConsumeConcurrentlyStatus:
        counters["calls"] += 1
        msg = msgs[0]  # consume_message_batch_max_size defaults to 1
        plan = plans[int(msg.keys)]
        if plan is None:
            if msg.reconsume_times == 0:
                counters["last_first_poison_ms"] = lab.now
            return _LATER
        if msg.reconsume_times >= plan:
            counters["succeeded"] += 1
            return _SUCCESS
        return _LATER

    lab.add_consumer(GROUP, subscribe={TOPIC: "*"}, listener=listener)

    def publish_all() -> None:
        send = producer.send
        for i in range(n):
            send(Message(TOPIC, body_for(i, body_size), tags="TagA", keys=str(i)))

    lab.at(0, publish_all)
    return lab, counters


def dlq_store_times(lab: Lab) -> list[int]:
    """Store timestamps of every message in ``%DLQ%cg``, in queue order, read from broker state."""
    broker = lab.brokers[BROKER]
    queue = broker.consume_queues.get((dlq_topic(GROUP), 0))
    if queue is None:
        return []
    stored = (broker.commit_log.get(entry.commit_log_offset) for entry in queue.entries)
    return [msg.store_timestamp for msg in stored if msg is not None]


@contextmanager
def gc_paused(pause: bool = True) -> Iterator[None]:
    """Pause the cyclic GC for the block (when ``pause``), restoring whatever state it had before."""
    was_enabled = gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run_engine(n: int, *, trace: bool = True, body_size: int = 10, pause_gc: bool = True) -> StormRun:
    """Build and run the storm to completion; wall time covers setup, publishing and the run.

    ``pause_gc`` pauses the cyclic garbage collector during ``lab.run`` exactly as the SimPy pipeline's
    ``_nogc`` variant pauses it around ``env.run``: the harness decides, never the engine, so both models are
    measured with the GC handled the same way.
    """
    started = time.perf_counter()
    lab, counters = build_storm(n, trace=trace, body_size=body_size)
    with gc_paused(pause_gc):
        lab.run(until=run_horizon_ms(n))
    wall_s = time.perf_counter() - started
    times = dlq_store_times(lab)
    counts = lab.trace.counts
    return StormRun(
        totals=measured_totals(counters["succeeded"], counters["calls"], times),
        wall_s=wall_s,
        scheduler_steps=lab.scheduler.steps,
        trace_events=len(lab.trace),
        delivered_events=counts[EventKind.DELIVERED],
        dead_lettered_events=counts[EventKind.DEAD_LETTERED],
        listener_calls=counters["calls"],
        last_first_poison_ms=None if counters["last_first_poison_ms"] < 0 else counters["last_first_poison_ms"],
        dlq_times={str(t): c for t, c in sorted(Counter(times).items())},
    )


def check(run: StormRun, n: int) -> list[str]:
    """Every way the run disagrees with the oracle, or with the explanation of its timestamps."""
    want = expected(n)
    problems = [
        f"{key}: engine {run.totals[key]} != expected {want[key]}"  # type: ignore[literal-required]
        for key in ("consumed", "dlq", "deliveries")
        if run.totals[key] != want[key]  # type: ignore[literal-required]
    ]
    if run.delivered_events != run.listener_calls:
        problems.append(f"DELIVERED events {run.delivered_events} != listener calls {run.listener_calls}")
    if run.dead_lettered_events != want["dlq"]:
        problems.append(f"DEAD_LETTERED events {run.dead_lettered_events} != {want['dlq']}")
    predicted = predicted_last_dlq_ms(run.last_first_poison_ms)
    if run.totals["last_dlq_ms"] != predicted:
        problems.append(f"last DLQ write at {run.totals['last_dlq_ms']} ms, predicted {predicted} ms")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--trace", choices=("on", "off"), default="on")
    parser.add_argument("--body-size", type=int, default=10)
    parser.add_argument("--json", action="store_true", help="print one JSON object (used by python -m bench)")
    args = parser.parse_args(argv)
    run = run_engine(args.n, trace=args.trace == "on", body_size=args.body_size)
    want = expected(args.n)
    problems = check(run, args.n)
    if args.json:
        print(json.dumps({**asdict(run), "problems": problems, "expected": want, "peak_rss": peak_rss_bytes()}))
    else:
        print(f"engine storm n={args.n:,} trace={args.trace}: {run.totals} in {run.wall_s:.2f} s wall")
        print(f"  scheduler steps {run.scheduler_steps:,}, trace events {run.trace_events:,}")
        print(f"  oracle {want}; last first delivery of a poison message at {run.last_first_poison_ms} ms")
        print(f"  DLQ writes by time: {run.dlq_times}")
        for problem in problems:
            print(f"  MISMATCH: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
