"""View-models are pure functions of a snapshot: tested here without any widget or browser."""

from __future__ import annotations

from collections import Counter

import pytest
from rmqlab.widgets import OffsetState, Replay, demo_lab, take_snapshot
from rmqlab.widgets.event_log import event_log_model, event_log_text
from rmqlab.widgets.flow_view import flow_view_model
from rmqlab.widgets.lease_view import lease_model, lease_text
from rmqlab.widgets.offset_strip import offset_strip_model, offset_strip_text
from rmqlab.widgets.topology_view import topology_model, topology_text

from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, after
from rmqlab.snapshot import ScheduleLevelSnap


def slow_first_lab() -> Lab:
    """Three messages on one queue; M0001's listener takes 2 s, the others return at once."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    producer = lab.add_producer("pg")

    def listener(msgs, ctx):
        if msgs[0].msg_id == "M0001":
            return after("2s", ConsumeConcurrentlyStatus.CONSUME_SUCCESS)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1")
    for i in range(3):
        lab.at(1000 + 10 * i, producer.send, Message("TopicTest", f"b{i}"))
    return lab


def at(factory, k: int):
    replay = Replay(factory)
    replay.seek(k)
    return replay.snapshot()


def test_slow_message_pins_the_committed_offset():
    """While M0001 is in its listener, M0002 and M0003 are acked but the TreeMap still holds offset 0."""
    snap = at(slow_first_lab, 20)
    assert snap.now_ms == 1020
    (queue,) = [q for q in snap.queues if q.name == "TopicTest@broker-a:0"]
    assert [(c.offset, c.msg_id, c.state_for("cg")) for c in queue.cells] == [
        (0, "M0001", OffsetState.CONSUMING),
        (1, "M0002", OffsetState.ACKED),
        (2, "M0003", OffsetState.ACKED),
    ]
    assert (queue.max_offset, queue.committed) == (3, ())  # the broker has no offset for cg yet
    strips = offset_strip_model(snap, include_empty=False)
    assert offset_strip_text(strips) == "c1 TopicTest@broker-a:0 0:C 1:A 2:A | msg_tree_map=[0] committed=0 | holes 1 2"


def test_offset_moves_once_the_slow_message_returns():
    """At 3000 ms M0001 returns; the offset store jumps from 0 to 3."""
    snap = at(slow_first_lab, 22)
    assert snap.now_ms == 3000
    (queue,) = [q for q in snap.queues if q.name == "TopicTest@broker-a:0"]
    assert [c.state_for("cg") for c in queue.cells] == [OffsetState.ACKED] * 3
    (strip,) = offset_strip_model(snap, include_empty=False).rows
    assert (strip.msg_tree_keys, strip.pointer("committed").offset, strip.holes) == ((), 3, ())


def test_pulled_state_before_delivery():
    """Right after the pull and before the consume thread runs, offset 0 is PULLED."""
    snap = at(slow_first_lab, 7)
    assert snap.queue("TopicTest@broker-a:0").cells[0].state_for("cg") is OffsetState.PULLED


def test_failed_message_is_sent_back_and_parked_at_level_3():
    """demo_lab at position 12: M0001 sent back, parked in SCHEDULE_TOPIC_XXXX queue 2, due at 11 000 ms."""
    snap = at(demo_lab, 12)
    assert snap.now_ms == 1000
    assert snap.queue("TopicTest@broker-a:0").cells[0].state_for("cg") is OffsetState.SENT_BACK
    assert snap.brokers[0].schedule == (ScheduleLevelSnap("broker-a", 3, 10_000, 1, (("M0001", 11_000),), 11_000),)
    cell = snap.queue("SCHEDULE_TOPIC_XXXX@broker-a:2").cells[0]
    assert (cell.msg_id, cell.state_for("(schedule)")) == ("M0001", OffsetState.STORED)


def test_dead_letter_end_state():
    """At the end: 16 retry-queue offsets all sent back, M0001 in %DLQ%cg, every schedule level drained."""
    replay = Replay(demo_lab)
    assert replay.run_to_end() == 175
    snap = replay.snapshot()
    retry = snap.queue("%RETRY%cg@broker-a:0")
    assert [c.state_for("cg") for c in retry.cells] == [OffsetState.SENT_BACK] * 16
    assert {c.msg_id for c in retry.cells} == {"M0001"}
    assert [c.msg_id for c in snap.queue("%DLQ%cg@broker-a:0").cells] == ["M0001"]
    assert [lvl.level for lvl in snap.brokers[0].schedule] == list(range(3, 19))
    assert all(lvl.pending == 0 for lvl in snap.brokers[0].schedule)


def test_event_log_filters():
    """Filters combine; the last row of an unfiltered log is the current event; the send-back (the cause) is
    above the broker's schedule hop (its effect), which the trace records first."""
    snap = at(demo_lab, 12)
    vm = event_log_model(snap, kind="send_back")
    assert (vm.matched, vm.total) == (1, 12)
    assert [(r.seq, r.msg_id) for r in vm.rows] == [(11, "M0001")]
    assert event_log_text(vm).splitlines()[0] == "1 of 12 events"
    full = event_log_model(snap, limit=3)
    assert [(r.seq, r.kind, r.current) for r in full.rows] == [
        (11, "send_back", False),
        (10, "scheduled", False),
        (12, "offset_updated", True),
    ]
    assert event_log_model(snap, msg_id="M0001", actor="broker-a").matched == 2
    assert "consumer:c1" in full.actors and "schedule:broker-a" in full.actors


