"""``Lab.update_topic`` (``mqadmin updateTopic``) and ``Lab.create_topic`` on a topic that exists.

4.9.7's ``AdminBrokerProcessor.updateAndCreateTopic`` replaces the broker's TopicConfig and registers it
with the name server at once; clients see it on their next route poll (30 s). Stored messages never move:
a queue the new config no longer lists keeps its messages, and no consumer reads them (*stranded*).
"""

from __future__ import annotations

from typing import Any

import pytest

from rmqlab import ConfigError, ConsumeConcurrentlyStatus, EventKind, Lab, Message, check_invariants


def _ok(msgs: Any, ctx: Any) -> ConsumeConcurrentlyStatus:
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS


def _fail() -> ConsumeConcurrentlyStatus:
    return ConsumeConcurrentlyStatus.RECONSUME_LATER


def _lab(brokers: int = 1, queues: int = 4) -> Lab:
    lab = Lab(seed=1)
    for name in ["broker-a", "broker-b"][:brokers]:
        lab.add_broker(name)
    lab.create_topic("T", queues=queues)
    return lab


def _stored_queues(lab: Lab) -> list[tuple[int, int]]:
    return [(e.time_ms, e.get("queue_id")) for e in lab.trace.of_kind(EventKind.STORED)]


# ---------------------------------------------------------------------- create_topic again
def test_creating_a_topic_again_with_the_same_config_is_a_no_op():
    lab = _lab(queues=2)
    assert [str(mq) for mq in lab.create_topic("T", queues=2)] == ["T@broker-a:0", "T@broker-a:1"]
    assert lab.brokers["broker-a"].topic_config["T"].write_queue_nums == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"queues": 8}, "queues=8 is not allowed: expected 4: T already exists on broker-b with 4 read / 4 write"),
        ({"queues": 4, "perm": 4}, "perm=4 is not allowed: expected 6: T already exists on broker-b"),
        (
            {"queues": 4, "perm": 5},
            "perm=5 is not allowed: expected 6 (read+write), 4 (read only), 2 (write only) or 0",
        ),
    ],
    ids=["other queue count", "other perm", "perm not a PermName value"],
)
def test_creating_a_topic_again_differently_is_refused_on_every_broker(kwargs: dict[str, Any], message: str):
    """T exists on broker-b only: the refusal there leaves broker-a (listed first) without T."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("T", brokers=["broker-b"], queues=4)
    with pytest.raises(ConfigError) as info:
        lab.create_topic("T", **kwargs)
    assert str(info.value).startswith(message)
    assert "T" not in lab.brokers["broker-a"].topic_config
    assert lab.namesrv.route("T").queue_datas[0].broker_name == "broker-b"


# ---------------------------------------------------------------------- update_topic
def test_update_topic_replaces_the_config_registers_the_route_and_traces_it():
    lab = _lab(brokers=2)
    configs = lab.update_topic("T", read_queues=6, perm=4)
    assert {name: (c.read_queue_nums, c.write_queue_nums, c.perm) for name, c in configs.items()} == {
        "broker-a": (6, 4, 4),
        "broker-b": (6, 4, 4),
    }
    route = lab.namesrv.route("T")
    assert [(q.broker_name, q.read_queue_nums, q.write_queue_nums, q.perm) for q in route.queue_datas] == [
        ("broker-a", 6, 4, 4),
        ("broker-b", 6, 4, 4),
    ]
    assert [(e.actor, e.data.get("command"), e.get("topic")) for e in lab.trace.of_kind(EventKind.ADMIN)] == [
        ("broker-a", "updateTopic", "T"),
        ("broker-b", "updateTopic", "T"),
    ]
    configs["broker-a"].read_queue_nums = 99  # a copy
    assert lab.brokers["broker-a"].topic_config["T"].read_queue_nums == 6


def test_fewer_write_queues_reach_the_producer_on_its_next_route_poll():
    """The producer's cached route still has 4 write queues at 10 s; its poll at 30 s brings the 2."""
    lab = _lab()
    producer = lab.add_producer("pg")
    lab.at("1s", lab.update_topic, "T", write_queues=2)
    for t in ("0s", "10s", "61s"):
        for i in range(4):
            lab.at(t, producer.send, Message("T", f"{t}-{i}"))
    lab.run(until="2m")
    assert _stored_queues(lab) == [
        *[(0, q) for q in (2, 3, 0, 1)],
        *[(10_000, q) for q in (2, 3, 0, 1)],
        *[(61_000, q) for q in (0, 1, 0, 1)],
    ]


