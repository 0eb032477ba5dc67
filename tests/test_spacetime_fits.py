"""Every lane of the space-time diagram fits the notebook's output area (868 px in JupyterLab with the file browser
open): lab 08's c2 ran off the right edge, and a broker's empty "schedule" lane took width no event used."""

from __future__ import annotations

from typing import Any

import pytest
from rmqlab.widgets.frames import build_run
from rmqlab.widgets.spacetime_rows import spacetime_view_model
from rmqlab.widgets.spacetime_scene import spacetime_scene

from rmqlab import Lab, Message
from tests.listeners import fails_once
from tests.test_flow_fits import OUTPUT_AREA_PX, tour_lab


def two_consumers_lab(model: str) -> Lab:
    """Lab 08's picture: c1 and c2 of cg in ``model``, three messages that fail once."""

    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg")
    for name in ("c1", "c2"):
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=fails_once, name=name, message_model=model)
    for k in range(3):
        lab.at(f"{1 + 2 * k}s", p.send, Message("TopicTest", f"config {k}"))
    return lab


def _scenes(make: Any) -> list[tuple[Any, Any]]:
    run = build_run(make, horizon="60s")
    return [(vm, spacetime_scene(vm)) for vm in (spacetime_view_model(snap) for snap in run.snapshots)]


@pytest.mark.parametrize(
    "make",
    [lambda: two_consumers_lab("BROADCASTING"), lambda: two_consumers_lab("CLUSTERING"), tour_lab],
    ids=["08-broadcasting", "08-clustering", "00-tour"],
)
def test_every_lane_fits_the_output_area(make: Any) -> None:
    for vm, scene in _scenes(make):
        assert scene.width <= OUTPUT_AREA_PX, [lane.id for lane in vm.lanes]
        titles = [m for m in scene.marks if m.role == "lane"]
        assert len(titles) == len(vm.lanes)
        assert all(m.x + 40 <= scene.width for m in titles)


def test_a_schedule_lane_only_once_the_schedule_service_has_something_to_draw() -> None:
    broadcasting = _scenes(lambda: two_consumers_lab("BROADCASTING"))
    assert all(lane.kind != "schedule" for vm, _ in broadcasting for lane in vm.lanes)  # nothing is ever sent back
    clustering = [vm for vm, _ in _scenes(lambda: two_consumers_lab("CLUSTERING"))]
    assert "schedule:broker-a" not in [lane.id for lane in clustering[0].lanes]
    last = [lane.id for lane in clustering[-1].lanes]
    assert last == ["producer:pg", "schedule:broker-a", "broker:broker-a", "consumer:c1", "consumer:c2"]
