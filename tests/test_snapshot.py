"""``lab.snapshot()``: exact values of the engine-owned plain-data copy, in small scenarios.

Each figure below follows from the spec: a first RECONSUME_LATER goes to delay level 3 + 0 = 3 (10 s),
the broker lease is 60 s from the last renewal, the client trusts its lock for 30 s, and a BROADCASTING
failure or a send-back under ``retryQueueNums`` 0 leaves the offset done but the message dropped.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from enum import Enum
from pathlib import Path

import pytest
from rmqlab.widgets import Replay, demo_lab

from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, MessageQueue, ScriptedListener, TraceEvent, after
from rmqlab.core.scheduler import TimerKind
from rmqlab.snapshot import LabSnapshot, OffsetState, TimerSnap, TraceIndex, take_snapshot

T0 = MessageQueue("T", "broker-a", 0)


def _one_failure(*, message_model: str = "CLUSTERING", retry_queue_nums: int | None = None) -> Lab:
    """One broker, topic T with one queue, consumer c1 (group cg) failing its first delivery; one send at 1 s."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        listener=ScriptedListener(["RECONSUME_LATER"]),
        name="c1",
        message_model=message_model,
    )
    if retry_queue_nums is not None:
        lab.update_subscription_group("cg", retry_queue_nums=retry_queue_nums)
    lab.at("1s", producer.send, Message("T", "b"))
    return lab


def test_reconsume_later_parks_the_copy_in_level_3_for_10_s() -> None:
    """After the first failure M0001 waits in SCHEDULE_TOPIC_XXXX level 3, due 10 000 ms after it was stored."""
    lab = _one_failure().run(until=1500)
    snap = lab.snapshot()
    scheduled = next(e for e in lab.trace if e.kind.value == "scheduled")
    (level,) = snap.broker("broker-a").schedule
    assert (level.level, level.delay_ms, level.pending) == (3, 10_000, 1)
    assert level.dues == (("M0001", scheduled.time_ms + 10_000),) == (("M0001", 11_000),)
    assert level.mq == MessageQueue("SCHEDULE_TOPIC_XXXX", "broker-a", 2)
    assert snap.queue(T0).cells[0].state_for("cg") is OffsetState.SENT_BACK
    parked = snap.queue(level.mq).cells[0]
    assert (parked.msg_id, parked.real_topic, parked.reconsume_times) == ("M0001", "%RETRY%cg", 1)
    assert (parked.store_ms, parked.deliver_ms) == (1000, 11_000)
    assert snap.broker("broker-a").committed_offsets == (("cg", T0, 1),)
    pq = snap.consumer("c1").process_queue(T0)
    assert (pq.msg_tree_keys, pq.commit_offset, pq.memory_offset, pq.broker_offset) == ((), None, 1, 1)
    assert (pq.client_id, pq.group, pq.last_pull_ms, pq.last_consume_ms, pq.msg_count) == ("c1", "cg", 1000, 1000, 0)


def test_the_parked_copy_has_its_delay_level_timer() -> None:
    """The level-3 timer of schedule:broker-a fires at 11 000 ms for M0001 (on the 100 ms grid from 1000 ms)."""
    snap = _one_failure().run(until=1500).snapshot()
    (timer,) = snap.timers_of(TimerKind.DELAY_LEVEL)
    assert timer == TimerSnap(
        11_000,
        9_500,
        TimerKind.DELAY_LEVEL,
        "schedule:broker-a",
        MessageQueue("SCHEDULE_TOPIC_XXXX", "broker-a", 2),
        ("M0001",),
        3,
        seq=timer.seq,
    )
    assert snap.broker("broker-a").schedule[0].next_tick_ms == 11_000


