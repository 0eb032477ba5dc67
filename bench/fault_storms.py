"""Random mixed-fault storms, checked with the settled-run rule: do they all drain?

One storm, from its seed: three brokers; ``cg`` (three concurrent consumers) on topic ``T`` and ``og`` (two
orderly consumers, hash selector) on ``O``; messages sent throughout the fault window, some failing a few
times, some slow (up to 20 s per call), a few always failing (→ DLQ), a few *hanging* (a concurrent call of
16–40 min, past the 15 min ``consumeTimeout``, so ``cleanExpiredMsg`` sends it back while it runs; an orderly
call of 61–90 s, past the 60 s lock lease); and, at random times within the fault window, broker crashes and
restarts, client ↔ broker partitions, lost responses, slow brokers (1–40 s, past the 30 s pull timeout too),
refused send-backs, consumer crashes with restarts and rebalance churn (a clean shutdown and a start again).
Every fault is healed by the end of the fault window; the run then continues with no fault for
``healed_hours``.

A storm is a *scenario* (:func:`storm_scenario` returns the mapping :func:`rmqlab.load_scenario` reads), so the
storm that fails is also its own reproducible file: ``bench.storm_campaign`` writes failing seeds, shrunk, as
JSON scenario files that ``rmqlab run`` replays exactly.

A storm *drained* when ``check_invariants`` is ok, the run counts as settled and nothing is in flight or lost.

    python -m bench.fault_storms --seeds 0:100              # 2 h of faults, 9 h healed, each checked
    python -m bench.storm_campaign --seeds 0:500            # the long campaign (make storms)
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rmqlab import InvariantReport, Lab, check_invariants, load_scenario

HOUR = 3_600_000
BROKERS = ("broker-a", "broker-b", "broker-c")
CONCURRENT = ("c1", "c2", "c3")
ORDERLY = ("o1", "o2")
FAULT_KINDS = (
    "broker_down",
    "partition",
    "lose_responses",
    "slow_broker",
    "reject_send_back",
    "consumer_crash",
    "rebalance_churn",
)
CONSUMER_FAULT_KINDS = ("consumer_crash", "rebalance_churn")


@dataclass(frozen=True, slots=True)
class Behaviour:
    """What the listener does with one message: fail ``failures`` times, each call taking ``took_ms``;
    ``hang_ms`` > 0: the first call hangs that long (then succeeds)."""

    failures: int
    took_ms: int
    hang_ms: int = 0


def behaviour(seed: int, body: str) -> Behaviour:
    """The listener's behaviour for the message with ``body``: a fixed function of the seed and body."""
    rng = random.Random(f"{seed}:{body}")
    failures = 99 if rng.random() < 0.03 else rng.choice((0, 0, 0, 1, 2, 3))
    took = rng.choice((0, 0, 0, 50, 500, 5000, 20_000))
    hang = 0
    if failures < 99 and rng.random() < 0.02:
        hang = rng.randrange(16 * 60_000, 40 * 60_000) if body.startswith("t") else rng.randrange(61_000, 90_000)
    return Behaviour(failures, took, hang)


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault of a storm's plan: on at ``start``, healed at ``end``."""

    kind: str
    start: int
    end: int
    target: str
    """The broker, or for ``consumer_crash`` / ``rebalance_churn`` the consumer."""
    client: str = ""
    """``partition``: the client cut from ``target``."""
    delay_ms: int = 0
    """``slow_broker``: the response delay."""


@dataclass(frozen=True, slots=True)
class StormPlan:
    seed: int
    sends: tuple[tuple[int, str, int], ...]
    """(time, topic, sharding key or -1) per message, in send-index order (message i has body ``t<i>``/``o<i>``)."""
    faults: tuple[Fault, ...]
    kept_sends: tuple[int, ...] | None = None
    """The send indexes to keep (a shrunk plan); None: all."""

    def send_indexes(self) -> tuple[int, ...]:
        return tuple(range(len(self.sends))) if self.kept_sends is None else self.kept_sends


