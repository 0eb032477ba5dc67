"""Flow control of a push consumer's pulls, pinned to RocketMQ 4.9.7 (issue 16).

Sources: ``DefaultMQPushConsumerImpl.pullMessage`` (its gates in order: paused → 1000 ms
``PULL_TIME_DELAY_MILLS_WHEN_SUSPEND``; cached count > ``pullThresholdForQueue``, cached MiB (``msgSize / (1024 *
1024)``) > ``pullThresholdSizeForQueue``, concurrent span > ``consumeConcurrentlyMaxSpan`` → 50 ms
``PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL``; orderly not locked → ``pullTimeDelayMillsWhenException`` 1000 ms),
its ``PullCallback`` (FOUND → ``executePullRequestLater(pullInterval)`` when > 0; ``onException``: FLOW_CONTROL (215)
→ 20 ms ``PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL``, anything else → 1000 ms), ``doRebalance`` (nothing while
paused), ``suspend`` / ``resume`` (which rebalances), ``checkConfig`` (the ranges and consumeThreadMin <=
consumeThreadMax), ``ProcessQueue.putMessage`` / ``removeMessage`` / ``commit`` (``msgSize`` ± body length) and
``RebalancePushImpl.messageQueueChanged`` (``Math.max(1, threshold / processQueueTable.size())``).
"""

from __future__ import annotations

from typing import Any

import pytest

from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind as K
from rmqlab import Lab, Message, after
from rmqlab.client.consumer.process_queue import ProcessQueue
from rmqlab.common.message import MessageExt
from rmqlab.common.message_queue import MessageQueue
from rmqlab.core.errors import ConfigError, ScenarioError
from rmqlab.lab.scenario import load_scenario, validate_scenario

MIB = 1024 * 1024
Q0 = "T@broker-a:0"


def _lab(queues: int = 1, topic: str = "T") -> Lab:
    lab = Lab()
    lab.add_broker("broker-a")
    lab.create_topic(topic, queues=queues)
    return lab


def _pulls(lab: Lab, queue: str = Q0) -> list[tuple[int, list[int]]]:
    return [(e.time_ms, e.get("offsets")) for e in lab.trace.where(K.PULLED, queue=queue)]


def _deferrals(lab: Lab, queue: str = Q0, actor: str | None = None) -> list[tuple[int, str, int]]:
    found = lab.trace.where(K.PULL_DEFERRED, queue=queue, **({} if actor is None else {"actor": actor}))
    return [(e.time_ms, e.get("reason"), e.get("delay_ms")) for e in found]


def _msg(offset: int, body: Any) -> MessageExt:
    return MessageExt("T", 0, f"M{offset}", body, None, None, {}, queue_offset=offset)


def test_msg_size_counts_body_bytes_of_new_keys_only() -> None:
    """``putMessage`` adds ``getBody().length`` per new key (UTF-8 for a str); ``removeMessage`` and ``commit``
    take it off again; a body that is no str/bytes counts 0."""
    pq = ProcessQueue()
    pq.put_message([_msg(0, "a" * 10), _msg(1, "é" * 5), _msg(2, b"xyz"), _msg(3, {"order": 1})])
    assert (pq.msg_count, pq.msg_size) == (4, 23)
    pq.put_message([_msg(1, "é" * 5)])  # the key is there already: neither count nor size grows
    assert (pq.msg_count, pq.msg_size) == (4, 23)
    assert pq.remove_message([_msg(1, "é" * 5), _msg(9, "not there")], now=0) == 0
    assert (pq.msg_count, pq.msg_size) == (3, 13)
    orderly = ProcessQueue()
    orderly.put_message([_msg(0, "a" * 7), _msg(1, "b" * 3)])
    orderly.take_messages(2, now=0)
    assert orderly.commit() == 2 and (orderly.msg_count, orderly.msg_size) == (0, 0)


