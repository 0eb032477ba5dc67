"""The consumer-side events a student must be able to see (issue 16): each lock request and its answer
(LOCK_BATCH), each pull answered without messages (PULL_EMPTY) and the offset fix after OFFSET_ILLEGAL, and each
orderly ConsumeRequest submitted or scheduled (CONSUME_REQUEST). All three are bookkeeping (no dashboard step,
not in the timeline), so goldens and reports do not change.

4.9.7: ``RebalanceImpl.lock`` / ``lockAll`` send ``lockBatchMQ(addr, body, 1000)`` per broker and mirror the locked
set; ``DefaultMQPushConsumerImpl.pullMessage``'s ``PullCallback.onSuccess``: NO_NEW_MSG / NO_MATCHED_MSG set the
next offset and ``correctTagsOffset`` (offset := next offset when ``msgCount == 0``); OFFSET_ILLEGAL drops the
ProcessQueue and 10 s later (``executeTaskLater``) ``updateOffset``, ``persist`` and ``removeProcessQueue``
(``removeUnnecessaryMessageQueue``: an orderly queue is unlocked), logging "fix the pull request offset";
``ConsumeMessageOrderlyService.submitConsumeRequest`` / ``submitConsumeRequestLater`` (−1 → the consumer's
``suspendCurrentQueueTimeMillis``, clamped to 10..30000).
"""

from __future__ import annotations

from typing import Any

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind as K
from rmqlab import Lab, Message
from rmqlab.lab.report import TIMELINE_KINDS
from rmqlab.narrate import BOOKKEEPING_KINDS, narrate


def _orderly_pair() -> Lab:
    """c1 holds O's two queues; c2 joins at 5 s; c1 is cut from broker-a at 30 s. c1's first listener call
    suspends (suspend time 0 → 10 ms)."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("O", queues=2)
    producer = lab.add_producer("pg")
    calls: list[int] = []

    def listener(msgs: list[Any], ctx: Any) -> Any:
        calls.append(1)
        return O.SUSPEND_CURRENT_QUEUE_A_MOMENT if len(calls) == 1 else O.SUCCESS

    lab.add_consumer(
        "og", subscribe={"O": "*"}, listener=listener, orderly=True, name="c1", suspend_current_queue_time_millis=0
    )
    lab.add_consumer("og", subscribe={"O": "*"}, listener=listener, orderly=True, name="c2", start="5s")
    lab.at(2000, producer.send, Message("O", "a"))
    lab.at(30_000, lab.partition, "c1", "broker-a")
    lab.run(until="45s")
    return lab


def test_every_lock_request_is_an_event_with_what_was_granted_refused_or_failed() -> None:
    lab = _orderly_pair()
    batches = [
        (e.time_ms, e.actor, e.get("via"), e.get("queues"), e.get("locked"), e.get("refused"), e.get("error"))
        for e in lab.trace.where(K.LOCK_BATCH)
    ]
    retry, q0, q1 = "%RETRY%og@broker-a:0", "O@broker-a:0", "O@broker-a:1"
    assert batches == [
        (0, "consumer:c1", "lock", [retry], [retry], [], None),
        (0, "consumer:c1", "lock", [q0], [q0], [], None),
        (0, "consumer:c1", "lock", [q1], [q1], [], None),
        (1000, "consumer:c1", "lockAll", [retry, q0, q1], [retry, q0, q1], [], None),
        # c2's rebalance at 5000 asks for O:1 before c1 (told of the change at the same ms) has let it go
        (5000, "consumer:c2", "lock", [q1], [], [q1], None),
        (21_000, "consumer:c1", "lockAll", [retry, q0], [retry, q0], [], None),
        (25_000, "consumer:c2", "lock", [q1], [q1], [], None),
        (26_000, "consumer:c2", "lockAll", [q1], [q1], [], None),
        # cut off at 30 s: the renewal at 41 s cannot reach the broker
        (41_000, "consumer:c1", "lockAll", [retry, q0], None, None, "RemotingConnectException"),
    ]
    assert lab.trace.first(K.LOCK_BATCH, actor="consumer:c2").get("holders") == {q1: "c1"}
    refused = lab.trace.first(K.LOCK_BATCH, actor="consumer:c2")
    (text,) = [c.text for c in narrate(lab.trace) if c.seq == refused.seq]
    assert text == (
        "RebalanceImpl.lock: c2 asked broker-a to lock O@broker-a:1 (LOCK_BATCH_MQ, 1 s timeout): granted nothing; "
        "refused O@broker-a:1 (held by c1)"
    )


def test_orderly_consume_requests_are_events_with_their_delay() -> None:
    lab = _orderly_pair()
    requests = [
        (e.time_ms, e.get("queue"), e.get("delay_ms"), e.get("reason"), e.get("requested_delay_ms"))
        for e in lab.trace.where(K.CONSUME_REQUEST)
    ]
    # "a" on O:0: submitted, then suspended (−1 → the consumer's 0 → clamped to 10 ms)
    assert requests == [
        (2000, "O@broker-a:0", 0, "pulled", None),
        (2000, "O@broker-a:0", 10, "suspend", -1),
    ]  # the scheduled request reaching the pool at 2010 is not recorded again
    later = lab.trace.first(K.CONSUME_REQUEST, reason="suspend")
    (text,) = [c.text for c in narrate(lab.trace) if c.seq == later.seq]
    assert text.startswith("ConsumeMessageOrderlyService.submitConsumeRequestLater: O@broker-a:0 is consumed again")


def test_empty_pull_answers_and_the_offset_correction_that_follows() -> None:
    """Subscribed to TagA only: both messages are TagB. The broker answers NO_MATCHED_MSG with the next offset
    past them, correctTagsOffset moves the offset. The second TagB arrives while the pull is held: its tag does not
    match, so the pull stays held until the hold service's 5 s check answers it (``notifyMessageArriving`` wakes
    only a pull whose filter matches). The held pull that then finds nothing (NO_NEW_MSG at the 20 s check) changes
    nothing and is not recorded: one such answer every 15 s per queue would bury the rest."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "TagA"}, listener=lambda m, c: C.CONSUME_SUCCESS, name="c1", start=1000)
    lab.at(0, producer.send, Message("T", "b", tags="TagB"))
    lab.at(2000, producer.send, Message("T", "b2", tags="TagB"))
    lab.run(until="20s")
    empty = [
        (e.time_ms, e.get("status"), e.get("offset"), e.get("next_offset"), e.get("corrected"))
        for e in lab.trace.where(K.PULL_EMPTY, queue="T@broker-a:0")
    ]
    assert empty == [
        (1000, "NO_MATCHED_MSG", 0, 1, True),
        (5000, "NO_MATCHED_MSG", 1, 2, True),
    ]
    moved = [(e.time_ms, e.get("offset")) for e in lab.trace.where(K.OFFSET_UPDATED, queue="T@broker-a:0")]
    assert moved == [(1000, 1), (5000, 2)]
    assert not lab.trace.where(K.DELIVERED)


