"""A scenario listener scripted per call: by message (msg_id, keys, tags, body) and delivery (reconsume_times),
each call able to set its context fields as a Java listener does before returning.

Pinned to 4.9.7: ``ConsumeMessageConcurrentlyService.processConsumeResult`` reads ``ackIndex`` and
``delayLevelWhenNextConsume`` after the listener returns (0: the broker's ``3 + reconsumeTimes`` in
``SendMessageProcessor.asyncConsumerSendMsgBack``; -1: the DLQ at once); ``ConsumeMessageOrderlyService``
reads ``suspendCurrentQueueTimeMillis`` (clamped to 10..30000 ms); ``ScheduleMessageService`` delivers a due
retry on its 100 ms grid (``DELAY_FOR_A_WHILE``).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from rmqlab import EventKind, Lab, Message, ScenarioError, ScriptedListener, load_scenario
from rmqlab.core.errors import ConfigError

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "listener_per_call.yaml"


@pytest.fixture(scope="module")
def run() -> Lab:
    return load_scenario(EXAMPLE).run()


def _deliveries(lab: Lab, msg_id: str) -> list[tuple[int, int]]:
    """(time, reconsume_times) of each delivery of ``msg_id``."""
    return [(e.time_ms, e.get("reconsume_times")) for e in lab.trace.where(EventKind.DELIVERED, msg_id=msg_id)]


def _levels(lab: Lab, msg_id: str) -> list[tuple[int, int, int]]:
    """(time, delay level, due time) of each retry the broker parked in SCHEDULE_TOPIC_XXXX."""
    return [(e.time_ms, e.get("level"), e.get("due_ms")) for e in lab.trace.where(EventKind.SCHEDULED, msg_id=msg_id)]


def test_two_failures_at_the_brokers_levels_then_success(run: Lab) -> None:
    """Sent at 250 ms: level 3 is due at 10 250, delivered on the grid at 10 300; level 4 (30 s) lands on it."""
    assert _deliveries(run, "M0001") == [(250, 0), (10_300, 1), (40_300, 2)]
    assert _levels(run, "M0001") == [(250, 3, 10_250), (10_300, 4, 40_300)]
    assert run.trace.last(EventKind.CONSUMED, msg_id="M0001").get("status") == "CONSUME_SUCCESS"


def test_a_delay_level_per_call(run: Lab) -> None:
    """delayLevelWhenNextConsume 1 (1 s) after the first delivery, 5 (1 min) after the second."""
    assert _deliveries(run, "M0002") == [(1_000, 0), (2_000, 1), (62_000, 2)]
    assert _levels(run, "M0002") == [(1_000, 1, 2_000), (2_000, 5, 62_000)]
    assert [e.get("delay_level") for e in run.trace.where(EventKind.SEND_BACK, msg_id="M0002")] == [1, 5]


def test_null_with_level_minus_one_goes_to_the_dlq_at_once(run: Lab) -> None:
    assert _deliveries(run, "M0003") == [(2_000, 0)]
    consumed = run.trace.first(EventKind.CONSUMED, msg_id="M0003")
    assert (consumed.get("status"), consumed.get("return_type")) == ("RECONSUME_LATER", "RETURNNULL")
    dead = run.trace.first(EventKind.DEAD_LETTERED, msg_id="M0003")
    assert (dead.time_ms, dead.get("topic"), dead.get("reconsume_times")) == (2_000, "%DLQ%cg", 1)


def test_matched_by_msg_id_raise_then_success(run: Lab) -> None:
    """The client's msg id (UNIQ_KEY) survives the retry, so the rule keyed by it answers the second delivery."""
    assert _deliveries(run, "M0004") == [(3_000, 0), (13_000, 1)]
    assert run.trace.first(EventKind.CONSUMED, msg_id="M0004").get("return_type") == "EXCEPTION"


def test_orderly_suspend_time_per_call(run: Lab) -> None:
    """3000 ms after the first call; 5 ms after the second (200 ms long) is clamped to 10: 7 000 + 200 + 10."""
    assert [e.time_ms for e in run.trace.where(EventKind.DELIVERED, msg_id="M0005")] == [4_000, 7_000, 7_210]
    assert [e.time_ms for e in run.trace.where(EventKind.SUSPENDED, msg_id="M0005")] == [4_000, 7_200]
    assert not run.trace.where(EventKind.STORED, topic="%RETRY%og")


