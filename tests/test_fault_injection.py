"""Fault injection per attempt: scripted SEND_MESSAGE answers and send-back rejections, pinned to 4.9.7.

``MQClientAPIImpl.processSendResponse`` turns SUCCESS / FLUSH_DISK_TIMEOUT / FLUSH_SLAVE_TIMEOUT /
SLAVE_NOT_AVAILABLE into a SendResult and throws ``MQBrokerException(code, remark)`` for any other code;
``DefaultMQProducerImpl.sendDefaultImpl`` retries only ``retryResponseCodes`` and, when it gives up, copies
the last MQBrokerException's code into the MQClientException (``setResponseCode``).
"""

from __future__ import annotations

import pytest

from rmqlab import ConfigError, Lab, Message
from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import EventKind as K
from rmqlab.client.producer.default_mq_producer import SendStatus
from rmqlab.remoting.response_code import ResponseCode


def _outcomes(lab: Lab) -> list[tuple[int, int, str]]:
    return [(e.time_ms, e.get("attempt"), e.get("outcome")) for e in lab.trace if e.kind is K.SEND_RESULT]


def test_system_error_twice_then_success_is_stored_at_the_third_attempt(lab: Lab) -> None:
    lab.set_broker_fault(
        "broker-a", send_responses=["SYSTEM_ERROR", {"code": "SYSTEM_ERROR", "remark": "store busy"}, "SUCCESS"]
    )
    future = lab.add_producer("pg").send(Message("T", "x"))
    lab.run(until="1s")
    assert _outcomes(lab) == [
        (0, 1, "MQBrokerException: CODE: 1 (SYSTEM_ERROR) DESC: [SYSTEM_ERROR] injected fault"),
        (0, 2, "MQBrokerException: CODE: 1 (SYSTEM_ERROR) DESC: store busy"),
        (0, 3, "SUCCESS"),
    ]
    assert future.ok and future.result is not None and future.result.queue_offset == 0
    assert future.response_code is None
    assert [e.get("queue_id") for e in lab.trace if e.kind is K.STORED] == [future.result.message_queue.queue_id]
    assert lab.brokers["broker-a"].faults.send_responses == []  # consumed; the next send is normal


def test_a_code_outside_retry_response_codes_fails_at_once_with_its_code_and_remark(lab: Lab) -> None:
    """SYSTEM_BUSY (2) is not in ``retryResponseCodes``: the MQBrokerException reaches the application."""
    lab.set_broker_fault("broker-a", send_responses=[{"code": "SYSTEM_BUSY", "remark": "too many requests"}])
    future = lab.add_producer("pg").send(Message("T", "x"))
    lab.run(until="1s")
    assert future.error == "MQBrokerException: CODE: 2 (SYSTEM_BUSY) DESC: too many requests"
    assert (future.response_code, future.remark, future.result) == (2, "too many requests", None)
    failed = next(e for e in lab.trace if e.kind is K.SEND_FAILED)
    assert (failed.get("response_code"), failed.get("remark"), failed.get("attempts")) == (2, "too many requests", 1)
    assert not [e for e in lab.trace if e.kind is K.STORED]


def test_giving_up_after_three_system_errors_keeps_the_last_code(lab: Lab) -> None:
    """``mqClientException.setResponseCode(((MQBrokerException) exception).getResponseCode())``."""
    lab.set_broker_fault(
        "broker-a", send_responses=["SYSTEM_ERROR", "SYSTEM_ERROR", {"code": "SYSTEM_ERROR", "remark": "r3"}]
    )
    future = lab.add_producer("pg").send(Message("T", "x"))
    lab.run(until="1s")
    assert future.error is not None and future.error.startswith("MQClientException: Send [3] times, still failed")
    assert future.error.endswith("(MQBrokerException: CODE: 1 (SYSTEM_ERROR) DESC: r3)")
    assert (future.response_code, future.remark) == (1, "r3")


def test_a_scripted_flush_disk_timeout_is_stored_and_not_send_ok(lab: Lab) -> None:
    lab.set_broker_fault("broker-a", send_responses=["FLUSH_DISK_TIMEOUT"])
    future = lab.add_producer("pg").send(Message("T", "x"))
    lab.run(until="1s")
    assert future.result is not None and future.result.send_status is SendStatus.FLUSH_DISK_TIMEOUT
    assert _outcomes(lab) == [(0, 1, "FLUSH_DISK_TIMEOUT")]
    assert len([e for e in lab.trace if e.kind is K.STORED]) == 1


