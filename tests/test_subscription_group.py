"""``Lab.update_subscription_group``: the broker-side ``retryQueueNums`` / ``retryMaxTimes`` of a group.

What 4.9.7 does with them (``SendMessageProcessor.asyncConsumerSendMsgBack`` and ``handleRetryAndDLQ``):
``retryQueueNums`` 0 makes CONSUMER_SEND_MSG_BACK answer SUCCESS and store nothing; with more than one retry queue
each send-back picks one at random; ``retryMaxTimes`` only decides for a ``%RETRY%`` message that arrives without a
``maxReconsumeTimes`` header, which push consumers always send. ``%RETRY%<group>`` is created with
``retryQueueNums`` queues and never resized, so raising it later strands retries in queues the route does not list.
"""

from __future__ import annotations

from typing import Any

import pytest

from rmqlab import ConfigError, ConsumeConcurrentlyStatus, EventKind, Lab, Message, check_invariants

DEFAULT_SCHEDULE_S = [0, 10, 40, 100, 220, 400, 640, 940, 1300, 1720, 2200, 2740, 3340, 4540, 6340, 9940, 17140]


def _fail(msgs: Any, ctx: Any) -> ConsumeConcurrentlyStatus:
    return ConsumeConcurrentlyStatus.RECONSUME_LATER


def _ok(msgs: Any, ctx: Any) -> ConsumeConcurrentlyStatus:
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS


def _lab(brokers: int = 1) -> Lab:
    lab = Lab(seed=1)
    for name in ["broker-a", "broker-b"][:brokers]:
        lab.add_broker(name)
    lab.create_topic("T", queues=1)
    return lab


def _c1_gets(lab: Lab, listener: Any, bodies: tuple[str, ...] = ("b",), **consumer_options: Any) -> None:
    """Producer pg, consumer c1 of group cg on T with ``listener``, and one send at t=0 per body."""
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", name="c1", subscribe={"T": "*"}, listener=listener, **consumer_options)
    for body in bodies:
        lab.at(0, producer.send, Message("T", body))


def _story(lab: Lab, msg_id: str) -> list[tuple[int, str]]:
    return [(e.time_ms, e.kind.value) for e in lab.trace if e.msg_id == msg_id]


def test_defaults_are_one_retry_queue_and_16_retries():
    """Without options the call creates the group's config with RocketMQ's defaults on every broker."""
    lab = _lab(brokers=2)
    configs = lab.update_subscription_group("cg")
    assert {name: (c.group_name, c.retry_queue_nums, c.retry_max_times) for name, c in configs.items()} == {
        "broker-a": ("cg", 1, 16),
        "broker-b": ("cg", 1, 16),
    }


def test_none_keeps_a_setting_and_brokers_limits_the_update():
    """A second call changes only what it names, and only on the brokers it names."""
    lab = _lab(brokers=2)
    lab.update_subscription_group("cg", retry_queue_nums=3)
    lab.update_subscription_group("cg", retry_max_times=5, brokers=["broker-b"])
    groups = {name: b.subscription_groups["cg"] for name, b in lab.brokers.items()}
    assert {name: (c.retry_queue_nums, c.retry_max_times) for name, c in groups.items()} == {
        "broker-a": (3, 16),
        "broker-b": (3, 5),
    }


def test_returned_configs_are_copies():
    """Changing the returned config does not change the broker."""
    lab = _lab()
    lab.update_subscription_group("cg", retry_queue_nums=2)["broker-a"].retry_queue_nums = 7
    assert lab.brokers["broker-a"].subscription_groups["cg"].retry_queue_nums == 2


def test_retry_queue_nums_0_drops_the_failed_message():
    """0 retry queues: the send-back answers SUCCESS, nothing is stored, the offset moves on, no redelivery."""
    lab = _lab()
    lab.update_subscription_group("cg", retry_queue_nums=0)
    _c1_gets(lab, _fail)
    lab.run(until="6h")
    assert _story(lab, "M0001") == [
        (0, "send_attempt"),
        (0, "stored"),
        (0, "send_result"),
        (0, "delivered"),
        (0, "consumed"),
        (0, "send_back"),
    ]
    assert lab.trace.first(EventKind.SEND_BACK).get("ok") is True
    broker = lab.brokers["broker-a"]
    retry = broker.topic_config["%RETRY%cg"]
    assert (retry.read_queue_nums, retry.write_queue_nums) == (0, 0)
    assert [m.topic for m in broker.commit_log.live()] == ["T"]
    assert broker.consumer_offsets == {("cg", "T", 0): 1}
    # the invariant checker sees what RocketMQ hides: the message is gone
    report = check_invariants(lab)
    assert (report.fates, dict(report.by_invariant())) == ({("group:cg", "M0001"): "lost"}, {"accounted": 1})
    [violation] = report.violations
    assert violation.detail == (
        "produced to T but neither consumed, dead-lettered, dropped nor in flight for group:cg: its send-back "
        "at 0 ms was answered SUCCESS by broker-a, whose updateSubGroup at 0 ms set retry_queue_nums=0 for cg, "
        "so the broker stored no retry copy"
    )
    assert violation.trace[0].kind is EventKind.ADMIN  # the cause leads the story


