"""A "where" checkpoint's every answer is a place in the picture, the right one too, even before it exists.

Stop 31's screenshots: lab 02a asked where M0003 goes after its failure (a delay level in SCHEDULE_TOPIC_XXXX) and
lab 04 where a message goes once it ran out of retries (``%DLQ%cg``), but neither place was drawn yet — only the
wrong places were outlined in the picture, the right one was a button. The paused frame now draws every offered place
that does not exist yet as a dim dashed placeholder under its real name, right and wrong alike.

View-model level (no browser): :func:`rmqlab.widgets.frames.build_run` resolves the checkpoints of a small run;
the paused frame's flow view-model and scene are read as the page gets them (:meth:`RunFrames.models` / ``scenes``).
"""

from __future__ import annotations

import pytest
from rmqlab.widgets import Checkpoint, demo_lab
from rmqlab.widgets.flow_view import FlowView
from rmqlab.widgets.frames import RunFrames, build_run

from rmqlab import EventKind, Lab


def failing() -> Lab:
    return demo_lab(listener="fail_all", max_reconsume_times=1)


@pytest.fixture(scope="module")
def run() -> RunFrames:
    checkpoints = [Checkpoint(before="send_back", ask="where"), Checkpoint(before="dead_lettered", ask="where")]
    return build_run(failing, horizon="2m", checkpoints=checkpoints)


def _after(run: RunFrames, seq: int) -> int:
    """The first frame at which the event with sequence number ``seq`` has happened."""
    return next(i for i, position in enumerate(run.positions) if position >= seq)


def test_the_paused_picture_offers_a_place_for_every_choice_the_right_one_too(run: RunFrames) -> None:
    view = FlowView()
    models, scenes = run.models(view), run.scenes(view)
    trace = run.snapshots[-1].events
    back, dead = run.checkpoints
    scheduled = next(e for e in trace if e.kind is EventKind.SCHEDULED and e.msg_id == back.event.msg_id)
    assert back.answer == f"delay:{scheduled.actor}:{scheduled.get('level')}" == "delay:broker-a:3"
    assert dead.answer == f"queue:{dead.event.get('topic')}@{dead.event.actor}:0" == "queue:%DLQ%cg@broker-a:0"
    for cp in (back, dead):
        drawn = {p.key: p for p in models[cp.frame].places}
        marks = {m.key: m for m in scenes[cp.frame].marks}
        assert all(c.key in drawn and c.mark == f"place:{c.key}" and c.mark in marks for c in cp.choices), cp.name
        # the answer did not exist one frame earlier: it is a placeholder, and so is every other new place
        assert drawn[cp.answer].placeholder, cp.name
        before = {p.key for p in run.models(view)[cp.frame - 1].places}
        assert cp.answer not in before
        new = sorted(k for k in drawn if k not in before)
        assert new == sorted(p.key for p in cp.placeholders) == sorted(k for k, p in drawn.items() if p.placeholder)
        assert len(new) >= 2 and any(drawn[k].kind == "delay" for k in new), (cp.name, new)
        assert {marks[f"place:{k}"].cls for k in new if drawn[k].kind == "delay"} == {"rq-slot rq-placeholder"}
        assert not models[cp.frame].tokens_at(cp.answer)
    labels = {p.key: p.label for p in back.placeholders}
    assert labels["delay:broker-a:3"] == "level 3 · 10 s" and labels["delay:broker-a:4"] == "level 4 · 30 s"
    assert labels["queue:%DLQ%cg@broker-a:0"] == "%DLQ%cg:0"


def test_after_the_write_the_answer_is_real_and_the_placeholders_are_gone(run: RunFrames) -> None:
    models = run.models(FlowView())
    for cp in run.checkpoints:
        nxt = models[_after(run, cp.event.seq)]
        assert [p.key for p in nxt.places if p.placeholder] == []
        real = nxt.place(cp.answer)
        assert not real.placeholder and [t.msg_id for t in nxt.tokens_at(cp.answer)] == [cp.event.msg_id]
        assert real.label == next(p.label for p in cp.placeholders if p.key == cp.answer)  # same name, now real
    assert all(not p.placeholder for i, vm in enumerate(models) if i not in run.masks for p in vm.places)


def test_a_placeholder_is_drawn_in_its_lane_in_level_order(run: RunFrames) -> None:
    back = run.checkpoints[0]
    scene = run.scenes(FlowView())[back.frame]
    ys = {m.key: m.y for m in scene.marks if m.key.startswith("place:delay:broker-a:")}
    assert sorted(ys, key=ys.__getitem__) == [f"place:delay:broker-a:{lv}" for lv in range(1, 6)]
    lanes = {m.key: m.y for m in scene.marks if m.key.startswith("lane:broker-a:")}
    dlq = next(m for m in scene.marks if m.key == "place:queue:%DLQ%cg@broker-a:0")
    assert lanes["lane:broker-a:schedule"] < min(ys.values()) < max(ys.values()) < lanes["lane:broker-a:retry"]
    assert lanes["lane:broker-a:dlq"] < dlq.y and "rq-placeholder" in dlq.cls
    assert not any(m.key == "empty:broker-a:dlq" for m in scene.marks)  # no "none yet" under a drawn placeholder