def test_a_no_new_msg_answer_is_recorded_when_correct_tags_offset_moves_the_offset() -> None:
    """A new group whose offset query fails starts at the max offset (1) with no offset in its store: the first
    held pull (suspended at 1 s) answers NO_NEW_MSG at the broker's first 5 s check 15 s later (20 s) and
    correctTagsOffset stores 1; the next one (at 35 s) changes nothing."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.set_broker_fault("broker-a", query_offset_error="SYSTEM_ERROR")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS, name="c1", start=1000)
    lab.at(0, producer.send, Message("T", "old"))
    lab.run(until="40s")
    empty = [
        (e.time_ms, e.get("status"), e.get("offset"), e.get("next_offset"), e.get("corrected"))
        for e in lab.trace.where(K.PULL_EMPTY, queue="T@broker-a:0")
    ]
    assert empty == [(20_000, "NO_NEW_MSG", 1, 1, True)]
    assert [(e.time_ms, e.get("offset")) for e in lab.trace.where(K.OFFSET_UPDATED, queue="T@broker-a:0")] == [
        (20_000, 1)
    ]


def test_offset_illegal_drops_the_queue_and_10_s_later_fixes_the_offset_and_removes_it() -> None:
    """The orderly first pull goes out at −1 (its offset query timed out): OFFSET_ILLEGAL at 5901. At 15 901 the
    offset 0 is stored and persisted and removeProcessQueue unlocks the queue; the rebalance at 20 800 adds it
    again. (Before, the fix kept the broker lock and logged nothing.)"""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c1", start=100)
    for i in range(2):
        lab.at(0, producer.send, Message("ORD", f"m{i}"))
    lab.at(50, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    lab.at(750, lab.set_broker_fault, "broker-a", response_delay_ms=6000)
    lab.at(5000, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    lab.run(until=30_000)
    (illegal,) = lab.trace.where(K.PULL_EMPTY, queue="ORD@broker-a:0")
    assert (illegal.time_ms, illegal.get("status"), illegal.get("offset"), illegal.get("next_offset")) == (
        5901,
        "OFFSET_ILLEGAL",
        -1,
        0,
    )
    assert illegal.get("fix_in_ms") == 10_000
    fixed = [e for e in lab.trace.where(K.WARNING) if "fix the pull request offset" in e.get("message")]
    assert [(e.time_ms, e.get("message")) for e in fixed] == [
        (15_901, "fix the pull request offset, ORD@broker-a:0: offset 0 persisted, ProcessQueue removed")
    ]
    assert [e.time_ms for e in lab.trace.where(K.UNLOCKED, queue="ORD@broker-a:0")] == [15_901]
    assert [(e.time_ms, e.get("queue_offset")) for e in lab.trace.where(K.DELIVERED)] == [(21_400, 0), (21_400, 1)]


def test_the_new_kinds_are_bookkeeping_and_stay_out_of_the_timeline() -> None:
    new = {K.LOCK_BATCH, K.PULL_EMPTY, K.CONSUME_REQUEST}
    assert new <= BOOKKEEPING_KINDS
    assert not new & set(TIMELINE_KINDS)
