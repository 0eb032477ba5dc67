"""Producer sends: SYNC retries that avoid the failed broker, one shared time budget, ASYNC/ONEWAY rules."""

from __future__ import annotations

from rmqlab import EventKind as K
from rmqlab import Lab, Message, SendStatus


def attempts(lab: Lab, **fields: object) -> list[tuple[int, str, int, int, str]]:
    """(time, broker, queue id, attempt, outcome) of each SEND_RESULT matching ``fields`` (e.g. ``msg_id``)."""
    results = lab.trace.where(K.SEND_RESULT, **fields)
    return [(e.time_ms, e.get("broker"), e.get("queue_id"), e.get("attempt"), e.get("outcome")) for e in results]


def test_sync_retry_avoids_the_broker_that_just_failed(lab2: Lab) -> None:
    producer = lab2.add_producer("pg", send_which_queue_start=0)
    lab2.at(0, producer.send, Message("T", "warm-up"))  # caches the route: a-0 a-1 b-0 b-1
    lab2.at(1000, lab2.broker_down, "broker-a")
    lab2.at(2000, producer.send, Message("T", "x"))  # index 2 → b-0; index 3 → b-1 ... choose one on broker-a first
    lab2.at(3000, producer.send, Message("T", "y"))
    lab2.run(until="4s")
    assert attempts(lab2, msg_id="M0001") == [(0, "broker-a", 1, 1, "SUCCESS")]
    assert attempts(lab2, msg_id="M0002") == [(2000, "broker-b", 0, 1, "SUCCESS")]
    assert attempts(lab2, msg_id="M0003") == [(3000, "broker-b", 1, 1, "SUCCESS")]
    down_first = Lab(seed=7)
    down_first.add_broker("broker-a")
    down_first.add_broker("broker-b")
    down_first.create_topic("T", queues=2)
    p = down_first.add_producer("pg", send_which_queue_start=3)
    down_first.at(0, p.send, Message("T", "warm-up"))  # index 4 % 4 = 0 → a-0
    down_first.at(1000, down_first.broker_down, "broker-a")
    down_first.at(2000, p.send, Message("T", "x"))  # index 5 → a-1 fails; retry skips a: index 6 → b-0
    down_first.run(until="3s")
    refused, retried = attempts(down_first, msg_id="M0002")
    assert refused[:4] == (2000, "broker-a", 1, 1) and refused[4].startswith("RemotingConnectException")
    assert retried == (2000, "broker-b", 0, 2, "SUCCESS")
    assert down_first.sends[1].ok and down_first.sends[1].attempts == 2


def test_sync_makes_three_attempts_then_fails_with_brokers_sent(lab: Lab) -> None:
    producer = lab.add_producer("pg", send_which_queue_start=0)
    lab.at(0, producer.send, Message("T", "warm-up"))
    lab.at(1, lab.broker_down, "broker-a")
    lab.at(2, producer.send, Message("T", "x"))
    lab.run(until="1s")
    got = attempts(lab, msg_id="M0002")  # after the warm-up
    assert [(t, b, q, a) for t, b, q, a, _ in got] == [
        (2, "broker-a", 2, 1),
        (2, "broker-a", 3, 2),
        (2, "broker-a", 0, 3),
    ]
    assert lab.sends[1].error == (
        "MQClientException: Send [3] times, still failed, cost [0]ms, Topic: T, BrokersSent: "
        "[broker-a, broker-a, broker-a] (RemotingConnectException: connect to broker-a failed: broker down)"
    )


def test_a_timed_out_first_attempt_leaves_no_budget_so_no_retry(lab2: Lab) -> None:
    """Misconception: 'sync send retries 2 more times, each with 3 s'. One budget: a timeout ends the send."""
    producer = lab2.add_producer("pg", send_which_queue_start=0)
    lab2.set_broker_fault("broker-a", response_delay_ms=5000)
    lab2.at(0, producer.send, Message("T", "x"))
    lab2.run(until="10s")
    assert attempts(lab2) == [(3001, "broker-a", 1, 1, "RemotingTimeoutException: wait response timeout 3000ms")]
    assert lab2.sends[0].error == "RemotingTooMuchRequestException: sendDefaultImpl call timeout"
    stored = lab2.trace.of_kind(K.STORED)
    assert [(e.time_ms, e.actor, e.msg_id) for e in stored] == [(0, "broker-a", "M0001")]  # stored anyway


