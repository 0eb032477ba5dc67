"""Orderly consumption: suspend-and-retry, unlimited retries, DLQ past an explicit max, the three locks."""

from __future__ import annotations

from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind as K
from rmqlab import Lab, Message, after
from rmqlab.common.message_queue import MessageQueue


def orderly_lab(**consumer_options) -> tuple[Lab, object]:
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    producer = lab.add_producer("pg")
    return lab, producer


def delivered(lab: Lab) -> list[tuple[int, str, int]]:
    return [(e.time_ms, e.msg_id, e.get("reconsume_times")) for e in lab.trace.of_kind(K.DELIVERED)]


def test_suspend_retries_the_same_message_at_the_configured_interval() -> None:
    lab, producer = orderly_lab()
    listener = lambda msgs, ctx: O.SUSPEND_CURRENT_QUEUE_A_MOMENT if msgs[0].reconsume_times < 2 else O.SUCCESS  # noqa: E731
    lab.add_consumer(
        "og", subscribe={"ORD": "*"}, listener=listener, orderly=True, suspend_current_queue_time_millis=500
    )
    lab.at("2s", producer.send, Message("ORD", "a"))
    lab.at("2s", producer.send, Message("ORD", "b"))
    lab.run(until="10s")
    assert delivered(lab) == [
        (2000, "M0001", 0),
        (2500, "M0001", 1),
        (3000, "M0001", 2),
        (3000, "M0002", 0),
        (3500, "M0002", 1),
        (4000, "M0002", 2),
    ]
    assert [e.get("retry_in_ms") for e in lab.trace.of_kind(K.SUSPENDED)] == [500, 500, 500, 500]
    assert lab.brokers["broker-a"].consumer_offsets[("og", "ORD", 0)] == 2
    assert all(e.get("queue") == "ORD@broker-a:0" for e in lab.trace.of_kind(K.DELIVERED))  # no %RETRY% round trip


def test_orderly_default_retries_forever_and_blocks_the_queue() -> None:
    """Misconception: 'orderly consumers retry 16 times then DLQ'. Default max is Integer.MAX_VALUE."""
    lab, producer = orderly_lab()
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: None, orderly=True)
    lab.at("2s", producer.send, Message("ORD", "poison"))
    lab.at("2s", producer.send, Message("ORD", "behind"))
    lab.run(until="2m")
    got = delivered(lab)
    assert {m for _, m, _ in got} == {"M0001"}  # M0002 never gets its turn
    assert [t for t, _, _ in got[:4]] == [2000, 3000, 4000, 5000]
    assert len(got) == 119 and got[-1][2] == 118
    assert lab.trace.of_kind(K.DEAD_LETTERED) == []


def test_orderly_past_an_explicit_max_goes_to_dlq_via_retry_topic_and_the_queue_moves_on() -> None:
    lab, producer = orderly_lab()
    lab.add_consumer(
        "og",
        subscribe={"ORD": "*"},
        listener=lambda m, c: O.SUSPEND_CURRENT_QUEUE_A_MOMENT if m[0].body == "poison" else O.SUCCESS,
        orderly=True,
        max_reconsume_times=2,
    )
    lab.at("2s", producer.send, Message("ORD", "poison"))
    lab.at("2s", producer.send, Message("ORD", "next"))
    lab.run(until="1m")
    assert delivered(lab) == [(2000, "M0001", 0), (3000, "M0001", 1), (4000, "M0001", 2), (4000, "M0002", 0)]
    (back,) = lab.trace.of_kind(K.SEND_BACK)
    assert (back.time_ms, back.get("reconsume_times"), back.get("delay_level")) == (4000, 2, 5)
    # 4.9.x quirk: the client's DELAY = 3 + rt survives handleRetryAndDLQ, so the DLQ copy waits level 5 (1 min)
    (parked,) = lab.trace.of_kind(K.SCHEDULED)
    assert (parked.get("real_topic"), parked.get("due_ms")) == ("%DLQ%og", 64_000)
    lab.run(until="2m")
    (dlq,) = lab.trace.of_kind(K.DEAD_LETTERED)
    assert (dlq.time_ms, dlq.msg_id, dlq.get("reconsume_times")) == (64_000, "M0001", 2)


