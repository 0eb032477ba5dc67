"""The client's scheduled thread: fixed rate, one thread, 4.9.7's first delays (``startScheduledTask``)."""

from __future__ import annotations

from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind as K
from rmqlab import Lab
from rmqlab.core.process import ProcessGroup, Sleep
from rmqlab.core.scheduled_executor import ScheduledExecutor
from rmqlab.core.scheduler import TimerKind, TimerLabel


def executor_lab() -> tuple[Lab, ScheduledExecutor]:
    lab = Lab(seed=0)
    group = ProcessGroup(lab.scheduler, lab.remoting, "client:t")
    return lab, ScheduledExecutor(group)


def label(name: str) -> TimerLabel:
    return TimerLabel(TimerKind.HEARTBEAT, f"client:{name}")


def test_a_slow_run_does_not_push_the_next_ones_back() -> None:
    """Due every 20 s from 1 s although each run takes 1 s: 1, 21, 41 s (a fixed delay would give 1, 22, 43 s)."""
    lab, executor = executor_lab()
    started: list[int] = []

    def renew():
        started.append(lab.now)
        yield Sleep(1000)

    executor.schedule_at_fixed_rate(1000, 20_000, label("renew"), renew)
    executor.start()
    lab.run(until="50s")
    assert started == [1000, 21_000, 41_000]


def test_tasks_share_one_thread_and_a_late_run_is_caught_up_back_to_back() -> None:
    """A 12 s heartbeat at 1 s holds the thread: the persistence due at 5 s and 10 s runs at 13 s, twice, then 15 s."""
    lab, executor = executor_lab()
    runs: list[tuple[str, int]] = []

    def heartbeat():
        runs.append(("heartbeat", lab.now))
        if lab.now < 2000:
            yield Sleep(12_000)

    executor.schedule_at_fixed_rate(1000, 30_000, label("hb"), heartbeat)
    executor.schedule_at_fixed_rate(5000, 5000, label("persist"), lambda: runs.append(("persist", lab.now)))
    executor.start()
    lab.run(until="21s")
    assert runs == [
        ("heartbeat", 1000),
        ("persist", 13_000),
        ("persist", 13_000),
        ("persist", 15_000),
        ("persist", 20_000),
    ]


def test_tasks_due_at_the_same_millisecond_run_in_the_order_they_were_scheduled() -> None:
    lab, executor = executor_lab()
    runs: list[str] = []
    for name in ("b", "a", "c"):
        executor.schedule_at_fixed_rate(1000, 1000, label(name), lambda name=name: runs.append(name))
    executor.start()
    lab.run(until="2s")
    assert runs == ["b", "a", "c", "b", "a", "c"]


def test_orderly_lock_renewals_stay_on_the_20_s_grid_when_the_broker_answers_1_s_late() -> None:
    """lockAll is sent at 1, 21, 41 s whatever the answer's delay; each answer is processed 1 s later.

    With every answer 1 s late, c1's heartbeat at start is answered at 1 s, its rebalance's consumer-id query at
    2 s, the lock of %RETRY%og at 3 s; the lockAll of 1 s finds no ProcessQueue yet. From then on the renewals
    land at 22 and 42 s (a fixed *delay* after each 1 s round trip would drift to 23 and 45 s).
    """
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    lab.set_broker_fault("broker-a", response_delay_ms=1000)
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c1")
    lab.run(until="50s")
    ours = [
        (e.time_ms, e.kind)
        for e in lab.trace.where(queue="ORD@broker-a:0")
        if e.kind in (K.LOCK_ACQUIRED, K.LOCK_RENEWED)
    ]
    assert ours == [(6000, K.LOCK_ACQUIRED), (22_000, K.LOCK_RENEWED), (42_000, K.LOCK_RENEWED)]
    (rebalanced,) = lab.trace.where(K.REBALANCED, topic="ORD")
    assert rebalanced.time_ms == 7000  # stamped when the table changed: after the lock (6 s) and offset query (7 s)
    (pq,) = [pq for pq in lab.snapshot().consumer("c1").process_queues if pq.mq.topic == "ORD"]
    assert pq.last_lock_ms == 42_000


def test_the_trace_never_goes_back_in_time_under_slow_answers() -> None:
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=2)
    lab.set_broker_fault("broker-a", response_delay_ms=700)
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c1")
    lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True, name="c2", start="9s")
    lab.run(until="2m")
    times = [e.time_ms for e in lab.trace]
    assert times == sorted(times)


def test_first_heartbeat_after_1_s_then_every_30_s() -> None:
    """4.9.7 heartbeats in ``start()`` and again from the scheduled thread 1 s later, then every 30 s."""
    lab = Lab(seed=0)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: None, name="c1")
    channel = lambda: lab.brokers["broker-a"].consumer_groups["cg"][lab.consumers["c1"].client_id]  # noqa: E731
    seen = []
    for until in ("0.5s", "1.5s", "30.5s", "31.5s"):
        lab.run(until=until)
        seen.append(channel().last_update)
    assert seen == [0, 1000, 1000, 31_000]
