"""Latency fault tolerance (``sendLatencyFaultEnable``), pinned to 4.9.7's ``MQFaultStrategy``,
``LatencyFaultToleranceImpl`` and the ``updateFaultItem`` calls in ``DefaultMQProducerImpl.sendDefaultImpl`` and
``MQClientAPIImpl.sendMessageAsync``."""

from __future__ import annotations

import pytest

from rmqlab import ConfigError, Lab, Message
from rmqlab import EventKind as K
from rmqlab.client.producer.latency_fault_tolerance import LatencyFaultToleranceImpl, MQFaultStrategy
from rmqlab.common.message_queue import MessageQueue


def results(lab: Lab) -> list[tuple[int, str, int, str, int | None]]:
    return [
        (e.time_ms, e.get("broker"), e.get("queue_id"), e.get("outcome"), e.get("not_available_until"))
        for e in lab.trace.of_kind(K.SEND_RESULT)
    ]


def _lab(queues: int = 2, brokers: tuple[str, ...] = ("broker-a", "broker-b")) -> Lab:
    lab = Lab(seed=7)
    for name in brokers:
        lab.add_broker(name)
    lab.create_topic("T", queues=queues)
    return lab


@pytest.mark.parametrize(
    ("latency", "duration"),
    [
        (0, 0),
        (549, 0),
        (550, 30_000),
        (999, 30_000),
        (1000, 60_000),
        (2000, 120_000),
        (3000, 180_000),
        (14_999, 180_000),
        (15_000, 600_000),
        (30_000, 600_000),
    ],
)
def test_compute_not_available_duration_scans_the_tables_from_the_top(latency: int, duration: int) -> None:
    strategy = MQFaultStrategy(send_latency_fault_enable=True, which_item_worst_start=0)
    assert strategy.compute_not_available_duration(latency) == duration


def test_a_failure_counts_as_30000_ms_and_keeps_its_real_latency() -> None:
    strategy = MQFaultStrategy(send_latency_fault_enable=True, which_item_worst_start=0)
    assert strategy.update_fault_item("broker-a", 3, True, 1000) == 601_000
    item = strategy.latency_fault_tolerance.fault_item_table["broker-a"]
    assert (item.current_latency, item.start_timestamp) == (3, 601_000)
    assert (
        MQFaultStrategy(send_latency_fault_enable=False, which_item_worst_start=0).update_fault_item(
            "broker-a", 3, True, 1000
        )
        is None
    )


def test_a_slow_broker_is_avoided_for_30_s_after_a_600_ms_send_then_used_again() -> None:
    """A SEND_OK that took 600 ms sidelines broker-a until 600 + 30 000 = 30 600 ms (isAvailable: now >= start)."""
    lab = _lab()
    producer = lab.add_producer("pg", send_which_queue_start=3, send_latency_fault_enable=True)
    lab.set_broker_fault("broker-a", response_delay_ms=600)
    lab.at(1000, lab.set_broker_fault, "broker-a", response_delay_ms=0)  # broker-a is fast again from 1 s
    for t in (0, 5000, 10_000, 15_000, 30_599, 30_600):
        lab.at(t, producer.send, Message("T", str(t)))
    lab.run(until="40s")
    # queues [a-0, a-1, b-0, b-1]; each send takes index = incrementAndGet() and scans from there
    assert results(lab) == [
        (600, "broker-a", 0, "SUCCESS", 30_600),  # index 4 → a-0, answered after 600 ms
        (5000, "broker-b", 0, "SUCCESS", 5000),  # index 5 → a-1 not available → b-0
        (10_000, "broker-b", 0, "SUCCESS", 10_000),  # index 6 → b-0
        (15_000, "broker-b", 1, "SUCCESS", 15_000),  # index 7 → b-1
        (30_599, "broker-b", 0, "SUCCESS", 30_599),  # index 8 → a-0, a-1 still out (1 ms to go) → b-0
        (30_600, "broker-a", 1, "SUCCESS", 30_600),  # index 9 → a-1: available again
    ]


