"""The invariant checker: it accepts RocketMQ's own behaviour and catches each kind of violation.

Positive cases are small real runs; negative cases break one thing by hand (delete a stored message,
write an offset backwards, append impossible lock events) so that every invariant is shown to fail.
"""

from __future__ import annotations

import pytest

from rmqlab import (
    ConfigError,
    EventKind,
    InvariantReport,
    Lab,
    Message,
    ScriptedListener,
    Violation,
    check_invariants,
)


def _cluster(*, brokers: int = 1, queues: int = 1) -> Lab:
    lab = Lab(seed=1)
    for name in ["broker-a", "broker-b", "broker-c"][:brokers]:
        lab.add_broker(name)
    lab.create_topic("T", queues=queues)
    return lab


def test_clean_run_counts_every_message_as_consumed() -> None:
    """Three messages, one failing twice: 3 consumed, nothing else, and a readable OK report."""
    lab = _cluster()
    producer = lab.add_producer("pg")
    rules = [{"match": {"keys": "k2"}, "results": ["RECONSUME_LATER", "null", "CONSUME_SUCCESS"]}]
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=ScriptedListener(rules=rules), name="c1")
    for i in range(3):
        lab.at(1000 + i, producer.send, Message("T", f"b{i}", keys=f"k{i}"))
    lab.run(until="2m")
    report = check_invariants(lab)
    assert isinstance(report, InvariantReport) and report.ok
    counts = report.counts
    assert (counts["produced"], counts["produced_copies"], counts["consumed"], counts["in_flight"]) == (3, 3, 3, 0)
    assert (counts["dlq"], counts["lost"], counts["duplicate_consumptions"]) == (0, 0, 0)
    assert report.fates == {("group:cg", "M0001"): "consumed", ("group:cg", "M0002"): "consumed",
                            ("group:cg", "M0003"): "consumed"}  # fmt: skip
    assert str(report).splitlines()[:3] == [
        "invariants OK",
        "  produced: 3 messages, 3 stored copies (0 producer duplicates)",
        "  fates: consumed 3, dlq 0, broadcast_dropped 0, in_flight 0, stranded 0, lost 0, unsubscribed 0",
    ]


def test_always_failing_message_is_accounted_as_dlq_then_in_flight_before() -> None:
    """Before 4 h 46 min the failing message is in flight (scheduled); after, it is in %DLQ%cg."""
    lab = _cluster()
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=ScriptedListener(["RECONSUME_LATER"]), name="c1")
    lab.at("1s", producer.send, Message("T", "b"))
    lab.run(until="1h")
    early = check_invariants(lab)
    assert early.ok and early.fates[("group:cg", "M0001")] == "in_flight:scheduled"
    lab.run(until="5h")
    late = check_invariants(lab)
    assert late.ok and late.fates[("group:cg", "M0001")] == "dlq"
    assert (late.counts["dlq"], late.counts["in_flight"]) == (1, 0)


def test_broadcasting_failure_is_dropped_and_said_so() -> None:
    """BROADCASTING: the failing instance's copy is broadcast_dropped, the other instance consumed it."""
    lab = _cluster()
    producer = lab.add_producer("pg")
    for name, result in (("b1", "RECONSUME_LATER"), ("b2", "CONSUME_SUCCESS")):
        lab.add_consumer(
            "bg", subscribe={"T": "*"}, listener=ScriptedListener([result]), name=name, message_model="BROADCASTING"
        )
    lab.at("1s", producer.send, Message("T", "b"))
    lab.run(until="1m")
    report = check_invariants(lab)
    assert report.ok
    assert report.fates == {("client:b1", "M0001"): "broadcast_dropped", ("client:b2", "M0001"): "consumed"}


def test_lost_responses_make_explained_producer_duplicates() -> None:
    """A lost send response after the store: SYNC retries, two copies, consumed twice — explained."""
    lab = _cluster(brokers=2)
    producer = lab.add_producer("pg", send_which_queue_start=0)
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=ScriptedListener(), name="c1")
    lab.set_broker_fault("broker-b", lose_responses=True)
    producer.send(Message("T", "b"))
    lab.set_broker_fault("broker-b", lose_responses=False)
    lab.run(until="30s")
    report = check_invariants(lab)
    stored = [(e.actor, e.get("topic")) for e in lab.trace.of_kind(EventKind.STORED)]
    assert stored == [("broker-b", "T"), ("broker-a", "T")]
    assert report.ok, str(report)
    assert (report.counts["producer_duplicates"], report.counts["duplicate_consumptions"]) == (1, 1)