def test_lock_taken_at_rebalance_and_renewed_every_20_s() -> None:
    lab, _ = orderly_lab()
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c1")
    lab.run(until="62s")
    acquired = [(e.time_ms, e.get("queue")) for e in lab.trace.of_kind(K.LOCK_ACQUIRED)]
    assert acquired == [(0, "%RETRY%og@broker-a:0"), (0, "ORD@broker-a:0")]  # the retry queue is orderly-locked too
    renewed = sorted({e.time_ms for e in lab.trace.of_kind(K.LOCK_RENEWED) if e.get("queue") == "ORD@broker-a:0"})
    assert renewed == [1000, 21_000, 41_000, 61_000]
    lock = lab.snapshot().lock("og", "ORD@broker-a:0")
    assert lock is not None and (lock.client, lock.ms_left) == ("c1", 59_000)


def test_a_crashed_holder_blocks_the_queue_until_the_broker_lock_expires_60_s_later() -> None:
    """Broker lock 60 s, not 30 s: the survivor cannot lock the crashed consumer's queue before then."""
    lab, producer = orderly_lab()
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c1")
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c2", start="5s")
    lab.at("30s", lambda: lab.consumers["c1"].crash())
    for t in range(30, 120, 10):
        lab.at(f"{t}s", producer.send, Message("ORD", f"m{t}"))
    lab.run(until="3m")
    expired = lab.trace.first(K.LOCK_EXPIRED, queue="ORD@broker-a:0")
    # c1 last renewed the lock at 21 s; it expires once more than 60 s have passed: first refused at 81 s
    assert expired.get("previous_holder") == "c1" and expired.time_ms > 81_000
    assert lab.trace.first(K.LOCK_ACQUIRED, actor="consumer:c2", queue="ORD@broker-a:0").time_ms == expired.time_ms
    assert lab.trace.first(K.DELIVERED, actor="consumer:c2", queue="ORD@broker-a:0").time_ms >= expired.time_ms
    bodies = [
        e.msg_id
        for e in lab.trace.of_kind(K.CONSUMED)
        if e.get("status") == "SUCCESS" and e.get("queue") == "ORD@broker-a:0"
    ]
    assert sorted(set(bodies)) == [f"M{n:04d}" for n in range(1, 10)]


def test_orderly_consumes_in_queue_order_with_one_thread_per_queue() -> None:
    lab, producer = orderly_lab()
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: after("100ms", O.SUCCESS), orderly=True)
    for i in range(5):
        lab.at("2s", producer.send, Message("ORD", f"m{i}"))
    lab.run(until="10s")
    assert [(t, m) for t, m, _ in delivered(lab)] == [(2000 + 100 * i, f"M000{i + 1}") for i in range(5)]


def test_lock_expiry_race_two_consumers_process_one_queue() -> None:
    """c1 is cut off mid-listener; the broker drops it after 120 s and c2 takes the expired lock while c1 still runs."""
    lab, producer = orderly_lab()
    slow = lambda m, c: after("200s", O.SUCCESS) if m[0].body == "slow" else O.SUCCESS  # noqa: E731
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=slow, orderly=True, name="c1")
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c2", start="5s")
    lab.at("10s", producer.send, Message("ORD", "slow"))
    lab.at("11s", producer.send, Message("ORD", "next"))
    lab.at("12s", lab.partition, "c1", "broker-a")
    lab.run(until="5m")
    ord_events = [
        (e.time_ms, e.kind.value, e.actor, e.msg_id)
        for e in lab.trace
        if e.get("queue") == "ORD@broker-a:0" and e.kind in (K.DELIVERED, K.CONSUMED, K.LOCK_EXPIRED)
    ]
    assert ord_events == [
        (10_000, "delivered", "consumer:c1", "M0001"),
        (130_000, "lock_expired", "broker-a", None),  # c1's channel expired (no heartbeat for > 120 s)
        (130_000, "delivered", "consumer:c2", "M0001"),  # … while c1 is still inside its listener
        (130_000, "consumed", "consumer:c2", "M0001"),
        (130_000, "delivered", "consumer:c2", "M0002"),
        (130_000, "consumed", "consumer:c2", "M0002"),
        (210_000, "consumed", "consumer:c1", "M0001"),
    ]