def test_a_fresh_consumer_arms_the_periodic_services() -> None:
    """At t = 0 (``MQClientInstance.startScheduledTask``): route poll at 10 ms, heartbeat at 1 s, first offset
    persist at 10 s, all three on the client's one scheduled thread; the rebalance waits 20 s on its own."""
    snap = _one_failure().snapshot()
    mine = {(t.kind, t.due_ms) for t in snap.timers_of(owner="consumer:c1")}
    assert {
        (TimerKind.ROUTE_POLL, 10),
        (TimerKind.HEARTBEAT, 1000),
        (TimerKind.PERSIST_OFFSET, 10_000),
        (TimerKind.REBALANCE, 20_000),
        (TimerKind.CLEAN_EXPIRED, 900_000),
    } <= mine
    queued = [t for t in snap.timers_of(TimerKind.HEARTBEAT, TimerKind.PERSIST_OFFSET) if t.owner == "consumer:c1"]
    assert [t.seq for t in queued] == [0, 0]  # waiting their turn behind the thread's route-poll wait
    assert [t.due_ms for t in snap.timers_of(TimerKind.ROUTE_POLL, owner="producer:pg")] == [10]
    (send,) = snap.timers_of(TimerKind.ACTION)
    assert (send.due_ms, send.owner, send.detail) == (1000, "lab", "DefaultMQProducer.send")
    later = _one_failure().run(until=10_000).snapshot()
    assert [t.due_ms for t in later.timers_of(TimerKind.PERSIST_OFFSET)] == [15_000]  # then every 5 s
    assert [t.due_ms for t in snap.timers] == sorted(t.due_ms for t in snap.timers)


def test_failed_send_back_and_fallback_arm_the_5_s_local_retry() -> None:
    """c1 is cut from the broker while its 1 s listeners run: at 2000 both send-backs fail, retry at 7000."""

    def slow_failure(msgs: object, ctx: object) -> object:
        return after("1s", ConsumeConcurrentlyStatus.RECONSUME_LATER)

    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=slow_failure, name="c1")
    lab.at("1s", producer.send, Message("T", "b"))
    lab.at(1500, lab.partition, "c1", "broker-a")
    lab.at(1001, producer.send, Message("T", "c", keys="k2"))
    running = lab.run(until=1500).snapshot()
    first, second = running.timers_of(TimerKind.LISTENER)
    assert (first.due_ms, first.owner, first.queue, first.msg_ids) == (2000, "consumer:c1", T0, ("M0001",))
    assert (second.due_ms, second.msg_ids) == (2001, ("M0002",))
    assert running.consumer("c1").busy_threads == 2
    pq = running.consumer("c1").process_queue(T0)
    assert (pq.msg_tree_keys, pq.msg_tree_ids, pq.commit_offset) == ((0, 1), ("M0001", "M0002"), 0)
    assert [c.keys for c in running.queue(T0).cells] == [None, "k2"]
    snap = lab.run(until=2500).snapshot()
    retries = [(t.due_ms, t.owner, t.queue, t.msg_ids) for t in snap.timers_of(TimerKind.LOCAL_RETRY)]
    assert retries == [(7000, "consumer:c1", T0, ("M0001",)), (7001, "consumer:c1", T0, ("M0002",))]
    pq = snap.consumer("c1").process_queue(T0)
    assert (pq.msg_tree_keys, pq.commit_offset) == ((0, 1), 0)  # pinned while they wait


def test_orderly_suspend_and_lock_renewal_timers() -> None:
    """Orderly SUSPEND at 1000 ms: the queue wakes at 2000 (1 s); lockAll renews at 21 000 (every 20 s)."""
    replay = Replay(lambda: demo_lab(orderly=True, listener="fail_twice"))
    assert replay.jump_to_next("suspended")
    snap = replay.snapshot()
    # the step ends with the SUSPENDED event and the ConsumeRequest it schedules (submitConsumeRequestLater)
    assert (snap.now_ms, [e.kind.value for e in snap.events[-2:]]) == (1000, ["suspended", "consume_request"])
    (suspend,) = snap.timers_of(TimerKind.SUSPEND)
    assert (suspend.due_ms, suspend.queue) == (2000, MessageQueue("TopicTest", "broker-a", 0))
    assert [t.due_ms for t in snap.timers_of(TimerKind.LOCK_RENEW)] == [21_000]
    assert [t.due_ms for t in snap.timers_of(TimerKind.REBALANCE)] == [20_000]


