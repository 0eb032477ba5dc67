"""Fault storms: long virtual runs under repeated faults, then a heal — and not one message lost.

Each storm runs two groups on a three-broker cluster: ``cg`` (three concurrent consumers, some
messages failing a few times, a few always → DLQ) and ``og`` (two orderly consumers fed by a hash
selector). Every hour brings the same cycle of faults: a broker down for 5 min, a slow broker (4 s
responses, past the 3 s send timeout), send-back refused by a broker (fallback path), a consumer
crash and restart, and an orderly consumer cut off from every broker long enough for its 60 s locks
to expire and be taken over. Afterwards everything heals and the run continues until every message has a final fate.

The hourly cycle above leaves ``lose_responses`` out; the random mixed storms at the end
(``bench/fault_storms.py``, a fixed sample of ``make storms``' campaign) include it, and are checked with the
settled-run rule (once every fault has healed and the run stayed quiet for the drain bound, nothing may be left
in flight) and by the campaign's independent oracle (``bench/storm_campaign.py``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from bench import fault_storms, storm_campaign
from rmqlab import (
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyStatus,
    EventKind,
    Lab,
    Message,
    SelectMessageQueueByHash,
    check_invariants,
    load_scenario,
)

HOUR = 3_600_000


def concurrent_listener(msgs: list[Any], ctx: Any) -> ConsumeConcurrentlyStatus:
    """Message n fails ``n % 4 == 0 ? 2 : 0`` times; every 500th always fails (→ DLQ after 16 retries)."""
    n = int(msgs[0].msg_id[1:])
    if n % 500 == 0:
        return ConsumeConcurrentlyStatus.RECONSUME_LATER
    failures = 2 if n % 4 == 0 else 0
    if msgs[0].reconsume_times < failures:
        return ConsumeConcurrentlyStatus.RECONSUME_LATER
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS


def orderly_listener(msgs: list[Any], ctx: Any) -> ConsumeOrderlyStatus:
    """Every 7th message is suspended once (local retry after 1 s), then succeeds."""
    n = int(msgs[0].msg_id[1:])
    if n % 7 == 0 and msgs[0].reconsume_times == 0:
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
    return ConsumeOrderlyStatus.SUCCESS


def build_storm(messages: int, hours: int) -> Lab:
    """Schedule ``messages`` sends evenly over ``hours`` with the hourly fault cycle; return the lab."""
    lab = Lab(seed=2024)
    for name in ("broker-a", "broker-b", "broker-c"):
        lab.add_broker(name)
    lab.create_topic("T", queues=4)
    lab.create_topic("O", queues=4)
    producer = lab.add_producer("pg")
    consumers = {}
    for name in ("c1", "c2", "c3"):
        consumers[name] = lab.add_consumer("cg", subscribe={"T": "*"}, listener=concurrent_listener, name=name)
    for name in ("o1", "o2"):
        consumers[name] = lab.add_consumer(
            "og", subscribe={"O": "*"}, listener=orderly_listener, orderly=True, name=name
        )
    gap = hours * HOUR // messages
    for i in range(messages):
        at = 1000 + i * gap
        if i % 3 == 2:
            msg = Message("O", f"o{i}", keys=f"order-{i % 11}")
            lab.at(at, producer.send_with_selector, msg, SelectMessageQueueByHash, i % 11)
        else:
            lab.at(at, producer.send, Message("T", f"t{i}", keys=f"k{i}"))
    for h in range(hours):
        base = h * HOUR
        lab.at(base + 5 * 60_000, lab.broker_down, "broker-a")
        lab.at(base + 10 * 60_000, lab.broker_up, "broker-a")
        lab.at(base + 15 * 60_000, lab.set_broker_fault, "broker-b", response_delay_ms=4000)
        lab.at(base + 25 * 60_000, lab.set_broker_fault, "broker-b", response_delay_ms=0)
        lab.at(base + 30 * 60_000, lab.set_broker_fault, "broker-c", reject_send_back=True)
        lab.at(base + 50 * 60_000, lab.set_broker_fault, "broker-c", reject_send_back=False)
        lab.at(base + 35 * 60_000, consumers["c2"].crash)
        lab.at(base + 37 * 60_000, consumers["c2"].start)
        for name in ("broker-a", "broker-b", "broker-c"):  # o1 isolated for 3 min: its channels and locks expire
            lab.at(base + 40 * 60_000, lab.partition, "o1", name)
            lab.at(base + 43 * 60_000, lab.partition, "o1", name, heal=True)
    return lab


def run_storm(messages: int, hours: int, settle_hours: int = 6) -> tuple[Lab, float]:
    """Build, run the storm, let it settle; returns the lab and the wall time in seconds."""
    started = time.perf_counter()
    lab = build_storm(messages, hours)
    lab.run(until=(hours + settle_hours) * HOUR)
    return lab, time.perf_counter() - started


def assert_no_loss(lab: Lab) -> Any:
    """Every stored message is consumed or in its group's DLQ; nothing in flight, nothing lost."""
    report = check_invariants(lab)
    assert report.ok, str(report)
    counts = report.counts
    assert (counts["lost"], counts["in_flight"], counts["unsubscribed"]) == (0, 0, 0), str(report)
    assert counts["consumed"] + counts["dlq"] == counts["produced"], str(report)
    return report


