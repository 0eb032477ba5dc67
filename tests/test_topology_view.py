"""TopologyView: a layered networkx graph drawn as a Scene — columns, one schedule node, travelled edges,
labels that never overlap and edges that never cross a box."""

from __future__ import annotations

import pytest
from rmqlab.widgets import Controller, demo_lab, take_snapshot
from rmqlab.widgets.scene import Mark, Scene, text_width
from rmqlab.widgets.topology_view import (
    LAYERS,
    TopologyView,
    topology_graph,
    topology_model,
    topology_scene,
    topology_text,
)

from rmqlab import ConsumeConcurrentlyStatus as S
from rmqlab import Lab, Message


def two_brokers() -> Lab:
    """Two brokers × 4 queues, consumers c1 and c2 of cg failing every first delivery, 4 messages from 1 s."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest", queues=4)
    producer = lab.add_producer("pg")

    def fail_first(msgs, ctx):
        return S.RECONSUME_LATER if msgs[0].reconsume_times == 0 else S.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=fail_first, name="c1")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=fail_first, name="c2")
    for i in range(4):
        lab.at(1000 + i, producer.send, Message("TopicTest", f"m{i}"))
    return lab


def run(factory, until: str):
    lab = factory()
    lab.run(until=until)
    return take_snapshot(lab)


def text_box(m: Mark) -> tuple[float, float, float, float]:
    """A text mark's bounding box from the same width estimate the layout uses (size from its class)."""
    size = 12.0 if "rq-node-title" in m.cls or "rq-title" in m.cls else 11.0 if "rq-node-detail" not in m.cls else 10.0
    w = text_width(m.text, size)
    left = m.x - (w / 2 if m.anchor == "middle" else w if m.anchor == "end" else 0)
    return left, m.y - size, left + w, m.y + 3


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def path_samples(d: str) -> list[tuple[float, float]]:
    """Points along an SVG path of M / L / C commands (20 per segment)."""
    tokens = d.replace(",", " ").split()
    pts: list[tuple[float, float]] = []
    i, cur = 0, (0.0, 0.0)
    while i < len(tokens):
        op = tokens[i][0]
        nums = [float(tokens[i][1:])] if len(tokens[i]) > 1 else []
        i += 1
        need = {"M": 2, "L": 2, "C": 6}[op]
        while len(nums) < need:
            nums.append(float(tokens[i]))
            i += 1
        if op == "M":
            cur = (nums[0], nums[1])
        elif op == "L":
            end = (nums[0], nums[1])
            pts += [(cur[0] + (end[0] - cur[0]) * t / 20, cur[1] + (end[1] - cur[1]) * t / 20) for t in range(21)]
            cur = end
        else:
            c1, c2, end = (nums[0], nums[1]), (nums[2], nums[3]), (nums[4], nums[5])
            for k in range(21):
                t = k / 20
                u = 1 - t
                pts.append(
                    (
                        u**3 * cur[0] + 3 * u * u * t * c1[0] + 3 * u * t * t * c2[0] + t**3 * end[0],
                        u**3 * cur[1] + 3 * u * u * t * c1[1] + 3 * u * t * t * c2[1] + t**3 * end[1],
                    )
                )
            cur = end
    return pts


def assert_clean(scene: Scene) -> None:
    """No two text marks overlap; no edge passes through a box other than its own two ends."""
    texts = [m for m in scene.marks if m.kind == "text" and m.text]
    assert texts
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            assert not overlap(text_box(a), text_box(b)), (a.key, a.text, b.key, b.text)
    boxes = {m.key[len("node:") :]: m for m in scene.marks if m.role == "topology-node"}
    for node, box in boxes.items():  # each label fits inside its box
        for part in ("title", "detail"):
            left, _, right, _ = text_box(scene.mark(f"node:{node}:{part}"))
            assert box.x < left and right <= box.x + box.w, (node, part)
    for edge in (m for m in scene.marks if m.role == "topology-edge"):
        source, target = edge.key[len("edge:") :].split(">", 1)
        for x, y in path_samples(edge.d):
            for node, b in boxes.items():
                if node in (source, target):
                    continue
                inside = b.x + 1 < x < b.x + b.w - 1 and b.y + 1 < y < b.y + b.h - 1
                assert not inside, (edge.key, node, round(x), round(y))


