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

from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind as K
from rmqlab import Lab, Message
from rmqlab.client.producer.default_mq_producer import DefaultMQProducer
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
# Orderly first pull: DefaultMQPushConsumerImpl.pullMessage, `!pullRequest.isPreviouslyLocked()` (4.9.7 l. 278-297):
# computePullFromWhereWithException again; if it throws, executePullRequestLater(1000) and return (nothing pulled);
# otherwise previouslyLocked = true and nextOffset = the result *as it is* — RebalancePushImpl turns a failed offset
# query (readOffset −2) into −1 without throwing, so the pull goes out at offset −1.

DAY_MS = 86_400_000


def _orderly(start: int) -> tuple[Lab, DefaultMQProducer]:
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c1", start=start
    )
    return lab, producer


def _warnings(lab: Lab, about: str) -> list[tuple[int, str]]:
    return [(e.time_ms, e.get("message")) for e in lab.trace.of_kind(K.WARNING) if about in e.get("message")]


def test_orderly_first_pull_whose_max_offset_query_fails_is_retried_1000_ms_later() -> None:
    """No committed offset and offset 0 gone (retention), CONSUME_FROM_LAST_OFFSET: the first pull asks for the
    max offset again; that request times out, so the pull waits 1 s, and then starts from the max offset *then*,
    past a message stored meanwhile (it used to pull from the rebalance's offset and deliver it)."""
    t0 = 3 * DAY_MS + 5 * 3_600_000  # the 3 messages sent at 0 were deleted at day 3, 04:00
    lab, producer = _orderly(start=t0)
    for i in range(3):
        lab.at(0, producer.send, Message("ORD", f"old-{i}"))
    lab.at(t0 - 50, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    # ORD's rebalance: lock 500-600, query 600-700 (-1), max offset 700-800 (3); first pull: query 800-900 (-1),
    # max offset sent at 900 under a 7 s delay: GET_MAX_OFFSET (MQAdminImpl.timeoutMillis 6000) times out at 6901
    lab.at(t0 + 850, lab.set_broker_fault, "broker-a", response_delay_ms=7000)
    lab.at(t0 + 2000, producer.send, Message("ORD", "meanwhile"))  # offset 3 (the SYNC send itself times out)
    lab.at(t0 + 4000, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    lab.at(t0 + 10_000, producer.send, Message("ORD", "after"))  # offset 4
    lab.run(until=t0 + 14_000)
    assert _warnings(lab, "compute pull offset") == [
        (t0 + 6901, "Failed to compute pull offset of ORD@broker-a:0; pull again in 1000 ms")
    ]
    pulled = [
        (e.time_ms - t0, e.get("offsets")) for e in lab.trace.of_kind(K.PULLED) if e.get("queue") == "ORD@broker-a:0"
    ]
    assert pulled == [(10_000, [4])]  # retried at 7901: query, max offset 4 (8101), held pull answered at 10 000
    assert [(e.time_ms - t0, e.get("queue_offset")) for e in lab.trace.of_kind(K.DELIVERED)] == [(10_000, 4)]


def test_orderly_first_pull_after_a_failed_offset_query_goes_out_at_offset_minus_1() -> None:
    """The first pull's QUERY_CONSUMER_OFFSET times out (readOffset −2 → −1): 4.9.7 pulls at −1, the broker answers
    OFFSET_MOVED, the queue is dropped and re-added by the next rebalance (it used to pull from the rebalance's
    offset 0 and deliver at once)."""
    lab, producer = _orderly(start=100)
    for i in range(2):
        lab.at(0, producer.send, Message("ORD", f"m{i}"))
    lab.at(50, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    # ORD's rebalance: lock 600-700, query 700-800 (offset 0); first pull's query at 800 under a 6 s delay
    lab.at(750, lab.set_broker_fault, "broker-a", response_delay_ms=6000)
    lab.at(5000, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    lab.run(until=30_000)
    # query times out at 800 + 5000 + 1; the pull at -1 is answered at 5901. The start-up rebalance ended at 800,
    # so RebalanceService's next one starts 20 s later (20 800) and re-adds the queue: delivered 600 ms on
    assert _warnings(lab, "OFFSET_ILLEGAL") == [(5901, "OFFSET_ILLEGAL on ORD@broker-a:0; fixing offset to 0")]
    assert [(e.time_ms, e.get("queue_offset")) for e in lab.trace.of_kind(K.DELIVERED)] == [(21400, 0), (21400, 1)]


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