def storm_plan(
    seed: int,
    *,
    fault_hours: float = 2,
    messages: int = 60,
    kinds: tuple[str, ...] = FAULT_KINDS,
    fault_count: tuple[int, int] = (4, 14),
) -> StormPlan:
    """What storm ``seed`` sends and breaks, and when; everything within the first ``fault_hours``.

    A consumer's crash and churn windows never overlap (a start of a running consumer is refused by the
    scenario's validation); a fault drawn on a consumer that is down then is dropped.
    """
    rng = random.Random(seed)
    window = int(fault_hours * HOUR)
    sends = []
    for i in range(messages):
        at = rng.randrange(1000, window)
        sends.append((at, "O", rng.randrange(8)) if i % 3 == 2 else (at, "T", -1))
    faults: list[Fault] = []
    down: dict[str, list[tuple[int, int]]] = {}
    for _ in range(rng.randint(*fault_count)):
        kind = rng.choice(kinds)
        start = rng.randrange(1000, window - 5 * 60_000)
        end = min(start + rng.randrange(5_000, 5 * 60_000), window)
        broker = rng.choice(BROKERS)
        if kind == "partition":
            faults.append(Fault(kind, start, end, broker, client=rng.choice(CONCURRENT + ORDERLY + ("pg",))))
        elif kind == "slow_broker":
            faults.append(Fault(kind, start, end, broker, delay_ms=rng.choice((1000, 4000, 40_000))))
        elif kind in CONSUMER_FAULT_KINDS:
            consumer = rng.choice(CONCURRENT + ORDERLY)
            windows = down.setdefault(consumer, [])
            if all(end < a or start > b for a, b in windows):
                windows.append((start, end))
                faults.append(Fault(kind, start, end, consumer))
        else:
            faults.append(Fault(kind, start, end, broker))
    return StormPlan(seed, tuple(sends), tuple(faults))


def _results(b: Behaviour, orderly: bool) -> list[Any]:
    """The scripted results, one per attempt (the last repeats), that make a listener behave as ``b``."""
    ok, fail = ("SUCCESS", "SUSPEND_CURRENT_QUEUE_A_MOMENT") if orderly else ("CONSUME_SUCCESS", "RECONSUME_LATER")
    failures = min(b.failures, 3) if orderly else b.failures

    def timed(status: str) -> Any:
        return {"take": b.took_ms, "then": status} if b.took_ms else status

    if failures >= 99:
        return [timed(fail)]
    results = [timed(fail)] * failures + [timed(ok)]
    if b.hang_ms:
        results[0] = {"take": b.hang_ms, "then": ok}
    return results


