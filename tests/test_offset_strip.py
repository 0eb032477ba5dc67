"""OffsetStripView: ProcessQueues as offset strips — states, holes and pointers of real runs, then the drawing."""

from __future__ import annotations

from pathlib import Path

import pytest
from rmqlab.widgets import Controller, Replay, take_snapshot
from rmqlab.widgets.offset_strip import (
    CELL_PX,
    OffsetStripView,
    offset_strip_model,
    offset_strip_scene,
    offset_strip_text,
)

from rmqlab import ConsumeConcurrentlyStatus as S
from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind, Lab, Message, after
from rmqlab.lab.scenario import load_scenario
from rmqlab.snapshot import LabSnapshot, OffsetState

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def lab05(crash: bool = False) -> Lab:
    """Lab 05's run: one queue; ok0, slow (60 s listener), ok2, ok3, ok4 sent at 1..5 s; optional crash at 30 s."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    producer = lab.add_producer("pg")

    def listener(msgs, ctx):
        return after("60s", S.CONSUME_SUCCESS) if msgs[0].body == "slow" else S.CONSUME_SUCCESS

    c1 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1")
    for i, body in enumerate(["ok0", "slow", "ok2", "ok3", "ok4"]):
        lab.at(f"{1 + i}s", producer.send, Message("TopicTest", body))
    if crash:
        lab.at("30s", c1.crash)
        lab.at("40s", c1.start)
    return lab


def orderly_batches() -> Lab:
    """Orderly, batches of 3, each listener call takes 2 s; five messages at 2 s on one queue."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "og",
        subscribe={"ORD": "*"},
        listener=lambda m, c: after("2s", O.SUCCESS),
        orderly=True,
        name="c1",
        consume_message_batch_max_size=3,
    )
    for i in range(5):
        lab.at("2s", producer.send, Message("ORD", f"m{i}"))
    return lab


def when(factory, t_ms: int) -> LabSnapshot:
    """The snapshot at the first controller position whose virtual time is at least ``t_ms``."""
    replay = Replay(factory)
    while replay.lab.now < t_ms and replay.step_once():
        pass
    return replay.snapshot()


def row(snap: LabSnapshot, queue: str):
    (found,) = [r for r in offset_strip_model(snap).rows if r.queue == queue]
    return found


def test_slow_message_pins_the_committed_pointer_with_done_cells_above_it():
    """Lab 05 at 10 s: offset 1 is in its listener, 2–4 are done: holes; committed and broker both point at 1."""
    snap = when(lab05, 10_000)
    assert snap.now_ms == 10_000
    r = row(snap, "TopicTest@broker-a:0")
    assert [(c.offset, c.msg_id, c.state) for c in r.cells] == [
        (0, "M0001", OffsetState.ACKED),
        (1, "M0002", OffsetState.CONSUMING),
        (2, "M0003", OffsetState.ACKED),
        (3, "M0004", OffsetState.ACKED),
        (4, "M0005", OffsetState.ACKED),
    ]
    assert r.holes == (2, 3, 4)
    assert r.msg_tree_keys == (1,)
    assert [(p.name, p.offset) for p in r.pointers] == [("committed", 1), ("broker", 1)]
    assert offset_strip_text(offset_strip_model(snap, include_empty=False)) == (
        "c1 TopicTest@broker-a:0 0:A 1:C 2:A 3:A 4:A | msg_tree_map=[1] committed=1 broker=1 | holes 2 3 4"
    )


def test_the_commit_jumps_once_the_slow_message_returns_and_reaches_the_broker_later():
    """At 61 s the slow listener returns: committed 5, no holes; the broker still has 1 until the 5 s persist."""
    r61 = row(when(lab05, 61_000), "TopicTest@broker-a:0")
    assert [c.state for c in r61.cells] == [OffsetState.ACKED] * 5
    assert (r61.holes, r61.pointer("committed").offset, r61.pointer("broker").offset) == ((), 5, 1)
    r70 = row(when(lab05, 70_000), "TopicTest@broker-a:0")
    assert r70.pointer("broker").offset == 5


def test_a_crash_loses_the_process_queue_and_the_restart_consumes_the_holes_again():
    """Crash at 30 s: no strip; restart at 40 s from the broker's 1: offsets 1–4 are not done for the new one
    (the strip right after the restarted consumer's first rebalance, before its first pull)."""
    crashed = offset_strip_model(when(lambda: lab05(crash=True), 30_000))
    assert (crashed.rows, crashed.gone) == ((), (("c1", "crash"),))
    replay = Replay(lambda: lab05(crash=True))
    while replay.step_once():
        last = replay.snapshot().events[-1]
        if last.kind is EventKind.REBALANCED and last.time_ms >= 40_000 and last.get("topic") == "TopicTest":
            break
    snap = replay.snapshot()
    assert snap.now_ms == 40_000
    r = row(snap, "TopicTest@broker-a:0")
    assert [c.state for c in r.cells] == [OffsetState.ACKED] + [OffsetState.STORED] * 4
    assert (r.holes, r.pointer("committed").offset, r.pointer("broker").offset) == ((), 1, 1)


