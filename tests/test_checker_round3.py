"""Checker false alarms found by an independent oracle (issue 34 item 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rmqlab import EventKind, Lab, Message, ScriptedListener, check_invariants, load_scenario

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_an_offset_moved_back_by_a_fresh_start_after_a_failed_offset_query_is_a_replay_not_a_violation() -> None:
    """``examples/offset_replay_after_failed_query.yaml``: the restarted c1 reads −1 (QUERY_CONSUMER_OFFSET fails),
    starts at 0 and commits 1 over the broker's 3. Before, ``offset_monotonic`` flagged it; it only replays."""
    lab = load_scenario(EXAMPLES / "offset_replay_after_failed_query.yaml").run()
    commits = [
        (e.time_ms, e.get("offset"))
        for e in lab.trace.of_kind(EventKind.OFFSET_PERSISTED)
        if e.get("queue") == "T@broker-a:0"
    ]
    assert commits == [(1000, 1), (1000, 2), (10_000, 3), (22_000, 1), (32_000, 3)]
    report = check_invariants(lab)
    assert report.ok, str(report)
    assert report.counts["offset_backward_allowed"] == 1
    assert (report.counts["consumed"], report.counts["duplicate_consumptions"], report.counts["lost"]) == (3, 3, 0)


def test_the_same_instance_moving_its_offset_back_without_a_fresh_start_is_still_flagged() -> None:
    """The exemption needs a REBALANCED that added the queue after the previous commit: a move back in one
    ProcessQueue's life is still an ``offset_monotonic`` violation."""
    lab = load_scenario(EXAMPLES / "offset_replay_after_failed_query.yaml").run()
    consumer = lab.consumer("c1")
    mq = next(iter(consumer.process_queue_table))
    if mq.topic != "T":
        mq = next(m for m in consumer.process_queue_table if m.topic == "T")
    consumer.offset_store.update_offset(mq, 1, False)
    consumer.offset_store.persist(mq)
    report = check_invariants(lab)
    assert [v.invariant for v in report.violations] == ["offset_monotonic"]


def _backlog_lab(until_ms: int) -> Any:
    """400 messages on one queue, one consume thread: each fails at once, then its first retry takes 60 s and fails
    again, then succeeds. The %RETRY% backlog needs ~6.7 h, past the 5 h 25 min 40 s drain bound."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    listener = ScriptedListener(["RECONSUME_LATER", {"take": "60s", "then": "RECONSUME_LATER"}, "CONSUME_SUCCESS"])
    lab.add_consumer(
        "cg", name="c1", subscribe={"T": "*"}, consume_thread_min=1, consume_thread_max=1, listener=listener
    )
    for i in range(400):
        lab.at(1000, producer.send, Message("T", f"m{i}"))
    return lab.run(until=until_ms)


def test_a_retry_parked_with_its_due_time_ahead_behind_a_long_backlog_is_in_flight_not_stuck() -> None:
    """At 5 h 36 min 20 s the run is settled by the drain bound, but the backlog is still being worked through:
    M0336 just failed its 60 s retry and its next copy waits 30 s in SCHEDULE_TOPIC_XXXX (level 4), due 21 s after
    the run's end. Before, the checker called it stuck (a ``settled`` violation)."""
    lab = _backlog_lab(int(5.6 * 3_600_000) + 20_000)
    ahead = [
        (e.msg_id, e.get("level"), e.get("due_ms"))
        for e in lab.trace.of_kind(EventKind.SCHEDULED)
        if e.get("due_ms") > lab.now
    ]
    assert (lab.now, ahead) == (20_180_000, [("M0336", 4, 20_201_000)])
    report = check_invariants(lab)
    assert report.settled
    assert report.ok, str(report)
    assert report.fates[("group:cg", "M0336")] == "in_flight:scheduled"
    assert report.counts["in_flight"] == 400 - report.counts["consumed"]


def test_a_sync_send_that_times_out_after_the_store_is_a_failure_and_a_duplicate_never_a_loss() -> None:
    """``examples/sync_timeout_after_store.yaml``: slow-1 (M0001) is stored at 2 s and consumed, its producer times
    out at 5 001 ms with the budget spent; lost-1 (M0002) is stored on broker-a, the response is lost, and the
    second attempt stores it again on broker-b. The checker and the storm campaign's oracle agree: nothing lost."""
    from bench.storm_campaign import oracle

    lab = load_scenario(EXAMPLES / "sync_timeout_after_store.yaml").run()
    outcomes = [
        (e.time_ms, e.msg_id, e.get("attempt"), e.get("outcome")) for e in lab.trace.of_kind(EventKind.SEND_RESULT)
    ]
    assert outcomes == [
        (5001, "M0001", 1, "RemotingTimeoutException: wait response timeout 3000ms"),
        (12_000, "M0002", 1, "RemotingException: connection reset before the response arrived"),
        (12_000, "M0002", 2, "SUCCESS"),
    ]
    assert [(s.msg_id, s.error) for s in lab.sends] == [
        ("M0001", "RemotingTooMuchRequestException: sendDefaultImpl call timeout"),
        ("M0002", None),
    ]
    stored = [(e.time_ms, e.msg_id, e.actor) for e in lab.trace.of_kind(EventKind.STORED)]
    assert stored == [(2000, "M0001", "broker-a"), (12_000, "M0002", "broker-a"), (12_000, "M0002", "broker-b")]
    report = check_invariants(lab)
    assert report.ok, str(report)
    assert report.fates == {("group:cg", "M0001"): "consumed", ("group:cg", "M0002"): "consumed"}
    counts = report.counts
    assert (counts["lost"], counts["producer_duplicates"], counts["duplicate_consumptions"]) == (0, 1, 1)
    verdict = oracle(lab)
    assert (verdict.produced, verdict.stuck, verdict.lost, verdict.duplicated) == (2, 0, 0, 1)