def test_retry_queue_nums_0_mid_run_drops_from_the_next_send_back_on():
    """Set at 5 s: the first retry (stored at 0 s, delivered at 10 s) still comes, its send-back is dropped."""
    lab = _lab()
    _c1_gets(lab, _fail)
    lab.at("5s", lab.update_subscription_group, "cg", retry_queue_nums=0)
    lab.run(until="1h")
    assert [e.time_ms for e in lab.trace.of_kind(EventKind.DELIVERED)] == [0, 10_000]
    assert [(e.time_ms, e.get("level")) for e in lab.trace.of_kind(EventKind.SCHEDULED)] == [(0, 3)]
    assert [(e.time_ms, e.get("ok")) for e in lab.trace.of_kind(EventKind.SEND_BACK)] == [(0, True), (10_000, True)]
    assert lab.trace.of_kind(EventKind.WARNING) == []
    [violation] = check_invariants(lab).violations
    assert violation.detail.endswith(
        "its send-back at 10000 ms was answered SUCCESS by broker-a, whose updateSubGroup at 5000 ms set "
        "retry_queue_nums=0 for cg, so the broker stored no retry copy"
    )


def test_two_retry_queues_pick_a_random_queue_per_send_back():
    """retry_queue_nums=2 before the consumer starts: %RETRY%cg has 2 queues; seed 1 spreads the copies over both."""
    lab = _lab()
    lab.update_subscription_group("cg", retry_queue_nums=2)
    _c1_gets(lab, _fail, ("b0", "b1", "b2", "b3"), max_reconsume_times=2)
    lab.run(until="2m")
    retry = lab.brokers["broker-a"].topic_config["%RETRY%cg"]
    assert (retry.read_queue_nums, retry.write_queue_nums) == (2, 2)
    stored = [
        (e.msg_id, e.get("reconsume_times"), e.get("queue_id"))
        for e in lab.trace.of_kind(EventKind.STORED)
        if e.get("topic") == "%RETRY%cg"
    ]
    assert stored == [
        ("M0001", 1, 0),
        ("M0002", 1, 0),
        ("M0003", 1, 1),
        ("M0004", 1, 1),
        ("M0001", 2, 0),
        ("M0003", 2, 1),
        ("M0002", 2, 1),
        ("M0004", 2, 0),
    ]
    # the consumer owns both retry queues, so every copy is delivered and the group ends in the DLQ
    queues = {e.get("queue") for e in lab.trace.of_kind(EventKind.DELIVERED)}
    assert queues == {"T@broker-a:0", "%RETRY%cg@broker-a:0", "%RETRY%cg@broker-a:1"}
    report = check_invariants(lab)
    assert report.ok and set(report.fates.values()) == {"dlq"}


def test_one_retry_queue_puts_every_copy_in_queue_0():
    """The default single retry queue: every retry copy lands in queue 0."""
    lab = _lab()
    _c1_gets(lab, _fail, ("b0", "b1", "b2", "b3"), max_reconsume_times=2)
    lab.run(until="2m")
    queue_ids = [e.get("queue_id") for e in lab.trace.of_kind(EventKind.STORED) if e.get("topic") == "%RETRY%cg"]
    assert queue_ids == [0] * 8


def _default_consumer_run(**config: Any) -> Lab:
    lab = _lab()
    if config:
        lab.update_subscription_group("cg", **config)
    _c1_gets(lab, _fail)
    return lab.run(until="5h")


def test_broker_retry_max_times_does_not_change_a_push_consumers_retries():
    """Push consumers send maxReconsumeTimes (−1 → 16) in every send-back, so the broker's 2 is never used."""
    changed = _default_consumer_run(retry_max_times=2)
    assert [e.time_ms for e in changed.trace.of_kind(EventKind.DELIVERED)] == [s * 1000 for s in DEFAULT_SCHEDULE_S]
    assert [e.get("max_reconsume_times") for e in changed.trace.of_kind(EventKind.SEND_BACK)] == [16] * 17
    [admin] = changed.trace.of_kind(EventKind.ADMIN)
    assert (admin.time_ms, admin.actor, dict(admin.data)) == (
        0,
        "broker-a",
        {"command": "updateSubGroup", "group": "cg", "retry_queue_nums": 1, "retry_max_times": 2},
    )
    without_admin = [e.to_dict() | {"seq": 0} for e in changed.trace if e.kind is not EventKind.ADMIN]
    assert without_admin == [e.to_dict() | {"seq": 0} for e in _default_consumer_run().trace]


