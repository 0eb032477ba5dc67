"""The Locks tab shows only where a lock can be taken: in a run with an orderly consumer (only
ConsumeMessageOrderlyService locks queues at the broker). Labs with concurrent consumers only showed an empty tab."""

from __future__ import annotations

import re

from rmqlab.widgets import Dashboard, demo_lab

from rmqlab import ConsumeOrderlyStatus, Lab, Message, format_duration


def orderly_lab() -> Lab:
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer(
        "cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: ConsumeOrderlyStatus.SUCCESS, orderly=True, name="c1"
    )
    lab.at("1s", p.send, Message("TopicTest", "a"))
    return lab


def _tabs(dash: Dashboard) -> list[str]:
    return [label for label, _ in dash.tabs.buttons.options]


def test_no_locks_tab_without_an_orderly_consumer() -> None:
    dash = Dashboard(demo_lab, horizon="30s")
    assert "Locks" not in _tabs(dash) and "Locks" not in [v.title for v in dash.views]
    assert _tabs(dash) == ["ProcessQueues", "Space-time", "Retry timeline", "Topology", "Events"]


def producers_only_lab() -> Lab:
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg")
    lab.at("1s", p.send, Message("TopicTest", "a"))
    return lab


def test_no_process_queues_or_retry_timeline_tab_in_a_run_with_no_consumer() -> None:
    """ProcessQueues and deliveries are a consumer's: a run of producers only (lab 01a's, 06's pictures) showed a tab
    reading "(no ProcessQueues)" and an empty retry timeline; a run with a consumer keeps both."""
    assert _tabs(Dashboard(producers_only_lab, horizon="10s")) == ["Space-time", "Topology", "Events"]
    assert {"ProcessQueues", "Retry timeline"} <= set(_tabs(Dashboard(orderly_lab, horizon="10s")))


def test_a_locks_tab_with_an_orderly_consumer_run_ahead_or_not() -> None:
    assert "Locks" in _tabs(Dashboard(orderly_lab, horizon="30s"))
    assert "Locks" in _tabs(Dashboard(orderly_lab, horizon="30s", run_ahead=False))


def test_the_locks_axis_ends_where_the_run_ends_and_a_longer_lease_is_cut_at_the_edge() -> None:
    """A 6.5 s run (lab 06's tiny run): every frame's axis ends at the run's last clock, not at the 60 s lease
    rounded up; the lease lasting past it is drawn to the edge, with an arrowhead right of it whose tooltip says when
    it ends, explained in the legend."""
    dash = Dashboard(orderly_lab, horizon="6500ms")
    view = next(v for v in dash.views if v.title == "Locks")
    frames = dash.controller.frames
    assert frames is not None
    end = frames.snapshots[-1].now_ms
    assert 0 < end <= 6_500
    models = frames.models(view)
    assert {vm.t_end_ms for vm in models} == {end}
    last = models[-1]
    (lease,) = [lane for lane in last.bands[0].lanes if lane.kind == "lease"]
    assert lease.spans[-1].end_ms > end  # the broker entry lives on 60 s after its last renewal
    scene = view.scene(last)
    ends = {m.key: m for m in scene.marks}
    axis = ends["axis"]
    right = axis.x2
    for m in scene.marks:
        if m.kind == "rect" and (m.role or "").startswith("lease-"):
            assert m.x + m.w <= right + 0.01, m.key  # nothing drawn past the axis
    beyond = [m for m in scene.marks if m.role == "lease-beyond"]
    tip = f"broker lease (60 s): c1 until {format_duration(lease.spans[-1].end_ms)}, after the run's end"
    assert tip in [m.title for m in beyond]
    for m in beyond:  # the arrowhead starts past the edge and is at most 7 px wide
        xs = [float(v) for v in re.findall(r"M([\d.]+),", m.d)]
        assert xs and all(right < x <= right + 2 for x in xs), m.d
    assert "lasts past the run's end (its end in the tooltip)" in [m.text for m in scene.marks if m.role == "legend"]
    assert max(t for t in (int(k.split(":")[-1]) for k in ends if k.startswith("axis:label:"))) <= end


def test_a_dashboard_opens_on_the_tab_it_names_and_an_unknown_tab_is_refused() -> None:
    """Lab 00's cluster section is about the Topology view: its picture opens there."""
    dash = Dashboard(producers_only_lab, horizon="10s", tab="Topology")
    assert dash.tabs.get_title(dash.tabs.selected_index) == "Topology"
    assert Dashboard(producers_only_lab, horizon="10s").tabs.selected_index == 0
    try:
        Dashboard(producers_only_lab, horizon="10s", tab="Locks")
    except ValueError as error:
        assert str(error) == (
            "tab='Locks' is not a tab of this dashboard; expected one of ['Space-time', 'Topology', 'Events']"
        )
    else:
        raise AssertionError("an unknown tab was accepted")
