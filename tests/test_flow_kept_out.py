"""A broker a producer keeps out of its queue choice shows it under its name (revA item 4: lab 01b's latency
picture had no mark of broker-a sidelined until 31.6 s): the engine's fault item, its clock, hidden at a "when"."""

from __future__ import annotations

import re

import pytest
from rmqlab.widgets.checkpoint_mask import mask_model, when_mask
from rmqlab.widgets.flow_layout import flow_scene
from rmqlab.widgets.flow_view import flow_view_model

import rmqlab
from rmqlab import Lab, Message, format_duration
from tests.test_flow_fits import OUTPUT_AREA_PX, _overlaps


def slow_then_fast(enable: bool = True) -> Lab:
    """Lab 01b's latency picture: broker-a answers after 600 ms until 2 s; pg sends at 1 s and 5 s."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    p = lab.add_producer("pg", send_which_queue_start=0, send_latency_fault_enable=enable)
    lab.set_broker_fault("broker-a", response_delay_ms=600)
    lab.at("2s", lab.set_broker_fault, "broker-a", response_delay_ms=0)
    for t in ("1s", "5s"):
        lab.at(t, p.send, Message("TopicTest", f"sent at {t}"))
    return lab


def test_the_snapshot_lists_the_broker_kept_out_until_its_fault_item_is_available() -> None:
    lab = slow_then_fast()
    until = lab.run(until="2s").trace.first("send_result", msg_id="M0001").get("not_available_until")
    assert until == 1000 + 600 + 30_000  # latency 600 ms ≥ latencyMax[2] = 550 → notAvailableDuration 30 s
    item = lab.snapshot().kept_out
    assert [(k.producer, k.broker, k.latency_ms, k.until_ms) for k in item] == [("pg", "broker-a", 600, until)]
    lab.run(until=until - 1)
    assert lab.snapshot().kept_out
    lab.run(until=until)
    assert lab.snapshot().kept_out == ()  # isAvailable: now - startTimestamp >= 0
    off = slow_then_fast(enable=False).run(until="2s")
    assert off.snapshot().kept_out == ()  # the strategy is off by default: no fault table


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_broker_box_shows_the_clock_and_a_when_pause_hides_its_time(language: str) -> None:
    rmqlab.set_language(language)
    try:
        vm = flow_view_model(slow_then_fast().run(until="5s").snapshot())
        scene = flow_scene(vm)
        masked = flow_scene(mask_model(vm, when_mask(answer_ms=31_600, now_ms=5000)))
    finally:
        rmqlab.set_language(None)
    marks = [m for m in scene.marks if m.key.startswith("kept-out:broker-a:")]
    said = " ".join(m.text or "" for m in marks)
    assert len(marks) == 2 and "31.600 s" in (marks[1].text or "") and "pg" in (marks[0].text or ""), said
    assert "MQFaultStrategy" in (marks[0].title or "")
    assert not any(m.key.startswith("kept-out:broker-b") for m in scene.marks)
    assert _overlaps(scene) == [] and scene.width <= OUTPUT_AREA_PX
    hidden = next(m for m in masked.marks if m.key == "kept-out:broker-a:1")
    assert "31.6" not in (hidden.text or "") and ("t = (hidden)" in (hidden.text or "")
                                                  or "t = （待答）" in (hidden.text or ""))


def _kept_out_texts(dash: object, frames: object, i: int) -> list[str]:
    """What the flow picture and the Events tab say at frame ``i`` of pg's choice: the kept-out clock's words and time,
    and every Events row's ``not_available_until=`` field."""
    from rmqlab.widgets.event_log import EventLog
    from rmqlab.widgets.event_table import event_frames
    from rmqlab.widgets.flow_view import FlowView
    from rmqlab.widgets.frames import decode

    flow = next(v for v in dash.views if isinstance(v, FlowView))  # type: ignore[attr-defined]
    said = [f"{b}: {k.words} {k.time}" for b, k, _tip in frames.models(flow)[i].kept_out]  # type: ignore[attr-defined]
    events = next(v for v in dash.views if isinstance(v, EventLog))  # type: ignore[attr-defined]
    for r in decode(event_frames(frames, events.models), i)["marks"]:  # type: ignore[arg-type, attr-defined]
        said += [f"row {r['seq']}: {m}" for m in re.findall(r"not_available_until=\S+", r["details"])]
    return said


def test_lab01b_where_question_hides_until_when_broker_a_is_kept_out() -> None:
    """Lab 01b asks where the 5 s send goes; broker-a's box read "until t = 31.600 s" under the question (revE
    defect 2), which says broker-b. Up to the pause the clock reads "(hidden)" (its "out of pg's choice" stays), one
    step past the answer it tells the time again; without the mask the paused frame would say it."""
    import dataclasses

    from rmqlab.widgets.masked_words import hidden_short
    from test_lab_pictures import LABS, _dashboards_of

    dash = next(d for d in _dashboards_of(LABS / "01b_send_status_timeout.py")
                if any(c.hidden for c in d.controller.checkpoints))  # fmt: skip
    cp = next(c for c in dash.controller.checkpoints if c.hidden)
    frames = dash.controller.frames
    until = format_duration(1000 + 600 + 30_000)
    paused = _kept_out_texts(dash, frames, cp.frame)
    assert paused[0] == f"broker-a: out of pg's choice\nuntil t = {{time}} {hidden_short()}"
    assert [t.split(": ", 1)[1] for t in paused[1:]] == [f"not_available_until={hidden_short()}"]
    leaks = [(i, t) for i in range(cp.frame + 1) for t in _kept_out_texts(dash, frames, i) if until in t]
    assert leaks == []
    bare = dataclasses.replace(frames, masks={}, _models={}, _scenes={})
    assert any(until in t for t in _kept_out_texts(dash, bare, cp.frame))
    after = _kept_out_texts(dash, frames, cp.frame + 1)
    assert any(until in t for t in after)
