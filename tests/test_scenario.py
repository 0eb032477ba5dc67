"""Scenario files: loading, building, scheduling, and one located error per kind of bad input."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from rmqlab import ConfigError, EventKind, Lab, Message, ScenarioError, ScriptedListener, load_scenario
from rmqlab.client.producer.default_mq_producer import SelectMessageQueueByHash
from rmqlab.common.message_queue import MessageQueue
from rmqlab.lab.scenario import scenario_schema, validate_scenario

DEFAULT_SCHEDULE_S = [0, 10, 40, 100, 220, 400, 640, 940, 1300, 1720, 2200, 2740, 3340, 4540, 6340, 9940, 17140]


def base(**overrides: Any) -> dict[str, Any]:
    """One broker, one topic, one producer, one always-failing consumer, one send at t=0."""
    data: dict[str, Any] = {
        "name": "t",
        "brokers": ["broker-a"],
        "topics": [{"name": "TopicTest"}],
        "producers": [{"name": "pg"}],
        "consumers": [{"group": "cg", "name": "c1", "subscribe": {"TopicTest": "*"}, "listener": ["RECONSUME_LATER"]}],
        "sends": [{"at": 0, "producer": "pg", "topic": "TopicTest", "body": "hello"}],
        "run_until": "5h",
    }
    data.update(overrides)
    return data


def times(lab: Lab, kind: EventKind) -> list[int]:
    return [e.time_ms for e in lab.trace.of_kind(kind)]


def test_default_schedule_has_17_deliveries_then_dlq():
    """Defaults: delay levels 3..18, 17 deliveries, then %DLQ%cg at 4 h 45 m 40 s."""
    lab = load_scenario(base()).run()
    assert times(lab, EventKind.DELIVERED) == [s * 1000 for s in DEFAULT_SCHEDULE_S]
    [dead] = lab.trace.of_kind(EventKind.DEAD_LETTERED)
    assert (dead.time_ms, dead.msg_id, dead.get("topic"), dead.get("reconsume_times")) == (
        17_140_000,
        "M0001",
        "%DLQ%cg",
        17,
    )
    assert lab.now == 5 * 3_600_000


def test_max_reconsume_times_2_dead_letters_at_40s():
    """max_reconsume_times=2: deliveries at 0, 10 s, 40 s, and the DLQ copy at 40 s with reconsume_times 3."""
    data = base(run_until="2m")
    data["consumers"][0]["max_reconsume_times"] = 2
    lab = load_scenario(data).run()
    assert times(lab, EventKind.DELIVERED) == [0, 10_000, 40_000]
    assert [(e.time_ms, e.get("reconsume_times")) for e in lab.trace.of_kind(EventKind.DEAD_LETTERED)] == [(40_000, 3)]


def test_name_description_and_fresh_lab_per_build():
    """build() gives a new, unrun Lab each time; run() runs to run_until."""
    scenario = load_scenario(base(description="why", run_until="1m"))
    assert (scenario.name, scenario.description, scenario.run_until_ms) == ("t", "why", 60_000)
    first, second = scenario.build(), scenario.build()
    assert first is not second and first.now == second.now == 0
    first.run(until="1m")
    assert second.now == 0 and len(second.trace.of_kind(EventKind.DELIVERED)) == 0
    assert scenario.run().trace.to_jsonl() == first.trace.to_jsonl()


def test_load_copies_the_mapping():
    """Changing the dict after loading does not change the scenario."""
    data = base(run_until="1m")
    scenario = load_scenario(data)
    data["sends"].clear()
    assert times(scenario.run(), EventKind.SEND_ATTEMPT) == [0]


def test_bulk_send_with_count_interval_and_index_substitution():
    """count/interval sends one message per step; '{i}' in body and keys becomes the index."""
    data = base(run_until="1m")
    data["consumers"][0]["listener"] = "CONSUME_SUCCESS"
    data["sends"] = [
        {
            "at": "1s",
            "producer": "pg",
            "topic": "TopicTest",
            "body": "b{i}",
            "keys": "k{i}",
            "count": 3,
            "interval": "250ms",
        }
    ]
    lab = load_scenario(data).run()
    assert [(e.time_ms, e.msg_id) for e in lab.trace.of_kind(EventKind.SEND_ATTEMPT)] == [
        (1000, "M0001"),
        (1250, "M0002"),
        (1500, "M0003"),
    ]
    stored = sorted(lab.brokers["broker-a"].commit_log.live(), key=lambda m: m.msg_id)
    assert [(m.body, m.keys) for m in stored] == [("b0", "k0"), ("b1", "k1"), ("b2", "k2")]


def test_order_key_int_and_string_pick_queues():
    """An int order key uses key % len(mqs); a string uses SelectMessageQueueByHash."""
    data = base(run_until="10s")
    data["topics"] = [{"name": "TopicTest", "queues": 4}]
    data["sends"] = [
        {"at": 0, "producer": "pg", "topic": "TopicTest", "order_key": 6},
        {"at": 0, "producer": "pg", "topic": "TopicTest", "order_key": "order-42"},
    ]
    lab = load_scenario(data).run()
    mqs = [MessageQueue("TopicTest", "broker-a", q) for q in range(4)]
    expected = SelectMessageQueueByHash(mqs, None, "order-42").queue_id  # type: ignore[arg-type]
    assert [e.get("queue_id") for e in lab.trace.of_kind(EventKind.SEND_ATTEMPT)] == [2, expected]


def test_modes_and_delay_level():
    """ASYNC and ONEWAY are traced with their mode; delay_level parks the message in SCHEDULE_TOPIC_XXXX."""
    data = base(run_until="10s")
    data["consumers"][0]["listener"] = "CONSUME_SUCCESS"
    data["sends"] = [
        {"at": 0, "producer": "pg", "topic": "TopicTest", "mode": "ASYNC"},
        {"at": 0, "producer": "pg", "topic": "TopicTest", "mode": "ONEWAY"},
        {"at": 0, "producer": "pg", "topic": "TopicTest", "delay_level": 2},
    ]
    lab = load_scenario(data).run()
    assert [e.get("mode") for e in lab.trace.of_kind(EventKind.SEND_ATTEMPT)] == ["ASYNC", "ONEWAY", "SYNC"]
    [scheduled] = lab.trace.of_kind(EventKind.SCHEDULED)
    assert (scheduled.msg_id, scheduled.get("level"), scheduled.get("due_ms")) == ("M0003", 2, 5000)
    assert sorted(times(lab, EventKind.DELIVERED)) == [0, 0, 5000]


def test_fault_acts_before_a_send_at_the_same_ms():
    """Faults use Priority.FAULT: broker_down at 0 refuses the send also at 0, whatever the file order."""
    data = base(run_until="10s")
    data["faults"] = [{"at": 0, "kind": "broker_down", "broker": "broker-a"}]
    lab = load_scenario(data).run()
    assert lab.trace.of_kind(EventKind.STORED) == []
    [failed] = lab.trace.of_kind(EventKind.SEND_FAILED)
    assert (failed.time_ms, failed.get("error")) == (0, "MQClientException: No route info of this topic: TopicTest")


def test_consumer_add_crash_restart_remove():
    """start: null + consumer_add starts later; crash, restart and remove map to the consumer lifecycle."""
    data = base(run_until="1m")
    data["consumers"][0].update(start=None, listener="CONSUME_SUCCESS")
    data["faults"] = [
        {"at": "5s", "kind": "consumer_add", "consumer": "c1"},
        {"at": "10s", "kind": "consumer_crash", "consumer": "c1"},
        {"at": "20s", "kind": "consumer_restart", "consumer": "c1"},
        {"at": "30s", "kind": "consumer_remove", "consumer": "c1"},
    ]
    lab = load_scenario(data).run()
    assert [(e.time_ms, e.get("event")) for e in lab.trace.of_kind(EventKind.LIFECYCLE)] == [
        (5000, "start"),
        (10_000, "crash"),
        (20_000, "start"),
        (30_000, "shutdown"),
    ]
    assert times(lab, EventKind.DELIVERED) == [5000]


def test_consumer_start_time_and_default_name():
    """A start duration delays the start; a consumer without a name is '<group>-<index+1>'."""
    data = base(run_until="10s")
    del data["consumers"][0]["name"]
    data["consumers"][0]["start"] = "2s"
    lab = load_scenario(data).run()
    assert [(e.time_ms, e.actor) for e in lab.trace.of_kind(EventKind.LIFECYCLE)] == [(2000, "consumer:cg-1")]


def test_broker_faults_are_applied():
    """broker_slow, lose_responses, flush_timeout and send_back_failure set the broker's fault fields."""
    data = base(run_until="1s")
    data["faults"] = [
        {"at": 0, "kind": "broker_slow", "broker": "broker-a", "response_delay_ms": "4s"},
        {"at": 0, "kind": "lose_responses", "broker": "broker-a"},
        {"at": 0, "kind": "flush_timeout", "broker": "broker-a"},
        {"at": 0, "kind": "send_back_failure", "broker": "broker-a"},
    ]
    data["sends"] = []
    broker = load_scenario(data).run().brokers["broker-a"]
    faults = broker.faults
    assert (faults.response_delay_ms, faults.lose_responses, faults.put_status.value, faults.reject_send_back) == (
        4000,
        True,
        "FLUSH_DISK_TIMEOUT",
        True,
    )


