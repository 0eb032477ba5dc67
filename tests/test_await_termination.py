"""``awaitTerminationMillisWhenShutdown`` (4.9.7 ``DefaultMQPushConsumer``, default 0).

``DefaultMQPushConsumerImpl.shutdown(awaitTerminateMillis)`` runs ``consumeMessageService.shutdown(await)`` first,
then ``persistConsumerOffset``, unregisters, and only then drops the ProcessQueues (``rebalanceImpl.destroy``).
Both consume services call ``ThreadUtils.shutdownGracefully(consumeExecutor, await)``: ``shutdown()`` (queued
requests still run, new ones are refused), ``awaitTermination(await)``, and if that times out ``shutdownNow()``
(queued requests dropped) and ``awaitTermination(await)`` once more. Pulls go on meanwhile: a pulled batch whose
submit is refused fails the pull callback (``onException``: 1000 ms). The orderly service also sets ``stopped``,
so ``lockMQPeriodically`` renews no lock, and its ``shutdown`` ends with ``unlockAllMQ``: the locks are released
before the offsets are persisted. What finished inside the wait is committed by the final persist.
"""

from __future__ import annotations

from typing import Any

import pytest

from rmqlab import ConfigError, Lab, Message
from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind as K
from rmqlab.broker.broker_controller import Broker
from rmqlab.client.consumer.listener import after
from rmqlab.lab.scenario import load_scenario
from rmqlab.remoting.protocol import UnlockBatchMqRequest


def _run(await_ms: int, *, orderly: bool = False, slow: str = "3s") -> Lab:
    """slow (3 s) and quick stored at 1 s on one queue, one consume thread; shutdown at 2 s; late stored at 2.5 s."""
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    ok = O.SUCCESS if orderly else C.CONSUME_SUCCESS

    def listener(msgs: list[Any], ctx: Any) -> Any:
        return after(slow, ok) if msgs[0].body == "slow" else ok

    consumer = lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        listener=listener,
        orderly=orderly,
        consume_thread_min=1,
        await_termination_millis_when_shutdown=await_ms,
    )
    for at, body in ((1000, "slow"), (1000, "quick"), (2500, "late")):
        lab.at(at, producer.send, Message("T", body))
    lab.at(2000, consumer.shutdown)
    lab.run(until="60s")
    return lab


def _outcome(lab: Lab) -> tuple[int, int | None, list[tuple[int, str | None]]]:
    """(when the shutdown ended, T's offset at the broker, what was consumed and not discarded)."""
    end = lab.trace.last(K.LIFECYCLE).time_ms
    persisted = [e for e in lab.trace.where(K.OFFSET_PERSISTED) if e.get("queue") == "T@broker-a:0"]
    discarded = {e.msg_id for e in lab.trace.where(K.WARNING) if "dropped while consuming" in e.get("message")}
    consumed = [(e.time_ms, e.msg_id) for e in lab.trace.where(K.CONSUMED) if e.msg_id not in discarded]
    return end, persisted[-1].get("offset") if persisted else None, consumed


def test_by_default_shutdown_persists_at_once_and_the_in_flight_result_is_discarded() -> None:
    lab = _run(0)
    assert _outcome(lab) == (2000, 0, [])
    assert not lab.trace.where(K.LIFECYCLE, event="shutting_down")
    discarded = [(e.time_ms, e.msg_id) for e in lab.trace.where(K.WARNING) if "dropped while" in e.get("message")]
    assert discarded == [(4000, "M0001")]


def test_a_long_enough_wait_lets_the_running_and_queued_requests_finish_and_commits_them() -> None:
    lab = _run(5000)
    # slow ends at 4000 and quick, queued behind it on the one thread, still runs: the pool is idle at 4000
    assert _outcome(lab) == (4000, 2, [(4000, "M0001"), (4000, "M0002")])
    assert [(e.time_ms, e.get("await_ms")) for e in lab.trace.where(K.LIFECYCLE, event="shutting_down")] == [
        (2000, 5000)
    ]
    # late is pulled at 2500 while the consumer waits: its submit is refused, the pull goes again in 1000 ms
    (refused,) = lab.trace.where(K.PULL_DEFERRED)
    assert (refused.time_ms, refused.get("reason"), refused.get("delay_ms"), refused.get("error")) == (
        2500,
        "exception",
        1000,
        "RejectedExecutionException",
    )
    assert [e.msg_id for e in lab.trace.where(K.DELIVERED)] == ["M0001", "M0002"]  # late stays for the next owner


def test_after_the_first_wait_queued_requests_are_dropped_and_the_running_one_gets_a_second_wait() -> None:
    lab = _run(1000)
    # 2000-3000: slow still runs → shutdownNow drops quick; 3000-4000: slow ends at 4000, committed (offset 1)
    assert _outcome(lab) == (4000, 1, [(4000, "M0001")])


def test_a_request_outliving_both_waits_is_discarded_like_without_waiting() -> None:
    lab = _run(500)
    assert _outcome(lab) == (3000, 0, [])


