"""Broker answers pinned to 4.9.7's ``SendMessageProcessor`` (codes and remarks) and its permission rules.

``asyncConsumerSendMsgBack`` checks, in order: the subscription group, the broker's permission (NO_PERMISSION),
``retryQueueNums <= 0`` (SUCCESS, nothing stored), the ``%RETRY%`` topic's permission (NO_PERMISSION), the
message by offset (SYSTEM_ERROR). A plain send checks neither permission (``AbstractSendMessageProcessor.msgCheck``
only refuses order topics on a non-writable broker); routes keep producers away from what is not writable.
"""

from __future__ import annotations

import pytest

from rmqlab import ConfigError, Lab, Message, after
from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import EventKind as K
from rmqlab.remoting.exceptions import MQBrokerException
from rmqlab.remoting.response_code import ResponseCode


def test_send_back_of_a_missing_offset_names_the_offset(lab: Lab) -> None:
    """``lookMessageByOffset`` found nothing: SYSTEM_ERROR, remark "look message by offset failed, <offset>"."""
    lab.at(0, lab.add_producer("pg").send, Message("T", "b"))
    lab.run(until="1s")
    broker = lab.brokers["broker-a"]
    answer = broker.send_message_processor.consumer_send_msg_back("cg", 7, 0, 16)
    assert answer == MQBrokerException("broker-a", ResponseCode.SYSTEM_ERROR, "look message by offset failed, 7")
    # offset 0 is stored
    assert broker.send_message_processor.consumer_send_msg_back("cg", 0, 0, 16) is ResponseCode.SUCCESS


# ---------------------------------------------------------------------- permissions
def _flow(lab: Lab) -> list[tuple[int, str, str, object]]:
    kinds = {K.STORED, K.SCHEDULED, K.SEND_BACK, K.SEND_BACK_FALLBACK, K.CONSUMED, K.SEND_RESULT}
    return [
        (
            e.time_ms,
            e.kind.value,
            e.actor,
            e.get("ok") if e.get("ok") is not None else e.get("topic") or e.get("outcome"),
        )
        for e in lab.trace
        if e.kind in kinds
    ]


def _fail_once_in_2_s(lab: Lab) -> list[tuple[int, int, str]]:
    """A listener that takes 2 s and asks for a retry the first time, then succeeds; returns its calls."""
    calls: list[tuple[int, int, str]] = []

    def listener(msgs, ctx):  # type: ignore[no-untyped-def]
        calls.append((lab.now, msgs[0].reconsume_times, msgs[0].store_host))
        return after("2s", C.RECONSUME_LATER) if len(calls) == 1 else C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, name="c1")
    return calls


def test_a_read_only_broker_refuses_the_send_back_and_the_retry_goes_to_another_broker(lab2: Lab) -> None:
    """asyncConsumerSendMsgBack: broker not writable → NO_PERMISSION; the client's fallback send picks broker-b.

    ``registerBrokerAll`` registers broker-a's topics with the broker's permission 4, so the inner producer's
    route for ``%RETRY%cg`` lists only broker-b's queue: the retry is stored there, delay level 3 (10 s).
    """
    producer = lab2.add_producer("pg", send_which_queue_start=3)
    calls = _fail_once_in_2_s(lab2)
    lab2.at("1s", producer.send, Message("T", "x"))  # index 4 % 2 → T@broker-a:0
    lab2.at("2s", lab2.update_broker_config, "broker-a", broker_permission=4)
    lab2.run(until="20s")
    broker = lab2.brokers["broker-a"]
    assert broker.send_message_processor.consumer_send_msg_back("cg", 0, 0, 16) == MQBrokerException(
        "broker-a", ResponseCode.NO_PERMISSION, "the broker[127.0.0.1] sending message is forbidden"
    )
    back = lab2.trace.first(K.SEND_BACK)
    assert (back.time_ms, back.get("ok"), back.get("response_code"), back.get("remark")) == (
        3000,
        False,
        16,
        "the broker[127.0.0.1] sending message is forbidden",  # getBrokerIP1(): broker-a's 127.0.0.1, no port
    )
    assert calls == [(1000, 0, "broker-a"), (13_000, 1, "broker-b")]
    assert _flow(lab2) == [
        (1000, "stored", "broker-a", "T"),
        (1000, "send_result", "producer:pg", "SUCCESS"),
        (3000, "consumed", "consumer:c1", None),
        (3000, "send_back", "consumer:c1", False),
        (3000, "scheduled", "broker-b", None),
        (3000, "send_result", "producer:c1/inner", "SUCCESS"),
        (3000, "send_back_fallback", "consumer:c1", True),
        (13_000, "stored", "broker-b", "%RETRY%cg"),
        (13_000, "consumed", "consumer:c1", None),
    ]
    assert [(e.get("command"), e.get("broker_permission")) for e in lab2.trace.of_kind(K.ADMIN)] == [
        ("updateBrokerConfig", 4)
    ]