def test_listener_rules_and_take():
    """Rules pick results by keys; {"take": "20s", "then": ...} delays the result in virtual time."""
    data = base(run_until="1m")
    data["consumers"][0]["listener"] = {
        "default": ["CONSUME_SUCCESS"],
        "rules": [{"match": {"keys": "slow"}, "results": [{"take": "20s", "then": "CONSUME_SUCCESS"}]}],
    }
    data["sends"] = [
        {"at": 0, "producer": "pg", "topic": "TopicTest", "keys": "slow"},
        {"at": 0, "producer": "pg", "topic": "TopicTest", "keys": "fast"},
    ]
    lab = load_scenario(data).run()
    assert [(e.time_ms, e.msg_id, e.get("took_ms")) for e in lab.trace.of_kind(EventKind.CONSUMED)] == [
        (0, "M0002", 0),
        (20_000, "M0001", 20_000),
    ]


def test_subscription_groups_give_the_same_trace_as_the_python_calls():
    """subscription_groups is applied after the topics and before any consumer starts, like this Python."""
    data = base(run_until="2m")
    data["topics"] = [{"name": "TopicTest", "queues": 1}]
    data["consumers"][0]["max_reconsume_times"] = 2
    data["subscription_groups"] = [{"group": "cg", "retry_queue_nums": 2, "retry_max_times": 5}]
    data["sends"] = [{"at": 0, "producer": "pg", "topic": "TopicTest", "body": "b{i}", "count": 4}]
    from_file = load_scenario(data).run()

    lab = Lab(seed=0)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    lab.update_subscription_group("cg", retry_queue_nums=2, retry_max_times=5)
    producer = lab.add_producer("pg", name="pg")
    listener = ScriptedListener(["RECONSUME_LATER"])
    lab.add_consumer("cg", name="c1", subscribe={"TopicTest": "*"}, listener=listener, max_reconsume_times=2)
    for i in range(4):
        lab.at(0, producer.send, Message("TopicTest", f"b{i}"))
    lab.run(until="2m")

    assert from_file.trace.to_jsonl() == lab.trace.to_jsonl()
    config = from_file.brokers["broker-a"].subscription_groups["cg"]
    assert (config.retry_queue_nums, config.retry_max_times) == (2, 5)
    retry_queues = [
        e.get("queue_id") for e in from_file.trace.of_kind(EventKind.STORED) if e.get("topic") == "%RETRY%cg"
    ]
    assert sorted(set(retry_queues)) == [0, 1]