def test_cached_size_flow_control_counts_whole_mib() -> None:
    """pull_threshold_size_for_queue=1: 1.5 MiB cached is "1 MiB" (integer division), so the next pull goes; with
    2 MiB cached every pull is put off by 50 ms (2000, 2050 … 10 950: 180 times) until the listener frees the queue
    at 11 000, when the third message is pulled."""
    lab = _lab()
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        listener=lambda msgs, ctx: after("10s", C.CONSUME_SUCCESS),
        consume_thread_min=1,
        pull_threshold_size_for_queue=1,
    )
    lab.at("1s", producer.send, Message("T", "a" * (MIB + MIB // 2)))
    lab.at("2s", producer.send, Message("T", "b" * (MIB // 2)))
    lab.at("3s", producer.send, Message("T", "c"))
    lab.run(until="25s")
    assert _pulls(lab) == [(1000, [0]), (2000, [1]), (11_000, [2])]
    deferred = _deferrals(lab)
    assert deferred == [(t, "flow_control_size", 50) for t in range(2000, 11_000, 50)] and len(deferred) == 180
    first = lab.trace.first(K.PULL_DEFERRED, queue=Q0)
    assert (first.get("cached_mib"), first.get("threshold")) == (2, 1)


def test_cached_count_flow_control_is_checked_before_size() -> None:
    """Both limits exceeded: the count gate comes first in ``pullMessage``, so the reason is the count."""
    lab = _lab()
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        listener=lambda msgs, ctx: after("10s", C.CONSUME_SUCCESS),
        consume_thread_min=1,
        pull_threshold_for_queue=1,
        pull_threshold_size_for_queue=1,
    )
    lab.at("1s", producer.send, Message("T", "a" * MIB))
    lab.at("2s", producer.send, Message("T", "b" * MIB))
    lab.run(until="2099ms")
    assert _deferrals(lab) == [(2000, "flow_control_count", 50), (2050, "flow_control_count", 50)]
    assert lab.trace.first(K.PULL_DEFERRED).get("cached_count") == 2


def test_topic_threshold_is_divided_by_every_queue_held_the_retry_queue_too() -> None:
    """``messageQueueChanged`` after each changed rebalance: ``max(1, limit / processQueueTable.size())``. One
    consumer holds T's 4 queues and %RETRY%cg's one: 1000 → 200 (not 250), 100 MiB → 20. A second consumer takes
    two of T's queues; c1 keeps the retry queue (AVG gives a 1-queue topic to the first client id): 1000 / 3 = 333
    and 100 / 3 = 33 for c1, 1000 / 2 = 500 and 50 MiB for c2."""
    lab = _lab(queues=4)
    options: dict[str, Any] = {"pull_threshold_for_topic": 1000, "pull_threshold_size_for_topic": 100}
    c1 = lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS, name="c1", **options)
    c2 = lab.add_consumer(
        "cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS, name="c2", start="10s", **options
    )
    lab.run(until="5s")
    assert (c1.pull_threshold_for_queue, c1.pull_threshold_size_for_queue) == (200, 20)
    first = [
        (e.get("topic"), e.get("pull_threshold_for_queue"), e.get("pull_threshold_size_for_queue"))
        for e in lab.trace.where(K.REBALANCED, actor="consumer:c1")
    ]
    assert first == [("%RETRY%cg", 1000, 100), ("T", 200, 20)]
    lab.run(until="30s")
    assert (c1.pull_threshold_for_queue, c1.pull_threshold_size_for_queue) == (333, 33)
    assert (c2.pull_threshold_for_queue, c2.pull_threshold_size_for_queue) == (500, 50)


def test_a_topic_threshold_defers_by_count_with_the_divided_limit() -> None:
    """pull_threshold_for_topic=2 over T's one queue and the retry queue: 1 per queue, so the second cached
    message already stops the pulls (the event names the topic-wide limit it came from). The pulls put off from
    1001 on every 50 ms go again at 11 001, the first after the listener is done at 11 000."""
    lab = _lab()
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        listener=lambda msgs, ctx: after("10s", C.CONSUME_SUCCESS),
        consume_thread_min=1,
        pull_threshold_for_topic=2,
    )
    for at in (1000, 1001, 1002):
        lab.at(at, producer.send, Message("T", f"m{at}"))
    lab.run(until="12s")
    assert _pulls(lab) == [(1000, [0]), (1001, [1]), (11_001, [2])]
    first = lab.trace.first(K.PULL_DEFERRED, queue=Q0)
    assert (first.time_ms, first.get("reason"), first.get("cached_count"), first.get("threshold")) == (
        1001,
        "flow_control_count",
        2,
        1,
    )
    assert first.get("topic_threshold") == 2


@pytest.mark.parametrize(
    ("pull_interval", "pulls"), [(0, [(1000, [0]), (1100, [1]), (1200, [2])]), (500, [(1000, [0]), (1500, [1, 2])])]
)
def test_pull_interval_delays_the_pull_after_messages_were_found(
    pull_interval: int, pulls: list[tuple[int, list[int]]]
) -> None:
    """FOUND → ``executePullRequestLater(pullInterval)`` when > 0, else at once: with 500 ms the pull after the one
    at 1000 goes at 1500 and brings both messages stored meanwhile."""
    lab = _lab()
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS, pull_interval=pull_interval)
    for at in (1000, 1100, 1200):
        lab.at(at, producer.send, Message("T", f"m{at}"))
    lab.run(until="3s")
    assert _pulls(lab) == pulls


def test_consume_thread_max_never_grows_the_pool() -> None:
    """A common misreading: consumeThreadMax is *not* how many threads consume under load. The pool is a
    ``ThreadPoolExecutor(consumeThreadMin, consumeThreadMax, …, new LinkedBlockingQueue<Runnable>())``; a pool with
    an unbounded queue starts a thread beyond its core size only when the queue refuses a task, which it never
    does. consume_thread_min=1, consume_thread_max=64: three 1 s listeners run one after the other."""
    times = {}
    for thread_min, thread_max in ((1, 64), (3, 3)):
        lab = _lab()
        producer = lab.add_producer("pg")
        lab.add_consumer(
            "cg",
            subscribe={"T": "*"},
            listener=lambda msgs, ctx: after("1s", C.CONSUME_SUCCESS),
            consume_thread_min=thread_min,
            consume_thread_max=thread_max,
        )
        for _ in range(3):
            lab.at(1000, producer.send, Message("T", "x"))
        lab.run(until="10s")
        times[thread_min] = [e.time_ms for e in lab.trace.where(K.DELIVERED)]
    assert times == {1: [1000, 2000, 3000], 3: [1000, 1000, 1000]}


@pytest.mark.parametrize(
    ("options", "parameter", "allowed"),
    [
        ({"consume_thread_min": 5, "consume_thread_max": 4}, "consume_thread_min", "an int <= consume_thread_max (4)"),
        ({"consume_thread_max": 1001}, "consume_thread_max", "an int in 1..1000"),
        ({"pull_threshold_size_for_queue": 0}, "pull_threshold_size_for_queue", "an int in 1..1024"),
        (
            {"pull_threshold_for_topic": 0},
            "pull_threshold_for_topic",
            "-1 (no topic-wide limit) or an int in 1..6553500",
        ),
        ({"pull_threshold_size_for_topic": 102401}, "pull_threshold_size_for_topic", "an int in 1..102400"),
        ({"pull_interval": -1}, "pull_interval", "an int in 0..65535"),
    ],
)
def test_check_config_ranges(options: dict[str, int], parameter: str, allowed: str) -> None:
    """``checkConfig``'s ranges, and consumeThreadMin not above consumeThreadMax; the error names the parameter,
    the value and what is allowed."""
    lab = _lab()
    with pytest.raises(ConfigError) as info:
        lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS, **options)
    assert info.value.parameter == parameter and info.value.value == options[parameter]
    assert allowed in info.value.allowed


@pytest.mark.parametrize(
    ("code", "clear_ms", "times", "reason", "delay"),
    [
        ("FLOW_CONTROL", 100, [0, 20, 40, 60, 80], "broker_flow_control", 20),
        ("SYSTEM_BUSY", 2500, [0, 1000, 2000], "exception", 1000),
    ],
)
def test_a_pull_answered_flow_control_goes_again_after_20_ms_system_busy_after_1000(
    code: str, clear_ms: int, times: list[int], reason: str, delay: int
) -> None:
    """``PullCallback.onException``: only ``ResponseCode.FLOW_CONTROL`` (215) gets 20 ms; SYSTEM_BUSY (2), which is
    what a 4.9.7 broker actually answers when overloaded ("[OVERLOAD]system busy, start flow control for a
    while"), is an ordinary exception: 1000 ms."""
    lab = _lab()
    lab.at(0, lab.set_broker_fault, "broker-a", pull_error=code)
    lab.at(clear_ms, lab.set_broker_fault, "broker-a", pull_error=None)
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS)
    lab.run(until="5s")
    assert _deferrals(lab) == [(t, reason, delay) for t in times]
    assert lab.trace.first(K.PULL_DEFERRED, queue=Q0).get("code") == code


