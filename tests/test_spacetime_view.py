"""The space-time diagram: rows folded from the trace, arrows between actors, the "now" line — all headless."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rmqlab.widgets import Controller, demo_lab
from rmqlab.widgets.frames import build_run
from rmqlab.widgets.scene import Mark, Scene
from rmqlab.widgets.spacetime_view import (
    ArrowKind,
    SpaceTimeView,
    spacetime_scene,
    spacetime_text,
    spacetime_view_model,
    spacetime_view_models,
)
from view_checks import example_snapshot, overlapping_texts, texts_outside

from rmqlab import EventKind, Lab, Message
from rmqlab.snapshot import LabSnapshot

DEFAULT_WAITS_S = [10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200]
"""messageDelayLevel 3..18 (spec: 10s 30s 1m … 2h): the 16 waits of the default retry schedule."""


@pytest.fixture(scope="module")
def retry_snap() -> LabSnapshot:
    return example_snapshot("default_retry_schedule")


def lines(scene: Scene, role: str) -> list[Mark]:
    return [m for m in scene.marks if m.kind == "line" and m.role == role]


def lane_x(scene: Scene, lane_id: str) -> float:
    return scene.mark(f"life:{lane_id}").x


def test_default_schedule_draws_17_pulls_16_send_backs_and_the_dlq_write(retry_snap: LabSnapshot) -> None:
    """17 deliveries reach c1 from broker-a, 16 send-backs return, the 17th failure is the DLQ write."""
    scene = spacetime_scene(spacetime_view_model(retry_snap))
    broker, consumer = lane_x(scene, "broker:broker-a"), lane_x(scene, "consumer:c1")
    pulls = lines(scene, "pull")
    assert len(pulls) == 17
    assert all(m.x < m.x2 and abs(m.x - broker) < 10 and abs(m.x2 - consumer) < 10 for m in pulls)
    backs = lines(scene, "send-back")
    assert len(backs) == 16
    assert all(abs(m.x - consumer) < 10 and abs(m.x2 - broker) < 10 for m in backs)
    (dlq,) = lines(scene, "dlq")
    assert abs(dlq.x - consumer) < 10 and abs(dlq.x2 - broker) < 10
    assert scene.mark(f"{dlq.key}:label").text == "M0001 → %DLQ%cg (r16)"
    assert [m.text for m in scene.marks if m.role == "dot-label" and "RECONSUME_LATER" in m.text] == [
        f"M0001 r{n} ✗ RECONSUME_LATER" for n in range(17)
    ]


def test_schedule_hops_are_labelled_with_level_and_wait(retry_snap: LabSnapshot) -> None:
    """Each hop into SCHEDULE_TOPIC_XXXX reads L3 · 10 s … L18 · 2 h; the waits add up to 17 140 s."""
    vm = spacetime_view_model(retry_snap)
    hops = [r for r in vm.rows if r.kind is ArrowKind.SCHEDULE]
    assert [r.label for r in hops] == [
        "M0001 L3 · 10 s", "M0001 L4 · 30 s", "M0001 L5 · 1 m", "M0001 L6 · 2 m", "M0001 L7 · 3 m",
        "M0001 L8 · 4 m", "M0001 L9 · 5 m", "M0001 L10 · 6 m", "M0001 L11 · 7 m", "M0001 L12 · 8 m",
        "M0001 L13 · 9 m", "M0001 L14 · 10 m", "M0001 L15 · 20 m", "M0001 L16 · 30 m", "M0001 L17 · 1 h",
        "M0001 L18 · 2 h",
    ]  # fmt: skip
    assert all((r.src, r.dst) == ("broker:broker-a", "schedule:broker-a") for r in hops)
    dues = [r for r in vm.rows if r.kind is ArrowKind.DUE]
    assert [b.time_ms - a.time_ms for a, b in zip(hops, dues, strict=True)] == [s * 1000 for s in DEFAULT_WAITS_S]
    assert sum(DEFAULT_WAITS_S) == 17_140
    stored = next(e.time_ms for e in retry_snap.events if e.kind is EventKind.STORED)
    (dlq,) = [r for r in vm.rows if r.kind is ArrowKind.DLQ]
    assert dlq.time_ms - stored == 17_140_000
    assert (dlq.src, dlq.dst) == ("consumer:c1", "broker:broker-a")


def test_the_send_back_is_drawn_before_the_hop_it_causes(retry_snap: LabSnapshot) -> None:
    """The broker records the schedule hop before the client records the send-back; the picture keeps cause first."""
    kinds = [r.kind for r in spacetime_view_model(retry_snap).rows]
    first_back = kinds.index(ArrowKind.SEND_BACK)
    assert kinds[first_back - 1 : first_back + 3] == [
        ArrowKind.LISTENER, ArrowKind.SEND_BACK, ArrowKind.SCHEDULE, ArrowKind.DUE,
    ]  # fmt: skip


def test_axis_is_event_indexed_with_real_time_labels(retry_snap: LabSnapshot) -> None:
    """One row per event; the axis names each new virtual time once, in order, and says it is not to scale."""
    scene = spacetime_scene(spacetime_view_model(retry_snap))
    ticks = [m.text for m in scene.marks if m.role == "time-tick"]
    assert ticks[:4] == ["0 ms", "10 s", "40 s", "1 m 40 s"]
    assert ticks[-1] == "4 h 45 m 40 s" and len(ticks) == len(set(ticks)) == 17
    assert "event-indexed" in scene.mark("axis:title").text and "not to scale" in scene.mark("axis:title").text
    assert dict(scene.extra)["axis"] == "event-indexed"
    assert len([m for m in scene.marks if m.role == "axis-break"]) == 16


def test_now_line_sits_at_the_snapshot_time_below_every_row(retry_snap: LabSnapshot) -> None:
    """The "now" line is labelled with the snapshot's virtual time and drawn under the last row."""
    scene = spacetime_scene(spacetime_view_model(retry_snap))
    now = scene.mark("now")
    assert scene.mark("now:t").text == "4 h 50 m" and retry_snap.now_ms == 17_400_000
    assert scene.mark("now:label").text == "now"
    assert dict(scene.extra)["now-ms"] == "17400000" and dict(scene.extra)["position"] == str(retry_snap.trace_len)
    assert now.y > max(m.y for m in scene.marks if m.key.startswith("row:"))
    early = example_snapshot("default_retry_schedule", 12)
    vm = spacetime_view_model(early)
    assert spacetime_scene(vm).mark("now:t").text == f"{early.now_ms} ms" == "0 ms"
    assert all(r.seq <= early.trace_len for r in vm.rows)