def test_a_crashed_consumer_has_no_pending_timers_and_a_restart_arms_new_ones() -> None:
    """crash at 3 s: c1's stale timers are hidden; restarted at 90 s its new scheduled thread polls routes at
    90.01 s, heartbeats at 91 s, persists at 100 s; it rebalances at 110 s."""
    lab = demo_lab(fault="consumer_crash")
    assert lab.run(until=3000).snapshot().timers_of(owner="consumer:c1") == ()
    due = {t.kind: t.due_ms for t in lab.run(until=90_000).snapshot().timers_of(owner="consumer:c1")}
    assert due == {
        TimerKind.ROUTE_POLL: 90_010,
        TimerKind.HEARTBEAT: 91_000,
        TimerKind.PERSIST_OFFSET: 100_000,
        TimerKind.REBALANCE: 110_000,
        TimerKind.CLEAN_EXPIRED: 990_000,
    }


@pytest.mark.parametrize(
    "knobs",
    [{}, {"orderly": True, "listener": "fail_twice"}, {"fault": "broker_down"}, {"fault": "consumer_crash"}],
)
def test_every_engine_timer_is_labelled(knobs: dict[str, object]) -> None:
    """The engine labels everything it schedules: no OTHER timer at any of a run's stops."""
    replay = Replay(lambda: demo_lab(**knobs), horizon="2m")  # type: ignore[arg-type]
    kinds: set[TimerKind] = set()
    while replay.step_once():
        kinds.update(t.kind for t in replay.snapshot().timers)
    assert TimerKind.OTHER not in kinds
    assert {TimerKind.REBALANCE, TimerKind.PULL, TimerKind.CONSUME, TimerKind.HOLD_CHECK} <= kinds


def test_broadcasting_failure_is_dropped_never_acked() -> None:
    """BROADCASTING drops a failed message: its offset is DROPPED (lab 08 drew it as acked before)."""
    snap = _one_failure(message_model="BROADCASTING").run(until=1500).snapshot()
    assert snap.queue(T0).cells[0].state_for("cg") is OffsetState.DROPPED
    assert snap.consumer("c1").process_queue(T0).memory_offset == 1


@pytest.mark.parametrize("failing", ["b1", "b2"])
def test_each_broadcasting_instance_has_its_own_state(failing: str) -> None:
    """Two BROADCASTING instances, one fails: that instance DROPPED, the other ACKED, the group DROPPED either way."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    for name in ("b1", "b2"):
        result = "RECONSUME_LATER" if name == failing else "CONSUME_SUCCESS"
        lab.add_consumer(
            "bg", subscribe={"T": "*"}, listener=ScriptedListener([result]), name=name, message_model="BROADCASTING"
        )
    lab.at("1s", producer.send, Message("T", "b"))
    cell = lab.run(until="5s").snapshot().queue(T0).cells[0]
    other = "b2" if failing == "b1" else "b1"
    assert (cell.state_for_instance(failing), cell.state_for_instance(other)) == (
        OffsetState.DROPPED,
        OffsetState.ACKED,
    )
    assert cell.state_for("bg") is OffsetState.DROPPED


def test_send_back_under_zero_retry_queues_is_dropped() -> None:
    """retryQueueNums 0: the broker answers SUCCESS and stores nothing, so the offset is DROPPED, not SENT_BACK."""
    lab = _one_failure(retry_queue_nums=0).run(until=1500)
    snap = lab.snapshot()
    assert [e.get("ok") for e in lab.trace if e.kind.value == "send_back"] == [True]
    assert snap.queue(T0).cells[0].state_for("cg") is OffsetState.DROPPED
    assert snap.broker("broker-a").schedule == ()


def test_orderly_lock_lease_times() -> None:
    """c1 locks at 0 ms (rebalance): expiry 60 000; it renews at 1000 ms (first lockAll): expiry 61 000, trusted
    until 31 000."""
    lab = demo_lab(orderly=True, listener="succeed")
    first = lab.run(until=500).snapshot()
    assert {(lk.acquired_ms, lk.last_update_ms, lk.expires_ms) for lk in first.locks("cg")} == {(0, 0, 60_000)}
    snap = lab.run(until=1000).snapshot()
    lock = next(lk for lk in snap.locks("cg") if lk.mq == MessageQueue("TopicTest", "broker-a", 0))
    assert (lock.client, lock.acquired_ms, lock.last_update_ms, lock.expires_ms) == ("c1", 0, 1000, 61_000)
    assert (lock.ms_left, lock.expired) == (60_000, False)
    pq = snap.consumer("c1").process_queue(lock.mq)
    assert (pq.locked, pq.last_lock_ms, pq.trust_until_ms, pq.lock_expired) == (True, 1000, 31_000, False)


def test_crashed_instance_keeps_its_broker_locks_until_they_expire() -> None:
    """consumer_crash at 3 s: c1 is crashed, owns nothing, and its lease still runs out at 61 000 ms."""
    lab = demo_lab(orderly=True, listener="succeed", fault="consumer_crash").run(until=5000)
    snap = lab.snapshot()
    c1 = snap.consumer("c1")
    assert (c1.running, c1.crashed, c1.assigned, c1.process_queues) == (False, True, (), ())
    assert {lk.expires_ms for lk in snap.locks("cg")} == {61_000}


def test_consumer_instance_assignment_and_members() -> None:
    """The instance's assigned queues are MessageQueues, sorted; the broker knows c1 from its heartbeat."""
    snap = demo_lab().run(until=2000).snapshot()
    c1 = snap.consumer("c1")
    assert c1.assigned == (
        MessageQueue("%RETRY%cg", "broker-a", 0),
        MessageQueue("TopicTest", "broker-a", 0),
        MessageQueue("TopicTest", "broker-a", 1),
    )
    assert (c1.actor, c1.crashed, c1.busy_threads, c1.waiting_requests) == ("consumer:c1", False, 0, 0)
    assert snap.broker("broker-a").members == (("cg", ("c1",)),)