def storm_scenario(plan: StormPlan, *, run_until_ms: int, name: str | None = None) -> dict[str, Any]:
    """The storm as a scenario mapping (JSON-serialisable): what :func:`build_storm` runs and a failing seed's
    reproducible file holds."""
    sends: list[dict[str, Any]] = []
    rules: dict[str, list[dict[str, Any]]] = {"T": [], "O": []}
    for i in plan.send_indexes():
        at, topic, key = plan.sends[i]
        body = f"{topic.lower()}{i}"
        if topic == "O":
            sends.append(
                {"at": at, "producer": "pg", "topic": "O", "body": body, "keys": f"order-{key}", "order_key": key}
            )
        else:
            sends.append({"at": at, "producer": "pg", "topic": "T", "body": body, "keys": f"k{i}"})
        results = _results(behaviour(plan.seed, body), orderly=topic == "O")
        if results != ["SUCCESS" if topic == "O" else "CONSUME_SUCCESS"]:
            rules[topic].append({"match": {"body": body}, "results": results})
    faults: list[dict[str, Any]] = []
    for f in plan.faults:
        on: dict[str, Any]
        off: dict[str, Any]
        if f.kind == "broker_down":
            on, off = {"kind": "broker_down", "broker": f.target}, {"kind": "broker_up", "broker": f.target}
        elif f.kind == "partition":
            on = {"kind": "partition", "client": f.client, "broker": f.target}
            off = {"kind": "heal", "client": f.client, "broker": f.target}
        elif f.kind == "lose_responses":
            on = {"kind": "lose_responses", "broker": f.target, "lose_responses": True}
            off = {"kind": "lose_responses", "broker": f.target, "lose_responses": False}
        elif f.kind == "slow_broker":
            on = {"kind": "broker_slow", "broker": f.target, "response_delay_ms": f.delay_ms}
            off = {"kind": "broker_slow", "broker": f.target, "response_delay_ms": 0}
        elif f.kind == "reject_send_back":
            on = {"kind": "send_back_failure", "broker": f.target, "reject_send_back": True}
            off = {"kind": "send_back_failure", "broker": f.target, "reject_send_back": False}
        elif f.kind == "consumer_crash":
            on, off = (
                {"kind": "consumer_crash", "consumer": f.target},
                {"kind": "consumer_restart", "consumer": f.target},
            )
        else:  # rebalance_churn: a clean shutdown (unregister, persist offsets, unlock), then a start again
            on, off = (
                {"kind": "consumer_remove", "consumer": f.target},
                {"kind": "consumer_restart", "consumer": f.target},
            )
        faults.append({"at": f.start, **on})
        faults.append({"at": f.end, **off})
    faults.sort(key=lambda f: f["at"])  # stable: at one millisecond, plan order
    concurrent = {"default": ["CONSUME_SUCCESS"], "rules": rules["T"]}
    orderly = {"default": ["SUCCESS"], "rules": rules["O"]}
    return {
        "name": name or f"storm-{plan.seed}",
        "description": f"bench.fault_storms storm {plan.seed}: {len(sends)} messages, {len(plan.faults)} faults",
        "seed": plan.seed,
        "brokers": list(BROKERS),
        "topics": [{"name": "T", "queues": 4}, {"name": "O", "queues": 4}],
        "producers": [{"name": "pg"}],
        "consumers": [
            *({"group": "cg", "name": n, "subscribe": {"T": "*"}, "listener": concurrent} for n in CONCURRENT),
            *(
                {"group": "og", "name": n, "subscribe": {"O": "*"}, "orderly": True, "listener": orderly}
                for n in ORDERLY
            ),
        ],
        "sends": sends,
        "faults": faults,
        "run_until": run_until_ms,
    }


def build_storm(seed: int, *, healed_hours: float = 9, **options: Any) -> Lab:
    """The storm of ``seed`` (see :func:`storm_plan` for ``options``), ready to run."""
    fault_hours = options.get("fault_hours", 2)
    plan = storm_plan(seed, **options)
    return load_scenario(storm_scenario(plan, run_until_ms=int((fault_hours + healed_hours) * HOUR))).build()


@dataclass(frozen=True, slots=True)
class StormResult:
    seed: int
    lab: Lab
    drained: bool
    report: InvariantReport
    events: int
    wall_s: float


def is_drained(report: InvariantReport) -> bool:
    """No violation, settled, nothing in flight or lost."""
    counts = report.counts
    return report.ok and report.settled and counts["in_flight"] == 0 and counts["lost"] == 0


def run_scenario(data: dict[str, Any], seed: int) -> StormResult:
    """Run one storm scenario mapping and check it."""
    started = time.perf_counter()
    scenario = load_scenario(data)
    lab = scenario.run()
    report = check_invariants(lab)
    return StormResult(seed, lab, is_drained(report), report, len(lab.trace), time.perf_counter() - started)


def run_storm(seed: int, *, fault_hours: float = 2, healed_hours: float = 9, **options: Any) -> StormResult:
    """Build, run and check one storm."""
    plan = storm_plan(seed, fault_hours=fault_hours, **options)
    return run_scenario(storm_scenario(plan, run_until_ms=int((fault_hours + healed_hours) * HOUR)), seed)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
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