def test_a_paused_consumer_pulls_again_every_1000_ms_and_resume_rebalances_at_once() -> None:
    """suspend() at 5 s does not recall the pull held at the broker: M0001 (6 s) is still pulled and consumed.
    From then every pull is put off by 1000 ms; M0002 (6.5 s) waits. resume() at 9.5 s rebalances at once, and the
    pull put off at 9 s goes at 10 s."""
    lab = _lab()
    producer = lab.add_producer("pg")
    consumer = lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS)
    lab.at("5s", consumer.suspend)
    lab.at("6s", producer.send, Message("T", "one"))
    lab.at("6500ms", producer.send, Message("T", "two"))
    lab.at("9500ms", consumer.resume)
    lab.run(until="12s")
    assert _pulls(lab) == [(6000, [0]), (10_000, [1])]
    assert _deferrals(lab) == [
        (6000, "paused", 1000),
        (7000, "paused", 1000),
        (8000, "paused", 1000),
        (9000, "paused", 1000),
    ]
    assert [e.time_ms for e in lab.trace.where(K.DELIVERED)] == [6000, 10_000]
    messages = [(e.time_ms, e.get("message")) for e in lab.trace.where(K.WARNING, actor="consumer:cg-1")]
    assert messages == [(5000, "suspend this consumer, cg"), (9500, "resume this consumer, cg")]


