"""The retry-storm workload and its RocketMQ retry rules, shared by every baseline.

Keeping the rules in one place is what makes the baselines comparable: each model only decides
*how* deliveries are scheduled, never *which* deliveries happen or *when* they are due.

Workload: ``n`` messages are published at virtual time 0 into one topic with ``N_QUEUES`` queues
(message ``i`` goes to queue ``i % N_QUEUES``) and drained by one concurrent consumer whose
processing takes 0 virtual ms. Because processing is instantaneous, neither the queue a message
lands in nor the single consumer changes any timestamp, so the baselines omit both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

N_QUEUES = 4
"""Queues in the topic; message ``i`` is published to queue ``i % N_QUEUES``."""

DEFAULT_N_MESSAGES = 100_000
"""Size of the published batch in the reference benchmark."""

DELAY_LEVELS_MS: tuple[int, ...] = tuple(
    seconds * 1000
    for seconds in (
        1, 5, 10, 30,  # 1s 5s 10s 30s
        60, 120, 180, 240, 300, 360, 420, 480, 540, 600,  # 1m .. 10m
        1200, 1800,  # 20m 30m
        3600, 7200,  # 1h 2h
    )
)  # fmt: skip
"""RocketMQ's default ``messageDelayLevel`` table in ms; level ``L`` is entry ``L - 1``."""

FIRST_RETRY_LEVEL = 3
"""The broker redelivers failure ``k`` at delay level ``FIRST_RETRY_LEVEL + k`` (3 = 10s)."""

MAX_RECONSUME_TIMES = 16
"""A failing delivery whose reconsumeTimes already equals this goes to the DLQ, not to retry."""


class Totals(TypedDict):
    """What a run of the workload must add up to; every baseline returns exactly this."""

    consumed: int
    dlq: int
    deliveries: int
    last_dlq_ms: int | None  # None only when no message reached the DLQ (n == 0)


def outcome_plan(i: int) -> int | None:
    """Return how many deliveries of message ``i`` fail before one succeeds; None = all fail.

    One message in ten is poison (fails forever), two in ten are transient (fail twice), and the
    rest succeed first time, which yields a storm dominated by the long poison retry chains.
    """
    rest = i % 10
    if rest == 0:
        return None
    if rest in (1, 2):
        return 2
    return 0


def retry_delay_ms(reconsume_times: int) -> int:
    """Return the redelivery delay after a failure of a delivery with this reconsumeTimes.

    The level is capped at the last entry of the table, as the broker does.
    """
    level = min(FIRST_RETRY_LEVEL + reconsume_times, len(DELAY_LEVELS_MS))
    return DELAY_LEVELS_MS[level - 1]


RETRY_DELAYS_MS: tuple[int, ...] = tuple(retry_delay_ms(k) for k in range(MAX_RECONSUME_TIMES))
"""``retry_delay_ms(k)`` for every k that can retry, precomputed so hot loops only index."""


def expected(n: int) -> Totals:
    """Compute the totals for ``n`` messages arithmetically, without simulating anything.

    This is the independent oracle the simulated baselines are checked against. ``n`` must be a
    multiple of 10 so that every outcome class has exactly ``n // 10`` members per tenth.
    """
    if n < 0 or n % 10:
        raise ValueError(f"n must be a non-negative multiple of 10, got {n}")
    tenth = n // 10
    poison, transient, healthy = tenth, 2 * tenth, 7 * tenth
    poison_deliveries = MAX_RECONSUME_TIMES + 1  # reconsumeTimes 0..16, the last one to the DLQ
    return {
        "consumed": transient + healthy,
        "dlq": poison,
        "deliveries": healthy * 1 + transient * 3 + poison * poison_deliveries,
        # Every poison message is published at 0 and walks the same delay chain.
        "last_dlq_ms": sum(RETRY_DELAYS_MS) if poison else None,
    }


def measured_totals(consumed: int, deliveries: int, dlq_store_times: Sequence[int]) -> Totals:
    """The totals of a simulated run: the listener's counts and the store times of the DLQ's messages."""
    return {
        "consumed": consumed,
        "dlq": len(dlq_store_times),
        "deliveries": deliveries,
        "last_dlq_ms": max(dlq_store_times) if dlq_store_times else None,
    }


def run_horizon_ms(n: int) -> int:
    """Where a simulated run stops: an hour past the oracle's last DLQ write.

    Housekeeping timers re-arm forever, so runs go to a horizon rather than to an empty heap; the spare
    hour leaves room for a late delivery to show up as wrong.
    """
    return (expected(n)["last_dlq_ms"] or 0) + 3_600_000


EXPECTED: Totals = expected(DEFAULT_N_MESSAGES)
"""The totals for the reference benchmark: 90,000 / 10,000 / 300,000 / 17,140,000 ms."""
