"""LeaseView: orderly locks as a lease timeline — exact lease ends, renewal ticks, held locks, crash and take-over."""

from __future__ import annotations

import re
from itertools import pairwise

from rmqlab.widgets import Controller, Replay, demo_lab, take_snapshot
from rmqlab.widgets.lease_view import (
    BROKER_LEASE_MS,
    CLIENT_TRUST_MS,
    LOCK_INTERVAL_MS,
    LeaseSpan,
    LeaseView,
    lease_model,
    lease_scene,
    lease_text,
)
from rmqlab.widgets.scene import text_width

import rmqlab
from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import Lab, Message, after
from rmqlab.snapshot import LabSnapshot

Q = "ORD@broker-a:0"


def one_orderly_consumer(listener=lambda m, c: O.SUCCESS, batch: int = 1, sends: int = 0) -> Lab:
    """One orderly consumer c1 of ORD (one queue); ``sends`` messages at 2 s."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "og", subscribe={"ORD": "*"}, listener=listener, orderly=True, name="c1", consume_message_batch_max_size=batch
    )
    for i in range(sends):
        lab.at("2s", producer.send, Message("ORD", f"m{i}"))
    return lab


def crash_and_takeover() -> Lab:
    """c1 holds ORD, c2 joins at 5 s, c1 crashes at 30 s; listeners take 2 s; a message every 10 s from 10 s."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    producer = lab.add_producer("pg")
    slow = lambda m, c: after("2s", O.SUCCESS)  # noqa: E731
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=slow, orderly=True, name="c1")
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=slow, orderly=True, name="c2", start="5s")
    lab.at("30s", lambda: lab.consumers["c1"].crash())
    for t in range(10, 120, 10):
        lab.at(f"{t}s", producer.send, Message("ORD", f"m{t}"))
    return lab


def when(factory, t_ms: int) -> LabSnapshot:
    """The snapshot at the first controller position whose virtual time is at least ``t_ms``."""
    replay = Replay(factory)
    while replay.lab.now < t_ms and replay.step_once():
        pass
    return replay.snapshot()


def band(snap: LabSnapshot, queue: str = Q):
    (found,) = [b for b in lease_model(snap).bands if b.queue == queue]
    return found


def test_constants_match_the_spec():
    """Broker lease 60 s (RebalanceLockManager), client trust 30 s (ProcessQueue), lockAll every 20 s."""
    assert (BROKER_LEASE_MS, CLIENT_TRUST_MS, LOCK_INTERVAL_MS) == (60_000, 30_000, 20_000)


def test_lease_ends_60_s_after_the_last_renewal_and_renewals_tick_every_20_s():
    """Run to 62 s: locked at 0 (rebalance), renewed at 1, 21, 41, 61 s; the lease ends at 121 s, trust at 91 s."""
    lab = one_orderly_consumer()
    lab.run(until="62s")
    b = band(take_snapshot(lab))
    assert (b.holder, b.lease_ends_ms) == ("c1", 61_000 + BROKER_LEASE_MS)
    assert b.times("acquired") == (0,)
    assert b.times("renewed") == (1_000, 21_000, 41_000, 61_000)
    assert [t2 - t1 for t1, t2 in pairwise(b.times("renewed"))] == [LOCK_INTERVAL_MS] * 3
    assert b.lane("lease").spans == (LeaseSpan(0, 121_000, "c1", open=True),)
    assert b.lane("trust", "c1").spans == (LeaseSpan(0, 91_000, "c1", open=True),)
    assert lease_text(lease_model(take_snapshot(lab))).splitlines()[:3] == [
        "ORD@broker-a:0 [og] held by c1 (lease ends at 2 m 1 s)",
        "  broker lease (60 s): c1 0 ms–2 m 1 s…",
        "  c1 trusts its lock (30 s): 0 ms–1 m 31 s…",
    ]