def test_subscription_group_retry_queue_nums_0_drops_failed_messages():
    """retry_queue_nums: 0 in a file: one delivery, a successful send-back, and nothing stored for retry."""
    data = base(run_until="1h", subscription_groups=[{"group": "cg", "retry_queue_nums": 0}])
    lab = load_scenario(data).run()
    assert times(lab, EventKind.DELIVERED) == [0]
    assert [e.get("topic") for e in lab.trace.of_kind(EventKind.STORED)] == ["TopicTest"]
    assert lab.trace.of_kind(EventKind.SCHEDULED) == []


def test_subscription_groups_per_broker():
    """Entries for one group on different brokers are fine; brokers defaults to all of them."""
    data = base(run_until="1s", brokers=["broker-a", "broker-b"], sends=[])
    data["subscription_groups"] = [
        {"group": "cg", "retry_max_times": 3, "brokers": ["broker-a"]},
        {"group": "cg", "retry_queue_nums": 0, "brokers": ["broker-b"]},
    ]
    lab = load_scenario(data).run()
    configs = {name: b.subscription_groups["cg"] for name, b in lab.brokers.items()}
    assert {name: (c.retry_queue_nums, c.retry_max_times) for name, c in configs.items()} == {
        "broker-a": (1, 3),
        "broker-b": (0, 16),
    }
    data["subscription_groups"].append({"group": "cg", "retry_max_times": 4})
    with pytest.raises(ScenarioError) as info:
        load_scenario(data)
    assert info.value.parameter == "subscription_groups[2].group" and "broker-a" in info.value.allowed


