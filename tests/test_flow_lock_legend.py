"""The flow picture's legend explains the padlock it draws (revF: labs 07a, 07b and 09 drew it on queues and
ProcessQueues and explained it only in the Locks tab): a line with a padlock sample, live or hollow, only on a picture
that has one."""

from __future__ import annotations

from typing import Any

from rmqlab.widgets import demo_lab
from rmqlab.widgets.flow_layout import flow_scene
from rmqlab.widgets.flow_view import flow_view_model
from rmqlab.widgets.frames import build_run

from rmqlab import ConsumeOrderlyStatus, Lab, Message
from rmqlab.core.i18n import speaking

LIVE = "padlock: the queue's broker lock, held by the name beside it"
EXPIRED = "hollow padlock: that lock's lease expired at the broker"


def orderly(crash: bool) -> Lab:
    """a, b, c on one queue of an orderly consumer c1 (crashed at 10 s when ``crash``: its broker lock stays until
    its 60 s lease expires)."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg", send_which_queue_start=0)

    def ok(msgs: Any, ctx: Any) -> ConsumeOrderlyStatus:
        return ConsumeOrderlyStatus.SUCCESS

    c = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=ok, orderly=True, name="c1")
    for i, body in enumerate("abc"):
        lab.at(f"{2 + i}s", p.send, Message("TopicTest", body))
    if crash:
        lab.at("10s", c.crash)
    return lab


def _legend(make_lab: Any, horizon: str, language: str = "en") -> list[tuple[str, str]]:
    """The last frame's legend: (text, the class of the padlock sample drawn on its row, or "")."""
    snap = build_run(make_lab, horizon=horizon).snapshots[-1]
    with speaking(language):
        scene = flow_scene(flow_view_model(snap))
    rows = [m for m in scene.marks if m.role == "legend" and m.kind == "text"]
    locks = {m.key.removeprefix("lock:"): m.cls for m in scene.marks if m.role == "legend" and m.kind == "path"}
    return [(m.text, locks.get(m.key.removesuffix(":t"), "")) for m in rows]


def test_an_orderly_picture_explains_its_padlock() -> None:
    legend = _legend(lambda: orderly(crash=False), "8s")
    assert (LIVE, "rq-lock") in legend
    assert all(text != EXPIRED for text, _cls in legend)


def test_a_crashed_holders_expired_lease_gets_the_hollow_padlock_line() -> None:
    legend = _legend(lambda: orderly(crash=True), "75s")  # lease from the last lock (≤ 10 s) + 60 s: expired at 75 s
    assert (EXPIRED, "rq-lock rq-lock-expired") in legend
    assert all(text != LIVE for text, _cls in legend)  # c1's ProcessQueue is gone, the lease is not live


def test_a_picture_with_no_lock_has_no_padlock_line_and_chinese_has_its_own() -> None:
    assert all("padlock" not in text for text, _cls in _legend(lambda: demo_lab(messages=2), "10s"))
    zh = [text for text, cls in _legend(lambda: orderly(crash=False), "8s", "zh") if cls]
    assert zh and all("padlock" not in text for text in zh)
