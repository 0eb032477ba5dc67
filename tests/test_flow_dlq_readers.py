"""A dead letter consumed by a second group (lab 04's operator ops1, group dlq-ops, reading ``%DLQ%cg``) gets a
token in that group's "consumed" tray, and the end caption counts it apart from cg's consumed messages (revC
defect 5: the tray stayed empty and the end read "1 consumed")."""

from __future__ import annotations

from rmqlab.widgets.controller import Controller
from rmqlab.widgets.flow_view import flow_view_model

from rmqlab import ConsumeConcurrentlyStatus, Lab, Message

OK, LATER = ConsumeConcurrentlyStatus.CONSUME_SUCCESS, ConsumeConcurrentlyStatus.RECONSUME_LATER


def resend_lab() -> Lab:
    """Lab 04's picture: refund 17 is dead-lettered; at 30 s ops1 (dlq-ops) reads %DLQ%cg and re-sends it."""
    fixed: list[bool] = []
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda msgs, ctx: OK if fixed else LATER,
                     name="c1", max_reconsume_times=1)  # fmt: skip
    lab.at("1s", producer.send, Message("TopicTest", "refund 17", keys="order-17"))

    def resend_each(msgs, ctx):  # type: ignore[no-untyped-def]
        for m in msgs:
            lab.at(lab.now + 1_000, producer.send, Message(m.properties["RETRY_TOPIC"], m.body, keys=m.keys))
        return OK

    def fix_and_resend() -> None:
        fixed.append(True)
        lab.add_consumer("dlq-ops", subscribe={"%DLQ%cg": "*"}, listener=resend_each, name="ops1",
                         consume_from_where="CONSUME_FROM_FIRST_OFFSET")  # fmt: skip

    lab.at("30s", fix_and_resend)
    return lab


def test_the_operators_group_gets_a_consumed_token_and_the_dead_letter_stays_in_the_dlq() -> None:
    vm = flow_view_model(resend_lab().run(until="40s").snapshot())
    assert [(t.owner, t.place, t.state) for t in vm.tokens if t.msg_id == "M0001"] == [
        ("dlq-ops", "done:dlq-ops", "done"),
        ("cg", "queue:%DLQ%cg@broker-a:0", "dead"),
    ]


def test_the_end_caption_counts_the_dead_letter_read_by_the_operator() -> None:
    frames = Controller(resend_lab, horizon=40_000).frames
    assert frames is not None
    assert frames.captions[-1][0] == (
        "End of the run at 40 s: 2 messages sent, 1 consumed, 1 dead-lettered (up to 3 deliveries) and 1 read from "
        "the dead-letter topic by ops1; the offsets of 3 queues were saved."
    )


def test_a_retry_queue_of_a_group_with_retry_queue_nums_0_says_it_is_not_used() -> None:
    """Lab 04's retryQueueNums = 0: %RETRY%cg:0 exists (made at c1's first heartbeat, before updateSubGroup), but no
    send-back is stored there: the picture says so instead of drawing it as the group's retry queue."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda msgs, ctx: LATER, name="c1")
    lab.update_subscription_group("cg", retry_queue_nums=0)
    snap = lab.run(until="1s").snapshot()
    assert snap.brokers[0].retry_queue_nums == (("cg", 0),)
    assert flow_view_model(snap).place("queue:%RETRY%cg@broker-a:0").note == "retryQueueNums 0: not used"
    used = resend_lab().run(until="2s").snapshot()
    assert flow_view_model(used).place("queue:%RETRY%cg@broker-a:0").note == ""