def test_timed_admin_actions_give_the_same_trace_as_the_python_calls():
    """updateSubGroup at 1 s (the heartbeat made %RETRY%cg with 1 queue) strands retries; updateTopic frees them."""
    data = base(run_until="10m")
    data["topics"] = [{"name": "TopicTest", "queues": 1}]
    data["consumers"][0]["listener"] = {"default": ["RECONSUME_LATER", "CONSUME_SUCCESS"]}
    data["sends"] = [{"at": "2s", "producer": "pg", "topic": "TopicTest", "body": "b{i}", "count": 4}]
    data["faults"] = [
        {"at": "1s", "kind": "update_subscription_group", "group": "cg", "retry_queue_nums": 4},
        {"at": "5m", "kind": "update_topic", "topic": "%RETRY%cg", "queues": 4, "brokers": ["broker-a"]},
    ]
    from_file = load_scenario(data).run()

    lab = Lab(seed=0)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    producer = lab.add_producer("pg", name="pg")
    listener = ScriptedListener(["RECONSUME_LATER", "CONSUME_SUCCESS"])
    lab.add_consumer("cg", name="c1", subscribe={"TopicTest": "*"}, listener=listener)
    lab.at("1s", lab.update_subscription_group, "cg", retry_queue_nums=4)
    lab.at("5m", lab.update_topic, "%RETRY%cg", queues=4, brokers=["broker-a"])
    for i in range(4):
        lab.at("2s", producer.send, Message("TopicTest", f"b{i}"))
    lab.run(until="10m")

    assert from_file.trace.to_jsonl() == lab.trace.to_jsonl()
    admin = [(e.time_ms, e.data.get("command")) for e in from_file.trace.of_kind(EventKind.ADMIN)]
    assert admin == [(1_000, "updateSubGroup"), (300_000, "updateTopic")]
    retried = [
        (e.time_ms, e.get("queue")) for e in from_file.trace.of_kind(EventKind.DELIVERED) if e.get("reconsume_times")
    ]
    assert [t for t, _ in retried] == [12_000, 320_000, 320_000, 320_000]  # route poll 300.01 s, rebalance 320 s


