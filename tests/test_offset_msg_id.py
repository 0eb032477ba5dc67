"""The store's message id (``offsetMsgId``) beside the client's (``UNIQ_KEY``), and ``ORIGIN_MESSAGE_ID``.

4.9.7: ``CommitLog.DefaultAppendMessageCallback.doAppend`` names each stored copy by
``MessageDecoder.createMessageId(storeHost, wroteOffset)`` and ``SendMessageProcessor`` answers it in
``SendMessageResponseHeader.msgId``, which ``processSendResponse`` puts into ``SendResult.offsetMsgId``.
``consumerSendMsgBack`` looks the original up by offset (a plain ``MessageExt``, whose ``getMsgId()`` is that
store id) and sets ``ORIGIN_MESSAGE_ID`` to it unless already set. The client's fallback
(``DefaultMQPushConsumerImpl.sendMessageBack``) sets it and then replaces the property map with the message's.
"""

from __future__ import annotations

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import EventKind as K
from rmqlab import Lab, Message, MessageQueue
from rmqlab.common.message import PROPERTY_ORIGIN_MESSAGE_ID, MessageExt, create_message_id
from rmqlab.narrate import caption

HOST_A = "7F00000100002A9F"  # 127.0.0.1:10911, broker-a's store host
HOST_B = "7F00000200002A9F"  # 127.0.0.2:10911, the second broker's


def stored(lab: Lab, broker: str = "broker-a") -> list[MessageExt]:
    log = lab.brokers[broker].commit_log
    return [m for m in (log.get(i) for i in range(log.max_offset)) if m is not None]


def test_create_message_id_is_address_port_and_offset_in_upper_case_hex() -> None:
    assert create_message_id("127.0.0.1:10911", 0) == HOST_A + "0000000000000000"
    assert create_message_id("192.168.0.10:10911", 300) == "C0A8000A00002A9F000000000000012C"


def test_send_result_carries_the_store_id_beside_the_client_id(lab: Lab) -> None:
    lab.add_broker("broker-b")
    lab.create_topic("U", queues=1, brokers=["broker-b"])
    producer = lab.add_producer("pg")
    first = producer.send(Message("T", "x"))
    second = producer.send(Message("T", "y"))
    on_b = producer.send_to_queue(Message("U", "z"), MessageQueue("U", "broker-b", 0))
    lab.run(until="1s")
    assert first.result is not None and second.result is not None and on_b.result is not None
    assert (first.result.msg_id, first.result.offset_msg_id) == ("M0001", HOST_A + "0" * 16)
    assert (second.result.msg_id, second.result.offset_msg_id) == ("M0002", HOST_A + "0" * 15 + "1")
    assert on_b.result.offset_msg_id == HOST_B + "0" * 16
    assert [m.offset_msg_id for m in stored(lab)] == [HOST_A + "0" * 16, HOST_A + "0" * 15 + "1"]


def test_origin_message_id_is_the_first_copys_store_id_in_every_retry_and_the_dead_letter(lab: Lab) -> None:
    seen: list[tuple[str, str]] = []

    def listener(msgs, ctx):
        seen.append((msgs[0].msg_id, msgs[0].offset_msg_id))
        return C.RECONSUME_LATER

    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, max_reconsume_times=1)
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until="1m")
    log = stored(lab)
    # 0: T, 1: SCHEDULE_TOPIC_XXXX (send-back), 2: %RETRY%cg (10 s later), 3: %DLQ%cg (second failure)
    assert [m.topic for m in log] == ["T", "SCHEDULE_TOPIC_XXXX", "%RETRY%cg", "%DLQ%cg"]
    origin = HOST_A + "0" * 16
    assert PROPERTY_ORIGIN_MESSAGE_ID not in log[0].properties
    assert [m.properties.get(PROPERTY_ORIGIN_MESSAGE_ID) for m in log[1:]] == [origin] * 3
    assert [m.msg_id for m in log] == ["M0001"] * 4
    # the listener sees one client id and each delivered copy's own store id
    assert seen == [("M0001", origin), ("M0001", HOST_A + "0" * 15 + "2")]


