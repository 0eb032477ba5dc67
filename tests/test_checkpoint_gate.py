"""A checkpoint not yet answered stops every move forward at its question, in the kernel as in the page (issue 30):
Step, Play, a seek (the scrubber), Jump and a seek in time all land on its paused step and go no further until it is
answered here (:meth:`Controller.answer`) or in the page (``player.answers``). And at a paused "when" checkpoint the
Locks tab tells no lease end later than the paused clock (a lease's end is when a take-over can happen)."""

from __future__ import annotations

from rmqlab.widgets import Checkpoint, Controller, demo_lab
from rmqlab.widgets.checkpoint_mask import mask_model
from rmqlab.widgets.controller_controls import JUMP_KINDS
from rmqlab.widgets.lease_fold import lease_model
from rmqlab.widgets.lease_model import lease_text

from rmqlab import Lab


def failing() -> Lab:
    return demo_lab(listener="fail_all", max_reconsume_times=1)


def _paused() -> tuple[Controller, int, str, str]:
    c = Controller(failing, horizon="2m", checkpoints=[Checkpoint(before="send_back", ask="where", name="first")])
    assert c.frames is not None and c.end is not None
    cp = c.checkpoints[0]
    return c, c.frames.positions[cp.frame], cp.answer, next(ch.key for ch in cp.choices if ch.key != cp.answer)


def test_every_move_forward_stops_at_the_unanswered_question() -> None:
    c, at, _right, _wrong = _paused()
    end = c.end
    assert end is not None and 0 < at < end
    assert c.seek(end) == at and "answer the checkpoint first" in c.message.value  # the scrubber
    assert not c.step_once() and c.position == at  # Step (and Play's tick) stays
    assert c.play(50) == at
    c.reset()
    assert c.jump_to_next("dead_lettered") and c.position == at
    c.reset()
    assert c.seek_time("2m") == at
    c.reset()
    while c.step_once():  # Step by Step: it lands on the question and stays there
        pass
    assert c.position == at


def test_a_wrong_answer_keeps_it_closed_and_a_right_one_here_or_in_the_page_opens_it() -> None:
    c, at, right, wrong = _paused()
    end = c.end
    assert end is not None
    c.seek(at)
    assert c.answer("first", wrong)[0] is False and c.seek(end) == at
    assert c.answer("first", right)[0] is True
    assert c.seek(end) == end and c.at_end and c.message.value == ""
    page, at, _right, _wrong = _paused()
    page.player.answers = [{"name": "first", "tries": 2, "shown": True}]  # answered (or shown) in the page
    assert page.seek(end) == end
    assert page.step_back() < end and page.step_once()  # moving back and on again is free


def test_the_jump_box_offers_only_what_it_can_reach_before_the_question() -> None:
    """Kinds beyond an unanswered question would tell its answer ("dead_lettered (1)" before "where does it go?")."""
    c, at, right, _wrong = _paused()
    assert c.outline is not None
    offered = {value for _label, value in c.kind_choice.options}
    reachable = {kind.value for kind in c.outline.ahead(c.position, until=at)} & set(JUMP_KINDS)
    assert offered == reachable and "dead_lettered" not in offered and "send_back" not in offered
    c.seek(at)
    assert c.kind_choice.options == (("answer the question first", ""),) and c.jump_button.disabled
    c.answer("first", right)
    c.seek(at)
    assert "dead_lettered" in {value for _label, value in c.kind_choice.options}


def test_a_paused_when_checkpoint_hides_the_lease_ends_still_to_come() -> None:
    c = Controller(
        lambda: demo_lab(orderly=True, listener="fail_all", suspend_current_queue_time_millis=3000),
        horizon="30s",
        checkpoints=[Checkpoint(before="delivered", nth=2, ask="when", name="again")],
    )
    frames = c.frames
    assert frames is not None
    cp = c.checkpoint("again")
    snap, mask = frames.snapshots[cp.frame], frames.masks[cp.frame]
    now = snap.now_ms
    shown = lease_model(snap)
    masked = mask_model(shown, mask)
    ends = [s.end_ms for b in shown.bands for lane in b.lanes for s in lane.spans]
    assert any(t > now for t in ends) and any(b.lease_ends_ms and b.lease_ends_ms > now for b in shown.bands)
    assert all(s.end_ms <= now for b in masked.bands for lane in b.lanes for s in lane.spans)
    assert all(b.lease_ends_ms is None or b.lease_ends_ms <= now for b in masked.bands)
    assert masked.t_end_ms == 60_000 < shown.t_end_ms  # the axis a run that held nothing past now would have
    assert "lease ends at (hidden)" in lease_text(masked) and "lease ends at (hidden)" not in lease_text(shown)
    # the kernel's Locks view at that step is masked as the page's frame is
    c.goto_checkpoint("again")
    here = c.mask_here()
    assert here is not None and c.replay is not None
    assert mask_model(lease_model(c.replay.snapshot()), here) == masked