def test_a_lost_response_after_store_makes_a_duplicate_on_retry(lab2: Lab) -> None:
    producer = lab2.add_producer("pg", send_which_queue_start=0)
    lab2.set_broker_fault("broker-a", lose_responses=True)
    lab2.at(0, producer.send, Message("T", "x"))
    lab2.run(until="1s")
    stored = [(e.actor, e.msg_id) for e in lab2.trace.of_kind(K.STORED)]
    assert stored == [("broker-a", "M0001"), ("broker-b", "M0001")]
    assert lab2.sends[0].ok and lab2.sends[0].result.message_queue.broker_name == "broker-b"


def test_flush_disk_timeout_is_a_status_not_retried_by_default(lab2: Lab) -> None:
    producer = lab2.add_producer("pg", send_which_queue_start=0)
    lab2.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
    lab2.at(0, producer.send, Message("T", "x"))
    lab2.run(until="1s")
    assert lab2.sends[0].result.send_status is SendStatus.FLUSH_DISK_TIMEOUT
    assert lab2.sends[0].error is None and lab2.sends[0].attempts == 1


def test_retry_another_broker_when_not_store_ok_retries_and_duplicates(lab2: Lab) -> None:
    producer = lab2.add_producer("pg", send_which_queue_start=0, retry_another_broker_when_not_store_ok=True)
    lab2.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
    lab2.at(0, producer.send, Message("T", "x"))
    lab2.run(until="1s")
    assert lab2.sends[0].result.send_status is SendStatus.SEND_OK
    assert [(e.actor, e.msg_id) for e in lab2.trace.of_kind(K.STORED)] == [("broker-a", "M0001"), ("broker-b", "M0001")]


def test_oneway_never_retries(lab2: Lab) -> None:
    producer = lab2.add_producer("pg", send_which_queue_start=3)
    lab2.at(0, producer.send, Message("T", "warm-up"))  # index 4 → a-0
    lab2.at(1, lab2.broker_down, "broker-a")
    lab2.at(2, producer.send_oneway, Message("T", "x"))  # index 5 → a-1: refused, and that is the end of it
    lab2.at(3, producer.send_oneway, Message("T", "y"))  # index 6 → b-0
    lab2.run(until="1s")
    oneway = [
        (e.msg_id, e.get("broker"), e.get("queue_id"), e.get("attempt")) for e in lab2.trace.of_kind(K.SEND_ATTEMPT)
    ]
    assert oneway[1:] == [("M0002", "broker-a", 1, 1), ("M0003", "broker-b", 0, 1)]
    assert lab2.sends[1].error.startswith("MQClientException: Send [1] times, still failed")  # sendDefaultImpl
    assert lab2.sends[2].error is None and lab2.sends[2].done
    assert [e.msg_id for e in lab2.trace.of_kind(K.STORED)] == ["M0001", "M0003"]


def test_async_retries_no_response_failures_on_another_broker_keeping_the_queue_id(lab2: Lab) -> None:
    producer = lab2.add_producer("pg", send_which_queue_start=3)
    lab2.at(0, producer.send, Message("T", "warm-up"))
    lab2.at(1, lab2.broker_down, "broker-a")
    seen: list[str] = []
    lab2.at(2, producer.send_async, Message("T", "x"), lambda result: seen.append(str(result.message_queue)))
    lab2.run(until="1s")
    got = attempts(lab2, msg_id="M0002")  # after the warm-up
    assert [(b, q, a) for _, b, q, a, _ in got] == [("broker-a", 1, 1), ("broker-b", 1, 2)]
    assert seen == ["T@broker-b:1"]  # re-selected broker, original queue id


