"""Each consumer box of the flow picture shows its pending clocks, read from the engine at the frame (the scheduler's
timers, an orderly ConsumeRequest's beginTime, the response table), a lock badge on each queue whose broker lock it
holds, and a cut link; at a paused "when" checkpoint every clock's time reads "?" (widgets.flow_clocks)."""

from __future__ import annotations

from typing import Any

import pytest
from rmqlab.widgets.checkpoint_mask import mask_model, when_mask
from rmqlab.widgets.flow_layout import flow_scene
from rmqlab.widgets.flow_view import flow_view_model

import rmqlab
from rmqlab import ConsumeOrderlyStatus, Lab, Message, after
from tests.test_flow_fits import _overlaps

SUCCESS = ConsumeOrderlyStatus.SUCCESS


def cut_off_lab() -> Lab:
    """Lab 07a's cut-off picture: 15 messages of 7 s each at 2 s; c1's link to broker-a cut from 25 s to 70 s."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg", send_which_queue_start=0)
    lab.add_consumer(
        "cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: after(7000, SUCCESS), orderly=True, name="c1"
    )
    for i in range(15):
        lab.at("2s", p.send, Message("TopicTest", f"m{i}"))
    lab.at("25s", lab.partition, "c1", "broker-a")
    lab.at("70s", lab.partition, "c1", "broker-a", heal=True)
    return lab


def shutdown_lab() -> Lab:
    """Lab 07b's shutdown picture: broker-a answers 4 s late from 7.5 s, c1 shuts down at 8 s."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg", send_which_queue_start=0)
    c1 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: SUCCESS, orderly=True, name="c1")
    for i, body in enumerate("abcdef"):
        lab.at(f"{2 + i}s", p.send, Message("TopicTest", body))
    lab.at("7.5s", lab.set_broker_fault, "broker-a", response_delay_ms="4s")
    lab.at("8s", c1.shutdown)
    return lab


def _clocks(lab: Lab, until: str) -> tuple[Any, list[str]]:
    lab.run(until=until)
    vm = flow_view_model(lab.snapshot())
    return vm, [k.text for k in vm.consumers[0].clocks]


def test_the_consumer_box_lists_its_pending_timers_soonest_first() -> None:
    lab = cut_off_lab()
    vm, texts = _clocks(lab, "26s")
    assert texts == [
        "offset persist in 4 s",
        "route poll in 4 s",
        "rebalance in 14 s",
        "lock renewal in 15 s",
        "TopicTest:0 yields after t = 1 m 2 s",  # beginTime 2 s + MAX_TIME_CONSUME_CONTINUOUSLY
    ]
    snap = lab.snapshot()
    for clock in vm.consumers[0].clocks[:4]:  # each is the engine's own timer, not a lab's constant
        assert clock.due_ms in {t.due_ms for t in snap.timers_of(owner="consumer:c1")}


def test_a_request_waiting_with_a_timeout_and_a_shutdown_are_shown_until_they_end() -> None:
    lab = shutdown_lab()
    _vm, texts = _clocks(lab, "8.5s")
    assert texts[:2] == ["shutting down", "UNLOCK_BATCH_MQ waiting, gives up at 9.001 s"]
    assert not any(t.startswith("lock renewal") for t in texts)  # lockMQPeriodically skips a stopped service
    _vm, texts = _clocks(lab, "9.001s")
    assert texts == []  # the request timed out, offsets persisted, c1 stopped