def test_only_the_past_is_drawn() -> None:
    """At position 12 there is one pull and one send-back, no due delivery yet: the future is not shown."""
    snap = example_snapshot("default_retry_schedule", 12)
    vm = spacetime_view_model(snap)
    assert (vm.count("pull"), vm.count("send-back"), vm.count("schedule"), vm.count("due")) == (1, 1, 1, 0)
    assert vm.position == snap.trace_len == 12


def test_no_text_overlaps_and_the_window_keeps_now_on_screen(retry_snap: LabSnapshot) -> None:
    """No two text boxes overlap (whole run, a 36-row window, two brokers); the window says what it hides."""
    vm = spacetime_view_model(retry_snap)
    full = spacetime_scene(vm)
    window = spacetime_scene(vm, max_rows=36)
    assert overlapping_texts(full) == [] and overlapping_texts(window) == []
    assert dict(window.extra)["rows"] == "36" and dict(window.extra)["hidden-rows"] == str(len(vm.rows) - 36)
    assert window.height < full.height and window.mark("now").y < window.height
    two_brokers = spacetime_scene(spacetime_view_model(example_snapshot("broker_down_sync_retry")))
    assert overlapping_texts(two_brokers) == []
    assert texts_outside(full) == [] and texts_outside(two_brokers) == []


def test_same_snapshot_same_svg() -> None:
    """Two independent replays to the same position give the same SVG text, byte for byte."""
    a = spacetime_scene(spacetime_view_model(example_snapshot("default_retry_schedule", 90)), max_rows=30)
    b = spacetime_scene(spacetime_view_model(example_snapshot("default_retry_schedule", 90)), max_rows=30)
    assert a.to_svg() == b.to_svg()


