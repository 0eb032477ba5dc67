"""A send the selector refused (sendSelectImpl: null or an exception, before any attempt) is drawn: a crossed token
in its producer's "send failed" tray, with a legend line; lab 06's strict picture had no token for M0009."""

from __future__ import annotations

from rmqlab.widgets.controller import Controller
from rmqlab.widgets.flow_view import flow_scene, flow_view_model

from rmqlab import Lab, Message


def refused_lab(orders: tuple[int, ...] = (3, 4, 5)) -> Lab:
    """Two brokers; pg's selector refuses order 3 (None) at 1 s and throws for order 4 at 2 s; order 5 is stored."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    p = lab.add_producer("pg")

    def picky(mqs, msg, order_id):  # type: ignore[no-untyped-def]
        if order_id == 4:
            raise KeyError(order_id)
        return None if order_id == 3 else mqs[order_id % len(mqs)]

    for t, order_id in (("1s", 3), ("2s", 4), ("3s", 5)):
        if order_id in orders:
            lab.at(t, p.send_with_selector, Message("TopicTest", f"order {order_id}"), picky, order_id)
    return lab


def test_a_refused_send_is_a_crossed_token_in_the_send_failed_tray_with_its_legend_line() -> None:
    frames = Controller(refused_lab, horizon="5s").frames
    assert frames is not None
    vm = flow_view_model(frames.snapshots[-1])
    refused = {t.msg_id: t for t in vm.tokens if t.place == "failed:pg"}
    assert sorted(refused) == ["M0001", "M0002"]
    assert all(t.state == "send_failed" and "refused before sending" in t.why for t in refused.values())
    assert [t.msg_id for t in vm.tokens if t.place != "failed:pg"] == ["M0003"]
    scene = flow_scene(vm)
    marks = {m.key: m for m in scene.marks}
    assert all(f"cross:{t.key}" in marks for t in refused.values())
    legend = [m for m in scene.marks if m.role == "legend" and m.kind == "text"]
    assert sum("refused before sending: the selector gave no queue" in (m.text or "") for m in legend) == 1
    assert any(m.key.startswith("legend-a:cross") for m in scene.marks)


def test_no_refused_legend_line_when_every_send_was_tried() -> None:
    frames = Controller(lambda: refused_lab(orders=(5,)), horizon="5s").frames
    assert frames is not None
    scene = flow_scene(flow_view_model(frames.snapshots[-1]))
    assert scene.extra and dict(scene.extra)["tokens"] == "1"
    assert not any("refused before sending" in (m.text or "") for m in scene.marks)
    assert not any(m.key.startswith("legend-a:cross") for m in scene.marks)
