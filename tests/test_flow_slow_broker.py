"""A broker told to answer late says so under its name in the flow picture (lab 06's slow-broker question spoke of
"answers 5 s late" while the picture drew nothing of it, revD defect 8); a paused "when" checkpoint keeps it."""

from __future__ import annotations

from rmqlab.widgets.flow_clocks import hide_clock_times
from rmqlab.widgets.flow_view import flow_scene, flow_view_model

from rmqlab import Lab


def slow_lab(until: str) -> Lab:
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    lab.at("1s", lab.set_broker_fault, "broker-a", response_delay_ms="5s")
    lab.at("3s", lab.set_broker_fault, "broker-a", response_delay_ms=0)
    return lab.run(until=until)


def _lines(scene_marks: tuple, broker: str) -> list[str]:  # type: ignore[type-arg]
    return [m.text for m in scene_marks if m.key.startswith(f"kept-out:{broker}:")]


def test_a_slow_broker_is_marked_while_its_fault_lasts() -> None:
    before, during, after = (flow_scene(flow_view_model(slow_lab(t).snapshot())) for t in ("500ms", "2s", "4s"))
    assert _lines(during.marks, "broker-a") == ["answers 5 s late"]
    assert _lines(during.marks, "broker-b") == []
    assert _lines(before.marks, "broker-a") == [] and _lines(after.marks, "broker-a") == []
    hidden = flow_scene(hide_clock_times(flow_view_model(slow_lab("2s").snapshot())))
    assert _lines(hidden.marks, "broker-a") == ["answers 5 s late"]
