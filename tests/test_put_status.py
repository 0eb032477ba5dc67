"""Every 4.9.7 ``PutMessageStatus`` as ``SendMessageProcessor.handlePutMessageResult`` answers it, and the producer's
reaction: SYSTEM_ERROR (1) and SERVICE_NOT_AVAILABLE (14) are in ``retryResponseCodes`` (three attempts, then
"Send [3] times"), MESSAGE_ILLEGAL (13) is not (fails at once); the FLUSH_* / SLAVE_NOT_AVAILABLE statuses store.
"""

from __future__ import annotations

import pytest

from rmqlab import EventKind as K
from rmqlab import Lab, Message

FAILING = [
    ("CREATE_MAPEDFILE_FAILED", 1, "create mapped file failed, server is busy or broken.", 3),
    ("OS_PAGECACHE_BUSY", 1, "[PC_SYNCHRONIZED]broker busy, start flow control for a while", 3),
    ("UNKNOWN_ERROR", 1, "UNKNOWN_ERROR", 3),
    ("LMQ_CONSUME_QUEUE_NUM_EXCEEDED", 1, "[LMQ_CONSUME_QUEUE_NUM_EXCEEDED]broker config enableLmq", 3),
    ("SERVICE_NOT_AVAILABLE", 14, "service not available now.", 3),
    ("MESSAGE_ILLEGAL", 13, "the message is illegal, maybe msg body", 1),
    ("PROPERTIES_SIZE_EXCEEDED", 13, "msg body length limit 4194304B, msg properties length limit 32KB.", 1),
]


@pytest.mark.parametrize(("status", "code", "remark", "attempts"), FAILING, ids=[f[0] for f in FAILING])
def test_a_failed_put_answers_its_code_and_remark_and_is_retried_per_retry_response_codes(
    lab: Lab, status: str, code: int, remark: str, attempts: int
) -> None:
    lab.set_broker_fault("broker-a", put_status=status)
    future = lab.add_producer("pg").send(Message("T", "x"))
    lab.run(until="1s")
    assert future.response_code == code and future.remark is not None and remark in future.remark
    assert len([e for e in lab.trace if e.kind is K.SEND_ATTEMPT]) == attempts
    if attempts == 3:
        assert future.error is not None and future.error.startswith("MQClientException: Send [3] times, still failed")
    else:
        assert future.error is not None and future.error.startswith("MQBrokerException: CODE: 13 (MESSAGE_ILLEGAL)")
    assert not [e for e in lab.trace if e.kind is K.STORED]


@pytest.mark.parametrize("status", ["FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE"])
def test_a_stored_but_not_ok_put_is_stored_once(lab: Lab, status: str) -> None:
    lab.set_broker_fault("broker-a", put_status=status)
    future = lab.add_producer("pg").send(Message("T", "x"))
    lab.run(until="1s")
    assert future.result is not None and future.result.send_status.value == status
    assert len([e for e in lab.trace if e.kind is K.STORED]) == 1
