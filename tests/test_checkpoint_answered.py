"""A "when" mask lasts until the answer (revA item 7): once answered (here or in the page) the paused frame's
caption, clocks and pictures say what they hid; the page gets that frame sealed with the frames past the pause."""

from __future__ import annotations

import json

import pytest
from rmqlab.widgets import Checkpoint, Dashboard, demo_lab
from rmqlab.widgets.checkpoint_answered import answer_fixes
from rmqlab.widgets.frames import decode
from rmqlab.widgets.page_seal import open_box, seal_player, seal_tail, segment_key

from rmqlab import Lab

pytestmark = pytest.mark.usefixtures("no_running_loop")


def failing() -> Lab:
    return demo_lab(listener="fail_all", max_reconsume_times=2, messages=1)


def _dash() -> Dashboard:
    when = Checkpoint(before="delivered", nth=2, ask="when", name="again")
    return Dashboard(failing, horizon="2m", checkpoints=[when])


def _texts(vm: object) -> str:
    return json.dumps(vm, default=repr)


def test_the_kernel_unmasks_the_paused_frame_once_answered() -> None:
    dash = _dash()
    c = dash.controller
    cp = c.checkpoints[0]
    c.goto_checkpoint("again")
    asked = c.caption_lines
    flow = dash.main_view.current
    assert any("… (your question)" in line for line in asked) and flow is not None
    assert any((m.text or "").endswith(" (hidden)") for m in flow.marks if m.key.startswith("clock:"))
    assert c.frames is not None and cp.frame in c.frames.answered
    c.answer("again", cp.answer)
    said = c.caption_lines
    assert said == c.frames.answered[cp.frame].caption and not any("(your question)" in line for line in said)
    assert [a for a in said if a not in asked]  # the hidden time is back in the words
    clocks = [m.text or "" for m in dash.main_view.current.marks if m.key.startswith("clock:")]
    assert clocks and not any(t.endswith(" ?") for t in clocks)
    c.step_back()
    c.goto_checkpoint("again")  # a later visit: still answered
    assert c.caption_lines == said


def test_the_page_gets_the_answered_pause_sealed_with_the_frames_after_it() -> None:
    dash = _dash()
    frames = dash.controller.frames
    assert frames is not None
    cp = frames.checkpoints[0]
    plain = frames.player_json()
    said = {f: a.caption for f, a in frames.answered.items()}
    player = seal_player(plain, frames.checkpoints, said)
    assert player["captions"][cp.frame] == plain["captions"][cp.frame]  # masked, in plain sight
    assert json.dumps(list(said[cp.frame])) not in json.dumps(player)  # the answered words only sealed
    (segment,) = player["sealed"]
    opened = json.loads(open_box(segment_key(cp), segment))[1]
    assert opened["answer"] == {"frame": cp.frame, "caption": list(said[cp.frame])}

    view = dash.main_view
    encoded = view.page_frames(frames)
    fixes = answer_fixes(view, frames, encoded)
    assert cp.frame in fixes
    tail = seal_tail(encoded, frames.checkpoints, view.title, fixes)
    (seg,) = tail["sealed"]
    assert seg["fix"] == 1 and seg["n"] == len(encoded["frames"]) - cp.frame - 1
    deltas = json.loads(open_box(segment_key(cp), seg))[1]
    # what scene.js does (withAnswers): the pause shows the first delta, the frames after it follow the way back
    page = {"frames": tail["frames"] + deltas}
    answered = decode(page, cp.frame + 1)
    masked = decode(encoded, cp.frame)
    assert answered != masked and "(hidden)" not in " ".join(m.get("text", "") for m in answered["marks"] if
                                                                    m["key"].startswith("clock:"))  # fmt: skip
    assert frames.answered[cp.frame].mask is None  # no later question hides anything: the picture, unmasked
    assert answered == view.scene(view.model(frames.snapshots[cp.frame])).to_json({})
    for k in range(cp.frame + 1, len(encoded["frames"])):
        assert decode(page, k + 2) == decode(encoded, k)  # the frames after the pause, unchanged
