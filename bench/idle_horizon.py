"""Idle horizons (issue 34 item 5): CPU time per virtual hour of an idle lab with many queues.

One broker, one topic of ``--queues`` queues (1,024 by default, the scenario schema's largest), one consumer
holding all of them, nothing sent: all that happens is long polling (each queue's pull held 15 s, answered empty,
pulled again) and the periodic timers (rebalance 20 s, heartbeats and route polls 30 s, offset persists 5 s, the
broker's channel scan 10 s). The run is measured after a warm-up hour, for ``--hours`` virtual hours; the figure is
CPU seconds (``time.process_time``) per virtual hour and per virtual day (×24), with the scheduler steps and trace
events per hour. On a shared machine CPU seconds wander with the load; bench/README.md also gives callgrind's
instruction counts, which do not.

    python -m bench.idle_horizon --queues 1024 --hours 1
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from rmqlab import ConsumeConcurrentlyStatus, Lab

HOUR = 3_600_000


def idle_lab(queues: int) -> Lab:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=queues)
    lab.add_consumer(
        "cg", name="c1", subscribe={"T": "*"}, listener=lambda m, c: ConsumeConcurrentlyStatus.CONSUME_SUCCESS
    )
    return lab


def measure(queues: int, hours: float) -> dict[str, float]:
    lab = idle_lab(queues)
    lab.run(until=HOUR)  # warm-up: every queue pulled and held
    steps, events = lab.scheduler.steps, len(lab.trace)
    started = time.process_time()
    lab.run(until=HOUR + int(hours * HOUR))
    cpu = time.process_time() - started
    return {
        "queues": queues,
        "hours": hours,
        "cpu_s_per_hour": cpu / hours,
        "cpu_s_per_day": 24 * cpu / hours,
        "steps_per_hour": (lab.scheduler.steps - steps) / hours,
        "events_per_hour": (len(lab.trace) - events) / hours,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--queues", type=int, default=1024)
    parser.add_argument("--hours", type=float, default=1.0)
    args = parser.parse_args(argv)
    r = measure(args.queues, args.hours)
    print(
        f"idle horizon: {r['queues']:.0f} queues, {r['hours']:g} virtual h measured: "
        f"{r['cpu_s_per_hour']:.1f} CPU-s per virtual hour = {r['cpu_s_per_day']:.0f} CPU-s per virtual day; "
        f"{r['steps_per_hour']:,.0f} scheduler steps and {r['events_per_hour']:,.0f} trace events per hour"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
