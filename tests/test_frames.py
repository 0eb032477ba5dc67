"""Frames in the page and checkpoints: the page's frames are the controller's steps, and a checkpoint's answer is
the engine's next state."""

from __future__ import annotations

import pytest
from rmqlab.widgets import Checkpoint, Controller, Dashboard, demo_lab
from rmqlab.widgets.checkpoints import CheckpointError
from rmqlab.widgets.frames import build_run, decode, encode
from rmqlab.widgets.scene import SceneView

from rmqlab import EventKind, Lab

pytestmark = pytest.mark.usefixtures("no_running_loop")  # a page move is followed at once, as in a script


def failing() -> Lab:
    return demo_lab(listener="fail_all", max_reconsume_times=1)


def test_every_frame_is_the_controllers_step_with_its_scene_and_caption() -> None:
    dash = Dashboard(failing, horizon="2m")
    frames = dash.controller.frames
    assert frames is not None and frames.complete and len(frames) == 15
    assert (frames.positions[:2], frames.now_ms[:2]) == ([0, 3], [0, 0])  # the start, then the build (c1 starts)
    ctl = Controller(failing, views=[type(v)() for v in dash.views if isinstance(v, SceneView)], horizon="2m")
    encoded = {type(v).__name__: encode(frames.scenes(v)) for v in dash.views if isinstance(v, SceneView)}
    for i in range(len(frames)):
        assert ctl.position == frames.positions[i]
        assert ctl.caption_lines == frames.captions[i]
        assert ctl.clock_text == frames.clock(i)
        for view in ctl.views:
            assert isinstance(view, SceneView) and view.current is not None
            assert decode(encoded[type(view).__name__], i) == view.current.to_json(), (i, view.title)
        ctl.step_once()
    assert ctl.position == frames.end and frames.clock(len(frames) - 1).endswith(" · end")


def test_the_main_picture_and_the_first_tab_get_their_frames_at_once_the_others_when_opened() -> None:
    dash = Dashboard(
        lambda max_reconsume_times: demo_lab(listener="fail_all", max_reconsume_times=max_reconsume_times),
        knobs={"max_reconsume_times": 1},
        horizon="2m",
    )
    run = dash.controller.player.data["run"]
    scenes = [v for v in dash.views if isinstance(v, SceneView)]
    sent = [v.title for v in scenes if v.canvas.frames and v.canvas.run == run]
    assert sent == ["Message flow", "ProcessQueues"]
    dash.tabs.selected_index = 1
    assert dash.tab_views[1].canvas.run == run and dash.tab_views[1].canvas.frames  # type: ignore[attr-defined]
    dash.rebuild(max_reconsume_times=2)  # a new run: new frames for what was shown, the rest still waits
    assert [v.title for v in scenes if v.canvas.frames] == ["Message flow", "ProcessQueues", "Space-time"]


def test_deltas_send_only_what_changed() -> None:
    dash = Dashboard(failing, horizon="2m")
    flow = dash.main_view
    assert isinstance(flow, SceneView)
    encoded = encode(dash.controller.frames.scenes(flow))  # type: ignore[union-attr]
    first, *rest = encoded["frames"]
    assert len(first["set"]) == len(decode(encoded, 0)["marks"])
    moved_only = 0
    for i, delta in enumerate(rest, start=1):
        before = {m["key"]: m for m in decode(encoded, i - 1)["marks"]}
        after = {m["key"]: m for m in decode(encoded, i)["marks"]}
        assert [m["key"] for m in delta.get("set", ())] == [k for k in after if k not in before]  # new marks, whole
        for change in delta.get("mod", ()):  # the others: only the fields that changed (None: gone)
            old, new = before[change["key"]], after[change["key"]]
            assert change == {"key": new["key"]} | {f: new.get(f) for f in {*old, *new} if old.get(f) != new.get(f)}
            moved_only += set(change) == {"key", "x", "y"}
    assert moved_only > 0  # a token that travelled sends its new place, nothing else


def test_a_page_move_is_followed_by_the_kernel() -> None:
    ctl = Controller(failing, horizon="2m")
    frames = ctl.frames
    assert frames is not None
    last = len(frames) - 1
    for frame in (5, 2, last, 3):  # what the page sends: the kernel reaches each frame's own state
        ctl.player.position = frame
        assert (ctl.position, ctl.snapshot.now_ms) == (frames.positions[frame], frames.now_ms[frame])  # type: ignore[union-attr]
        assert ctl.player.position == frame  # the kernel agrees: no live fallback sent back to the page
    assert frames.now_ms[last] == 120_000  # the last Step runs the idle timers to the horizon
    ctl.player.position = 2
    ctl.step_once()  # a method twin: the page is told the frame
    assert ctl.player.position == 3