def test_producer_retries_on_broker_b_after_broker_a_refuses() -> None:
    """broker-a down: M0002's SYNC attempt 1 stops short of broker-a (✗), attempt 2 reaches broker-b; ONEWAY is lost."""
    snap = example_snapshot("broker_down_sync_retry")
    vm = spacetime_view_model(snap)
    sends = [r for r in vm.rows if r.msg_id == "M0002" and r.src == "producer:pg"]
    assert [(r.kind, r.dst, r.label) for r in sends] == [
        (ArrowKind.SEND_REFUSED, "broker:broker-a", "M0002 #1 q0 ✗ RemotingConnectException"),
        (ArrowKind.SEND, "broker:broker-b", "M0002 #2 q0 ✓"),
    ]
    scene = spacetime_scene(vm)
    refused, ok = (scene.mark(f"row:{r.seq}") for r in sends)
    pg, a, b = (lane_x(scene, lane) for lane in ("producer:pg", "broker:broker-a", "broker:broker-b"))
    assert refused.role == "send-refused" and not refused.arrow and pg < refused.x2 < a - 20
    assert scene.mark(f"row:{sends[0].seq}:x").role == "broken"
    assert ok.role == "send" and ok.arrow and abs(ok.x2 - b) < 10 and refused.y < ok.y
    lost = [r for r in vm.rows if r.msg_id == "M0003"]
    assert [r.kind for r in lost] == [ArrowKind.SEND_REFUSED, ArrowKind.FAILURE]
    assert lost[1].label == "✗ M0003 send failed (ONEWAY, 1 attempt)"
    (down,) = [s for s in vm.spans if s.kind == "down"]
    assert (down.lane, down.end_seq) == ("broker:broker-a", None)
    assert scene.mark(f"span:{down.start_seq}:broker:broker-a").role == "down-span"


def test_failed_send_back_then_inner_producer_then_local_retry() -> None:
    """Partitioned: the send-back fails, the inner producer's 3 attempts are refused, then a local retry in 5 s."""
    vm = spacetime_view_model(example_snapshot("send_back_local_retry"))
    at_2s = [(r.kind.value, r.label) for r in vm.rows if r.time_ms == 2000]
    assert at_2s == [
        ("result", "M0001 ✗ RECONSUME_LATER after 1 s"),
        ("send-back-failed", "send-back M0001 ✗ RemotingConnectException"),
        ("send-refused", "M0001 #1 → %RETRY%cg ✗ RemotingConnectException"),
        ("send-refused", "M0001 #2 → %RETRY%cg ✗ RemotingConnectException"),
        ("send-refused", "M0001 #3 → %RETRY%cg ✗ RemotingConnectException"),
        ("failure", "✗ M0001 send failed (SYNC, 3 attempts)"),
        ("failure", "✗ fallback: M0001 via inner producer (L3)"),
        ("note", "M0001 local retry in 5 s"),
    ]
    refused = [r for r in vm.rows if r.kind is ArrowKind.SEND_REFUSED]
    assert {(r.src, r.dst) for r in refused} == {("consumer:c1", "broker:broker-a")}  # the inner producer is c1
    (listener,) = [s for s in vm.spans if s.kind == "listener"]
    assert [r.time_ms for r in vm.rows if r.seq in (listener.start_seq, listener.end_seq)] == [1000, 2000]


def test_orderly_lock_requests_are_one_light_arrow_per_batch() -> None:
    """lockBatchMQ covers a broker's queues in one request: one arrow with a count; locks=False hides them."""
    snap = example_snapshot("orderly_suspend")
    vm = spacetime_view_model(snap)
    locks = [(r.time_ms, r.label) for r in vm.rows if r.kind is ArrowKind.LOCK]
    assert locks == [(0, "lock 1 queue"), (0, "lock 4 queues"), (1000, "renew 5 queues")]
    assert spacetime_view_model(snap, locks=False).count("lock") == 0
    suspends = [r.label for r in vm.rows if "SUSPEND " in r.label]
    assert suspends == ["M0001 SUSPEND 1 s (r1)", "M0001 SUSPEND 1 s (r2)"]


def test_text_rendering_one_line_per_row(retry_snap: LabSnapshot) -> None:
    """The text form names time, actors and label; it ends with the now line."""
    text = spacetime_text(spacetime_view_model(retry_snap)).splitlines()
    assert "        0 ms  pg → broker-a  M0001 #1 q2 ✓" in text
    assert text[-2] == "4 h 45 m 40 s  c1 → broker-a  M0001 → %DLQ%cg (r16)"
    assert text[-1] == "    4 h 50 m  now (position 162)"


