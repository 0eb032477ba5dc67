"""The message-flow picture fits a notebook's output area (868 px in JupyterLab's default layout with the file
browser open) without a sideways scroll, and without text below 11 px: lab 00's run (two brokers × 4 queues, two
consumers with ten ProcessQueues each) is drawn at every step."""

from __future__ import annotations

import re
from typing import Any

import pytest
from rmqlab.widgets.demo import demo_lab
from rmqlab.widgets.flow_layout import FLOW_CSS, flow_scene
from rmqlab.widgets.flow_view import flow_view_model
from rmqlab.widgets.frames import build_run
from rmqlab.widgets.scene import text_width

import rmqlab
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message

OUTPUT_AREA_PX = 868
"""JupyterLab 4.6's notebook output area at its default layout, file browser open, in a 1300 px wide window
(measured in headless Chromium: lab 00's picture at 982 px scrolled 114 px sideways)."""
SMALLEST_TEXT_PX = 11


def tour_lab() -> Lab:
    """Lab 00's picture: c1, c2 joining at 2 s and leaving at 45 s, one message every 10 s to 8 queues."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")

    def ok(msgs: list[Any], ctx: Any) -> ConsumeConcurrentlyStatus:
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=ok, name="c1")
    for k, second in enumerate(range(1, 60, 10)):
        lab.at(f"{second}s", producer.send, Message("TopicTest", f"m{k}"))
    lab.at("2s", lambda: lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=ok, name="c2"))
    lab.at("45s", lambda: lab.consumers["c2"].shutdown())
    return lab


def test_the_widest_lab_picture_fits_the_output_area() -> None:
    run = build_run(tour_lab, horizon="60s")
    scenes = [flow_scene(flow_view_model(snap)) for snap in run.snapshots]
    widths = [s.width for s in scenes]
    assert max(widths) <= OUTPUT_AREA_PX, widths
    pq_labels = [m for s in scenes for m in s.marks if m.kind == "text" and m.key.startswith("label:pq:")]
    assert pq_labels and all(" · " not in (m.text or "") for m in pq_labels)  # the broker is on a line of its own
    assert any(m.key.startswith("broker:pq:") and m.text == "broker-b" for s in scenes for m in s.marks)


def test_no_text_below_eleven_pixels() -> None:
    sizes = [int(px) for px in re.findall(r"font-size:\s*(\d+)px", FLOW_CSS)]
    assert sizes and min(sizes) >= SMALLEST_TEXT_PX


def _text_boxes(scene: Any) -> list[tuple[str, float, float, float, float]]:
    """(key, left, top, right, bottom) of every text mark, from the same width estimate the layout uses."""
    boxes = []
    for m in scene.marks:
        if m.kind != "text" or not m.text:
            continue
        small = "rq-small" in (m.cls or "") or (m.key.startswith("legend") and "rq-muted" in (m.cls or ""))
        px = 11.0 if small else 12.0
        w = text_width(m.text, px, bold="rq-title" in (m.cls or ""))
        left = m.x - (w / 2 if m.anchor == "middle" else w if m.anchor == "end" else 0)
        boxes.append((m.key, left, m.y - 0.8 * px, left + w, m.y + 0.2 * px))
    return boxes


def _overlaps(scene: Any, gap: float = 3.0) -> list[tuple[str, str]]:
    """Pairs of texts closer than ``gap`` px (by the estimate): touching counts."""
    boxes = [(k, left - gap / 2, top, right + gap / 2, bottom) for k, left, top, right, bottom in _text_boxes(scene)]
    return [(a[0], b[0]) for i, a in enumerate(boxes) for b in boxes[i + 1 :]
            if a[1] <= b[3] and b[1] <= a[3] and a[2] < b[4] and b[2] < a[4]]  # fmt: skip


def failing_lab() -> Lab:
    """One consumer whose listener fails everything: delay levels, %RETRY%, the ack arrow and the outcome trays."""
    return demo_lab(listener="fail_first", max_reconsume_times=2)


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("make_lab", [tour_lab, failing_lab], ids=["tour", "failing"])
def test_no_label_overlaps_another_in_either_language(language: str, make_lab: Any) -> None:
    """Every text of the picture (lane names, slot labels, the "ack" label beside the "outcome" heading, notes) has
    room of its own at every step, in English and in Chinese (where a 汉字 is about two Latin letters wide), and the
    Chinese picture still fits the output area."""
    rmqlab.set_language(language)
    try:
        run = build_run(make_lab, horizon="60s")
        scenes = [flow_scene(flow_view_model(snap)) for snap in run.snapshots]
    finally:
        rmqlab.set_language(None)
    assert [o for s in scenes for o in _overlaps(s)] == []
    assert max(s.width for s in scenes) <= OUTPUT_AREA_PX


def _circles(scene: Any) -> list[tuple[str, float, float, float]]:
    """(key, x, y, outer radius) of every token, focus ring and badge circle (a ring's stroke counted)."""
    out = []
    for m in scene.marks:
        if m.kind in ("token", "circle") and m.r:
            out.append((m.key, m.x, m.y, m.r + (1.5 if m.key.startswith("focus:") else 0.5)))
    return out


def _covers(circle: tuple[str, float, float, float], box: tuple[str, float, float, float, float]) -> bool:
    """Whether the circle reaches into the text's box (the box's nearest point is inside it)."""
    _key, cx, cy, r = circle
    _k, left, top, right, bottom = box
    nx, ny = min(max(cx, left), right), min(max(cy, top), bottom)
    return (nx - cx) ** 2 + (ny - cy) ** 2 < r * r


def test_no_token_or_its_focus_ring_covers_a_due_label() -> None:
    """A delayed token's "due in …" sits beside it, clear of its ring and badge (revA 17: 02b's "due in 25 s")."""
    run = build_run(failing_lab, horizon="60s")
    scenes = [flow_scene(flow_view_model(snap)) for snap in run.snapshots]
    checked = hit = 0
    for scene in scenes:
        circles = _circles(scene)
        for box in _text_boxes(scene):
            if not box[0].startswith("due:"):
                continue
            checked += 1
            hit += any(c[0].startswith("focus:") for c in circles)
            assert [c[0] for c in circles if _covers(c, box)] == [], (box, scene.label)
    assert checked and hit  # due labels were drawn, some beside a token that wore the focus ring
