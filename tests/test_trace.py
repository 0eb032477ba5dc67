"""The trace: events are immutable, and a trace that is off counts exactly what a trace that is on records."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import EventKind, Lab, Message, MessageQueue, Trace, TraceEvent


def _storm(trace: bool) -> Lab:
    """Every hot call site fires: sends, stores, pulls, deliveries, send-backs, schedule moves, a DLQ write,
    offsets, a broker outage (send retries, held pulls) and a send-back rejection (fallback + local retry)."""
    lab = Lab(seed=3, trace=trace)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("T", queues=2)
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        max_reconsume_times=2,
        listener=lambda msgs, ctx: C.CONSUME_SUCCESS if msgs[0].keys != "poison" else C.RECONSUME_LATER,
    )
    for i in range(30):
        lab.at(i * 500, producer.send, Message("T", f"m{i}", keys="poison" if i % 7 == 0 else f"k{i}"))
    lab.at("4s", lab.broker_down, "broker-b")
    lab.at("9s", lab.broker_up, "broker-b")
    for broker in ("broker-a", "broker-b"):  # poison message 7 fails at 3.5 s: its send-back is refused
        lab.at("3s", lab.set_broker_fault, broker, reject_send_back=True)
        lab.at("4s", lab.set_broker_fault, broker, reject_send_back=False)
    return lab.run(until="30m")


def test_a_trace_that_is_off_counts_every_kind_a_trace_that_is_on_records() -> None:
    on, off = _storm(trace=True), _storm(trace=False)
    recorded = Counter(event.kind for event in on.trace)
    assert len(off.trace) == 0
    assert off.trace.counts == on.trace.counts == recorded
    for kind in (
        EventKind.SEND_ATTEMPT,
        EventKind.STORED,
        EventKind.SCHEDULED,
        EventKind.DELAY_DELIVERED,
        EventKind.PULLED,
        EventKind.DELIVERED,
        EventKind.CONSUMED,
        EventKind.SEND_BACK,
        EventKind.SEND_BACK_FALLBACK,
        EventKind.DEAD_LETTERED,
        EventKind.OFFSET_UPDATED,
    ):
        assert recorded[kind] > 0, kind
    # Five poison messages, each delivered 1 + max_reconsume_times = 3 times, end in %DLQ%cg.
    assert recorded[EventKind.DEAD_LETTERED] == 5


def test_trace_events_are_read_only_tuples_with_named_fields() -> None:
    trace = Trace()
    trace.record(1500, EventKind.STORED, "broker-a", "M0001", topic="T", queue_offset=3)
    event = trace[0]
    assert isinstance(event, TraceEvent)
    assert (event.seq, event.time_ms, event.kind, event.actor, event.msg_id) == (
        1,
        1500,
        EventKind.STORED,
        "broker-a",
        "M0001",
    )
    assert dict(event.data) == {"topic": "T", "queue_offset": 3}
    assert event.get("queue_offset") == 3 and event.get("missing", "-") == "-"
    assert event.to_dict() == {
        "seq": 1,
        "time_ms": 1500,
        "kind": "stored",
        "actor": "broker-a",
        "msg_id": "M0001",
        "topic": "T",
        "queue_offset": 3,
    }
    with pytest.raises(TypeError):
        event.data["topic"] = "other"  # type: ignore[index]
    with pytest.raises(AttributeError):
        event.seq = 2  # type: ignore[misc]
    assert repr(event).startswith("TraceEvent(seq=1, time_ms=1500, kind=<EventKind.STORED: 'stored'>")
    assert pickle.loads(pickle.dumps(event)) == event
    built = TraceEvent(1, 1500, EventKind.STORED, "broker-a", "M0001", {"topic": "T", "queue_offset": 3})
    assert built == event


def test_message_queue_text_and_hash_follow_its_fields() -> None:
    mq = MessageQueue("T", "broker-a", 2)
    same = MessageQueue("T", "broker-a", 2)
    assert str(mq) == "T@broker-a:2" and MessageQueue.parse(str(mq)) == mq
    assert mq == same and hash(mq) == hash(same) and len({mq, same}) == 1
    assert mq != MessageQueue("T", "broker-a", 3)
    assert sorted([MessageQueue("T", "b", 1), MessageQueue("T", "a", 9)])[0].broker_name == "a"
    assert repr(mq) == "MessageQueue(topic='T', broker_name='broker-a', queue_id=2)"
