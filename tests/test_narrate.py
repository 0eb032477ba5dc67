"""Captions: every event kind has one, they name RocketMQ's method and carry the run's real numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from rmqlab import HANG, Lab, Message, TraceEvent, load_scenario
from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind as K
from rmqlab.narrate import BOOKKEEPING_KINDS, MEANINGFUL_KINDS, Caption, Narrator, caption, is_meaningful, narrate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(name: str) -> Lab:
    return load_scenario(EXAMPLES / name).run()


def captions_of(lab: Lab, kind: K, msg_id: str | None = None, **fields: object) -> list[str]:
    """The captions of the events ``lab.trace.where`` finds (of ``msg_id`` when given), in trace order."""
    seqs = {e.seq for e in lab.trace.where(kind, **fields, **({} if msg_id is None else {"msg_id": msg_id}))}
    return [c.text for c in narrate(lab.trace) if c.seq in seqs]


def caption_of(lab: Lab, kind: K, msg_id: str | None = None, **fields: object) -> str:
    """The caption of the first such event (a LookupError naming the query if there is none)."""
    event = lab.trace.first(kind, **fields, **({} if msg_id is None else {"msg_id": msg_id}))
    return next(c.text for c in narrate(lab.trace) if c.seq == event.seq)


# One plausible event of every kind, with the details dict the engine records for it.
SAMPLES: dict[K, tuple[str, str | None, dict]] = {
    K.SEND_ATTEMPT: (
        "producer:pg",
        "M1",
        {"broker": "broker-a", "queue_id": 0, "attempt": 1, "mode": "SYNC", "topic": "T"},
    ),
    K.SEND_RESULT: ("producer:pg", "M1", {"broker": "broker-a", "queue_id": 0, "attempt": 1, "outcome": "SUCCESS"}),
    K.SEND_FAILED: ("producer:pg", "M1", {"error": "RemotingConnectException: down", "attempts": 3, "mode": "SYNC"}),
    K.STORED: ("broker-a", "M1", {"topic": "T", "queue_id": 0, "queue_offset": 5, "reconsume_times": 0}),
    K.SCHEDULED: ("broker-a", "M1", {"level": 4, "real_topic": "%RETRY%cg", "due_ms": 30_000, "reconsume_times": 2}),
    K.DELAY_DELIVERED: (
        "schedule:broker-a",
        "M1",
        {"level": 4, "topic": "%RETRY%cg", "queue_id": 0, "waited_ms": 30_000},
    ),
    K.PULLED: ("consumer:c1", None, {"queue": "T@broker-a:0", "offsets": [5], "msg_ids": ["M1"], "next_offset": 6}),
    K.PULL_DEFERRED: (
        "consumer:c1",
        None,
        {
            "queue": "T@broker-a:0",
            "reason": "flow_control_count",
            "delay_ms": 50,
            "cached_count": 1001,
            "threshold": 1000,
        },
    ),
    K.PULL_EMPTY: (
        "consumer:c1",
        None,
        {"queue": "T@broker-a:0", "status": "NO_NEW_MSG", "offset": 5, "next_offset": 5, "corrected": True},
    ),
    K.DELIVERED: (
        "consumer:c1",
        "M1",
        {"group": "cg", "topic": "T", "queue": "T@broker-a:0", "queue_offset": 5, "reconsume_times": 0, "batch": 1},
    ),
    K.CONSUMED: (
        "consumer:c1",
        "M1",
        {
            "status": "RECONSUME_LATER",
            "return_type": "FAILED",
            "took_ms": 0,
            "queue": "T@broker-a:0",
            "queue_offset": 5,
        },
    ),
    K.SEND_BACK: (
        "consumer:c1",
        "M1",
        {
            "ok": False,
            "broker": "broker-a",
            "delay_level": 0,
            "reconsume_times": 0,
            "max_reconsume_times": 16,
            "error": "RemotingConnectException",
        },
    ),
    K.SEND_BACK_FALLBACK: ("consumer:c1", "M1", {"ok": True, "delay_level": 3, "reconsume_times": 1, "error": None}),
    K.LOCAL_RETRY: ("consumer:c1", "M1", {"queue": "T@broker-a:0", "retry_in_ms": 5000, "reconsume_times": 1}),
    K.DEAD_LETTERED: (
        "broker-a",
        "M1",
        {"group": "cg", "topic": "%DLQ%cg", "reconsume_times": 1, "original_topic": "T"},
    ),
    K.BROADCAST_DROPPED: (
        "consumer:c1",
        "M1",
        {"queue": "T@broker-a:0", "reconsume_times": 0, "message": "BROADCASTING, the message consume failed, drop it"},
    ),
    K.OFFSET_UPDATED: ("consumer:c1", None, {"queue": "T@broker-a:0", "offset": 6, "previous": 5}),
    K.OFFSET_PERSISTED: ("consumer:c1", None, {"queue": "T@broker-a:0", "offset": 6, "group": "cg", "store": "broker"}),
    K.REBALANCED: (
        "consumer:c1",
        None,
        {"topic": "T", "queues": ["T@broker-a:0"], "added": ["T@broker-a:0"], "removed": ["T@broker-a:1"]},
    ),
    K.LOCK_BATCH: (
        "consumer:c1",
        None,
        {
            "broker": "broker-a",
            "group": "og",
            "via": "lockAll",
            "queues": ["T@broker-a:0", "T@broker-a:1"],
            "asked_ms": 1000,
            "locked": ["T@broker-a:0"],
            "refused": ["T@broker-a:1"],
            "holders": {"T@broker-a:1": "c2"},
        },
    ),
    K.LOCK_ACQUIRED: ("consumer:c1", None, {"queue": "T@broker-a:0", "group": "og"}),
    K.LOCK_RENEWED: ("consumer:c1", None, {"queue": "T@broker-a:0", "group": "og"}),
    K.LOCK_REFUSED: ("consumer:c2", None, {"queue": "T@broker-a:0", "group": "og", "holder": "c1"}),
    K.LOCK_EXPIRED: (
        "broker-a",
        None,
        {"queue": "T@broker-a:0", "group": "og", "previous_holder": "c1", "new_holder": "c2"},
    ),
    K.UNLOCKED: ("consumer:c1", None, {"queue": "T@broker-a:0", "group": "og"}),
    K.SUSPENDED: ("consumer:c1", "M1", {"queue": "T@broker-a:0", "retry_in_ms": 1000, "reconsume_times": 1}),
    K.CONSUME_REQUEST: (
        "consumer:c1",
        None,
        {"queue": "T@broker-a:0", "delay_ms": 1000, "reason": "suspend", "requested_delay_ms": -1},
    ),
    K.CLEAN_EXPIRED: ("consumer:c1", "M1", {"queue": "T@broker-a:0", "queue_offset": 5, "consuming_for_ms": 1_799_000}),
    K.RETENTION_DELETED: ("broker-a", None, {"count": 3, "topics": {"%DLQ%cg": 1, "T": 2}}),
    K.FAULT: ("broker-a", None, {"fault": "broker_down"}),
    K.ADMIN: (
        "broker-a",
        None,
        {"command": "updateSubGroup", "group": "cg", "retry_queue_nums": 0, "retry_max_times": 16},
    ),
    K.LIFECYCLE: ("consumer:c1", None, {"event": "crash", "group": "cg"}),
    K.WARNING: ("consumer:c1", "M1", {"message": "listener raised RuntimeError: boom"}),
}

WHERE = {
    K.SEND_ATTEMPT: "DefaultMQProducerImpl.sendDefaultImpl",
    K.SEND_RESULT: "MQClientAPIImpl.processSendResponse",
    K.SEND_FAILED: "DefaultMQProducerImpl.sendDefaultImpl",
    K.STORED: "CommitLog.asyncPutMessage",
    K.SCHEDULED: "CommitLog.asyncPutMessage",
    K.DELAY_DELIVERED: "ScheduleMessageService.DeliverDelayedMessageTimerTask",
    K.PULLED: "DefaultMQPushConsumerImpl.pullMessage",
    K.PULL_DEFERRED: "DefaultMQPushConsumerImpl.pullMessage",
    K.PULL_EMPTY: "DefaultMQPushConsumerImpl.pullMessage",
    K.DELIVERED: "ConsumeMessageConcurrentlyService.ConsumeRequest.run",
    K.CONSUMED: "ConsumeMessageConcurrentlyService.ConsumeRequest.run",
    K.SEND_BACK: "ConsumeMessageConcurrentlyService.processConsumeResult",
    K.SEND_BACK_FALLBACK: "DefaultMQPushConsumerImpl.sendMessageBack",
    K.LOCAL_RETRY: "ConsumeMessageConcurrentlyService.submitConsumeRequestLater",
    K.DEAD_LETTERED: "SendMessageProcessor.asyncConsumerSendMsgBack",
    K.BROADCAST_DROPPED: "ConsumeMessageConcurrentlyService.processConsumeResult",
    K.OFFSET_UPDATED: "RemoteBrokerOffsetStore.updateOffset",
    K.OFFSET_PERSISTED: "ConsumerOffsetManager.commitOffset",
    K.REBALANCED: "RebalanceImpl.rebalanceByTopic",
    K.LOCK_BATCH: "RebalanceImpl.lockAll",
    K.LOCK_ACQUIRED: "RebalanceImpl.lock",
    K.LOCK_RENEWED: "RebalanceImpl.lockAll",
    K.LOCK_REFUSED: "RebalanceLockManager.tryLockBatch",
    K.LOCK_EXPIRED: "RebalanceLockManager.tryLockBatch",
    K.UNLOCKED: "RebalanceImpl.unlockAll",  # no removal before it: the shutdown's unlockAll
    K.SUSPENDED: "ConsumeMessageOrderlyService.processConsumeResult",
    K.CONSUME_REQUEST: "ConsumeMessageOrderlyService.submitConsumeRequestLater",
    K.CLEAN_EXPIRED: "ProcessQueue.cleanExpiredMsg",
    K.RETENTION_DELETED: "DefaultMessageStore.CleanCommitLogService",
    K.FAULT: "Lab.broker_down",
    K.ADMIN: "mqadmin updateSubGroup",
    K.LIFECYCLE: "Lab: consumer crash",
    K.WARNING: "WARNING",
}


def test_samples_cover_every_event_kind() -> None:
    assert set(SAMPLES) == set(K) == set(WHERE)


@pytest.mark.parametrize("kind", list(K), ids=[k.value for k in K])
def test_every_event_kind_has_a_caption_naming_its_method(kind: K) -> None:
    actor, msg_id, data = SAMPLES[kind]
    got = Narrator().feed(TraceEvent(1, 1000, kind, actor, msg_id, data))
    assert got.where == WHERE[kind]
    assert got.text.startswith(WHERE[kind] + ": ")
    assert len(got.text) > len(got.where) + 20 and "None" not in got.text
    assert got.meaningful is (kind not in BOOKKEEPING_KINDS)


def test_bookkeeping_is_offsets_lock_renewals_deferred_and_empty_pulls() -> None:
    assert {
        K.OFFSET_UPDATED,
        K.OFFSET_PERSISTED,
        K.LOCK_RENEWED,
        K.PULL_DEFERRED,
        K.PULL_EMPTY,
        K.LOCK_BATCH,
        K.CONSUME_REQUEST,
    } == BOOKKEEPING_KINDS
    assert set(K) - BOOKKEEPING_KINDS == MEANINGFUL_KINDS
    actor, _, data = SAMPLES[K.PULLED]
    assert is_meaningful(TraceEvent(1, 0, K.PULLED, actor, None, data))
    assert not is_meaningful(TraceEvent(1, 0, K.PULLED, actor, None, {**data, "offsets": [], "msg_ids": []}))


def test_default_schedule_first_send_back_and_hop_say_level_3_and_10_s() -> None:
    lab = run("default_retry_schedule.json")
    assert len(captions_of(lab, K.SCHEDULED, "M0001")) == 16
    assert caption_of(lab, K.SCHEDULED, "M0001", level=3) == (
        "CommitLog.asyncPutMessage: M0001 (reconsumeTimes 1) for %RETRY%cg is parked in SCHEDULE_TOPIC_XXXX queue 2 "
        "at delay level 3, due in 10 s (t = 10 s); why: delayLevel 0 → asyncConsumerSendMsgBack uses "
        "3 + reconsumeTimes 0 = 3"
    )
    last = caption_of(lab, K.SCHEDULED, "M0001", level=18)
    assert "at delay level 18, due in 2 h" in last and "3 + reconsumeTimes 15 = 18" in last
    assert caption_of(lab, K.SEND_BACK, "M0001", reconsume_times=0) == (
        "ConsumeMessageConcurrentlyService.processConsumeResult: RECONSUME_LATER → "
        "sendMessageBack(M0001, delayLevel 0); SendMessageProcessor.asyncConsumerSendMsgBack uses 3 + reconsumeTimes 0 "
        "= level 3, due in 10 s"
    )
    assert caption_of(lab, K.SEND_BACK, "M0001", reconsume_times=1).endswith(
        "uses 3 + reconsumeTimes 1 = level 4, due in 30 s"
    )
    hop = caption_of(lab, K.DELAY_DELIVERED, "M0001", level=3)
    assert hop.startswith("ScheduleMessageService.DeliverDelayedMessageTimerTask: level 3's timer")
    assert "due after 10 s" in hop and "due after 2 h" in caption_of(lab, K.DELAY_DELIVERED, "M0001", level=18)


def test_default_schedule_dlq_caption_says_16_reached_16() -> None:
    lab = run("default_retry_schedule.json")
    [dead] = captions_of(lab, K.DEAD_LETTERED)
    assert dead.startswith(
        "SendMessageProcessor.asyncConsumerSendMsgBack: reconsumeTimes 16 ≥ maxReconsumeTimes 16, so M0001 goes to "
        "%DLQ%cg (stored with reconsumeTimes 17)"
    )
    assert caption_of(lab, K.SEND_BACK, "M0001", reconsume_times=16).endswith(
        "reconsumeTimes 16 ≥ maxReconsumeTimes 16, so it goes to %DLQ%cg"
    )


def test_broadcasting_drop_is_dropped_never_acked() -> None:
    lab = run("broadcasting_drop.yaml")
    [drop] = captions_of(lab, K.BROADCAST_DROPPED)
    assert drop.startswith("ConsumeMessageConcurrentlyService.processConsumeResult: BROADCASTING")
    assert "M0001 from TopicTest@broker-a:0 is dropped — never retried and never acked" in drop
    assert "acked" not in drop.replace("never acked", "")
    assert "LocalFileOffsetStore.persistAll" in caption_of(lab, K.OFFSET_PERSISTED)


def test_sync_retry_names_the_avoided_broker_and_why() -> None:
    lab = run("broker_down_sync_retry.json")
    assert caption_of(lab, K.SEND_ATTEMPT, "M0002", attempt=2) == (
        "DefaultMQProducerImpl.sendDefaultImpl: pg retries M0002, attempt 2 of up to 3: attempt 1 to broker-a failed "
        "(RemotingConnectException: connect to broker-a failed: broker down); resent at once, no backoff, with 3000 ms "
        "of the budget left; "
        "selectOneMessageQueue(lastBrokerName=broker-a) avoids broker-a and picks TopicTest@broker-b:0"
    )
    [failed] = captions_of(lab, K.SEND_FAILED)
    assert "ONEWAY send of M0003 failed after 1 attempt;" in failed


def test_local_retry_and_failed_fallback_say_5000_ms() -> None:
    lab = run("send_back_local_retry.json")
    local = caption_of(lab, K.LOCAL_RETRY, "M0001")
    assert local.startswith("ConsumeMessageConcurrentlyService.submitConsumeRequestLater: send-back and fallback")
    assert "consumed again in 5000 ms with reconsumeTimes 1" in local
    fallback = caption_of(lab, K.SEND_BACK_FALLBACK, "M0001")
    assert "failed too" in fallback and "re-consumed locally" in fallback


def test_orderly_suspend_says_the_queue_waits_the_suspend_time() -> None:
    lab = run("orderly_suspend.yaml")
    first = caption_of(lab, K.SUSPENDED, "M0001")
    assert first.startswith("ConsumeMessageOrderlyService.processConsumeResult: SUSPEND_CURRENT_QUEUE_A_MOMENT")
    assert "waits 1000 ms (suspendCurrentQueueTimeMillis" in first
    assert "ConsumeMessageOrderlyService.ConsumeRequest.run" in caption_of(lab, K.DELIVERED, "M0001")


def test_orderly_suspend_says_the_count_checkReconsumeTimes_compared_then_the_new_one() -> None:
    """checkReconsumeTimes tests ``reconsumeTimes >= max`` before it adds one (4.9.7): with max 3 the last suspend
    compared 2 (below 3) and left 3; "is now 3, still below maxReconsumeTimes" contradicted the numbers."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda msgs, ctx: O.SUSPEND_CURRENT_QUEUE_A_MOMENT,
                     orderly=True, name="c1", max_reconsume_times=3)  # fmt: skip
    lab.at("1s", producer.send, Message("TopicTest", "bad"))
    lab.run("30s")
    suspends = lab.trace.where(K.SUSPENDED, msg_id="M0001")
    assert [e.data["reconsume_times"] for e in suspends] == [1, 2, 3]
    assert {e.data["max_reconsume_times"] for e in suspends} == {3}
    last = captions_of(lab, K.SUSPENDED, "M0001")[-1]
    assert "reconsumeTimes of M0001 was 2, below maxReconsumeTimes 3, so it is tried again (now 3)" in last
    assert "still below" not in last and "is now 3" not in last