def test_orderly_strip_draws_the_consuming_map_and_commit_next_to_the_low_water_mark():
    """Orderly batch [1, 2, 3] in its listener from 4 s: commit() = lastKey + 1 = 4, low-water 1, committed 1.

    The broker has no offset for the group yet (the first persist is at 10 s), so no broker pointer."""
    snap = when(orderly_batches, 4_000)
    r = row(snap, "ORD@broker-a:0")
    assert [(c.offset, c.state, c.in_consuming_map) for c in r.cells] == [
        (0, OffsetState.ACKED, False),
        (1, OffsetState.CONSUMING, True),
        (2, OffsetState.CONSUMING, True),
        (3, OffsetState.CONSUMING, True),
        (4, OffsetState.PULLED, False),
    ]
    assert [(p.name, p.offset) for p in r.pointers] == [
        ("committed", 1),
        ("commit()", 4),
        ("low-water", 1),
    ]
    assert r.pointer("commit()").label == "commit() = lastKey + 1 = 4"
    scene = offset_strip_scene(offset_strip_model(snap))
    bracket = scene.mark("strip:c1:ORD@broker-a:0:consuming-map")
    assert bracket.role == "strip-consuming-map" and "rq-consuming-map" in bracket.cls
    assert scene.mark("strip:c1:ORD@broker-a:0:consuming-map:label").text == "consumingMsgOrderlyTreeMap"
    assert_no_label_crossed(scene)


def test_broadcasting_failure_is_drawn_dropped_never_done():
    """examples/broadcasting_drop.yaml: c1's failed offset is X (dropped), c2's is A; one strip per instance."""
    replay = Replay(lambda: load_scenario(EXAMPLES / "broadcasting_drop.yaml").build())
    replay.run_to_end()
    rows = {(r.consumer, r.cells[0].state) for r in offset_strip_model(replay.snapshot(), include_empty=False).rows}
    assert rows == {("c1", OffsetState.DROPPED), ("c2", OffsetState.ACKED)}
    strips = offset_strip_model(replay.snapshot(), include_empty=False).rows
    # BROADCASTING persists to the instance's own file, and the drop moved c1's offset on like c2's ack
    assert [(r.consumer, r.pointer("broker").label) for r in strips] == [("c1", "local file 1"), ("c2", "local file 1")]


def test_send_back_under_zero_retry_queues_is_dropped_not_sent_back():
    """retryQueueNums 0: the broker answers the send-back SUCCESS and stores nothing, so the offset is X, not R."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", name="c1", subscribe={"T": "*"}, listener=lambda m, c: S.RECONSUME_LATER)
    lab.update_subscription_group("cg", retry_queue_nums=0)
    lab.at(0, producer.send, Message("T", "lost"))
    lab.run(until="5s")
    (r,) = offset_strip_model(take_snapshot(lab), include_empty=False).rows
    assert [(c.offset, c.state) for c in r.cells] == [(0, OffsetState.DROPPED)]
    assert r.pointer("committed").offset == 1


def assert_no_label_crossed(scene) -> None:
    """Every pointer arrow that starts below a label's row (and so passes through it) lies left of the label."""
    arrows = [m for m in scene.marks if m.role == "strip-pointer"]
    labels = [m for m in scene.marks if m.role in ("strip-pointer-label", "strip-span-label")]
    assert arrows and labels
    for label in labels:
        for a in arrows:
            if a.y > label.y:
                assert a.x < label.x, (a.key, label.key)


def test_scene_pointers_point_at_offset_boundaries_and_labels_do_not_cross_arrows():
    """The committed arrow sits on the left edge of cell 1; every label starts right of every deeper arrow."""
    scene = offset_strip_scene(offset_strip_model(when(lab05, 10_000), include_empty=False))
    rid = "strip:c1:TopicTest@broker-a:0"
    cell0, cell1 = scene.mark(f"{rid}:cell:0"), scene.mark(f"{rid}:cell:1")
    arrow = scene.mark(f"{rid}:ptr:committed")
    assert arrow.arrow and arrow.x == arrow.x2 == cell1.x - 1 == cell0.x - 1 + CELL_PX
    assert scene.mark(f"{rid}:glyph:1").text == "C"
    assert [m.key for m in scene.marks if m.role == "strip-cell" and "rq-hole" in m.cls] == [
        f"{rid}:cell:{o}" for o in (2, 3, 4)
    ]
    labels = [m.text for m in scene.marks if m.role in ("strip-pointer-label", "strip-span-label")]
    assert labels == ["holes: done above the committed offset", "broker 1", "committed 1"]
    assert_no_label_crossed(scene)
    legend = [m.text for m in scene.marks if m.role == "legend" and m.kind == "text" and len(m.text) == 1]
    assert legend == ["S", "P", "C", "A", "R", "X"]


