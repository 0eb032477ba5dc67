"""Idle horizons (issue 34 item 5): CPU time per virtual hour of an idle lab with many queues.

One broker, one topic of ``--queues`` queues (1,024 by default, the scenario schema's largest), one consumer
holding all of them, nothing sent: all that happens is long polling (each queue's pull held 15 s, answered empty by
the broker's 5 s hold check, pulled again) and the periodic timers (rebalance 20 s, heartbeats and route polls 30 s,
offset persists 5 s, the broker's channel scan 10 s). The run is measured after a warm-up hour, for ``--hours``
virtual hours; the figure is CPU seconds (``time.process_time``) per virtual hour and per virtual day (×24), with the
scheduler steps and trace events per hour. On a shared machine CPU seconds wander with the load; bench/README.md also
gives callgrind's instruction counts, which do not.

    python -m bench.idle_horizon --queues 1024 --hours 1
    python -m bench.idle_horizon --instructions        # callgrind: instructions per virtual minute, 30 s → 90 s
    python -m bench.idle_horizon --by-kind             # scheduler steps per virtual hour, by what each one is
    python -m bench.idle_horizon --instructions --without persist_all   # the same with one part switched off

``--without`` switches one part off after 20 virtual seconds, in the measured child only: ``persist_all`` (no
``persistAll`` round does anything), ``offset_requests`` (the rounds walk the table but send nothing),
``rebalance`` (``doRebalance`` does nothing) or ``gc`` (the cyclic garbage collector). The difference from the
figure without it is what that part costs (bench/README.md's table of parts); the run is no longer the engine's.
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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


def steps_by_kind(queues: int, minutes: int = 1) -> dict[str, float]:
    """Scheduler steps per virtual hour after the warm-up hour, by the kind of their label (``hold_check``,
    ``pull``, ``persist_offset`` …): what an idle hour is made of. The count wraps this one lab's ``_run_entry``
    (the measured run is the same run; only its steps are tallied)."""
    lab = idle_lab(queues)
    lab.run(until=HOUR)
    scheduler = lab.scheduler
    run_entry = scheduler._run_entry
    kinds: collections.Counter[str] = collections.Counter()

    def counted(entry: tuple[Any, ...]) -> None:
        label = entry[3].label
        kinds["unlabelled" if label is None else label.kind.value] += 1
        run_entry(entry)

    scheduler._run_entry = counted  # type: ignore[method-assign]
    lab.run(until=HOUR + minutes * 60_000)
    return {kind: n * 60 / minutes for kind, n in kinds.most_common()}


PARTS = ("persist_all", "offset_requests", "rebalance", "gc")
"""What ``--without`` can switch off."""


def switch_off(part: str) -> None:
    """Make ``part`` (one of :data:`PARTS`) do nothing from now on, in this process (a measuring child's only)."""
    import gc

    from rmqlab.client.consumer.offset_store import RemoteBrokerOffsetStore
    from rmqlab.client.consumer.rebalance_impl import RebalanceImpl

    def no_rebalance(self: RebalanceImpl) -> Any:
        return
        yield

    if part == "persist_all":
        RemoteBrokerOffsetStore.persist_all = lambda self, mqs: None  # type: ignore[method-assign]
    elif part == "offset_requests":
        RemoteBrokerOffsetStore.persist_offset = lambda self, mq, offset: None  # type: ignore[method-assign]
    elif part == "rebalance":
        RebalanceImpl.do_rebalance = no_rebalance  # type: ignore[method-assign]
    elif part == "gc":
        gc.disable()
    else:
        raise ValueError(f"part={part!r}: expected one of {', '.join(PARTS)}")


def run_child(queues: int, until: int, without: str | None) -> None:
    """The callgrind child: the idle lab run to ``until``, with ``without`` switched off after 20 virtual seconds."""
    lab = idle_lab(queues)
    if without is not None:
        lab.run(until=min(20_000, until))
        switch_off(without)
    lab.run(until=until)


def instructions_per_minute(
    queues: int, warm_ms: int = 30_000, measured_ms: int = 60_000, without: str | None = None
) -> float:
    """Machine instructions per idle virtual minute, which do not wander with the machine's load: two runs under
    ``valgrind --tool=callgrind`` (to ``warm_ms`` and to ``warm_ms + measured_ms``), the difference per minute.
    Both start with ``PYTHONHASHSEED=0`` and compiled sources, so neither pays for something the other does not."""
    from bench.instructions import _precompile, total_instructions
    from bench.measure import REPO_ROOT, child_env

    _precompile()
    totals = []
    with tempfile.TemporaryDirectory() as out_dir:
        for until in (warm_ms, warm_ms + measured_ms):
            out = os.path.join(out_dir, f"callgrind.{until}")
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-m"]
            cmd += ["bench.idle_horizon", "--queues", str(queues), "--run-until", str(until)]
            cmd += [] if without is None else ["--without", without]
            subprocess.run(cmd, capture_output=True, cwd=REPO_ROOT, env=child_env(PYTHONHASHSEED="0"), check=True)
            totals.append(total_instructions(Path(out).read_text(errors="replace")))
    return (totals[1] - totals[0]) * 60_000 / measured_ms


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--queues", type=int, default=1024)
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--instructions", action="store_true", help="count instructions under callgrind instead")
    parser.add_argument("--by-kind", action="store_true", help="scheduler steps per virtual hour by kind instead")
    parser.add_argument("--without", choices=PARTS, help="with --instructions: switch this part off after 20 s")
    parser.add_argument("--run-until", type=int, help=argparse.SUPPRESS)  # the callgrind child: run, print nothing
    args = parser.parse_args(argv)
    if args.run_until is not None:
        run_child(args.queues, args.run_until, args.without)
        return 0
    if args.by_kind:
        per_hour = steps_by_kind(args.queues)
        print(f"idle horizon: {args.queues} queues: {sum(per_hour.values()):,.0f} scheduler steps per virtual hour")
        for kind, n in per_hour.items():
            print(f"  {kind:<16} {n:>10,.0f}")
        return 0
    if args.instructions:
        per_minute = instructions_per_minute(args.queues, without=args.without)
        without = "" if args.without is None else f" without {args.without}"
        print(
            f"idle horizon: {args.queues} queues{without}: {per_minute / 1e6:,.1f} M instructions per virtual minute "
            f"(from 30 s to 90 s), {per_minute * 1440 / 1e9:,.0f} G per virtual day"
        )
        return 0
    r = measure(args.queues, args.hours)
    print(
        f"idle horizon: {r['queues']:.0f} queues, {r['hours']:g} virtual h measured: "
        f"{r['cpu_s_per_hour']:.1f} CPU-s per virtual hour = {r['cpu_s_per_day']:.0f} CPU-s per virtual day; "
        f"{r['steps_per_hour']:,.0f} scheduler steps and {r['events_per_hour']:,.0f} trace events per hour"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
