"""Concurrent consumer retry: send-back, delay levels, the DLQ, ackIndex, the 5 s local retry."""

from __future__ import annotations

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import EventKind as K
from rmqlab import Lab, Message, after

SCHEDULE_S = [0, 10, 40, 100, 220, 400, 640, 940, 1300, 1720, 2200, 2740, 3340, 4540, 6340, 9940, 17140]


def always(status):
    return lambda msgs, ctx: status


def deliveries(lab: Lab) -> list[tuple[int, str, str, int]]:
    return [(e.time_ms, e.msg_id, e.get("queue"), e.get("reconsume_times")) for e in lab.trace.of_kind(K.DELIVERED)]


def test_default_schedule_is_17_deliveries_then_dlq_at_17140_s(lab: Lab) -> None:
    """With the defaults a failing message is delivered 17 times and dead-lettered 4 h 45 min 40 s later."""
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=always(C.RECONSUME_LATER))
    lab.at(0, producer.send, Message("T", "hello"))
    lab.run(until="6h")
    got = deliveries(lab)
    assert [t // 1000 for t, *_ in got] == SCHEDULE_S
    assert [t % 1000 for t, *_ in got] == [0] * 17
    assert [rt for *_, rt in got] == list(range(17))
    assert [q.split("@")[0] for _, _, q, rt in got if rt == 0] == ["T"]
    assert {q for _, _, q, rt in got if rt > 0} == {"%RETRY%cg@broker-a:0"}
    assert {e.get("topic") for e in lab.trace.of_kind(K.DELIVERED)} == {"T"}  # the retry topic is reset
    (dlq,) = lab.trace.of_kind(K.DEAD_LETTERED)
    assert (dlq.time_ms, dlq.msg_id, dlq.get("topic"), dlq.get("reconsume_times")) == (
        17_140_000,
        "M0001",
        "%DLQ%cg",
        17,
    )
    assert dlq.get("original_topic") == "T"
    levels = [e.get("level") for e in lab.trace.of_kind(K.SCHEDULED)]
    assert levels == list(range(3, 19))


def test_max_reconsume_times_2_gives_3_deliveries_then_dlq(lab: Lab) -> None:
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=always(C.RECONSUME_LATER), max_reconsume_times=2)
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until="1h")
    assert [t for t, *_ in deliveries(lab)] == [0, 10_000, 40_000]
    (dlq,) = lab.trace.of_kind(K.DEAD_LETTERED)
    assert (dlq.time_ms, dlq.get("reconsume_times")) == (40_000, 3)


def test_max_reconsume_times_0_dead_letters_the_first_failure(lab: Lab) -> None:
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=always(None), max_reconsume_times=0)
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until="1h")
    assert [t for t, *_ in deliveries(lab)] == [0]
    (dlq,) = lab.trace.of_kind(K.DEAD_LETTERED)
    assert (dlq.time_ms, dlq.get("reconsume_times")) == (0, 1)


def test_max_reconsume_times_above_16_is_not_capped_only_the_level_is(lab: Lab) -> None:
    """Misconception: 'maxReconsumeTimes > 16 is treated as 16'. 20 gives 21 deliveries, DLQ at 45 940 s."""
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=always(C.RECONSUME_LATER), max_reconsume_times=20)
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until="14h")
    times = [t // 1000 for t, *_ in deliveries(lab)]
    assert len(times) == 21
    assert times[17:] == [17140 + 7200 * k for k in range(1, 5)]
    (dlq,) = lab.trace.of_kind(K.DEAD_LETTERED)
    assert dlq.time_ms == 45_940_000
    assert [e.get("level") for e in lab.trace.of_kind(K.SCHEDULED)] == [*range(3, 19), 18, 18, 18, 18]


def test_null_and_exception_count_as_reconsume_later(lab: Lab) -> None:
    producer = lab.add_producer("pg")

    def listener(msgs, ctx):
        if msgs[0].body == "raise":
            raise RuntimeError("db down")
        return None

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, max_reconsume_times=1)
    lab.at(0, producer.send, Message("T", "raise"))
    lab.at(0, producer.send, Message("T", "null"))
    lab.run(until="1h")
    consumed = [(e.msg_id, e.get("status"), e.get("return_type")) for e in lab.trace.at(0, K.CONSUMED)]
    assert consumed == [("M0001", "RECONSUME_LATER", "EXCEPTION"), ("M0002", "RECONSUME_LATER", "RETURNNULL")]
    assert sorted(e.msg_id for e in lab.trace.of_kind(K.DEAD_LETTERED)) == ["M0001", "M0002"]


