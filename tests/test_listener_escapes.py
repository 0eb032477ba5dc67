"""User code that escapes the engine: Ctrl-C in a listener, a listener crashing its own consumer, run() misuse.

RocketMQ's ``catch (Throwable e)`` around the listener makes any throwable a failed consume; the lab does the
same for ``KeyboardInterrupt`` / ``SystemExit``, then re-raises it once the event is handled, so a student's Ctrl-C
stops ``lab.run`` and a second ``lab.run`` carries on with nothing wedged.
"""

from __future__ import annotations

from typing import Any

import pytest

from rmqlab import ConfigError, EventKind, Lab, Message, check_invariants
from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import ConsumeOrderlyStatus as O
from rmqlab.core.scheduler import ReentrantRunError


def _lab(queues: int = 1) -> tuple[Lab, Any]:
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=queues)
    return lab, lab.add_producer("pg")


def _consumed(lab: Lab) -> list[tuple[int, str | None, str]]:
    return [(e.time_ms, e.msg_id, str(e.data["status"])) for e in lab.trace.of_kind(EventKind.CONSUMED)]


@pytest.mark.parametrize("escape", [KeyboardInterrupt, SystemExit])
def test_ctrl_c_in_an_orderly_listener_stops_run_and_leaves_nothing_wedged(escape: type[BaseException]) -> None:
    """One consume thread, one orderly queue: the first call raises. It counts as SUSPEND_CURRENT_QUEUE_A_MOMENT
    (consumed again 1 s later), ``lab.run`` raises at 1000 ms, and the next ``lab.run`` consumes both messages."""
    lab, producer = _lab()
    calls: list[str] = []

    def listener(msgs: list[Any], ctx: Any) -> Any:
        calls.append(msgs[0].msg_id)
        if len(calls) == 1:
            raise escape()
        return O.SUCCESS

    lab.add_consumer("og", subscribe={"T": "*"}, listener=listener, orderly=True, name="o1", consume_thread_min=1)
    lab.at(1000, producer.send, Message("T", "a"))
    lab.at(1500, producer.send, Message("T", "b"))
    with pytest.raises(escape):
        lab.run(until=60_000)
    assert lab.now == 1000
    lab.run(until=60_000)
    assert lab.now == 60_000
    assert _consumed(lab) == [
        (1000, "M0001", "SUSPEND_CURRENT_QUEUE_A_MOMENT"),
        (2000, "M0001", "SUCCESS"),
        (2000, "M0002", "SUCCESS"),
    ]
    (warning,) = [e for e in lab.trace.of_kind(EventKind.WARNING) if e.msg_id == "M0001"]
    assert f"listener raised {escape.__name__}" in str(warning.data["message"])
    assert check_invariants(lab).ok


def test_ctrl_c_in_a_concurrent_listener_counts_as_reconsume_later() -> None:
    """The failed call is sent back (level 3: 10 s) before ``lab.run`` raises; the single consume thread is free."""
    lab, producer = _lab()
    seen: list[int] = []

    def listener(msgs: list[Any], ctx: Any) -> Any:
        seen.append(msgs[0].reconsume_times)
        if msgs[0].body == "a" and msgs[0].reconsume_times == 0:
            raise KeyboardInterrupt
        return C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, name="c1", consume_thread_min=1)
    lab.at(1000, producer.send, Message("T", "a"))
    lab.at(3000, producer.send, Message("T", "b"))
    with pytest.raises(KeyboardInterrupt):
        lab.run(until=60_000)
    backs = [(e.time_ms, e.data["ok"]) for e in lab.trace.of_kind(EventKind.SEND_BACK)]
    assert (lab.now, backs) == (1000, [(1000, True)])
    lab.run(until=60_000)
    assert _consumed(lab) == [
        (1000, "M0001", "RECONSUME_LATER"),
        (3000, "M0002", "CONSUME_SUCCESS"),
        (11_000, "M0001", "CONSUME_SUCCESS"),
    ]
    assert check_invariants(lab).ok


def test_a_listener_crashing_its_own_consumer_crashes_it_when_the_call_returns() -> None:
    """Nothing of that call is processed (no CONSUMED, no SEND_BACK); the restarted consumer gets the message."""
    lab, producer = _lab()
    consumer: Any = None

    def listener(msgs: list[Any], ctx: Any) -> Any:
        if consumer.generation == 1:
            consumer.crash()
            assert consumer.running  # not yet: the call has not returned
        return C.RECONSUME_LATER if consumer.generation == 1 else C.CONSUME_SUCCESS

    consumer = lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, name="c1")
    lab.at(1000, producer.send, Message("T", "a"))
    lab.at(30_000, consumer.start)
    lab.run(until=120_000)
    lifecycle = [(e.time_ms, e.data["event"]) for e in lab.trace.of_kind(EventKind.LIFECYCLE)]
    assert lifecycle == [(0, "start"), (1000, "crash"), (30_000, "start")]
    assert lab.trace.of_kind(EventKind.SEND_BACK) == []
    assert _consumed(lab) == [(30_000, "M0001", "CONSUME_SUCCESS")]
    assert consumer.consume_service.pool.busy == 0
    assert check_invariants(lab).ok


def test_run_refuses_re_entry_from_a_listener_and_from_lab_at() -> None:
    lab, producer = _lab()

    def listener(msgs: list[Any], ctx: Any) -> Any:
        if msgs[0].reconsume_times == 0:
            lab.run(until=500_000)
        return C.CONSUME_SUCCESS

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, name="c1")
    lab.at(1000, producer.send, Message("T", "a"))
    with pytest.raises(ReentrantRunError, match=r"lab.run\(\) / lab.step\(\) called at now=1000 ms while the lab"):
        lab.run(until=60_000)
    assert lab.now == 1000
    lab.at(2000, lab.run, 9_000)
    with pytest.raises(ReentrantRunError, match=r"schedule later work with lab\.at"):
        lab.run(until=60_000)
    assert lab.now == 2000
    lab.run(until=60_000)  # carries on: the refused call was a failed consume, retried from %RETRY%
    assert _consumed(lab) == [(1000, "M0001", "RECONSUME_LATER"), (11_000, "M0001", "CONSUME_SUCCESS")]


def test_run_without_until_is_refused_once_periodic_timers_exist() -> None:
    bare = Lab()
    hits: list[int] = []
    bare.at(5000, hits.append, 1)
    assert bare.run().now == 5000 and hits == [1]  # nothing periodic: runs until the heap is empty
    lab, _ = _lab()
    with pytest.raises(ConfigError, match=r"until.*periodic timers .* re-arm forever"):
        lab.run()
    assert lab.now == 0