def takeover_lab() -> Lab:
    """Lab 07b's take-over: c1 holds the queue's lock, crashes at 10 s; c2 starts at 11 s and waits for the lease."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg", send_which_queue_start=0)
    c1 = lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: SUCCESS, orderly=True, name="c1")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: SUCCESS, orderly=True, name="c2",
                     start="11s")  # fmt: skip
    lab.at("2s", p.send, Message("TopicTest", "a"))
    lab.at("10s", c1.crash)
    return lab


def _locked(lab: Lab, until: str) -> list[str]:
    lab.run(until=until)
    return [p.key for p in flow_view_model(lab.snapshot()).places if p.locked]


def test_a_lock_badge_only_where_this_instance_holds_a_live_broker_lease() -> None:
    lab = takeover_lab()
    assert _locked(lab, "5s") == ["pq:c1:%RETRY%cg@broker-a:0", "pq:c1:TopicTest@broker-a:0"]
    lease = lab.snapshot().lock("cg", "TopicTest@broker-a:0")
    assert lease is not None and lease.client == "c1"
    assert _locked(lab, "30s") == []  # c1 crashed (no box rows), its lease still live: c2 cannot lock yet
    assert _locked(lab, f"{lease.expires_ms + 20_000}ms") == [
        "pq:c2:%RETRY%cg@broker-a:0",
        "pq:c2:TopicTest@broker-a:0",
    ]


def _broker_lock(lab: Lab, until: str) -> tuple[str, bool]:
    lab.run(until=until)
    (queue,) = [p for p in flow_view_model(lab.snapshot()).places if p.key == "queue:TopicTest@broker-a:0"]
    return queue.lock_owner, queue.lock_expired


def test_a_broker_queue_names_the_holder_its_lock_table_names_through_the_take_over() -> None:
    """Lab 07b's take-over on the picture: the broker's queue names c1 while c1 runs, still c1 after its crash (the
    lease is live: c2 is refused), c1 with a hollow padlock once the lease expired, then c2 — the broker's own table
    at each moment, drawn as a padlock and the client under the queue's name, overlapping nothing."""
    whole = takeover_lab()
    whole.run(until="2m")
    took = next(e.time_ms for e in whole.trace if e.kind.value == "lock_acquired" and e.actor == "consumer:c2")
    lab = takeover_lab()
    assert _broker_lock(lab, "5s") == ("c1", False)
    lease = lab.snapshot().lock("cg", "TopicTest@broker-a:0")
    assert lease is not None
    assert _broker_lock(lab, "30s") == ("c1", False)
    assert took > lease.expires_ms
    between = lease.expires_ms + 1 + (took - lease.expires_ms - 1) // 2
    assert _broker_lock(lab, f"{between}ms") == ("c1", True)
    assert _broker_lock(lab, f"{took}ms") == ("c2", False)
    scene = flow_scene(flow_view_model(lab.snapshot()))
    marks = {m.key: m for m in scene.marks}
    assert marks["lock:queue:TopicTest@broker-a:0"].role == "lock"
    assert marks["owner:queue:TopicTest@broker-a:0"].text == "c2"
    assert _overlaps(scene) == []
    concurrent = Lab(seed=7)
    concurrent.add_broker("broker-a")
    concurrent.create_topic("TopicTest", queues=1)
    concurrent.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda m, c: "CONSUME_SUCCESS", name="c1")
    concurrent.run(until="10s")
    assert all(not p.lock_owner for p in flow_view_model(concurrent.snapshot()).places)  # no orderly consumer


def test_a_cut_link_is_drawn_while_the_partition_lasts() -> None:
    lab = cut_off_lab()
    vm, _texts = _clocks(lab, "20s")
    assert vm.cut_links == ()
    vm, _texts = _clocks(lab, "41s")
    assert vm.cut_links == (("c1", "broker-a"),)
    scene = flow_scene(vm)
    roles = {m.key: m.role for m in scene.marks}
    assert roles["cut-link:c1:broker-a"] == "cut-link" and roles["lock:pq:c1:TopicTest@broker-a:0"] == "lock"
    assert any(m.text == "link to broker-a cut" for m in scene.marks)
    vm, _texts = _clocks(lab, "71s")
    assert vm.cut_links == ()