def test_orderly_expiry_race_is_counted_not_flagged() -> None:
    """o1 is mid-listener (100 s) and cut off; its broker lock expires at 61 s; it still succeeds at 101 s."""
    lab = _cluster()
    producer = lab.add_producer("pg")
    slow = ScriptedListener([{"take": "100s", "then": "SUCCESS"}], orderly=True)
    lab.add_consumer("og", subscribe={"T": "*"}, listener=slow, orderly=True, name="o1")
    lab.at("1s", producer.send, Message("T", "a"))
    lab.at("2s", lab.partition, "o1", "broker-a")
    fast = ScriptedListener(["SUCCESS"], orderly=True)
    lab.at("3s", lab.add_consumer, "og", subscribe={"T": "*"}, listener=fast, orderly=True, name="o2")
    lab.run(until="3m")
    report = check_invariants(lab)
    assert report.ok, str(report)
    consumed = [(e.time_ms, e.actor) for e in lab.trace.of_kind(EventKind.CONSUMED)]
    assert consumed == [(101_000, "consumer:o1"), (130_000, "consumer:o2")]
    assert (report.counts["expiry_races"], report.counts["duplicate_consumptions"]) == (1, 1)


# ---------------------------------------------------------------------- violations
def test_deleted_message_is_reported_lost_with_its_trace() -> None:
    """A message removed from storage before anyone consumed it breaks ``accounted``."""
    lab = _cluster()
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=ScriptedListener(), name="c1", start=False)
    producer.send(Message("T", "b"))
    lab.brokers["broker-a"].commit_log.delete_before(1)
    report = check_invariants(lab)
    assert not report.ok
    [violation] = report.violations
    assert isinstance(violation, Violation)
    assert (violation.invariant, violation.msg_id, violation.time_ms) == ("accounted", "M0001", 0)
    assert [e.kind for e in violation.trace] == [EventKind.SEND_ATTEMPT, EventKind.STORED, EventKind.SEND_RESULT]
    assert report.fates[("group:cg", "M0001")] == "lost"
    assert "[accounted] t=0 ms msg=M0001: produced to T but neither consumed" in str(report)


def test_same_consumer_moving_its_offset_back_is_flagged() -> None:
    """c1 writes offset 3 then 1 for the same queue: ``offset_monotonic``; another instance may."""
    lab = _cluster()
    broker = lab.brokers["broker-a"]
    broker.consumer_offset_manager.commit_offset("cg", "T", 0, 3, "consumer:c1")
    broker.consumer_offset_manager.commit_offset("cg", "T", 0, 2, "consumer:c2")  # handover: allowed
    broker.consumer_offset_manager.commit_offset("cg", "T", 0, 4, "consumer:c1")
    broker.consumer_offset_manager.commit_offset("cg", "T", 0, 1, "consumer:c1")
    report = check_invariants(lab)
    assert [(v.invariant, v.detail) for v in report.violations] == [
        ("offset_monotonic", "consumer:c1 moved the committed offset of cg on T@broker-a:0 back from 4 to 1")
    ]
    assert report.counts["offset_backward_allowed"] == 1


def test_two_live_lock_holders_are_flagged() -> None:
    """o2 acquiring a queue 60 000 ms after o1's renewal breaks ``single_lock_holder``; 60 001 ms does not."""
    lab = Lab(seed=1)
    lab.trace.record(0, EventKind.LOCK_ACQUIRED, "consumer:o1", None, queue="T@broker-a:0", group="og")
    lab.trace.record(60_000, EventKind.LOCK_ACQUIRED, "consumer:o2", None, queue="T@broker-a:0", group="og")
    lab.trace.record(0, EventKind.LOCK_ACQUIRED, "consumer:o1", None, queue="T@broker-a:1", group="og")
    lab.trace.record(60_001, EventKind.LOCK_ACQUIRED, "consumer:o2", None, queue="T@broker-a:1", group="og")
    report = check_invariants(lab)
    assert [(v.invariant, v.time_ms, v.detail) for v in report.violations] == [
        (
            "single_lock_holder",
            60_000,
            "consumer:o2 got the lock of T@broker-a:0 while consumer:o1 held it (renewed 60000 ms ago)",
        )
    ]


