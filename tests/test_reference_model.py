"""A reference model beside the state machine of test_properties.py: the observable contract, without the engine.

The state machine checks that invariants hold under faults; it cannot say *when* a retry comes or *where* a
message ends, because under faults many answers are right. Without faults there is one answer, and it is short
enough to write out from RocketMQ's rules alone (no simulator, no queues of events, no pull loop):

* the producer's round robin puts the k-th send in queue ``(send_which_queue_start + k) % queues`` of the topic;
* a listener answering RECONSUME_LATER to a message of ``reconsumeTimes`` r sends it back at delay level
  ``3 + r`` (capped at 18: ``messageDelayLevel`` of 4.9.7's MessageStoreConfig), so it is consumed again from
  ``%RETRY%<group>`` with r + 1 (SendMessageProcessor.asyncConsumerSendMsgBack) once that delay has passed, at
  the ScheduleMessageService's first look at or after it: each level's queue is looked at every 100 ms
  (``DELAY_FOR_A_WHILE``; the first look ``FIRST_DELAY_TIME`` = 1 s after the broker starts, at 0 here);
* once r ≥ maxReconsumeTimes a failure goes to ``%DLQ%<group>`` instead, stored with r + 1;
* every copy is parked in SCHEDULE_TOPIC_XXXX before its retry topic; every queue's committed offset is its
  message count (each message is consumed or sent back, so the ProcessQueue empties).

Hypothesis generates send times and, per message, how many deliveries fail; the engine's report
(:func:`rmqlab.build_report`) must equal the model's, delivery for delivery, to the millisecond.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import Lab, Message, build_report

DELAY_LEVELS_MS = [s * 1000 for s in (1, 5, 10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800,
                                      3600, 7200)]  # fmt: skip
"""``1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h``: levels 1..18, written out again on purpose."""
QUEUES = 4
START = 0
"""``send_which_queue_start``: the producer's round-robin index before its first send."""
RETRY_QUEUE = "%RETRY%cg@broker-a:0"
LOOK_MS = 100
"""ScheduleMessageService.DELAY_FOR_A_WHILE: a level's queue is looked at every 100 ms, on a grid from 0."""


@dataclass
class Expected:
    """What the contract says a run shows, in the report's own shapes."""

    deliveries: list[tuple[int, str, str, int, str]] = field(default_factory=list)
    """(time, msg id, queue, reconsumeTimes, listener status), in any order within a millisecond."""
    dlq: list[dict[str, Any]] = field(default_factory=list)
    stored: Counter[str] = field(default_factory=Counter)
    offsets: dict[str, int] = field(default_factory=dict)


def reference(send_times: list[int], failures: list[int], max_reconsume_times: int) -> Expected:
    """The model: one broker, one topic of QUEUES queues, one concurrent consumer, nothing ever broken."""
    out = Expected(offsets={f"TopicTest@broker-a:{q}": 0 for q in range(QUEUES)} | {RETRY_QUEUE: 0})
    for k, (when, fails) in enumerate(zip(send_times, failures, strict=True), start=1):
        msg_id, queue, rt = f"M{k:04d}", f"TopicTest@broker-a:{(START + k) % QUEUES}", 0
        out.stored["TopicTest"] += 1
        out.offsets[queue] += 1
        while True:
            failed = rt < fails
            out.deliveries.append((when, msg_id, queue, rt, "RECONSUME_LATER" if failed else "CONSUME_SUCCESS"))
            if not failed:
                break
            if rt >= max_reconsume_times:
                out.dlq.append({"msg_id": msg_id, "reconsume_times": rt + 1, "original_topic": "TopicTest"})
                out.stored["%DLQ%cg"] += 1
                break
            due = when + DELAY_LEVELS_MS[min(3 + rt, 18) - 1]
            when = -(-due // LOOK_MS) * LOOK_MS  # the first look at or after due
            rt, queue = rt + 1, RETRY_QUEUE
            out.stored["SCHEDULE_TOPIC_XXXX"] += 1
            out.stored["%RETRY%cg"] += 1
            out.offsets[RETRY_QUEUE] += 1
    return out


def engine(send_times: list[int], failures: list[int], max_reconsume_times: int, until: int) -> dict[str, Any]:
    """The same story through the engine: a listener that fails message k's first ``failures[k]`` deliveries."""
    lab = Lab(seed=11)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=QUEUES)
    producer = lab.add_producer("pg", send_which_queue_start=START)
    fails = {f"M{k:04d}": n for k, n in enumerate(failures, start=1)}

    def listener(msgs: list[Any], ctx: Any) -> C:
        (msg,) = msgs
        return C.RECONSUME_LATER if msg.reconsume_times < fails[msg.msg_id] else C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1",
                     max_reconsume_times=max_reconsume_times)  # fmt: skip
    for k, when in enumerate(send_times):
        lab.at(when, producer.send, Message("TopicTest", f"m{k}"))
    lab.run(until=until)
    return build_report(lab)


