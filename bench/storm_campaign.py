"""The long storm campaign (``make storms``): hundreds of seeds of :mod:`bench.fault_storms`, each checked twice.

Each seed runs one storm (by default 24 virtual hours of mixed faults, 240 messages and 24–84 faults, then 6 h
with every fault healed: past the 5 h 25 min 40 s drain bound) and is judged by

* ``check_invariants`` (the checker under test): *drained* when it is ok, settled, nothing in flight or lost;
* an independent, deliberately simple **oracle** that reads only the trace's STORED / CONSUMED / DEAD_LETTERED
  events and the final ConsumeQueues: every message stored on ``T`` (group ``cg``) or ``O`` (group ``og``) is
  *done* (a listener call succeeded, or it was dead-lettered), *stuck* (a copy still waits above the group's
  committed offset, in ``%RETRY%``, or parked in ``SCHEDULE_TOPIC_XXXX``) or *lost* (neither); *duplicated*
  counts messages consumed successfully more than once (at-least-once allows it; reported, not a failure).

The summary gives the seeds run and drained, the messages stuck / lost / duplicated per finding class (each
violated invariant, "not settled", and the oracle's own classes) and whether the two verdicts agree.

Every seed the checker or the oracle fails is **shrunk** (faults dropped, then sends, while the same finding
class remains, within a budget of re-runs for each) and written as a scenario file ``<out>/storm-<seed>.json`` that
``rmqlab run`` replays exactly, with the checker's report beside it (``storm-<seed>.txt``).

Memory stays bounded however many seeds run: each storm runs in a worker process that is replaced every
``--tasks-per-worker`` storms, and the parent keeps one small record per seed (also appended to
``<out>/results.jsonl`` as each seed finishes, so a background run can be watched).

    nice python -m bench.storm_campaign --seeds 0:500 --jobs 2          # make storms
    python -m bench.storm_campaign --seeds 0:20 --fault-hours 2 --healed-hours 9 --messages 60 --faults 4:14
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from bench.fault_storms import HOUR, StormPlan, run_scenario, storm_plan, storm_scenario
from rmqlab import EventKind, Lab
from rmqlab.common.message import SCHEDULE_TOPIC
from rmqlab.snapshot import SCHEDULE_GROUP, OffsetState

GROUP_OF_TOPIC = {"T": "cg", "O": "og"}
_SUCCESS = frozenset({"CONSUME_SUCCESS", "SUCCESS"})


@dataclass(frozen=True, slots=True)
class Options:
    fault_hours: float = 24
    healed_hours: float = 6
    messages: int = 240
    fault_count: tuple[int, int] = (24, 84)
    shrink_budget: int = 40
    """Re-runs a failing seed may spend on shrinking its faults, and as many on its sends."""
    out: str = "build/storms"

    @property
    def run_until_ms(self) -> int:
        return int((self.fault_hours + self.healed_hours) * HOUR)


DEFAULTS = Options()


@dataclass(frozen=True, slots=True)
class Oracle:
    """The independent verdict: counts of messages (per group) done, stuck, lost and duplicated."""

    produced: int
    stuck: int
    lost: int
    duplicated: int

    @property
    def ok(self) -> bool:
        return self.stuck == 0 and self.lost == 0


def oracle(lab: Lab) -> Oracle:
    """Judge the run from STORED / CONSUMED / DEAD_LETTERED events and the final ConsumeQueues only."""
    produced: set[str] = set()
    wins: Counter[str] = Counter()
    dead: set[str] = set()
    for e in lab.trace.events:
        if e.msg_id is None:
            continue
        if e.kind is EventKind.STORED and e.data.get("topic") in GROUP_OF_TOPIC:
            produced.add(e.msg_id)
        elif e.kind is EventKind.CONSUMED and e.data.get("status") in _SUCCESS:
            wins[e.msg_id] += 1
        elif e.kind is EventKind.DEAD_LETTERED:
            dead.add(e.msg_id)
    waiting: set[str] = set()
    groups = set(GROUP_OF_TOPIC.values())
    for queue in lab.snapshot().queues:
        committed = dict(queue.committed)
        if queue.topic in GROUP_OF_TOPIC:
            start = committed.get(GROUP_OF_TOPIC[queue.topic], 0)
        elif queue.topic.removeprefix("%RETRY%") in groups:
            start = committed.get(queue.topic.removeprefix("%RETRY%"), 0)
        elif queue.topic == SCHEDULE_TOPIC:
            start = 0  # a parked copy is pending until the schedule service has delivered it
        else:
            continue
        for cell in queue.cells:
            if cell.msg_id is None or cell.offset < start:
                continue
            if queue.topic != SCHEDULE_TOPIC or cell.state_for(SCHEDULE_GROUP) is not OffsetState.ACKED:
                waiting.add(cell.msg_id)
    not_done = {m for m in produced if wins[m] == 0 and m not in dead}
    stuck = len(not_done & waiting)
    return Oracle(len(produced), stuck, len(not_done) - stuck, sum(1 for m in produced if wins[m] > 1))


@dataclass(slots=True)
class SeedRecord:
    """What the campaign keeps per seed (small: the parent holds one per seed)."""

    seed: int
    drained: bool
    settled: bool
    events: int
    wall_s: float
    violations: dict[str, int]
    oracle: dict[str, int]
    fates: dict[str, int]
    classes: list[str] = field(default_factory=list)
    repro: str | None = None
    repro_faults: int | None = None
    repro_sends: int | None = None
    max_rss_kib: int = 0

    @property
    def oracle_ok(self) -> bool:
        return self.oracle["stuck"] == 0 and self.oracle["lost"] == 0


def _classes(drained: bool, report: Any, verdict: Oracle) -> list[str]:
    """The finding classes of one run: each violated invariant, "not settled", "in flight", the oracle's."""
    found = sorted(report.by_invariant())
    if not report.settled:
        found.append("not_settled")
    if report.counts["in_flight"] and "settled" not in found:
        found.append("in_flight")
    if verdict.stuck:
        found.append("oracle:stuck")
    if verdict.lost:
        found.append("oracle:lost")
    return found if (found or drained) else ["not_drained"]


