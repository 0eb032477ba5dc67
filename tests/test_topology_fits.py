"""The topology fits the output area (868 px in JupyterLab with the file browser open) without smaller text: lab 04b's
five columns (producer, topic, delay levels, %RETRY%, consumer) were 1,153 px and cut off on the right; a graph too
wide with one-line details puts each box's detail on two lines and narrows the gaps."""

from __future__ import annotations

from rmqlab.widgets.scene import text_width
from rmqlab.widgets.topology_model import topology_model
from rmqlab.widgets.topology_scene import topology_scene

from rmqlab import Lab, Message
from tests.listeners import fails_once
from tests.test_flow_fits import OUTPUT_AREA_PX


def raised_late() -> Lab:
    """Lab 04b's second picture: retryQueueNums raised to 4, four messages fail once, %RETRY%cg widened at 62 s."""

    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=fails_once, name="c1")
    lab.update_subscription_group("cg", retry_queue_nums=4)
    for i in range(4):
        lab.at("1s", p.send, Message("TopicTest", f"x{i}"))
    lab.at("62s", lab.update_topic, "%RETRY%cg", queues=4)
    return lab


def test_lab_04b_topology_fits_with_every_label_in_its_box() -> None:
    lab = raised_late()
    lab.run(until="2m")
    vm = topology_model(lab.snapshot())
    scene = topology_scene(vm)
    assert scene.width <= OUTPUT_AREA_PX
    retry = vm.node(next(n.id for n in vm.nodes if n.kind == "retry"))
    assert retry.lines == ("retry topic", "4 stored · broker-a") and retry.detail == "retry topic · 4 stored · broker-a"
    boxes = {m.key: m for m in scene.marks if m.role == "topology-node"}
    for m in scene.marks:
        if m.role == "topology-label":
            box = boxes[m.key.rsplit(":", 1)[0]]
            px = 12 if "rq-node-title" in m.cls else 11
            assert box.x < m.x and m.x + text_width(m.text, px, bold=px == 12) <= box.x + box.w + 1, m.key
            assert box.y < m.y <= box.y + box.h - 3, m.key
    rects = list(boxes.values())
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y, (a.key, b.key)


def test_a_graph_that_fits_keeps_its_one_line_boxes() -> None:
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    lab.add_producer("pg").send(Message("TopicTest", "x"))
    lab.run(until="1s")
    vm = topology_model(lab.snapshot())
    assert vm.width <= OUTPUT_AREA_PX and all(len(n.lines) == 1 and n.h == 34 for n in vm.nodes)
