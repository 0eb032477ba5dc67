"""Retention in the pictures (lab 04's "How long is a dead letter kept?", issue 30): a queue whose head entries
CleanCommitLogService deleted says so under its name, the deleted tokens gone, and the "when" checkpoint on the
deletion offers the engine's time with the usual misreadings of fileReservedTime and deleteWhen, each hint in this
run's numbers."""

from __future__ import annotations

import pytest
from rmqlab.widgets.checkpoint_when import when_offers
from rmqlab.widgets.flow_layout import flow_scene
from rmqlab.widgets.flow_view import flow_view_model

import rmqlab
from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import EventKind as K
from rmqlab import Lab, Message
from tests.test_flow_fits import OUTPUT_AREA_PX, _overlaps

DAY_MS = 86_400_000
HOUR_MS = 3_600_000


def kept(later: str = "2m") -> Lab:
    """Lab 04's picture: refund 17 (1 s) is dead-lettered at once; a later order at ``later`` succeeds; c1 and pg
    stop a minute after it."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    c = lab.add_consumer(
        "cg", subscribe={"TopicTest": "*"}, name="c1", max_reconsume_times=0,
        listener=lambda msgs, ctx: C.RECONSUME_LATER if msgs[0].body.startswith("refund") else C.CONSUME_SUCCESS,
    )  # fmt: skip
    lab.at("1s", p.send, Message("TopicTest", "refund 17"))
    lab.at(later, p.send, Message("TopicTest", "order 18"))
    stop = rmqlab.parse_duration(later) + 60_000
    lab.at(stop, c.shutdown)
    lab.at(stop, p.shutdown)
    return lab


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_queue_retention_emptied_says_so_and_its_tokens_are_gone(language: str) -> None:
    lab = kept().run(until="3d4h")
    (deleted,) = lab.trace.of_kind(K.RETENTION_DELETED)
    rmqlab.set_language(language)
    try:
        before = flow_view_model(kept().run(until=deleted.time_ms - 1).snapshot())
        vm = flow_view_model(lab.snapshot())
        scene = flow_scene(vm)
    finally:
        rmqlab.set_language(None)
    dlq = "queue:%DLQ%cg@broker-a:0"
    assert [t.msg_id for t in before.tokens_at(dlq)] == ["M0001"] and before.place(dlq).deleted == 0
    assert (vm.place(dlq).deleted, vm.tokens_at(dlq)) == (1, ())
    assert vm.place("queue:TopicTest@broker-a:0").deleted == 1  # refund 17's first copy; order 18 (newest) stays
    note = next(m for m in scene.marks if m.key == f"note:{dlq}")
    assert (note.text or "").startswith("1 ") and "CleanCommitLogService" in (note.title or "")
    assert not any(m.key == f"note:{dlq}" for m in flow_scene(before).marks)
    assert _overlaps(scene) == [] and scene.width <= OUTPUT_AREA_PX


def _offers(later: str = "2m") -> tuple[Lab, int, dict[int, str]]:
    """Pause before the deletion, as the checkpoint does (the snapshot at the event before it): the run, the answer
    and every offered time's hint."""
    lab = kept(later).run(until="3d5h")
    event = next(iter(lab.trace.of_kind(K.RETENTION_DELETED)))
    before = [e for e in lab.trace.events if e.seq < event.seq]
    paused = kept(later).run(until=before[-1].time_ms).snapshot()
    return lab, event.time_ms, {int(o.key): o.hint for o in when_offers(event, paused, before)}


def test_the_deletion_time_is_the_engines_and_each_wrong_time_says_which_rule_it_misses() -> None:
    lab, answer, hints = _offers()
    stored = lab.trace.first("dead_lettered", msg_id="M0001").time_ms
    assert answer == 3 * DAY_MS + 4 * HOUR_MS  # 72 h after 1 s is past midnight on day 3: the next 04:00
    assert hints.pop(answer) == ""
    assert sorted(hints) == [4 * HOUR_MS, 2 * DAY_MS + 4 * HOUR_MS, stored + 72 * HOUR_MS, 4 * DAY_MS + 4 * HOUR_MS]
    assert "not a deadline" in hints[4 * HOUR_MS] and rmqlab.format_duration(4 * HOUR_MS - stored) in hints[4 * HOUR_MS]
    younger = hints[2 * DAY_MS + 4 * HOUR_MS]
    assert "younger than fileReservedTime 72 h" in younger
    assert rmqlab.format_duration(2 * DAY_MS + 4 * HOUR_MS - stored) in younger
    assert "deleteWhen hour" in hints[stored + 72 * HOUR_MS] and "M0001" in hints[stored + 72 * HOUR_MS]
    assert hints[4 * DAY_MS + 4 * HOUR_MS].startswith("Too late. A dead letter is not kept longer")
    assert all(h.startswith("Too early. ") for t, h in hints.items() if t < answer)


def test_a_later_order_on_day_3_moves_nothing_and_past_windows_are_not_offered() -> None:
    """Traffic on day 3 (order 18 at 03:00) does not move the dead letter's deletion: its own age decides. Paused
    after that order, the earlier windows and the 72 h mark are in the past, so only "a day later" is offered of the
    misreadings (no time before the pause)."""
    lab, answer, hints = _offers(later="75h")
    assert answer == 3 * DAY_MS + 4 * HOUR_MS
    assert [e.get("count") for e in lab.trace.of_kind(K.RETENTION_DELETED)] == [2]
    assert min(hints) >= 75 * HOUR_MS + 60_000 and 4 * DAY_MS + 4 * HOUR_MS in hints