def _judge(data: dict[str, Any], seed: int) -> tuple[Any, Oracle, list[str]]:
    result = run_scenario(data, seed)
    verdict = oracle(result.lab)
    return result, verdict, _classes(result.drained, result.report, verdict)


def _subsets(items: Sequence[Any]) -> Iterator[tuple[Any, ...]]:
    """Candidates for delta debugging: drop halves, then quarters, … then single items."""
    n = len(items)
    size = n // 2
    while size >= 1:
        for start in range(0, n, size):
            yield tuple(items[:start]) + tuple(items[start + size :])
        size //= 2


def shrink(plan: StormPlan, options: Options, target: str) -> tuple[StormPlan, int]:
    """Drop faults, then sends, while ``target`` is still among the finding classes; at most
    ``options.shrink_budget`` re-runs for each of the two. Returns the smallest failing plan found and the re-runs
    spent."""
    runs = 0
    for part in ("faults", "sends"):
        budget = runs + options.shrink_budget
        progress = True
        while progress and runs < budget:
            progress = False
            items = plan.faults if part == "faults" else plan.send_indexes()
            for candidate in _subsets(items):
                if runs >= budget:
                    break
                trial = replace(plan, faults=candidate) if part == "faults" else replace(plan, kept_sends=candidate)
                runs += 1
                _, _, classes = _judge(storm_scenario(trial, run_until_ms=options.run_until_ms), plan.seed)
                if target in classes:
                    plan, progress = trial, True
                    break
    return plan, runs


def run_seed(seed: int, options: Options) -> SeedRecord:
    """Run, judge, and (if it fails) shrink and write one seed; returns its record."""
    plan = storm_plan(seed, fault_hours=options.fault_hours, messages=options.messages, fault_count=options.fault_count)
    data = storm_scenario(plan, run_until_ms=options.run_until_ms)
    result, verdict, classes = _judge(data, seed)
    report = result.report
    record = SeedRecord(
        seed,
        result.drained,
        report.settled,
        result.events,
        round(result.wall_s, 3),
        dict(sorted(report.by_invariant().items())),
        {k: v for k, v in asdict(verdict).items()},
        {
            k: report.counts[k]
            for k in (
                "produced",
                "consumed",
                "dlq",
                "in_flight",
                "lost",
                "stranded",
                "duplicate_consumptions",
                "redeliveries",
            )
        },
        classes,
    )
    del result  # the lab: free it before shrinking re-runs
    if classes:
        small, runs = shrink(plan, options, classes[0])
        out = Path(options.out)
        out.mkdir(parents=True, exist_ok=True)
        scenario = storm_scenario(small, run_until_ms=options.run_until_ms, name=f"storm-{seed}")
        scenario["description"] = (
            f"Shrunk by bench.storm_campaign from storm seed {seed} ({len(plan.faults)} faults, {len(plan.sends)} "
            f"messages → {len(small.faults)} faults, {len(small.send_indexes())} messages in {runs} re-runs); "
            f"finding: {classes[0]} (all: {', '.join(classes)})."
        )
        path = out / f"storm-{seed}.json"
        path.write_text(json.dumps(scenario, indent=1) + "\n", encoding="utf-8")
        again, again_verdict, again_classes = _judge(scenario, seed)
        (out / f"storm-{seed}.txt").write_text(
            f"{scenario['description']}\nclasses now: {again_classes}\noracle: {again_verdict}\n\n{again.report}\n",
            encoding="utf-8",
        )
        record.repro, record.repro_faults, record.repro_sends = str(path), len(small.faults), len(small.send_indexes())
    record.max_rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return record


def _worker(args: tuple[int, Options]) -> SeedRecord:
    return run_seed(*args)


