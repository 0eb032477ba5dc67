"""A producer shows when it gives up on a send in flight (lab 01b's shared-timeout question asked "when" with no clock
on screen, revC defect 1): sendDefaultImpl's beginTimestampFirst + sendMsgTimeout, the request's wait; a paused
"when" checkpoint hides its time as the consumers' clocks."""

from __future__ import annotations

from rmqlab.widgets.checkpoint_mask import mask_model, when_mask
from rmqlab.widgets.flow_view import flow_scene, flow_view_model

from rmqlab import Lab, Message


def slow_broker_a(until: str) -> Lab:
    """Lab 01b's picture: broker-a answers 4 s late; pg sends M0001 SYNC at 1 s (to broker-a, queue 1)."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    producer = lab.add_producer("pg", send_which_queue_start=0)
    lab.set_broker_fault("broker-a", response_delay_ms=4000)
    lab.at("1s", producer.send, Message("TopicTest", "m1"))
    return lab.run(until=until)


def _budget(vm: object) -> list[tuple[str, str]]:
    scene = flow_scene(vm)  # type: ignore[arg-type]
    return [(m.text or "", m.title or "") for m in scene.marks if m.key.startswith("send-budget:pg:")]


def test_the_producer_shows_when_it_gives_up_while_its_send_waits() -> None:
    before, waiting, after = (flow_view_model(slow_broker_a(t).snapshot()) for t in ("500ms", "1500ms", "5s"))
    said = _budget(waiting)
    assert [text for text, _tip in said] == ["send waiting;", "gives up at", "t = 4.001 s"]
    tip = said[0][1]
    assert tip.startswith("sendDefaultImpl: every attempt of this send shares one sendMsgTimeout") and "3000 ms" in tip
    assert _budget(before) == [] and _budget(after) == []


def test_a_when_pause_hides_the_time_of_the_send_budget() -> None:
    vm = flow_view_model(slow_broker_a("1500ms").snapshot())
    masked = mask_model(vm, when_mask(answer_ms=4001, now_ms=1500))
    assert [text for text, _tip in _budget(masked)] == ["send waiting;", "gives up at", "t = (hidden)"]
    assert "4.001" not in flow_scene(masked).to_svg()


def test_the_space_time_view_says_what_the_injected_fault_does() -> None:
    """The view labelled the response delay "fault broker_fault" (its raw id): it says what the fault does."""
    from rmqlab.widgets.spacetime_view import ArrowKind, spacetime_view_model

    lab = slow_broker_a("2s")
    rows = [r for r in spacetime_view_model(lab.snapshot()).rows if r.kind is ArrowKind.FAULT]
    assert [r.label for r in rows] == ["⚠ answers every request 4 s late"]
    assert rows[0].detail.startswith("broker-a starts to misbehave: it answers every request 4 s late.")