@pytest.mark.slow
def test_two_hour_storm_loses_nothing() -> None:
    """1,000 messages over 2 h of faults: every one consumed or dead-lettered, each exactly accounted."""
    lab, _ = run_storm(1000, 2)
    report = assert_no_loss(lab)
    first: dict[str, Any] = {}
    for future in lab.sends:  # later futures with a known id are the consumers' send-back fallbacks
        first.setdefault(future.msg_id, future)
    assert len(first) == 1000 and len(lab.sends) > 1000
    failed = {msg for msg, future in first.items() if future.error is not None}
    stored_ids = {msg for (_, msg) in report.fates}
    assert stored_ids | failed == set(first)  # every send stored something or failed visibly
    for msg in sorted(stored_ids & failed):  # failed for the app, yet stored: the response timed out
        outcomes = [e.get("outcome", "") for e in lab.trace.for_message(msg) if e.kind is EventKind.SEND_RESULT]
        assert any(o.startswith("RemotingTimeoutException") for o in outcomes), (msg, outcomes)
    dlq = sorted(msg for (audience, msg), fate in report.fates.items() if fate == "dlq")
    assert dlq == ["M0500", "M1000"][: len(dlq)] and "M0500" in dlq
    faults = {e.get("fault") for e in lab.trace.of_kind(EventKind.FAULT)}
    assert faults == {"broker_down", "broker_up", "broker_fault", "partition", "heal"}
    crashes = [e.time_ms for e in lab.trace.of_kind(EventKind.LIFECYCLE) if e.get("event") == "crash"]
    assert crashes == [35 * 60_000, HOUR + 35 * 60_000]


