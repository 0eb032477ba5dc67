"""Random mixed-fault storms, checked with the settled-run rule: do they all drain?

One storm, from its seed: three brokers; ``cg`` (three concurrent consumers) on topic ``T`` and ``og`` (two
orderly consumers, hash selector) on ``O``; messages sent throughout the fault window, some failing a few
times, some slow (up to 20 s per call), a few always failing (→ DLQ); and, at random times within the fault
window, broker crashes and restarts, client ↔ broker partitions, lost responses, slow brokers (1–40 s, past
the 30 s pull timeout too), refused send-backs and consumer crashes with restarts. Every fault is healed by
the end of the fault window; the run then continues with no fault for ``healed_hours``.

A storm *drained* when ``check_invariants`` is ok, the run counts as settled and nothing is in flight or lost.

    python -m bench.fault_storms --seeds 0:100              # 2 h of faults, 9 h healed, each checked
    python -m bench.fault_storms --seeds 0:500 --healed-hours 22
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from typing import Any

from rmqlab import (
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyStatus,
    InvariantReport,
    Lab,
    Message,
    SelectMessageQueueByHash,
    after,
    check_invariants,
)

HOUR = 3_600_000
BROKERS = ("broker-a", "broker-b", "broker-c")
CONCURRENT = ("c1", "c2", "c3")
ORDERLY = ("o1", "o2")
FAULT_KINDS = ("broker_down", "partition", "lose_responses", "slow_broker", "reject_send_back", "consumer_crash")


def _behaviour(seed: int, msg_id: str) -> tuple[int, int]:
    """(failures before success, listener ms per call) for a message: a fixed function of seed and id."""
    rng = random.Random(f"{seed}:{msg_id}")
    failures = 99 if rng.random() < 0.03 else rng.choice((0, 0, 0, 1, 2, 3))
    took = rng.choice((0, 0, 0, 50, 500, 5000, 20_000))
    return failures, took


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault of a storm's plan: on at ``start``, healed at ``end``."""

    kind: str
    start: int
    end: int
    target: str
    """The broker, or for ``consumer_crash`` the consumer."""
    client: str = ""
    """``partition``: the client cut from ``target``."""
    delay_ms: int = 0
    """``slow_broker``: the response delay."""


@dataclass(frozen=True, slots=True)
class StormPlan:
    sends: tuple[tuple[int, str, int], ...]
    """(time, topic, sharding key or -1) per message, in send-index order."""
    faults: tuple[Fault, ...]


def storm_plan(
    seed: int,
    *,
    fault_hours: float = 2,
    messages: int = 60,
    kinds: tuple[str, ...] = FAULT_KINDS,
    fault_count: tuple[int, int] = (4, 14),
) -> StormPlan:
    """What storm ``seed`` sends and breaks, and when; everything within the first ``fault_hours``."""
    rng = random.Random(seed)
    window = int(fault_hours * HOUR)
    sends = []
    for i in range(messages):
        at = rng.randrange(1000, window)
        sends.append((at, "O", rng.randrange(8)) if i % 3 == 2 else (at, "T", -1))
    faults = []
    for _ in range(rng.randint(*fault_count)):
        kind = rng.choice(kinds)
        start = rng.randrange(1000, window - 5 * 60_000)
        end = min(start + rng.randrange(5_000, 5 * 60_000), window)
        broker = rng.choice(BROKERS)
        if kind == "partition":
            faults.append(Fault(kind, start, end, broker, client=rng.choice(CONCURRENT + ORDERLY + ("pg",))))
        elif kind == "slow_broker":
            faults.append(Fault(kind, start, end, broker, delay_ms=rng.choice((1000, 4000, 40_000))))
        elif kind == "consumer_crash":
            faults.append(Fault(kind, start, end, rng.choice(CONCURRENT + ORDERLY)))
        else:
            faults.append(Fault(kind, start, end, broker))
    return StormPlan(tuple(sends), tuple(faults))