def test_a_paused_consumer_does_not_rebalance() -> None:
    """``doRebalance`` does nothing while paused: c2 joins at 2 s and takes T:1, but paused c1 keeps both queues
    (both consume T:1) until resume() at 10 s gives it up."""
    lab = _lab(queues=2)
    c1 = lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS, name="c1")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS, name="c2", start="2s")
    lab.at("1s", c1.suspend)
    lab.at("10s", c1.resume)
    lab.run(until="12s")
    c1_changes = [(e.time_ms, e.get("removed")) for e in lab.trace.where(K.REBALANCED, actor="consumer:c1", topic="T")]
    assert c1_changes == [(0, []), (10_000, ["T@broker-a:1"])]
    assert [(e.time_ms, e.get("added")) for e in lab.trace.where(K.REBALANCED, actor="consumer:c2", topic="T")] == [
        (2000, ["T@broker-a:1"])
    ]


def test_an_unlocked_orderly_queue_is_pulled_again_1000_ms_later_until_lock_all_locks_it() -> None:
    """Orderly, clustering: "pull message later because not locked in broker" every 1000 ms (from the held pull's
    end at 15 s) until lockAll (1 s, then every 20 s) locks the queue again at 21 s and the pull brings M0001."""
    lab = Lab()
    lab.add_broker("broker-a")
    lab.create_topic("ORD", queues=1)
    producer = lab.add_producer("pg")
    consumer = lab.add_consumer("og", subscribe={"ORD": "*"}, listener=lambda m, c: O.SUCCESS, orderly=True)
    mq = MessageQueue("ORD", "broker-a", 0)

    def lose_the_client_side_lock() -> None:
        consumer.process_queue_table[mq].locked = False

    lab.at("5s", lose_the_client_side_lock)
    lab.at("17s", producer.send, Message("ORD", "x"))
    lab.run(until="30s")
    assert _deferrals(lab, str(mq)) == [(t, "not_locked", 1000) for t in range(15_000, 21_000, 1000)]
    assert _pulls(lab, str(mq)) == [(21_000, [0])]


