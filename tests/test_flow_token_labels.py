"""A token says which message it is (M0001 → "1"), its reconsume times ride on a badge: six colour-blind-safe fills
repeat within seven messages, and lab 07a's question names M0001 among eight tokens."""

from __future__ import annotations

from rmqlab.widgets.flow_layout import flow_scene
from rmqlab.widgets.flow_view import flow_view_model

from rmqlab import Lab, Message
from tests.listeners import fails_once


def eight_messages_failing_once() -> Lab:
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=fails_once, name="c1")
    for i in range(8):
        lab.at("1s", p.send, Message("TopicTest", f"m{i}"))
    return lab


def test_every_token_on_screen_names_its_message_and_carries_its_reconsume_times() -> None:
    lab = eight_messages_failing_once()
    lab.run(until="5s")  # all eight failed once: parked in a delay level, reconsume times 1
    scene = flow_scene(flow_view_model(lab.snapshot()))
    tokens = {m.key: m for m in scene.marks if m.role == "token"}
    assert {k: (m.text, m.badge) for k, m in tokens.items()} == {f"msg:cg:M000{n}": (str(n), "1") for n in range(1, 9)}
    assert len({m.fill for m in tokens.values()}) < len(tokens)  # why the colours alone could not tell them apart
    assert scene.to_svg().count('<g class="rq-badge">') == 8
    lab.run(until="1m")
    done = [m for m in flow_scene(flow_view_model(lab.snapshot())).marks if m.role == "token"]
    assert sorted(m.text for m in done) == [str(n) for n in range(1, 9)] and {m.badge for m in done} == {"1"}
