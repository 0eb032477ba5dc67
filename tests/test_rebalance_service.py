"""``RebalanceService``: ``waitForRunning(20000)`` after every rebalance, cut short by ``wakeup()``.

4.9.7: ``RebalanceService.run`` is ``while (!isStopped()) { waitForRunning(waitInterval); doRebalance(); }`` and
``ServiceThread.wakeup`` / ``waitForRunning`` carry the ``hasNotified`` flag. So a triggered rebalance restarts the
20 s period, and a wake-up during a rebalance buys exactly one more rebalance right after it.
"""

from __future__ import annotations

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import EventKind as K
from rmqlab import Lab
from rmqlab.client.consumer.rebalance_service import RebalanceService
from rmqlab.core.process import Body, ProcessGroup, Sleep
from rmqlab.core.scheduler import TimerKind, TimerLabel


def service_lab(run_ms: int = 0) -> tuple[Lab, RebalanceService, list[int]]:
    """A service whose ``doRebalance`` notes its start and takes ``run_ms`` of virtual time."""
    lab = Lab(seed=0)
    started: list[int] = []

    def do_rebalance() -> Body:
        started.append(lab.now)
        if run_ms:
            yield Sleep(run_ms)

    group = ProcessGroup(lab.scheduler, lab.remoting, "client:t")
    service = RebalanceService(group, TimerLabel(TimerKind.REBALANCE, "client:t"), do_rebalance)
    return lab, service, started


def test_the_thread_starts_with_a_full_20_s_wait() -> None:
    """Nothing wakes it: rebalances at 20, 40 and 60 s."""
    lab, service, started = service_lab()
    service.start()
    lab.run(until="61s")
    assert started == [20_000, 40_000, 60_000]


def test_a_wake_up_restarts_the_20_s_period() -> None:
    """Woken at 8.5 s: a rebalance then, and the next one 20 s later at 28.5 s — not at 20 s, as a fixed grid would."""
    lab, service, started = service_lab()
    service.start()
    lab.at(8_500, service.wakeup)
    lab.run(until="50s")
    assert started == [8_500, 28_500, 48_500]


def test_the_wait_begins_when_the_rebalance_ends() -> None:
    """A rebalance taking 3 s: woken at 5 s, the next one is due 20 s after its end, at 28 s."""
    lab, service, started = service_lab(run_ms=3_000)
    service.start()
    lab.at(5_000, service.wakeup)
    lab.run(until="52s")
    assert started == [5_000, 28_000, 51_000]


def test_wake_ups_during_a_rebalance_buy_exactly_one_more_straight_after() -> None:
    """``hasNotified``: two wake-ups at 6 s and 7 s while the 5–8 s rebalance runs give one rebalance at 8 s."""
    lab, service, started = service_lab(run_ms=3_000)
    service.start()
    lab.at(5_000, service.wakeup)
    lab.at(6_000, service.wakeup)
    lab.at(7_000, service.wakeup)
    lab.run(until="40s")
    assert started == [5_000, 8_000, 31_000]


def test_a_group_change_restarts_the_consumers_rebalance_period() -> None:
    """c2 joins at 8.5 s: the broker's NOTIFY_CONSUMER_IDS_CHANGED wakes c1, which rebalances then and next at
    28.5 s (the ``REBALANCE`` wait in the snapshot), not on a 20 s grid from its start."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=2)
    ok = lambda m, c: C.CONSUME_SUCCESS  # noqa: E731
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=ok, name="c1")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=ok, name="c2", start=8_500)
    lab.run(until="9s")
    rebalanced = lab.trace.where(K.REBALANCED, actor="consumer:c1", topic="T")
    assert [(e.time_ms, e.get("queues")) for e in rebalanced] == [
        (0, ["T@broker-a:0", "T@broker-a:1"]),
        (8_500, ["T@broker-a:0"]),
    ]
    waits = [(t.owner, t.due_ms) for t in lab.snapshot().timers if t.kind is TimerKind.REBALANCE]
    assert sorted(waits) == [("consumer:c1", 28_500), ("consumer:c2", 28_500)]
