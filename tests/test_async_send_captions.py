"""An ASYNC try that gets no response is retried by the callback path, not by sendDefaultImpl's loop (4.9.7:
``MQClientAPIImpl.sendMessageAsync`` → ``onExceptionImpl``, ``retryTimesWhenSendAsyncFailed``): its caption says so
(lab 01a's ASYNC picture named sendDefaultImpl and its 3000 ms budget, revC defect 3)."""

from __future__ import annotations

from rmqlab import EventKind, Lab, Message
from rmqlab.narrate import narrate


def _failed_try(send: str) -> str:
    """The source line of M0002's first try's failure: broker-a is down, the route still lists it (lab 01a)."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    producer = lab.add_producer("pg", send_which_queue_start=0)
    lab.at("1s", producer.send, Message("TopicTest", "warm-up"))
    lab.at("2s", lab.broker_down, "broker-a")
    lab.at("3s", getattr(producer, send), Message("TopicTest", "m1"))
    lab.run(until="12s")
    return next(c.text for c in narrate(lab.trace) if c.kind is EventKind.SEND_RESULT and c.msg_id == "M0002")


def test_an_async_try_without_response_names_on_exception_impl_and_the_async_retry_count() -> None:
    assert _failed_try("send_async") == (
        "MQClientAPIImpl.sendMessageAsync → onExceptionImpl: ASYNC attempt 1 of M0002 to broker-a got no response "
        "(RemotingConnectException: connect to broker-a failed: broker down); onExceptionImpl re-sends it up to 2 "
        "more times (retryTimesWhenSendAsyncFailed), to another broker if one is eligible"
    )


def test_a_sync_try_still_names_send_default_impl_and_its_budget() -> None:
    assert _failed_try("send") == (
        "DefaultMQProducerImpl.sendDefaultImpl: attempt 1 of M0002 to broker-a failed with RemotingConnectException: "
        "connect to broker-a failed: broker down; up to 2 more attempts if the 3000 ms budget allows"
    )
