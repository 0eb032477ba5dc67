"""Scenario ``sends`` that 4.9.7 allows: properties, an explicit queue, ``%RETRY%`` topics, delay levels above 18.

Delay clamp: ``CommitLog.asyncPutMessage`` lowers ``DELAY`` above ``ScheduleMessageService.getMaxDelayLevel()``
(18 with the default ``messageDelayLevel``) to it, so level 40 waits level 18's 2 h and is stored as DELAY=18.
"""

from __future__ import annotations

from typing import Any

import pytest

from rmqlab import EventKind as K
from rmqlab import load_scenario
from rmqlab.core.errors import ScenarioError


def scenario(*sends: dict[str, Any], run_until: str = "10s") -> dict[str, Any]:
    return {
        "name": "sends",
        "seed": 1,
        "brokers": ["broker-a", "broker-b"],
        "topics": [{"name": "T", "queues": 2}],
        "producers": [{"name": "pg"}],
        "consumers": [{"group": "cg", "name": "c1", "subscribe": {"T": "*"}, "listener": ["CONSUME_SUCCESS"]}],
        "sends": list(sends),
        "run_until": run_until,
    }


def test_properties_and_keys_reach_the_stored_message() -> None:
    send = {"at": 0, "producer": "pg", "topic": "T", "keys": "order-7", "properties": {"region": "eu"}}
    lab = load_scenario(scenario(send)).run()
    (stored,) = [m for b in lab.brokers.values() for m in (b.commit_log.get(i) for i in range(b.commit_log.max_offset))]
    assert stored is not None and (stored.keys, stored.properties) == ("order-7", {"region": "eu", "UNIQ_KEY": "M0001"})


def test_an_explicit_queue_is_one_attempt_to_that_queue() -> None:
    lab = load_scenario(
        scenario({"at": 0, "producer": "pg", "topic": "T", "queue": {"broker": "broker-b", "queue_id": 1}})
    ).run()
    attempt = lab.trace.first(K.SEND_ATTEMPT)
    assert (attempt.get("broker"), attempt.get("queue_id"), attempt.get("timeout_ms")) == ("broker-b", 1, 3000)
    assert lab.trace.first(K.STORED, msg_id="M0001").get("queue_id") == 1


def test_an_explicit_queue_the_broker_lacks_is_its_system_error() -> None:
    lab = load_scenario(
        scenario({"at": 0, "producer": "pg", "topic": "T", "queue": {"broker": "broker-a", "queue_id": 5}})
    ).run()
    (future,) = lab.sends
    assert (future.response_code, future.remark, future.attempts) == (1, "request queueId[5] is illegal", 1)


def test_queue_and_order_key_together_are_refused() -> None:
    send = {"at": 0, "producer": "pg", "topic": "T", "order_key": 1, "queue": {"broker": "broker-a", "queue_id": 0}}
    with pytest.raises(ScenarioError):
        load_scenario(scenario(send))


def test_a_send_to_the_groups_retry_topic_is_stored_there_and_delivered_with_its_properties() -> None:
    send = {"at": 2000, "producer": "pg", "topic": "%RETRY%cg", "properties": {"RETRY_TOPIC": "T"}}
    lab = load_scenario(scenario(send)).run()
    delivered = lab.trace.first(K.DELIVERED, msg_id="M0001")
    assert (delivered.time_ms, delivered.get("queue"), delivered.get("topic")) == (2000, "%RETRY%cg@broker-a:0", "T")


def test_a_retry_topic_of_an_undeclared_group_is_refused() -> None:
    with pytest.raises(ScenarioError, match="consumer group after %RETRY%"):
        load_scenario(scenario({"at": 0, "producer": "pg", "topic": "%RETRY%nobody"}))


def test_a_delay_level_above_18_is_clamped_to_18_by_the_store() -> None:
    lab = load_scenario(scenario({"at": 0, "producer": "pg", "topic": "T", "delay_level": 40}, run_until="3h")).run()
    scheduled = lab.trace.first(K.SCHEDULED, msg_id="M0001")
    assert (scheduled.get("level"), scheduled.get("due_ms")) == (18, 7_200_000)
    assert lab.trace.first(K.DELIVERED, msg_id="M0001").time_ms == 7_200_000
