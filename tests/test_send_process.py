"""The send as a process: ``sendDefaultImpl``'s loop blocks on each attempt, an ASYNC request lives on by itself.

Each test builds brokers with one queue of ``T`` each, so the route is ``[a-0, b-0, c-0]`` and the round-robin
index alone says where an attempt goes (``index % brokers``; ``TopicPublishInfo.selectOneMessageQueue``).
"""

from __future__ import annotations

from rmqlab import EventKind as K
from rmqlab import Lab, Message, TimerKind
from rmqlab.client.producer.default_mq_producer import DefaultMQProducer
from rmqlab.narrate import narrate


def cluster(*brokers: str, start: int, **options: object) -> tuple[Lab, DefaultMQProducer]:
    """One-queue brokers and a producer whose next round-robin index is ``start + 1``."""
    lab = Lab(seed=3)
    for name in brokers:
        lab.add_broker(name)
    lab.create_topic("T", queues=1)
    return lab, lab.add_producer("pg", send_which_queue_start=start, **options)


def timeline(lab: Lab, msg_id: str) -> list[tuple[int, str, str | None, int | None, str | None]]:
    """SEND_ATTEMPT / SEND_RESULT / SEND_FAILED of one send: (time, kind, broker, attempt, outcome, error or mode)."""
    return [
        (e.time_ms, e.kind.value, e.get("broker"), e.get("attempt"), e.get("outcome", e.get("error", e.get("mode"))))
        for e in lab.trace.where(K.SEND_ATTEMPT, K.SEND_RESULT, K.SEND_FAILED, msg_id=msg_id)
    ]


def test_sync_with_the_first_two_brokers_down_makes_three_attempts_in_the_same_millisecond() -> None:
    """Connection failures are instant and there is no back-off: the loop's three turns happen at 2000 ms."""
    lab, producer = cluster("broker-a", "broker-b", "broker-c", start=1)
    lab.at(0, producer.send, Message("T", "warm-up"))  # index 2 → c-0; the route (a, b, c) is cached
    lab.at(1000, lab.broker_down, "broker-a")
    lab.at(1000, lab.broker_down, "broker-b")  # the cache still lists both until the next 30 s poll
    lab.at(2000, producer.send, Message("T", "x"))  # index 3 → a-0; avoiding a: 4 → b-0; avoiding b: 5 → c-0
    lab.run(until="3s")
    down = "RemotingConnectException: connect to broker-{} failed: broker down"
    assert timeline(lab, "M0002") == [
        (2000, "send_attempt", "broker-a", 1, "SYNC"),
        (2000, "send_result", "broker-a", 1, down.format("a")),
        (2000, "send_attempt", "broker-b", 2, "SYNC"),
        (2000, "send_result", "broker-b", 2, down.format("b")),
        (2000, "send_attempt", "broker-c", 3, "SYNC"),
        (2000, "send_result", "broker-c", 3, "SUCCESS"),
    ]
    send = lab.sends[1]
    assert send.ok and send.attempts == 3 and send.result is not None
    assert send.result.message_queue.broker_name == "broker-c"


def test_the_sync_process_waits_for_each_answer_and_the_next_turn_starts_when_it_arrives() -> None:
    lab, producer = cluster("broker-a", "broker-b", "broker-c", start=1)
    lab.at(0, producer.send, Message("T", "warm-up"))
    lab.at(1000, lab.broker_down, "broker-a")
    lab.at(1000, lab.set_broker_fault, "broker-b", send_error="SYSTEM_ERROR", response_delay_ms=400)
    lab.at(1000, lab.set_broker_fault, "broker-c", response_delay_ms=250)
    lab.at(2000, producer.send, Message("T", "x"))
    lab.run(until=2649)
    assert not lab.sends[1].done  # blocked in its third attempt
    lab.run(until="3s")
    assert timeline(lab, "M0002") == [
        (2000, "send_attempt", "broker-a", 1, "SYNC"),
        (2000, "send_result", "broker-a", 1, "RemotingConnectException: connect to broker-a failed: broker down"),
        (2000, "send_attempt", "broker-b", 2, "SYNC"),
        (
            2400,
            "send_result",
            "broker-b",
            2,
            "MQBrokerException: CODE: 1 (SYSTEM_ERROR) DESC: [SYSTEM_ERROR] injected fault",
        ),
        (2400, "send_attempt", "broker-c", 3, "SYNC"),  # SYSTEM_ERROR is in retryResponseCodes: next turn at once
        (2650, "send_result", "broker-c", 3, "SUCCESS"),
    ]
    assert lab.sends[1].ok