def test_a_pull_that_cannot_connect_is_an_exception_1000_ms() -> None:
    """The broker down: each pull fails to connect and is put off by 1000 ms (``pullTimeDelayMillsWhenException``)."""
    lab = _lab()
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS)
    lab.at("1s", lab.broker_down, "broker-a")
    lab.run(until="3500ms")
    deferred = lab.trace.where(K.PULL_DEFERRED, queue=Q0)
    assert [(e.time_ms, e.get("reason"), e.get("delay_ms")) for e in deferred] == [
        (1000, "exception", 1000),
        (2000, "exception", 1000),
        (3000, "exception", 1000),
    ]
    assert deferred[1].get("error") == "RemotingConnectException"


SCENARIO: dict[str, Any] = {
    "name": "flow",
    "brokers": ["broker-a"],
    "topics": [{"name": "T", "queues": 1}],
    "producers": [{"name": "pg"}],
    "consumers": [{"group": "cg", "name": "c1", "subscribe": {"T": "*"}}],
    "run_until": "5s",
}


def test_a_scenario_sets_every_flow_control_field() -> None:
    """The schema has the fields the Python API has (pull_threshold_for_queue and consume_concurrently_max_span
    included), passed to the consumer as they are."""
    fields = {
        "consume_thread_min": 2,
        "consume_thread_max": 8,
        "pull_threshold_for_queue": 7,
        "pull_threshold_size_for_queue": 3,
        "pull_threshold_for_topic": 10,
        "pull_threshold_size_for_topic": 6,
        "pull_interval": 250,
        "consume_concurrently_max_span": 9,
    }
    data = {**SCENARIO, "consumers": [{**SCENARIO["consumers"][0], **fields}]}
    lab = load_scenario(data).run()
    consumer = lab.consumer("c1")
    got = {name: getattr(consumer, name) for name in fields}
    assert got == {**fields, "pull_threshold_for_queue": 5, "pull_threshold_size_for_queue": 3}  # 10 / 2, 6 / 2


@pytest.mark.parametrize(
    ("fields", "path", "value", "allowed"),
    [
        ({"consume_thread_min": 5, "consume_thread_max": 4}, "consume_thread_min", 5, "<= consume_thread_max (4)"),
        ({"pull_threshold_for_topic": 0}, "pull_threshold_for_topic", 0, "-1 (default: none) or an int in 1..6553500"),
        ({"pull_interval": 70_000}, "pull_interval", 70_000, "an int of ms in 0..65535"),
    ],
)
def test_a_scenario_refuses_bad_flow_control_fields(
    fields: dict[str, int], path: str, value: int, allowed: str
) -> None:
    """The field's path, its value and what is allowed (the schema's range, or checkConfig's min <= max)."""
    data = {**SCENARIO, "consumers": [{**SCENARIO["consumers"][0], **fields}]}
    with pytest.raises(ScenarioError) as info:
        validate_scenario(data)
    assert (info.value.parameter, info.value.value) == (f"consumers[0].{path}", value)
    assert allowed in info.value.allowed


def test_scenario_fault_kinds_suspend_resume_and_pull_error() -> None:
    """consumer_suspend / consumer_resume call suspend() / resume(); pull_error sets the broker's pull answer."""
    data = {
        **SCENARIO,
        "faults": [
            {"at": "1s", "kind": "pull_error", "broker": "broker-a", "code": "FLOW_CONTROL", "remark": "busy"},
            {"at": "1s", "kind": "consumer_suspend", "consumer": "c1"},
            {"at": "3s", "kind": "consumer_resume", "consumer": "c1"},
            {"at": "3s", "kind": "pull_error", "broker": "broker-a", "code": "SUCCESS"},
        ],
    }
    lab = load_scenario(data).run()
    assert lab.brokers["broker-a"].faults.pull_error is None
    warnings = [(e.time_ms, e.get("message")) for e in lab.trace.where(K.WARNING, actor="consumer:c1")]
    assert warnings == [(1000, "suspend this consumer, cg"), (3000, "resume this consumer, cg")]


