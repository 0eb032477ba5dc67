"""Producer fidelity, pinned to 4.9.7's source: what ``Validators.checkMessage`` refuses, and how each mode reports it.

* ``DefaultMQProducerImpl.send(msg, callback, timeout)`` and ``send(msg, selector, arg, callback, timeout)`` run
  ``sendDefaultImpl`` / ``sendSelectImpl`` inside the async-sender executor task and pass *every* exception to
  ``callback.onException``: an invalid message never raises to the caller of an ASYNC send.
* SYNC and ONEWAY throw the same MQClientException; rmqlab records a thrown MQClientException as a failed send.
* ``sendDefaultImpl`` with ONEWAY has ``timesTotal = 1``: a RemotingException ends the loop, which throws
  ``MQClientException("Send [1] times, still failed, …")``; ``sendSelectImpl`` has no loop and lets the raw
  exception through.
"""

from __future__ import annotations

import pytest

from rmqlab import ConfigError, Lab, Message
from rmqlab import EventKind as K
from rmqlab.client.producer.default_mq_producer import check_message
from rmqlab.client.producer.send_result import client_error_code
from rmqlab.common.message_queue import MessageQueue
from rmqlab.remoting.exceptions import RemotingConnectException, RemotingException, RemotingTimeoutException

REFUSED = [
    (Message("", "b"), "The specified topic is blank"),
    (Message(" \t", "b"), "The specified topic is blank"),
    (Message("T" * 128, "b"), "The specified topic is longer than topic max length 127."),
    (Message("T.x", "b"), "The specified topic[T.x] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"),
    (Message("SCHEDULE_TOPIC_XXXX", "b"), "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden."),
    (Message("T", None), "the message body is null"),
    (Message("T", b""), "the message body length is zero"),
    (Message("T", "x" * (4 * 1024 * 1024 + 1)), "the message body size over max value, MAX: 4194304"),
]
IDS = [
    "empty topic",
    "blank topic",
    "topic of 128",
    "illegal char",
    "schedule topic",
    "null body",
    "empty body",
    "4 MiB+1",
]


@pytest.mark.parametrize(("msg", "text"), REFUSED, ids=IDS)
def test_check_message_texts_are_validators_check_message(msg: Message, text: str) -> None:
    assert check_message(msg) == text


def test_a_127_char_topic_and_a_4_mib_body_pass() -> None:
    assert check_message(Message("T" * 127, "x" * (4 * 1024 * 1024))) is None
    assert check_message(Message("%RETRY%cg|a-b_1", "b")) is None
    assert check_message(Message("\u00a0", "b")) == (  # Java's isWhitespace: a no-break space is not blank
        "The specified topic[\u00a0] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
    )


def _thrown(text: str) -> tuple[str, int | None]:
    """The MQClientException ``checkMessage`` throws, and its ``getResponseCode``: the body checks use the
    ``(ResponseCode.MESSAGE_ILLEGAL, text)`` constructor, whose message is "CODE: 13  DESC: <text>"; the topic
    checks the ``(text, null)`` one (code −1)."""
    if text.startswith("the message body"):
        return f"MQClientException: CODE: 13 (MESSAGE_ILLEGAL) DESC: {text}", 13
    return f"MQClientException: {text}", None


@pytest.mark.parametrize(("msg", "text"), REFUSED, ids=IDS)
def test_async_send_of_an_invalid_message_reaches_on_exception(lab: Lab, msg: Message, text: str) -> None:
    producer = lab.add_producer("pg")
    ok: list[object] = []
    errors: list[tuple[int, str]] = []
    lab.at(5, producer.send_async, msg, ok.append, lambda e: errors.append((lab.now, e)))
    lab.run(until="1s")
    error, code = _thrown(text)
    assert ok == [] and errors == [(5, error)]
    failed = [
        (e.time_ms, e.get("error"), e.get("attempts"), e.get("mode"), e.get("response_code"))
        for e in lab.trace.of_kind(K.SEND_FAILED)
    ]
    assert failed == [(5, error, 0, "ASYNC", code)]
    assert (lab.sends[0].response_code, lab.sends[0].remark) == (code, None)
    assert lab.trace.of_kind(K.SEND_ATTEMPT) == []


@pytest.mark.parametrize("mode", ["SYNC", "ASYNC", "ONEWAY"])
def test_selector_send_of_an_invalid_message_fails_as_data(lab: Lab, mode: str) -> None:
    producer = lab.add_producer("pg")
    future = producer.send_with_selector(Message("", "b"), lambda mqs, m, a: mqs[0], None, mode=mode)
    assert (future.done, future.result, future.error, future.attempts) == (
        True,
        None,
        "MQClientException: The specified topic is blank",
        0,
    )