def test_a_retry_topic_that_is_not_writable_refuses_the_send_back_and_the_message_is_retried_locally(lab: Lab) -> None:
    """``%RETRY%cg`` with perm 4: NO_PERMISSION; the fallback finds no writable queue ("No route info"),
    so ``processConsumeResult`` consumes the message again 5 s later in the same client (reconsume times 1)."""
    producer = lab.add_producer("pg", send_which_queue_start=3)
    calls = _fail_once_in_2_s(lab)
    lab.at("1s", producer.send, Message("T", "x"))
    lab.at("2s", lab.update_topic, "%RETRY%cg", perm=4)
    lab.run(until="20s")
    broker = lab.brokers["broker-a"]
    assert broker.send_message_processor.consumer_send_msg_back("cg", 0, 0, 16) == MQBrokerException(
        "broker-a", ResponseCode.NO_PERMISSION, "the topic[%RETRY%cg] sending message is forbidden"
    )
    assert calls == [(1000, 0, "broker-a"), (8000, 1, "broker-a")]
    back = lab.trace.first(K.SEND_BACK)
    assert (back.time_ms, back.get("response_code"), back.get("remark")) == (
        3000,
        16,
        "the topic[%RETRY%cg] sending message is forbidden",
    )
    (fallback,) = lab.trace.of_kind(K.SEND_BACK_FALLBACK)
    assert (fallback.time_ms, fallback.get("ok"), fallback.get("error")) == (
        3000,
        False,
        "MQClientException: No route info of this topic: %RETRY%cg",
    )
    assert [e.get("topic") for e in lab.trace.of_kind(K.STORED)] == ["T"]  # no retry copy anywhere
    assert lab.trace.of_kind(K.SCHEDULED) == []


def test_the_broker_permission_remark_names_the_brokers_ip(lab2: Lab) -> None:
    """``"the broker[" + getBrokerIP1() + "] sending message is forbidden"``: broker-b is the second broker added."""
    lab2.update_broker_config("broker-b", broker_permission=4)
    assert lab2.brokers["broker-b"].address == "127.0.0.2:10911"
    assert lab2.brokers["broker-b"].send_message_processor.consumer_send_msg_back("cg", 0, 0, 16) == MQBrokerException(
        "broker-b", ResponseCode.NO_PERMISSION, "the broker[127.0.0.2] sending message is forbidden"
    )


def test_a_producer_retries_a_no_permission_answer_on_the_other_broker(lab2: Lab) -> None:
    """NO_PERMISSION (16) is in ``retryResponseCodes``: ``sendDefaultImpl`` tries the next queue not on broker-a, at
    once. (No 4.9.7 broker answers a plain send so, except for order topics; a scripted answer shows the client.)"""
    lab2.set_broker_fault(
        "broker-a",
        send_responses=[{"code": "NO_PERMISSION", "remark": "the broker[127.0.0.1] sending message is forbidden"}],
    )
    producer = lab2.add_producer("pg", send_which_queue_start=3)
    lab2.at(5, producer.send, Message("T", "x"))  # index 4 → a-0, refused; index 5 → a-1 skipped, index 6 → b-0
    lab2.run(until="1s")
    assert [
        (e.time_ms, e.get("broker"), e.get("queue_id"), e.get("outcome")) for e in lab2.trace.of_kind(K.SEND_RESULT)
    ] == [
        (
            5,
            "broker-a",
            0,
            "MQBrokerException: CODE: 16 (NO_PERMISSION) DESC: the broker[127.0.0.1] sending message is forbidden",
        ),
        (5, "broker-b", 0, "SUCCESS"),
    ]
    assert lab2.sends[0].ok and lab2.sends[0].response_code is None