def test_the_budget_is_checked_after_the_queue_is_chosen_and_before_the_attempt() -> None:
    """Turn 2 has 1000 ms left and times out at 3001; turn 3 picks a queue, finds 3001 > 3000 and stops."""
    lab, producer = cluster("broker-a", "broker-b", start=1)
    lab.set_broker_fault("broker-a", send_error="SYSTEM_ERROR", response_delay_ms=2000)
    lab.set_broker_fault("broker-b", response_delay_ms=1500)
    lab.at(0, producer.send, Message("T", "x"))  # index 2 → a-0; 3 → b-0
    lab.run(until="5s")
    assert timeline(lab, "M0001") == [
        (0, "send_attempt", "broker-a", 1, "SYNC"),
        (
            2000,
            "send_result",
            "broker-a",
            1,
            "MQBrokerException: CODE: 1 (SYSTEM_ERROR) DESC: [SYSTEM_ERROR] injected fault",
        ),
        (2000, "send_attempt", "broker-b", 2, "SYNC"),
        (3001, "send_result", "broker-b", 2, "RemotingTimeoutException: wait response timeout 1000ms"),
        (3001, "send_failed", None, None, "RemotingTooMuchRequestException: sendDefaultImpl call timeout"),
    ]
    assert lab.sends[0].attempts == 2
    assert producer.send_which_queue.value == 4  # turn 3 still drew its queue (index 4 → a-0)


def test_async_re_sends_a_timed_out_request_with_what_is_left_of_the_budget() -> None:
    """``onExceptionImpl``: two re-sends at 3001 ms with a spent budget, each on the broker re-selected."""
    lab, producer = cluster("broker-a", "broker-b", start=1)
    lab.set_broker_fault("broker-a", response_delay_ms=5000)
    outcome: list[object] = []
    lab.at(0, producer.send_async, Message("T", "x"), outcome.append, outcome.append)
    lab.run(until=3000)
    assert not lab.sends[0].done and outcome == []
    lab.run(until="10s")
    no_time = "RemotingTimeoutException: no time left for the request"
    assert timeline(lab, "M0001") == [
        (0, "send_attempt", "broker-a", 1, "ASYNC"),
        (3001, "send_result", "broker-a", 1, "RemotingTimeoutException: wait response timeout 3000ms"),
        (3001, "send_attempt", "broker-b", 2, "ASYNC"),  # avoiding a: index 3 → b
        (3001, "send_result", "broker-b", 2, no_time),
        (3001, "send_attempt", "broker-a", 3, "ASYNC"),  # avoiding b: index 4 → a
        (3001, "send_result", "broker-a", 3, no_time),
        (3001, "send_failed", None, None, no_time),  # 3 > retry_times_when_send_async_failed (2)
    ]
    assert outcome == [no_time]


def test_async_hand_over_a_connect_failure_is_recorded_first_and_the_fast_success_overwrites_it() -> None:
    """4.9.7: ``invokeAsync`` throws inside ``sendKernelImpl`` (isolation, then the re-send on broker-b), and only
    then does ``sendDefaultImpl`` record its fast success for broker-a."""
    lab, producer = cluster("broker-a", "broker-b", start=0, send_latency_fault_enable=True)
    lab.at(0, producer.send, Message("T", "warm-up"))  # index 1 → b-0
    lab.at(1000, lab.broker_down, "broker-a")
    lab.at(2000, producer.send_async, Message("T", "x"))  # index 2 → a-0: no fault item yet, so "available"
    lab.run(until="3s")
    results = [(e.get("broker"), e.get("not_available_until")) for e in lab.trace.where(K.SEND_RESULT, msg_id="M0002")]
    assert results == [("broker-a", 2000 + 600_000), ("broker-b", 2000)]
    table = producer.fault_strategy.latency_fault_tolerance.fault_item_table
    assert table["broker-a"].start_timestamp == 2000  # overwritten by the fast success: a is available again


def test_async_hand_over_to_a_reachable_broker_records_the_fast_success_before_the_response() -> None:
    lab, producer = cluster("broker-a", "broker-b", start=1, send_latency_fault_enable=True)
    lab.set_broker_fault("broker-a", response_delay_ms=600)
    lab.at(0, producer.send_async, Message("T", "x"))  # index 2 → a-0
    lab.run(until="1s")
    assert [(e.time_ms, e.get("not_available_until")) for e in lab.trace.of_kind(K.SEND_RESULT)] == [(600, 30_600)]
    item = producer.fault_strategy.latency_fault_tolerance.fault_item_table["broker-a"]
    assert (item.current_latency, item.start_timestamp) == (600, 30_600)  # the response's 600 ms came last


def test_shutdown_mid_send_stops_the_route_poll_but_the_send_under_way_completes() -> None:
    """rmqlab's ``shutdown`` closes no connection: the attempt in flight is answered and the send returns, while
    the route poll (a process of the producer, armed for 30 010 ms) ends at once."""
    lab, producer = cluster("broker-a", "broker-b", start=1)
    lab.set_broker_fault("broker-a", response_delay_ms=1000)
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until=400)
    assert [(t.kind, t.due_ms) for t in lab.snapshot().timers_of(owner=producer.actor)] == [
        (TimerKind.ROUTE_POLL, 30_010)
    ]
    lab.at(500, producer.shutdown)
    lab.run(until=600)
    assert lab.snapshot().timers_of(owner=producer.actor) == ()
    assert not lab.sends[0].done
    lab.run(until="5s")
    assert timeline(lab, "M0001") == [
        (0, "send_attempt", "broker-a", 1, "SYNC"),
        (1000, "send_result", "broker-a", 1, "SUCCESS"),
    ]
    assert lab.sends[0].ok