def test_a_tab_never_opened_is_not_drawn_while_the_kernel_follows_the_page() -> None:
    """A hidden tab the student never opened gets neither frames nor the kernel's pictures while the page steps
    (each was a whole scene sent at every Step); opened between frames, it gets the kernel's picture of there."""
    dash = Dashboard(failing, horizon="2m")
    ctl = dash.controller
    hidden = dash.tab_views[2]
    assert isinstance(hidden, SceneView) and hidden.title == "Retry timeline"
    sent: list[dict[str, object]] = []
    hidden.canvas.observe(lambda change: sent.append(change["new"]), names="scene")
    for frame in (1, 2, 3, 5, 8):
        ctl.player.position = frame
    assert sent == [] and not hidden.live
    assert hidden.current is not None and hidden.vm is not None  # its view-model kept up to date all the same
    assert ctl.stepper is not None and ctl.frames is not None
    between = next(p for p in ctl.stepper.known_stops if p not in ctl.frames.positions)  # offset bookkeeping
    ctl.seek(between)  # a position the page has no frame for
    assert ctl.player.position == -1 and sent == []
    dash.tabs.selected_index = 2
    assert hidden.canvas.frames and hidden.live and sent == [hidden.current.to_json()]


def test_checkpoint_answers_are_the_engines_next_state() -> None:
    checkpoints = [
        Checkpoint(before="send_back", ask="where"),
        Checkpoint(before="dead_lettered", nth=2, ask="where"),
        Checkpoint(before="delivered", nth=3, ask="who"),
        Checkpoint(before="delay_delivered", ask="when"),
    ]
    run = build_run(failing, horizon="2m", checkpoints=checkpoints)
    trace = [e for snap in run.snapshots[-1:] for e in snap.events]
    back, dead, delivered, due = run.checkpoints
    first_back = next(e for e in trace if e.kind is EventKind.SEND_BACK)
    scheduled = next(e for e in trace if e.kind is EventKind.SCHEDULED and e.msg_id == first_back.msg_id)
    assert back.answer == f"delay:broker-a:{scheduled.get('level')}" == "delay:broker-a:3"
    second_dead = [e for e in trace if e.kind is EventKind.DEAD_LETTERED][1]
    assert dead.answer == f"queue:{second_dead.get('topic')}@{second_dead.actor}:0" == "queue:%DLQ%cg@broker-a:0"
    third = [e for e in trace if e.kind is EventKind.DELIVERED][2]
    assert delivered.answer == third.actor.removeprefix("consumer:") == "c1"
    assert due.answer == str(next(e for e in trace if e.kind is EventKind.DELAY_DELIVERED).time_ms) == "11000"
    for cp in run.checkpoints:  # paused just before the event: the event is in the next step, not before
        assert run.positions[cp.frame] < cp.event.seq <= run.positions[cp.frame + 1]
        assert cp.answer in [c.key for c in cp.choices]
        assert len(cp.choices) >= (1 if cp.ask == "who" else 2)
    assert {"queue:%DLQ%cg@broker-a:0", "delay:broker-a:1", "delay:broker-a:3"} <= {c.key for c in back.choices}


def test_a_checkpoint_says_right_or_gives_a_hint() -> None:
    ctl = Controller(failing, horizon="2m", checkpoints=[Checkpoint(before="send_back", ask="where")])
    right, text = ctl.answer("send_back #1", "queue:%DLQ%cg@broker-a:0")
    assert not right and "SCHEDULE_TOPIC_XXXX" in text
    right, text = ctl.answer("send_back #1", "delay:broker-a:3")
    assert right and text.startswith("Right: delay level 3 · 10 s.")
    with pytest.raises(ValueError, match="choice='nowhere'"):
        ctl.answer("send_back #1", "nowhere")
    assert ctl.goto_checkpoint("send_back #1") == ctl.frames.positions[ctl.checkpoint("send_back #1").frame]  # type: ignore[union-attr]


def test_bad_checkpoints_name_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="before='sent_back' is not an event kind"):
        Checkpoint(before="sent_back")
    with pytest.raises(ValueError, match="ask='why'"):
        Checkpoint(before="send_back", ask="why")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="nth=0"):
        Checkpoint(before="send_back", nth=0)
    with pytest.raises(CheckpointError, match="nth=9 but this run has 6 such event"):
        build_run(failing, horizon="2m", checkpoints=[Checkpoint(before="send_back", nth=9)])
