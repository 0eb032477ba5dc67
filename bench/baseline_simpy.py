"""The retry storm written the way a SimPy user would write it: one process per message.

This is the "off-the-shelf DES library" reference point. Each message is a generator that
yields ``env.timeout(delay)`` between deliveries, so the ratio engine/SimPy says how the engine
compares with a general-purpose simulator doing the same scheduling. Virtual time unit: ms.

Run the self-check with ``python -m bench.baseline_simpy`` from the repository root.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from dataclasses import dataclass

import simpy

from bench.workload import (
    DEFAULT_N_MESSAGES,
    MAX_RECONSUME_TIMES,
    RETRY_DELAYS_MS,
    Totals,
    expected,
    outcome_plan,
)


@dataclass(slots=True)
class Stats:
    """Counters shared by all message processes; SimPy has no built-in place for them."""

    consumed: int = 0
    dlq: int = 0
    deliveries: int = 0
    last_dlq_ms: int | None = None


def message_life(env: simpy.Environment, i: int, stats: Stats) -> Generator[simpy.Event, object, None]:
    """Deliver message ``i`` until it is consumed or sent to the DLQ, waiting out each retry."""
    failures = outcome_plan(i)
    reconsume_times = 0
    while True:
        stats.deliveries += 1
        if failures is not None and reconsume_times >= failures:
            stats.consumed += 1
            return
        if reconsume_times >= MAX_RECONSUME_TIMES:
            stats.dlq += 1
            stats.last_dlq_ms = int(env.now)
            return
        yield env.timeout(RETRY_DELAYS_MS[reconsume_times])
        reconsume_times += 1


def run_simpy(n_messages: int = DEFAULT_N_MESSAGES) -> Totals:
    """Simulate the workload for ``n_messages`` messages in SimPy and return its totals."""
    env = simpy.Environment()
    stats = Stats()
    for i in range(n_messages):
        env.process(message_life(env, i, stats))
    env.run()
    return {
        "consumed": stats.consumed,
        "dlq": stats.dlq,
        "deliveries": stats.deliveries,
        "last_dlq_ms": stats.last_dlq_ms,
    }


if __name__ == "__main__":
    N = 10_000
    started = time.perf_counter()
    totals = run_simpy(N)
    wall_s = time.perf_counter() - started
    assert totals == expected(N), (totals, expected(N))
    print(f"SimPy baseline, n={N:,}: {totals} in {wall_s:.3f} s wall")