def test_shrinking_read_queues_first_strands_what_the_high_queues_hold():
    """read 2 / write 4: the consumer reads queues 0-1 only; what was (and still is) written to 2-3 is stranded."""
    lab = _lab()
    producer = lab.add_producer("pg")
    for i in range(8):
        lab.at(0, producer.send, Message("T", f"b{i}"))
    lab.at("1s", lab.update_topic, "T", read_queues=2)
    lab.at("2s", lab.add_consumer, "cg", name="c1", subscribe={"T": "*"}, listener=_ok)
    lab.at("1m", producer.send, Message("T", "late"))
    lab.run(until="2m")
    assert _stored_queues(lab) == [*[(0, q) for q in (2, 3, 0, 1, 2, 3, 0, 1)], (60_000, 2)]
    report = check_invariants(lab)
    assert sorted(msg for (_, msg), fate in report.fates.items() if fate == "stranded") == [
        "M0001",
        "M0002",
        "M0005",
        "M0006",
        "M0009",
    ]
    assert report.counts["consumed"] == 4
    assert report.violations[0].detail == (
        "stranded for group:cg in T@broker-a:2: T on broker-a lists 2 read queue(s), so no consumer pulls queue 2"
    )


BAD: list[tuple[str, str, dict[str, Any], str]] = [
    ("unknown topic", "Nope", {"queues": 2}, "topic='Nope' is not allowed: expected a topic that exists on a broker"),
    ("schedule topic", "SCHEDULE_TOPIC_XXXX", {"queues": 2}, "topic='SCHEDULE_TOPIC_XXXX' is not allowed"),
    ("not a str", "T", {"queues": "2"}, "queues='2' is not allowed: expected an int in 1..1024"),
    ("queues 0", "T", {"queues": 0}, "queues=0 is not allowed: expected an int in 1..1024"),
    ("both", "T", {"queues": 2, "read_queues": 2}, "queues=2 is not allowed: expected None when read_queues"),
    ("write 1025", "T", {"write_queues": 1025}, "write_queues=1025 is not allowed: expected an int in 1..1024"),
    ("perm 7", "T", {"perm": 7}, "perm=7 is not allowed: expected 6 (read+write)"),
    ("perm True", "T", {"perm": True}, "perm=True is not allowed"),
    ("brokers str", "T", {"brokers": "broker-a"}, "brokers='broker-a' is not allowed: expected a list of broker"),
    ("brokers []", "T", {"brokers": []}, "brokers=[] is not allowed: expected a non-empty list of brokers"),
    ("unknown broker", "T", {"brokers": ["broker-a", "x"]}, "brokers='x' is not allowed: expected one of"),
    ("down broker", "T", {"queues": 2}, "brokers='broker-b' is not allowed: expected a broker that is up"),
]


@pytest.mark.parametrize(("topic", "kwargs", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_argument_names_it_and_changes_no_broker(topic: str, kwargs: dict[str, Any], message: str):
    lab = _lab(brokers=2)
    if "a broker that is up" in message:
        lab.broker_down("broker-b")
    with pytest.raises(ConfigError) as info:
        lab.update_topic(topic, **kwargs)
    assert str(info.value).startswith(message)
    assert [
        (c.read_queue_nums, c.write_queue_nums, c.perm) for c in (b.topic_config["T"] for b in lab.brokers.values())
    ] == [
        (4, 4, 6),
        (4, 4, 6),
    ]
    assert lab.trace.of_kind(EventKind.ADMIN) == []


def test_a_broker_without_the_topic_is_refused():
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("T", brokers=["broker-b"])
    with pytest.raises(
        ConfigError, match=r"^brokers='broker-a' is not allowed: expected a broker that has T: one of \['broker-b'\]"
    ):
        lab.update_topic("T", queues=2, brokers=["broker-a", "broker-b"])
    assert lab.brokers["broker-b"].topic_config["T"].write_queue_nums == 4
    assert list(lab.update_topic("T", queues=2)) == ["broker-b"]  # default: the brokers that have it


def test_making_a_pre_4_9_2_dlq_readable_lets_an_ops_consumer_drain_it():
    """dlq_readable=False models ≤ 4.9.1: %DLQ%cg has perm 2, so its route has no readable queue.

    ``updateTopic -p 6`` (the operators' fix before 4.9.2) at 2 min: the ops consumer (started at 30 s) sees the
    queue on its next route poll, 120.01 s, and consumes the dead letter at its next rebalance, 130 s.
    """
    lab = Lab(seed=1, dlq_readable=False)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", name="c1", subscribe={"T": "*"}, listener=lambda m, c: _fail(), max_reconsume_times=0)
    lab.at("1s", producer.send, Message("T", "x"))
    lab.at(
        "30s",
        lab.add_consumer,
        "ops",
        name="ops1",
        subscribe={"%DLQ%cg": "*"},
        listener=_ok,
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
    )
    lab.run(until="2m")
    assert lab.brokers["broker-a"].topic_config["%DLQ%cg"].perm == 2
    assert [(e.time_ms, e.actor) for e in lab.trace.of_kind(EventKind.DELIVERED)] == [(1_000, "consumer:c1")]
    lab.update_topic("%DLQ%cg", perm=6)
    lab.run(until="4m")
    assert [(e.time_ms, e.actor, e.get("topic")) for e in lab.trace.of_kind(EventKind.DELIVERED)] == [
        (1_000, "consumer:c1", "T"),
        (130_000, "consumer:ops1", "%DLQ%cg"),
    ]