def test_async_a_lost_response_comes_after_the_hand_over_so_its_isolation_stands() -> None:
    """The broker is reachable: the fast success is recorded first, the failure (no response) after it."""
    lab, producer = cluster("broker-a", "broker-b", start=1, send_latency_fault_enable=True)
    lab.set_broker_fault("broker-a", lose_responses=True)
    lab.at(0, producer.send_async, Message("T", "x"))  # index 2 → a-0; the re-send: index 3 → b-0
    lab.run(until="1s")
    results = [(e.get("broker"), e.get("not_available_until")) for e in lab.trace.of_kind(K.SEND_RESULT)]
    assert results == [("broker-a", 600_000), ("broker-b", 0)]
    assert producer.fault_strategy.latency_fault_tolerance.fault_item_table["broker-a"].start_timestamp == 600_000
    assert lab.sends[0].ok


def test_a_kept_non_ok_result_beats_the_call_timeout() -> None:
    """4.9.7 ``sendDefaultImpl``: after the loop, ``if (sendResult != null) return sendResult`` comes before
    ``if (callTimeout) throw``. broker-a stores with FLUSH_DISK_TIMEOUT (kept, try another broker); broker-b's
    attempt times out at 3001 ms; turn 3 finds the budget spent and breaks: the caller gets broker-a's result."""
    lab, producer = cluster("broker-a", "broker-b", start=1, retry_another_broker_when_not_store_ok=True)
    lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
    lab.set_broker_fault("broker-b", response_delay_ms=5000)
    lab.at(0, producer.send, Message("T", "x"))  # index 2 → a-0; 3 → b-0
    lab.run(until="6s")
    assert [(t, b, o) for t, _, b, _, o in timeline(lab, "M0001")[1::2]] == [
        (0, "broker-a", "FLUSH_DISK_TIMEOUT"),
        (3001, "broker-b", "RemotingTimeoutException: wait response timeout 3000ms"),
    ]
    send = lab.sends[0]
    assert send.error is None and send.result is not None and send.attempts == 2
    assert (send.result.send_status, send.result.message_queue.broker_name) == ("FLUSH_DISK_TIMEOUT", "broker-a")
    assert lab.trace.of_kind(K.SEND_FAILED) == []


def test_every_turn_of_a_send_chooses_from_the_route_it_started_with() -> None:
    """``sendDefaultImpl`` reads ``tryToFindTopicPublishInfo`` once, before the loop. A route poll during the send
    replaces the table's entry with a new ``TopicPublishInfo`` but not the one the loop holds: broker-c, gone from
    the name server at 30 005 ms and from the producer's table at the 30 010 ms poll, is still tried at 30 050."""
    lab, producer = cluster("broker-a", "broker-b", "broker-c", start=0)
    lab.at(30_000, lab.set_broker_fault, "broker-b", response_delay_ms=50)
    lab.at(30_000, producer.send, Message("T", "x"))  # first lookup (a, b, c); index 1 → b-0
    lab.at(30_005, lab.broker_down, "broker-c")
    lab.at(30_020, lab.broker_down, "broker-b")  # b's answer is lost on the way: an error at 30 050
    lab.run(until="31s")
    assert [(t, b) for t, kind, b, _, _ in timeline(lab, "M0001") if kind == "send_attempt"] == [
        (30_000, "broker-b"),
        (30_050, "broker-c"),  # avoiding b: index 2 → c-0, from the route the send started with
        (30_050, "broker-a"),  # avoiding c: index 3 → a-0
    ]
    assert lab.sends[0].ok
    info = producer.impl.topic_publish_info_table["T"]
    assert [mq.broker_name for mq in info.message_queue_list] == ["broker-a", "broker-b"]  # the poll's new entry


def test_each_attempt_carries_what_is_left_of_the_one_budget() -> None:
    """``sendDefaultImpl`` hands ``timeout - costTime`` to each turn: SYSTEM_ERROR twice, 400 ms each, then SUCCESS."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=4)
    lab.set_broker_fault("broker-a", send_responses=["SYSTEM_ERROR", "SYSTEM_ERROR", "SUCCESS"], response_delay_ms=400)
    future = lab.add_producer("pg").send(Message("T", "x"))
    lab.run(until="5s")
    got = [
        (e.time_ms, e.get("attempt"), e.get("queue_id"), e.get("timeout_ms")) for e in lab.trace.where(K.SEND_ATTEMPT)
    ]
    assert got == [(0, 1, 0, 3000), (400, 2, 1, 2600), (800, 3, 2, 2200)]
    assert future.result is not None and future.result.queue_offset == 0
    third = lab.trace.first(K.SEND_ATTEMPT, attempt=3)
    assert next(c.text for c in narrate(lab.trace) if c.seq == third.seq).endswith(
        "resent at once, no backoff, with 2200 ms of the budget left; no other broker is eligible, so round robin "
        "picks T@broker-a:2 on broker-a again"
    )
