"""Every 4.9.7 ``PutMessageStatus`` as ``SendMessageProcessor.handlePutMessageResult`` answers it, and the producer's
reaction: SYSTEM_ERROR (1) and SERVICE_NOT_AVAILABLE (14) are in ``retryResponseCodes`` (three attempts, then
"Send [3] times"), MESSAGE_ILLEGAL (13) is not (fails at once); the FLUSH_* / SLAVE_NOT_AVAILABLE statuses store.
"""

from __future__ import annotations

import pytest

from rmqlab import EventKind as K
from rmqlab import Lab, Message

ILLEGAL = (
    "the message is illegal, maybe msg body or properties length not matched. msg body length limit 4194304B, "
    "msg properties length limit 32KB."
)
FAILING = [
    ("CREATE_MAPEDFILE_FAILED", 1, "create mapped file failed, server is busy or broken.", 3),
    ("OS_PAGECACHE_BUSY", 1, "[PC_SYNCHRONIZED]broker busy, start flow control for a while", 3),
    ("UNKNOWN_ERROR", 1, "UNKNOWN_ERROR", 3),
    (
        "LMQ_CONSUME_QUEUE_NUM_EXCEEDED",
        1,
        "[LMQ_CONSUME_QUEUE_NUM_EXCEEDED]broker config enableLmq and enableMultiDispatch, lmq consumeQueue num exceed "
        "maxLmqConsumeQueueNum config num, default limit 2w.",
        3,
    ),
    (
        "SERVICE_NOT_AVAILABLE",
        14,
        "service not available now. It may be caused by one of the following reasons: the broker's disk is full "
        "[CL: 0.95 CQ: 0.95 INDEX: 0.95], messages are put to the slave, message store has been shut down, etc.",
        3,
    ),
    ("MESSAGE_ILLEGAL", 13, ILLEGAL, 1),
    ("PROPERTIES_SIZE_EXCEEDED", 13, ILLEGAL, 1),
]
NAMES = {1: "SYSTEM_ERROR", 13: "MESSAGE_ILLEGAL", 14: "SERVICE_NOT_AVAILABLE"}


@pytest.mark.parametrize(("status", "code", "remark", "attempts"), FAILING, ids=[f[0] for f in FAILING])
def test_a_failed_put_answers_its_code_and_remark_and_is_retried_per_retry_response_codes(
    lab: Lab, status: str, code: int, remark: str, attempts: int
) -> None:
    """``handlePutMessageResult``'s code and remark, exactly, in the exception text, ``SendFuture.response_code`` /
    ``.remark`` (``MQClientException.setResponseCode`` after the loop) and every attempt's trace event."""
    lab.set_broker_fault("broker-a", put_status=status)
    future = lab.add_producer("pg").send(Message("T", "x"))
    lab.run(until="1s")
    broker_exception = f"MQBrokerException: CODE: {code} ({NAMES[code]}) DESC: {remark}"
    assert (future.response_code, future.remark, future.result) == (code, remark, None)
    assert [(e.time_ms, e.get("attempt"), e.get("outcome")) for e in lab.trace.of_kind(K.SEND_RESULT)] == [
        (0, n, broker_exception) for n in range(1, attempts + 1)
    ]
    if attempts == 3:
        assert future.error == (
            "MQClientException: Send [3] times, still failed, cost [0]ms, Topic: T, "
            f"BrokersSent: [broker-a, broker-a, broker-a] ({broker_exception})"
        )
    else:  # MESSAGE_ILLEGAL (13) is not in retryResponseCodes: the MQBrokerException itself is thrown
        assert future.error == broker_exception
    (failed,) = lab.trace.of_kind(K.SEND_FAILED)
    assert (failed.time_ms, failed.get("error"), failed.get("response_code"), failed.get("remark")) == (
        0,
        future.error,
        code,
        remark,
    )
    assert lab.trace.of_kind(K.STORED) == []


@pytest.mark.parametrize("status", ["FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE"])
def test_a_stored_but_not_ok_put_is_stored_once(lab: Lab, status: str) -> None:
    lab.set_broker_fault("broker-a", put_status=status)
    future = lab.add_producer("pg").send(Message("T", "x"))
    lab.run(until="1s")
    assert future.result is not None and future.result.send_status.value == status
    assert len([e for e in lab.trace if e.kind is K.STORED]) == 1


def test_a_failing_store_holds_delayed_messages_back_and_the_schedule_retries_every_100_ms(lab: Lab) -> None:
    """``DeliverDelayedMessageTimerTask.syncDeliver``: a put that is not PUT_OK leaves the level's offset where it is
    and ``scheduleNextTimerTask(nextOffset, DELAY_FOR_A_WHILE)`` tries the same message 100 ms later; nothing is
    lost or duplicated. Level 2 (5 s) is due at 5000; the store fails from 3 s to 7 550 ms, so the tries at 5000,
    5100 … 7500 fail (one WARNING for the streak) and the one at 7600 delivers it."""
    msg = Message("T", "late")
    msg.delay_time_level = 2
    lab.at(0, lab.add_producer("pg").send, msg)
    lab.at(3000, lab.set_broker_fault, "broker-a", put_status="CREATE_MAPEDFILE_FAILED")
    lab.at(7550, lab.set_broker_fault, "broker-a", put_status="PUT_OK")
    lab.run(until="10s")
    assert [(e.time_ms, e.get("waited_ms")) for e in lab.trace.of_kind(K.DELAY_DELIVERED)] == [(7600, 7600)]
    assert [(e.time_ms, e.get("queue_offset")) for e in lab.trace.where(K.STORED, topic="T")] == [(7600, 0)]
    warnings = lab.trace.where(K.WARNING, actor="schedule:broker-a")
    assert [(e.time_ms, e.msg_id, e.get("message")) for e in warnings] == [
        (
            5000,
            "M0001",
            "ScheduleMessageService put message failed: CREATE_MAPEDFILE_FAILED; "
            "delay level 2 tries again every 100 ms",
        )
    ]
    assert lab.brokers["broker-a"].schedule_service.offset_table[2] == 1


def test_a_flush_status_does_not_hold_delayed_messages_back(lab: Lab) -> None:
    """``messageTimeup`` sets ``setWaitStoreMsgOK(false)``: the flush / slave statuses cannot happen for the put, so
    the message is delivered on time, once."""
    msg = Message("T", "late")
    msg.delay_time_level = 2
    lab.at(0, lab.add_producer("pg").send, msg)
    lab.at(3000, lab.set_broker_fault, "broker-a", put_status="FLUSH_DISK_TIMEOUT")
    lab.run(until="10s")
    assert [e.time_ms for e in lab.trace.of_kind(K.DELAY_DELIVERED)] == [5000]
    assert [e.time_ms for e in lab.trace.where(K.STORED, topic="T")] == [5000]