def test_a_lease_counts_from_when_the_renewal_was_asked_not_from_its_slow_answer() -> None:
    """Every answer 1 s late: c1's last renewal is asked at 41 s (the broker's lease starts then) and answered at
    42 s; c1 crashes at 50.5 s and c2 takes the queue at 101.5 s, 60.5 s into the lease: no violation (counted
    from the answer, the checker would accuse the broker of a take-over 59.5 s after the renewal)."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    lab.set_broker_fault("broker-a", response_delay_ms=1000)
    success = ScriptedListener(["SUCCESS"], orderly=True)
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=success, orderly=True, name="c1")
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=success, orderly=True, name="c2", start=8500)
    lab.at(50_500, lab.consumers["c1"].crash)
    lab.run(until="2m")
    last = lab.trace.last(EventKind.LOCK_RENEWED, actor="consumer:c1", queue="ORD@broker-a:0")
    assert (last.time_ms, last.get("asked_ms")) == (42_000, 41_000)
    taken = lab.trace.first(EventKind.LOCK_EXPIRED, queue="ORD@broker-a:0")
    assert (taken.time_ms, taken.get("previous_holder"), taken.get("new_holder")) == (101_500, "c1", "c2")
    report = check_invariants(lab)
    assert report.by_invariant() == {}


def test_a_take_over_inside_the_lease_since_the_renewal_was_asked_is_flagged() -> None:
    """The lease counts from ``asked_ms``: o2 acquiring at 61 000 after o1's renewal asked at 1000 (answered at
    2000) is inside the 60 s lease whatever the network did, and is flagged; at 61 001 it is not."""
    lab = Lab(seed=1)
    lab.trace.record(2000, EventKind.LOCK_RENEWED, "consumer:o1", None, queue="T@broker-a:0", group="og",
                     asked_ms=1000)  # fmt: skip
    lab.trace.record(61_000, EventKind.LOCK_ACQUIRED, "consumer:o2", None, queue="T@broker-a:0", group="og",
                     asked_ms=61_000)  # fmt: skip
    lab.trace.record(2000, EventKind.LOCK_RENEWED, "consumer:o1", None, queue="T@broker-a:1", group="og",
                     asked_ms=1000)  # fmt: skip
    lab.trace.record(61_001, EventKind.LOCK_ACQUIRED, "consumer:o2", None, queue="T@broker-a:1", group="og",
                     asked_ms=61_001)  # fmt: skip
    report = check_invariants(lab)
    assert [(v.time_ms, v.detail) for v in report.violations if v.invariant == "single_lock_holder"] == [
        (61_000, "consumer:o2 got the lock of T@broker-a:0 while consumer:o1 held it (renewed 60000 ms ago)")
    ]


def test_unexplained_redelivery_and_duplicate_are_flagged() -> None:
    """The same stored copy consumed twice with nothing in between breaks ``redelivery`` and ``duplicate``."""
    lab = _cluster()
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=ScriptedListener(), name="c1")
    lab.at("1s", producer.send, Message("T", "b"))
    lab.run(until="2s")
    delivered = lab.trace.first(EventKind.DELIVERED, msg_id="M0001")
    consumed = lab.trace.first(EventKind.CONSUMED, msg_id="M0001")
    lab.trace.record(2000, EventKind.DELIVERED, "consumer:c1", "M0001", **delivered.data)
    lab.trace.record(2000, EventKind.CONSUMED, "consumer:c1", "M0001", **consumed.data)
    report = check_invariants(lab)
    assert sorted(report.by_invariant().items()) == [("duplicate", 1), ("redelivery", 1)]


def test_consuming_without_the_lock_is_flagged() -> None:
    """An orderly consumer starting a listener on a queue it never locked breaks ``consume_under_lock``."""
    lab = _cluster()
    lab.add_consumer("og", subscribe={"T": "*"}, listener=ScriptedListener(["SUCCESS"], orderly=True),
                     orderly=True, name="o1", start=False)  # fmt: skip
    lab.trace.record(5, EventKind.DELIVERED, "consumer:o1", "M0009", group="og", topic="T",
                     queue="T@broker-a:0", queue_offset=0, reconsume_times=0, batch=1)  # fmt: skip
    report = check_invariants(lab)
    assert [(v.invariant, v.msg_id) for v in report.violations] == [("consume_under_lock", "M0009")]


def test_checker_needs_the_trace() -> None:
    """With ``trace=False`` there is nothing to check: a ConfigError says so."""
    with pytest.raises(ConfigError, match=r"trace=False is not allowed: expected a Lab\(trace=True\)"):
        check_invariants(Lab(trace=False))


def test_a_redelivery_by_an_instance_that_owned_nothing_is_flagged_even_just_after_a_fault() -> None:
    """c2 never started, so it owned no queue; a delivery of c1's message by c2 is a bug whatever happened just
    before. The old 60 s look-back took the fault 30 s before c1's delivery as the start of a two-owner overlap
    and called this OK; the ownership rule (both owned the queue by their own rebalances) flags it."""
    lab = _cluster()
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=ScriptedListener(), name="c1")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=ScriptedListener(), name="c2", start=False)
    lab.at("10s", lab.set_broker_fault, "broker-a", response_delay_ms=0)  # a FAULT event, and nothing changes
    lab.at("40s", producer.send, Message("T", "b"))
    lab.run(until="41s")
    delivered = lab.trace.first(EventKind.DELIVERED, msg_id="M0001")
    assert (delivered.time_ms, delivered.actor) == (40_000, "consumer:c1")
    lab.trace.record(41_000, EventKind.DELIVERED, "consumer:c2", "M0001", **delivered.data)
    report = check_invariants(lab)
    [violation] = [v for v in report.violations if v.invariant == "redelivery"]
    assert violation.detail == (
        "T@broker-a:0 offset 0 delivered again to group:cg with no local retry, suspend, rebalance, crash, lock"
        " change or fault in between, and consumer:c1 and consumer:c2 did not both own the queue by their rebalances"
    )
    assert [e.kind for e in violation.trace][-2:] == [EventKind.CONSUMED, EventKind.DELIVERED]


def test_a_message_retried_thousands_of_times_is_checked_in_linear_memory() -> None:
    """bench.checker_scale's worst case (one message, a retry copy and a local retry per cut/heal cycle): the
    checker accepts it, and four times the cycles need about four times the checker's memory. Before, every
    local retry was appended to a list per earlier copy (copies × retries): 2.6 → 28.5 MiB for 300 → 1,200."""
    import tracemalloc

    from bench.checker_scale import build

    peaks = []
    for cycles in (150, 600):
        lab = build(cycles)
        tracemalloc.start()
        report = check_invariants(lab)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert report.ok, str(report)
        assert report.counts["redeliveries"] == 2 * cycles
        assert report.fates == {("group:cg", "M0001"): "in_flight:process_queue"}
    assert peaks[1] < 6 * peaks[0], peaks


def test_a_delayed_copy_delivered_again_after_a_broker_crash_explains_the_duplicate() -> None:
    """examples/delay_offset_lost_in_crash: the crash at 9,999 ms loses the schedule service's delayOffset, so
    "late" (level 2) is put on TopicTest again after the restart and consumed twice: 4.9.7's at-least-once, not a
    bug. The old checker called it an unexplained duplicate (a storm found it too: a %RETRY% copy replayed)."""
    from pathlib import Path

    from rmqlab import load_scenario

    lab = load_scenario(Path(__file__).parent.parent / "examples" / "delay_offset_lost_in_crash.yaml").run()
    delivered = [(e.time_ms, e.msg_id) for e in lab.trace.of_kind(EventKind.DELAY_DELIVERED)]
    assert delivered == [(5000, "M0001"), (13000, "M0001"), (13000, "M0002")]
    report = check_invariants(lab)
    assert report.ok, str(report)
    assert (report.counts["consumed"], report.counts["duplicate_consumptions"]) == (2, 1)