def test_without_the_switch_the_slow_broker_keeps_its_round_robin_turns() -> None:
    lab = _lab()
    producer = lab.add_producer("pg", send_which_queue_start=3)
    lab.set_broker_fault("broker-a", response_delay_ms=600)
    lab.at(1000, lab.set_broker_fault, "broker-a", response_delay_ms=0)
    for t in (0, 5000, 10_000):
        lab.at(t, producer.send, Message("T", str(t)))
    lab.run(until="20s")
    assert results(lab) == [
        (600, "broker-a", 0, "SUCCESS", None),
        (5000, "broker-a", 1, "SUCCESS", None),
        (10_000, "broker-b", 0, "SUCCESS", None),
    ]


def test_a_refused_broker_is_isolated_for_600_s() -> None:
    """A RemotingConnectException: isolation → duration of 30 000 ms latency = 600 000 ms. lastBrokerName is ignored
    in the latency branch; the retry simply takes the next available queue."""
    lab = _lab()
    producer = lab.add_producer("pg", send_which_queue_start=3, send_latency_fault_enable=True)
    lab.at(0, producer.send, Message("T", "warm-up"))
    lab.at(1, lab.broker_down, "broker-a")
    lab.at(2, producer.send, Message("T", "x"))
    lab.at(10_000, lab.broker_up, "broker-a")
    for t in (100_000, 600_001, 600_002):
        lab.at(t, producer.send, Message("T", str(t)))
    lab.run(until="11m")
    assert results(lab) == [
        (0, "broker-a", 0, "SUCCESS", 0),  # index 4
        (2, "broker-a", 1, "RemotingConnectException: connect to broker-a failed: broker down", 600_002),  # 5
        (2, "broker-b", 0, "SUCCESS", 2),  # index 6
        (100_000, "broker-b", 1, "SUCCESS", 100_000),  # index 7
        (600_001, "broker-b", 0, "SUCCESS", 600_001),  # index 8: a-0, a-1 out → b-0
        (600_002, "broker-a", 1, "SUCCESS", 600_002),  # index 9: a-1 back
    ]


def test_when_every_broker_is_out_pick_one_at_least_rewrites_a_queue_of_the_route() -> None:
    """One broker, out for 30 s: ``pickOneAtLeast`` gives broker-a; 4.9.7 takes the round-robin queue (index 6 → a-2)
    and sets its queue id to ``incrementAndGet() % 4`` (7 % 4 = 3) *on the shared list*: a-2 is gone from the
    producer's list until the route changes, and a-3 gets two turns in four."""
    lab = _lab(queues=4, brokers=("broker-a",))
    producer = lab.add_producer("pg", send_which_queue_start=3, send_latency_fault_enable=True)
    lab.set_broker_fault("broker-a", response_delay_ms=600)
    lab.at(1000, lab.set_broker_fault, "broker-a", response_delay_ms=0)
    for t in range(0, 7000, 1000):
        lab.at(t, producer.send, Message("T", str(t)))
    lab.run(until="10s")
    assert [(t, q) for t, _, q, _, _ in results(lab)] == [
        (600, 0),  # index 4
        (1000, 3),  # index 5: nothing available → pickOneAtLeast; index 6 → position 2, queue id 7 % 4 = 3
        (2000, 0),  # index 8
        (3000, 1),  # index 9
        (4000, 3),  # index 10: position 2 now holds a-3
        (5000, 3),  # index 11
        (6000, 0),  # index 12
    ]