def test_view_draws_a_scene_per_position() -> None:
    """Driven by the controller, the view draws a keyed SVG; a step adds rows and moves the now line."""
    view = SpaceTimeView(max_rows=20)
    c = Controller(demo_lab, views=[view], run_ahead=False)
    c.seek(12)
    first = view.current
    assert first is not None and 'data-testid="rq-spacetime"' in view.static_html()
    assert view.canvas.scene["testid"] == "rq-spacetime"
    c.seek(40)
    assert view.current is not None and len(view.current.keys("pull")) > len(first.keys("pull"))
    assert view.text.splitlines()[-1].endswith(f"now (position {c.position})")
    assert view.errors == []


def _flush_timeout_lab(response_delay_ms: int = 0) -> Lab:
    """Lab 01b's first picture, small: broker-a stores M0001 but answers FLUSH_DISK_TIMEOUT (after a delay)."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.set_broker_fault("broker-a", put_status="FLUSH_DISK_TIMEOUT", response_delay_ms=response_delay_ms)
    lab.at("1s", p.send, Message("TopicTest", "m0"))
    return lab


def test_a_stored_send_answered_flush_disk_timeout_is_drawn_stored_not_failed() -> None:
    """Issue 30: FLUSH_DISK_TIMEOUT (like FLUSH_SLAVE_TIMEOUT, SLAVE_NOT_AVAILABLE) means the broker stored the
    message; lab 01b drew it as "✗ FLUSH_DISK_TIMEOUT" in the failed style. It is drawn as stored (✓), with its
    status."""
    at_once = spacetime_view_model(_flush_timeout_lab().run(until="5s").snapshot())
    (send,) = [r for r in at_once.rows if r.msg_id == "M0001"]
    assert (send.kind, send.label, send.failed) == (ArrowKind.SEND, "M0001 #1 q0 ✓ FLUSH_DISK_TIMEOUT", False)
    assert send.detail.endswith("stored; FLUSH_DISK_TIMEOUT: the broker could not make it as safe as asked in time")
    late = spacetime_view_model(_flush_timeout_lab(response_delay_ms=500).run(until="5s").snapshot())
    rows = [(r.kind, r.label, r.failed) for r in late.rows if r.msg_id == "M0001"]
    assert rows == [
        (ArrowKind.SEND, "M0001 #1 q0", False),
        (ArrowKind.RESPONSE, "M0001 #1 ✓ FLUSH_DISK_TIMEOUT", False),
    ]
    assert not any("✗" in r.label for r in late.rows if r.msg_id == "M0001")


def _late_cast(orderly: bool) -> Lab:
    """demo_lab, and a producer that only appears at 1.5 s, when it sends: the diagram's cast changes mid-run."""
    lab = demo_lab(messages=2, orderly=orderly)

    def late() -> None:
        lab.add_producer("pg-late").send(Message("TopicTest", "late"))

    lab.at(1500, late)
    return lab


@pytest.mark.parametrize("orderly", [False, True])
@pytest.mark.parametrize("locks", [True, False])
def test_a_run_folded_once_is_each_frame_folded_alone(orderly: bool, locks: bool) -> None:
    """A run's frames fold each event once (spacetime_view_models), and draw what folding each frame's trace from
    its start draws, also across a producer that appears mid-run and when a trace is not the one before's going
    on (the fold starts again there)."""
    snaps = build_run(lambda: _late_cast(orderly), horizon="40s").snapshots
    assert len(snaps) > 5
    assert snaps[1].producers != snaps[-1].producers
    assert spacetime_view_models(snaps, locks=locks) == [spacetime_view_model(s, locks=locks) for s in snaps]
    backwards = snaps[::-1]  # no frame's trace goes on from the one before: each is folded from its start
    assert spacetime_view_models(backwards, locks=locks) == [spacetime_view_model(s, locks=locks) for s in backwards]


def test_a_fold_starts_again_where_a_queue_it_drew_is_not_there_any_more() -> None:
    """The fold goes on with a snapshot only if it finds each queue drawn so far on the same broker: without the
    queues c1 pulled from, the same trace draws those pulls as notes on c1's line, not as arrows from broker-a."""
    last = build_run(lambda: _late_cast(False), horizon="40s").snapshots[-1]
    pulled_from = {e.data["queue"] for e in last.events if e.kind is EventKind.PULLED}
    gone = replace(last, queues=tuple(q for q in last.queues if q.name not in pulled_from))
    assert pulled_from and len(gone.queues) < len(last.queues)
    assert spacetime_view_models([last, gone]) == [spacetime_view_model(last), spacetime_view_model(gone)]
    assert spacetime_view_model(gone) != spacetime_view_model(last)