def compare(send_times: list[int], failures: list[int], max_reconsume_times: int) -> None:
    expected = reference(send_times, failures, max_reconsume_times)
    last = max(t for t, *_ in expected.deliveries)
    got = engine(send_times, failures, max_reconsume_times, until=last + 30_000)  # offsets persist every 5 s
    deliveries = [(d["time_ms"], d["msg_id"], d["queue"], d["reconsume_times"], d["status"]) for d in got["deliveries"]]
    assert sorted(deliveries) == sorted(expected.deliveries)
    assert got["dlq"] == ({"cg": expected.dlq} if expected.dlq else {})
    assert got["stored"] == dict(expected.stored)
    assert got["offsets"] == {"cg": expected.offsets}


def test_the_model_reads_like_the_default_retry_schedule() -> None:
    """The model alone, on the lesson of examples/default_retry_schedule: 17 deliveries, DLQ with 17."""
    expected = reference([0], [99], 16)
    assert [t // 1000 for t, *_ in expected.deliveries][-3:] == [6340, 9940, 17140]
    assert expected.dlq == [{"msg_id": "M0001", "reconsume_times": 17, "original_topic": "TopicTest"}]
    assert expected.stored == {"TopicTest": 1, "SCHEDULE_TOPIC_XXXX": 16, "%RETRY%cg": 16, "%DLQ%cg": 1}


def test_engine_matches_the_model_on_a_hand_written_case() -> None:
    """maxReconsumeTimes 2: one message consumed at once, one after two retries (10 s, then 30 s), one
    dead-lettered at its third failure (stored in %DLQ%cg with reconsumeTimes 3)."""
    expected = reference([1000, 1000, 2500], [0, 2, 5], 2)
    assert sorted(expected.deliveries) == [
        (1000, "M0001", "TopicTest@broker-a:1", 0, "CONSUME_SUCCESS"),
        (1000, "M0002", "TopicTest@broker-a:2", 0, "RECONSUME_LATER"),
        (2500, "M0003", "TopicTest@broker-a:3", 0, "RECONSUME_LATER"),
        (11_000, "M0002", RETRY_QUEUE, 1, "RECONSUME_LATER"),
        (12_500, "M0003", RETRY_QUEUE, 1, "RECONSUME_LATER"),
        (41_000, "M0002", RETRY_QUEUE, 2, "CONSUME_SUCCESS"),
        (42_500, "M0003", RETRY_QUEUE, 2, "RECONSUME_LATER"),
    ]
    assert expected.dlq == [{"msg_id": "M0003", "reconsume_times": 3, "original_topic": "TopicTest"}]
    compare([1000, 1000, 2500], [0, 2, 5], max_reconsume_times=2)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    gaps=st.lists(st.sampled_from([0, 1, 7, 250, 1000, 9_999, 40_000]), min_size=1, max_size=8),
    data=st.data(),
    max_reconsume_times=st.sampled_from([0, 1, 2, 3, 16, 18]),
)
def test_engine_matches_the_reference_model(gaps: list[int], data: st.DataObject, max_reconsume_times: int) -> None:
    """Random send times and failure counts (0 to 19 failures per message): same deliveries to the millisecond,
    same dead letters, stored counts and committed offsets as the model."""
    send_times = [1000 + sum(gaps[: i + 1]) for i in range(len(gaps))]
    failures = data.draw(st.lists(st.sampled_from([0, 0, 1, 2, 3, 17, 19]), min_size=len(gaps), max_size=len(gaps)))
    compare(send_times, failures, max_reconsume_times)