def test_a_removed_queue_holding_messages_is_unlocked_20_s_later() -> None:
    """UNLOCK_DELAY_TIME_MILLS: the old owner still holds suspended messages, so it unlocks the queue after 20 s."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=2)
    producer = lab.add_producer("pg", send_which_queue_start=0)
    lab.add_consumer(
        "og",
        subscribe={"ORD": "*"},
        listener=lambda m, c: O.SUSPEND_CURRENT_QUEUE_A_MOMENT,
        orderly=True,
        name="c1",
        suspend_current_queue_time_millis=30_000,
    )
    lab.add_consumer(
        "og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c2", start="10s"
    )
    lab.at("2s", producer.send, Message("ORD", "a"))
    lab.at("2s", producer.send, Message("ORD", "b"))
    lab.run(until="70s")
    q1 = "ORD@broker-a:1"
    events = [
        (e.time_ms, e.kind.value, e.actor)
        for e in lab.trace
        if e.get("queue") == q1 and e.kind in (K.LOCK_REFUSED, K.UNLOCKED, K.LOCK_ACQUIRED, K.DELIVERED)
    ]
    assert events == [
        (0, "lock_acquired", "consumer:c1"),
        (2000, "delivered", "consumer:c1"),
        (10_000, "lock_refused", "consumer:c2"),  # c1 dropped q1 at 10 s but keeps the broker lock for 20 s
        (30_000, "lock_refused", "consumer:c2"),  # c2's rebalance runs just before c1's delayed unlock
        (30_000, "unlocked", "consumer:c1"),
        (50_000, "lock_acquired", "consumer:c2"),
        (50_000, "delivered", "consumer:c2"),
    ]


def _moving_queue_lab(listener_ms: int) -> Lab:
    """c1 consumes two orderly queues with a listener of ``listener_ms`` from 2 s; c2 joins at 10 s and gets q1."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=2)
    producer = lab.add_producer("pg", send_which_queue_start=0)
    slow = lambda m, c: after(listener_ms, O.SUCCESS)  # noqa: E731
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=slow, orderly=True, name="c1")
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=slow, orderly=True, name="c2", start="10s")
    lab.at("2s", producer.send, Message("ORD", "a"))
    lab.at("2s", producer.send, Message("ORD", "b"))
    return lab


def _queue_1_story(lab: Lab) -> list[tuple[int, str, str]]:
    q1 = "ORD@broker-a:1"
    kinds = (K.LOCK_REFUSED, K.UNLOCKED, K.LOCK_ACQUIRED, K.DELIVERED, K.CONSUMED, K.REBALANCED, K.WARNING)
    return [
        (e.time_ms, e.kind.value, e.actor)
        for e in lab.trace
        if e.kind in kinds
        and (e.get("queue") == q1 or q1 in (e.get("removed") or []) or q1 in str(e.get("message") or ""))
    ]


def test_removing_a_queue_mid_listener_waits_1_s_for_the_consume_lock_then_tries_again_20_s_later() -> None:
    """``removeUnnecessaryMessageQueue``: ``tryLock(1000 ms)`` on the ProcessQueue's consume lock. c1's listener
    holds it from 2 s to 27 s, so c1's rebalance at 10 s gives up at 11 s ("[WRONG]mq is consuming"), keeps q1
    dropped in its table and, 20 s after that rebalance ended (``waitForRunning``), removes and unlocks it at 31 s.
    c2's rebalances (10, 30, 50 s: 20 s after each) are refused until the broker lock is free."""
    lab = _moving_queue_lab(25_000)
    lab.run(until="20s")
    pq = lab.consumers["c1"].process_queue_table[MessageQueue("ORD", "broker-a", 1)]
    assert (pq.dropped, pq.try_unlock_times) == (True, 1)
    lab.run(until="70s")
    assert _queue_1_story(lab) == [
        (0, "lock_acquired", "consumer:c1"),
        (2000, "delivered", "consumer:c1"),
        (10_000, "lock_refused", "consumer:c2"),
        (11_000, "warning", "consumer:c1"),
        (27_000, "consumed", "consumer:c1"),
        (30_000, "lock_refused", "consumer:c2"),
        (31_000, "unlocked", "consumer:c1"),
        (31_000, "rebalanced", "consumer:c1"),
        (50_000, "lock_acquired", "consumer:c2"),
        (50_000, "delivered", "consumer:c2"),
    ]
    warning = lab.trace.first(K.WARNING, actor="consumer:c1")
    assert warning.get("message") == (
        "[WRONG]mq is consuming, so can not unlock it, ORD@broker-a:1. maybe hanged for a while, 0"
    )


