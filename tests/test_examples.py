"""Golden examples: every ``examples/*.json|yaml`` run through ``rmqlab run --json`` must print its
``examples/<name>.expected.json`` byte for byte, and ``rmqlab run`` its timeline ``examples/<name>.expected.txt``.

After an intended engine change, regenerate both with ``python -m tests.goldens [NAME ...]`` (tests/goldens.py)
and review the diff: it is the behaviour change, and the ``.expected.txt`` diff reads as a timeline.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from goldens import EXAMPLES, FORMATS, golden_path, render, scenarios
from goldens import main as regenerate

from rmqlab import check_invariants, load_scenario
from rmqlab.lab.cli import TIMELINE_WIDTH
from rmqlab.lab.report import format_timeline, summary

SCENARIOS = scenarios()


def report(stem: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{stem}.expected.json").read_text())


def test_every_example_has_a_golden_file():
    """The teaching scenarios are there, each with its expected report and timeline, no golden orphaned."""
    assert [p.stem for p in SCENARIOS] == [
        "ack_index_split",
        "broadcasting_drop",
        "broker_down_sync_retry",
        "consume_from_timestamp",
        "default_retry_schedule",
        "delay_offset_lost_in_crash",
        "dlq_redrive",
        "listener_per_call",
        "lock_lease_slow_answers",
        "offset_query_failure",
        "offset_replay_after_failed_query",
        "orderly_shutdown_waits_for_renewal",
        "orderly_suspend",
        "pull_flow_control",
        "retry_queues_raised_late",
        "scripted_send_errors",
        "send_back_local_retry",
        "send_back_no_permission",
        "slow_broker_avoided",
        "start_order_same_ms",
        "sync_timeout_after_store",
        "topic_read_forbidden",
    ]
    goldens = sorted(p.name for p in EXAMPLES.iterdir() if ".expected" in p.name)
    assert goldens == sorted(golden_path(p, suffix).name for p in SCENARIOS for suffix in FORMATS)


@pytest.mark.parametrize("suffix", list(FORMATS))
@pytest.mark.parametrize("path", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_example_matches_golden(path: Path, suffix: str):
    """The run's --json report, and its timeline, equal the golden files."""
    assert render(path, suffix) == golden_path(path, suffix).read_text(encoding="utf-8")


