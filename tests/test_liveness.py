"""Liveness after faults: no queue is left unpulled, no message left behind, once the faults heal.

Each test is the smallest scenario that got stuck (or lost a message) before its fix, with the 4.9.7
behaviour it now follows.
"""

from __future__ import annotations

from typing import Any

from rmqlab import HANG, EventKind, Lab, Message, SelectMessageQueueByHash, after, check_invariants
from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import ConsumeOrderlyStatus as O


def _pull_timeouts(lab: Lab) -> list[tuple[int, str]]:
    return [
        (e.time_ms, str(e.data["message"]))
        for e in lab.trace.of_kind(EventKind.WARNING)
        if "wait response timeout" in str(e.data.get("message", ""))
    ]


def test_a_held_pull_dropped_by_a_connection_reset_times_out_and_is_pulled_again() -> None:
    """A lost response resets c1's channel: the broker forgets both pulls it holds for c1 and says nothing.

    At 4 s c1 pulls "slow" from T and re-pulls at once (held); its %RETRY%cg pull is held since 0 ms. At 7 s the
    listener fails during ``lose_responses``: the send-back's lost response resets the channel and both held
    pulls vanish. 4.9.7's response table expires each 30 s + 1 s after it was sent (31 s and 35 s), and the
    pull error path pulls again 1 s later, so "later", sent at 60 s, is consumed at once.
    """
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")

    def listener(msgs: list[Any], ctx: Any) -> Any:
        if msgs[0].body == "slow" and msgs[0].reconsume_times == 0:
            return after("3s", C.RECONSUME_LATER)
        return C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, name="c1")
    lab.at(4000, producer.send, Message("T", "slow"))
    lab.at(5000, lab.set_broker_fault, "broker-a", lose_responses=True)
    lab.at(10_000, lab.set_broker_fault, "broker-a", lose_responses=False)
    lab.at(60_000, producer.send, Message("T", "later"))
    lab.run(until=120_000)
    assert _pull_timeouts(lab) == [
        (31_000, "pull of %RETRY%cg@broker-a:0 sent at 0 ms: wait response timeout 30000ms; pull again in 1000 ms"),
        (35_000, "pull of T@broker-a:0 sent at 4000 ms: wait response timeout 30000ms; pull again in 1000 ms"),
    ]
    pulls = [(e.time_ms, e.data["queue"]) for e in lab.trace.of_kind(EventKind.PULLED)]
    assert (32_000, "%RETRY%cg@broker-a:0") in pulls
    later = [e for e in lab.trace.for_message("M0002") if e.kind is EventKind.CONSUMED]
    assert [(e.time_ms, e.data["status"]) for e in later] == [(60_000, "CONSUME_SUCCESS")]


def test_an_orderly_queue_dropped_mid_listener_and_allocated_back_is_recreated_after_120_s_without_pulls() -> None:
    """o2 joins at 2 s while o1's listener runs on queue 1: o1 drops the queue but cannot remove it (the listener
    holds the ProcessQueue's consume lock). o2 leaves at 5 s and the queue is allocated back to o1, still in its
    table, dropped: no pull ever runs on a dropped ProcessQueue. 4.9.7's ``isPullExpired`` branch of
    ``updateProcessQueueTableInRebalance`` removes it at the first rebalance more than 120 s after its last pull
    (1 s) — 125 s: the rebalance woken at 5 s by o2's leaving restarts the 20 s wait (``waitForRunning``) — and
    re-creates it at once from the committed offset (0: the removal at 2 s persisted it, the commit at 31 s was
    discarded on a dropped queue), so "slow" runs again and "later" follows.
    """
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("O", queues=2)
    producer = lab.add_producer("pg")

    def listener(msgs: list[Any], ctx: Any) -> Any:
        return after("30s", O.SUCCESS) if msgs[0].body == "slow" else O.SUCCESS

    lab.add_consumer("og", subscribe={"O": "*"}, listener=listener, orderly=True, name="o1")
    o2 = lab.add_consumer("og", subscribe={"O": "*"}, listener=listener, orderly=True, name="o2", start=False)
    lab.at(1000, producer.send_with_selector, Message("O", "slow"), SelectMessageQueueByHash, 1)
    lab.at(2000, o2.start)
    lab.at(5000, o2.shutdown)
    lab.at(60_000, producer.send_with_selector, Message("O", "later"), SelectMessageQueueByHash, 1)
    lab.run(until=200_000)
    (bug,) = [e for e in lab.trace.of_kind(EventKind.WARNING) if "[BUG]" in str(e.data["message"])]
    assert (bug.time_ms, bug.actor) == (125_000, "consumer:o1")
    assert "O@broker-a:1, because pull is pause (none for 124000 ms)" in str(bug.data["message"])
    (again,) = [e for e in lab.trace.of_kind(EventKind.REBALANCED) if e.time_ms == 125_000]
    assert (again.data["removed"], again.data["added"]) == (["O@broker-a:1"], ["O@broker-a:1"])
    consumed = [(e.time_ms, e.msg_id) for e in lab.trace.of_kind(EventKind.CONSUMED)]
    assert consumed == [(31_000, "M0001"), (155_000, "M0001"), (155_000, "M0002")]
    assert check_invariants(lab).ok


def test_a_failed_clean_expired_send_back_keeps_the_message_in_the_process_queue() -> None:
    """``cleanExpiredMsg`` (every ``consumeTimeout``, 1 min here) finds "stuck" consuming for 119 s at 120 s, while
    the only broker is down: the send-back and its fallback both fail. In 4.9.7 ``sendMessageBack`` then throws
    and the message stays in the ProcessQueue (offset pinned); the 180 s pass sends it back (level 3, 10 s) and
    the retry is consumed at 190 s. Removing it at 120 s lost it: the committed offset moved past it.
    """
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")

    def listener(msgs: list[Any], ctx: Any) -> Any:
        return HANG if msgs[0].reconsume_times == 0 else C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, name="c1", consume_timeout=1)
    lab.at(1000, producer.send, Message("T", "stuck"))
    lab.at(110_000, lab.broker_down, "broker-a")
    lab.at(130_000, lab.broker_up, "broker-a")
    lab.run(until=600_000)
    backs = [(e.time_ms, e.data["ok"]) for e in lab.trace.for_message("M0001") if e.kind is EventKind.SEND_BACK]
    assert backs == [(120_000, False), (180_000, True)]
    consumed = [(e.time_ms, e.data["queue"]) for e in lab.trace.for_message("M0001") if e.kind is EventKind.CONSUMED]
    assert consumed == [(190_000, "%RETRY%cg@broker-a:0")]
    report = check_invariants(lab)
    assert report.ok and report.fates[("group:cg", "M0001")] == "consumed", str(report)


def test_a_process_queue_is_pull_expired_only_after_more_than_120_s() -> None:
    """``ProcessQueue.isPullExpired``: ``now − lastPullTimestamp > PULL_MAX_IDLE_TIME`` (120000, strictly). Only a
    push consumer (``CONSUME_PASSIVELY``) acts on it in ``updateProcessQueueTableInRebalance``; rmqlab models no pull
    consumer, whose ``CONSUME_ACTIVELY`` branch does nothing."""
    from rmqlab.client.consumer.process_queue import PULL_MAX_IDLE_TIME_MS, ProcessQueue

    pq = ProcessQueue(1000)
    assert PULL_MAX_IDLE_TIME_MS == 120_000
    assert (pq.is_pull_expired(121_000), pq.is_pull_expired(121_001)) == (False, True)