def test_async_does_not_retry_an_error_response(lab2: Lab) -> None:
    """Contrast with SYNC: an ASYNC send that gets an error *response* fails at once."""
    producer = lab2.add_producer("pg", send_which_queue_start=0)
    lab2.set_broker_fault("broker-a", send_error="SYSTEM_ERROR")
    errors: list[str] = []
    lab2.at(0, producer.send_async, Message("T", "x"), None, errors.append)
    lab2.at(10, producer.send, Message("T", "y"))  # SYNC retries SYSTEM_ERROR (code 1) on broker-b
    lab2.run(until="1s")
    assert errors == ["MQBrokerException: CODE: 1 (SYSTEM_ERROR) DESC: [SYSTEM_ERROR] injected fault"]
    assert [(e.msg_id, e.get("broker")) for e in lab2.trace.of_kind(K.SEND_ATTEMPT)] == [
        ("M0001", "broker-a"),
        ("M0002", "broker-b"),
    ]
    assert lab2.sends[1].ok


def test_system_busy_is_not_retried_by_sync_in_4_9(lab2: Lab) -> None:
    """Misconception: 'the producer retries when the broker is busy'. SYSTEM_BUSY (2) is not in retryResponseCodes."""
    producer = lab2.add_producer("pg", send_which_queue_start=3)
    lab2.set_broker_fault("broker-a", send_error="SYSTEM_BUSY")
    lab2.at(0, producer.send, Message("T", "x"))
    lab2.run(until="1s")
    assert lab2.sends[0].attempts == 1
    assert lab2.sends[0].error == "MQBrokerException: CODE: 2 (SYSTEM_BUSY) DESC: [SYSTEM_BUSY] injected fault"


def test_selector_send_sticks_to_its_queue_and_never_retries(lab2: Lab) -> None:
    producer = lab2.add_producer("pg")
    lab2.at(0, producer.send, Message("T", "warm-up"))
    lab2.at(1, lab2.broker_down, "broker-a")
    selector = lambda mqs, msg, arg: mqs[arg % len(mqs)]  # noqa: E731
    lab2.at(2, producer.send_with_selector, Message("T", "order-1"), selector, 1)  # → a-1, down
    lab2.at(3, producer.send_with_selector, Message("T", "order-2"), selector, 2)  # → b-0
    lab2.at(40_000, producer.send_with_selector, Message("T", "order-1 again"), selector, 1)  # route refreshed: b-1
    lab2.run(until="41s")
    got = [attempts(lab2, msg_id=m) for m in ("M0002", "M0003", "M0004")]  # after the warm-up, one each
    assert [[(b, q, a) for _, b, q, a, _ in one] for one in got] == [[("broker-a", 1, 1)], [("broker-b", 0, 1)],
                                                                    [("broker-b", 1, 1)]]  # fmt: skip
    assert lab2.sends[1].error.startswith("RemotingConnectException")
    assert lab2.sends[3].ok and str(lab2.sends[3].result.message_queue) == "T@broker-b:1"


def test_round_robin_is_seeded_and_deterministic() -> None:
    def run() -> str:
        lab = Lab(seed=42)
        lab.add_broker("broker-a")
        lab.create_topic("T", queues=4)
        p = lab.add_producer("pg")
        for i in range(8):
            lab.at(i, p.send, Message("T", str(i)))
        lab.run(until="1s")
        return lab.trace.to_jsonl()

    first = run()
    assert first == run()
    queues = [line for line in first.splitlines() if '"kind":"send_attempt"' in line]
    assert len(queues) == 8


def test_async_selector_send_retries_on_the_same_broker(lab2: Lab) -> None:
    producer = lab2.add_producer("pg")
    lab2.at(0, producer.send, Message("T", "warm-up"))
    lab2.at(1, lab2.broker_down, "broker-a")
    selector = lambda mqs, msg, arg: mqs[arg % len(mqs)]  # noqa: E731
    lab2.at(2, producer.send_with_selector, Message("T", "order-1"), selector, 1, "ASYNC")
    lab2.run(until="1s")
    got = attempts(lab2, msg_id="M0002")  # after the warm-up
    assert [(b, q, a) for _, b, q, a, _ in got] == [("broker-a", 1, 1), ("broker-a", 1, 2), ("broker-a", 1, 3)]
    assert lab2.sends[1].error.startswith("RemotingConnectException")