def test_a_rejected_send_back_shows_its_code_and_remark_and_the_client_falls_back(lab: Lab) -> None:
    lab.set_broker_fault("broker-a", send_back_error="SYSTEM_BUSY", send_back_remark="no room")
    calls: list[int] = []

    def listener(msgs, ctx):  # type: ignore[no-untyped-def]
        calls.append(lab.now)
        return C.RECONSUME_LATER if len(calls) == 1 else C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, name="c1")
    lab.at(0, lab.add_producer("pg").send, Message("T", "x"))
    lab.run(until="30s")
    back = next(e for e in lab.trace if e.kind is K.SEND_BACK)
    assert (back.get("ok"), back.get("error"), back.get("response_code"), back.get("remark")) == (
        False,
        "MQBrokerException",
        2,
        "no room",
    )
    fallback = next(e for e in lab.trace if e.kind is K.SEND_BACK_FALLBACK)
    assert fallback.get("ok") is True and fallback.time_ms == back.time_ms
    assert calls == [0, 10_000]  # the fallback's %RETRY% copy: delay level 3 (10 s)


def test_clearing_the_send_back_error(lab: Lab) -> None:
    lab.set_broker_fault("broker-a", send_back_error="NO_PERMISSION")
    lab.set_broker_fault("broker-a", send_back_error=None)
    assert lab.brokers["broker-a"].faults.send_back_error is None


@pytest.mark.parametrize(
    ("faults", "parameter", "allowed"),
    [
        ({"send_responses": "SYSTEM_ERROR"}, "send_responses", "a list of response code names"),
        ({"send_responses": ["SYSTEM_EROR"]}, "send_responses[0]", "one of SUCCESS, SYSTEM_ERROR"),
        ({"send_responses": ["SUCCESS", {"code": 1}]}, "send_responses[1].code", "one of SUCCESS"),
        ({"send_responses": [{"remark": "x"}]}, "send_responses[0]", "a mapping with 'code'"),
        ({"send_responses": [{"code": "SYSTEM_ERROR", "remark": 5}]}, "send_responses[0].remark", "a string"),
        ({"send_back_error": "SUCCESS"}, "send_back_error", "one of SYSTEM_ERROR"),
        ({"send_back_remark": "x"}, "send_back_remark", "only together with a send_back_error"),
        ({"send_back_error": "SYSTEM_ERROR", "send_back_remark": 3}, "send_back_remark", "a string"),
    ],
)
def test_bad_fault_values_name_the_parameter_value_and_what_is_allowed(
    lab: Lab, faults: dict[str, object], parameter: str, allowed: str
) -> None:
    with pytest.raises(ConfigError) as info:
        lab.set_broker_fault("broker-a", **faults)
    assert info.value.parameter == parameter
    assert allowed in str(info.value)
    faults = lab.brokers["broker-a"].faults
    assert faults.send_responses == [] and faults.send_back_error is None


RETRIED = [
    "TOPIC_NOT_EXIST",
    "SERVICE_NOT_AVAILABLE",
    "SYSTEM_ERROR",
    "NO_PERMISSION",
    "NO_BUYER_ID",
    "NOT_IN_CURRENT_UNIT",
]
NOT_RETRIED = ["SYSTEM_BUSY", "MESSAGE_ILLEGAL", "SUBSCRIPTION_GROUP_NOT_EXIST", "FLOW_CONTROL"]


@pytest.mark.parametrize("code", RETRIED + NOT_RETRIED)
def test_exactly_the_six_retry_response_codes_move_the_send_to_the_other_broker(lab2: Lab, code: str) -> None:
    """``DefaultMQProducer.retryResponseCodes`` (4.9.7): TOPIC_NOT_EXIST, SERVICE_NOT_AVAILABLE, SYSTEM_ERROR,
    NO_PERMISSION, NO_BUYER_ID (204), NOT_IN_CURRENT_UNIT (205). One scripted answer from broker-a: a code in the
    set is retried at once on broker-b (index 4 → a-0, then a-1 skipped, b-0); any other is thrown as it is."""
    lab2.set_broker_fault("broker-a", send_responses=[{"code": code, "remark": "scripted"}])
    future = lab2.add_producer("pg", send_which_queue_start=3).send(Message("T", "x"))
    lab2.run(until="1s")
    number = int(ResponseCode[code])
    refused = (0, "broker-a", 0, f"MQBrokerException: CODE: {number} ({code}) DESC: scripted")
    outcomes = [
        (e.time_ms, e.get("broker"), e.get("queue_id"), e.get("outcome")) for e in lab2.trace.of_kind(K.SEND_RESULT)
    ]
    if code in RETRIED:
        assert outcomes == [refused, (0, "broker-b", 0, "SUCCESS")]
        assert future.ok and future.response_code is None
    else:
        assert outcomes == [refused]
        assert (future.error, future.response_code, future.remark) == (refused[3], number, "scripted")
