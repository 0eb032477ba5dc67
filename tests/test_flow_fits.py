"""The message-flow picture fits a notebook's output area (868 px in JupyterLab's default layout with the file
browser open) without a sideways scroll, and without text below 11 px: lab 00's run (two brokers × 4 queues, two
consumers with ten ProcessQueues each) is drawn at every step."""

from __future__ import annotations

import re
from typing import Any

from rmqlab.widgets.flow_layout import FLOW_CSS, flow_scene
from rmqlab.widgets.flow_view import flow_view_model
from rmqlab.widgets.frames import build_run

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