def test_lease_view_orderly():
    """After the first lockAll renewal (1000 ms) each queue is held by c1, its lease ending 60 s later."""
    replay = Replay(lambda: demo_lab(orderly=True, listener="fail_twice"))
    assert replay.jump_to_next("lock_renewed")
    assert (replay.lab.now, replay.lab.trace[replay.position - 1].kind.value) == (1000, "lock_renewed")
    vm = lease_model(replay.snapshot(), include_retry=True)
    assert [b.queue for b in vm.bands] == ["%RETRY%cg@broker-a:0", "TopicTest@broker-a:0", "TopicTest@broker-a:1"]
    assert all((b.holder, b.lease_ends_ms, b.times("renewed")) == ("c1", 61_000, (1000,)) for b in vm.bands)
    assert replay.snapshot().locks("cg")[1].expires_ms == 61_000
    assert lease_text(vm).splitlines()[6] == "TopicTest@broker-a:0 [cg] held by c1 (lease ends at 1 m 1 s)"


def test_orderly_suspend_keeps_message_in_tree_map():
    """Orderly SUSPEND puts M0001 back in msg_tree_map; the commit stays at offset 0."""
    replay = Replay(lambda: demo_lab(orderly=True, listener="fail_twice"))
    assert replay.jump_to_next("suspended")
    snap = replay.snapshot()
    # the step ends with the SUSPENDED event and the ConsumeRequest it schedules (submitConsumeRequestLater)
    assert (snap.now_ms, [e.kind.value for e in snap.events[-2:]]) == (1000, ["suspended", "consume_request"])
    strips = offset_strip_model(snap, include_empty=False)
    assert offset_strip_text(strips) == (
        "c1 TopicTest@broker-a:0 0:P | msg_tree_map=[0] consuming=[] committed=0 low-water=0"
    )
    assert strips.rows[0].locked


def test_topology_active_edges():
    """At position 12 the last five events light up the delivery and the send-back into the schedule node."""
    vm = topology_model(at(demo_lab, 12), window=5)
    active = [line for line in topology_text(vm).splitlines() if line.endswith(" *")]
    assert active == ["c1 ==> SCHEDULE_TOPIC_XXXX *", "TopicTest@broker-a ==> c1 *"]
    assert Counter(n.kind for n in vm.nodes) == {"producer": 1, "topic": 1, "schedule": 1, "retry": 1, "consumer": 1}
    assert (vm.scheduled, vm.node("schedule").detail) == (1, "delay levels · 1 waiting")


def test_snapshot_without_index_equals_incremental():
    """A fresh fold and an incremental fold of the same trace give equal snapshots."""
    replay = Replay(demo_lab)
    replay.seek(20)
    replay.snapshot()
    replay.seek(40)
    assert replay.snapshot() == take_snapshot(replay.lab)


@pytest.mark.parametrize("bad", ["TopicTest@broker-a:9", "nope"])
def test_unknown_queue_names_the_known_ones(bad):
    """Looking up a queue that does not exist says which ones do."""
    with pytest.raises(KeyError, match="TopicTest@broker-a:0"):
        at(demo_lab, 12).queue(bad)


def test_a_queue_outside_the_route_says_it_is_never_pulled():
    """retry_queue_nums raised to 4 after %RETRY%cg was made with 1 queue: retries in queues 1 and 3 are stranded."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")

    def fails_once(msgs, ctx):
        if msgs[0].reconsume_times == 0:
            return ConsumeConcurrentlyStatus.RECONSUME_LATER
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    lab.add_consumer("cg", name="c1", subscribe={"T": "*"}, listener=fails_once)
    lab.update_subscription_group("cg", retry_queue_nums=4)
    for i in range(4):
        lab.at(0, producer.send, Message("T", f"b{i}"))
    lab.run(until="1m")
    snap = take_snapshot(lab)
    assert [(q.name, q.listed) for q in snap.queues if q.kind == "retry"] == [
        ("%RETRY%cg@broker-a:0", True),
        ("%RETRY%cg@broker-a:1", False),
        ("%RETRY%cg@broker-a:3", False),
    ]
    places = {p.key: p for p in flow_view_model(snap).places}
    assert [(k, places[k].note) for k in sorted(places) if k.startswith("queue:%RETRY%")] == [
        ("queue:%RETRY%cg@broker-a:0", ""),
        ("queue:%RETRY%cg@broker-a:1", "not in route"),
        ("queue:%RETRY%cg@broker-a:3", "not in route"),
    ]
    cells = {q.name: [c.state_for("cg") for c in q.cells] for q in snap.queues if q.kind == "retry"}
    assert cells == {
        "%RETRY%cg@broker-a:0": [OffsetState.ACKED],
        "%RETRY%cg@broker-a:1": [OffsetState.STORED],
        "%RETRY%cg@broker-a:3": [OffsetState.STORED, OffsetState.STORED],
    }
