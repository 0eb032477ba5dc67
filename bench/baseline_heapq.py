"""The cheapest possible model of the retry storm: a bare ``heapq`` event loop.

It schedules exactly the deliveries the engine schedules and nothing else (no queues, no
offsets, no broker), so its wall time is a floor: the ratio engine/heapq measures what the
engine's fidelity costs on top of pure event scheduling.

Run the self-check with ``python -m bench.baseline_heapq`` from the repository root.
"""

from __future__ import annotations

import heapq
import itertools
import time

from bench.workload import (
    DEFAULT_N_MESSAGES,
    MAX_RECONSUME_TIMES,
    RETRY_DELAYS_MS,
    Totals,
    expected,
    outcome_plan,
)


def run_heapq(n_messages: int = DEFAULT_N_MESSAGES) -> Totals:
    """Simulate the workload for ``n_messages`` messages and return its totals.

    Heap entries are ``(due_ms, seq, reconsume_times, failures_planned)``. ``seq`` comes from a
    monotonically increasing counter so that simultaneous deliveries pop in scheduling (FIFO)
    order and the tuples never fall through to comparing ``None`` with an int.
    """
    seq = itertools.count()
    # Publishing happens at time 0 in message order; a list sorted by (0, seq) is already a heap.
    heap: list[tuple[int, int, int, int | None]] = [(0, next(seq), 0, outcome_plan(i)) for i in range(n_messages)]
    heappop, heappush = heapq.heappop, heapq.heappush
    consumed = dlq = deliveries = 0
    last_dlq_ms: int | None = None

    while heap:
        now, _, reconsume_times, failures = heappop(heap)
        deliveries += 1
        if failures is not None and reconsume_times >= failures:
            consumed += 1
        elif reconsume_times >= MAX_RECONSUME_TIMES:
            dlq += 1
            last_dlq_ms = now
        else:
            due = now + RETRY_DELAYS_MS[reconsume_times]
            heappush(heap, (due, next(seq), reconsume_times + 1, failures))

    return {
        "consumed": consumed,
        "dlq": dlq,
        "deliveries": deliveries,
        "last_dlq_ms": last_dlq_ms,
    }


if __name__ == "__main__":
    N = 10_000
    started = time.perf_counter()
    totals = run_heapq(N)
    wall_s = time.perf_counter() - started
    assert totals == expected(N), (totals, expected(N))
    print(f"heapq baseline, n={N:,}: {totals} in {wall_s:.3f} s wall")