@pytest.mark.parametrize("send", ["send", "send_oneway"])
def test_sync_and_oneway_record_the_mq_client_exception(lab: Lab, send: str) -> None:
    future = getattr(lab.add_producer("pg"), send)(Message("T.x", "b"))
    assert future.error == (
        "MQClientException: The specified topic[T.x] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
    )


@pytest.mark.parametrize("send", ["send", "send_async", "send_oneway"])
def test_programming_errors_still_raise(lab: Lab, send: str) -> None:
    """Not RocketMQ behaviour: Java would not compile these, so they stay ConfigErrors naming the parameter."""
    producer = lab.add_producer("pg")
    with pytest.raises(ConfigError, match=r"msg='hello' is not allowed: expected an rmqlab.Message"):
        getattr(producer, send)("hello")
    with pytest.raises(ConfigError, match=r"topic=5 is not allowed: expected a topic name \(str\)"):
        getattr(producer, send)(Message(5, "b"))  # type: ignore[arg-type]
    assert lab.sends == []


@pytest.mark.parametrize("send", ["send", "send_async", "send_oneway"])
def test_a_null_message_raises_to_the_caller_even_for_async(lab: Lab, send: str) -> None:
    """Java compiles ``send(null, callback)``, but ``DefaultMQProducer.send`` calls ``msg.setTopic(withNamespace(
    msg.getTopic()))`` on the caller's thread before the async-sender task exists: a NullPointerException thrown to
    the caller, never ``onException``. rmqlab raises its ConfigError there too, with nothing sent."""
    with pytest.raises(ConfigError, match=r"msg=None is not allowed: expected an rmqlab.Message"):
        getattr(lab.add_producer("pg"), send)(None)
    assert lab.sends == [] and lab.trace.of_kind(K.SEND_FAILED) == []


@pytest.mark.parametrize("entry", ["send_async", "selector", "send_to_queue"])
@pytest.mark.parametrize("which", ["on_success", "on_exception"])
def test_a_callback_that_is_not_callable_is_refused_before_the_send(lab: Lab, entry: str, which: str) -> None:
    """Not RocketMQ behaviour either: a ``SendCallback`` that is not one does not compile in Java. It used to be
    accepted and fail as a bare TypeError when the send ended (inside ``lab.run``, or at once for a refused message).
    A *refused message* with a good callback still reaches ``on_exception`` (tests above)."""
    producer = lab.add_producer("pg")
    callbacks: dict[str, object] = {"on_success": print, "on_exception": print, which: "log it"}
    with pytest.raises(ConfigError, match=rf"{which}='log it' is not allowed: expected a callable taking"):
        if entry == "send_async":
            producer.send_async(Message("", "b"), **callbacks)  # type: ignore[arg-type]
        elif entry == "selector":
            producer.send_with_selector(Message("", "b"), lambda mqs, m, a: mqs[0], None, "ASYNC", **callbacks)  # type: ignore[arg-type]
        else:
            producer.send_to_queue(Message("", "b"), MessageQueue("T", "broker-a", 0), "ASYNC", **callbacks)  # type: ignore[arg-type]
    lab.run(until="1s")
    assert lab.sends == [] and lab.trace.of_kind(K.SEND_FAILED) == []


def test_a_selector_that_is_not_callable_is_refused_but_none_fails_in_the_task(lab: Lab) -> None:
    """Java compiles ``send(msg, null, arg, callback)``: ``sendSelectImpl`` calls ``selector.select`` inside its
    ``try`` and wraps the NullPointerException in "select message queue threw exception."; a non-selector object
    does not compile, so it is a ConfigError."""
    producer = lab.add_producer("pg")
    with pytest.raises(ConfigError, match=r"selector=5 is not allowed: expected a callable select\(mqs, msg, arg\)"):
        producer.send_with_selector(Message("T", "b"), 5, None)  # type: ignore[arg-type]
    assert lab.sends == []
    got: list[str] = []
    producer.send_with_selector(Message("T", "b"), None, None, "ASYNC", on_exception=got.append)  # type: ignore[arg-type]
    lab.run(until="1s")
    assert len(got) == 1 and got[0].startswith("MQClientException: select message queue threw exception. (")


def test_oneway_to_an_unreachable_broker_ends_with_send_1_times(lab2: Lab) -> None:
    producer = lab2.add_producer("pg", send_which_queue_start=3)
    lab2.at(0, producer.send, Message("T", "warm-up"))  # index 4 → a-0; caches the route
    lab2.at(1, lab2.broker_down, "broker-a")
    lab2.at(2, producer.send_oneway, Message("T", "x"))  # index 5 → a-1: refused
    lab2.run(until="1s")
    assert lab2.sends[1].error == (
        "MQClientException: Send [1] times, still failed, cost [0]ms, Topic: T, BrokersSent: [broker-a] "
        "(RemotingConnectException: connect to broker-a failed: broker down)"
    )
    assert [
        (e.time_ms, e.get("attempts"), e.get("mode"), e.get("response_code"))
        for e in lab2.trace.of_kind(K.SEND_FAILED)
    ] == [(2, 1, "ONEWAY", 10001)]  # ClientErrorCode.CONNECT_BROKER_EXCEPTION
    assert (lab2.sends[1].attempts, lab2.sends[1].response_code, lab2.sends[1].remark) == (1, 10001, None)


