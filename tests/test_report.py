"""build_report / format_timeline: pure views of a Lab, with DELIVERED→CONSUMED and attempt→result pairing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rmqlab import build_report, format_duration, load_scenario
from rmqlab.lab.report import format_timeline, summary


def scenario(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "r",
        "brokers": ["broker-a"],
        "topics": [{"name": "TopicTest", "queues": 2}],
        "producers": [{"name": "pg", "send_which_queue_start": 0}],
        "consumers": [
            {
                "group": "cg",
                "name": "c1",
                "subscribe": {"TopicTest": "*"},
                "listener": ["RECONSUME_LATER", "CONSUME_SUCCESS"],
            }
        ],
        "sends": [{"at": 0, "producer": "pg", "topic": "TopicTest", "body": "x"}],
        "run_until": "1m",
    }
    data.update(overrides)
    return data


def test_report_of_one_retry():
    """One failure then success: two paired deliveries, one attempt, offsets and stored counts per topic."""
    report = build_report(load_scenario(scenario()).run())
    assert report["end_time_ms"] == 60_000
    assert report["deliveries"] == [
        {"time_ms": 0, "msg_id": "M0001", "topic": "TopicTest", "queue": "TopicTest@broker-a:1",
         "reconsume_times": 0, "consumer": "c1", "group": "cg", "status": "RECONSUME_LATER"},
        {"time_ms": 10_000, "msg_id": "M0001", "topic": "TopicTest", "queue": "%RETRY%cg@broker-a:0",
         "reconsume_times": 1, "consumer": "c1", "group": "cg", "status": "CONSUME_SUCCESS"},
    ]  # fmt: skip
    assert report["send_attempts"] == [
        {"time_ms": 0, "producer": "pg", "msg_id": "M0001", "topic": "TopicTest", "mode": "SYNC",
         "broker": "broker-a", "queue_id": 1, "attempt": 1, "outcome": "SUCCESS"}
    ]  # fmt: skip
    assert report["dlq"] == {}
    assert report["offsets"] == {
        "cg": {"%RETRY%cg@broker-a:0": 1, "TopicTest@broker-a:0": 0, "TopicTest@broker-a:1": 1}
    }
    assert report["stored"] == {"%RETRY%cg": 1, "SCHEDULE_TOPIC_XXXX": 1, "TopicTest": 1}


def test_open_delivery_and_open_attempt_are_null():
    """A listener still running has status None; an attempt whose response is still delayed has outcome None."""
    data = scenario(run_until="2s")
    data["consumers"][0]["listener"] = [{"take": "20s", "then": "CONSUME_SUCCESS"}]
    data["sends"].append({"at": "1s", "producer": "pg", "topic": "TopicTest", "body": "slow"})
    data["faults"] = [{"at": "500ms", "kind": "broker_slow", "broker": "broker-a", "response_delay_ms": "2s"}]
    report = build_report(load_scenario(data).run())
    assert [(d["msg_id"], d["status"]) for d in report["deliveries"]] == [("M0001", None), ("M0002", None)]
    assert [(a["msg_id"], a["outcome"]) for a in report["send_attempts"]] == [("M0001", "SUCCESS"), ("M0002", None)]


def test_batch_members_each_get_their_status():
    """A batch of 3 is three deliveries, each paired with its own CONSUMED event."""
    data = scenario(run_until="2s")
    data["consumers"][0].update(consume_message_batch_max_size=3, start="1s", listener="CONSUME_SUCCESS")
    data["sends"] = [{"at": 0, "producer": "pg", "topic": "TopicTest", "order_key": 0, "count": 3}]
    report = build_report(load_scenario(data).run())
    assert [(d["time_ms"], d["msg_id"], d["status"]) for d in report["deliveries"]] == [
        (1000, "M0001", "CONSUME_SUCCESS"),
        (1000, "M0002", "CONSUME_SUCCESS"),
        (1000, "M0003", "CONSUME_SUCCESS"),
    ]


def test_dlq_lists_each_dead_letter():
    """max_reconsume_times=0: the first failure goes straight to %DLQ%cg with reconsume_times 1."""
    data = scenario()
    data["consumers"][0].update(max_reconsume_times=0, listener="RECONSUME_LATER")
    report = build_report(load_scenario(data).run())
    assert report["dlq"] == {"cg": [{"msg_id": "M0001", "reconsume_times": 1, "original_topic": "TopicTest"}]}
    assert report["stored"] == {"%DLQ%cg": 1, "TopicTest": 1}


def test_report_is_pure_and_stable():
    """Building the report twice changes nothing and gives the same JSON text."""
    lab = load_scenario(scenario()).run()
    before = len(lab.trace)
    first = json.dumps(build_report(lab))
    assert json.dumps(build_report(lab)) == first and len(lab.trace) == before


def test_timeline_lines():
    """One line per interesting event: formatted time, actor, kind, id, details; no pulls or offset noise."""
    lines = format_timeline(load_scenario(scenario()).run()).splitlines()
    assert lines[0].split() == ["0", "ms", "consumer:c1", "lifecycle", "-", "event=start", "group=cg",
                                "mode=concurrently", "message_model=CLUSTERING"]  # fmt: skip
    kinds = {line.split()[3] for line in lines}
    assert kinds == {"lifecycle", "rebalanced", "send_attempt", "stored", "send_result", "delivered", "consumed",
                     "scheduled", "send_back", "delay_delivered"}  # fmt: skip
    delivered = [line for line in lines if " delivered " in line]
    assert [line.split()[:2] for line in delivered] == [["0", "ms"], ["10", "s"]]
    assert "queue=%RETRY%cg@broker-a:0 queue_offset=0 topic=TopicTest reconsume_times=1 batch=1" in delivered[1]


def test_timeline_filters_width_and_summary():
    """kinds/msg_id filter; width wraps details under the actor column; bad arguments name themselves."""
    lab = load_scenario(scenario()).run()
    wrapped = format_timeline(lab, kinds={"delivered"}, width=80).splitlines()
    assert max(map(len, wrapped)) <= 80
    assert [line.split()[:2] for line in wrapped if not line.startswith(" " * 18)] == [["0", "ms"], ["10", "s"]]
    assert len(wrapped) > 2  # the details did not fit: they continue on lines of their own
    assert " ".join(wrapped).split() == format_timeline(lab, kinds={"delivered"}).split()
    assert format_timeline(lab, msg_id="M9999") == ""
    with pytest.raises(ValueError, match=r"kinds=\['pulls'\]: not an event kind; allowed: .*delivered"):
        format_timeline(lab, kinds={"pulls"})
    with pytest.raises(ValueError, match="width=40: must be at least 68"):
        format_timeline(lab, width=40)
    assert summary(lab) == f"2 deliveries · 1 consumed · no dead letters · ended at {format_duration(lab.now)}"