def test_async_connect_failure_is_overwritten_by_send_default_impls_fast_success() -> None:
    """4.9.7 quirk: ``sendMessageAsync`` isolates broker-a when ``invokeAsync`` cannot connect and retries on
    broker-b; then ``sendDefaultImpl``, whose ``sendKernelImpl`` returned normally, records a 0 ms success for
    broker-a. So the next ASYNC send picks broker-a again and fails again."""
    lab = _lab()
    producer = lab.add_producer("pg", send_which_queue_start=3, send_latency_fault_enable=True)
    lab.at(0, producer.send, Message("T", "warm-up"))
    lab.at(1, lab.broker_down, "broker-a")
    for t in (2, 3, 4):
        lab.at(t, producer.send_async, Message("T", str(t)))
    lab.run(until="1s")
    refused = "RemotingConnectException: connect to broker-a failed: broker down"
    assert results(lab) == [
        (0, "broker-a", 0, "SUCCESS", 0),
        (2, "broker-a", 1, refused, 600_002),  # index 5 → a-1
        (2, "broker-b", 1, "SUCCESS", 2),  # onExceptionImpl re-selects: index 6 → b-0's broker, queue id 1 kept
        (3, "broker-b", 1, "SUCCESS", 3),  # index 7 → b-1
        (4, "broker-a", 0, refused, 600_004),  # index 8 → a-0: available again after the overwrite
        (4, "broker-b", 0, "SUCCESS", 4),  # index 9 → a-1 out (isolated at 4 ms) → index 10 → b-0
    ]
    item = producer.fault_strategy.latency_fault_tolerance.fault_item_table["broker-a"]
    assert (item.current_latency, item.start_timestamp) == (0, 4)


def test_pick_one_at_least_prefers_available_then_lower_latency_then_earlier_start() -> None:
    table = LatencyFaultToleranceImpl(which_item_worst_start=0)
    table.update_fault_item("broker-a", 700, 30_000, 0)  # out until 30 000
    table.update_fault_item("broker-b", 600, 30_000, 0)  # out until 30 000, lower latency
    assert table.pick_one_at_least(10_000) == "broker-b"  # two items: half = 1, whichItemWorst 1 % 1 = 0, the best
    table.update_fault_item("broker-c", 900, 0, 0)  # available
    table.update_fault_item("broker-d", 50, 600_000, 0)  # out, lowest latency
    # sorted: c (available), d (50), b (600), a (700); half = 2, whichItemWorst 2, 3, 4 → index 0, 1, 0
    assert [table.pick_one_at_least(10_000) for _ in range(3)] == ["broker-c", "broker-d", "broker-c"]


def test_ties_keep_java_hash_map_order() -> None:
    """Equal items keep ``ConcurrentHashMap`` order (bin of ``spread(hashCode) & 31``), not insertion order."""
    table = LatencyFaultToleranceImpl(which_item_worst_start=0)
    for name in ("broker-a", "broker-b"):
        table.update_fault_item(name, 0, 600_000, 0)
    # spread("broker-a".hashCode()) & 31 = 27, for "broker-b" 24: broker-b comes first although put in later
    assert table.pick_one_at_least(1) == "broker-b"


def test_the_strategy_is_off_by_default_and_draws_nothing_from_the_lab_rng() -> None:
    def run(**options: object) -> str:
        lab = _lab()
        producer = lab.add_producer("pg", **options)
        lab.add_producer("pg2")  # its round-robin start is the lab rng's next draw
        lab.at(0, producer.send, Message("T", "x"))
        lab.at(1, lab.producers["pg2"].send, Message("T", "y"))
        lab.run(until="1s")
        return lab.trace.to_jsonl()

    assert run() == run(send_latency_fault_enable=False)
    assert "not_available_until" not in run()


def test_bad_tables_are_refused() -> None:
    lab = _lab()
    with pytest.raises(ConfigError, match=r"send_latency_fault_enable='yes' is not allowed: expected True or False"):
        lab.add_producer("pg", send_latency_fault_enable="yes")
    with pytest.raises(ConfigError, match=r"latency_max=\[50, -1\] is not allowed"):
        lab.add_producer("pg", latency_max=[50, -1], not_available_duration=[0, 0])
    with pytest.raises(ConfigError, match=r"not_available_duration=\[0\] is not allowed: expected 7 durations"):
        lab.add_producer("pg", not_available_duration=[0])