def test_a_sync_send_that_gives_up_carries_the_client_error_code_of_its_last_exception(lab2: Lab) -> None:
    """``sendDefaultImpl`` after the loop: ``setResponseCode`` by the last exception's class, RemotingConnectException
    → ``ClientErrorCode.CONNECT_BROKER_EXCEPTION`` (10001); the text is unchanged and there is no remark."""
    producer = lab2.add_producer("pg", send_which_queue_start=3)
    lab2.at(1, lab2.broker_down, "broker-a")
    lab2.at(1, lab2.broker_down, "broker-b")
    lab2.at(0, producer.send, Message("T", "warm-up"))
    lab2.at(2, producer.send, Message("T", "x"))
    lab2.run(until="1s")
    failed = lab2.sends[1]
    assert failed.error is not None and failed.error.startswith("MQClientException: Send [3] times, still failed")
    assert (failed.response_code, failed.remark) == (10001, None)
    assert lab2.trace.first(K.SEND_FAILED).get("response_code") == 10001


def test_no_route_info_carries_not_found_topic_exception(lab: Lab) -> None:
    """"No route info of this topic" is thrown with ``ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION`` (10005), in every
    mode of ``sendDefaultImpl``; ``sendSelectImpl``'s "No route info for this topic, " sets no code (−1)."""
    lab.update_topic("T", perm=4)
    producer = lab.add_producer("pg")
    sync = producer.send(Message("T", "b"))
    async_ = producer.send_async(Message("T", "b"), on_exception=lambda e: None)
    selector = producer.send_with_selector(Message("T", "b"), lambda mqs, m, a: mqs[0], None)
    assert [(f.error, f.response_code) for f in (sync, async_, selector)] == [
        ("MQClientException: No route info of this topic: T", 10005),
        ("MQClientException: No route info of this topic: T", 10005),
        ("MQClientException: No route info for this topic, T", None),
    ]
    assert [e.get("response_code") for e in lab.trace.of_kind(K.SEND_FAILED)] == [10005, 10005, None]


def test_client_error_code_follows_the_class_of_the_last_exception() -> None:
    """A RemotingTimeoutException → ACCESS_BROKER_TIMEOUT (10002); a plain RemotingException (a connection reset)
    and no exception get none, as the ``instanceof`` chain of ``sendDefaultImpl`` leaves −1."""
    assert client_error_code(RemotingTimeoutException("broker-a", "wait response timeout 3000ms")) == 10002
    assert client_error_code(RemotingConnectException("broker-a", "broker down")) == 10001
    assert client_error_code(RemotingException("broker-a", "connection reset")) is None
    assert client_error_code(None) is None


def test_oneway_selector_send_keeps_the_raw_remoting_exception(lab2: Lab) -> None:
    """``sendSelectImpl`` has no retry loop, and ``sendOneway(msg, selector, arg)`` wraps only MQBrokerException."""
    producer = lab2.add_producer("pg")
    lab2.at(0, producer.send, Message("T", "warm-up"))
    lab2.at(1, lab2.broker_down, "broker-a")
    lab2.at(2, producer.send_with_selector, Message("T", "x"), lambda mqs, m, a: mqs[0], None, "ONEWAY")
    lab2.run(until="1s")
    assert lab2.sends[1].error == "RemotingConnectException: connect to broker-a failed: broker down"


def test_a_cached_route_without_writable_queues_is_looked_up_again_at_the_next_send(lab: Lab) -> None:
    """``tryToFindTopicPublishInfo``: ``!topicPublishInfo.ok()`` → ``updateTopicRouteInfoFromNameServer`` now."""
    producer = lab.add_producer("pg", send_which_queue_start=3)
    lab.update_topic("T", perm=4)
    lab.at(0, producer.send, Message("T", "refused"))  # cached: a route with no writable queue
    lab.at(1000, lab.update_topic, "T", perm=6)
    lab.at(2000, producer.send, Message("T", "sent"))  # long before the next poll (30 010 ms)
    lab.run(until="3s")
    assert [f.error for f in lab.sends] == ["MQClientException: No route info of this topic: T", None]
    assert [(e.time_ms, e.get("queue_id")) for e in lab.trace.of_kind(K.STORED)] == [(2000, 0)]


