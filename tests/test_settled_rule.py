"""The checker's settled-run rule: once every fault has healed and the run stayed quiet for the drain bound,
a message still in flight is a violation with its story, not a fate."""

from __future__ import annotations

from typing import Any

from rmqlab import HANG, EventKind, Lab, Message, SelectMessageQueueByHash, after, check_invariants
from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import ConsumeOrderlyStatus as O
from rmqlab.invariants.settled import MECHANICS_MS, drain_bound_ms

HOUR = 3_600_000
BOUND = 19_540_000
"""10 min of machinery + levels 3..18 (4 h 45 min 40 s) + two 15 min consumeTimeouts = 5 h 25 min 40 s."""


def _lab(listener: Any, *, orderly: bool = False) -> tuple[Lab, Any]:
    lab = Lab(seed=5)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=2)
    producer = lab.add_producer("pg")
    consumer = lab.add_consumer("g", subscribe={"T": "*"}, listener=listener, orderly=orderly, name="c1")
    return lab, (producer, consumer)


def test_the_drain_bound_with_the_default_delay_levels() -> None:
    lab = Lab()
    assert drain_bound_ms(lab.delay_levels.delays_ms, 15) == BOUND == MECHANICS_MS + 17_140_000 + 1_800_000


def test_a_drained_settled_run_is_ok_and_says_settled() -> None:
    lab, (producer, _) = _lab(lambda msgs, ctx: C.CONSUME_SUCCESS)
    lab.at(1000, producer.send, Message("T", "a"))
    lab.at(2000, lab.broker_down, "broker-a")
    lab.at(60_000, lab.broker_up, "broker-a")
    lab.run(until=60_000 + BOUND)
    report = check_invariants(lab)
    assert report.ok and report.settled, str(report)
    assert f"settled: quiet for {BOUND} ms since 60000 ms (drain bound {BOUND} ms)" in str(report)


def test_a_message_still_in_flight_at_the_end_of_a_settled_run_is_a_violation_with_its_story() -> None:
    """An orderly message suspended forever (maxReconsumeTimes −1 = Integer.MAX_VALUE) never drains."""
    lab, (producer, _) = _lab(lambda msgs, ctx: O.SUSPEND_CURRENT_QUEUE_A_MOMENT, orderly=True)
    lab.at(1000, producer.send, Message("T", "a"))
    early = check_invariants(lab.run(until=HOUR))
    assert early.ok and not early.settled and early.fates[("group:g", "M0001")] == "in_flight:process_queue"
    assert f"not settled: quiet for {HOUR - 1000} ms since 1000 ms, less than the drain bound" in str(early)
    lab.run(until=1000 + BOUND)
    report = check_invariants(lab)
    assert not report.ok and report.settled
    (violation,) = report.violations
    assert (violation.invariant, violation.msg_id) == ("settled", "M0001")
    assert violation.detail.startswith("still process queue in T@broker-a:")
    assert "for group:g at the end of a settled run (quiet for" in violation.detail
    assert {e.kind for e in violation.trace} >= {EventKind.DELIVERED, EventKind.SUSPENDED}


def test_faults_left_on_or_no_running_consumer_or_a_hanging_listener_keep_in_flight_a_fate() -> None:
    lab, (producer, consumer) = _lab(lambda msgs, ctx: C.CONSUME_SUCCESS)
    lab.at(1000, lab.set_broker_fault, "broker-a", reject_send_back=True)
    lab.at(2000, consumer.crash)
    lab.at(3000, producer.send, Message("T", "a"))
    report = check_invariants(lab.run(until=2 * BOUND))
    assert report.ok and not report.settled
    assert "faults still on at the end: broker-a reject_send_back=True" in str(report)
    lab.set_broker_fault("broker-a", reject_send_back=False)
    report = check_invariants(lab.run(until=4 * BOUND))
    assert report.ok and report.settled and report.fates[("group:g", "M0001")] == "in_flight:stored"  # nobody runs

    hung, (producer, _) = _lab(lambda msgs, ctx: HANG, orderly=True)
    hung.at(1000, producer.send, Message("T", "a"))
    report = check_invariants(hung.run(until=1000 + BOUND))
    assert report.ok and report.settled and report.fates[("group:g", "M0001")] == "in_flight:process_queue"