def build_storm(seed: int, **options: Any) -> Lab:
    """The storm of ``seed`` (see :func:`storm_plan` for ``options``), ready to run."""
    plan = storm_plan(seed, **options)
    lab = Lab(seed=seed)
    for name in BROKERS:
        lab.add_broker(name)
    lab.create_topic("T", queues=4)
    lab.create_topic("O", queues=4)
    producer = lab.add_producer("pg")

    def concurrent(msgs: list[Any], ctx: Any) -> Any:
        failures, took = _behaviour(seed, msgs[0].msg_id)
        status = (
            ConsumeConcurrentlyStatus.RECONSUME_LATER
            if msgs[0].reconsume_times < failures
            else ConsumeConcurrentlyStatus.CONSUME_SUCCESS
        )
        return after(took, status) if took else status

    def orderly(msgs: list[Any], ctx: Any) -> Any:
        failures, took = _behaviour(seed, msgs[0].msg_id)
        status = (
            ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
            if msgs[0].reconsume_times < min(failures, 3)
            else ConsumeOrderlyStatus.SUCCESS
        )
        return after(took, status) if took else status

    consumers = {}
    for name in CONCURRENT:
        consumers[name] = lab.add_consumer("cg", subscribe={"T": "*"}, listener=concurrent, name=name)
    for name in ORDERLY:
        consumers[name] = lab.add_consumer("og", subscribe={"O": "*"}, listener=orderly, orderly=True, name=name)
    for i, (at, topic, key) in enumerate(plan.sends):
        if topic == "O":
            message = Message("O", f"o{i}", keys=f"order-{key}")
            lab.at(at, producer.send_with_selector, message, SelectMessageQueueByHash, key)
        else:
            lab.at(at, producer.send, Message("T", f"t{i}", keys=f"k{i}"))
    for f in plan.faults:
        if f.kind == "broker_down":
            lab.at(f.start, lab.broker_down, f.target)
            lab.at(f.end, lab.broker_up, f.target)
        elif f.kind == "partition":
            lab.at(f.start, lab.partition, f.client, f.target)
            lab.at(f.end, lab.partition, f.client, f.target, heal=True)
        elif f.kind == "lose_responses":
            lab.at(f.start, lab.set_broker_fault, f.target, lose_responses=True)
            lab.at(f.end, lab.set_broker_fault, f.target, lose_responses=False)
        elif f.kind == "slow_broker":
            lab.at(f.start, lab.set_broker_fault, f.target, response_delay_ms=f.delay_ms)
            lab.at(f.end, lab.set_broker_fault, f.target, response_delay_ms=0)
        elif f.kind == "reject_send_back":
            lab.at(f.start, lab.set_broker_fault, f.target, reject_send_back=True)
            lab.at(f.end, lab.set_broker_fault, f.target, reject_send_back=False)
        else:
            lab.at(f.start, consumers[f.target].crash)
            lab.at(f.end, consumers[f.target].start)
    return lab


@dataclass(frozen=True, slots=True)
class StormResult:
    seed: int
    lab: Lab
    drained: bool
    report: InvariantReport
    events: int
    wall_s: float


def run_storm(seed: int, *, fault_hours: float = 2, healed_hours: float = 9, **options: Any) -> StormResult:
    """Build, run and check one storm."""
    started = time.perf_counter()
    lab = build_storm(seed, fault_hours=fault_hours, **options)
    lab.run(until=int((fault_hours + healed_hours) * HOUR))
    report = check_invariants(lab)
    counts = report.counts
    drained = report.ok and report.settled and counts["in_flight"] == 0 and counts["lost"] == 0
    return StormResult(seed, lab, drained, report, len(lab.trace), time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0:100", help="first:end (end excluded)")
    parser.add_argument("--fault-hours", type=float, default=2)
    parser.add_argument("--healed-hours", type=float, default=9)
    args = parser.parse_args(argv)
    first, end = (int(x) for x in args.seeds.split(":"))
    failed = []
    wall = events = 0.0
    for seed in range(first, end):
        result = run_storm(seed, fault_hours=args.fault_hours, healed_hours=args.healed_hours)
        wall += result.wall_s
        events += result.events
        if not result.drained:
            failed.append(result)
            print(f"seed {seed}: NOT drained\n{result.report}", flush=True)
    total = end - first
    print(
        f"{total - len(failed)} of {total} storms drained ({args.fault_hours:g} h faults, {args.healed_hours:g} h "
        f"healed); {events / total:.0f} events and {wall / total:.2f} s wall per storm; not drained: "
        f"{[r.seed for r in failed]}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
