"""The retry timeline: rows folded from the trace (headless), the drawn Scene, and the view under the controller."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from rmqlab.widgets import Controller, Replay, RetryTimeline, demo_lab
from rmqlab.widgets.retry_timeline import retry_timeline_model, retry_timeline_scene, retry_timeline_text
from view_checks import example_snapshot, overlapping_texts, texts_outside

from rmqlab import EventKind
from rmqlab.snapshot import LabSnapshot

DEFAULT_WAITS = [
    "L3 · 10 s", "L4 · 30 s", "L5 · 1 m", "L6 · 2 m", "L7 · 3 m", "L8 · 4 m", "L9 · 5 m", "L10 · 6 m",
    "L11 · 7 m", "L12 · 8 m", "L13 · 9 m", "L14 · 10 m", "L15 · 20 m", "L16 · 30 m", "L17 · 1 h", "L18 · 2 h",
]  # fmt: skip
"""messageDelayLevel 3..18 as the spec lists them: the waits of 16 retries."""


def at(factory, k: int) -> LabSnapshot:
    replay = Replay(factory)
    replay.seek(k)
    return replay.snapshot()


@pytest.fixture(scope="module")
def retry_snap() -> LabSnapshot:
    return example_snapshot("default_retry_schedule")


def test_model_matches_the_default_schedule():
    """17 deliveries, 16 hops, 16 waits at levels 3..18, DLQ at 17 140 000 ms after first store."""
    replay = Replay(demo_lab)
    replay.run_to_end()
    vm = retry_timeline_model(replay.snapshot())
    assert vm.lanes == ("M0001", "M0002", "M0003")
    assert vm.origins_ms == (1000, 1010, 1020)
    assert Counter(m.kind for m in vm.marks if m.lane == 0) == {
        "delivered": 17,
        "consumed_failed": 17,
        "retry_hop": 16,
        "dead_lettered": 1,
    }
    assert [w.level for w in vm.waits] == list(range(3, 19))
    deliveries = [m.t_ms // 1000 for m in vm.marks if m.lane == 0 and m.kind == "delivered"]
    assert deliveries == [0, 10, 40, 100, 220, 400, 640, 940, 1300, 1720, 2200, 2740, 3340, 4540, 6340, 9940, 17140]
    assert [m.delivery for m in vm.marks if m.lane == 0 and m.kind == "delivered"] == list(range(1, 18))
    assert [m.t_ms for m in vm.marks if m.kind == "dead_lettered"] == [17_140_000]
    text = retry_timeline_text(vm).splitlines()
    assert text[0].startswith("M0001: D@0 ms ✗@0 ms wait L3 0 ms→10 s →RETRY@10 s D@10 s ✗@10 s wait L4")
    assert text[0].endswith("DLQ@4 h 45 m 40 s")
    assert text[1:] == ["M0002: D@0 ms ✓@0 ms", "M0003: D@0 ms ✓@0 ms"]
    assert retry_timeline_model(replay.snapshot(), only_retried=True).lanes == ("M0001",)
    assert retry_timeline_model(replay.snapshot(), max_lanes=1).hidden == 2


def test_pending_wait_ends_at_due_time():
    """A message still parked shows a pending wait that ends at its due time."""
    vm = retry_timeline_model(at(demo_lab, 12))
    assert [(w.start_ms, w.end_ms, w.level, w.done, w.label) for w in vm.waits] == [(0, 10_000, 3, False, "L3 · 10 s")]


def test_waits_are_labelled_level_and_duration_in_order(retry_snap: LabSnapshot):
    """The 16 waits read L3 · 10 s … L18 · 2 h, each between delivery n and n + 1; they sum to 17 140 s."""
    vm = retry_timeline_model(retry_snap)
    assert [w.label for w in vm.waits] == DEFAULT_WAITS
    assert [w.after for w in vm.waits] == list(range(1, 17))
    assert sum(w.duration_ms for w in vm.waits) == 17_140_000
    scene = retry_timeline_scene(vm)
    assert [m.text for m in scene.marks if m.role == "wait-label"] == DEFAULT_WAITS


def test_scene_draws_17_numbered_deliveries_apart_and_ends_in_the_dlq(retry_snap: LabSnapshot):
    """One token per delivery, numbered 1..17, left to right with room between; then the DLQ box at 17 140 s."""
    scene = retry_timeline_scene(retry_timeline_model(retry_snap))
    tokens = [scene.mark(k) for k in scene.keys("delivery")]
    assert [t.text for t in tokens] == [str(n) for n in range(1, 18)]
    xs = [t.x for t in tokens]
    assert all(b - a > 2 * tokens[0].r + 4 for a, b in itertools.pairwise(xs))
    (dlq,) = [scene.mark(k) for k in scene.keys("dead_lettered")]
    assert dlq.x > xs[-1] + tokens[-1].r
    stored = next(e.time_ms for e in retry_snap.events if e.kind is EventKind.STORED)
    assert stored == 0 and scene.mark("rt:M0001:end:since").text == "4 h 45 m 40 s"
    since = {m.key: m.text for m in scene.marks if m.role == "since" and m.key.startswith("rt:M0001:d")}
    # at 868 px the labels are written every other column, back from the last (revA 16): 10 s, 1 m 40 s … 4 h 45 m
    assert list(since.values())[:3] == ["10 s", "1 m 40 s", "6 m 40 s"]
    assert since["rt:M0001:d16:since"] == "2 h 45 m 40 s"
    for t in tokens:  # a delivery whose label is thinned out still tells its time in its tooltip
        assert f"rt:M0001:d{t.text}:since" in since or " after first stored" in (t.title or "")
    assert scene.mark("rt:M0001:state").text == "→ %DLQ%"


def test_absolute_axis_bars_and_now_line(retry_snap: LabSnapshot):
    """The bar draws the 17 deliveries to scale on the absolute axis; the now line stands at the snapshot's time."""
    scene = retry_timeline_scene(retry_timeline_model(retry_snap))
    ticks = [scene.mark(k) for k in scene.keys("tick")]
    assert len(ticks) == 17 and [t.x for t in ticks] == sorted(t.x for t in ticks)
    axis = scene.mark("axis")
    span = axis.x2 - axis.x
    assert ticks[-1].x == pytest.approx(axis.x + span * 17_140_000 / retry_snap.now_ms)
    now = scene.mark("now")
    assert now.x == pytest.approx(axis.x2) and scene.mark("now:t").text == "now 4 h 50 m"
    assert dict(scene.extra)["now-ms"] == str(retry_snap.now_ms) == "17400000"
    assert [m.text for m in scene.marks if m.role == "axis-tick"][:3] == ["0 ms", "1 h", "2 h"]
    assert scene.mark("rt:M0001:origin").text == "first stored 0 ms"


