"""ONEWAY sends (issue 34 item 6): written and forgotten, as 4.9.7's ``invokeOneway``.

* ``NettyRemotingClient.invokeOneway``: no channel to the broker → ``RemotingConnectException`` at once;
  ``sendDefaultImpl`` (``timesTotal = 1`` for ONEWAY) wraps it: "Send [1] times, still failed",
  CONNECT_BROKER_EXCEPTION (10001).
* ``NettyRemotingAbstract.invokeOnewayImpl``: the request is written and nothing waits; the broker writes no response
  to a oneway request (``processRequestCommand``: ``if (!cmd.isOnewayRPC())``). So a slow broker, lost responses or
  an error answer change nothing for the producer: the send is over when the request is written, and a request the
  broker refuses is lost with no exception.
"""

from __future__ import annotations

from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, check_invariants
from rmqlab import EventKind as K
from rmqlab.client.producer.default_mq_producer import DefaultMQProducer


def lab_with_consumer() -> tuple[Lab, DefaultMQProducer]:
    """broker-a with one queue of ``T``, a producer ``pg`` and a consumer ``c1`` that takes everything."""
    lab = Lab(seed=5)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg", name="c1", subscribe={"T": "*"}, listener=lambda m, c: ConsumeConcurrentlyStatus.CONSUME_SUCCESS
    )
    return lab, producer


def send_events(lab: Lab) -> list[tuple[int, str, str | None, object]]:
    """What the producer and the broker record of the send: (time, kind, actor, outcome / error / topic)."""
    kinds = (K.SEND_ATTEMPT, K.SEND_RESULT, K.SEND_FAILED, K.STORED, K.CONSUMED)
    return [
        (e.time_ms, e.kind.value, e.actor, e.get("outcome", e.get("error", e.get("status"))))
        for e in lab.trace.where(*kinds, msg_id="M0001")
    ]


def test_a_oneway_send_to_a_slow_broker_is_over_when_written_and_never_times_out() -> None:
    """broker-a answers 5 s late, past the 3 s timeout: a SYNC send would time out; the oneway send is over at
    2000 ms, the message stored then, and nothing more is recorded for it by the producer."""
    lab, producer = lab_with_consumer()
    lab.at("1s", lab.set_broker_fault, "broker-a", response_delay_ms=5000)
    lab.at("2s", producer.send_oneway, Message("T", "x"))
    lab.run(until="2s")
    future = lab.sends[0]
    assert (future.done, future.result, future.error, future.attempts) == (True, None, None, 1)
    lab.run(until="20s")
    assert [e for e in send_events(lab) if e[1] != "consumed"] == [
        (2000, "send_attempt", "producer:pg", None),
        (2000, "stored", "broker-a", None),
        (2000, "send_result", "producer:pg", "ONEWAY_SENT"),
    ]
    assert [e.time_ms for e in lab.trace.where(K.CONSUMED, msg_id="M0001")] == [2000]


def test_a_oneway_request_the_broker_refuses_is_lost_with_no_exception() -> None:
    """broker-a answers every SEND_MESSAGE with SYSTEM_ERROR and stores nothing: the SYNC send is told (and
    retried), the oneway send is not. Its message is simply gone; the producer never learns it."""
    lab, producer = lab_with_consumer()
    lab.at("1s", lab.set_broker_fault, "broker-a", send_error="SYSTEM_ERROR")
    lab.at("2s", producer.send_oneway, Message("T", "fire-and-forget"))
    lab.at("3s", producer.send, Message("T", "sync"))
    lab.run(until="30s")
    oneway, sync = lab.sends
    assert (oneway.done, oneway.error, oneway.response_code, oneway.attempts) == (True, None, None, 1)
    assert send_events(lab) == [
        (2000, "send_attempt", "producer:pg", None),
        (2000, "send_result", "producer:pg", "ONEWAY_SENT"),
    ]
    assert (sync.attempts, sync.response_code) == (3, 1)  # SYSTEM_ERROR is in retryResponseCodes
    assert list(lab.trace.where(K.STORED)) == []
    report = check_invariants(lab)
    assert report.ok and report.counts["produced"] == 0  # nothing stored: nothing the broker side can account for


def test_a_oneway_request_whose_response_would_be_lost_still_takes_effect() -> None:
    """Lost responses do not touch a oneway send: stored at 2000 ms, consumed, ONEWAY_SENT, no error."""
    lab, producer = lab_with_consumer()
    lab.at("1s", lab.set_broker_fault, "broker-a", lose_responses=True)
    lab.at("2s", producer.send_oneway, Message("T", "x"))
    lab.at("3s", lab.set_broker_fault, "broker-a", lose_responses=False)
    lab.run(until="60s")
    assert [e for e in send_events(lab) if e[1] != "consumed"] == [
        (2000, "send_attempt", "producer:pg", None),
        (2000, "stored", "broker-a", None),
        (2000, "send_result", "producer:pg", "ONEWAY_SENT"),
    ]
    assert lab.sends[0].error is None
    assert len(list(lab.trace.where(K.CONSUMED, msg_id="M0001"))) == 1


def test_a_oneway_send_to_a_dead_broker_throws_the_connect_exception_at_once() -> None:
    """No channel: ``RemotingConnectException`` in the same millisecond, one attempt, CONNECT_BROKER_EXCEPTION."""
    lab, producer = lab_with_consumer()
    lab.at("1s", producer.send, Message("T", "warm-up"))  # the route is cached: broker-a is still listed
    lab.at("2s", lab.broker_down, "broker-a")
    lab.at("3s", producer.send_oneway, Message("T", "x"))
    lab.run(until="4s")
    future = lab.sends[1]
    assert (future.done, future.attempts, future.response_code) == (True, 1, 10001)
    assert future.error is not None and future.error.startswith("MQClientException: Send [1] times, still failed")
    outcomes = [
        (e.time_ms, e.kind.value, e.get("outcome", e.get("error")))
        for e in lab.trace.where(K.SEND_ATTEMPT, K.SEND_RESULT, K.SEND_FAILED, msg_id="M0002")
    ]
    assert outcomes == [
        (3000, "send_attempt", None),
        (3000, "send_result", "RemotingConnectException: connect to broker-a failed: broker down"),
        (3000, "send_failed", future.error),
    ]
