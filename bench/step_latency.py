"""Wall time of single ``lab.step()`` calls on the retry storm: what a "Step" button costs.

Throughput hides the outliers a notebook user feels: one heap event may run a whole callback (the
publishing loop, or a ScheduleMessageService tick that moves every due message at once). This
steps the storm one event at a time and reports the distribution plus the slowest events by name.

Run ``python -m bench.step_latency --n 10000``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.engine_storm import build_storm
from rmqlab import Lab

__all__ = ["StepLatency", "callback_name", "measure_steps"]


@dataclass(frozen=True, slots=True)
class StepLatency:
    """Distribution of per-step wall times (µs) over one whole run."""

    steps: int
    mean_us: float
    p50_us: float
    p99_us: float
    p999_us: float
    max_us: float
    slowest: list[tuple[float, int, str]]
    """(µs, virtual ms, callback) of the slowest steps, slowest first."""


def callback_name(callback: Callable[..., Any]) -> str:
    """A readable name for a heap callback, looking through the engine's wrapper closures.

    ``consumer._later`` and ``lab.at`` wrap the real callback in a closure; the interesting name is
    the one inside, so search the closure cells for a named callable.
    """
    name = getattr(callback, "__qualname__", repr(callback))
    for cell in getattr(callback, "__closure__", None) or ():
        try:
            inner = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if callable(inner) and hasattr(inner, "__qualname__") and inner is not callback:
            return f"{inner.__qualname__} (via {name.split('.')[-1]})"
    return name


def _next_callback(lab: Lab) -> Callable[..., Any] | None:
    """The callback the next ``step()`` will run (diagnostics only: reads the scheduler's heap)."""
    if lab.scheduler.peek() is None:  # peek() also discards cancelled entries at the top
        return None
    return lab.scheduler._heap[0][3].callback


def measure_steps(lab: Lab, until_ms: int, keep: int = 5) -> StepLatency:
    """Step ``lab`` until virtual ``until_ms`` (or an empty heap) and time every step."""
    samples: list[tuple[int, int, Callable[..., Any]]] = []
    clock = time.perf_counter_ns
    while True:
        callback = _next_callback(lab)
        at = lab.scheduler.peek()
        if callback is None or at is None or at > until_ms:
            break
        started = clock()
        lab.step()
        samples.append((clock() - started, at, callback))
    durations = sorted(ns for ns, _, _ in samples)
    if not durations:
        raise ValueError("nothing to step")

    def quantile(q: float) -> float:
        return durations[min(len(durations) - 1, int(q * len(durations)))] / 1000

    slowest = sorted(samples, key=lambda s: s[0], reverse=True)[:keep]
    return StepLatency(
        steps=len(durations),
        mean_us=statistics.fmean(durations) / 1000,
        p50_us=quantile(0.5),
        p99_us=quantile(0.99),
        p999_us=quantile(0.999),
        max_us=durations[-1] / 1000,
        slowest=[(ns / 1000, at, callback_name(cb)) for ns, at, cb in slowest],
    )


def storm_step_latency(n: int, *, trace: bool = True) -> StepLatency:
    """Step latency over the whole retry storm of ``n`` messages."""
    lab, _ = build_storm(n, trace=trace)
    return measure_steps(lab, until_ms=18_000_000)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--trace", choices=("on", "off"), default="on")
    args = parser.parse_args(argv)
    result = storm_step_latency(args.n, trace=args.trace == "on")
    print(
        f"step latency, storm n={args.n:,} trace={args.trace}: {result.steps:,} steps, mean {result.mean_us:.1f} µs,"
        f" p50 {result.p50_us:.1f} µs, p99 {result.p99_us:.1f} µs, p99.9 {result.p999_us:.0f} µs,"
        f" max {result.max_us / 1000:.1f} ms"
    )
    for us, at, name in result.slowest:
        print(f"  {us / 1000:8.1f} ms at t={at:>10,} ms  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