def test_two_broker_lab_collapses_the_schedule_topic_into_one_node_with_its_count():
    """At 1.5 s all four first deliveries failed: 4 wait at level 3 on two brokers; the one schedule node says 4."""
    snap = run(two_brokers, "1500ms")
    assert {lvl.broker for b in snap.brokers for lvl in b.schedule if lvl.pending} == {"broker-a", "broker-b"}
    vm = topology_model(snap)
    (schedule,) = [n for n in vm.nodes if n.kind == "schedule"]
    assert (schedule.title, schedule.detail) == ("SCHEDULE_TOPIC_XXXX", "delay levels · 4 waiting")
    assert (vm.scheduled, vm.levels) == (4, ((3, 4),))
    assert [(n.kind, n.title) for n in vm.nodes if n.kind != "schedule"] == [
        ("producer", "pg"),
        ("topic", "TopicTest@broker-a"),
        ("topic", "TopicTest@broker-b"),
        ("retry", "%RETRY%cg"),
        ("consumer", "c1"),
        ("consumer", "c2"),
    ]
    assert topology_scene(vm).extra == (("scheduled", "4"), ("nodes", "7"))


def test_columns_follow_the_path_of_a_message():
    """Producers, topics, SCHEDULE, %RETRY%, %DLQ%, consumers: x grows in that order, one column per kind."""
    vm = topology_model(run(demo_lab, "6h"))
    columns = [sorted({n.x for n in vm.nodes if n.kind == kind}) for kind in LAYERS]
    assert all(len(c) == 1 for c in columns)
    assert [c[0] for c in columns] == sorted(c[0] for c in columns)
    assert topology_graph(run(demo_lab, "6h")).nodes["schedule"]["layer"] == 2


def test_travelled_edges_are_the_hops_messages_made():
    """Two-broker run at 15 s: sends to both brokers, deliveries, send-backs into the schedule, the hop to %RETRY%."""
    vm = topology_model(run(two_brokers, "15s"))
    travelled = [line for line in topology_text(vm).splitlines() if "==>" in line]
    assert [line.removesuffix(" *") for line in travelled] == [
        "c1 ==> SCHEDULE_TOPIC_XXXX",
        "c2 ==> SCHEDULE_TOPIC_XXXX",
        "pg ==> TopicTest@broker-a",
        "pg ==> TopicTest@broker-b",
        "SCHEDULE_TOPIC_XXXX ==> %RETRY%cg",
        "%RETRY%cg ==> c1",
        "%RETRY%cg ==> c2",
        "TopicTest@broker-a ==> c1",
        "TopicTest@broker-b ==> c2",
    ]
    possible = [line for line in topology_text(vm).splitlines() if "-->" in line]
    assert possible == ["TopicTest@broker-a --> c2", "TopicTest@broker-b --> c1"]  # subscribed, never delivered
    back = [(e.source, e.target) for e in vm.edges if e.back]
    assert back == [("consumer:c1", "schedule"), ("consumer:c2", "schedule")]
    for e in vm.edges:  # arrows point the way messages go: a send-back arrives at the schedule node from below
        end = e.points[-1]
        before = next(p for p in reversed(e.points) if p != end)
        if e.back:
            assert end[1] < before[1] and end[0] == before[0]
        else:
            assert end[0] > before[0]


def test_concurrent_dead_letter_goes_straight_from_the_consumer_to_the_dlq():
    """demo_lab to the end: 16 hops through the schedule and %RETRY%, then c1 → %DLQ%cg (no delay for the DLQ)."""
    vm = topology_model(run(demo_lab, "6h"), window=0)
    edges = {(e.source, e.target): e.travelled for e in vm.edges}
    assert edges[("consumer:c1", "topic:%DLQ%cg")] is True
    assert ("schedule", "topic:%DLQ%cg") not in edges
    assert not any(e.active for e in vm.edges)  # window 0: nothing counts as recent


