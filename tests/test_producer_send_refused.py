"""A producer's send that fails before it reaches a broker, each test pinned to the RocketMQ 4.9.7 source it names.

* ``DefaultMQProducerImpl.send(msg, callback, timeout)`` (and the selector / explicit-queue variants) run the send
  inside an executor task that passes *every* exception to ``sendCallback.onException``; its first check is
  ``timeout > costTime``, else ``RemotingTooMuchRequestException("DEFAULT ASYNC send call timeout")`` (selector:
  "call timeout"; ``send(msg, mq, callback)`` checks the message and the topic first).
* ``Validators.checkTopic``: ``UtilAll.isBlank(null)`` is true, so a topic-less message (``new Message()``) is
  "The specified topic is blank" in every mode.
* A send after ``shutdown()`` fails with the service state (SYNC, ONEWAY) or is rejected by the executor (ASYNC).
"""

from __future__ import annotations

import pytest

from rmqlab import EventKind as K
from rmqlab import Lab, Message
from rmqlab.common.message_queue import MessageQueue

BLANK = "MQClientException: The specified topic is blank"


@pytest.mark.parametrize("entry", ["send_async", "selector", "send_to_queue"])
def test_a_topic_less_async_send_reaches_on_exception(lab: Lab, entry: str) -> None:
    producer = lab.add_producer("pg")
    got: list[tuple[int, str, str]] = []
    cb = {
        "on_success": lambda r: got.append((lab.now, "ok", str(r))),
        "on_exception": lambda e: got.append((lab.now, "ex", e)),
    }
    msg = Message(None, "b")  # type: ignore[arg-type]
    if entry == "send_async":
        lab.at(7, producer.send_async, msg, **cb)
    elif entry == "selector":
        lab.at(7, producer.send_with_selector, msg, lambda mqs, m, a: mqs[0], None, "ASYNC", **cb)
    else:
        lab.at(7, producer.send_to_queue, msg, MessageQueue("T", "broker-a", 0), "ASYNC", **cb)
    lab.run(until="1s")
    assert got == [(7, "ex", BLANK)]
    assert [
        (e.time_ms, e.get("error"), e.get("attempts"), e.get("mode")) for e in lab.trace.of_kind(K.SEND_FAILED)
    ] == [(7, BLANK, 0, "ASYNC")]
    assert lab.trace.of_kind(K.SEND_ATTEMPT) == []


@pytest.mark.parametrize("send", ["send", "send_oneway"])
def test_a_topic_less_sync_or_oneway_send_fails_as_blank(lab: Lab, send: str) -> None:
    future = getattr(lab.add_producer("pg"), send)(Message(None, "b"))  # type: ignore[arg-type]
    assert (future.done, future.error, future.attempts) == (True, BLANK, 0)


@pytest.mark.parametrize(
    ("entry", "text"),
    [
        ("send_async", "RemotingTooMuchRequestException: DEFAULT ASYNC send call timeout"),
        ("selector", "RemotingTooMuchRequestException: call timeout"),
        ("send_to_queue", "RemotingTooMuchRequestException: call timeout"),
    ],
)
def test_an_async_send_with_no_budget_fails_in_the_executor_task(lab: Lab, entry: str, text: str) -> None:
    """``timeout > costTime`` is false for a 0 ms budget: onException, no attempt (it used to try and time out)."""
    producer = lab.add_producer("pg")
    got: list[tuple[int, str]] = []
    cb = {"on_exception": lambda e: got.append((lab.now, e))}
    msg = Message("T", "b")
    if entry == "send_async":
        lab.at(3, producer.send_async, msg, timeout=0, **cb)
    elif entry == "selector":
        lab.at(3, producer.send_with_selector, msg, lambda mqs, m, a: mqs[0], None, "ASYNC", 0, **cb)
    else:
        lab.at(3, producer.send_to_queue, msg, MessageQueue("T", "broker-a", 0), "ASYNC", 0, **cb)
    lab.run(until="1s")
    assert got == [(3, text)]
    assert lab.trace.of_kind(K.SEND_ATTEMPT) == [] and lab.sends[0].attempts == 0


def test_the_plain_async_timeout_check_comes_before_the_message_check(lab: Lab) -> None:
    """``send(msg, callback, timeout)``: the executor's timeout check runs before ``sendDefaultImpl`` validates."""
    producer = lab.add_producer("pg")
    got: list[str] = []
    producer.send_async(Message("", "b"), on_exception=got.append, timeout=0)
    producer.send_to_queue(Message("", "b"), MessageQueue("T", "broker-a", 0), "ASYNC", 0, on_exception=got.append)
    assert got == ["RemotingTooMuchRequestException: DEFAULT ASYNC send call timeout", BLANK]


# ---------------------------------------------------------------------------------------------------------------
# A send after shutdown(): 4.9.7 DefaultMQProducerImpl.shutdown sets SHUTDOWN_ALREADY and shuts the async-sender
# executor down. SYNC / ONEWAY entry points start with makeSureStateOK (before checkMessage); an ASYNC one's
# executor.submit is rejected: MQClientException("executor rejected ") is thrown to the caller, no callback runs.

SHUT = "MQClientException: The producer service state not OK, SHUTDOWN_ALREADY"


def test_sync_and_oneway_sends_after_shutdown_fail_with_the_service_state(lab: Lab) -> None:
    producer = lab.add_producer("pg")
    producer.shutdown()
    futures = [
        producer.send(Message("T", "x")),
        producer.send_oneway(Message("", "x")),  # the state is checked before the message
        producer.send_with_selector(Message("T", "x"), lambda mqs, m, a: mqs[0], None),
        producer.send_to_queue(Message("T", "x"), MessageQueue("T", "broker-a", 0), "ONEWAY"),
    ]
    lab.run(until="1s")
    assert [(f.done, f.error, f.attempts) for f in futures] == [(True, SHUT, 0)] * 4
    assert lab.trace.of_kind(K.SEND_ATTEMPT) == [] and lab.trace.of_kind(K.STORED) == []


def test_async_sends_after_shutdown_are_rejected_without_a_callback(lab: Lab) -> None:
    producer = lab.add_producer("pg")
    lab.at(0, producer.send, Message("T", "before"))
    lab.at(10, producer.shutdown)
    got: list[str] = []
    cb = {"on_success": lambda r: got.append(str(r)), "on_exception": got.append}
    lab.at(20, producer.send_async, Message("T", "x"), **cb)
    lab.at(20, producer.send_with_selector, Message("T", "x"), lambda mqs, m, a: mqs[0], None, "ASYNC", **cb)
    lab.at(20, producer.send_to_queue, Message("T", "x"), MessageQueue("T", "broker-a", 0), "ASYNC", **cb)
    lab.run(until="1s")
    assert got == []
    assert [(e.time_ms, e.get("error"), e.get("mode")) for e in lab.trace.of_kind(K.SEND_FAILED)] == [
        (20, "MQClientException: executor rejected ", "ASYNC")
    ] * 3
    assert [e.msg_id for e in lab.trace.of_kind(K.STORED)] == [lab.sends[0].msg_id]
