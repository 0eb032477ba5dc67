"""Fidelity, round 2 (issue 16), each test pinned to the RocketMQ 4.9.7 source it names.

* ``DefaultMQProducerImpl.send(msg, callback, timeout)`` (and the selector / explicit-queue variants) run the send
  inside an executor task that passes *every* exception to ``sendCallback.onException``; its first check is
  ``timeout > costTime``, else ``RemotingTooMuchRequestException("DEFAULT ASYNC send call timeout")`` (selector:
  "call timeout"; ``send(msg, mq, callback)`` checks the message and the topic first).
* ``Validators.checkTopic``: ``UtilAll.isBlank(null)`` is true, so a topic-less message (``new Message()``) is
  "The specified topic is blank" in every mode.
"""

from __future__ import annotations

import pytest

from rmqlab import EventKind as K
from rmqlab import Lab, Message
from rmqlab.queue import MessageQueue

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