def test_delay_level_when_next_consume_minus_one_goes_straight_to_dlq(lab: Lab) -> None:
    producer = lab.add_producer("pg")

    def listener(msgs, ctx):
        ctx.delay_level_when_next_consume = -1
        return C.RECONSUME_LATER

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener)
    lab.at("1s", producer.send, Message("T", "x"))
    lab.run(until="1h")
    assert len(deliveries(lab)) == 1
    (dlq,) = lab.trace.of_kind(K.DEAD_LETTERED)
    assert (dlq.time_ms, dlq.get("reconsume_times")) == (1000, 1)


def test_delay_level_when_next_consume_positive_uses_that_level(lab: Lab) -> None:
    producer = lab.add_producer("pg")

    def listener(msgs, ctx):
        ctx.delay_level_when_next_consume = 1
        return C.RECONSUME_LATER if msgs[0].reconsume_times < 2 else C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener)
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until="1m")
    assert [t for t, *_ in deliveries(lab)] == [0, 1000, 2000]


def test_ack_index_splits_a_batch(lab: Lab) -> None:
    """With ack_index=1 in a batch of 4, messages 3 and 4 are sent back; the offset still moves past all 4."""
    producer = lab.add_producer("pg", send_which_queue_start=-1 % (1 << 31))

    def listener(msgs, ctx):
        if msgs[0].reconsume_times == 0 and len(msgs) == 4:
            ctx.ack_index = 1
        return C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, consume_message_batch_max_size=4, start="1s")
    queue = lab.create_topic("ONE", queues=1)[0]
    assert str(queue) == "ONE@broker-a:0"
    lab.consumers["cg-1"].subscribe("ONE")
    for i in range(4):
        lab.at(0, producer.send, Message("ONE", f"m{i}"))
    lab.run(until="1m")
    first = lab.trace.where(K.DELIVERED, queue="ONE@broker-a:0")
    assert [(e.time_ms, e.msg_id, e.get("batch")) for e in first] == [(1000, f"M000{i}", 4) for i in range(1, 5)]
    backs = lab.trace.of_kind(K.SEND_BACK)
    assert [(e.time_ms, e.msg_id, e.get("ok")) for e in backs] == [(1000, "M0003", True), (1000, "M0004", True)]
    retried = [(e.time_ms, e.msg_id, e.get("queue")) for e in lab.trace.where(K.DELIVERED, reconsume_times=1)]
    assert retried == [(11_000, "M0003", "%RETRY%cg@broker-a:0"), (11_000, "M0004", "%RETRY%cg@broker-a:0")]
    assert lab.brokers["broker-a"].consumer_offsets[("cg", "ONE", 0)] == 4


def test_failed_send_back_falls_back_to_a_new_retry_message(lab: Lab) -> None:
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        listener=lambda m, c: C.RECONSUME_LATER if m[0].reconsume_times == 0 else C.CONSUME_SUCCESS,
    )
    lab.set_broker_fault("broker-a", reject_send_back=True)
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until="1m")
    (back,) = lab.trace.of_kind(K.SEND_BACK)
    assert back.get("ok") is False
    (fallback,) = lab.trace.of_kind(K.SEND_BACK_FALLBACK)
    assert (fallback.time_ms, fallback.get("ok"), fallback.get("delay_level"), fallback.get("reconsume_times")) == (
        0,
        True,
        3,
        1,
    )
    again = lab.trace.first(K.DELIVERED, reconsume_times=1)
    assert (again.time_ms, again.get("queue")) == (10_000, "%RETRY%cg@broker-a:0")