FAILED_PUTS = [
    "SERVICE_NOT_AVAILABLE",
    "CREATE_MAPEDFILE_FAILED",
    "MESSAGE_ILLEGAL",
    "PROPERTIES_SIZE_EXCEEDED",
    "OS_PAGECACHE_BUSY",
    "UNKNOWN_ERROR",
    "LMQ_CONSUME_QUEUE_NUM_EXCEEDED",
]


@pytest.mark.parametrize("status", FAILED_PUTS)
def test_a_send_back_whose_put_fails_answers_system_error_with_the_status_name(lab: Lab, status: str) -> None:
    """``asyncConsumerSendMsgBack``'s ``thenApply``: any status but PUT_OK → SYSTEM_ERROR, remark the status's
    ``name()`` (not ``handlePutMessageResult``'s texts, which only SEND_MESSAGE uses); nothing stored."""
    lab.at(0, lab.add_producer("pg").send, Message("T", "b"))
    lab.run(until="1s")
    broker = lab.brokers["broker-a"]
    lab.set_broker_fault("broker-a", put_status=status)
    assert broker.send_message_processor.consumer_send_msg_back("cg", 0, 0, 16) == MQBrokerException(
        "broker-a", ResponseCode.SYSTEM_ERROR, status
    )
    # the DLQ branch too
    assert broker.send_message_processor.consumer_send_msg_back("cg", 0, -1, 16) == MQBrokerException(
        "broker-a", ResponseCode.SYSTEM_ERROR, status
    )
    assert [e.get("topic") for e in lab.trace.of_kind(K.STORED)] == ["T"] and lab.trace.of_kind(K.SCHEDULED) == []


@pytest.mark.parametrize("status", ["FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE"])
def test_a_send_back_waits_for_no_flush_so_a_flush_status_still_stores_it(lab: Lab, status: str) -> None:
    """``msgExt.setWaitStoreMsgOK(false)``: the store waits neither for the flush nor for a slave, so the send-back
    gets PUT_OK (SUCCESS) where a plain send would get FLUSH_DISK_TIMEOUT & co."""
    lab.at(0, lab.add_producer("pg").send, Message("T", "b"))
    lab.run(until="1s")
    lab.set_broker_fault("broker-a", put_status=status)
    assert lab.brokers["broker-a"].send_message_processor.consumer_send_msg_back("cg", 0, 0, 16) is ResponseCode.SUCCESS
    assert [(e.time_ms, e.get("level")) for e in lab.trace.of_kind(K.SCHEDULED)] == [(1000, 3)]


def test_a_failed_store_refuses_the_send_back_and_the_fallback_so_the_message_is_retried_locally(lab: Lab) -> None:
    """CREATE_MAPEDFILE_FAILED from 2 s: the send-back at 3 s gets SYSTEM_ERROR "CREATE_MAPEDFILE_FAILED", the
    fallback's SEND_MESSAGE gets ``handlePutMessageResult``'s SYSTEM_ERROR three times (retried, one broker), so
    ``processConsumeResult`` consumes the message again in this client 5 s later, reconsume times 1."""
    producer = lab.add_producer("pg", send_which_queue_start=3)
    calls = _fail_once_in_2_s(lab)
    lab.at("1s", producer.send, Message("T", "x"))
    lab.at("2s", lab.set_broker_fault, "broker-a", put_status="CREATE_MAPEDFILE_FAILED")
    lab.run(until="20s")
    assert calls == [(1000, 0, "broker-a"), (8000, 1, "broker-a")]
    back = lab.trace.first(K.SEND_BACK)
    assert (back.time_ms, back.get("ok"), back.get("response_code"), back.get("remark")) == (
        3000,
        False,
        1,
        "CREATE_MAPEDFILE_FAILED",
    )
    fallback = lab.trace.first(K.SEND_BACK_FALLBACK)
    assert (fallback.time_ms, fallback.get("ok"), fallback.get("response_code"), fallback.get("remark")) == (
        3000,
        False,
        1,
        "create mapped file failed, server is busy or broken.",
    )
    assert [e.get("topic") for e in lab.trace.of_kind(K.STORED)] == ["T"] and lab.trace.of_kind(K.SCHEDULED) == []