def test_timeline_golden_is_the_format_timeline_text():
    """The .expected.txt is the title, format_timeline at 100 columns and the summary: what a terminal shows."""
    lab = load_scenario(EXAMPLES / "default_retry_schedule.json").run()
    lines = (EXAMPLES / "default_retry_schedule.expected.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    body = [line for line in lines if not line.startswith("#")]
    assert "".join(body) == format_timeline(lab, width=TIMELINE_WIDTH)
    assert lines[-1] == f"# {summary(lab)}\n"
    assert lines[-1] == "# 17 deliveries · 0 consumed · %DLQ%cg: 1 · ended at 4 h 50 m\n"


def test_regeneration_writes_only_what_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """python -m tests.goldens writes both files of an example, rewrites only a stale one, refuses an unknown name."""
    source = EXAMPLES / "orderly_suspend.yaml"
    (tmp_path / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    assert regenerate([], directory=tmp_path) == 0
    assert capsys.readouterr().out.split("\n") == [
        f"created {tmp_path.name}/orderly_suspend.expected.json",
        f"created {tmp_path.name}/orderly_suspend.expected.txt",
        "",
    ]
    for suffix in FORMATS:
        assert (tmp_path / f"orderly_suspend{suffix}").read_text() == golden_path(source, suffix).read_text()
    (tmp_path / "orderly_suspend.expected.txt").write_text("stale\n")
    assert regenerate(["orderly_suspend"], directory=tmp_path) == 0
    assert capsys.readouterr().out == f"rewrote {tmp_path.name}/orderly_suspend.expected.txt\n"
    assert regenerate(["no_such_example"], directory=tmp_path) == 2
    assert "no scenario no_such_example" in capsys.readouterr().err


# The golden files are checked above; these pin the one fact each example exists to teach, so a
# regenerated golden file cannot silently lose its point.
def test_default_schedule_lesson():
    """17 deliveries ending at 4 h 45 m 40 s, then the DLQ."""
    r = report("default_retry_schedule")
    assert [d["time_ms"] for d in r["deliveries"]][-3:] == [6_340_000, 9_940_000, 17_140_000]
    assert r["dlq"] == {"cg": [{"msg_id": "M0001", "reconsume_times": 17, "original_topic": "TopicTest"}]}


def test_ack_index_lesson():
    """ack_index=1 in a batch of 4: only the last two come back, 10 s later, from %RETRY%cg."""
    r = report("ack_index_split")
    again = [(d["time_ms"], d["msg_id"], d["queue"]) for d in r["deliveries"] if d["reconsume_times"] == 1]
    assert again == [(11_000, "M0003", "%RETRY%cg@broker-a:0"), (11_000, "M0004", "%RETRY%cg@broker-a:0")]


def test_local_retry_lesson():
    """Send-back and its fallback fail: local re-consumption every 5 s, nothing in %RETRY%cg."""
    r = report("send_back_local_retry")
    assert [(d["time_ms"], d["reconsume_times"], d["queue"]) for d in r["deliveries"]] == [
        (1000, 0, "TopicTest@broker-a:0"),
        (7000, 1, "TopicTest@broker-a:0"),
        (12_000, 2, "TopicTest@broker-a:0"),
    ]
    assert r["stored"] == {"TopicTest": 1}
    assert r["offsets"]["cg"]["TopicTest@broker-a:0"] == 1


def test_orderly_suspend_lesson():
    """The queue is blocked 1 s per suspension; the later messages of the order wait behind the first."""
    r = report("orderly_suspend")
    assert [(d["time_ms"], d["msg_id"]) for d in r["deliveries"]] == [
        (100, "M0001"),
        (1100, "M0001"),
        (2100, "M0001"),
        (2100, "M0002"),
        (2100, "M0003"),
    ]
    assert "%RETRY%og" not in r["stored"]


def test_delay_offset_lost_in_crash_lesson():
    """The crash at 9 999 ms precedes the first delayOffset.json write (10 s): "late" comes again at 13 s."""
    r = report("delay_offset_lost_in_crash")
    assert [(d["time_ms"], d["msg_id"]) for d in r["deliveries"]] == [
        (5_000, "M0001"),
        (13_000, "M0001"),
        (13_000, "M0002"),
    ]


def test_scripted_send_errors_lesson():
    """SYSTEM_ERROR, SYSTEM_ERROR, SUCCESS: stored at the 3rd attempt; SYSTEM_BUSY is not retried."""
    r = report("scripted_send_errors")
    pg = [(a["msg_id"], a["attempt"], a["outcome"]) for a in r["send_attempts"] if a["producer"] == "pg"]
    assert pg == [
        ("M0001", 1, "MQBrokerException: CODE: 1 (SYSTEM_ERROR) DESC: [SYSTEM_ERROR] injected fault"),
        ("M0001", 2, "MQBrokerException: CODE: 1 (SYSTEM_ERROR) DESC: store is recovering"),
        ("M0001", 3, "SUCCESS"),
        ("M0002", 1, "MQBrokerException: CODE: 2 (SYSTEM_BUSY) DESC: [TIMEOUT_CLEAN_QUEUE]broker busy"),
    ]


def test_offset_query_failure_lesson():
    """An error answer to QUERY_CONSUMER_OFFSET is "no offset" (-1): M0001 is skipped; send_error fails M0003 once."""
    r = report("offset_query_failure")
    assert [(d["time_ms"], d["msg_id"]) for d in r["deliveries"]] == [(3000, "M0002"), (7000, "M0004")]
    pg = [(a["time_ms"], a["msg_id"], a["attempt"], a["outcome"].split(" DESC")[0]) for a in r["send_attempts"]]
    assert pg == [
        (0, "M0001", 1, "SUCCESS"),
        (3000, "M0002", 1, "SUCCESS"),
        (5000, "M0003", 1, "MQBrokerException: CODE: 13 (MESSAGE_ILLEGAL)"),
        (7000, "M0004", 1, "SUCCESS"),
    ]


def test_broker_down_lesson():
    """The SYNC send's first attempt hits the dead broker; attempt 2 lands on broker-b; ONEWAY is lost."""
    r = report("broker_down_sync_retry")
    assert [(a["msg_id"], a["attempt"], a["broker"], a["outcome"].split(":")[0]) for a in r["send_attempts"]] == [
        ("M0001", 1, "broker-b", "SUCCESS"),
        ("M0002", 1, "broker-a", "RemotingConnectException"),
        ("M0002", 2, "broker-b", "SUCCESS"),
        ("M0003", 1, "broker-a", "RemotingConnectException"),
    ]
    assert [d["msg_id"] for d in r["deliveries"]] == ["M0001", "M0002"]


def test_broadcasting_lesson():
    """Both consumers see the message; the failure is dropped: no retry topic, no DLQ, no broker offsets."""
    r = report("broadcasting_drop")
    assert [(d["consumer"], d["status"]) for d in r["deliveries"]] == [("c1", "RECONSUME_LATER"),
                                                                        ("c2", "CONSUME_SUCCESS")]  # fmt: skip
    assert (r["stored"], r["dlq"], r["offsets"]) == ({"TopicTest": 1}, {}, {})


def test_retry_queues_raised_late_lesson():
    """Only the retry stored in queue 0 comes back at 12 s; updateTopic at 5 min frees the three stranded ones at
    the first rebalance after the route poll of 5 min 0.01 s (polls every 30 s from 10 ms): 5 min 20 s."""
    r = report("retry_queues_raised_late")
    again = [(d["time_ms"], d["msg_id"], d["queue"]) for d in r["deliveries"] if d["reconsume_times"] == 1]
    assert again == [
        (12_000, "M0001", "%RETRY%cg@broker-a:0"),
        (320_000, "M0003", "%RETRY%cg@broker-a:2"),
        (320_000, "M0004", "%RETRY%cg@broker-a:2"),
        (320_000, "M0002", "%RETRY%cg@broker-a:3"),
    ]


def test_lock_lease_slow_answers_lesson():
    """Storm seed 360, shrunk: c2 takes the orderly queue 60.5 s after c1's last renewal was granted (asked at
    41 s, answered 1 s late) and consumes the 60 s event at 105.5 s; the checker finds no double holder."""
    r = report("lock_lease_slow_answers")
    assert [(d["time_ms"], d["consumer"], d["msg_id"]) for d in r["deliveries"]] == [
        (30_000, "c1", "M0001"),
        (105_500, "c2", "M0002"),
    ]
    lab = load_scenario(EXAMPLES / "lock_lease_slow_answers.yaml").run()
    renewed = lab.trace.last("lock_renewed", actor="consumer:c1", queue="ORD@broker-a:0")
    taken = lab.trace.first("lock_expired", queue="ORD@broker-a:0")
    assert (renewed.get("asked_ms"), renewed.time_ms, taken.time_ms) == (41_000, 42_000, 101_500)
    assert check_invariants(lab).ok


def test_orderly_shutdown_waits_for_renewal_lesson():
    """Storm seed 1318, shrunk: o1 is shut down at 41.5 s while its renewal (asked at 41 s) waits for broker-a's
    answer, 1 s late. lockMQPeriodically and unlockAllMQ share the service's monitor in 4.9.7, so the unlock is
    sent at 42 s, once the renewal is answered, and o2 takes the queues after o1 has left (the renewals' answers
    and the unlocks are traced at 42 s in that order). Before, the unlock went out at 41.5 s beside the renewal,
    whose late answer marked the queues locked again, and the checker reported ``single_lock_holder``."""
    lab = load_scenario(EXAMPLES / "orderly_shutdown_waits_for_renewal.yaml").run()
    locks = [
        (e.time_ms, e.kind.value, e.actor, e.get("queue"), e.get("asked_ms"))
        for e in lab.trace.events
        if e.kind.value in ("lock_renewed", "unlocked", "lock_acquired") and 41_000 <= e.time_ms <= 50_000
    ]
    assert locks == [
        (42_000, "lock_renewed", "consumer:o1", "%RETRY%og@broker-a:0", 41_000),
        (42_000, "lock_renewed", "consumer:o1", "O@broker-a:0", 41_000),
        (42_000, "unlocked", "consumer:o1", "%RETRY%og@broker-a:0", None),
        (42_000, "unlocked", "consumer:o1", "O@broker-a:0", None),
        (45_000, "lock_acquired", "consumer:o2", "%RETRY%og@broker-a:0", 44_000),
        (48_000, "lock_acquired", "consumer:o2", "O@broker-a:0", 47_000),
    ]
    assert lab.trace.first("lifecycle", actor="consumer:o1", event="shutdown").time_ms == 43_000
    r = report("orderly_shutdown_waits_for_renewal")
    assert [(d["time_ms"], d["consumer"], d["msg_id"]) for d in r["deliveries"]] == [
        (10_000, "o1", "M0001"),
        (50_000, "o2", "M0002"),
    ]
    checked = check_invariants(lab)
    assert checked.ok, str(checked)
    assert checked.counts["consumed"] == 2


def test_slow_broker_lesson():
    """Latency fault tolerance: a 600 ms send keeps broker-a out for 30 s (until 30 600 ms), then it is used again."""
    r = report("slow_broker_avoided")
    assert [(a["time_ms"], a["broker"], a["queue_id"], a["outcome"]) for a in r["send_attempts"]] == [
        (0, "broker-a", 0, "SUCCESS"),
        (5000, "broker-b", 0, "SUCCESS"),
        (10_000, "broker-b", 0, "SUCCESS"),
        (15_000, "broker-b", 1, "SUCCESS"),
        (30_599, "broker-b", 0, "SUCCESS"),
        (30_600, "broker-a", 1, "SUCCESS"),
    ]


def test_send_back_no_permission_lesson():
    """``asyncConsumerSendMsgBack`` on a read-only broker: NO_PERMISSION (16) with the broker's IP, the fallback's
    copy stored by broker-b (level 3: 10 s later); a plain send through the stale route is stored on broker-a."""
    lab = load_scenario(EXAMPLES / "send_back_no_permission.yaml").run()
    assert [
        (e.time_ms, e.get("broker"), e.get("ok"), e.get("response_code"), e.get("remark"))
        for e in lab.trace.where("send_back")
    ] == [
        (3000, "broker-a", False, 16, "the broker[127.0.0.1] sending message is forbidden"),
        (7000, "broker-a", False, 16, "the broker[127.0.0.1] sending message is forbidden"),
        (33_000, "broker-b", True, None, None),
    ]
    r = report("send_back_no_permission")
    assert [(d["time_ms"], d["msg_id"], d["queue"]) for d in r["deliveries"] if d["reconsume_times"] == 1] == [
        (13_000, "M0001", "%RETRY%cg@broker-b:0"),
        (17_000, "M0002", "%RETRY%cg@broker-b:0"),
        (43_000, "M0003", "%RETRY%cg@broker-b:0"),
    ]
