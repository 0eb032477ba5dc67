"""``consumeMessageDirectly`` and ``cloneGroupOffset`` (issue 34 item 6), as 4.9.7 does them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rmqlab import ConfigError, ConsumeConcurrentlyStatus, EventKind, Lab, Message, MessageQueue, load_scenario

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _dead_letter_lab(listener: Any) -> Lab:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", name="c1", subscribe={"T": "*"}, listener=listener, max_reconsume_times=0)
    lab.at(0, producer.send, Message("T", "refund-1"))
    lab.run(until=5000)
    assert [e.msg_id for e in lab.trace.of_kind(EventKind.DEAD_LETTERED)] == ["M0001"]
    return lab


def test_a_dlq_message_is_consumed_directly_and_stays_where_it_is() -> None:
    seen: list[tuple[str, str, int]] = []

    def listener(msgs: Any, ctx: Any) -> ConsumeConcurrentlyStatus:
        seen.append((msgs[0].msg_id, msgs[0].topic, msgs[0].reconsume_times))
        return (
            ConsumeConcurrentlyStatus.RECONSUME_LATER if len(seen) == 1 else ConsumeConcurrentlyStatus.CONSUME_SUCCESS
        )

    lab = _dead_letter_lab(listener)
    offsets = {k: v for k, v in lab.brokers["broker-a"].consumer_offsets.items() if k[1] == "T"}
    events = len(lab.trace)
    assert lab.consume_message_directly("c1", "broker-a", "%DLQ%cg", "M0001") == "CR_SUCCESS"
    assert seen[-1] == ("M0001", "%DLQ%cg", 1)  # the DLQ copy, its own topic (resetRetryAndNamespace: %RETRY% only)
    new = lab.trace[events:]
    assert [(e.kind, e.actor, e.msg_id, e.get("result"), e.get("topic")) for e in new] == [
        (EventKind.ADMIN, "broker-a", "M0001", "CR_SUCCESS", "%DLQ%cg")
    ]
    lab.run(until=60_000)
    after = {k: v for k, v in lab.brokers["broker-a"].consumer_offsets.items() if k[1] == "T"}
    assert after == offsets == {("cg", "T", 0): 1}  # no offset committed, nothing sent back
    assert not [k for k in lab.brokers["broker-a"].consumer_offsets if k[1].startswith("%DLQ%")]
    assert len(lab.trace.of_kind(EventKind.DEAD_LETTERED)) == 1


@pytest.mark.parametrize(
    ("outcome", "result"),
    [
        (ConsumeConcurrentlyStatus.RECONSUME_LATER, "CR_LATER"),
        (None, "CR_RETURN_NULL"),
        (ValueError("refund service down"), "CR_THROW_EXCEPTION"),
    ],
)
def test_the_direct_consume_result_is_the_cmresult_of_the_listener_outcome(outcome: Any, result: str) -> None:
    calls: list[int] = []

    def listener(msgs: Any, ctx: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            return ConsumeConcurrentlyStatus.RECONSUME_LATER
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    lab = _dead_letter_lab(listener)
    assert lab.consume_message_directly("c1", "broker-a", "%DLQ%cg", "M0001") == result
    admin = lab.trace.of_kind(EventKind.ADMIN)[-1]
    if isinstance(outcome, Exception):
        assert admin.get("remark") == "ValueError: refund service down"


def test_consume_directly_needs_the_message_and_an_online_consumer() -> None:
    lab = _dead_letter_lab(lambda msgs, ctx: ConsumeConcurrentlyStatus.RECONSUME_LATER)
    with pytest.raises(ConfigError, match=r"msg_id='M0009' is not allowed: expected a message stored on broker-a in"):
        lab.consume_message_directly("c1", "broker-a", "%DLQ%cg", "M0009")
    lab.consumer("c1").shutdown()
    lab.run(until=10_000)
    with pytest.raises(
        ConfigError, match=r"consumer='c1' is not allowed: expected a consumer of cg online at broker-a"
    ):
        lab.consume_message_directly("c1", "broker-a", "%DLQ%cg", "M0001")


def test_clone_group_offset_replaces_the_destination_map_with_a_copy() -> None:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=2)
    queue = [MessageQueue("T", "broker-a", i) for i in range(2)]
    lab.update_consumer_offset("src", queue[0], 7)
    lab.update_consumer_offset("dest", queue[0], 2)
    lab.update_consumer_offset("dest", queue[1], 5)  # src has no offset of queue 1: put() drops dest's
    lab.clone_group_offset("src", "dest", "T")
    offsets = lab.brokers["broker-a"].consumer_offsets
    assert {k: v for k, v in offsets.items() if k[0] == "dest"} == {("dest", "T", 0): 7}
    admin = lab.trace.of_kind(EventKind.ADMIN)[-1]
    assert (admin.get("command"), admin.get("cloned")) == ("cloneGroupOffset", {0: 7})


def test_clone_group_offset_of_a_group_without_offsets_changes_nothing() -> None:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    lab.update_consumer_offset("dest", MessageQueue("T", "broker-a", 0), 3)
    lab.clone_group_offset("nobody", "dest", "T")
    assert lab.brokers["broker-a"].consumer_offsets == {("dest", "T", 0): 3}


def test_the_example_redrives_the_dead_letter_and_the_clone_keeps_the_new_group_from_replaying() -> None:
    lab = load_scenario(EXAMPLES / "dlq_redrive.yaml").run()
    admin = [(e.time_ms, e.get("command"), e.get("result")) for e in lab.trace.of_kind(EventKind.ADMIN)]
    assert admin == [(20_000, "consumeMessageDirectly", "CR_SUCCESS"), (25_000, "cloneGroupOffset", None)]
    assert [e.actor for e in lab.trace.of_kind(EventKind.DELIVERED)] == ["consumer:c1", "consumer:c1"]
