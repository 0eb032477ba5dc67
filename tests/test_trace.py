"""The trace: events are immutable, and a trace that is off counts exactly what a trace that is on records."""

from __future__ import annotations

import inspect
import pickle
from collections import Counter
from typing import Any

import pytest

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import EventKind, Lab, Message, MessageQueue, Trace, TraceEvent
from rmqlab.core.trace import CountingTrace


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


class _Untouchable:
    """Stands for a message or a queue that must not be read: any attribute read or ``str()`` fails."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the counting trace read .{name}")

    def __str__(self) -> str:
        raise AssertionError("the counting trace formatted a queue")


MESSAGE_WAY = {
    "send_attempt": EventKind.SEND_ATTEMPT,
    "send_result": EventKind.SEND_RESULT,
    "stored": EventKind.STORED,
    "scheduled": EventKind.SCHEDULED,
    "delay_delivered": EventKind.DELAY_DELIVERED,
    "dead_lettered": EventKind.DEAD_LETTERED,
    "pulled": EventKind.PULLED,
    "delivered": EventKind.DELIVERED,
    "consumed": EventKind.CONSUMED,
    "send_back": EventKind.SEND_BACK,
    "offset_updated": EventKind.OFFSET_UPDATED,
}
"""The trace's named methods (one per event of a message's way) and the kind each records."""
RECORDER = ["self", "time_ms", "actor"]
"""How a named method's parameters begin (``record`` takes the kind second)."""


def test_a_trace_that_is_off_counts_a_message_event_without_building_it() -> None:
    def recorders(cls: type) -> set[str]:  # the methods called as (time_ms, actor, what the event is about)
        functions = {name: member for name, member in vars(cls).items() if inspect.isfunction(member)}
        return {name for name, f in functions.items() if list(inspect.signature(f).parameters)[:3] == RECORDER}

    assert recorders(Trace) == recorders(CountingTrace) == set(MESSAGE_WAY)
    trace = CountingTrace()
    batch = [_Untouchable(), _Untouchable()]
    for name, kind in MESSAGE_WAY.items():
        method = getattr(trace, name)
        about: dict[str, Any] = {
            p: _Untouchable() for p in inspect.signature(method).parameters if p not in ("time_ms", "actor")
        }
        if "msgs" in about:
            about["msgs"] = batch  # a batch of two: one event each
        method(1000, "consumer:c1", **about)
        assert trace.counts[kind] == (2 if "msgs" in about and kind is not EventKind.PULLED else 1), name
    assert len(trace) == 0


def test_trace_events_are_read_only_tuples_with_named_fields() -> None:
    trace = Trace()
    trace.record(1500, EventKind.STORED, "broker-a", "M0001", topic="T", queue_offset=3)
    event = trace.first(EventKind.STORED, msg_id="M0001")
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


def _two_tries() -> Lab:
    """M0001 fails once (10 s on delay level 3), then succeeds; M0002 succeeds at once."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")

    def listener(msgs, ctx):
        return C.RECONSUME_LATER if msgs[0].body == "x" and msgs[0].reconsume_times == 0 else C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, name="c1", listener=listener)
    lab.at(0, producer.send, Message("T", "x"))
    lab.at(5, producer.send, Message("T", "y"))
    return lab.run(until="1m")


def test_events_are_found_by_kind_and_fields_not_by_position() -> None:
    """where/first/last/find match attributes (msg_id, actor, time_ms) and details (reconsume_times, queue…)."""
    trace = _two_tries().trace
    again = trace.where(EventKind.DELIVERED, msg_id="M0001", reconsume_times=1)
    assert [(e.time_ms, e.get("queue")) for e in again] == [(10_000, "%RETRY%cg@broker-a:0")]
    assert trace.first(EventKind.DELIVERED, msg_id="M0001").time_ms == 0
    assert trace.last(EventKind.CONSUMED, msg_id="M0001").get("status") == "CONSUME_SUCCESS"
    assert trace.first("stored", msg_id="M0002") == trace.first(EventKind.STORED, queue_offset=1)
    assert [e.kind for e in trace.where(msg_id="M0002", actor="consumer:c1")] == [EventKind.DELIVERED,
                                                                                 EventKind.CONSUMED]  # fmt: skip
    assert [e.msg_id for e in trace.where(EventKind.DELIVERED, EventKind.CONSUMED, status="CONSUME_SUCCESS")] == [
        "M0002",
        "M0001",
    ]
    assert trace.where(EventKind.DELIVERED, no_such_detail=None) == []
    assert trace.find(EventKind.DEAD_LETTERED) is None
    with pytest.raises(LookupError, match=r"no event kind=dead_lettered msg_id='M0001' in Trace\(\d+ events"):
        trace.first(EventKind.DEAD_LETTERED, msg_id="M0001")
    with pytest.raises(LookupError, match=r"no event kind=delivered\|consumed reconsume_times=5 in "):
        trace.last(EventKind.DELIVERED, EventKind.CONSUMED, reconsume_times=5)
    with pytest.raises(ValueError, match="'pulls' is not a valid EventKind"):
        trace.where("pulls")


def test_events_are_found_by_virtual_time() -> None:
    """at(t) is one virtual millisecond, given in ms or as a duration, with the same filters as where."""
    trace = _two_tries().trace
    assert [(e.kind.value, e.msg_id) for e in trace.at("10s", EventKind.DELIVERED, EventKind.CONSUMED)] == [
        ("delivered", "M0001"),
        ("consumed", "M0001"),
    ]
    assert trace.at(10_000, EventKind.STORED) == trace.where(EventKind.STORED, topic="%RETRY%cg")
    assert trace.at(10_000, actor="broker-a") == [trace.first(EventKind.STORED, reconsume_times=1)]
    assert trace.at("3s") == []