def test_timed_broker_permission_gives_the_same_trace_as_the_python_call():
    """update_broker_config (mqadmin updateBrokerConfig) at 5 s: broker-a read-only, the 40 s sends all go to broker-b
    (without it they alternate between the brokers)."""
    data = base(brokers=["broker-a", "broker-b"], run_until="1m")
    data["sends"] = [{"at": "40s", "producer": "pg", "topic": "TopicTest", "body": "late", "count": 4}]
    data["faults"] = [{"at": "5s", "kind": "update_broker_config", "broker": "broker-a", "broker_permission": 4}]
    from_file = load_scenario(data).run()

    lab = Lab(seed=0)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    producer = lab.add_producer("pg", name="pg")
    lab.add_consumer("cg", name="c1", subscribe={"TopicTest": "*"}, listener=ScriptedListener(["RECONSUME_LATER"]))
    for _ in range(4):
        lab.at("40s", producer.send, Message("TopicTest", "late"))
    lab.at("5s", lab.update_broker_config, "broker-a", broker_permission=4)
    lab.run(until="1m")
    assert from_file.trace.to_jsonl() == lab.trace.to_jsonl()
    stored = [(e.time_ms, e.actor) for e in from_file.trace.of_kind(EventKind.STORED) if e.get("topic") == "TopicTest"]
    assert stored == [(40_000, "broker-b")] * 4
    del data["faults"]
    unchanged = {
        e.actor for e in load_scenario(data).run().trace.of_kind(EventKind.STORED) if e.get("topic") == "TopicTest"
    }
    assert unchanged == {"broker-a", "broker-b"}


ADMIN_REFUSED_AT_LOAD = [
    (
        "retry topic before its group's first start",
        {"consumers.0.start": "10s"},
        [{"at": "1s", "kind": "update_topic", "topic": "%RETRY%cg", "queues": 2}],
        "faults[0].topic='%RETRY%cg' is not allowed: expected a topic that exists by then: no consumer of cg has "
        "started yet (its first heartbeat creates the retry topic)",
    ),
    (
        "updateSubGroup while the broker is down",
        {},
        [
            {"at": "1s", "kind": "broker_down", "broker": "broker-a"},
            {"at": "2s", "kind": "update_subscription_group", "group": "cg", "retry_queue_nums": 2},
        ],
        "faults[1].kind='update_subscription_group' is not allowed: expected brokers that are up at 2000 ms (mqadmin "
        "cannot reach broker-a: down since faults[0] at 1000 ms)",
    ),
    (
        "updateTopic on a broker that is down, same ms",
        {},
        [
            {"at": "3s", "kind": "broker_down", "broker": "broker-a"},
            {"at": "3s", "kind": "update_topic", "topic": "TopicTest", "queues": 2, "brokers": ["broker-a"]},
        ],
        "faults[1].brokers=['broker-a'] is not allowed: expected brokers that are up at 3000 ms (mqadmin cannot "
        "reach broker-a: down since faults[0] at 3000 ms)",
    ),
    (
        "updateBrokerConfig while the broker is down",
        {},
        [
            {"at": "1s", "kind": "broker_down", "broker": "broker-a"},
            {"at": "2s", "kind": "update_broker_config", "broker": "broker-a", "broker_permission": 4},
        ],
        "faults[1].broker='broker-a' is not allowed: expected brokers that are up at 2000 ms (mqadmin cannot reach "
        "broker-a: down since faults[0] at 1000 ms)",
    ),
    (
        "updateTopic on a broker without the topic",
        {"brokers": ["broker-a", "broker-b"], "topics": [{"name": "TopicTest", "brokers": ["broker-a"]}]},
        [{"at": "1s", "kind": "update_topic", "topic": "TopicTest", "queues": 2, "brokers": ["broker-b"]}],
        "faults[0].brokers[0]='broker-b' is not allowed: expected a broker that has TopicTest: one of ['broker-a']",
    ),
]


@pytest.mark.parametrize(
    ("changes", "faults", "text"), [c[1:] for c in ADMIN_REFUSED_AT_LOAD], ids=[c[0] for c in ADMIN_REFUSED_AT_LOAD]
)
def test_an_admin_command_the_lab_would_refuse_at_its_time_is_refused_at_load(
    changes: dict[str, Any], faults: list[dict[str, Any]], text: str
) -> None:
    """What used to be a WARNING half-way through the run (mqadmin refused) is a ScenarioError before it starts."""
    data = base(run_until="1m", faults=faults)
    for path, value in changes.items():
        _set(data, path, value)
    with pytest.raises(ScenarioError) as info:
        load_scenario(data)
    assert str(info.value) == text