def test_consume_lock_is_held_exactly_while_the_listener_runs():
    """2 s listener, batches of 3: consume lock 2–4, 4–6, 6–8 s; the MessageQueueLock spans the loop, 2–8 s."""
    factory = lambda: one_orderly_consumer(lambda m, c: after("2s", O.SUCCESS), batch=3, sends=5)  # noqa: E731
    mid = when(factory, 4_000)
    (pq,) = [pq for pq in mid.consumer("c1").process_queues if pq.queue == Q]
    assert pq.in_listener and pq.local_lock_held
    b = band(mid)
    assert b.lane("consume-lock", "c1").spans == (LeaseSpan(2_000, 4_000, "c1"), LeaseSpan(4_000, 4_000, "c1", True))
    lab = factory()
    lab.run(until="20s")
    b = band(take_snapshot(lab))
    assert b.lane("consume-lock", "c1").spans == (
        LeaseSpan(2_000, 4_000, "c1"),
        LeaseSpan(4_000, 6_000, "c1"),
        LeaseSpan(6_000, 8_000, "c1"),
    )
    assert b.lane("mq-lock", "c1").spans == (LeaseSpan(2_000, 8_000, "c1"),)


def test_crash_blocks_the_queue_until_the_lease_expires_then_c2_takes_over():
    """c1 last renewed at 21 s and crashed at 30 s: lease to 81 s. c2, woken by the crash, is refused at 30 s and
    rebalances every 20 s from then (``waitForRunning``): refused at 50 and 70 s, the lease expired 81–90 s, c2
    takes over at 90 s and renews at 106 s (its lockAll: 6 s after its 5 s start, then every 20 s)."""
    b = band(when(crash_and_takeover, 110_000))
    assert b.lane("lease").spans == (
        LeaseSpan(0, 81_000, "c1"),
        LeaseSpan(81_000, 90_000, "c1", expired=True),
        LeaseSpan(90_000, 166_000, "c2", open=True),
    )
    assert (b.holder, b.lease_ends_ms) == ("c2", 106_000 + BROKER_LEASE_MS)
    assert b.times("crash") == (30_000,) and b.times("takeover") == (90_000,)
    assert b.times("refused") == (30_000, 50_000, 70_000)
    assert [m.text for m in b.markers if m.kind == "takeover"] == ["takeover c1 → c2"]
    assert b.lane("trust", "c1").spans == (LeaseSpan(0, 30_000, "c1"),)  # the crash ends c1's trust
    assert b.lane("consume-lock", "c1").spans == (LeaseSpan(10_000, 12_000, "c1"), LeaseSpan(20_000, 22_000, "c1"))
    assert b.lane("consume-lock", "c2").spans[0] == LeaseSpan(90_000, 92_000, "c2")


def test_while_expired_and_not_yet_taken_over_the_lease_is_drawn_expired_up_to_now():
    """At 82 s nobody has asked yet: c1's entry is past its 60 s and still in the table, drawn expired to now."""
    lab = crash_and_takeover()
    lab.run(until="82s")
    snap = take_snapshot(lab)
    b = band(snap)
    assert snap.now_ms == 82_000
    assert b.lane("lease").spans == (
        LeaseSpan(0, 81_000, "c1"),
        LeaseSpan(81_000, 82_000, "c1", open=True, expired=True),
    )
    assert "(expired)" in lease_text(lease_model(snap)).splitlines()[0]


def bbox(m, size: float = 11.0) -> tuple[float, float, float, float]:
    width = len(m.text) * size * 0.6
    left = m.x - (width / 2 if m.anchor == "middle" else width if m.anchor == "end" else 0)
    return left, m.y - size, left + width, m.y + 2


def overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_scene_places_ticks_on_the_time_axis_and_labels_never_overlap():
    """Renewal ticks sit at x0 + t·scale; the now line at now; no two text marks overlap (bounding boxes)."""
    scene = lease_scene(lease_model(when(crash_and_takeover, 110_000)))
    ticks = [m for m in scene.marks if m.role == "lease-renewed"]
    zero = scene.mark("axis:label:0").x
    twenty = scene.mark("axis:label:20000").x
    per_ms = (twenty - zero) / 20_000
    assert [round((m.x - zero) / per_ms) for m in ticks] == [1_000, 21_000, 106_000]
    assert round((scene.mark("now").x - zero) / per_ms) == 110_000
    texts = [m for m in scene.marks if m.kind == "text" and m.text]
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            assert not overlaps(bbox(a), bbox(b)), (a.key, a.text, b.key, b.text)
    assert [m.text for m in scene.marks if m.role == "lease-moment-label"] == ["c1 crash", "takeover c1 → c2"]