def test_an_async_selector_send_reports_through_its_callback(lab2: Lab) -> None:
    """``send(msg, selector, arg, callback)``: success, a refused message, a throwing selector, a no-response
    failure after the same-broker retries: each reaches exactly one callback method, once."""
    producer = lab2.add_producer("pg")
    got: list[tuple[int, str, str]] = []

    def callbacks(tag: str) -> dict[str, object]:
        return {
            "on_success": lambda r: got.append((lab2.now, tag, str(r.message_queue))),
            "on_exception": lambda e: got.append((lab2.now, tag, e)),
        }

    first = lambda mqs, m, a: mqs[0]  # noqa: E731

    def boom(mqs: object, m: object, a: object) -> object:
        raise RuntimeError("no shard")

    lab2.at(0, producer.send_with_selector, Message("T", "ok"), first, None, "ASYNC", None, **callbacks("ok"))
    lab2.at(1, producer.send_with_selector, Message("", "b"), first, None, "ASYNC", None, **callbacks("blank"))
    lab2.at(2, producer.send_with_selector, Message("T", "b"), boom, None, "ASYNC", None, **callbacks("boom"))
    lab2.at(3, lab2.broker_down, "broker-a")
    lab2.at(4, producer.send_with_selector, Message("T", "b"), first, None, "ASYNC", None, **callbacks("down"))
    lab2.run(until="1s")
    assert got == [
        (0, "ok", "T@broker-a:0"),
        (1, "blank", "MQClientException: The specified topic is blank"),
        (2, "boom", "MQClientException: select message queue threw exception. (RuntimeError('no shard'))"),
        (4, "down", "RemotingConnectException: connect to broker-a failed: broker down"),
    ]
    assert lab2.sends[3].attempts == 3  # 1 + retryTimesWhenSendAsyncFailed, all on broker-a


def test_selector_callbacks_need_async_mode(lab: Lab) -> None:
    producer = lab.add_producer("pg")
    with pytest.raises(ConfigError, match=r"mode='SYNC' is not allowed: expected ASYNC when on_success"):
        producer.send_with_selector(Message("T", "b"), lambda mqs, m, a: mqs[0], None, on_exception=print)


def test_a_selector_send_without_writable_queues_has_sendselectimpls_text(lab: Lab) -> None:
    """``sendSelectImpl``: "No route info for this topic, <topic>" (sendDefaultImpl says "of this topic: ")."""
    lab.update_topic("T", perm=4)
    future = lab.add_producer("pg").send_with_selector(Message("T", "b"), lambda mqs, m, a: mqs[0], None)
    assert future.error == "MQClientException: No route info for this topic, T"


def test_send_to_an_explicit_queue(lab2: Lab) -> None:
    """``send(msg, mq)``: checkMessage, then the topic check, then one sendKernelImpl to that queue."""
    producer = lab2.add_producer("pg")
    b1 = MessageQueue("T", "broker-b", 1)
    got: list[tuple[int, str]] = []
    lab2.at(0, producer.send_to_queue, Message("T", "x"), b1)
    lab2.at(1, producer.send_to_queue, Message("U", "x"), b1)
    lab2.at(2, producer.send_to_queue, Message("T", "x"), MessageQueue("T", "broker-z", 0))
    lab2.at(3, producer.send_to_queue, Message("T", "x"), MessageQueue("T", "broker-a", 9))
    lab2.at(4, lab2.broker_down, "broker-a")
    on = {
        "on_success": lambda r: got.append((lab2.now, str(r.message_queue))),
        "on_exception": lambda e: got.append((lab2.now, e)),
    }
    lab2.at(5, producer.send_to_queue, Message("T", "x"), MessageQueue("T", "broker-a", 0), "ASYNC", None, **on)
    lab2.at(6, producer.send_to_queue, Message("T", "x"), MessageQueue("T", "broker-a", 0), "ONEWAY")
    lab2.run(until="1s")
    assert [(f.error, f.attempts) for f in lab2.sends] == [
        (None, 1),
        ("MQClientException: message's topic not equal mq's topic", 0),
        ("MQClientException: The broker[broker-z] not exist", 0),
        ("MQBrokerException: CODE: 1 (SYSTEM_ERROR) DESC: request queueId[9] is illegal", 1),
        ("RemotingConnectException: connect to broker-a failed: broker down", 3),  # ASYNC: 2 retries, same broker
        ("RemotingConnectException: connect to broker-a failed: broker down", 1),  # ONEWAY: no loop, raw
    ]
    assert str(lab2.sends[0].result.message_queue) == "T@broker-b:1"  # type: ignore[union-attr]
    assert got == [(5, "RemotingConnectException: connect to broker-a failed: broker down")]
    assert [e.get("broker") for e in lab2.trace.of_kind(K.SEND_ATTEMPT) if e.msg_id == lab2.sends[4].msg_id] == [
        "broker-a"
    ] * 3