def test_the_selector_sees_the_rewritten_list() -> None:
    lab = _lab(queues=4, brokers=("broker-a",))
    producer = lab.add_producer("pg", send_which_queue_start=3, send_latency_fault_enable=True)
    lab.set_broker_fault("broker-a", response_delay_ms=600)
    lab.at(0, producer.send, Message("T", "slow"))
    lab.at(1000, producer.send, Message("T", "rewrites"))
    seen: list[list[MessageQueue]] = []
    lab.at(2000, producer.send_with_selector, Message("T", "x"), lambda mqs, m, a: seen.append(list(mqs)) or mqs[0], 0)
    lab.run(until="5s")
    assert [q.queue_id for q in seen[0]] == [0, 1, 3, 3]


def test_a_scenario_turns_it_on_per_producer_and_the_schema_checks_the_type() -> None:
    from rmqlab.core.errors import ScenarioError
    from rmqlab.lab.scenario import load_scenario

    scenario = {
        "name": "slow",
        "brokers": ["broker-a", "broker-b"],
        "topics": [{"name": "T", "queues": 2}],
        "producers": [{"name": "pg", "send_which_queue_start": 3, "send_latency_fault_enable": True}],
        "faults": [{"at": 0, "kind": "broker_slow", "broker": "broker-a", "response_delay_ms": 600}],
        "sends": [{"at": 0, "producer": "pg", "topic": "T"}, {"at": "5s", "producer": "pg", "topic": "T"}],
        "run_until": "10s",
    }
    lab = load_scenario(scenario).run()
    assert [(t, b) for t, b, _, _, _ in results(lab)] == [(600, "broker-a"), (5000, "broker-b")]
    scenario["producers"] = [{"name": "pg", "send_latency_fault_enable": "yes"}]
    with pytest.raises(ScenarioError, match=r"producers\[0\]\.send_latency_fault_enable='yes'.*true or false"):
        load_scenario(scenario)


def test_a_scenario_sets_the_two_tables_and_a_mismatch_names_the_field() -> None:
    """``setLatencyMax`` / ``setNotAvailableDuration`` from a scenario file: with [50, 500] → [0, 5000] a 600 ms send
    keeps broker-a out for 5 s only (until 5 600 ms, not 30 600 ms): the send at 5 600 ms uses it again."""
    from rmqlab.core.errors import ScenarioError
    from rmqlab.lab.scenario import load_scenario

    producer = {
        "name": "pg",
        "send_which_queue_start": 3,
        "send_latency_fault_enable": True,
        "latency_max": [50, 500],
        "not_available_duration": [0, 5000],
    }
    scenario = {
        "name": "short_isolation",
        "brokers": ["broker-a", "broker-b"],
        "topics": [{"name": "T", "queues": 2}],
        "producers": [producer],
        "faults": [
            {"at": 0, "kind": "broker_slow", "broker": "broker-a", "response_delay_ms": 600},
            {"at": "1s", "kind": "broker_slow", "broker": "broker-a", "response_delay_ms": 0},
        ],
        "sends": [{"at": t, "producer": "pg", "topic": "T"} for t in (0, 1000, 2000, 3000, 5599, 5600)],
        "run_until": "10s",
    }
    lab = load_scenario(scenario).run()
    assert results(lab) == [
        (600, "broker-a", 0, "SUCCESS", 5600),  # index 4 → a-0, 600 ms ≥ 500 → 5000 ms out
        (1000, "broker-b", 0, "SUCCESS", 1000),  # index 5 → a-1 out → b-0
        (2000, "broker-b", 0, "SUCCESS", 2000),  # index 6 → b-0
        (3000, "broker-b", 1, "SUCCESS", 3000),  # index 7 → b-1
        (5599, "broker-b", 0, "SUCCESS", 5599),  # index 8 → a-0, a-1 still out (1 ms to go) → b-0
        (5600, "broker-a", 1, "SUCCESS", 5600),  # index 9 → a-1: available again
    ]
    producer["not_available_duration"] = [0]
    with pytest.raises(ScenarioError, match=r"producers\[0\]\.not_available_duration=\[0\] is not allowed: expected 2"):
        load_scenario(scenario)
    producer["latency_max"] = [50, -1]
    with pytest.raises(ScenarioError, match=r"producers\[0\]\.latency_max\[1\]"):
        load_scenario(scenario)