def test_orderly_consumes_what_is_cached_during_the_wait_then_unlocks() -> None:
    lab = _run(5000, orderly=True)
    # the running ConsumeRequest loops over the cached messages (late too: the queue is consuming, so its
    # pull submits nothing and nothing is refused); idle at 4000, persisted, then the broker locks released
    assert _outcome(lab) == (4000, 3, [(4000, "M0001"), (4000, "M0002"), (4000, "M0003")])
    assert [(e.time_ms, e.get("queue")) for e in lab.trace.where(K.UNLOCKED)] == [
        (4000, "%RETRY%cg@broker-a:0"),
        (4000, "T@broker-a:0"),
    ]


def test_orderly_shutdown_unlocks_in_one_batch_per_broker_before_persisting(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ConsumeMessageOrderlyService.shutdown`` ends with ``unlockAll``: one UNLOCK_BATCH_MQ per broker with every
    queue, each ProcessQueue then marked unlocked; only then does the consumer persist its offsets."""
    batches: list[tuple[int, tuple[str, ...]]] = []
    process_request = Broker.process_request

    def spy(broker: Broker, request: object, opaque: int | None) -> object:
        if isinstance(request, UnlockBatchMqRequest):
            batches.append((broker.scheduler.now, tuple(str(mq) for mq in request.mqs)))
        return process_request(broker, request, opaque)

    monkeypatch.setattr(Broker, "process_request", spy)
    lab = _run(5000, orderly=True)
    assert batches == [(4000, ("%RETRY%cg@broker-a:0", "T@broker-a:0"))]
    last_unlock = lab.trace.last(K.UNLOCKED)
    final_persists = lab.trace.where(K.OFFSET_PERSISTED, time_ms=4000)
    assert final_persists and all(e.seq > last_unlock.seq for e in final_persists)
    consumer = lab.consumer("cg-1")
    assert consumer.process_queue_table and not any(pq.locked for pq in consumer.process_queue_table.values())


def _two_brokers() -> tuple[Lab, Any]:
    """An orderly consumer of T, one queue on each of two brokers."""
    lab = Lab(seed=3)
    for name in ("broker-a", "broker-b"):
        lab.add_broker(name)
    lab.create_topic("T", queues=1)
    return lab, lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda msgs, ctx: O.SUCCESS, orderly=True)


def _orderly_on_two_brokers(fault: dict[str, Any] | None) -> tuple[Lab, Any]:
    """The consumer of :func:`_two_brokers` shut down at 2 s, broker-a faulty from 1.5 s."""
    lab, consumer = _two_brokers()
    if fault is not None:
        lab.at(1500, lab.set_broker_fault, "broker-a", **fault)
    lab.at(2000, consumer.shutdown)
    lab.run(until="10s")
    return lab, consumer


@pytest.mark.parametrize(
    ("fault", "broker_b_asked_ms", "a_error"),
    [
        (None, 2000, None),
        ({"response_delay_ms": 600}, 2600, None),  # broker-a's answer comes 600 ms later: b is asked then
        ({"response_delay_ms": 4000}, 3001, "RemotingTimeoutException"),  # no answer in 1 s
        ({"lose_responses": True}, 2000, "RemotingException"),  # the channel is reset: an exception at once
    ],
)
def test_orderly_shutdown_awaits_each_brokers_unlock_answer_before_the_next_and_the_persist(
    fault: dict[str, Any] | None, broker_b_asked_ms: int, a_error: str | None
) -> None:
    """``unlockAll(false)`` asks broker after broker with ``invokeSync(…, 1000)``; a broker that failed to answer
    SUCCESS leaves its ProcessQueues marked locked (the exception is only logged). The final persist, the stop and
    the unregistering come after the last answer."""
    lab, consumer = _orderly_on_two_brokers(fault)
    unlocked = {(e.time_ms, e.get("queue")) for e in lab.trace.where(K.UNLOCKED)}
    assert unlocked == {
        (2000, "%RETRY%cg@broker-a:0"),
        (2000, "T@broker-a:0"),  # the request takes effect at broker-a at once, whatever becomes of its answer
        (broker_b_asked_ms, "%RETRY%cg@broker-b:0"),
        (broker_b_asked_ms, "T@broker-b:0"),
    }
    assert [e.time_ms for e in lab.trace.where(K.LIFECYCLE, event="shutdown")] == [broker_b_asked_ms]
    assert {e.time_ms for e in lab.trace.where(K.OFFSET_PERSISTED) if e.time_ms >= 2000} == {broker_b_asked_ms}
    warnings = [(e.time_ms, e.get("message")) for e in lab.trace.where(K.WARNING) if "unlock" in e.get("message")]
    queues = "%RETRY%cg@broker-a:0, T@broker-a:0"
    logged = f"unlockBatchMQ exception, {queues}: {a_error}; still marked locked"
    assert warnings == ([] if a_error is None else [(broker_b_asked_ms, logged)])
    a_still_marked_locked = a_error is not None
    marked = {str(mq): pq.locked for mq, pq in consumer.process_queue_table.items()}
    assert marked == {
        "%RETRY%cg@broker-a:0": a_still_marked_locked,
        "T@broker-a:0": a_still_marked_locked,
        "%RETRY%cg@broker-b:0": False,
        "T@broker-b:0": False,
    }


def test_a_crash_while_the_shutdown_awaits_an_unlock_answer_ends_it_there() -> None:
    """The shutdown is a thread of the consumer: a crash kills it, so no persist and no second stop follow."""
    lab, consumer = _two_brokers()
    lab.at(1500, lab.set_broker_fault, "broker-a", response_delay_ms=600)
    lab.at(2000, consumer.shutdown)
    lab.at(2300, consumer.crash)
    lab.run(until="10s")
    assert [(e.time_ms, e.get("event")) for e in lab.trace.where(K.LIFECYCLE)] == [(0, "start"), (2300, "crash")]
    assert not [e for e in lab.trace.where(K.UNLOCKED) if "broker-b" in e.get("queue")]
    assert not [e for e in lab.trace.where(K.OFFSET_PERSISTED) if e.time_ms >= 2000]


def test_start_while_the_shutdown_awaits_an_unlock_answer_is_refused_then_allowed() -> None:
    lab, consumer = _two_brokers()
    lab.at(1500, lab.set_broker_fault, "broker-a", response_delay_ms=600)
    lab.at(2000, consumer.shutdown)
    lab.run(until=2300)
    with pytest.raises(ConfigError) as err:
        consumer.start()
    assert (err.value.parameter, err.value.value) == ("start", consumer.client_id)
    assert "shutdown has ended" in str(err.value)
    lab.run(until=2600)  # broker-a answers 600 ms after the shutdown began: it ends
    consumer.start()
    assert consumer.running


def test_orderly_renews_no_lock_while_waiting_so_the_loop_stops_at_the_expired_lock() -> None:
    lab = _run(40_000, orderly=True, slow="35s")
    # lockAll at 1000 is the last renewal (21 000 is skipped: stopped); at 36 000 the lock is 35 s old (> 30 s):
    # tryLockLaterAndReconsume, which asks nothing once stopped; the pool is idle, quick and late stay unconsumed
    assert [e.time_ms for e in lab.trace.where(K.LOCK_RENEWED)] == [1000, 1000]
    assert _outcome(lab) == (36_000, 1, [(36_000, "M0001")])


@pytest.mark.parametrize("bad", [-1, 7 * 86_400_000 + 1, "5s", 1.5])
def test_a_bad_await_is_refused(bad: Any) -> None:
    lab = Lab()
    with pytest.raises(ConfigError) as err:
        lab.add_consumer("cg", await_termination_millis_when_shutdown=bad, start=False)
    assert (err.value.parameter, err.value.value) == ("await_termination_millis_when_shutdown", bad)


def test_a_scenario_consumer_removed_with_an_await() -> None:
    scenario = {
        "name": "await",
        "brokers": ["broker-a"],
        "topics": [{"name": "T", "queues": 1}],
        "producers": [{"name": "pg"}],
        "consumers": [
            {
                "group": "cg",
                "name": "c1",
                "subscribe": {"T": "*"},
                "await_termination_millis_when_shutdown": 5000,
                "listener": {"default": [{"take": "3s", "then": "CONSUME_SUCCESS"}]},
            }
        ],
        "faults": [{"at": "2s", "kind": "consumer_remove", "consumer": "c1"}],
        "sends": [{"at": "1s", "producer": "pg", "topic": "T", "body": "a"}],
        "run_until": "10s",
    }
    lab = load_scenario(scenario).run()
    assert _outcome(lab) == (4000, 1, [(4000, "M0001")])


def test_the_wait_is_narrated() -> None:
    from rmqlab.narrate import narrate

    lab = _run(5000)
    (event,) = lab.trace.where(K.LIFECYCLE, event="shutting_down")
    (text,) = [c.text for c in narrate(lab.trace) if c.seq == event.seq]
    assert text == (
        "DefaultMQPushConsumerImpl.shutdown: cg-1 stops taking consume requests and waits up to 5000 ms for those in "
        "flight (awaitTerminationMillisWhenShutdown; as long again for the running ones if time runs out) before it "
        "persists its offsets; pulls and rebalances go on meanwhile"
    )


def test_the_shutdown_unlock_and_its_failure_are_narrated() -> None:
    from rmqlab.narrate import narrate

    lab, _ = _orderly_on_two_brokers({"response_delay_ms": 4000})
    captions = {c.seq: c.text for c in narrate(lab.trace)}
    (released,) = [e for e in lab.trace.where(K.UNLOCKED) if e.get("queue") == "T@broker-b:0"]
    assert captions[released.seq] == (
        "RebalanceImpl.unlockAll: cg-1 released its broker lock on T@broker-b:0 (unlockBatchMQ): the last step of the "
        "orderly consume service's shutdown, before the final offset persist"
    )
    (failed,) = [e for e in lab.trace.where(K.WARNING) if "unlockBatchMQ" in e.get("message")]
    assert "RemotingTimeoutException; still marked locked" in captions[failed.seq]