def test_the_clients_fallback_copy_has_no_origin_message_id_when_the_message_had_none(lab: Lab) -> None:
    """``setOriginMessageId`` then ``setProperties(newMsg, msg.getProperties())``: the map set first is replaced."""
    lab.set_broker_fault("broker-a", send_back_error="SYSTEM_BUSY")
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.RECONSUME_LATER)
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until="1s")
    fallback = [m for m in stored(lab) if m.properties.get("RETRY_TOPIC") == "T"]
    assert [(m.topic, m.msg_id, m.commit_log_offset) for m in fallback] == [("SCHEDULE_TOPIC_XXXX", "M0001", 1)]
    assert PROPERTY_ORIGIN_MESSAGE_ID not in fallback[0].properties


def test_retry_and_dead_letter_copies_keep_the_properties_4_9_7_leaves(lab: Lab) -> None:
    """``messageTimeup`` clears only DELAY (REAL_TOPIC / REAL_QID stay); the DLQ branch sets DELAY to "0".

    rmqlab models these properties only: WAIT, TAGS, KEYS and CLUSTER, which 4.9.7 also keeps in the map, are not.
    """
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.RECONSUME_LATER, max_reconsume_times=1)
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until="1m")
    _, parked, retry, dead = stored(lab)
    origin = HOST_A + "0" * 16
    real = {"REAL_TOPIC": "%RETRY%cg", "REAL_QID": "0"}
    base = {"UNIQ_KEY": "M0001", "RETRY_TOPIC": "T", "ORIGIN_MESSAGE_ID": origin} | real
    assert parked.properties == base | {"DELAY": "3"}
    assert retry.properties == base
    assert (dead.topic, dead.properties) == ("%DLQ%cg", base | {"DELAY": "0"})
    assert (dead.reconsume_times, dead.commit_log_offset) == (2, 3)


def test_the_send_result_event_and_its_caption_carry_the_store_id(lab: Lab) -> None:
    lab.add_producer("pg").send(Message("T", "x"))
    lab.run(until="1s")
    result = lab.trace.first(K.SEND_RESULT, msg_id="M0001")
    assert (result.get("outcome"), result.get("offset_msg_id")) == ("SUCCESS", HOST_A + "0" * 16)
    assert caption(result, lab.trace.where(K.SEND_ATTEMPT)) == (
        "MQClientAPIImpl.processSendResponse: broker-a answered SUCCESS → SEND_OK for M0001 "
        f"(queue 0, offsetMsgId {HOST_A}{'0' * 16}); the send is done"
    )


def test_pulled_messages_carry_min_and_max_offset_and_the_fallback_copy_keeps_them(lab: Lab) -> None:
    """``PullAPIWrapper.processPullResult`` sets MIN_OFFSET / MAX_OFFSET (the queue's bounds at that pull)."""
    seen: list[dict[str, str]] = []

    def listener(msgs, ctx):
        seen.append({k: msgs[0].properties[k] for k in ("MIN_OFFSET", "MAX_OFFSET")})
        return C.RECONSUME_LATER

    lab.set_broker_fault("broker-a", send_back_error="SYSTEM_BUSY")
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener)
    lab.at(0, producer.send_to_queue, Message("T", "x"), MessageQueue("T", "broker-a", 0))
    lab.at(0, producer.send_to_queue, Message("T", "y"), MessageQueue("T", "broker-a", 0))
    lab.run(until="1s")
    # the held pull wakes at M0001's arrival (queue max 1); M0002 comes with the next pull (max 2)
    assert seen == [{"MIN_OFFSET": "0", "MAX_OFFSET": "1"}, {"MIN_OFFSET": "0", "MAX_OFFSET": "2"}]
    fallback = {m.msg_id: m.properties for m in stored(lab) if m.properties.get("RETRY_TOPIC") == "T"}
    assert {k: (p["MIN_OFFSET"], p["MAX_OFFSET"]) for k, p in fallback.items()} == {
        "M0001": ("0", "1"),
        "M0002": ("0", "2"),
    }


def test_a_failed_fallback_names_the_brokers_code_and_remark(lab: Lab) -> None:
    """Send-back refused (SYSTEM_BUSY), then the fallback send answered MESSAGE_ILLEGAL (13, not retried)."""
    lab.set_broker_fault("broker-a", send_back_error="SYSTEM_BUSY", send_responses=["SUCCESS", "MESSAGE_ILLEGAL"])
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.RECONSUME_LATER)
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until=3)
    fallback = lab.trace.first(K.SEND_BACK_FALLBACK, msg_id="M0001")
    assert (fallback.get("ok"), fallback.get("response_code"), fallback.get("remark")) == (
        False,
        13,
        "[MESSAGE_ILLEGAL] injected fault",
    )