def test_equal_positions_give_equal_snapshots() -> None:
    """Two labs built alike and run to the same time give equal snapshots; an incremental index changes nothing."""
    index = TraceIndex()
    first = demo_lab(fault="consumer_crash")
    first.run(until=2000)
    first.snapshot(index)
    first.run(until=95_000)
    second = demo_lab(fault="consumer_crash").run(until=95_000)
    assert first.snapshot(index) == second.snapshot() == LabSnapshot.of(second) == take_snapshot(second)
    assert second.snapshot() != demo_lab(fault="consumer_crash").run(until=94_000).snapshot()


def _walk(value: object, path: str) -> None:
    """Fail on anything that is not plain data (ints, strings, enums, queues, tuples, frozen dataclasses)."""
    if value is None or isinstance(value, bool | int | str | Enum | MessageQueue):
        return
    if isinstance(value, TraceEvent):
        return  # an immutable tuple of plain values
    if isinstance(value, tuple):
        for i, item in enumerate(value):
            _walk(item, f"{path}[{i}]")
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        params = type(value).__dataclass_params__  # type: ignore[attr-defined]
        assert params.frozen, f"{path}: {type(value).__name__} is not frozen"
        assert not hasattr(value, "__dict__"), f"{path}: {type(value).__name__} is not slotted"
        for f in dataclasses.fields(value):
            _walk(getattr(value, f.name), f"{path}.{f.name}")
        return
    pytest.fail(f"{path} holds {type(value).__name__}, not plain data")


@pytest.mark.parametrize("orderly", [False, True])
def test_snapshot_is_plain_data(orderly: bool) -> None:
    """No live engine object anywhere in the snapshot, mid-run with messages in flight."""
    snap = demo_lab(orderly=orderly, listener="fail_twice").run(until=1500).snapshot()
    _walk(snap, "snap")


# ---------------------------------------------------------------------- the widgets / engine boundary
ROOT = Path(__file__).resolve().parents[1]
ENGINE_INTERNALS = frozenset(
    {
        "commit_log",
        "consume_queues",
        "consume_service",
        "consumer_offsets",
        "consuming_msg_orderly_tree_map",
        "local_offset_files",
        "lock_manager",
        "message_store",
        "mq_locks",
        "msg_tree_map",
        "offset_table",
        "process_queue_table",
        "pull_message_processor",
        "pull_requests_in_flight",
        "schedule_service",
        "send_message_processor",
    }
)
"""Attributes of live engine objects a view must read from the snapshot instead."""
_QUEUE_TEMPLATE = re.compile(r"@(\{[^{}]*\}|%[sd]):(\{[^{}]*\}|%[sd])")
"""``…@{broker}:{qid}`` / ``%s@%s:%d``: a ``TOPIC@BROKER:QID`` rebuilt by hand (``str(mq)`` and ``.name`` exist)."""


