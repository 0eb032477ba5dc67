"""``repr(lab.trace)`` tells a student what a run recorded: its size, the virtual time it spans, each kind counted."""

from __future__ import annotations

from rmqlab import ConsumeConcurrentlyStatus, EventKind, Lab, Message, Trace


def _retry_to_dlq(trace: bool = True) -> Lab:
    lab = Lab(seed=1, trace=trace)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"},
                     listener=lambda msgs, ctx: ConsumeConcurrentlyStatus.RECONSUME_LATER)  # fmt: skip
    lab.at(0, producer.send, Message("TopicTest", "hello"))
    return lab.run(until="6h")


def test_repr_counts_kinds_in_event_kind_order_over_the_span() -> None:
    text = repr(_retry_to_dlq().trace)
    assert text == (
        "Trace(162 events, 0 ms … 4 h 45 m 40 s: send_attempt=1, send_result=1, stored=18, scheduled=16, "
        "delay_delivered=16, pulled=17, delivered=17, consumed=17, send_back=17, dead_lettered=1, "
        "offset_updated=17, offset_persisted=21, rebalanced=2, lifecycle=1)"
    )


def test_repr_of_an_empty_and_of_a_disabled_trace() -> None:
    assert repr(Trace()) == "Trace(0 events)"
    off = _retry_to_dlq(trace=False).trace
    assert len(off) == 0 and off.counts[EventKind.DELIVERED] == 17
    assert repr(off).startswith("Trace(disabled, 162 events counted: send_attempt=1, ")
