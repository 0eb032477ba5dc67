"""A Ctrl-C anywhere in ``lab.run()`` leaves the engine resumable (issue 34 item 2).

A real SIGINT is raised (``signal.raise_signal``) deep inside engine code: at every k-th scheduler step, at a
varying depth of Python calls within that step's callback. ``run()`` must stop with ``KeyboardInterrupt`` between
two events, and ``run()`` again must end in the very state and trace of a run never interrupted. Before the fix
the interrupt was raised in the middle of a process's generator, which killed it for good (a consumer's route
poll, heartbeat or pull loop stopped while the consumer still said ``running``).
"""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import Any

import pytest

from bench import fault_storms
from rmqlab import ConsumeConcurrentlyStatus, EventKind, Lab, check_invariants

HOUR = 3_600_000
UNTIL = int(1.5 * HOUR)


def _storm(seed: int) -> Lab:
    return fault_storms.build_storm(seed, fault_hours=0.5, healed_hours=1, messages=16, fault_count=(4, 8))


def _fingerprint(lab: Lab) -> tuple[Any, ...]:
    report = check_invariants(lab)
    return (
        lab.now,
        [(e.time_ms, e.kind, e.actor, e.msg_id, sorted(e.data.items(), key=str)) for e in lab.trace],
        report.counts,
        sorted(str(v) for v in report.violations),
        report.fates,
        {name: c.running for name, c in lab.consumers.items()},
    )


class SigintInjector:
    """A profile hook: at every ``every``-th scheduler step, on the n-th Python call inside it (n cycling 1..13),
    raise a real SIGINT — never while a listener runs (a Ctrl-C there is a failed consume, by design)."""

    def __init__(self, lab: Lab, every: int) -> None:
        self.lab = lab
        self.every = every
        self.step = -1
        self.calls = 0
        self.sent = 0

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        scheduler = self.lab.scheduler
        if scheduler.steps != self.step:
            self.step, self.calls = scheduler.steps, 0
        self.calls += 1
        if self.step % self.every == 0 and self.calls == 1 + self.step % 13 and not scheduler.in_user_code:
            self.sent += 1
            signal.raise_signal(signal.SIGINT)


def _run_with_interrupts(lab: Lab, every: int) -> tuple[int, int]:
    injector = SigintInjector(lab, every)
    caught = 0
    while True:
        sys.setprofile(injector)
        try:
            lab.run(until=UNTIL)
        except KeyboardInterrupt:
            caught += 1
            continue
        finally:
            sys.setprofile(None)
        return injector.sent, caught


@pytest.mark.parametrize("seed", [3, 11])
def test_a_storm_interrupted_at_every_kth_step_ends_as_the_uninterrupted_run(seed: int) -> None:
    clean = _storm(seed).run(until=UNTIL)
    lab = _storm(seed)
    sent, caught = _run_with_interrupts(lab, every=331)
    assert sent > 50
    assert caught == sent  # each Ctrl-C stopped run() once, between two events
    assert _fingerprint(lab) == _fingerprint(clean)


def test_run_stops_between_events_with_the_clock_at_the_interrupted_event() -> None:
    lab = Lab(seed=1)
    seen: list[int] = []

    def tick(n: int) -> None:
        seen.append(n)
        if n == 2:
            signal.raise_signal(signal.SIGINT)  # lands in engine-called code, not in a listener
            seen.append(-n)  # the event still completes

    for n in range(1, 5):
        lab.at(n * 1000, tick, n)
    with pytest.raises(KeyboardInterrupt):
        lab.run(until=10_000)
    assert (seen, lab.now) == ([1, 2, -2], 2000)
    lab.run(until=10_000)
    assert (seen, lab.now) == ([1, 2, -2, 3, 4], 10_000)


def test_a_ctrl_c_in_a_listener_is_raised_in_it_and_counted_as_a_failed_consume() -> None:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    calls: list[int] = []

    def listener(msgs: Any, ctx: Any) -> ConsumeConcurrentlyStatus:
        calls.append(lab.now)
        if len(calls) == 1:
            signal.raise_signal(signal.SIGINT)
            calls.append(-1)  # never reached: raised in the listener at once
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener)
    from rmqlab import Message

    lab.at(1000, producer.send, Message("T", "m"))
    with pytest.raises(KeyboardInterrupt):
        lab.run(until=60_000)
    assert -1 not in calls
    warnings = [e.get("message") for e in lab.trace.of_kind(EventKind.WARNING)]
    assert any("listener raised KeyboardInterrupt" in w for w in warnings)
    lab.run(until=60_000)
    assert [e.get("status") for e in lab.trace.of_kind(EventKind.CONSUMED)] == ["RECONSUME_LATER", "CONSUME_SUCCESS"]


def test_the_sigint_handler_is_restored_after_run() -> None:
    before = signal.getsignal(signal.SIGINT)
    Lab(seed=1).run()
    assert signal.getsignal(signal.SIGINT) is before
