"""Renderers: build each widget headless and check its state (trace data, cell colours, labels)."""

from __future__ import annotations

from rmqlab.widgets import Controller, EventLog, LeaseView, OffsetStripView, TopologyView, demo_lab


def drive(*views, k: int, factory=demo_lab):
    c = Controller(factory, views=list(views), run_ahead=False)
    c.seek(k)
    return c


def test_views_rerender_only_on_change():
    """A step that does not change a view's model leaves its widget untouched."""
    view = LeaseView()
    c = drive(view, k=3)
    c.play(5)
    assert view.renders == 1
    assert view.text == "(no orderly queues)"


def test_topology_view_lights_up_edges():
    """At position 12 two edges are active (drawn with rq-active) among 5 node boxes; the schedule node says 1."""
    view = TopologyView(window=5)
    drive(view, k=12)
    svg = view.static_html()
    assert svg.count('data-role="topology-node"') == 5
    assert svg.count("rq-edge rq-travelled rq-active") == 2
    assert "delay levels · 1 waiting" in svg and 'data-scheduled="1"' in svg


def test_offset_strip_view_draws_a_labelled_svg():
    """Position 7: offset 0 pulled (P) with the committed pointer on it, in an SVG named for screen readers."""
    view = OffsetStripView(include_empty=False)
    drive(view, k=7)
    assert view.text == "c1 TopicTest@broker-a:0 0:P | msg_tree_map=[0] committed=0"
    svg = view.static_html()
    assert 'aria-label="ProcessQueue offset strips"' in svg
    assert svg.count('data-role="strip-cell"') == 1 and svg.count('data-role="strip-pointer"') == 1


def test_lease_view_bands_for_orderly():
    """Two business queues as bands after the first renewal: lease bars and one renewal tick each."""
    view = LeaseView()
    c = Controller(lambda: demo_lab(orderly=True), views=[view], run_ahead=False)
    c.jump_to_next("lock_renewed")
    svg = view.static_html()
    assert svg.count('data-role="lease-title"') == 2 and svg.count('data-role="lease-renewed"') == 2
    assert svg.count('data-role="lease-lease"') == 2


def test_event_log_filters_rerender():
    """Choosing a kind in the dropdown re-renders with only those events."""
    view = EventLog(limit=5)
    drive(view, k=10**6)
    assert view.text.splitlines()[0] == "175 of 175 events"
    view.kind_filter.value = "dead_lettered"
    assert view.text.splitlines()[0] == "1 of 175 events"
    assert "dead_lettered" in view.static_html() and 'class="current"' not in view.static_html()
    view.kind_filter.value = "(all)"
    view.msg_filter.value = "M0002"
    assert view.text.splitlines()[0] == "5 of 175 events"
    assert ("consumer:c1", "consumer:c1") in view.actor_filter.options
    assert view.errors == []


def test_controls_have_tooltips_for_keyboard_users():
    """Every button and the scrubber carry a description and a tooltip."""
    c = Controller(demo_lab, run_ahead=False)
    for w in (
        c.reset_button,
        c.back_button,
        c.step_button,
        c.pause_button,
        c.jump_button,
        c.play_widget,
        c.scrubber,
        c.speed,
        c.kind_choice,
    ):
        assert w.description and w.tooltip, w