def test_python_scripted_listener_takes_the_same_answers(lab: Lab) -> None:
    """The ``{"return": ..}`` form is ScriptedListener's, so a Python lab scripts per-call levels the same way."""
    listener = ScriptedListener([{"return": "RECONSUME_LATER", "delay_level_when_next_consume": 2}, "CONSUME_SUCCESS"])
    lab.add_consumer("cg", name="c1", subscribe={"T": "*"}, listener=listener)
    lab.at(0, lab.add_producer("pg").send, Message("T", "x"))
    lab.run(until="20s")
    assert _deliveries(lab, "M0001") == [(0, 0), (5_000, 1)]


def _example() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize(
    ("consumer", "where", "answer", "message"),
    [
        (
            0,
            "rules[1].results[0]",
            {"return": "RECONSUME_LATER", "delay_level_when_next_consume": 19},
            "consumers[0].listener.rules[1].results[0].delay_level_when_next_consume=19 is not allowed: expected an "
            "int in -1..18",
        ),
        (
            0,
            "rules[1].results[0]",
            {"return": "RECONSUME_LATER", "suspend_current_queue_time_millis": 100},
            "consumers[0].listener.rules[1].results[0].suspend_current_queue_time_millis=100 is not allowed: "
            "expected only for orderly consumers (orderly: true)",
        ),
        (
            1,
            "default[0]",
            {"return": "SUCCESS", "delay_level_when_next_consume": 2},
            "consumers[1].listener.default[0].delay_level_when_next_consume=2 is not allowed: expected only for "
            "concurrent consumers (orderly: false)",
        ),
        (
            0,
            "rules[1].results[0]",
            {"return": "RECONSUME_LATER", "delay": 2},
            "consumers[0].listener.rules[1].results[0].delay=2 is not allowed: expected a known field: one of "
            "return, ack_index, delay_level_when_next_consume, suspend_current_queue_time_millis",
        ),
        (
            0,
            "rules[1].results[0]",
            {"return": "SUCCESS"},
            "consumers[0].listener.rules[1].results[0].return='SUCCESS' is not allowed: expected one of "
            "CONSUME_SUCCESS, RECONSUME_LATER, null",
        ),
        (
            0,
            "rules[1].results[0]",
            {"return": {"return": "RECONSUME_LATER"}},
            "consumers[0].listener.rules[1].results[0].return={'return': 'RECONSUME_LATER'} is not allowed: "
            "expected a result without context fields",
        ),
        (
            0,
            "rules[1].results[0]",
            {"take": "1s", "then": {"return": "RECONSUME_LATER", "ack_index": -2}},
            "consumers[0].listener.rules[1].results[0].then.ack_index=-2 is not allowed: expected an int in "
            "-1..2147483647",
        ),
    ],
)
def test_a_bad_answer_is_named_with_its_path_value_and_what_is_allowed(
    consumer: int, where: str, answer: Any, message: str
) -> None:
    data = _example()
    listener = data["consumers"][consumer]["listener"]
    if where.startswith("rules"):
        listener["rules"][1]["results"][0] = copy.deepcopy(answer)
    else:
        data["consumers"][consumer]["listener"] = [copy.deepcopy(answer), "SUCCESS"]
    with pytest.raises(ScenarioError) as caught:
        load_scenario(data)
    assert str(caught.value).startswith(message)


def test_an_unknown_match_field_lists_msg_id() -> None:
    data = _example()
    data["consumers"][0]["listener"]["rules"][0]["match"] = {"msgid": "M0001"}
    known = r"match\.msgid='M0001' is not allowed: expected a known field: one of msg_id"
    with pytest.raises(ScenarioError, match=known):
        load_scenario(data)


def test_python_answers_are_checked_too() -> None:
    with pytest.raises(ConfigError, match=r"^listener\.default\[0\]\.delay_level_when_next_consume=2\.5"):
        ScriptedListener([{"return": "RECONSUME_LATER", "delay_level_when_next_consume": 2.5}])
