"""Controller and replay: method twins of every button, determinism of positions, broken factories."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import ipywidgets as W
import pytest
from rmqlab.widgets import DEMO_KNOB_OPTIONS, DEMO_KNOBS, Controller, Dashboard, Replay, ReplayError, demo_lab
from rmqlab.widgets.controller import JUMP_KINDS
from rmqlab.widgets.event_log import EventLog
from rmqlab.widgets.offset_strip import OffsetStripView
from rmqlab.widgets.replay import InjectedFault

from rmqlab import EventKind, Lab

DEMO_STOPS_START = (0, 3, 7, 12, 13, 17, 20, 21, 25, 28, 29, 30, 33, 38, 39)
"""0: the start of the run, before c1's start (3 events recorded while demo_lab builds the Lab)."""


def test_positions_are_trace_lengths_after_growing_steps():
    """Reachable positions of demo_lab are 0 (the true start), 3 (the build: c1 starts), 7, 12, … and the run ends at
    175 events, 6 h."""
    replay = Replay(demo_lab)
    replay.seek(39)
    assert replay.stops == DEMO_STOPS_START
    assert replay.run_to_end() == 175
    assert replay.at_end
    assert (replay.lab.trace.last().time_ms, replay.lab.now, replay.lab.scheduler.peek()) == (
        17_141_000,
        21_600_000,
        21_600_010,
    )


def test_seek_lands_on_first_reachable_position_at_or_after_k():
    """seek(8) lands on 12 because one step appends events 8..12."""
    replay = Replay(demo_lab)
    assert replay.seek(8) == 12
    assert replay.lab.now == 1000


def test_every_position_reached_twice_is_identical():
    """Forward stepping and rebuild-and-replay reach exactly equal snapshots at every stop."""
    forward = Replay(demo_lab)
    seen = {forward.position: forward.snapshot()}
    while forward.step_once():
        seen[forward.position] = forward.snapshot()
    assert len(seen) == len(forward.stops)
    other = Replay(demo_lab)
    for k in sorted(seen, reverse=True)[::7]:
        other.seek(k)
        assert other.snapshot() == seen[k], k


def test_step_back_rebuilds_and_replays():
    """step_back from 20 goes to 17 with a fresh Lab (builds counts factory calls)."""
    replay = Replay(demo_lab)
    replay.seek(20)
    assert replay.builds == 1
    assert replay.step_back() == 17
    assert replay.builds == 2
    assert replay.step_back() == 13
    replay.seek(3)
    assert replay.step_back() == 0
    assert replay.step_back() == 0  # stays at the start


def test_controller_method_twins():
    """step_once / step_back / play / jump_to_next / reset / seek and the clock readout (meaningful steps)."""
    c = Controller(demo_lab)
    assert (c.position, c.end) == (0, 175)
    assert c.step_once() and c.position == 3  # the build: c1 starts and takes its queues
    assert c.step_once() and c.position == 7
    assert c.play(3) == 20  # 12, 17, 20: stop 13 (an offset persist only) is skipped
    assert c.step_back() == 17
    assert c.jump_to_next("dead_lettered")
    assert c.position == 174
    assert c.snapshot.now_ms == 17_141_000
    assert c.clock_text == "t = 4 h 45 m 41 s (17141000 ms) · event 174 / 175"
    assert not c.jump_to_next("dead_lettered")
    assert c.position == 174 and "no further dead_lettered" in c.message.value  # known ahead: the place is kept
    assert c.reset() == 0
    assert c.clock_text == "t = 0 ms · event 0 / 175"
    assert c.seek(25) == 25 and c.scrubber.value == 25
    assert (c.scrubber.min, c.scrubber.max) == (0, 175)


def test_buttons_and_widgets_drive_the_same_methods():
    """Clicking buttons, moving the scrubber and ticking the Play widget move the position."""
    c = Controller(demo_lab)
    c.step_button.click()
    assert c.position == 3
    c.step_button.click()
    assert c.position == 7
    c.back_button.click()
    assert c.position == 3
    c.scrubber.value = 30
    assert c.position == 30
    c.play_widget.value += 1
    assert c.position == 33
    c.kind_choice.value = "delay_delivered"
    c.jump_button.click()
    assert c.position == 42
    assert [e.kind.value for e in c.snapshot.events[39:42]] == ["delay_delivered", "stored", "pulled"]
    c.reset_button.click()
    assert c.position == 0
    c.speed.value = 20
    assert c.play_widget.interval == 50
    assert c.errors == []


