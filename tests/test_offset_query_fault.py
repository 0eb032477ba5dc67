"""A failing offset query (``offset_query_failure``) and a standing send error (``send_error``).

4.9.7 ``RemoteBrokerOffsetStore.readOffset(READ_FROM_STORE)``: ``queryConsumerOffset`` throws MQBrokerException
for any answer but SUCCESS, and that is caught as "No offset in broker" (−1); only another exception (no answer)
is −2. ``computePullFromWhereWithException`` then treats −1 as a new group: CONSUME_FROM_LAST_OFFSET starts a
normal topic's queue at its max offset (``GET_MAX_OFFSET``), a ``%RETRY%`` queue at 0.
"""

from __future__ import annotations

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import EventKind as K
from rmqlab import Lab, Message


def _start_late(lab: Lab) -> None:
    producer = lab.add_producer("pg")
    for i in range(3):
        lab.at(0, producer.send, Message("T", f"m{i}"))
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS, start="1s")
    lab.at(3000, producer.send, Message("T", "late"))
    lab.run(until="5s")


def test_without_the_fault_a_new_group_reads_offset_0_and_gets_the_three_messages(lab: Lab) -> None:
    _start_late(lab)
    assert sorted(e.msg_id for e in lab.trace.where(K.DELIVERED)) == ["M0001", "M0002", "M0003", "M0004"]


def test_an_error_answer_to_the_offset_query_is_no_offset_so_the_queue_starts_at_its_max(lab: Lab) -> None:
    lab.set_broker_fault("broker-a", query_offset_error="SYSTEM_ERROR", query_offset_remark="disk full")
    _start_late(lab)
    # the three messages at offset 0 of queues 0, 1, 2 are skipped: the pulls start at max offsets 1, 1, 1, 0
    (late,) = lab.trace.where(K.DELIVERED)
    assert (late.time_ms, late.msg_id, late.get("queue")) == (3000, "M0004", "T@broker-a:3")
    assert lab.trace.first(K.FAULT).get("query_offset_error") == "SYSTEM_ERROR"


def test_send_error_shows_its_code_name_and_success_clears_it(lab: Lab) -> None:
    lab.set_broker_fault("broker-a", send_error="MESSAGE_ILLEGAL")
    producer = lab.add_producer("pg")
    refused = producer.send(Message("T", "a"))
    lab.set_broker_fault("broker-a", send_error=None)
    lab.run(until="1s")
    assert (refused.response_code, refused.remark, refused.attempts) == (13, "[MESSAGE_ILLEGAL] injected fault", 1)
    assert [e.get("send_error") for e in lab.trace.where(K.FAULT)] == ["MESSAGE_ILLEGAL", None]