def test_a_pending_wait_is_dashed_with_a_countdown_and_a_now_tick():
    """demo_lab at 12: M0001 waits at level 3 (due 11 s absolute); at t = 1 s the now tick sits at the wait's start."""
    snap = at(demo_lab, 12)
    scene = retry_timeline_scene(retry_timeline_model(snap))
    wait = scene.mark("rt:M0001:w1")
    assert (wait.role, wait.cls) == ("wait", "rq-rt-pending")
    assert scene.mark("rt:M0001:due:t").text == "due in 10 s"
    assert scene.mark("rt:M0001:now").x == pytest.approx(wait.x)
    assert scene.mark("rt:M0001:state").text == "waiting L3"


def test_no_text_overlaps_and_the_picture_fits(retry_snap: LabSnapshot):
    """Early and late steps, two lanes per broadcast message, orderly suspends: no text box meets another."""
    early = example_snapshot("default_retry_schedule", 60)
    scenes = [
        retry_timeline_scene(retry_timeline_model(snap))
        for snap in (retry_snap, early, at(demo_lab, 10**6), example_snapshot("orderly_suspend"))
    ]
    for scene in scenes:
        assert overlapping_texts(scene) == []
        assert texts_outside(scene) == []
    assert scenes[0].width <= 868  # fits a JupyterLab output area unscaled (1300 px, file browser open)
    for scene in scenes:  # no label under a row reaches the to-scale bar under it (revA 16: a third line did)
        bars = [m for m in scene.marks if m.role == "bar"]
        for m in scene.marks:
            if m.role in ("since", "countdown"):
                assert not any(0 <= b.y - m.y < 4 for b in bars), (m.key, m.y)


def test_same_snapshot_same_svg():
    """Two replays to the same position give the same SVG text, byte for byte."""
    a = retry_timeline_scene(retry_timeline_model(example_snapshot("default_retry_schedule", 100)))
    b = retry_timeline_scene(retry_timeline_model(example_snapshot("default_retry_schedule", 100)))
    assert a.to_svg() == b.to_svg()


def test_broadcast_copies_get_a_row_per_instance_and_a_drop_ends_one():
    """BROADCASTING: each instance consumes its own copy; c1's failure is dropped (crossed box), c2's copy is done."""
    vm = retry_timeline_model(example_snapshot("broadcasting_drop"))
    assert vm.lanes == ("M0001 · c1", "M0001 · c2")
    text = retry_timeline_text(vm).splitlines()
    assert text == ["M0001 · c1: D@0 ms ✗@0 ms DROPPED@0 ms", "M0001 · c2: D@0 ms ✓@0 ms"]
    scene = retry_timeline_scene(vm)
    assert scene.keys("dropped") == ("rt:M0001 · c1:end",)
    assert scene.mark("rt:M0001 · c1:state").text == "✗ dropped (BROADCASTING)"


def test_orderly_suspend_and_local_retry_waits():
    """An orderly suspend waits 1 s in the client, a failed send-back 5 s: labelled as such, not as delay levels."""
    orderly = retry_timeline_model(example_snapshot("orderly_suspend"))
    assert [w.label for w in orderly.waits if w.lane == 0] == ["suspend · 1 s", "suspend · 1 s"]
    local = retry_timeline_model(example_snapshot("send_back_local_retry"))
    assert [(w.label, w.after) for w in local.waits] == [("local · 5 s", 1), ("local · 5 s", 2)]


def test_view_redraws_per_position_and_resets():
    """Under the controller the view draws a Scene; Reset brings it back to no deliveries."""
    view = RetryTimeline()
    c = Controller(demo_lab, views=[view], run_ahead=False)
    c.seek(10**6)
    assert view.current is not None and len(view.current.keys("delivery")) == 19
    assert 'data-testid="rq-retry-timeline"' in view.static_html()
    assert view.canvas.scene["testid"] == "rq-retry-timeline"
    c.reset()
    assert view.current is not None and view.current.keys("delivery") == ()
    assert view.errors == []