def test_every_clock_time_is_hidden_at_a_paused_when_checkpoint() -> None:
    lab = shutdown_lab()
    vm, _texts = _clocks(lab, "8.5s")
    masked = mask_model(vm, when_mask(answer_ms=9001, now_ms=8500))
    assert [k.text for k in masked.consumers[0].clocks] == [  # in a fixed order: soonest first would tell
        "shutting down",
        "route poll in (hidden)",
        "rebalance in (hidden)",
        "offset persist in (hidden)",
        "UNLOCK_BATCH_MQ waiting, gives up at (hidden)",
    ]
    assert "9.001" not in flow_scene(masked).to_svg()


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("make_lab,until", [(cut_off_lab, "41s"), (shutdown_lab, "8.5s")], ids=["cut", "shutdown"])
def test_clocks_are_eleven_pixels_and_overlap_nothing(language: str, make_lab: Any, until: str) -> None:
    rmqlab.set_language(language)
    try:
        lab = make_lab()
        lab.run(until=until)
        scene = flow_scene(flow_view_model(lab.snapshot()))
    finally:
        rmqlab.set_language(None)
    clocks = [m for m in scene.marks if m.key.startswith(("clock:", "cut:"))]
    assert len(clocks) >= 5 and all("rq-small" in m.cls for m in clocks)
    assert _overlaps(scene) == []
    box = next(m for m in scene.marks if m.key == "consumer:c1")
    assert all(box.y < m.y < box.y + box.h and m.x > box.x for m in clocks)


@pytest.mark.parametrize(
    "language,now,hidden",
    [("en", "route poll now", "route poll in (hidden)"), ("zh", "现在拉取路由", "（待答） 后拉取路由")],
)
def test_a_clock_due_at_the_frame_reads_now_and_its_time_stays_hidden_at_a_when_pause(
    language: str, now: str, hidden: str
) -> None:
    """A timer due within the countdown's rounding reads "now", not "in 0 s"; masked, it reads "in ?" like the
    others (a "now" would tell the time the question hides)."""
    rmqlab.set_language(language)
    try:
        lab = cut_off_lab()
        vm, texts = _clocks(lab, "30s")
        due = next(t for t in lab.snapshot().timers_of(owner="consumer:c1") if t.kind.value == "route_poll")
        masked = [k.text for k in mask_model(vm, when_mask(answer_ms=40_000, now_ms=30_000)).consumers[0].clocks]
    finally:
        rmqlab.set_language(None)
    assert due.remaining_ms < 50 and texts[0] == now
    assert masked[0] == hidden
    assert sum(t.endswith(("now", "现在拉取路由")) for t in texts) == 1  # the others are still counted down


def slow_listener_lab() -> Lab:
    """Lab 02b's slow-listener picture, in small: c1 (concurrently) spends 30 min on M0001, sent at 1 s."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer(
        "cg",
        subscribe={"TopicTest": "*"},
        name="c1",
        listener=lambda m, c: after(30 * 60_000, rmqlab.ConsumeConcurrentlyStatus.CONSUME_SUCCESS),
    )
    lab.at("1s", p.send, Message("TopicTest", "slow"))
    return lab


def test_a_concurrent_consumer_shows_its_expired_message_scan() -> None:
    """cleanExpireMsg runs every consumeTimeout (15) minutes: the scan that takes the slow message back (revA 6)."""
    lab = slow_listener_lab()
    vm, texts = _clocks(lab, "2s")
    scan = next(k for k in vm.consumers[0].clocks if k.kind == "clean_expired")
    timers = lab.snapshot().timers_of(owner="consumer:c1")
    assert scan.due_ms in {t.due_ms for t in timers if t.kind.value == "clean_expired"} and scan.due_ms == 15 * 60_000
    assert "expiry scan in 14 m 58 s" in texts and texts[-1] == "expiry scan in 14 m 58 s"  # soonest first: the last
    vm, texts = _clocks(lab, "16m")
    assert "expiry scan in 14 m" in texts  # the next period, counted from the first scan
    masked = mask_model(vm, when_mask(answer_ms=30 * 60_000, now_ms=16 * 60_000))
    assert "expiry scan in (hidden)" in [k.text for k in masked.consumers[0].clocks]