def test_the_jump_box_offers_only_what_is_still_to_come():
    """Run ahead, the Jump box lists the kinds still to come, in plain words, with their counts and keeps the
    student's choice (the trace's own kind names, ``consume_request (2)``, read as jargon)."""
    c = Controller(demo_lab)
    offered = dict((value, label) for label, value in c.kind_choice.options)
    assert offered == {
        "dead_lettered": "a dead letter (%DLQ%) (1)",
        "send_back": "a message sent back (17)",
        "delivered": "a listener starts (19)",
        "consumed": "a listener returns (19)",
        "scheduled": "a message parked in a delay level (16)",
        "delay_delivered": "a delay over (back to %RETRY%) (16)",
        "rebalanced": "a rebalance (2)",  # from event 0, c1's first rebalances are still to come
    }
    c.kind_choice.value = "send_back"
    assert c.jump_to_next("send_back")
    assert c.kind_choice.value == "send_back"
    assert ("a message sent back (16)", "send_back") in c.kind_choice.options
    c.seek(c.end or 0)
    assert c.kind_choice.options == (("nothing ahead", ""),)
    assert c.kind_choice.disabled and c.jump_button.disabled
    c.reset()
    assert not c.jump_button.disabled and ("a dead letter (%DLQ%) (1)", "dead_lettered") in c.kind_choice.options


def test_without_run_ahead_the_jump_box_offers_every_kind():
    """Not run ahead, the future is unknown: every kind is offered, and a jump to a missing one runs to the end."""
    c = Controller(demo_lab, run_ahead=False)
    assert [value for _, value in c.kind_choice.options] == list(JUMP_KINDS)
    assert not c.jump_to_next("lock_expired")
    assert c.replay is not None and c.replay.at_end


def test_views_receive_every_position():
    """Attached views are updated on each move and match the controller's snapshot."""
    view = OffsetStripView(include_empty=False)
    c = Controller(demo_lab, views=[view], run_ahead=False)
    assert c.end is None
    c.seek(12)
    assert view.snapshot is c.snapshot
    assert view.text.splitlines()[0].startswith("c1 TopicTest@broker-a:0 0:R")


def test_broken_factory_shows_an_error_and_disables_controls():
    """A factory that raises never escapes: the controller shows it and does nothing on clicks."""

    def broken() -> Lab:
        raise RuntimeError("no broker configured")

    c = Controller(broken)
    assert not c.ok
    assert "RuntimeError: no broker configured" in c.message.value
    assert c.step_button.disabled and c.scrubber.disabled
    assert c.step_once() is False and c.position == 0
    c.step_button.click()
    assert c.errors == []
    assert c.load(demo_lab) and c.position == 0 and c.message.value == ""


def test_factory_must_return_a_traced_lab():
    """Wrong return types and trace=False are refused with a clear message."""
    with pytest.raises(ReplayError, match="returned int"):
        Replay(lambda: 3)
    with pytest.raises(ReplayError, match="trace=False"):
        Replay(lambda: Lab(trace=False))


def test_view_exception_goes_to_its_debug_output():
    """A view whose model raises records the error in its Output; the controller keeps going."""

    class Broken(EventLog):
        def model(self, snap):
            raise ValueError("bad model")

    view = Broken()
    c = Controller(demo_lab, views=[view], run_ahead=False)
    c.step_once()
    assert c.position == 3
    assert len(view.errors) == 2 and "ValueError: bad model" in view.errors[0]
    assert view.debug.outputs[0]["name"] == "stderr"


def test_dashboard_knobs_rebuild_the_scenario():
    """listener='succeed' gives a 28-event run; max_reconsume_times=2 dead-letters at 41 000 ms."""
    d = Dashboard(demo_lab, knobs=DEMO_KNOBS, knob_options=DEMO_KNOB_OPTIONS)
    assert d.controller.end == 175
    assert d.rebuild(listener="succeed")
    assert d.knob_values()["listener"] == "succeed"
    assert d.controller.end == 28
    assert d.controller.position == 0
    assert d.rebuild(max_reconsume_times=2, listener="fail_first")
    assert d.controller.jump_to_next("dead_lettered")
    assert (d.controller.position, d.controller.snapshot.now_ms) == (48, 41_000)
    dead = [e for e in d.controller.snapshot.events if e.kind.value == "dead_lettered"]
    assert [(e.msg_id, e.data["reconsume_times"]) for e in dead] == [("M0001", 3)]
    with pytest.raises(KeyError, match="listener"):
        d.set_knobs(nope=1)