def test_an_admin_command_only_the_run_can_judge_is_a_warning():
    """%DLQ%cg exists only once a message is dead-lettered: updateTopic at 1 s is refused then, traced, and the run
    goes on. The broker coming back up makes an admin command valid again."""
    data = base(run_until="1m")
    data["faults"] = [
        {"at": "1s", "kind": "update_topic", "topic": "%DLQ%cg", "queues": 2},
        {"at": "2s", "kind": "broker_down", "broker": "broker-a"},
        {"at": "3s", "kind": "broker_up", "broker": "broker-a"},
        {"at": "3s", "kind": "update_subscription_group", "group": "cg", "retry_max_times": 3},
    ]
    lab = load_scenario(data).run()
    [warning] = lab.trace.of_kind(EventKind.WARNING)
    assert (warning.time_ms, warning.actor) == (1_000, "lab")
    assert "topic='%DLQ%cg' is not allowed: expected a topic that exists on a broker" in warning.get("message")
    assert [(e.time_ms, e.get("command")) for e in lab.trace.of_kind(EventKind.ADMIN)] == [(3_000, "updateSubGroup")]


def test_schema_is_draft_2020_12():
    """The shipped schema declares draft 2020-12 and lists every fault kind."""
    schema = scenario_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    kinds = schema["$defs"]["fault"]["properties"]["kind"]["enum"]
    assert (
        len(kinds) == 24
        and "send_responses" in kinds
        and "pull_error" in kinds
        and "consumer_suspend" in kinds
        and "offset_query_failure" in kinds
        and "consumer_add" in kinds
        and "update_topic" in kinds
        and "clone_group_offset" in kinds
        and "consume_message_directly" in kinds
    )


