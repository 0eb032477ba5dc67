"""A step's "(and N more: … consumed)" names only messages that were consumed: a batch's CONSUME_SUCCESS with
``ackIndex`` 1 covers M0001 and M0002, and the step sends M0003 and M0004 back (lab 02a's caption called M0004
consumed while the picture parked it at level 3, revC defect 4)."""

from __future__ import annotations

from rmqlab.widgets.controller import Controller

from rmqlab import ConsumeConcurrentlyStatus, Lab, Message


def ack_index_lab() -> Lab:
    """Lab 02a's ackIndex picture: four messages at 1 s, c1 starts at 10 s and gets them as one batch."""

    def acks_two(msgs: object, ctx: object) -> ConsumeConcurrentlyStatus:
        ctx.ack_index = 1  # type: ignore[attr-defined]
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=acks_two, name="c1",
                     consume_message_batch_max_size=4, start="10s")  # fmt: skip
    for i in range(4):
        lab.at("1s", producer.send, Message("TopicTest", f"m{i}"))
    return lab


def test_a_message_sent_back_in_the_step_is_not_counted_as_consumed() -> None:
    frames = Controller(ack_index_lab, horizon=40_000).frames
    assert frames is not None
    step = next(plain for plain, _rule in frames.captions if "ack index 1" in plain)
    assert step == (
        "c1 acknowledged only up to M0002 (ack index 1), so M0003 goes back to the broker: into %RETRY%cg in 10 s. "
        "(and 12 more: M0001, M0002 consumed, see the Events tab)"
    )