def _descendants(widget: Any) -> list[Any]:
    out = [widget]
    for child in getattr(widget, "children", ()):
        out.extend(_descendants(child))
    return out


def test_a_dashboard_without_knobs_shows_no_knobs_and_no_rebuild():
    """Knobs and Rebuild are what change the run: a picture with no knob shows neither (stop 30's screenshots showed
    an empty "knobs" box with a Rebuild button under lab 00's and lab 05's pictures); one with knobs shows both."""
    bare = _descendants(Dashboard(demo_lab, run_ahead=False))
    assert not any(isinstance(w, W.Button) and w.description == "Rebuild" for w in bare)
    assert not any(isinstance(w, W.HTML) and w.value == "<b>knobs</b>" for w in bare)
    knobbed = Dashboard(demo_lab, knobs={"listener": "fail_first"}, run_ahead=False)
    shown = _descendants(knobbed)
    assert knobbed.rebuild_button in shown and knobbed.knobs["listener"] in shown
    assert any(isinstance(w, W.HTML) and w.value == "<b>knobs</b>" for w in shown)


def test_dashboard_survives_a_broken_factory():
    """A knob combination that makes the factory raise shows the error; fixing it recovers."""

    def make(*, broken: bool = False) -> Lab:
        if broken:
            raise ValueError("broken on purpose")
        return demo_lab()

    d = Dashboard(make, knobs={"broken": False}, run_ahead=False)
    assert not d.rebuild(broken=True)
    assert "ValueError: broken on purpose" in d.controller.message.value
    d.knobs["broken"].value = False
    d.rebuild_button.click()
    assert d.controller.ok and d.errors == []