def boundary_violations(source: str, filename: str) -> list[str]:
    """Where ``source`` reaches into engine internals: getattr, internal attributes, hand-built queue names."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            if len(node.args) == 2 and isinstance(node.args[1], ast.Attribute) and node.args[1].attr == "name":
                continue  # getattr(model, f.name) over dataclasses.fields(model): a walk of a view-model's typed fields
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Call) and ast.unparse(first.func).endswith("import_module"):
                continue  # a package's lazy import (PEP 562 __getattr__): a name of our own module, not engine state
            found.append(f"{where}: getattr(...) — read the snapshot's typed fields instead")
        elif isinstance(node, ast.Attribute) and node.attr in ENGINE_INTERNALS:
            found.append(f"{where}: .{node.attr} is engine state — read lab.snapshot() instead")
        elif isinstance(node, ast.JoinedStr):
            template = "".join(
                part.value if isinstance(part, ast.Constant) and isinstance(part.value, str) else "{}"
                for part in node.values
            )
            if _QUEUE_TEMPLATE.search(template):
                found.append(f"{where}: f-string rebuilds a TOPIC@BROKER:QID queue name — use .name or str(mq)")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _QUEUE_TEMPLATE.search(node.value):
            found.append(f"{where}: format template rebuilds a TOPIC@BROKER:QID queue name — use .name or str(mq)")
    return found


def test_boundary_check_catches_each_pattern() -> None:
    """The checker below is not vacuous: each forbidden pattern is reported, plain snapshot reads are not."""
    bad = (
        "getattr(consumer, 'consume_service')\n"
        "b.lock_manager.table\n"
        "c.process_queue_table.items()\n"
        'name = f"{topic}@{broker}:{qid}"\n'
        "name = '%s@%s:%d' % (t, b, q)\n"
    )
    assert len(boundary_violations(bad, "bad.py")) == 5
    good = "q.name; str(pq.mq); f'{glyph}@{when}'; f'{a} {b}:{c}'; snap.locks('cg'); getattr(vm, f.name)\n"
    good += "getattr(importlib.import_module(m, __name__), name)\n"
    assert boundary_violations(good, "good.py") == []


def test_widgets_read_only_the_snapshot() -> None:
    """Nothing under widgets/ reaches into engine internals; every fact a view shows comes from lab.snapshot()."""
    files = sorted((ROOT / "widgets").rglob("*.py"))
    assert files, "no widget modules found"
    found = [v for path in files for v in boundary_violations(path.read_text(), str(path.relative_to(ROOT)))]
    assert found == []


def test_checker_and_report_read_the_snapshot() -> None:
    """check_invariants and the report take engine state from lab.snapshot(), never from broker/consumer internals."""
    files = [*sorted((ROOT / "rmqlab" / "invariants").glob("*.py")), ROOT / "rmqlab" / "lab" / "report.py"]
    found = [v for path in files for v in boundary_violations(path.read_text(), str(path.relative_to(ROOT)))]
    assert found == []


def test_a_slow_broker_shows_the_response_and_the_timeout_in_flight() -> None:
    """response_delay_ms 2000: the SYNC send's response is due at 3000; a 1 s ASYNC send times out at 2001."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.set_broker_fault("broker-a", response_delay_ms=2000)
    lab.at(1000, producer.send_async, Message("T", "x"), timeout=1000)
    lab.at(1000, producer.send, Message("T", "y"))
    snap = lab.run(until=1000).snapshot()
    network = [
        (t.kind, t.due_ms, t.owner, t.detail) for t in snap.timers_of(TimerKind.RESPONSE, TimerKind.REQUEST_TIMEOUT)
    ]
    assert network == [
        (TimerKind.REQUEST_TIMEOUT, 2001, "broker-a", "pg"),
        (TimerKind.RESPONSE, 3000, "broker-a", "pg"),
    ]
