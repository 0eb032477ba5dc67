"""A send and a consumer start at the same millisecond: a scenario's ``start_order`` says which comes first.

A consumer's start is a fault-registry call, so by the ordering rule (rmqlab.core.scheduler) it runs first in its
millisecond (``before_sends``, the default); ``after_sends`` starts it after that millisecond's faults and sends.

What the order changes is pinned to 4.9.7. A new group's CONSUME_FROM_LAST_OFFSET start
(``RebalancePushImpl.computePullFromWhereWithException``) reads the broker's offset first: while offset 0 is still in
the queue the broker answers 0 (``ConsumerManageProcessor.queryConsumerOffset``: ``minOffset <= 0 &&
!checkInDiskByConsumeOffset(topic, queueId, 0)``), so the first message is consumed whichever came first. Only when
that answer is an error (``RemoteBrokerOffsetStore.readOffset``: -1) does the group start at the max offset it
sees, and then the message stored before the start is skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rmqlab import EventKind, Lab, ScenarioError, load_scenario

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "start_order_same_ms.yaml"


def _scenario(order: str | None, *, query_fails: bool, at: str = "1s") -> dict[str, Any]:
    consumer: dict[str, Any] = {"group": "cg", "name": "c1", "subscribe": {"T": "*"}, "start": at}
    if order is not None:
        consumer["start_order"] = order
    return {
        "name": "t",
        "seed": 3,
        "brokers": ["broker-a"],
        "topics": [{"name": "T", "queues": 1}],
        "producers": [{"name": "pg"}],
        "consumers": [consumer],
        "sends": [
            {"at": at, "producer": "pg", "topic": "T", "body": "first"},
            {"at": "5s", "producer": "pg", "topic": "T", "body": "second"},
        ],
        "faults": [{"at": 0, "kind": "offset_query_failure", "broker": "broker-a"}] if query_fails else [],
        "run_until": "10s",
    }


def _run(order: str | None, *, query_fails: bool, at: str = "1s") -> Lab:
    return load_scenario(_scenario(order, query_fails=query_fails, at=at)).run()


def _delivered(lab: Lab) -> list[tuple[int, str, int]]:
    return [(e.time_ms, e.msg_id or "", e.get("queue_offset")) for e in lab.trace.where(EventKind.DELIVERED)]


@pytest.mark.parametrize("at", ["0", "1s"])
def test_the_start_runs_before_the_send_by_default_and_after_it_when_asked(at: str) -> None:
    for order, first in (
        (None, EventKind.LIFECYCLE),
        ("before_sends", EventKind.LIFECYCLE),
        ("after_sends", EventKind.STORED),
    ):
        lab = _run(order, query_fails=False, at=at)
        same_ms = [e.kind for e in lab.trace.at(at, EventKind.LIFECYCLE, EventKind.STORED)]
        assert same_ms[0] is first, order


@pytest.mark.parametrize("order", ["before_sends", "after_sends"])
def test_a_fresh_queue_answers_0_so_the_first_message_is_consumed_either_way(order: str) -> None:
    lab = _run(order, query_fails=False)
    assert _delivered(lab) == [(1_000, "M0001", 0), (5_000, "M0002", 1)]
    assert lab.trace.first(EventKind.OFFSET_UPDATED, queue="T@broker-a:0").get("previous") == 0  # the broker's 0


def test_a_failed_offset_query_skips_the_message_stored_before_the_start() -> None:
    """-1 from readOffset: the group starts at the max offset it sees, 0 before the send, 1 after it."""
    assert _delivered(_run("before_sends", query_fails=True)) == [(1_000, "M0001", 0), (5_000, "M0002", 1)]
    assert _delivered(_run("after_sends", query_fails=True)) == [(5_000, "M0002", 1)]


def test_the_example_shows_both_orders_side_by_side() -> None:
    lab = load_scenario(EXAMPLE).run()
    by_consumer = {
        actor: [(e.time_ms, e.msg_id) for e in lab.trace.where(EventKind.DELIVERED, actor=actor)]
        for actor in ("consumer:c1", "consumer:c2")
    }
    assert by_consumer == {
        "consumer:c1": [(1_000, "M0001"), (5_000, "M0002")],
        "consumer:c2": [(5_000, "M0002")],
    }


def test_start_order_needs_a_start_time() -> None:
    data = _scenario("after_sends", query_fails=False)
    data["consumers"][0]["start"] = None
    with pytest.raises(
        ScenarioError, match=r"^consumers\[0\]\.start_order='after_sends' is not allowed: expected only with"
    ):
        load_scenario(data)


def test_start_order_is_one_of_two_words() -> None:
    with pytest.raises(
        ScenarioError, match=r"^consumers\[0\]\.start_order='later' is not allowed: expected one of before_sends"
    ):
        load_scenario(_scenario("later", query_fails=False))


def test_an_after_sends_start_runs_after_a_fault_of_its_millisecond() -> None:
    """A consumer_crash at the start millisecond finds the consumer not started yet (nothing to crash); the start
    follows, and the message is consumed. The scenario's lifecycle check walks them in the same order."""
    data = _scenario("after_sends", query_fails=False)
    data["faults"] = [{"at": "1s", "kind": "consumer_crash", "consumer": "c1"}]
    lab = load_scenario(data).run()
    assert [e.get("event") for e in lab.trace.where(EventKind.LIFECYCLE, actor="consumer:c1")] == ["start"]
    assert _delivered(lab) == [(1_000, "M0001", 0), (5_000, "M0002", 1)]


def test_a_restart_before_an_after_sends_start_is_refused() -> None:
    data = _scenario("after_sends", query_fails=False)
    data["faults"] = [{"at": "1s", "kind": "consumer_restart", "consumer": "c1"}]
    with pytest.raises(ScenarioError, match=r"c1 has not started by then"):
        load_scenario(data)