@pytest.mark.parametrize(
    ("properties", "topic", "reconsume_times"),
    [
        ({"RECONSUME_TIME": "1"}, "%RETRY%cg", 1),
        ({"RECONSUME_TIME": "2"}, "%DLQ%cg", 2),
        ({"RECONSUME_TIME": "2", "MAX_RECONSUME_TIMES": "5"}, "%RETRY%cg", 2),
    ],
    ids=["rt 1 < broker max 2", "rt 2 >= broker max 2", "header max 5 wins"],
)
def test_broker_retry_max_times_decides_without_a_header(properties: dict[str, str], topic: str, reconsume_times: int):
    """A producer sending to %RETRY%cg without MAX_RECONSUME_TIMES is judged by the broker's retry_max_times."""
    lab = _lab()
    lab.update_subscription_group("cg", retry_max_times=2)
    lab.add_consumer("cg", name="c1", subscribe={"T": "*"}, listener=_ok)  # its heartbeat creates %RETRY%cg
    lab.add_producer("pg").send(Message("%RETRY%cg", "b", properties=properties))
    [stored] = lab.trace.of_kind(EventKind.STORED)
    assert (stored.get("topic"), stored.get("reconsume_times")) == (topic, reconsume_times)


# ---------------------------------------------------------------------- raising it later strands retries
def _fails_once(msgs: Any, ctx: Any) -> ConsumeConcurrentlyStatus:
    return ConsumeConcurrentlyStatus.RECONSUME_LATER if msgs[0].reconsume_times == 0 else _ok(msgs, ctx)


def test_raising_retry_queue_nums_after_the_retry_topic_exists_strands_retries():
    """4.9.7: %RETRY%cg keeps its 1 queue; send-backs pick random % 4, and only queue 0 is ever pulled.

    ``updateTopic`` on %RETRY%cg at 5 min lists all 4 queues; the consumer sees them on its next route poll
    (300.01 s: every 30 s from 10 ms) and allocates them at the next rebalance, 320 s, where the stranded
    retries are consumed.
    """
    lab = _lab()
    _c1_gets(lab, _fails_once, ("b0", "b1", "b2", "b3"))  # c1's heartbeat makes %RETRY%cg with 1 queue
    lab.update_subscription_group("cg", retry_queue_nums=4)
    lab.run(until="5m")
    retry = lab.brokers["broker-a"].topic_config["%RETRY%cg"]
    assert (retry.read_queue_nums, retry.write_queue_nums) == (1, 1)
    stored = [
        (e.msg_id, e.get("queue_id")) for e in lab.trace.of_kind(EventKind.STORED) if e.get("topic") == "%RETRY%cg"
    ]
    assert stored == [("M0001", 1), ("M0002", 0), ("M0003", 3), ("M0004", 3)]
    retried = [(e.time_ms, e.msg_id) for e in lab.trace.of_kind(EventKind.DELIVERED) if e.get("reconsume_times") == 1]
    assert retried == [(10_000, "M0002")]
    report = check_invariants(lab)
    assert report.fates == {
        ("group:cg", "M0001"): "stranded",
        ("group:cg", "M0002"): "consumed",
        ("group:cg", "M0003"): "stranded",
        ("group:cg", "M0004"): "stranded",
    }
    assert (report.counts["stranded"], report.counts["lost"], dict(report.by_invariant())) == (3, 0, {"accounted": 3})
    assert report.violations[0].detail == (
        "stranded for group:cg in %RETRY%cg@broker-a:1: %RETRY%cg on broker-a lists 1 read queue(s), so no consumer"
        " pulls queue 1 (the send-back picked random % retryQueueNums, and a %RETRY% topic is never resized when"
        " retryQueueNums grows; updateTopic on it frees the queue)"
    )

    lab.update_topic("%RETRY%cg", queues=4)
    lab.run(until="10m")
    retried = [
        (e.time_ms, e.msg_id, e.get("queue"))
        for e in lab.trace.of_kind(EventKind.DELIVERED)
        if e.get("reconsume_times")
    ]
    assert retried == [
        (10_000, "M0002", "%RETRY%cg@broker-a:0"),
        (320_000, "M0001", "%RETRY%cg@broker-a:1"),
        (320_000, "M0003", "%RETRY%cg@broker-a:3"),
        (320_000, "M0004", "%RETRY%cg@broker-a:3"),
    ]
    assert check_invariants(lab).ok