def test_a_listener_returning_within_the_1_s_wait_lets_the_rebalance_release_the_queue_then() -> None:
    """The listener returns at 10.6 s, inside the rebalance's 1 s wait: the rebalance takes the consume lock then,
    after the consume thread's own step (CONSUMED first), and unlocks q1 at once (nothing left cached), so c2's
    next rebalance, 20 s after its start-up one, gets it at 30 s."""
    lab = _moving_queue_lab(8_600)
    lab.run(until="70s")
    assert _queue_1_story(lab) == [
        (0, "lock_acquired", "consumer:c1"),
        (2000, "delivered", "consumer:c1"),
        (10_000, "lock_refused", "consumer:c2"),
        (10_600, "consumed", "consumer:c1"),
        (10_600, "unlocked", "consumer:c1"),
        (10_600, "rebalanced", "consumer:c1"),
        (30_000, "lock_acquired", "consumer:c2"),
        (30_000, "delivered", "consumer:c2"),
        (38_600, "consumed", "consumer:c2"),
    ]
    assert lab.trace.find(K.WARNING, actor="consumer:c1") is None


def test_one_consume_request_yields_after_60_s_of_continuous_consumption() -> None:
    """MAX_TIME_CONSUME_CONTINUOUSLY: past 60 s the loop stops and resubmits itself 10 ms later."""
    lab, producer = orderly_lab()
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: after("10s", O.SUCCESS), orderly=True)
    for i in range(9):
        lab.at("1s", producer.send, Message("ORD", f"m{i}"))
    lab.run(until="3m")
    assert [t for t, _, _ in delivered(lab)] == [1000 + 10_000 * i for i in range(7)] + [71_010, 81_010]


def test_rollback_and_commit_with_auto_commit_off() -> None:
    """Deprecated ROLLBACK puts the batch back; COMMIT commits; SUCCESS alone commits nothing."""
    lab, producer = orderly_lab()

    def listener(msgs, ctx):
        ctx.auto_commit = False
        if msgs[0].body == "a" and msgs[0].reconsume_times == 0 and not seen:
            seen.append(1)
            return O.ROLLBACK
        return O.COMMIT if msgs[0].body == "b" else O.SUCCESS

    seen: list[int] = []
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=listener, orderly=True)
    lab.at("1s", producer.send, Message("ORD", "a"))
    lab.at("1s", producer.send, Message("ORD", "b"))
    lab.run(until="10s")
    assert [(t, m) for t, m, _ in delivered(lab)] == [(1000, "M0001"), (2000, "M0001"), (2000, "M0002")]
    update = lab.trace.last(K.OFFSET_UPDATED, queue="ORD@broker-a:0")
    assert (update.time_ms, update.get("offset")) == (2000, 2)  # COMMIT of M0002 commits everything consumed so far


def test_a_lock_of_one_queue_waits_for_a_lock_renewal_in_flight() -> None:
    """``lockOneMQ`` and ``lockMQPeriodically`` are ``synchronized`` on the orderly service in 4.9.7. o1 is cut from
    broker-a from 0.5 s to 40 s, so its renewals fail and its lock, last had at 0, is no longer trusted after 30 s;
    broker-a then answers 1 s late. The message pulled at 41 s finds the lock expired: the lock of that one queue
    asked 100 ms later waits for the renewal asked at 41 s (answered at 42 s) and is sent only then. Before, it
    went out at 41.1 s beside the renewal and the message was consumed at 42.11 s instead of 43.01 s."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("og", name="o1", subscribe={"ORD": "*"}, orderly=True, listener=lambda msgs, ctx: O.SUCCESS)
    lab.at("500ms", lab.partition, "o1", "broker-a")
    lab.at("35s", producer.send, Message("ORD", "a"))
    lab.at("40s", lab.partition, "o1", "broker-a", heal=True)
    lab.at("40s", lab.set_broker_fault, "broker-a", response_delay_ms="1s")
    lab.run(until="50s")
    batches = [
        (e.time_ms, e.get("via"), e.get("asked_ms"))
        for e in lab.trace.of_kind(K.LOCK_BATCH)
        if e.get("locked") and 40_000 <= e.time_ms <= 50_000
    ]
    assert batches == [(42_000, "lockAll", 41_000), (43_000, "lock", 42_000)]
    assert delivered(lab) == [(43_010, "M0001", 0)]