def test_retry_queue_nums_zero_send_back_is_a_silent_drop() -> None:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.update_subscription_group("cg", retry_queue_nums=0)
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.RECONSUME_LATER, name="c1")
    lab.at("1s", producer.send, Message("T", "x"))
    lab.run(until="1m")
    [back] = captions_of(lab, K.SEND_BACK)
    assert back.endswith(
        "answered SUCCESS but stored nothing — retryQueueNums is 0 for cg, so M0001 is silently dropped"
    )
    assert "retryQueueNums 0: every send-back answers SUCCESS and stores nothing" in caption_of(lab, K.ADMIN)


def test_orderly_dlq_goes_through_the_retry_topic_and_waits_its_level_first() -> None:
    """4.9.x quirk: the DLQ copy keeps DELAY = 3 + rt, so it is parked at level 5 (1 m) before reaching %DLQ%."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "og",
        subscribe={"ORD": "*"},
        listener=lambda m, c: O.SUSPEND_CURRENT_QUEUE_A_MOMENT,
        orderly=True,
        max_reconsume_times=2,
        name="c1",
    )
    lab.at("1s", producer.send, Message("ORD", "x"))
    lab.run(until="3m")
    [back] = captions_of(lab, K.SEND_BACK)
    assert back.startswith("ConsumeMessageOrderlyService.checkReconsumeTimes: reconsumeTimes 2 ≥ maxReconsumeTimes 2")
    [parked] = captions_of(lab, K.SCHEDULED)
    assert "for %DLQ%og is parked in SCHEDULE_TOPIC_XXXX queue 4 at delay level 5, due in 1 m" in parked
    assert "4.9.x quirk" in parked
    [dead] = captions_of(lab, K.DEAD_LETTERED)
    assert dead.startswith(
        "SendMessageProcessor.handleRetryAndDLQ: M0001 written to %DLQ%og with reconsumeTimes 2: header "
        "reconsumeTimes 2 ≥ maxReconsumeTimes 2, delivered only now after delay level 5 (4.9.x quirk)"
    )


def test_a_crashed_lock_holder_is_taken_over_after_60_s() -> None:
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c1")
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c2", start="5s")
    lab.at("30s", lambda: lab.consumers["c1"].crash())
    lab.run(until="3m")
    assert caption_of(lab, K.LOCK_EXPIRED, queue="ORD@broker-a:0") == (
        "RebalanceLockManager.tryLockBatch: c1's lock on ORD@broker-a:0 was not renewed for more than 60 s "
        "(REBALANCE_LOCK_MAX_LIVE_TIME), so broker-a hands it to c2"
    )
    taken = caption_of(lab, K.LOCK_ACQUIRED, actor="consumer:c2", queue="ORD@broker-a:0")
    assert "(taking over c1's expired lease)" in taken
    refused = caption_of(lab, K.LOCK_REFUSED, queue="ORD@broker-a:0")
    assert "c1 holds it and its 60 s lease has not expired" in refused
    assert any(c.startswith("Lab: consumer crash: c1 of og dies") for c in captions_of(lab, K.LIFECYCLE))


def test_clean_expired_sends_back_with_level_3() -> None:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: HANG, name="c1")
    lab.at("1s", producer.send, Message("T", "x"))
    lab.run(until="31m")
    [clean] = captions_of(lab, K.CLEAN_EXPIRED)
    assert "has been consuming for 29 m 59 s > consumeTimeout 15 min" in clean
    [back] = captions_of(lab, K.SEND_BACK)
    assert back.startswith(
        "ProcessQueue.cleanExpiredMsg: consuming for 29 m 59 s > consumeTimeout 15 min → sendMessageBack(M0001, "
        "delayLevel 3)"
    )
    assert back.endswith("keeps delay level 3, due in 10 s")
    assert caption_of(lab, K.SCHEDULED).endswith("why: cleanExpiredMsg sends back with the fixed delay level 3")


def test_captions_never_look_ahead_and_are_deterministic() -> None:
    """The caption of event k is the same for every prefix that contains it, and for a second run."""
    lab = run("send_back_local_retry.json")
    events = lab.trace.events
    whole = narrate(events)
    for k in (1, len(events) // 3, len(events) // 2, len(events)):
        assert narrate(events[:k]) == whole[:k]
    assert [c.text for c in whole] == [c.text for c in narrate(run("send_back_local_retry.json").trace)]
    k = len(events) // 2
    assert caption(events[k], events[:k]) == whole[k].text
    assert isinstance(whole[0], Caption) and str(whole[0]) == whole[0].text
    assert [c.seq for c in whole] == [e.seq for e in events]


def test_a_send_back_narrated_without_its_history_claims_nothing_about_storage() -> None:
    """caption(event) alone cannot know what the broker stored: it must not call an ordinary retry a drop."""
    lab = load_scenario(EXAMPLES / "default_retry_schedule.json").run()
    first = lab.trace.first(K.SEND_BACK)
    alone = caption(first)
    assert alone.endswith("; SendMessageProcessor.asyncConsumerSendMsgBack answered SUCCESS")
    assert "dropped" not in alone
    earlier = [e for e in lab.trace if e.seq < first.seq]
    assert caption(first, earlier).endswith("uses 3 + reconsumeTimes 0 = level 3, due in 10 s")


def test_a_broker_fault_is_said_by_its_effect_and_its_end_by_the_return_to_normal() -> None:
    """01b's latency run: 600 ms late from 0 s, back to fast at 2 s. The second change ends the fault, so its
    first line must not say that broker-a starts to misbehave, and neither line's first names a setting."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    lab.set_broker_fault("broker-a", response_delay_ms=600)
    lab.at("2s", lab.set_broker_fault, "broker-a", response_delay_ms=0)
    lab.at("3s", lab.set_broker_fault, "broker-a", lose_responses=True, put_status="FLUSH_DISK_TIMEOUT")
    lab.run(until="4s")
    faults = [c for c in narrate(lab.trace) if c.kind is K.FAULT]
    assert [c.plain for c in faults] == [
        "broker-a starts to misbehave: it answers every request 600 ms late.",
        "broker-a answers at once again.",
        "broker-a starts to misbehave: it loses every answer on the way back, "
        "reports a store problem for every message.",
    ]
    assert "response_delay_ms = 0" in faults[1].text and "misbehave" not in faults[1].text