@pytest.mark.parametrize(
    ("factory", "until"), [(two_brokers, "1500ms"), (two_brokers, "15s"), (demo_lab, "6h"), (demo_lab, "500ms")]
)
def test_labels_never_overlap_and_edges_never_cross_a_box(factory, until):
    """Text bounding boxes (the layout's width estimate) are disjoint; sampled edge paths avoid other boxes."""
    assert_clean(topology_scene(topology_model(run(factory, until))))


def test_a_broker_down_and_a_crashed_instance_are_flagged():
    """broker-b down and c2 crashed: their boxes say so in words and carry the alert outline."""
    lab = two_brokers()
    lab.at("2s", lambda: lab.broker_down("broker-b"))
    lab.at("2s", lambda: lab.consumers["c2"].crash())
    lab.run(until="3s")
    vm = topology_model(take_snapshot(lab))
    assert vm.node("topic:TopicTest@broker-b").detail.endswith("· broker down")
    assert vm.node("consumer:c2").detail == "consumer · cg · clustering · crashed"
    assert [n.id for n in vm.nodes if n.alert] == ["topic:TopicTest@broker-b", "consumer:c2"]
    scene = topology_scene(vm)
    assert "rq-alert" in scene.mark("node:consumer:c2").cls
    assert_clean(scene)


def test_view_is_a_scene_without_plotly():
    """The view draws an SVG scene (test id rq-topology); plotly is not imported by the module."""
    import rmqlab.widgets.topology_view as module

    assert "plotly" not in module.__dict__ and not any("plotly" in str(v) for v in vars(module).values())
    view = TopologyView(window=5)
    c = Controller(demo_lab, views=[view], run_ahead=False)
    c.seek(12)
    svg = view.static_html()
    assert 'data-testid="rq-topology"' in svg
    assert svg.count('data-role="topology-node"') == len(view.vm.nodes) == 5
    active = [(e.source, e.target) for e in view.vm.edges if e.active]
    assert active == [("consumer:c1", "schedule"), ("topic:TopicTest@broker-a", "consumer:c1")]


def test_the_clean_check_catches_overlaps_and_crossings():
    """assert_clean is not vacuous: overlapping labels, and an edge through a third box, are both reported."""
    box = Mark("rect", "node:a", x=0, y=0, w=100, h=30, role="topology-node")
    labels = (
        Mark("text", "node:a:title", x=5, y=12, text="a", cls="rq-node-title"),
        Mark("text", "node:a:detail", x=5, y=25, text="d", cls="rq-node-detail"),
    )
    clash = Mark("text", "stray", x=6, y=13, text="overlapping")
    with pytest.raises(AssertionError):
        assert_clean(Scene(200, 60, (box, *labels, clash)))
    through = Mark("path", "edge:b>c", d="M-50,15 L150,15", role="topology-edge")
    with pytest.raises(AssertionError):
        assert_clean(Scene(200, 60, (box, *labels, through)))
    assert_clean(Scene(200, 60, (box, *labels, Mark("path", "edge:a>c", d="M100,15 L150,15", role="topology-edge"))))


def test_topology_text_keeps_its_size_the_legend_sits_under_the_graph():
    """Issue 30: "topology text is a few pixels high". The SVG no longer shrinks to the output's width (it
    scrolls sideways), and the legend is under the graph, so it no longer makes the picture wider."""
    from view_checks import example_snapshot, overlapping_texts, texts_outside

    vm = topology_model(example_snapshot("default_retry_schedule"))
    scene = topology_scene(vm)
    assert scene.width == int(max(vm.width, 12 + 230 + 2 * 150))
    legend = [m for m in scene.marks if m.role == "legend"]
    assert legend and min(m.y for m in legend) > vm.height
    assert overlapping_texts(scene) == [] and texts_outside(scene) == []
    assert '.rq-scene[data-testid="rq-topology"] svg { max-width: none; }' in scene.css
    assert '.rq-scene[data-testid="rq-topology"] { overflow-x: auto; }' in scene.css