def test_send_back_and_fallback_failing_retries_locally_every_5_s(lab: Lab) -> None:
    """Both paths fail (consumer cut off from its broker): the message stays, retried locally, offset pinned."""
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        name="c1",
        listener=lambda m, c: after("1s", C.RECONSUME_LATER if m[0].reconsume_times < 3 else C.CONSUME_SUCCESS),
    )
    lab.at(0, producer.send, Message("T", "x"))
    lab.at(500, lab.partition, "c1", "broker-a")
    lab.at(12_000, lab.partition, "c1", "broker-a", heal=True)
    lab.run(until="2m")
    got = deliveries(lab)
    # The local retries count reconsume_times up in memory only (1, 2). Once healed, the broker judges the
    # send-back on the reconsume_times *stored* with the message (0), so the %RETRY% copy starts again at 1.
    assert [(t, rt) for t, _, _, rt in got] == [(0, 0), (6000, 1), (12_000, 2), (23_000, 1), (54_000, 2), (115_000, 3)]
    assert [e.time_ms for e in lab.trace.of_kind(K.LOCAL_RETRY)] == [1000, 7000]
    mq = lab.trace.first(K.DELIVERED, reconsume_times=0).get("queue")
    local = lab.trace.first(K.DELIVERED, reconsume_times=1)  # re-consumed from the same ProcessQueue, not %RETRY%
    assert (local.time_ms, local.get("queue")) == (6000, mq)
    assert [e.time_ms for e in lab.trace.where(K.DELIVERED, queue="%RETRY%cg@broker-a:0")] == [23_000, 54_000, 115_000]
    topic, rest = mq.split("@")
    qid = int(rest.split(":")[1])
    pinned = [
        e.get("offset") for e in lab.trace.of_kind(K.OFFSET_UPDATED) if e.get("queue") == mq and e.time_ms < 13_000
    ]
    assert 1 not in pinned  # offset 0 stays pinned until the send-back finally succeeds at 13 s
    assert lab.brokers["broker-a"].consumer_offsets[("cg", topic, qid)] == 1


def test_committed_offset_is_the_smallest_key_of_the_tree_map(lab: Lab) -> None:
    """A slow message at offset 0 pins the committed offset while 1..3 are done."""
    producer = lab.add_producer("pg")
    lab.create_topic("ONE", queues=1)
    slow = lambda msgs, ctx: after("30s", C.CONSUME_SUCCESS) if msgs[0].body == "slow" else C.CONSUME_SUCCESS  # noqa: E731
    consumer = lab.add_consumer("cg", subscribe={"ONE": "*"}, listener=slow, start="1s")
    for body in ("slow", "a", "b", "c"):
        lab.at(0, producer.send, Message("ONE", body))
    lab.run(until="10s")
    mq = "ONE@broker-a:0"
    pq = lab.snapshot().consumer(consumer.client_id).process_queue(mq)
    assert (pq.msg_tree_keys, pq.msg_tree_ids) == ((0,), ("M0001",))
    assert pq.memory_offset == 0  # remove_message returns the smallest key: 0
    lab.run(until="40s")
    pq = lab.snapshot().consumer(consumer.client_id).process_queue(mq)
    assert (pq.msg_tree_keys, pq.memory_offset) == ((), 4)
    last = lab.trace.last(K.OFFSET_UPDATED, queue=mq)
    assert (last.time_ms, last.get("offset")) == (31_000, 4)
    assert {e.get("offset") for e in lab.trace.where(K.OFFSET_UPDATED, queue=mq)} <= {0, 4}


def test_consume_timeout_does_not_fail_a_success_but_clean_expired_sends_a_copy_back(lab: Lab) -> None:
    """Misconception: 'a consume timeout counts as a failure'. The status is kept; cleanExpiredMsg duplicates."""
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        listener=lambda m, c: after("40m", C.CONSUME_SUCCESS) if m[0].reconsume_times == 0 else C.CONSUME_SUCCESS,
    )
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until="2h")
    results = [
        (e.time_ms, e.get("status"), e.get("return_type"), e.get("took_ms")) for e in lab.trace.of_kind(K.CONSUMED)
    ]
    assert results == [
        (1_810_000, "CONSUME_SUCCESS", "SUCCESS", 0),
        (2_400_000, "CONSUME_SUCCESS", "TIME_OUT", 2_400_000),
    ]
    (clean,) = lab.trace.of_kind(K.CLEAN_EXPIRED)
    assert clean.time_ms == 30 * 60_000  # not at 15 min: it had been consuming for exactly 15 min, not more
    assert [t for t, *_ in deliveries(lab)] == [0, 30 * 60_000 + 10_000]


def test_broadcasting_drops_failed_messages(lab: Lab) -> None:
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "bg", subscribe={"T": "*"}, listener=always(C.RECONSUME_LATER), message_model="BROADCASTING", name="b1"
    )
    lab.add_consumer(
        "bg", subscribe={"T": "*"}, listener=always(C.RECONSUME_LATER), message_model="BROADCASTING", name="b2"
    )
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until="1h")
    assert sorted(e.actor for e in lab.trace.of_kind(K.DELIVERED)) == ["consumer:b1", "consumer:b2"]
    assert len(lab.trace.of_kind(K.BROADCAST_DROPPED)) == 2
    assert lab.trace.of_kind(K.SEND_BACK) == []
    assert ("%RETRY%bg", 0) not in lab.brokers["broker-a"].consume_queues


