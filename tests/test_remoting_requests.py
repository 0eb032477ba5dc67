"""Every client→broker call is a request through remoting, so faults hit locks, offsets and heartbeats too.

Before the redesign a partition cut sends, pulls and send-backs but a lock renewal or an offset commit
reached the broker anyway (or was skipped silently); these tests pin what 4.9.7 does instead.
"""

from __future__ import annotations

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind as K
from rmqlab import Lab, Message, after
from rmqlab.common.message_queue import MessageQueue
from rmqlab.core.process import ProcessGroup, Rpc
from rmqlab.remoting.protocol import GetMaxOffsetRequest


def test_a_partitioned_orderly_consumer_fails_to_renew_and_its_lock_expires_at_60_s() -> None:
    """c1 owns both queues and is cut off at 30 s; c2 joins at 35 s and is allocated queue 1.

    c1's renewals from 41 s on fail (each failure traced), the broker lets its lock expire 60 s after the last
    renewal (21 s), and c2's first rebalance after that (95 s: it started at 35 s, then every 20 s) takes the queue.
    """
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=2)
    producer = lab.add_producer("pg")
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c1")
    lab.add_consumer(
        "og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c2", start="35s"
    )
    lab.at("30s", lab.partition, "c1", "broker-a")
    lab.at("100s", producer.send_to_queue, Message("ORD", "after"), MessageQueue("ORD", "broker-a", 1))
    lab.run(until="110s")
    q1 = "ORD@broker-a:1"
    renewed = [e.time_ms for e in lab.trace.of_kind(K.LOCK_RENEWED) if (e.actor, e.get("queue")) == ("consumer:c1", q1)]
    assert renewed == [1_000, 21_000]
    failed = [
        e.time_ms
        for e in lab.trace.of_kind(K.WARNING)
        if e.actor == "consumer:c1" and "lockBatchMQ exception" in e.get("message") and q1 in e.get("message")
    ]
    assert failed == [41_000, 61_000, 81_000, 101_000]  # every 20 s while the partition lasts
    refused = [e.time_ms for e in lab.trace.of_kind(K.LOCK_REFUSED) if (e.actor, e.get("queue")) == ("consumer:c2", q1)]
    assert refused == [35_000, 55_000, 75_000]  # c1's lease (last renewed at 21 s) runs until 81 s
    expired = [
        (e.time_ms, e.get("previous_holder"), e.get("new_holder"))
        for e in lab.trace.of_kind(K.LOCK_EXPIRED)
        if e.get("queue") == q1
    ]
    assert expired == [(95_000, "c1", "c2")]
    delivered = [(e.time_ms, e.actor) for e in lab.trace.of_kind(K.DELIVERED) if e.get("queue") == q1]
    assert delivered == [(100_000, "consumer:c2")]


def test_an_offset_commit_lost_in_a_partition_is_sent_again_at_the_next_persist() -> None:
    """The first persistAll (10 s) is oneway and lost while c1 is cut off; the next one (15 s) stores the offset."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    # the listener takes 3 s, so the pull sent right after the message (held until 17 s) cannot carry the offset
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: after("3s", C.CONSUME_SUCCESS), name="c1")
    lab.at("2s", producer.send, Message("T", "m"))
    lab.at("9s", lab.partition, "c1", "broker-a")
    lab.at("12s", lab.partition, "c1", "broker-a", heal=True)
    lab.run(until="16s")
    persisted = [
        (e.time_ms, e.get("offset"))
        for e in lab.trace.of_kind(K.OFFSET_PERSISTED)
        if e.get("queue") == "T@broker-a:0" and e.get("group") == "cg"
    ]
    assert persisted == [(15_000, 1)]
    lost = [
        e.time_ms
        for e in lab.trace.of_kind(K.WARNING)
        if "updateConsumeOffsetToBroker exception, T@broker-a:0 offset 1" in e.get("message")
    ]
    assert lost == [10_000]  # reported once per run of failures, not at every 5 s round
    assert lab.brokers["broker-a"].consumer_offsets[("cg", "T", 0)] == 1


def test_a_response_to_a_killed_process_is_dropped() -> None:
    """A process waiting on a slow response is killed; the response arrives later and nothing resumes."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    lab.set_broker_fault("broker-a", response_delay_ms=500)
    group = ProcessGroup(lab.scheduler, lab.remoting, "test")
    seen: list[object] = []

    def ask():  # type: ignore[no-untyped-def]
        answer = yield Rpc("probe", "broker-a", GetMaxOffsetRequest("T", 0), 3_000)
        seen.append(answer)

    group.spawn(ask())
    group.spawn(ask())
    first = next(iter(group.processes))
    first.kill()
    lab.run(until=1_000)
    assert seen == [(0, None)]  # only the live process got its answer, at 500 ms
    assert not lab.remoting.response_table


def test_broker_down_fails_waiting_pulls_at_once_and_other_requests_when_their_answer_was_due() -> None:
    """A consumer's held pull fails when its broker dies (pull again 1 s later); a slow request of another kind
    fails when its delayed answer would have arrived (800 ms), lost on a link that is gone."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS, name="c1")
    lab.set_broker_fault("broker-a", response_delay_ms=800)
    group = ProcessGroup(lab.scheduler, lab.remoting, "test")
    seen: list[tuple[int, str]] = []

    def ask():  # type: ignore[no-untyped-def]
        _, error = yield Rpc("probe", "broker-a", GetMaxOffsetRequest("T", 0), 3_000)
        seen.append((lab.now, error.name))

    lab.at(5_000, lambda: group.spawn(ask()))
    lab.at(5_300, lab.broker_down, "broker-a")
    lab.run(until=7_000)
    assert seen == [(5_800, "RemotingException")]
    assert not any(f.broker == "broker-a" for f in lab.remoting.response_table.values())


def test_overlapping_rebalances_never_fork_a_pull_loop() -> None:
    """Found by the property test: with 1 s responses, the 20 s round, start-up and a broker's notification each ran
    a ``doRebalance`` that waited on its requests at the same time; each saw the queue missing and started its own
    ProcessQueue and pull loop, so one message was delivered four times at one millisecond. One rebalance at a
    time, as on RocketMQ's single ``RebalanceService`` thread."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_properties import ClusterMachine

    class Script:
        def draw(self, strategy: object, label: object = None) -> list[str]:
            return ["CONSUME_SUCCESS"]

    machine = ClusterMachine()
    machine.build(brokers=3, data=Script(), orderly=False, seed=1493, queues=7)  # type: ignore[arg-type]
    machine.add_consumer()
    machine.add_consumer()
    machine.advance(ms=10)
    machine.broker_down_or_up(down=True, index=0)
    machine.add_consumer()
    machine.advance(ms=10)
    machine.crash_consumer(index=0)
    machine.advance(ms=20)
    machine.send(count=2, keyed=True)
    machine.broker_fault(delay=1000, index=1, reject=True, lose=False)
    machine.remove_consumer(index=0)
    machine.crash_consumer(index=2)
    machine.advance(ms=120_000)
    lab = machine.lab
    deliveries = [(e.msg_id, e.actor) for e in lab.trace.of_kind(K.DELIVERED)]
    assert sorted(deliveries) == [("M0001", "consumer:c4"), ("M0002", "consumer:c4")]
    machine.invariants_hold()