@pytest.mark.slow
def test_ten_thousand_messages_over_24_hours(capsys: pytest.CaptureFixture[str]) -> None:
    """The long storm: 10,000 messages, 24 virtual hours of hourly faults, then 6 h to settle."""
    lab, wall = run_storm(10_000, 24)
    check_started = time.perf_counter()
    report = assert_no_loss(lab)
    check_wall = time.perf_counter() - check_started
    assert len({future.msg_id for future in lab.sends}) == 10_000
    assert len(lab.trace.of_kind(EventKind.LIFECYCLE)) >= 5 + 2 * 24  # five starts, 24 crashes + restarts
    takeovers = [e for e in lab.trace.of_kind(EventKind.LOCK_EXPIRED) if e.get("new_holder") == "o2"]
    assert len({e.time_ms // HOUR for e in takeovers}) == 24  # o2 takes o1's orderly queues every hour
    with capsys.disabled():
        print(
            f"\n24 h storm: {len(lab.trace)} events, run {wall:.1f} s wall, check {check_wall:.1f} s wall; "
            f"produced {report.counts['produced']}, consumed {report.counts['consumed']}, dlq {report.counts['dlq']}, "
            f"duplicates {report.counts['duplicate_consumptions']}, expiry races {report.counts['expiry_races']}, "
            f"lock take-overs {len(takeovers)}"
        )


SAMPLE_SEEDS = (11, 49, 56, 84)
"""Random storms (1 h of faults, 40 messages, then 6 h healed) whose plans each hold all seven fault kinds and a
hanging listener (a concurrent call past the 15 min consumeTimeout, or an orderly one past the 60 s lease)."""


@pytest.mark.parametrize("seed", SAMPLE_SEEDS)
def test_a_random_mixed_fault_storm_with_lost_responses_drains(seed: int) -> None:
    """Broker crashes, partitions, lost responses, slow brokers (up to 40 s, past the 30 s pull timeout),
    refused send-backs, consumer crashes, rebalance churn, slow and hanging listeners; then 6 h healed, past
    the 5 h 25 min 40 s drain bound: the run is settled and every message is consumed or dead-lettered."""
    plan = fault_storms.storm_plan(seed, fault_hours=1, messages=40)
    assert {f.kind for f in plan.faults} == set(fault_storms.FAULT_KINDS)
    hanging = [
        i for i, (_, topic, _) in enumerate(plan.sends) if fault_storms.behaviour(seed, f"{topic.lower()}{i}").hang_ms
    ]
    assert hanging
    result = fault_storms.run_storm(seed, fault_hours=1, healed_hours=6, messages=40)
    report = result.report
    assert result.drained, str(report)
    assert report.settled and report.counts["produced"] == 40, str(report)
    assert report.counts["consumed"] + report.counts["dlq"] == 40, str(report)
    faults = {e.get("lose_responses") for e in result.lab.trace.of_kind(EventKind.FAULT)}
    assert True in faults
    verdict = storm_campaign.oracle(result.lab)
    assert (verdict.produced, verdict.stuck, verdict.lost) == (40, 0, 0)


def test_a_storm_is_a_scenario_file_that_replays_the_same_run(tmp_path: Path) -> None:
    """What the campaign writes for a failing seed is the storm itself: the JSON file, loaded back, gives the
    same trace byte for byte as the storm built in memory."""
    plan = fault_storms.storm_plan(49, fault_hours=1, messages=40)
    data = fault_storms.storm_scenario(plan, run_until_ms=2 * HOUR)
    path = tmp_path / "storm-49.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    from_file = load_scenario(path).run()
    in_memory = fault_storms.build_storm(49, fault_hours=1, healed_hours=1, messages=40).run(until=2 * HOUR)
    assert from_file.trace.to_jsonl() == in_memory.trace.to_jsonl()
    assert len(from_file.trace) > 1000


def test_the_oracle_tells_stuck_from_lost_from_done() -> None:
    """The campaign's independent oracle: a copy waiting above the committed offset is stuck, a copy deleted
    before anyone consumed it is lost, a consumed one is done; a second success counts as duplicated."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    consumer = lab.add_consumer(
        "cg", subscribe={"T": "*"}, listener=lambda m, c: ConsumeConcurrentlyStatus.CONSUME_SUCCESS, name="c1"
    )
    lab.at(1000, producer.send, Message("T", "a"))
    lab.at(2000, consumer.crash)
    lab.at(3000, producer.send, Message("T", "b"))
    lab.at(3001, producer.send, Message("T", "c"))
    lab.run(until=4000)
    assert storm_campaign.oracle(lab) == storm_campaign.Oracle(produced=3, stuck=2, lost=0, duplicated=0)
    lab.brokers["broker-a"].commit_log.delete_before(3)  # the last two copies vanish from the store
    assert storm_campaign.oracle(lab) == storm_campaign.Oracle(produced=3, stuck=0, lost=2, duplicated=0)


def test_shrinking_keeps_only_what_the_finding_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Delta debugging over faults, then sends: with a finding that needs exactly fault #3 and send #4, the
    shrunk plan keeps those two and nothing else, within the re-run budget."""
    plan = fault_storms.storm_plan(7, fault_hours=2, messages=12, fault_count=(8, 8))
    needed_fault, needed_send = plan.faults[3], 4  # message 4 is "t4" (every third is an orderly "o…")

    def judge(data: dict[str, Any], seed: int) -> tuple[None, None, list[str]]:
        bodies = {s["body"] for s in data["sends"]}
        fault = needed_fault
        on = [f for f in data["faults"] if f["at"] == fault.start]
        return None, None, ["settled"] if on and f"t{needed_send}" in bodies else []

    monkeypatch.setattr(storm_campaign, "_judge", judge)
    options = storm_campaign.Options(fault_hours=2, healed_hours=6, messages=12, fault_count=(8, 8), shrink_budget=40)
    small, runs = storm_campaign.shrink(plan, options, "settled")
    assert small.faults == (needed_fault,)
    assert small.send_indexes() == (needed_send,)
    assert runs <= 80


def test_a_drained_seed_writes_nothing(tmp_path: Path) -> None:
    """run_seed on a drained storm: a record with no finding class, and no scenario file."""
    options = storm_campaign.Options(
        fault_hours=1, healed_hours=6, messages=40, fault_count=(4, 14), out=str(tmp_path / "storms")
    )
    record = storm_campaign.run_seed(84, options)
    assert (record.seed, record.drained, record.settled, record.classes, record.repro) == (84, True, True, [], None)
    assert record.oracle == {"produced": 40, "stuck": 0, "lost": 0, "duplicated": record.oracle["duplicated"]}
    assert not (tmp_path / "storms").exists()
