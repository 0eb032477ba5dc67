"""Consumed, not committed (revD 3): a token in its group's tray is marked while its queue's next owner would deliver
it again — the broker's offset is not past it and the consumer that consumed it no longer holds the queue."""

from __future__ import annotations

from rmqlab.widgets import Replay
from rmqlab.widgets.flow_view import flow_scene, flow_view_model
from test_offset_strip import lab05

from rmqlab import Lab
from rmqlab.core.i18n import speaking
from rmqlab.snapshot import LabSnapshot

QUEUE = "TopicTest@broker-a:0"


def crash_run() -> Lab:
    """Lab 05's crash run: ok0, slow (60 s listener), ok2–ok4 at 1..5 s; c1 crashes at 30 s, restarts at 40 s."""
    return lab05(crash=True)


def snapshots() -> list[LabSnapshot]:
    """Every controller position of the crash run, to 2 min."""
    replay, out = Replay(crash_run), []
    while True:
        out.append(replay.snapshot())
        if replay.lab.now >= 120_000 or not replay.step_once():
            return out


def marked(snap: LabSnapshot) -> set[str]:
    return {t.msg_id for t in flow_view_model(snap).tokens if t.uncommitted}


def done_at_or_above_the_broker(snap: LabSnapshot) -> set[str]:
    """What the rule says, read from the snapshot another way: cg's tray tokens whose queue offset (the cells of the
    queue) is at or above the broker's committed offset."""
    committed = snap.committed_offset("cg", QUEUE)
    (queue,) = [q for q in snap.queues if q.name == QUEUE]
    at = {cell.msg_id: cell.offset for cell in queue.cells if cell.msg_id is not None}
    tray = {t.msg_id for t in flow_view_model(snap).tokens if t.place == "done:cg"}
    return {m for m in tray if committed is not None and at[m] >= committed}


def test_after_the_crash_the_tray_marks_what_the_broker_has_not_committed() -> None:
    snaps = snapshots()
    before = [s for s in snaps if s.now_ms < 30_000]
    lost = [s for s in snaps if 30_000 <= s.now_ms < 40_000]
    # before the crash c1 holds the queue and pulls on from its own offset: nothing is marked, though the broker
    # lags (slow holds the committed offset at 1 while ok2–ok4 are done)
    assert all(marked(s) == set() for s in before)
    assert any(done_at_or_above_the_broker(s) == {"M0003", "M0004", "M0005"} for s in before)
    # from the crash on: exactly the consumed messages at or above the broker's offset (1), until redelivered
    assert lost and all(marked(s) == done_at_or_above_the_broker(s) == {"M0003", "M0004", "M0005"} for s in lost)
    assert marked(snaps[-1]) == set()  # consumed again by the restarted c1, and committed


def test_the_mark_is_drawn_with_a_legend_line_and_a_tooltip_in_english_and_chinese() -> None:
    snap = next(s for s in snapshots() if s.now_ms >= 35_000)
    for language, legend, tip in (
        (
            "en",
            "consumed, its offset not committed at the broker (dashed ring)",
            "cg's offset at the broker for TopicTest@broker-a:0 is 1",
        ),
        ("zh", "已消费，但位点未提交到 Broker（虚线环）", "cg 在 Broker 上 TopicTest@broker-a:0 的消费位点是 1"),
    ):
        with speaking(language):
            scene = flow_scene(flow_view_model(snap))
        tokens = {m.key: m for m in scene.marks if m.role == "token"}
        dashed = {k for k, m in tokens.items() if "rq-uncommitted" in m.cls}
        assert dashed == {"msg:cg:M0003", "msg:cg:M0004", "msg:cg:M0005"}
        assert all(tip in tokens[k].title for k in dashed)
        assert any(legend in m.text for m in scene.marks if m.role == "legend" and m.text)
        assert "rq-uncommitted" in scene.css


def test_a_picture_without_such_a_token_keeps_its_bytes() -> None:
    snap = [s for s in snapshots() if s.now_ms < 30_000][-1]  # ok2–ok4 done, the broker at 1, c1 still holds it
    scene = flow_scene(flow_view_model(snap))
    assert sum(m.role == "token" and "rq-done" in m.cls for m in scene.marks) == 4
    assert "rq-uncommitted" not in scene.css and not any("not committed" in (m.text or "") for m in scene.marks)
