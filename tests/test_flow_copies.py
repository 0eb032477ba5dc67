"""A message stored twice is drawn twice, and a send try that failed is drawn where it failed (widgets.flow_copies).

On the labs' own pictures (their dashboards, built as the lab builds them): lab 01b's lost response (the producer
retries a send the broker had stored) and lab 03's broker crash (the delay offset lost, "late" delivered again) draw
one token per stored copy, numbered by store time, keyed apart; lab 01a's failed try 1 (broker-a down) is a crossed
ghost on the queue it was sent to at that moment only. Expected counts come from the engine's snapshot and trace at
each frame, never from the lab's text.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from rmqlab.widgets.flow_layout import flow_scene
from test_flow_view import assert_cross_leaves_the_number
from test_lab_pictures import LABS, _dashboards_of

from rmqlab import EventKind
from rmqlab.snapshot import LabSnapshot


def _frames(lab: str, index: int) -> tuple[Any, list[Any]]:
    dash = _dashboards_of(LABS / lab)[index]
    frames = dash.controller.frames
    return frames, list(frames.models(dash.main_view))


def _stored_copies(snap: LabSnapshot) -> Counter[str]:
    """msg id → how many times the engine's business queues hold it."""
    return Counter(c.msg_id for q in snap.queues if q.kind == "business" for c in q.cells if c.msg_id is not None)


def _due_again(snap: LabSnapshot, msg: str) -> int:
    """How many of the engine's delay levels hold ``msg`` due (again, when it is stored already: a rolled-back delay
    offset parks a delivered message once more, the next copy)."""
    return sum(m == msg for b in snap.brokers for level in b.schedule for m, _due in level.dues)


@pytest.mark.parametrize(("lab", "index"), [("01b_send_status_timeout.py", 2), ("03_delay_levels_schedule.py", 2)])
def test_each_stored_copy_is_its_own_token(lab: str, index: int) -> None:
    """At every frame, each owner has one token per stored copy of a message (and per copy parked again), copies 1 … n,
    keyed apart."""
    frames, vms = _frames(lab, index)
    twice = 0
    for snap, vm in zip(frames.snapshots, vms, strict=True):
        for msg, stored in _stored_copies(snap).items():
            n = stored + _due_again(snap, msg)
            for owner in {t.owner for t in vm.tokens if t.msg_id == msg}:
                copies = sorted(t.copy for t in vm.tokens if t.msg_id == msg and t.owner == owner)
                assert copies == list(range(1, n + 1)), (lab, snap.now_ms, msg, owner, copies)
            twice += n > 1
        assert len({t.key for t in vm.tokens}) == len(vm.tokens)
    assert twice, f"{lab}: no frame stores a message twice"


def test_a_duplicate_delivered_twice_ends_as_two_consumed_tokens_with_a_copy_badge() -> None:
    """Lab 03's crash: "late" is consumed before the crash and again after it; at the end both copies are in the
    consumed tray (as many as the trace's deliveries), and copy 2 wears its badge and says so in the legend."""
    frames, vms = _frames("03_delay_levels_schedule.py", 2)
    end, snap = vms[-1], frames.snapshots[-1]
    msg = next(m for m, n in _stored_copies(snap).items() if n == 2)
    delivered = [e for e in snap.events if e.kind is EventKind.DELIVERED and e.msg_id == msg]
    done = [t for t in end.tokens if t.msg_id == msg and t.place == "done:cg"]
    assert len(done) == len(delivered) == 2
    scene = flow_scene(end)
    keys = {m.key for m in scene.marks}
    second = next(t for t in done if t.copy == 2)
    assert second.key == f"msg:cg:{msg}:copy2" and f"copy-badge:{second.key}" in keys
    assert any(m.text == "#2: the same message stored a second time (copy 2, a duplicate)" for m in scene.marks)
    assert next(m.text for m in scene.marks if m.key == f"copy:{second.key}") == "#2"


def _tries(snap: LabSnapshot) -> dict[tuple[str, str, int], str]:
    """(actor, msg id, attempt) → the queue each send try was sent to, from the trace's SEND_ATTEMPTs."""
    return {
        (e.actor, e.msg_id or "", e.data["attempt"]): f"{e.data['topic']}@{e.data['broker']}:{e.data['queue_id']}"
        for e in snap.events
        if e.kind is EventKind.SEND_ATTEMPT
    }


@pytest.mark.parametrize(("lab", "index"), [("01a_send_retry.py", 0), ("02b_send_back_failures.py", 1)])
def test_a_failed_try_is_a_crossed_ghost_on_its_queue_at_that_moment_only(lab: str, index: int) -> None:
    """Lab 01a: try 1 of a send to broker-a (down) fails at once; lab 02b: the consumer's inner producer tries
    %RETRY%cg three times across a partition. At that moment a crossed, faded ghost stands on the queue each try went
    to, gone once the clock moves on; ghosts are never counted as messages."""
    frames, vms = _frames(lab, index)
    seen = 0
    for snap, vm in zip(frames.snapshots, vms, strict=True):
        tried = _tries(snap)
        want = {
            f"ghost:{e.msg_id}:{e.actor.split(':', 1)[-1]}:{e.data['attempt']}": "queue:"
            + tried[(e.actor, e.msg_id or "", e.data["attempt"])]
            for e in snap.events
            if e.kind is EventKind.SEND_RESULT and e.time_ms == snap.now_ms and e.data["outcome"] != "SUCCESS"
        }
        assert {g.key: g.place for g in vm.ghosts} == want, snap.now_ms
        scene = flow_scene(vm)
        roles = {m.key: m.role for m in scene.marks}
        for key in want:
            assert roles[key] == "ghost" and roles[f"cross:{key}"] == "cross"
            assert_cross_leaves_the_number(scene, key)
            assert "rq-ghost" in next(m.cls for m in scene.marks if m.key == key)
        assert sum(r == "token" for r in roles.values()) == len(vm.tokens)
        seen += bool(want)
    assert seen, f"{lab}'s picture never shows a failed try"
