"""One ordering rule for one millisecond, whichever entry point scheduled the events (rmqlab.core.scheduler).

At the same millisecond every call of the fault registry runs first (Priority.FAULT), then everything else;
each group in the order it was scheduled. A scenario file and the same calls through ``lab.at`` give the same
trace, byte for byte, whatever order the ``lab.at`` calls were written in.
"""

from __future__ import annotations

from typing import Any

import pytest

from rmqlab import EventKind, Lab, Message, ScriptedListener, load_scenario
from rmqlab.core.scheduler import Priority

SCENARIO: dict[str, Any] = {
    "name": "faults and work at the same milliseconds",
    "seed": 3,
    "brokers": ["broker-a", "broker-b"],
    "topics": [{"name": "T", "queues": 2}],
    "producers": [{"name": "pg"}],
    "consumers": [{"group": "cg", "name": "c1", "subscribe": {"T": "*"}, "listener": ["CONSUME_SUCCESS"]}],
    "sends": [
        {"at": "5s", "producer": "pg", "topic": "T", "body": "at-5s-{i}", "count": 4},
        {"at": "30s", "producer": "pg", "topic": "T", "body": "at-30s-{i}", "count": 2},
        {"at": "40s", "producer": "pg", "topic": "T", "body": "at-40s"},
    ],
    "faults": [
        {"at": "5s", "kind": "broker_down", "broker": "broker-a"},
        {"at": "5s", "kind": "partition", "client": "c1", "broker": "broker-b"},
        {"at": "30s", "kind": "consumer_crash", "consumer": "c1"},
        {"at": "30s", "kind": "heal", "client": "c1", "broker": "broker-b"},
        {"at": "40s", "kind": "broker_up", "broker": "broker-a"},
        {"at": "40s", "kind": "consumer_restart", "consumer": "c1"},
        {"at": "40s", "kind": "update_subscription_group", "group": "cg", "retry_max_times": 3},
    ],
    "run_until": "3m",
}


def _python(faults_first: bool) -> Lab:
    """The scenario as ``lab.at`` calls; ``faults_first`` writes the faults before the sends, else after."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("T", queues=2)
    producer = lab.add_producer("pg", name="pg")
    consumer = lab.add_consumer("cg", name="c1", subscribe={"T": "*"}, listener=ScriptedListener(["CONSUME_SUCCESS"]))

    def sends() -> None:
        for i in range(4):
            lab.at("5s", producer.send, Message("T", f"at-5s-{i}"))
        for i in range(2):
            lab.at("30s", producer.send, Message("T", f"at-30s-{i}"))
        lab.at("40s", producer.send, Message("T", "at-40s"))

    def faults() -> None:
        lab.at("5s", lab.broker_down, "broker-a")
        lab.at("5s", lab.partition, "c1", "broker-b")
        lab.at("30s", consumer.crash)
        lab.at("30s", lab.partition, "c1", "broker-b", heal=True)
        lab.at("40s", lab.broker_up, "broker-a")
        lab.at("40s", consumer.start)
        lab.at("40s", lab.update_subscription_group, "cg", retry_max_times=3)

    if faults_first:
        faults()
        sends()
    else:
        sends()
        faults()
    return lab.run(until="3m")


@pytest.mark.parametrize("faults_first", [False, True], ids=["faults written after the sends", "faults written first"])
def test_lab_at_and_a_scenario_file_give_the_same_trace(faults_first: bool) -> None:
    from_file = load_scenario(SCENARIO).run()
    assert _python(faults_first).trace.to_jsonl() == from_file.trace.to_jsonl()


def test_at_one_millisecond_the_fault_acts_before_the_work() -> None:
    """broker-a is down before the 5 s sends (none is stored there), c1 has crashed before the 30 s sends are
    delivered, and broker-a is back (and c1 restarted) before the 40 s send: every fault event of a millisecond
    precedes that millisecond's first send attempt."""
    lab = load_scenario(SCENARIO).run()
    stored = lab.trace.of_kind(EventKind.STORED)
    assert [e.actor for e in stored if e.time_ms == 5_000] == ["broker-b"] * 4
    for t in (5_000, 30_000, 40_000):
        at_t = [e for e in lab.trace if e.time_ms == t]
        first_send = next(i for i, e in enumerate(at_t) if e.kind is EventKind.SEND_ATTEMPT)
        faults = [i for i, e in enumerate(at_t) if e.kind in (EventKind.FAULT, EventKind.ADMIN, EventKind.LIFECYCLE)]
        assert faults and max(faults) < first_send, t
    assert [e.time_ms for e in lab.trace.of_kind(EventKind.ADMIN)] == [40_000, 40_000]


def test_a_send_and_broker_down_at_the_same_ms_through_lab_at() -> None:
    """The issue's case: the send written first, broker_down second, same ms: no SEND_OK on broker-a; wrapped in a
    lambda the fault is ordinary work and acts after the send (what the dashboard's "inject now" uses)."""

    def run(wrap: bool) -> list[tuple[str, str | None]]:
        lab = Lab(seed=1)
        lab.add_broker("broker-a")
        lab.create_topic("T", queues=1)
        producer = lab.add_producer("pg", name="pg")
        lab.at("5s", producer.send, Message("T", "b"))
        if wrap:
            lab.at("5s", lambda: lab.broker_down("broker-a"))
        else:
            lab.at("5s", lab.broker_down, "broker-a")
        lab.run(until="10s")
        return [(e.kind.value, e.get("fault")) for e in lab.trace if e.time_ms == 5_000]

    bare = run(wrap=False)
    assert bare[0] == ("fault", "broker_down") and ("stored", None) not in bare
    wrapped = run(wrap=True)
    assert ("stored", None) in wrapped and wrapped[-1] == ("fault", "broker_down")


def test_every_registered_fault_method_is_scheduled_at_fault_priority() -> None:
    lab = Lab()
    lab.add_broker("broker-a")
    lab.create_topic("T")
    producer = lab.add_producer("pg")
    consumer = lab.add_consumer("cg", subscribe={"T": "*"}, listener=ScriptedListener(), start=False)
    for action, *args in (
        (lab.broker_down, "broker-a"),
        (lab.broker_up, "broker-a"),
        (lab.set_broker_fault, "broker-a"),
        (lab.partition, "c1", "broker-a"),
        (lab.update_topic, "T"),
        (lab.update_subscription_group, "cg"),
        (consumer.crash,),
        (consumer.start,),
        (consumer.shutdown,),
    ):
        lab.at("1s", action, *args)
    lab.at("1s", lab.update_broker_config, "broker-a", broker_permission=6)
    lab.at("1s", producer.send, Message("T", "b"))
    lab.at("1s", lambda: None)
    actions = [(p, label.detail) for t, p, _, label in lab.scheduler.timers() if label and label.kind == "action"]
    assert [p for p, _ in actions] == [Priority.FAULT] * 10 + [Priority.NORMAL] * 2