def test_two_instances_granted_one_queue_by_brokers_that_disagree_explain_the_duplicate() -> None:
    """Shrunk from a storm: c2 is cut from broker-b only. broker-b expires c2's channel at 130 s and c1, asking
    broker-b, takes all four queues; c2, asking broker-c, still sees both members and keeps T@broker-c:0/1. Both
    own T@broker-c:0 for as long as the partition lasts (RocketMQ behaves the same), so a message sent there at
    300 s — 170 s after the last rebalance, past the 60 s look-back — is consumed by both: explained, not a bug."""
    lab = Lab(seed=1)
    for name in ("broker-b", "broker-c"):
        lab.add_broker(name)
    lab.create_topic("T", queues=2)
    producer = lab.add_producer("pg")
    for name in ("c1", "c2"):
        lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda msgs, ctx: C.CONSUME_SUCCESS, name=name)
    lab.at(10_000, lab.partition, "c2", "broker-b")
    lab.at(300_000, producer.send_with_selector, Message("T", "x"), SelectMessageQueueByHash, 2)
    lab.run(until=400_000)
    deliveries = [(e.time_ms, e.actor, e.data["queue"]) for e in lab.trace.of_kind(EventKind.DELIVERED)]
    assert deliveries == [(300_000, "consumer:c2", "T@broker-c:0"), (300_000, "consumer:c1", "T@broker-c:0")]
    report = check_invariants(lab)
    assert report.ok, str(report)
    assert (report.counts["redeliveries"], report.counts["duplicate_consumptions"]) == (1, 1)


def test_a_send_back_fallback_retried_after_a_stored_attempt_explains_two_consumed_retry_copies() -> None:
    """Shrunk from a storm: the send-back to broker-a fails (refused), so the inner producer sends the retry
    itself; its first attempt is stored on broker-a but the response is lost, so it retries on broker-b. Two
    retry copies, both consumed: a duplicate with a cause (an at-least-once producer retry)."""
    lab = Lab(seed=2)
    for name in ("broker-a", "broker-b"):
        lab.add_broker(name)
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")

    def listener(msgs: list[Any], ctx: Any) -> Any:
        return after("1s", C.RECONSUME_LATER) if msgs[0].reconsume_times == 0 else C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, name="c1")
    lab.at(1000, producer.send, Message("T", "x"))
    lab.at(1500, lab.set_broker_fault, "broker-a", reject_send_back=True, lose_responses=True)
    lab.at(5000, lab.set_broker_fault, "broker-a", reject_send_back=False, lose_responses=False)
    lab.run(until=120_000)
    inner = [
        (e.data["broker"], str(e.data["outcome"]).split(":")[0])
        for e in lab.trace.for_message("M0001")
        if e.kind is EventKind.SEND_RESULT and e.actor == "producer:c1/inner"
    ]
    assert inner == [("broker-a", "RemotingException"), ("broker-b", "SUCCESS")]
    consumed = [(e.time_ms, e.data["queue"]) for e in lab.trace.for_message("M0001") if e.kind is EventKind.CONSUMED]
    # broker-a's copy waits for the retry pull the lost response dropped: its 31 s timeout, then a re-pull at 32 s
    assert consumed == [(2000, "T@broker-a:0"), (12_000, "%RETRY%cg@broker-b:0"), (32_000, "%RETRY%cg@broker-a:0")]
    report = check_invariants(lab)
    assert report.ok, str(report)
    assert report.counts["duplicate_consumptions"] == 1
