"""Replay keeps going through long idle stretches (issue 15): only the horizon ends a run that moves on in time.

Before, ``Replay`` gave up after ``max_idle_steps`` scheduler steps that appended nothing, however far apart in
virtual time: with many idle queues (each held pull wakes every 15 s, each wake a step with no event) the
dashboard showed "end" before a send scheduled an hour later.
"""

from __future__ import annotations

from rmqlab.widgets.replay import Replay

from rmqlab import ConsumeConcurrentlyStatus, EventKind, Lab, Message

HOUR = 3_600_000


def _idle_queues_then_a_send() -> Lab:
    """64 queues pulled and idle for an hour, then one send."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=64)
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg", subscribe={"T": "*"}, name="c1", listener=lambda m, c: ConsumeConcurrentlyStatus.CONSUME_SUCCESS
    )
    lab.at(HOUR, producer.send, Message("T", "late"))
    return lab


def test_a_send_an_hour_after_thousands_of_idle_steps_is_reached() -> None:
    """An hour of 64 idle queues is about 16,000 steps that append nothing; with a budget of 1,000 such steps the
    replay still reaches the send at 1 h (it stopped at "end" at 0 ms before), and stops at the horizon."""
    replay = Replay(_idle_queues_then_a_send, horizon="2h", max_idle_steps=1000)
    assert replay.jump_to_next(EventKind.SEND_ATTEMPT)
    assert (replay.lab.now, replay.at_end) == (HOUR, False)
    assert replay.jump_to_next(EventKind.CONSUMED)
    consumed = [e for e in replay.lab.trace.events if e.kind is EventKind.CONSUMED]
    assert [(e.time_ms, e.actor) for e in consumed] == [(HOUR, "consumer:c1")]
    assert not replay.jump_to_next(EventKind.SEND_ATTEMPT)
    assert replay.at_end and replay.lab.scheduler.peek() > 2 * HOUR


def test_the_end_position_counts_the_late_send() -> None:
    """``end_position`` (the controller's run-ahead) runs the same way on a throwaway Lab: it includes the send."""
    replay = Replay(_idle_queues_then_a_send, horizon="2h", max_idle_steps=1000)
    end = replay.end_position()
    replay.run_to_end()
    assert replay.position == end
    assert any(e.kind is EventKind.CONSUMED for e in replay.lab.trace.events)


def test_a_timer_loop_that_never_lets_time_move_on_still_ends() -> None:
    """``max_idle_steps`` still guards against a callback that reschedules itself at the same millisecond."""

    def factory() -> Lab:
        lab = Lab(seed=1)

        def again() -> None:
            lab.at(lab.now, again)

        lab.at(5000, again)
        return lab

    replay = Replay(factory, horizon="1h", max_idle_steps=500)
    assert not replay.step_once()
    assert (replay.at_end, replay.lab.now, replay.position) == (True, 5000, 0)
