"""A topic made unreadable mid-run (``updateTopic`` perm 0 or 2): 4.9.7's answer, and no hang (issue 34 item 1).

4.9.7 ``PullMessageProcessor.processRequest`` answers a pull of a topic without the read bit with NO_PERMISSION,
"the topic[T] pulling message is forbidden" (also when a held pull wakes up: ``executeRequestWhenWakeup`` runs
``processRequest`` again). The client's ``PullCallback.onException`` pulls again after
``pullTimeDelayMillsWhenException`` (``ClientConfig``: 1000 ms). The next route poll (every 30 s) keeps only
readable queues in the subscribe info (``topicRouteData2TopicSubscribeInfo``), and the next rebalance (every
20 s) releases the queues. Before, the broker answered NO_NEW_MSG at once and the client pulled again at the
same millisecond, for ever: ``run()`` never returned.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from rmqlab import ConsumeConcurrentlyStatus, EventKind, Lab, Message, load_scenario
from rmqlab.core.process import Sleep, spawn
from rmqlab.core.scheduler import SpinError, TimerKind, TimerLabel

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _ok(msgs: Any, ctx: Any) -> ConsumeConcurrentlyStatus:
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS


def _lab() -> Lab:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=2)
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=_ok)
    return lab


@pytest.mark.parametrize("perm", [0, 2])
def test_an_unreadable_topic_answers_no_permission_every_second_until_rebalance_drops_its_queues(perm: int) -> None:
    lab = _lab()
    lab.run(until=5000)
    lab.update_topic("T", perm=perm)
    lab.run(until=100_000)
    deferred = [
        (e.time_ms, e.get("queue"), e.get("code"), e.get("delay_ms"))
        for e in lab.trace.of_kind(EventKind.PULL_DEFERRED)
    ]
    # the held pulls (sent at 0 ms) wake at 15 s and are answered NO_PERMISSION; then one pull a second per queue
    assert deferred == [
        (t, f"T@broker-a:{q}", "NO_PERMISSION", 1000) for t in range(15_000, 40_000, 1000) for q in (0, 1)
    ]
    rebalanced = [
        (e.time_ms, e.get("removed")) for e in lab.trace.of_kind(EventKind.REBALANCED) if e.get("topic") == "T"
    ]
    assert rebalanced[-1] == (40_000, ["T@broker-a:0", "T@broker-a:1"])  # route poll at 30 s, rebalance at 40 s
    assert lab.now == 100_000


def test_a_held_pull_woken_by_a_message_on_a_write_only_topic_is_refused_not_delivered() -> None:
    lab = _lab()
    producer = lab.add_producer("pg")
    lab.run(until=5000)
    lab.update_topic("T", perm=2)
    lab.at(6000, producer.send, Message("T", "m", keys="k"))
    lab.run(until=100_000)
    assert lab.trace.of_kind(EventKind.STORED)
    assert not lab.trace.of_kind(EventKind.DELIVERED)
    first = lab.trace.of_kind(EventKind.PULL_DEFERRED)[0]
    assert (first.time_ms, first.get("code")) == (6000, "NO_PERMISSION")


def test_readable_again_the_consumer_takes_its_queues_back_and_consumes() -> None:
    lab = _lab()
    producer = lab.add_producer("pg")
    lab.run(until=5000)
    lab.update_topic("T", perm=2)
    lab.at(6000, producer.send, Message("T", "m", keys="k"))
    lab.at(50_000, lab.update_topic, "T", perm=6)
    lab.run(until=200_000)
    assert [e.time_ms for e in lab.trace.of_kind(EventKind.DELIVERED)] == [80_000]


def test_a_read_forbidden_broker_answers_no_permission_naming_its_ip() -> None:
    lab = _lab()
    lab.run(until=5000)
    lab.update_broker_config("broker-a", broker_permission=2)
    lab.run(until=20_000)
    first = lab.trace.of_kind(EventKind.PULL_DEFERRED)[0]
    assert (first.time_ms, first.get("code"), first.get("delay_ms")) == (15_000, "NO_PERMISSION", 1000)


def test_a_process_that_reschedules_itself_at_the_same_millisecond_is_a_clear_error() -> None:
    lab = Lab(seed=1)

    def spin() -> None:
        lab.scheduler.schedule(0, spin, label=TimerLabel(TimerKind.ACTION, "lab", detail="spin"))

    lab.at(1000, spin)
    lab.at(2000, lambda: None)
    lab.scheduler.max_events_per_instant = 5000
    with pytest.raises(SpinError) as info:
        lab.run(until=10_000)
    assert str(info.value).startswith(
        "run() is stuck at 1000 ms: 5,000 events in a row at this one virtual millisecond, the last a action event "
        "of lab (spin) running "
    )
    assert "test_a_process_that_reschedules_itself_at_the_same_millisecond_is_a_clear_error.<locals>.spin" in str(
        info.value
    )
    assert lab.now == 1000


def test_a_spinning_generator_process_is_named_by_its_function() -> None:
    lab = Lab(seed=1)

    def busy() -> Generator[Any, Any, None]:
        while True:
            yield Sleep(0, TimerLabel(TimerKind.PULL, "consumer:c9"))

    lab.at(500, lambda: spawn(lab.scheduler, lab.remoting, busy()))
    lab.scheduler.max_events_per_instant = 1000
    with pytest.raises(SpinError, match=r"at 500 ms: .* a pull event of consumer:c9 running .*<locals>\.busy"):
        lab.run(until=10_000)


def test_the_default_spin_guard_stops_a_spin_in_bounded_time() -> None:
    """No lowered limit: the default million events at one millisecond still ends (in a few seconds)."""
    lab = Lab(seed=1)

    def busy() -> Generator[Any, Any, None]:
        while True:
            yield Sleep(0, TimerLabel(TimerKind.PULL, "consumer:c9"))

    lab.at(0, lambda: spawn(lab.scheduler, lab.remoting, busy()))
    with pytest.raises(SpinError, match="1,000,000 events in a row"):
        lab.run(until=1)


def test_the_example_scenario_refuses_pulls_releases_the_queues_and_consumes_once_readable() -> None:
    """``examples/topic_read_forbidden.yaml``: the reproducer, which hung ``rmqlab run`` before."""
    lab = load_scenario(EXAMPLES / "topic_read_forbidden.yaml").run()
    assert lab.now == 90_000
    refused = lab.trace.of_kind(EventKind.PULL_DEFERRED)
    assert {e.get("code") for e in refused} == {"NO_PERMISSION"}
    # queue 0's held pull is woken by order-1 at 6 s; queue 1's at its 15 s hold timeout; then every second
    assert [e.time_ms for e in refused if e.get("queue") == "T@broker-a:0"] == list(range(6000, 40_000, 1000))
    assert [e.time_ms for e in refused if e.get("queue") == "T@broker-a:1"] == list(range(15_000, 40_000, 1000))
    assert [(e.time_ms, e.msg_id) for e in lab.trace.of_kind(EventKind.DELIVERED)] == [(80_000, "M0001")]
