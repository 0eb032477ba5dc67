"""A message stored twice under one id (lab 03's crash rolls the schedule service's delay offset back; lab 01b's SYNC
try whose answer was lost is sent again): the plain line of the store and of the delivery says "a second copy", as
the picture's "#2" badge does, and a step that counts them among "and 2 more" names them; and the offset update a
broker never got is the Java's own log line, the narration saying in the reader's language that persistAll sends it
again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from rmqlab.widgets.controller import Controller

import rmqlab
from rmqlab.client.mq_client_instance import PERSIST_CONSUMER_OFFSET_INTERVAL_MS
from rmqlab.core import i18n
from rmqlab.core.trace import EventKind
from rmqlab.lab.scenario import load_scenario
from rmqlab.narrate import narrate
from rmqlab.narrate.lab_events import PERSIST_EVERY_MS

ROOT = Path(__file__).resolve().parents[1]
CRASH = ROOT / "examples" / "delay_offset_lost_in_crash.yaml"
"""Lab 03's crash: M0001 delivered at 5 s, broker-a down and up again, the level delivers M0001 a second time."""


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(i18n.ENV_VARIABLE, raising=False)
    yield
    rmqlab.set_language(None)


def _copies(language: str) -> dict[tuple[str, int], str]:
    """(kind, nth event of that kind for M0001) → its plain line, for the stores, moves and deliveries of M0001."""
    rmqlab.set_language(language)
    trace = load_scenario(CRASH).run().trace
    kinds = (EventKind.STORED, EventKind.DELAY_DELIVERED, EventKind.DELIVERED)
    seen: dict[str, int] = {}
    said = {}
    for e, c in zip(trace, narrate(trace), strict=True):
        if e.kind in kinds and e.msg_id == "M0001" and not str(e.get("topic", "")).startswith("%"):
            n = seen[e.kind.value] = seen.get(e.kind.value, 0) + 1
            said[(e.kind.value, n)] = c.plain
            assert c.copy == n, (e.kind, n, c.copy)  # the number the flow's "#2" badge shows
    return said


def test_the_second_store_and_delivery_of_one_id_say_a_second_copy_in_english_and_chinese() -> None:
    en = _copies("en")
    assert en[("stored", 1)] == "broker-a stores M0001 in TopicTest queue 0 at position 0."
    assert en[("stored", 2)] == "broker-a stores a second copy of M0001 in TopicTest queue 0 at position 1."
    assert en[("delay_delivered", 2)] == (
        "M0001's 5 s wait (level 2) was over at 5 s, but broker-a's restart at 12 s read back an older offset: "
        "it moves a second copy of M0001 into TopicTest."
    )
    assert en[("delivered", 1)] == "c1 hands M0001 to its listener (the application's code)."
    assert en[("delivered", 2)] == "c1 hands a second copy of M0001 to its listener (the application's code)."
    zh = _copies("zh")
    assert zh[("stored", 2)] == "broker-a 把 M0001 的第二份副本存入 TopicTest 的队列 0，位点 1。"
    assert zh[("delivered", 2)] == "c1 把 M0001 的第二份副本交给它的监听器（应用自己的代码）。"
    assert "第二份副本" not in zh[("stored", 1)] + zh[("delivered", 1)]


@pytest.mark.parametrize(
    ("language", "hidden"),
    [("en", "(and 1 more: a second copy of M0001 delivered, see the Events tab)"),
     ("zh", "（还有 1 条：M0001 的第二份副本已投递，见“事件”标签页）")],
)  # fmt: skip
def test_a_step_that_counts_a_second_copy_names_it(language: str, hidden: str) -> None:
    """The step at 13 s leads with another event (M0001's listener done) and hides the copy's delivery in its count:
    the count names it; no step of the run says a second copy of M0002 (stored once)."""
    rmqlab.set_language(language)
    scenario = load_scenario(CRASH)
    frames = Controller(scenario.build, horizon=scenario.run_until_ms).frames
    assert frames is not None
    plains = [plain for plain, _rule in frames.captions]
    assert sum(p.endswith(hidden) for p in plains) == 1, plains
    assert not any("M0002" in p and ("second copy" in p or "第二份副本" in p) for p in plains)