def test_view_renders_only_on_change_and_says_when_there_is_nothing_orderly():
    """A concurrent run: the view draws one empty picture and is not redrawn while nothing orderly happens."""
    view = LeaseView()
    c = Controller(demo_lab, views=[view], run_ahead=False)
    c.seek(3)
    c.play(5)
    assert view.renders == 1 and view.text == "(no orderly queues)"
    assert view.title == "Locks" and view.errors == []
    orderly = LeaseView()
    Controller(lambda: demo_lab(orderly=True), views=[orderly], run_ahead=False).jump_to_next("lock_renewed")
    svg = orderly.static_html()
    assert 'data-testid="rq-lease-view"' in svg and svg.count('data-role="lease-title"') == 2
    assert "1 orderly %RETRY% queue(s) not shown" in orderly.text


def test_the_locks_tab_in_chinese_fits_its_columns_and_keeps_the_identifiers():
    """``set_language("zh")``: lane labels, holder, moments, tooltips and the text view in Chinese (clients, queues,
    groups, MessageQueueLock and %RETRY% as they are); each lane label fits the label column and no two texts
    overlap, measured with the layout's own estimate (a 汉字 is one em)."""
    snap = when(crash_and_takeover, 110_000)
    rmqlab.set_language("zh")
    try:
        vm = lease_model(snap)
        scene, text = lease_scene(vm), lease_text(vm)
        empty = LeaseView()
        Controller(demo_lab, views=[empty], run_ahead=False).seek(3)
    finally:
        rmqlab.set_language(None)
    assert [lane.label for lane in vm.bands[0].lanes] == [
        "Broker 锁租约（60 s）", "c1 信任自己的锁（30 s）", "c1 MessageQueueLock", "c1 消费锁",
        "c2 信任自己的锁（30 s）", "c2 MessageQueueLock", "c2 消费锁",
    ]  # fmt: skip
    assert [m.text for m in scene.marks if m.role == "lease-moment-label"] == ["c1 崩溃", "接管 c1 → c2"]
    assert scene.mark("lease:og:ORD@broker-a:0:holder").text == "由 c2 持有" and scene.label == "顺序消费的锁租约"
    assert text.splitlines()[0] == "ORD@broker-a:0 [og] 由 c2 持有（租约于 2 m 46 s 到期）"
    assert "  续期：1 s 21 s 1 m 46 s" in text and "  @30 s c2 锁定被拒（由 c1 持有）" in text
    assert text.splitlines()[-1] == "（另有 1 个顺序消费的 %RETRY% 队列未显示）"
    assert empty.text == "（没有顺序消费的队列）"
    words = [m.text for m in scene.marks if m.text] + [m.title for m in scene.marks if m.title] + text.splitlines()
    kept = re.compile(
        r"%RETRY%|ORD@broker-a:0|\[og\]|MessageQueueLock|lock / lockAll|Broker|\bc[12]\b|\b(ms|s|m|h)\b|[✗–→…@]"
    )
    assert [w for w in words if re.search(r"[A-Za-z]{2,}", kept.sub("", w))] == []
    column = scene.mark("axis:label:0").x  # the time axis starts where the label column ends
    for label in (m for m in scene.marks if m.role == "lease-lane-label"):
        assert label.x + text_width(label.text) < column - 4, label.text
    texts = [m for m in scene.marks if m.kind == "text" and m.text and m.role not in ("lease-axis", "legend")]
    boxes = [(m.x, m.y - 11, m.x + text_width(m.text, 12 if m.cls == "rq-title" else 11), m.y + 2) for m in texts]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not overlaps(a, b), (a, b)