def test_retry_queue_owned_by_first_consumer_in_sorted_order(lab: Lab) -> None:
    producer = lab.add_producer("pg")
    for name in ("c2", "c1"):
        lab.add_consumer(
            "cg", subscribe={"T": "*"}, listener=always(C.RECONSUME_LATER), name=name, max_reconsume_times=1
        )
    for i in range(4):
        lab.at("1s", producer.send, Message("T", f"m{i}"))
    lab.run(until="1m")
    retried = [e for e in lab.trace.of_kind(K.DELIVERED) if e.get("queue").startswith("%RETRY%")]
    assert len(retried) == 4 and {e.actor for e in retried} == {"consumer:c1"}


def test_dlq_messages_expire_after_72_h_like_any_other() -> None:
    """Misconception: the DLQ keeps messages forever. Retention is 72 h for every CommitLog entry, at 04:00.

    One queue for ``T``: the 100 h are almost all idle long polling, whose cost grows with the queues polled. A
    second message at 03:00 on day 3 is later traffic: the newest entry (the file being written) is never deleted."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=always(C.RECONSUME_LATER), max_reconsume_times=0)
    lab.at("1h", producer.send, Message("T", "x"))
    lab.at("75h", producer.send, Message("T", "later"))
    lab.run(until="100h")
    broker = lab.brokers["broker-a"]
    (deleted,) = lab.trace.of_kind(K.RETENTION_DELETED)
    # stored at 01:00 on day 0 → older than 72 h from 01:00 on day 3 → deleted at the next 04:00 window
    assert deleted.time_ms == 3 * 86_400_000 + 4 * 3_600_000
    assert deleted.get("topics") == {"%DLQ%cg": 1, "T": 1}
    dlq = lab.snapshot().queue("%DLQ%cg@broker-a:0")
    assert (dlq.min_offset, dlq.max_offset) == (1, 2)
    assert [(m.topic, m.body) for m in broker.commit_log.live()] == [("T", "later"), ("%DLQ%cg", "later")]


def test_a_quiet_broker_keeps_its_last_message_past_72_h() -> None:
    """MappedFileQueue.deleteExpiredFileByTime never deletes the last file (the one being written): a broker that
    stored one message and nothing after keeps it, however old; the entry before it goes at the 04:00 window."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.at("1h", producer.send, Message("T", "first"))
    lab.at("2h", producer.send, Message("T", "last"))
    lab.run(until="7d")
    broker = lab.brokers["broker-a"]
    assert [(e.time_ms, e.get("count")) for e in lab.trace.of_kind(K.RETENTION_DELETED)] == [
        (3 * 86_400_000 + 4 * 3_600_000, 1)
    ]
    assert [m.body for m in broker.commit_log.live()] == ["last"]
    assert (broker.commit_log.min_offset, broker.commit_log.max_offset) == (1, 2)


def test_a_message_is_deleted_at_the_first_tick_when_it_is_exactly_72_h_old() -> None:
    """``System.currentTimeMillis() >= liveMaxTimestamp``: stored at 04:00:10 on day 0, gone at 04:00:10 on day 3
    (the service's 10 s tick), not one tick later."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    stored = 4 * 3_600_000 + 10_000
    lab.at(stored, producer.send, Message("T", "on the tick"))
    lab.at(stored + 1000, producer.send, Message("T", "newest"))
    lab.run(until=3 * 86_400_000 + 5 * 3_600_000)
    assert [e.time_ms for e in lab.trace.of_kind(K.STORED)] == [stored, stored + 1000]
    assert [(e.time_ms, e.get("count")) for e in lab.trace.of_kind(K.RETENTION_DELETED)] == [
        (3 * 86_400_000 + stored, 1)
    ]
    assert [m.body for m in lab.brokers["broker-a"].commit_log.live()] == ["newest"]


def test_a_restarted_broker_with_no_heartbeats_yet_does_not_empty_the_allocation(lab2: Lab) -> None:
    """The allocation check throws on an empty consumer list, so rebalance keeps the queues it has."""
    lab2.add_consumer("cg", subscribe={"T": "*"}, listener=always(C.CONSUME_SUCCESS), name="c1")
    lab2.at("5s", lab2.broker_down, "broker-a")
    lab2.at("20s", lab2.broker_up, "broker-a")
    lab2.run(until="2m")
    removed = [e for e in lab2.trace.of_kind(K.REBALANCED) if e.get("removed") and e.time_ms >= 20_000]
    assert removed == []
