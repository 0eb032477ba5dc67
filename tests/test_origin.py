"""The run starts at event 0 (issue 30): Reset lands before the factory's consumer starts, and the picture there is
the engine's own state of the same Lab with those consumers not started yet."""

from __future__ import annotations

import dataclasses

import pytest
from rmqlab.widgets import Controller, Dashboard, Replay
from rmqlab.widgets.flow_view import flow_view_model
from rmqlab.widgets.origin import origin_snapshot

from rmqlab import EventKind, Lab, Message
from rmqlab.snapshot import LabSnapshot, take_snapshot

pytestmark = pytest.mark.usefixtures("no_running_loop")  # a page move is followed at once, as in a script

VARIANTS = ("concurrently", "orderly", "broadcasting", "two consumers", "two brokers")


def ok(msgs: object, ctx: object) -> None:
    return None


def built(variant: str, *, start: bool) -> Lab:
    """A small lab of each kind; ``start=False``: the same Lab with its consumers added but not started."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    if variant == "two brokers":
        lab.add_broker("broker-b")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg")
    options = {"orderly": True} if variant == "orderly" else {}
    if variant == "broadcasting":
        options["message_model"] = "BROADCASTING"
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=ok, name="c1", start=start, **options)
    if variant in ("two consumers", "two brokers"):
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=ok, name="c2", start=start)
    lab.at("1s", p.send, Message("TopicTest", "x"))
    return lab


def comparable(snap: LabSnapshot) -> LabSnapshot:
    """The snapshot with its timers as (due, kind, owner, queue): the scheduler's tie-break counters differ between
    the two builds (a started consumer armed its timers first), nothing a view draws."""
    timers = sorted((t.due_ms, t.kind.value, t.owner, str(t.queue)) for t in snap.timers)
    return dataclasses.replace(snap, timers=tuple(timers))  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_start_of_the_run_is_the_lab_with_its_consumers_not_started(variant: str) -> None:
    started = built(variant, start=True)
    assert len(started.trace) > 0 and {e.time_ms for e in started.trace} == {0}  # what the build recorded
    origin = origin_snapshot(take_snapshot(started))
    assert origin is not None
    not_started = take_snapshot(built(variant, start=False))
    assert (origin.trace_len, origin.events, origin.now_ms) == (0, (), 0)
    assert comparable(origin) == comparable(not_started)
    assert flow_view_model(origin) == flow_view_model(not_started)  # the main picture, exactly


def test_a_factory_that_does_more_while_building_starts_where_it_left_the_lab() -> None:
    def sends_while_building() -> Lab:
        lab = built("concurrently", start=True)
        lab.run(until="2s")
        return lab

    replay = Replay(sends_while_building)
    assert replay.origin is None
    assert replay.start == replay.position == len(replay.lab.trace) > 0
    assert replay.lab.now == 2000


@pytest.mark.parametrize("variant", VARIANTS)
def test_reset_lands_on_event_0_and_the_first_step_is_the_build(variant: str) -> None:
    c = Controller(lambda: built(variant, start=True), horizon="5s")
    build_events = len(built(variant, start=True).trace)
    assert c.frames is not None and (c.frames.positions[0], c.frames.now_ms[0]) == (0, 0)
    assert (c.position, c.snapshot.trace_len, c.snapshot.events) == (0, 0, ())
    assert c.clock_text == f"t = 0 ms · event 0 / {c.end}"
    # nothing has happened yet: the caption says what the picture shows and what the run will do (issue 30)
    brokers = len(c.snapshot.brokers)
    assert c.caption_lines == c.frames.captions[0] and c.caption_lines[0].startswith(f"{brokers} broker")
    assert not any(consumer.running for consumer in c.snapshot.consumers)
    assert c.step_once()
    assert (c.position, c.snapshot.now_ms) == (build_events, 0)
    assert all(consumer.running and consumer.assigned for consumer in c.snapshot.consumers)
    assert c.caption_lines[0].startswith("c1 starts and joins the group cg.")
    c.seek(c.end or 0)
    assert c.reset() == 0 and c.clock_text == f"t = 0 ms · event 0 / {c.end}"
    assert c.step_back() == 0  # nothing before the start
    assert c.jump_to_next(EventKind.REBALANCED) and c.position == build_events


def test_the_dashboard_opens_on_event_0_and_the_page_resets_there() -> None:
    dash = Dashboard(lambda: built("two consumers", start=True), horizon="5s")
    player = dash.controller.player
    assert player.data["positions"][0] == 0 and player.data["clocks"][0].startswith("t = 0 ms · event 0 / ")
    dash.controller.seek(dash.controller.end or 0)
    player.position = 0  # the page's Reset: the kernel follows to the start, before the consumers start
    assert (dash.controller.position, dash.controller.snapshot.trace_len) == (0, 0)


def set_up_while_building() -> Lab:
    """Lab 04's last picture and 02b's first, in small: a broker fault and an admin command recorded while building."""
    lab = built("concurrently", start=True)
    lab.set_broker_fault("broker-a", reject_send_back=True)
    lab.update_subscription_group("cg", retry_queue_nums=0)
    return lab


def test_a_broker_set_up_while_building_is_part_of_the_build_and_reset_lands_on_event_0() -> None:
    build = set_up_while_building().trace
    assert {e.kind for e in build} >= {EventKind.FAULT, EventKind.ADMIN}
    c = Controller(set_up_while_building, horizon="5s")
    assert c.frames is not None and c.frames.positions[0] == 0
    assert c.clock_text == f"t = 0 ms · event 0 / {c.end}"
    healthy = dict(take_snapshot(built("concurrently", start=False)).brokers[0].faults)
    assert dict(c.snapshot.brokers[0].faults) == healthy  # the fault is not set yet: the first step sets it
    assert c.step_once() and c.position == len(build)
    assert dict(c.snapshot.brokers[0].faults)["reject_send_back"] is True
    c.seek(c.end or 0)
    assert c.reset() == 0 and c.clock_text == f"t = 0 ms · event 0 / {c.end}"


def test_a_broker_set_up_without_consumers_starts_at_event_0_too() -> None:
    def faulty_cluster() -> Lab:
        lab = Lab(seed=7)
        lab.add_broker("broker-a")
        lab.add_broker("broker-b")
        lab.create_topic("TopicTest")
        p = lab.add_producer("pg")
        lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT")
        lab.at("1s", p.send, Message("TopicTest", "x"))
        return lab

    replay = Replay(faulty_cluster)
    assert replay.origin is not None and replay.position == 0
    faults = {b.name: dict(b.faults) for b in replay.origin.brokers}
    assert faults["broker-a"] == faults["broker-b"] != {}
