"""Step-to-render latency: advance one position and update every view, in-kernel, no browser.

Scenario: ``demo_lab(messages=1000, listener="fail_twice")`` (every message fails twice, so the
retry and schedule queues fill up too). We time ``Controller.step_once()`` with all six views of the
Dashboard attached, over ``--steps`` steps starting after ``--warmup`` positions.

    python -m bench.bench_widgets [--steps 300] [--warmup 0]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time

from widgets import Dashboard, demo_lab


def measure(steps: int = 300, warmup: int = 0, messages: int = 1000) -> list[float]:
    """Wall-clock ms of each step_once() (advance + snapshot + every view updated)."""
    factory = functools.partial(demo_lab, messages=messages, listener="fail_twice")
    dashboard = Dashboard(factory, run_ahead=False)
    controller = dashboard.controller
    if warmup:
        controller.seek(warmup)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        moved = controller.step_once()
        times.append((time.perf_counter() - start) * 1000)
        if not moved:
            break
    assert not controller.errors and not any(v.errors for v in dashboard.views)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=0, help="seek to this trace position first")
    parser.add_argument("--messages", type=int, default=1000)
    args = parser.parse_args()
    times = measure(args.steps, args.warmup, args.messages)
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(f"messages={args.messages} warmup={args.warmup} steps={len(times)}")
    print(f"median {statistics.median(times):.2f} ms  p95 {p95:.2f} ms  max {ordered[-1]:.2f} ms  (target < 30 ms)")


if __name__ == "__main__":
    main()