def _moves(language: str) -> list[tuple[int, str, str]]:
    """(time, plain line, source line) of every move out of a delay level in the crash run."""
    rmqlab.set_language(language)
    trace = load_scenario(CRASH).run().trace
    return [(c.time_ms, c.plain, c.text) for c in narrate(trace) if c.kind is EventKind.DELAY_DELIVERED]


def test_a_move_after_the_restart_says_the_levels_delay_and_that_the_restart_made_it_late() -> None:
    """The 13 s since storing are not a wait: level 2 waits 5 s and level 3 10 s; the restart at 12 s (and
    ``FIRST_DELAY_TIME``, 1 s) is why both come at 13 s, M0001 a second time (``load()`` read an old offset)."""
    first, again, late = _moves("en")
    assert first[:2] == (5_000, "M0001's 5 s wait is over: broker-a moves it into TopicTest.")
    assert again[:2] == (
        13_000,
        "M0001's 5 s wait (level 2) was over at 5 s, but broker-a's restart at 12 s read back an older offset: "
        "it moves a second copy of M0001 into TopicTest.",
    )
    assert again[2] == (
        "ScheduleMessageService.DeliverDelayedMessageTimerTask: load() at the restart (12 s) read level 2's offset "
        "from delayOffset.json, saved before M0001 left: the timer moves M0001 again, to TopicTest queue 0"
    )
    assert late[:2] == (
        13_000,
        "M0002's 10 s wait (level 3) was over at 10 s; broker-a restarted at 12 s, so it moves it into TopicTest "
        "only now, 3 s late.",
    )
    assert late[2] == (
        "ScheduleMessageService.DeliverDelayedMessageTimerTask: due at 10 s, M0002 is 3 s late: the broker restarted "
        "at 12 s and start() arms each level's timer FIRST_DELAY_TIME (1 s) later; messageTimeup puts it back on "
        "TopicTest queue 0"
    )
    assert first[2].endswith("finds M0001 due after 5 s in SCHEDULE_TOPIC_XXXX queue 1; messageTimeup restores "
                             "REAL_TOPIC TopicTest queue 0 and puts it back")
    assert not any("13 s" in plain or "after 13 s" in rule for _t, plain, rule in (first, again, late))
    zh = [plain for _t, plain, _rule in _moves("zh")]
    assert zh[1] == (
        "M0001 的 5 s 等待（延迟级别 2）在 5 s 已经结束，但 broker-a 在 12 s 重启时读回了更早的位点："
        "它把 M0001 的第二份副本移入 TopicTest。"
    )
    assert zh[2] == (
        "M0002 的 10 s 等待（延迟级别 3）在 10 s 已经结束；broker-a 在 12 s 才重启，"
        "所以现在才把它移入 TopicTest，晚了 3 s。"
    )


def test_a_lost_offset_update_is_the_java_log_line_and_the_narration_says_it_is_sent_again() -> None:
    trace = load_scenario(CRASH).run().trace
    warnings = [e for e in trace if "updateConsumeOffsetToBroker" in str(e.get("message"))]
    assert warnings and all(str(e.get("message")).endswith("RemotingConnectException") for e in warnings)
    assert PERSIST_EVERY_MS == PERSIST_CONSUMER_OFFSET_INTERVAL_MS
    rules = [c.text for c in narrate(trace) if c.kind is EventKind.WARNING and "updateConsumeOffsetToBroker" in c.text]
    said = " — RocketMQ only logs this; it is sent again at the next persistAll (5 s)"
    assert len(rules) == len(warnings) and all(r.endswith(said) for r in rules)
    rmqlab.set_language("zh")
    chinese = [c.text for c in narrate(load_scenario(CRASH).run().trace) if "updateConsumeOffsetToBroker" in c.text]
    said = "——RocketMQ 只会把它写进日志；它会在下一次 persistAll（每 5 s 一次）时重新发送"
    assert len(chinese) == len(warnings) and all(r.endswith(said) for r in chinese)
    assert not any("sent again" in r for r in chinese)
