"""Checker false alarms found by an independent oracle (issue 34 item 3)."""

from __future__ import annotations

from pathlib import Path

from rmqlab import EventKind, check_invariants, load_scenario

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