def _set(data: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted path (``consumers.0.max_reconsume_times``); the value ``...`` deletes the key."""
    *parents, last = path.split(".")
    node: Any = data
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key: Any = int(last) if isinstance(node, list) else last
    if value is ...:
        del node[key]
    else:
        node[key] = value


BAD = [
    ("consumers.0.max_reconsume_times", -2, "consumers[0].max_reconsume_times", ">= -1"),
    ("consumers.0.max_reconsume_times", "3", "consumers[0].max_reconsume_times", "an int >= -1"),
    ("consumers.0.max_reconsum_times", 3, "consumers[0].max_reconsum_times", "max_reconsume_times"),
    ("consumers.0.suspend_current_queue_time_millis", 1.5, "consumers[0].suspend_current_queue_time_millis", "an int"),
    ("consumers.0.subscribe", {"Nope": "*"}, "consumers[0].subscribe.Nope", "TopicTest"),
    ("consumers.0.listener", ["MAYBE"], "consumers[0].listener", "a result"),
    ("consumers.0.message_model", "CLUSTER", "consumers[0].message_model", "BROADCASTING"),
    ("topics.0.brokers", ["broker-z"], "topics[0].brokers[0]", "broker-a"),
    ("topics.0.queues", 0, "topics[0].queues", "1..1024"),
    ("sends.0.producer", "nope", "sends[0].producer", "pg"),
    ("sends.0.topic", "Nope", "sends[0].topic", "TopicTest"),
    ("sends.0.at", -5, "sends[0].at", "milliseconds"),
    ("sends.0.at", "10x", "sends[0].at", "'10s'"),
    ("sends.0.at", "6h", "sends[0].at", "run_until"),
    ("sends.0.mode", "SOMETIMES", "sends[0].mode", "ONEWAY"),
    ("sends.0.interval", "-1s", "sends[0].interval", "'250ms'"),
    ("run_until", ..., "run_until", "required"),
    ("brokers", [], "brokers", "non-empty"),
    ("seed", -1, "seed", ">= 0"),
    ("subscription_groups", [{"retry_queue_nums": 0}], "subscription_groups[0].group", "required"),
    ("subscription_groups", [{"group": "nope"}], "subscription_groups[0].group", "one of ['cg']"),
    ("subscription_groups", [{"group": "%RETRY%cg"}], "subscription_groups[0].group", "not starting with '%'"),
    (
        "subscription_groups",
        [{"group": "cg", "retry_queue_nums": -1}],
        "subscription_groups[0].retry_queue_nums",
        "0..1024",
    ),
    (
        "subscription_groups",
        [{"group": "cg", "retry_queue_nums": 2.5}],
        "subscription_groups[0].retry_queue_nums",
        "0..1024",
    ),
    (
        "subscription_groups",
        [{"group": "cg", "retry_max_times": -1}],
        "subscription_groups[0].retry_max_times",
        "0..2147483647",
    ),
    (
        "subscription_groups",
        [{"group": "cg", "retry_queues": 2}],
        "subscription_groups[0].retry_queues",
        "retry_queue_nums",
    ),
    (
        "subscription_groups",
        [{"group": "cg", "brokers": ["broker-z"]}],
        "subscription_groups[0].brokers[0]",
        "broker-a",
    ),
    ("subscription_groups", [{"group": "cg", "brokers": []}], "subscription_groups[0].brokers", "non-empty"),
    ("subscription_groups", [{"group": "cg"}, {"group": "cg"}], "subscription_groups[1].group", "merge the two"),
]


@pytest.mark.parametrize(("field", "value", "path", "allowed"), BAD, ids=[b[2] + "=" + repr(b[1]) for b in BAD])
def test_bad_field_names_its_path(field: str, value: Any, path: str, allowed: str):
    """Each bad value fails with a ScenarioError whose parameter is the JSON path and that says what is allowed."""
    data = base()
    _set(data, field, value)
    with pytest.raises(ScenarioError) as info:
        load_scenario(data)
    assert info.value.parameter == path
    assert allowed in info.value.allowed
    assert str(info.value).startswith(path)


BAD_FAULTS = [
    ({"at": 0, "kind": "meteor"}, "faults[0].kind", "broker_down"),
    ({"at": 0, "kind": "broker_down", "broker": "broker-z"}, "faults[0].broker", "broker-a"),
    ({"at": 0, "kind": "broker_down"}, "faults[0].broker", "required"),
    ({"at": 0, "kind": "broker_down", "broker": "broker-a", "client": "c1"}, "faults[0].client", "known field"),
    (
        {"at": 0, "kind": "broker_slow", "broker": "broker-a", "response_delay_ms": -1},
        "faults[0].response_delay_ms",
        "milliseconds",
    ),
    ({"at": -1, "kind": "broker_up", "broker": "broker-a"}, "faults[0].at", "milliseconds"),
    ({"at": 0, "kind": "partition", "client": "zz", "broker": "broker-a"}, "faults[0].client", "c1"),
    ({"at": 0, "kind": "consumer_crash", "consumer": "zz"}, "faults[0].consumer", "c1"),
    ({"at": 0, "kind": "consumer_add", "consumer": "c1"}, "faults[0].consumer", "start: null"),
    (
        {"at": 0, "kind": "flush_timeout", "broker": "broker-a", "put_status": "SLOW"},
        "faults[0].put_status",
        "FLUSH_DISK_TIMEOUT",
    ),
    ({"at": 0, "kind": "update_topic", "queues": 2}, "faults[0].topic", "required"),
    ({"at": 0, "kind": "update_topic", "topic": "Nope"}, "faults[0].topic", "%RETRY%cg"),
    ({"at": 0, "kind": "update_topic", "topic": "TopicTest", "queues": 0}, "faults[0].queues", "1..1024"),
    ({"at": 0, "kind": "update_topic", "topic": "TopicTest", "perm": 5}, "faults[0].perm", "one of 6, 4, 2, 0"),
    (
        {"at": 0, "kind": "update_topic", "topic": "TopicTest", "queues": 2, "read_queues": 1},
        "faults[0].queues",
        "absent when read_queues",
    ),
    ({"at": 0, "kind": "update_topic", "topic": "TopicTest", "brokers": ["x"]}, "faults[0].brokers[0]", "broker-a"),
    ({"at": 0, "kind": "update_topic", "topic": "TopicTest", "group": "cg"}, "faults[0].group", "known field"),
    ({"at": 0, "kind": "update_subscription_group", "group": "nope"}, "faults[0].group", "one of ['cg']"),
    (
        {"at": 0, "kind": "update_subscription_group", "group": "cg", "retry_queue_nums": -1},
        "faults[0].retry_queue_nums",
        "0..1024",
    ),
]


@pytest.mark.parametrize(("fault", "path", "allowed"), BAD_FAULTS, ids=[b[1] for b in BAD_FAULTS])
def test_bad_fault_names_its_path(fault: dict[str, Any], path: str, allowed: str):
    """Unknown fault kinds and dangling references are located too."""
    with pytest.raises(ScenarioError) as info:
        load_scenario(base(faults=[fault]))
    assert (info.value.parameter, allowed in info.value.allowed) == (path, True)


def test_semantic_errors_found_after_the_schema():
    """Duplicate names, orderly-only listener words and context settings on the wrong mode are located."""
    data = base()
    data["consumers"].append(copy.deepcopy(data["consumers"][0]))
    with pytest.raises(ScenarioError, match=r"^consumers\[1\]\.name="):
        load_scenario(data)
    data = base()
    data["consumers"][0]["orderly"] = True
    with pytest.raises(ScenarioError) as info:
        load_scenario(data)
    assert info.value.parameter == "consumers[0].listener.default[0]" and "SUSPEND" in info.value.allowed
    data["consumers"][0]["listener"] = {"default": ["SUCCESS"], "ack_index": 0}
    with pytest.raises(ScenarioError, match=r"^consumers\[0\]\.listener\.ack_index="):
        load_scenario(data)
    data = base(message_delay_level="1s 5x")
    with pytest.raises(ScenarioError, match=r"^message_delay_level\[1\]="):
        load_scenario(data)


def test_scenario_error_is_a_config_and_value_error():
    """Callers can catch ValueError or ConfigError; the top level must be a mapping."""
    with pytest.raises(ValueError) as info:
        validate_scenario(["not", "a", "mapping"])
    assert isinstance(info.value, ConfigError) and info.value.parameter == "scenario"


def test_first_error_in_file_order_is_reported():
    """With two problems, the one earlier in the file wins (deterministic messages)."""
    data = base()
    data["sends"][0]["producer"] = 7
    data["consumers"][0]["max_reconsume_times"] = -9
    with pytest.raises(ScenarioError) as info:
        load_scenario(data)
    assert info.value.parameter == "consumers[0].max_reconsume_times"


def test_files_json_yaml_and_read_errors(tmp_path: Path):
    """Paths load by suffix; unreadable or unparsable files are ScenarioErrors on 'file'."""
    (tmp_path / "s.json").write_text(json.dumps(base(run_until="1m")))
    (tmp_path / "s.yaml").write_text("name: t\nbrokers: [broker-a]\ntopics: [{name: T}]\nrun_until: 1m\n")
    assert load_scenario(tmp_path / "s.json").source == str(tmp_path / "s.json")
    assert load_scenario(str(tmp_path / "s.yaml")).run_until_ms == 60_000
    (tmp_path / "bad.json").write_text('{"name": ')
    (tmp_path / "bad.yaml").write_text("name: [unclosed\n")
    for name, allowed in [("bad.json", "valid JSON (line 1"), ("bad.yaml", "valid YAML"), ("none.json", "readable")]:
        with pytest.raises(ScenarioError) as info:
            load_scenario(tmp_path / name)
        assert info.value.parameter == "file" and allowed in info.value.allowed
    with pytest.raises(ScenarioError, match=r"^source="):
        load_scenario(42)  # type: ignore[arg-type]


def test_a_json_scenario_needs_no_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """The JupyterLite site ships no PyYAML: a JSON file must load without importing it."""
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` now raises ImportError
    examples = Path(__file__).resolve().parent.parent / "examples"
    lab = load_scenario(examples / "default_retry_schedule.json").run()
    assert len(lab.trace.of_kind("delivered")) == 17