def test_a_send_through_a_stale_route_to_a_read_only_broker_is_stored_then_the_route_drops_it(lab2: Lab) -> None:
    """4.9.7 ``msgCheck`` refuses a plain send to a non-writable broker only for order topics: the producer's
    cached route still lists broker-a until its next poll (10 ms + 30 s), and that send is stored (SEND_OK)."""
    producer = lab2.add_producer("pg", send_which_queue_start=3)
    lab2.at(0, producer.send, Message("T", "warm-up"))  # index 4 → a-0, caches the route
    lab2.at("1s", lab2.update_broker_config, "broker-a", broker_permission=4)
    lab2.at("2s", producer.send, Message("T", "stale"))  # index 5 → a-1
    lab2.at("31s", producer.send, Message("T", "fresh"))  # polled at 30.01 s: [b-0, b-1], index 6 → b-0
    lab2.at("32s", producer.send, Message("T", "fresh"))
    lab2.run(until="33s")
    stored = [(e.time_ms, e.actor, e.get("queue_id")) for e in lab2.trace.of_kind(K.STORED)]
    assert stored == [(0, "broker-a", 0), (2000, "broker-a", 1), (31_000, "broker-b", 0), (32_000, "broker-b", 1)]
    assert all(f.ok for f in lab2.sends)
    route = lab2.namesrv.route("T")
    assert route is not None and [(q.broker_name, q.perm) for q in route.queue_datas] == [
        ("broker-a", 4),
        ("broker-b", 6),
    ]
    assert lab2.brokers["broker-a"].topic_config["T"].perm == 6  # the broker's own table is unchanged


def test_back_to_read_write_registers_each_topic_with_its_own_permission(lab2: Lab) -> None:
    lab2.update_topic("T", perm=2, brokers=["broker-a"])
    lab2.update_broker_config("broker-a", broker_permission=4)
    assert [(q.broker_name, q.perm) for q in lab2.namesrv.route("T").queue_datas] == [  # type: ignore[union-attr]
        ("broker-a", 4),
        ("broker-b", 6),
    ]
    lab2.update_broker_config("broker-a", broker_permission=6)
    assert [(q.broker_name, q.perm) for q in lab2.namesrv.route("T").queue_datas] == [  # type: ignore[union-attr]
        ("broker-a", 2),
        ("broker-b", 6),
    ]


def test_update_broker_config_refuses_a_bad_permission(lab: Lab) -> None:
    with pytest.raises(ConfigError, match=r"broker_permission=5 is not allowed: expected 6 \(read\+write\)"):
        lab.update_broker_config("broker-a", broker_permission=5)
    with pytest.raises(ConfigError, match=r"broker='nope' is not allowed"):
        lab.update_broker_config("nope", broker_permission=4)


def test_a_send_through_a_stale_route_to_a_read_only_topic_is_stored(lab: Lab) -> None:
    """No topic-permission check on SEND_MESSAGE in 4.9.7 either: only the refreshed route stops the producer."""
    producer = lab.add_producer("pg", send_which_queue_start=3)
    lab.at(0, producer.send, Message("T", "warm-up"))
    lab.at("1s", lab.update_topic, "T", perm=4)
    lab.at("2s", producer.send, Message("T", "stale"))
    lab.at("31s", producer.send, Message("T", "fresh"))
    lab.run(until="32s")
    assert [(e.time_ms, e.get("queue_id")) for e in lab.trace.of_kind(K.STORED)] == [(0, 0), (2000, 1)]
    assert [f.error for f in lab.sends] == [None, None, "MQClientException: No route info of this topic: T"]