def summarise(records: Sequence[SeedRecord], options: Options, wall_s: float) -> str:
    """The campaign's summary, in words and tables."""
    n = len(records)
    drained = sum(r.drained for r in records)
    lines = [
        f"storm campaign: {n} seeds × ({options.fault_hours:g} h of faults + {options.healed_hours:g} h healed), "
        f"{options.messages} messages and {options.fault_count[0]}–{options.fault_count[1]} faults each",
        f"  drained (checker): {drained} / {n}; oracle clean: {sum(r.oracle_ok for r in records)} / {n}",
        f"  messages: produced {sum(r.oracle['produced'] for r in records)}, stuck "
        f"{sum(r.oracle['stuck'] for r in records)}, lost {sum(r.oracle['lost'] for r in records)}, duplicated "
        f"{sum(r.oracle['duplicated'] for r in records)} (consumed more than once; at-least-once allows it)",
        f"  events: {sum(r.events for r in records) / max(n, 1):,.0f} per storm; {wall_s:.0f} s wall in all, "
        f"{sum(r.wall_s for r in records) / max(n, 1):.1f} s per storm (checker included); "
        f"max worker RSS {max((r.max_rss_kib for r in records), default=0) / 1024:.0f} MiB",
    ]
    agree = Counter((r.drained, r.oracle_ok) for r in records)
    lines.append(
        f"  verdicts: both clean {agree[(True, True)]}, both failing {agree[(False, False)]}, checker fails / oracle"
        f" clean {agree[(False, True)]}, checker drained / oracle failing {agree[(True, False)]}"
    )
    by_class: dict[str, list[SeedRecord]] = {}
    for r in records:
        for c in r.classes:
            by_class.setdefault(c, []).append(r)
    if by_class:
        lines.append("  finding class         seeds  stuck  lost  duplicated  seeds (first 12)")
        for c, rs in sorted(by_class.items()):
            lines.append(
                f"  {c:<20} {len(rs):>6} {sum(r.oracle['stuck'] for r in rs):>6} {sum(r.oracle['lost'] for r in rs):>5}"
                f" {sum(r.oracle['duplicated'] for r in rs):>11}  {[r.seed for r in rs][:12]}"
            )
        lines.append("  reproducible scenarios: " + ", ".join(r.repro for r in records if r.repro))
    else:
        lines.append("  no finding")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", default="0:500", help="first:end (end excluded)")
    parser.add_argument("--fault-hours", type=float, default=DEFAULTS.fault_hours)
    parser.add_argument("--healed-hours", type=float, default=DEFAULTS.healed_hours)
    parser.add_argument("--messages", type=int, default=DEFAULTS.messages)
    parser.add_argument("--faults", default="24:84", help="min:max faults per storm")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--tasks-per-worker", type=int, default=20, help="storms before a worker is replaced")
    parser.add_argument("--shrink-budget", type=int, default=DEFAULTS.shrink_budget)
    parser.add_argument("--out", default=DEFAULTS.out, help="where results, summary and scenario files go")
    parser.add_argument(
        "--summarise", metavar="RESULTS", help="only summarise a results.jsonl (e.g. of a run stopped early)"
    )
    args = parser.parse_args(argv)
    first, end = (int(x) for x in args.seeds.split(":"))
    low, high = (int(x) for x in args.faults.split(":"))
    if args.summarise:
        options = Options(args.fault_hours, args.healed_hours, args.messages, (low, high), args.shrink_budget, args.out)
        lines = Path(args.summarise).read_text(encoding="utf-8").splitlines()
        done = [SeedRecord(**json.loads(line)) for line in lines if line.strip()]
        print(
            summarise(done, options, sum(r.wall_s for r in done)).replace(" s wall in all", " s of storm wall in all")
        )
        return 0
    if args.healed_hours * HOUR < 5 * HOUR + 25 * 60_000 + 40_000:
        print("note: --healed-hours is below the 5 h 25 min 40 s drain bound: no storm can count as settled")
    options = Options(args.fault_hours, args.healed_hours, args.messages, (low, high), args.shrink_budget, args.out)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    records: list[SeedRecord] = []
    ctx = multiprocessing.get_context("spawn")  # fresh interpreters: nothing inherited, memory returned on exit
    with (
        ctx.Pool(args.jobs, maxtasksperchild=args.tasks_per_worker) as pool,
        (out / "results.jsonl").open("w", encoding="utf-8") as log,
    ):
        for record in pool.imap(_worker, [(seed, options) for seed in range(first, end)]):
            records.append(record)
            log.write(json.dumps(asdict(record)) + "\n")
            log.flush()
            if not record.drained or not record.oracle_ok:
                print(f"seed {record.seed}: {record.classes} → {record.repro}", flush=True)
            if len(records) % 25 == 0:
                print(f"  … {len(records)} / {end - first} seeds, {time.perf_counter() - started:.0f} s", flush=True)
    summary = summarise(records, options, time.perf_counter() - started)
    (out / "summary.txt").write_text(summary + "\n", encoding="utf-8")
    print(summary)
    return 0 if all(r.drained and r.oracle_ok for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
