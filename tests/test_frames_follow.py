"""The kernel follows the page cheaply (issue 32): the page's moves reach it once a burst settles, it walks its run to
the frame the page shows, and it recomputes no picture the page draws from its frames until someone reads it."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from rmqlab.widgets import Dashboard, demo_lab
from rmqlab.widgets.event_log import EventLog
from rmqlab.widgets.frames import one_build
from rmqlab.widgets.scene import SceneView

from rmqlab import Lab

pytestmark = pytest.mark.usefixtures("no_running_loop")


def failing() -> Lab:
    return demo_lab(listener="fail_all", max_reconsume_times=1)


def counting_models(dash: Dashboard) -> dict[str, list[int]]:
    """Wrap every view's ``model`` so each call is recorded (by view title: the trace positions it was asked for)."""
    calls: dict[str, list[int]] = {}
    for view in dash.views:
        asked = calls.setdefault(view.title, [])

        def model(snap: Any, _original: Any = view.model, _asked: list[int] = asked) -> Any:
            _asked.append(snap.trace_len)
            return _original(snap)

        view.model = model  # type: ignore[method-assign]
    return calls


def test_following_the_page_computes_no_view_model_until_one_is_read() -> None:
    dash = Dashboard(failing, horizon="2m")
    ctl = dash.controller
    frames = ctl.frames
    assert frames is not None
    calls = counting_models(dash)
    for frame in (3, 7, 5, 9):  # what the page sends: the kernel walks there, and draws nothing the page draws
        ctl.player.position = frame
        assert (ctl.position, ctl.snapshot.now_ms) == (frames.positions[frame], frames.now_ms[frame])  # type: ignore[union-attr]
    assert calls == {view.title: [] for view in dash.views}
    flow = dash.main_view
    assert isinstance(flow, SceneView) and not flow.live
    assert flow.vm == frames.models(flow)[9]  # read: computed now, for the position reached
    assert flow.current == frames.scenes(flow)[9]
    assert calls[flow.title] == [frames.positions[9]]
    events = dash.view("Events")
    assert isinstance(events, EventLog)
    assert events.text.count("\n") > 1 and calls["Events"] == [frames.positions[9]]
    assert all(calls[view.title] == [] for view in dash.views if view not in (flow, events))


def test_a_view_the_kernel_draws_is_drawn_at_once() -> None:
    """Between frames (a raw step) the page has no picture: the kernel draws the shown views as before."""
    dash = Dashboard(failing, horizon="2m")
    ctl = dash.controller
    assert ctl.frames is not None and ctl.stepper is not None
    flow = dash.main_view
    assert isinstance(flow, SceneView)
    sent: list[Any] = []
    flow.canvas.observe(lambda change: sent.append(change["new"]), names="scene")
    ctl.player.position = 8  # the page stepped on: the kernel walked there, past offset bookkeeping
    assert sent == []
    between = next(p for p in ctl.stepper.known_stops if p not in ctl.frames.positions)
    ctl.seek(between)
    assert ctl.player.position == -1 and flow.live
    assert flow.current is not None and sent == [flow.current.to_json()]


def test_a_burst_of_moves_is_followed_once_from_its_last_position() -> None:
    """With an event loop (a kernel), the moves that arrive before the kernel follows are one walk, to the last."""
    dash = Dashboard(failing, horizon="2m")
    ctl = dash.controller
    frames = ctl.frames
    assert frames is not None
    shown: list[int] = []
    dash.controller.views[0].update = lambda snap, mask=None: shown.append(snap.trace_len)  # type: ignore[method-assign]

    async def burst() -> None:
        for frame in (1, 2, 3, 4, 6):
            ctl.player.position = frame
        assert ctl.position == frames.positions[0]  # not followed yet: the kernel waits for the burst to settle
        while ctl._pending_frame is not None:
            await asyncio.sleep(0.01)

    asyncio.run(burst())
    assert ctl.position == frames.positions[6] and shown == [frames.positions[6]]


def test_a_step_the_page_asks_for_starts_from_the_pages_last_position() -> None:
    """The page asks the kernel to step (past the frames it has) before the kernel followed its last moves: the
    kernel reaches the page's position first, then steps."""
    dash = Dashboard(failing, horizon="2m")
    ctl = dash.controller
    frames = ctl.frames
    assert frames is not None

    async def page() -> None:
        ctl.player.position = 4
        ctl._on_player_msg(ctl.player, {"cmd": "step"}, [])

    asyncio.run(page())
    assert ctl.position == frames.positions[5]


def test_a_build_of_frames_leaves_the_garbage_collector_as_it_found_it() -> None:
    """The objects there before a build are out of the collector's full passes while it lasts, back afterwards; a
    process that froze objects itself, or turned the collector off, is left as it is."""
    assert gc.isenabled() and gc.get_freeze_count() == 0
    with one_build():
        assert gc.get_freeze_count() > 0  # the test's own objects among them
    assert gc.get_freeze_count() == 0
    gc.disable()
    try:
        with one_build():
            assert gc.get_freeze_count() == 0
    finally:
        gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with one_build():
            pass
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