def test_a_retry_topic_made_with_0_queues_strands_every_retry_once_retries_are_back_on():
    """Started with 0 retry queues, %RETRY%cg lists none; back to 1, each retry goes to queue 0, which no route has."""
    lab = _lab()
    lab.update_subscription_group("cg", retry_queue_nums=0)
    _c1_gets(lab, _fail)
    lab.update_subscription_group("cg", retry_queue_nums=1)
    lab.run(until="1h")
    assert [e.time_ms for e in lab.trace.of_kind(EventKind.DELIVERED)] == [0]
    assert [(e.get("topic"), e.get("queue_id")) for e in lab.trace.of_kind(EventKind.STORED)] == [
        ("T", 0),
        ("%RETRY%cg", 0),
    ]
    assert check_invariants(lab).fates == {("group:cg", "M0001"): "stranded"}


# ---------------------------------------------------------------------- bad input
BAD: list[tuple[str, dict[str, Any], str]] = [
    ("group '%RETRY%cg'", {"group": "%RETRY%cg"}, "group='%RETRY%cg' is not allowed: expected a non-empty"),
    ("group ''", {"group": ""}, "group='' is not allowed"),
    ("group 5", {"group": 5}, "group=5 is not allowed"),
    ("queues -1", {"retry_queue_nums": -1}, "retry_queue_nums=-1 is not allowed: expected an int in 0..1024"),
    ("queues 1025", {"retry_queue_nums": 1025}, "retry_queue_nums=1025 is not allowed: expected an int in 0..1024"),
    ("queues '2'", {"retry_queue_nums": "2"}, "retry_queue_nums='2' is not allowed: expected an int in 0..1024"),
    ("queues True", {"retry_queue_nums": True}, "retry_queue_nums=True is not allowed"),
    ("max -1", {"retry_max_times": -1}, "retry_max_times=-1 is not allowed: expected an int in 0..2147483647"),
    ("max 1.5", {"retry_max_times": 1.5}, "retry_max_times=1.5 is not allowed"),
    ("brokers str", {"brokers": "broker-a"}, "brokers='broker-a' is not allowed: expected a list of broker names"),
    ("brokers []", {"brokers": []}, "brokers=[] is not allowed: expected a non-empty list of brokers"),
    (
        "unknown broker after a good one",
        {"brokers": ["broker-a", "nope"]},
        "brokers='nope' is not allowed: expected one of ['broker-a', 'broker-b']",
    ),
]


@pytest.mark.parametrize(("kwargs", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_argument_names_it_and_changes_no_broker(kwargs: dict[str, Any], message: str):
    """Every bad argument is a ConfigError naming parameter, value and what is allowed; no broker changes."""
    lab = _lab(brokers=2)
    arguments = {"group": "cg", "retry_queue_nums": 2, "retry_max_times": 3, **kwargs}
    with pytest.raises(ConfigError) as info:
        lab.update_subscription_group(arguments.pop("group"), **arguments)
    assert str(info.value).startswith(message)
    assert [b.subscription_groups for b in lab.brokers.values()] == [{}, {}]


def test_a_down_broker_is_refused_and_nothing_is_applied():
    """mqadmin cannot reach a down broker: the whole update is refused, also on the brokers that are up."""
    lab = _lab(brokers=2)
    lab.broker_down("broker-b")
    with pytest.raises(ConfigError, match=r"^brokers='broker-b' is not allowed: expected a broker that is up"):
        lab.update_subscription_group("cg", retry_queue_nums=0)
    assert lab.brokers["broker-a"].subscription_groups == {}
    lab.update_subscription_group("cg", retry_queue_nums=0, brokers=["broker-a"])
    assert lab.brokers["broker-a"].subscription_groups["cg"].retry_queue_nums == 0


def test_no_brokers_yet():
    """Before add_broker there is nothing to update."""
    with pytest.raises(ConfigError, match=r"^brokers=None is not allowed: expected at least one broker"):
        Lab().update_subscription_group("cg", retry_queue_nums=0)


def test_loss_is_blamed_on_the_update_in_force_at_the_send_back():
    """0 at 5 s, back to 1 at 20 s: the send-back at 10 s was dropped, and the checker names the 5 s update."""
    lab = _lab()
    _c1_gets(lab, _fail)
    lab.at("5s", lab.update_subscription_group, "cg", retry_queue_nums=0)
    lab.at("20s", lab.update_subscription_group, "cg", retry_queue_nums=1)
    lab.run(until="1h")
    assert [(e.time_ms, e.get("retry_queue_nums")) for e in lab.trace.of_kind(EventKind.ADMIN)] == [
        (5_000, 0),
        (20_000, 1),
    ]
    [violation] = check_invariants(lab).violations
    assert "updateSubGroup at 5000 ms set retry_queue_nums=0" in violation.detail
    assert [e.time_ms for e in violation.trace if e.kind is EventKind.ADMIN] == [5_000]
