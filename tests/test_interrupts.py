"""A Ctrl-C anywhere in ``lab.run()`` leaves the engine resumable (issue 34 item 2).

A real SIGINT is raised (``signal.raise_signal``) deep inside engine code: at every k-th scheduler step, at a
varying depth of Python calls within that step's callback (``bench.interrupt_campaign``'s profile hook; the
campaign itself, 50 storms with random interrupts, is ``python -m bench.interrupt_campaign``). ``run()`` must stop
with ``KeyboardInterrupt`` between two events, and ``run()`` again must end in the very state and trace of a run
never interrupted. Before the fix the interrupt was raised in the middle of a process's generator, which killed it
for good (a consumer's route poll, heartbeat or pull loop stopped while the consumer still said ``running``).
"""

from __future__ import annotations

import signal
from typing import Any

import pytest

from bench import fault_storms
from bench.interrupt_campaign import fingerprint, run_interrupted
from rmqlab import ConsumeConcurrentlyStatus, EventKind, Lab

HOUR = 3_600_000


@pytest.fixture(autouse=True)
def python_ctrl_c_handler() -> Any:
    """Python's own SIGINT handler, as a terminal or a Jupyter kernel has it: a worker started in the background
    (an xdist worker, ``nohup``) may begin with SIGINT ignored, which the engine leaves alone."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


UNTIL = int(1.5 * HOUR)


def _storm(seed: int) -> Lab:
    return fault_storms.build_storm(seed, fault_hours=0.5, healed_hours=1, messages=16, fault_count=(4, 8))


def _targets(steps: int, every: int) -> dict[int, int]:
    """Every ``every``-th step, at the n-th Python call inside it (n cycling 1..13)."""
    return {step: 1 + step % 13 for step in range(every, steps, every)}


@pytest.mark.parametrize("seed", [3, 11])
def test_a_storm_interrupted_at_every_kth_step_ends_as_the_uninterrupted_run(seed: int) -> None:
    clean = _storm(seed).run(until=UNTIL)
    lab = _storm(seed)
    sent, caught = run_interrupted(lab, UNTIL, _targets(clean.scheduler.steps, every=331))
    assert sent == len(_targets(clean.scheduler.steps, every=331)) > 50
    assert caught == sent  # each Ctrl-C stopped run() once, between two events
    assert fingerprint(lab) == fingerprint(clean)


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


def test_an_ignored_sigint_stays_ignored() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    lab = Lab(seed=1)
    lab.at(1000, signal.raise_signal, signal.SIGINT)
    lab.run()
    assert (lab.now, signal.getsignal(signal.SIGINT)) == (1000, signal.SIG_IGN)


def test_a_walk_of_steps_installs_the_handler_once_and_raises_a_ctrl_c_from_between_two_steps() -> None:
    """``lab.stepping()`` (a dashboard's frame walk): the handler is the engine's for the whole walk and put back
    after it, each step leaves it alone, and a Ctrl-C that lands between two steps (in the walker's own code) is
    raised by the next step, after its event, with nothing lost: the run then ends as one never interrupted."""
    lab, plain = _storm(5), _storm(5)
    before = signal.getsignal(signal.SIGINT)
    walked = 0
    with pytest.raises(KeyboardInterrupt), lab.stepping():
        engine_handler = signal.getsignal(signal.SIGINT)
        while lab.step():
            walked += 1
            assert signal.getsignal(signal.SIGINT) is engine_handler
            if walked == 500:
                signal.raise_signal(signal.SIGINT)  # the walker's code, between two steps: put off
    assert engine_handler is not before and signal.getsignal(signal.SIGINT) is before
    assert walked == 500 and lab.scheduler.steps == 501  # raised by step 501, after its event ran
    lab.run(until=UNTIL)
    plain.run(until=UNTIL)
    assert fingerprint(lab) == fingerprint(plain)