def test_the_pull_flow_control_example() -> None:
    """examples/pull_flow_control.yaml: 20 ms after FLOW_CONTROL, 1000 ms after SYSTEM_BUSY, 90 count deferrals of
    50 ms from 3.5 s (the topic-wide 4 over 4 queues held), three paused ones from 13 s."""
    from pathlib import Path

    lab = load_scenario(Path(__file__).resolve().parents[1] / "examples" / "pull_flow_control.yaml").run()
    assert lab.consumer("c1").pull_threshold_for_queue == 1
    assert _deferrals(lab, "T@broker-a:0")[:6] == [(t, "broker_flow_control", 20) for t in range(1000, 1100, 20)] + [
        (3500, "flow_control_count", 50)
    ]
    assert _deferrals(lab, "T@broker-b:0") == [(1000, "exception", 1000)]
    reasons = [r for _, r, _ in _deferrals(lab, "T@broker-a:0")]
    assert (reasons.count("flow_control_count"), reasons.count("paused")) == (90, 3)
    assert [(e.time_ms, e.get("offsets")) for e in lab.trace.where(K.PULLED, queue="T@broker-a:0")][-3:] == [
        (8000, [3]),
        (13_000, [4]),
        (16_000, [5]),
    ]


@pytest.mark.parametrize("orderly", [False, True], ids=["concurrently", "orderly"])
def test_the_span_limit_holds_back_concurrent_pulls_only(orderly: bool) -> None:
    """consume_concurrently_max_span=3 (was untested): two 10 s listeners at offsets 0 and 4 keep both keys in the
    msgTreeMap, span 4 > 3, so from 1.4 s every concurrent pull is put off by 50 ms (192 times) and offsets 5-6 come
    at 11 s, once offset 0 is done. ``pullMessage`` checks the span only ``if (!this.consumeOrderly)``: the orderly
    consumer pulls each message as it arrives."""
    lab = _lab()
    producer = lab.add_producer("pg")
    done = O.SUCCESS if orderly else C.CONSUME_SUCCESS

    def listener(msgs: Any, ctx: Any) -> Any:
        return after("10s", done) if msgs[0].body.startswith("slow") else done

    lab.add_consumer("cg", subscribe={"T": "*"}, listener=listener, orderly=orderly, consume_concurrently_max_span=3)
    for i, body in enumerate(["slow0", "m1", "m2", "m3", "slow4", "m5", "m6"]):
        lab.at(1000 + 100 * i, producer.send, Message("T", body))
    lab.run(until="12s")
    arrivals = [(1000 + 100 * i, [i]) for i in range(7)]
    if orderly:
        assert _pulls(lab) == arrivals and _deferrals(lab) == []
        return
    assert _pulls(lab) == [*arrivals[:5], (11_000, [5, 6])]
    assert _deferrals(lab) == [(t, "flow_control_span", 50) for t in range(1400, 11_000, 50)]
    first = lab.trace.first(K.PULL_DEFERRED, queue=Q0)
    assert (first.get("span"), first.get("threshold")) == (4, 3)


def test_a_consumer_suspended_before_start_takes_no_queue_until_resume() -> None:
    """``start()`` ends with ``rebalanceImmediately``, whose ``doRebalance`` does nothing while paused: no queue,
    no pull, until ``resume()`` at 3 s. A crash clears the flag (it lived in the process): the restart at 6 s
    rebalances at once."""
    lab = _lab()
    consumer = lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.CONSUME_SUCCESS, start=False)
    consumer.suspend()
    consumer.start()
    lab.at("3s", consumer.resume)
    lab.at("4s", consumer.suspend)
    lab.at("5s", consumer.crash)
    lab.at("6s", consumer.start)
    lab.run(until="7s")
    assert [(e.time_ms, e.get("topic")) for e in lab.trace.where(K.REBALANCED)] == [
        (3000, "%RETRY%cg"),
        (3000, "T"),
        (6000, "%RETRY%cg"),
        (6000, "T"),
    ]
    assert consumer.pause is False