def test_long_queue_shows_a_window_near_the_committed_offset():
    """60 offsets, max_cells 10: the window starts 2 below the lowest pointer and says how many are hidden."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg",
        name="c1",
        subscribe={"T": "*"},
        listener=lambda m, c: after("1h", S.CONSUME_SUCCESS) if m[0].body == "b30" else S.CONSUME_SUCCESS,
    )
    for i in range(60):
        lab.at(1000 + i, producer.send, Message("T", f"b{i}"))
    lab.run(until="20s")
    (r,) = offset_strip_model(take_snapshot(lab), include_empty=False, max_cells=10).rows
    assert (r.cells[0].offset, r.cells[-1].offset, r.hidden_before, r.hidden_after) == (28, 37, 28, 22)
    assert r.pointer("committed").offset == 30 and r.holes == tuple(range(31, 38))
    assert offset_strip_text(offset_strip_model(take_snapshot(lab), include_empty=False, max_cells=10)).startswith(
        "c1 T@broker-a:0 …28 28:A 29:A 30:C 31:A"
    )


@pytest.mark.parametrize("bad", [3, "10", True, None])
def test_max_cells_is_validated(bad):
    """A max_cells that is not an int ≥ 4 is refused with the value named."""
    with pytest.raises(ValueError, match=rf"max_cells={bad!r}; expected an int of at least 4"):
        offset_strip_model(when(lab05, 0), max_cells=bad)


def test_view_draws_the_scene_and_keeps_the_static_svg():
    """Driven by a Controller: the widget gets the scene, the static SVG carries its test id and cells."""
    view = OffsetStripView(include_empty=False)
    controller = Controller(lab05, views=[view], run_ahead=False)
    controller.seek_time("10s")
    assert controller.snapshot.now_ms == 10_000
    assert view.title == "ProcessQueues" and view.errors == []
    assert view.canvas.scene["testid"] == "rq-offset-strip"
    svg = view.static_html()
    assert 'data-testid="rq-offset-strip"' in svg and svg.count('data-role="strip-cell"') == 5
    assert view.text.endswith("| holes 2 3 4")


def test_a_send_back_parked_in_a_delay_level_is_sent_back_not_dropped() -> None:
    """An ordinary RECONSUME_LATER: the broker parks the copy in SCHEDULE_TOPIC_XXXX (level 3), so offset 0
    is R (sent back, a copy lives on), never X — the copy is stored before the send-back is answered."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: S.RECONSUME_LATER, name="c1")
    lab.at("1s", producer.send, Message("TopicTest", "fails"))
    lab.run(until="2s")
    vm = offset_strip_model(take_snapshot(lab))
    (row,) = [r for r in vm.rows if r.queue == "TopicTest@broker-a:0"]
    assert [(c.offset, c.state) for c in row.cells] == [(0, OffsetState.SENT_BACK)]
    # the retry ProcessQueue is still empty, though a copy was sent back: the note says what is true (revD)
    assert vm.quiet == (("c1", "%RETRY%cg@broker-a:0"),) and lab.trace.where(EventKind.SEND_BACK)
    assert offset_strip_text(vm).splitlines()[-1] == (
        "empty %RETRY% ProcessQueues (no retry copy has reached them yet): c1 %RETRY%cg@broker-a:0"
    )


def test_business_queues_come_first_and_empty_retry_queues_are_one_note() -> None:
    """Lab 05 at 10 s: c1's only strip is TopicTest:0 (its %RETRY%cg:0 never held a message: one note line after the
    strips, not a strip listed first); once a send-back stores a retry copy, the retry queue gets its strip, after
    the business queue."""
    snap = when(lab05, 10_000)
    vm = offset_strip_model(snap)
    assert [r.queue for r in vm.rows] == ["TopicTest@broker-a:0"]
    assert vm.quiet == (("c1", "%RETRY%cg@broker-a:0"),)
    scene = offset_strip_scene(vm)
    (note,) = [m for m in scene.marks if m.role == "strip-quiet"]
    assert note.text == "empty %RETRY% ProcessQueues (no retry copy has reached them yet): c1 %RETRY%cg@broker-a:0"
    titles = [m for m in scene.marks if m.role == "strip-title"]
    assert [m.text for m in titles] == ["c1 · TopicTest@broker-a:0"] and note.y > titles[0].y
    assert offset_strip_text(vm).splitlines()[-1] == note.text

    def sends_back() -> Lab:
        lab = Lab(seed=1)
        lab.add_broker("broker-a")
        lab.create_topic("TopicTest", queues=1)
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: S.RECONSUME_LATER, name="c1")
        lab.at("1s", lab.add_producer("pg").send, Message("TopicTest", "x"))
        return lab

    later = offset_strip_model(when(sends_back, 30_000))
    assert [r.queue for r in later.rows] == ["TopicTest@broker-a:0", "%RETRY%cg@broker-a:0"]
    assert later.quiet == ()