def test_rmqlab_never_imports_widgets():
    """Importing the engine loads no widget, plotly or ipywidgets module."""
    code = (
        "import sys, rmqlab; bad = [m for m in sys.modules if m.split('.')[0] in "
        "('widgets', 'ipywidgets', 'plotly', 'networkx')]; print(bad); sys.exit(bool(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dashboard_opens_at_t0_knowing_the_end_and_play_at_the_end_starts_again():
    """Position = start, virtual time 0, end already known; pressing Play at the end rewinds to t = 0."""
    c = Controller(demo_lab)
    assert (c.position, c.snapshot.now_ms, c.end, c.replay.at_end) == (0, 0, 175, False)
    c.seek(175)  # where a lab's "seek to the end" cell leaves it
    assert c.at_end
    c.play_widget.playing = True
    assert (c.position, c.snapshot.now_ms) == (0, 0)
    c.pause()


def test_step_moves_by_meaningful_event_and_every_event_by_raw_position():
    """Meaningful steps skip stops that only persist offsets (13, 21, 29, 30, 39); the toggle steps raw."""
    c = Controller(demo_lab)
    seen = [c.position]
    for _ in range(10):
        c.step_once()
        seen.append(c.position)
    assert seen == [0, 3, 7, 12, 17, 20, 25, 28, 33, 38, 42]
    assert [c.step_back() for _ in range(3)] == [38, 33, 28]
    c.reset()
    c.every_event.value = True
    raw = [c.position]
    for _ in range(10):
        c.step_once()
        raw.append(c.position)
    assert raw == [0, 3, 7, 12, 13, 17, 20, 21, 25, 28, 29]
    assert c.step_back() == 28


def test_caption_names_the_step_and_is_the_same_on_every_route():
    """The caption at position 12 is the send-back's one sentence, the failure and what the broker does with it
    (cause before effect; the delivery, the failure, the store and the schedule hop are counted), in two lines: plain,
    then the source of the send-back with its rule whole; the same however reached."""
    c = Controller(demo_lab)
    c.play(3)
    assert c.position == 12
    assert c.caption_lines == (
        "c1 failed M0001 for the 1st time, so it goes back to the broker: into %RETRY%cg in 10 s. (and 3 more: see the "
        "Events tab)",
        "in the source: ConsumeMessageConcurrentlyService.processConsumeResult: RECONSUME_LATER → "
        "sendMessageBack(M0001, delayLevel 0); SendMessageProcessor.asyncConsumerSendMsgBack uses 3 + reconsumeTimes "
        "0 = level 3, due in 10 s",
    )
    assert 'data-testid="rmq-caption"' in c.caption_html.value and 'aria-live="polite"' in c.caption_html.value
    assert "due in 10 s</div>" in c.caption_html.value
    first = c.caption
    c.seek(175)
    c.seek(12)
    assert c.caption == first
    c.seek(17)
    c.step_back()
    assert (c.position, c.caption) == (12, first)
    c.every_event.value = True  # raw mode adds the bookkeeping sentence of the same step
    plain, source = first.split("\n")
    assert c.caption_lines == (plain.replace("(and 3 more", "(and 4 more"), source)
    c.seek(13)
    assert c.caption_lines[1].startswith("in the source: ConsumerOffsetManager.commitOffset: broker-a now holds")
    assert c.seek_time("10s") == 30 and c.snapshot.now_ms == 10_000  # the first position at or after 10 s
    assert c.seek_time(1005) == 17 and c.snapshot.now_ms == 1010


def _demo_with_fault_at(t: int, *fault: str):
    def make() -> Lab:
        # wrapped, so ordinary work (Priority.NORMAL) as the replay's injection is; a bare lab.at(t, lab.broker_down)
        # is a fault and would act before everything else of its millisecond (the rule in rmqlab.core.scheduler)
        lab = demo_lab()
        if fault[0] == "broker_down":
            lab.at(t, lambda: lab.broker_down(fault[1]))
        else:
            lab.at(t, lambda: lab.consumer(fault[1]).crash())
        return lab

    return make


def test_injected_broker_crash_is_the_run_of_a_factory_that_scheduled_it():
    """Crash broker-a at the current t (11 s): same trace as a factory with lab.at(11 s, broker_down)."""
    c = Controller(demo_lab)
    c.jump_to_next("delay_delivered")
    assert c.snapshot.now_ms == 11_000
    assert c.inject("broker_down", "broker-a")
    assert c.faults == (InjectedFault(11_000, "broker_down", "broker-a"),)
    assert c.snapshot.now_ms == 11_000
    assert c.caption_lines[0] == "broker-a crashes: nobody can reach it now."
    assert c.caption_lines[1].startswith("in the source: Lab.broker_down: broker-a stops")
    # the pulls held at broker-a fail with it, in the same step: each is put off (PULL_DEFERRED, bookkeeping)
    last = [e for e in c.snapshot.events if e.time_ms == 11_000 and e.kind is not EventKind.PULL_DEFERRED][-1]
    assert last.kind is EventKind.FAULT
    after = c.snapshot.events[last.seq :]
    assert after and {(e.kind, e.get("reason"), e.get("delay_ms")) for e in after} == {
        (EventKind.PULL_DEFERRED, "exception", 1000)
    }
    reference = Replay(_demo_with_fault_at(11_000, "broker_down", "broker-a"))
    reference.seek(c.position)
    assert reference.lab.trace.to_jsonl() == c.replay.lab.trace.to_jsonl()
    reference.run_to_end()
    assert c.end == reference.position
    c.replay.run_to_end()
    assert c.replay.lab.trace.to_jsonl() == reference.lab.trace.to_jsonl()
    assert "t = 11 s: crash broker-a" in c.fault_list.value


def test_fault_buttons_inject_and_clear_faults_returns_to_the_factory_run():
    """Crash consumer c1 by its button at 1.010 s; Step back before it shows the run without it; Clear faults."""
    c = Controller(demo_lab)
    c.play(4)
    assert c.snapshot.now_ms == 1010
    assert c.fault_broker.options == ("broker-a",) and c.fault_client.options == ("c1", "pg")
    assert c.clear_faults_button.disabled
    c.fault_client.value = "pg"
    assert c.fault_buttons["consumer_crash"].disabled and not c.fault_buttons["partition"].disabled
    c.fault_client.value = "c1"
    c.fault_buttons["consumer_crash"].click()
    assert c.errors == []
    assert c.faults == (InjectedFault(1010, "consumer_crash", "c1"),)
    assert c.caption_lines[0] == "c1 crashes without saving its progress."
    assert c.caption_lines[1].startswith("in the source: Lab: consumer crash: c1 of cg dies")
    crashed = c.replay.lab.trace.to_jsonl()
    reference = Replay(_demo_with_fault_at(1010, "consumer_crash", "c1"))
    reference.seek(c.position)
    assert reference.lab.trace.to_jsonl() == crashed
    c.seek(3)
    assert c.faults and c.snapshot.now_ms == 0  # stepping back keeps the fault in the scenario
    c.clear_faults_button.click()
    assert c.faults == () and c.snapshot.now_ms == 0 and c.end == 175
    c.jump_to_next("consumed")
    plain = Replay(demo_lab)
    plain.seek(c.position)
    assert plain.lab.trace.to_jsonl() == c.replay.lab.trace.to_jsonl()
    assert "no active faults" in c.fault_list.value and "injected:" not in c.fault_list.value


def test_partition_and_heal_and_bad_fault_input():
    """A partition at 1 s and a heal at the second local retry; bad kinds / targets name the allowed values."""
    c = Controller(demo_lab, horizon="2m")
    c.play(2)  # the build (c1 starts), then the send at 1 s
    assert c.inject("partition", "c1", broker="broker-a")
    assert c.caption_lines == (
        "The network between c1 and broker-a is cut.",
        "in the source: Lab.partition: the link between c1 and broker-a is cut: every request fails with "
        "RemotingConnectException",
    )
    assert c.jump_to_next("local_retry")  # send-back and its fallback fail across the cut link…
    assert c.jump_to_next("local_retry")  # … and again 5000 ms later
    at = c.snapshot.now_ms
    assert c.inject("heal", "c1", broker="broker-a")
    assert [(f.at_ms, f.kind) for f in c.faults] == [(1000, "partition"), (at, "heal")]
    assert at == 6000
    assert c.caption_lines == (
        "The network between c1 and broker-a works again.",
        "in the source: Lab.partition(heal=True): the link between c1 and broker-a works again",
    )
    with pytest.raises(ValueError, match=r"kind='explode' is not a fault; expected one of \['broker_down'"):
        c.inject("explode", "broker-a")
    with pytest.raises(ValueError, match=r"target='broker-z' for broker_down; expected one of \['broker-a'\]"):
        c.inject("broker_down", "broker-z")
    with pytest.raises(ValueError, match=r"target='pg' for consumer_crash; expected one of \['c1'\]"):
        c.inject("consumer_crash", "pg")
    with pytest.raises(ValueError, match=r"broker=None for partition; expected one of \['broker-a'\]"):
        c.inject("partition", "c1")
    assert len(c.faults) == 2


def test_default_views_put_the_message_flow_above_the_tabs():
    """default_views() is the one list: FlowView is the main picture, the rest are tabs, all in dash.views."""
    from rmqlab.widgets.dashboard import default_views
    from rmqlab.widgets.flow_view import FlowView

    views = default_views()
    assert [v.title for v in views] == [
        "Message flow",
        "ProcessQueues",
        "Space-time",
        "Retry timeline",
        "Topology",
        "Locks",
        "Events",
    ]
    assert [v.title for v in views if v.main] == ["Message flow"]
    d = Dashboard(demo_lab, knobs=DEMO_KNOBS, knob_options=DEMO_KNOB_OPTIONS)
    assert isinstance(d.main_view, FlowView) and d.main_view in d.views
    controller, main, tabs, below, debug = d.children
    assert controller is d.controller and main is d.main_view and tabs is d.tabs and debug is d.debug
    # the picture right under the caption and the checkpoint's question, the tabs under it (one screen together);
    # what changes the run (fault buttons, knobs, the "every event" toggle) under the tabs
    assert d.controller.fault_box not in d.controller.children and below.children[0] is d.controller.fault_box
    assert d.rebuild_button in below.children[1].children
    assert below.children[2] is d.controller.every_event_box and d.controller.every_event_box not in controller.children
    assert "rq-dashboard" in d._dom_classes  # the page's player finds a question's tab inside it
    assert [tabs.get_title(i) for i in range(len(tabs.pages))] == [v.title for v in d.views[1:]]
    assert [label for label, _ in tabs.buttons.options] == [v.title for v in d.views[1:]]
    assert "Locks" not in [v.title for v in d.views]  # the demo has no orderly consumer: nothing to lock
    tabs.selected_index = 3  # a click on "Topology"
    assert tabs.get_title(3) == "Topology"
    assert [page.layout.display for page in tabs.pages] == ["none"] * 3 + ["", "none"]  # only Topology is shown
    assert d.view("ProcessQueues") is d.tab_views[0]
    with pytest.raises(KeyError, match="'Nope'; have \\['Message flow'"):
        d.view("Nope")
    assert (d.controller.position, d.controller.snapshot.now_ms) == (0, 0)  # opens at t = 0, event 0
    assert d.main_view.snapshot is d.controller.snapshot  # the main picture follows the controller


def test_scene_views_draw_a_legend_and_the_dashboard_shows_text_legends():
    """Every default scene view's picture carries legend marks; a view's ``legend`` text is shown under it."""
    from rmqlab.widgets.scene import SceneView

    d = Dashboard(demo_lab)
    scenes = [v for v in d.views if isinstance(v, SceneView)]
    assert [v.title for v in scenes] == [
        "Message flow",
        "ProcessQueues",
        "Space-time",
        "Retry timeline",
        "Topology",
    ]  # no Locks: the demo has no orderly consumer
    for v in scenes:
        assert v.current is not None and v.current.keys(role="legend"), v.title

    class Legended(EventLog):
        title = "Queues"
        legend = "S stored · A acked"

    d = Dashboard(demo_lab, views=[Legended(), PlainQueueView()], run_ahead=False)
    assert d.main_view is None and len(d.children) == 4
    boxed, bare = d.tabs.pages
    assert boxed.children[0] is d.views[0]
    note = boxed.children[1].value
    assert 'data-testid="rmq-legend"' in note and 'aria-label="legend of Queues"' in note
    assert "S stored · A acked" in note
    assert bare is d.views[1]


class PlainQueueView(EventLog):
    title = "plain"


def test_every_control_is_labelled_for_keyboard_and_screen_reader_users():
    """Buttons, toggles and choices have a visible description and a tooltip; controls come before pictures."""
    d = Dashboard(demo_lab, knobs={"listener": "fail_first"}, run_ahead=False)
    c = d.controller
    controls = [
        c.reset_button,
        c.back_button,
        c.step_button,
        c.pause_button,
        c.every_event,
        c.jump_button,
        c.kind_choice,
        c.fault_broker,
        c.fault_client,
        c.clear_faults_button,
        *c.fault_buttons.values(),
        d.rebuild_button,
    ]
    for w in controls:
        assert w.description and w.tooltip, w
    assert [b.description for b in c.fault_buttons.values()] == [
        "Crash broker",
        "Restart broker",
        "Crash consumer",
        "Restart consumer",
        "Partition",
        "Heal",
    ]
    order = list(c.children)
    assert order.index(c.buttons) < order.index(c.clock) < order.index(c.caption_html)
    # in a dashboard the picture comes right under the caption (and a checkpoint's question), the faults after it
    assert [type(w).__name__ for w in d.children[:4]] == ["Controller", "FlowView", "ViewTabs", "HBox"]
    assert d.children[3].children[0] is c.fault_box


def test_restart_consumer_button_starts_a_crashed_consumer_again():
    """Crash c1 at 1.010 s, restart it at the next event (11 s) by the registry's consumer_restart: the run is the
    factory's run with both calls scheduled as ordinary work."""
    c = Controller(demo_lab)
    c.play(4)
    c.fault_client.value = "c1"
    c.fault_buttons["consumer_crash"].click()
    c.seek_time("2s")
    assert c.snapshot.now_ms == 11_000  # nothing happens in between: the crashed consumer pulls nothing
    c.fault_buttons["consumer_restart"].click()
    assert c.errors == []
    assert [f.label for f in c.faults] == ["t = 1.010 s: crash consumer c1", "t = 11 s: restart consumer c1"]
    c.seek_time("20s")

    def make() -> Lab:
        lab = demo_lab()
        lab.at(1010, lambda: lab.consumer("c1").crash())
        lab.at(11_000, lambda: lab.consumer("c1").start())
        return lab

    reference = Replay(make)
    reference.seek(c.position)
    assert reference.lab.trace.to_jsonl() == c.replay.lab.trace.to_jsonl()
    assert reference.lab.trace.last(EventKind.LIFECYCLE, actor="consumer:c1", event="start").time_ms == 11_000
