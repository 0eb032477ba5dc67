"""The public state API: what a test or a teacher reads through ``lab.snapshot()`` and sets up through ``Lab``.

Reads are frozen copies with RocketMQ's names (``ProcessQueue``'s TreeMap, ``msgCount`` / ``msgSize``, the
``RebalanceLockManager`` entry, ``consumerOffset.json``, the ConsumeQueue's min/max offsets). Set-ups follow 4.9.7's
admin paths: ``mqadmin updateTopic`` creates ``%DLQ%<group>`` like any topic (``AdminBrokerProcessor
.updateAndCreateTopic``; the send-back then keeps that config, ``createTopicInSendMessageBackMethod``, and writes
queue 0, ``DLQ_NUMS_PER_GROUP`` = 1), and ``DefaultMQAdminExtImpl.updateConsumeOffset`` sends UPDATE_CONSUMER_OFFSET,
which ``ConsumerOffsetManager.commitOffset`` stores over whatever was there.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from rmqlab import (
    ConfigError,
    ConsumeConcurrentlyStatus,
    EventKind,
    Lab,
    Message,
    ScenarioError,
    ScriptedListener,
    after,
    load_scenario,
)
from rmqlab.common.message_queue import MessageQueue

MQ = MessageQueue("T", "broker-a", 0)
ROOT = Path(__file__).resolve().parents[1]


def _slow_lab() -> Lab:
    """One queue; three messages of 3, 5 and 1 body bytes at 1 s; one consume thread, 10 s per message."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    lab.add_consumer(
        "cg",
        name="c1",
        subscribe={"T": "*"},
        listener=lambda msgs, ctx: after("10s", ConsumeConcurrentlyStatus.CONSUME_SUCCESS),
        consume_thread_min=1,
        consume_thread_max=1,
    )
    producer = lab.add_producer("pg")
    for body in ("abc", "hello", "x"):
        lab.at(1_000, producer.send, Message("T", body))
    return lab


def test_a_process_queue_shows_its_tree_map_count_size_and_times() -> None:
    lab = _slow_lab().run(until=1_500)
    pq = lab.snapshot().consumer("c1").process_queue(MQ)
    assert (pq.msg_tree_keys, pq.msg_tree_ids) == ((0, 1, 2), ("M0001", "M0002", "M0003"))
    assert (pq.msg_count, pq.msg_size) == (3, 9)  # msgSize adds each body's bytes: 3 + 5 + 1
    assert (pq.locked, pq.last_pull_ms, pq.commit_offset) == (False, 1_000, 0)


def test_the_committed_offset_is_the_brokers_and_lags_the_consumers() -> None:
    """The broker has no offset for cg until the first persistConsumerOffset (10 s); by 40 s all three are in."""
    lab = _slow_lab()
    snap = lab.run(until=1_500).snapshot()
    assert snap.committed_offset("cg", MQ) is None
    assert snap.consumer("c1").process_queue(MQ).memory_offset == 0
    assert (snap.queue(MQ).min_offset, snap.queue(MQ).max_offset) == (0, 3)
    snap = lab.run(until="40s").snapshot()
    assert snap.committed_offset("cg", MQ) == snap.committed_offset("cg", str(MQ)) == 3
    assert snap.committed_offset("other", MQ) is None


def test_the_broker_lock_table_names_the_holder_and_its_last_renewal() -> None:
    """Locked at the first rebalance (0), renewed by lockAll at 1 s and 21 s: the lease runs to 21 s + 60 s."""
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    lab.add_consumer(
        "og", name="o1", orderly=True, subscribe={"T": "*"}, listener=ScriptedListener(["SUCCESS"], orderly=True)
    )
    snap = lab.run(until="25s").snapshot()
    lock = snap.lock("og", MQ)
    assert lock is not None
    assert (lock.client, lock.acquired_ms, lock.last_update_ms, lock.expires_ms, lock.expired) == (
        "o1",
        0,
        21_000,
        81_000,
        False,
    )
    assert snap.lock("og", "T@broker-a:1") is None and snap.lock("cg", MQ) is None
    pq = snap.consumer("o1").process_queue(MQ)
    assert (pq.locked, pq.last_lock_ms) == (True, 21_000)


def test_what_the_api_returns_is_frozen() -> None:
    snap = _slow_lab().run(until=1_500).snapshot()
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.consumer("c1").process_queue(MQ).msg_count = 0  # type: ignore[misc]


# ---------------------------------------------------------------------- set-ups
def _dlq_lab(precreate_queues: int | None) -> Lab:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    if precreate_queues is not None:
        lab.create_topic("%DLQ%cg", queues=precreate_queues)
    lab.add_consumer(
        "cg", name="c1", subscribe={"T": "*"}, listener=ScriptedListener(["RECONSUME_LATER"]), max_reconsume_times=1
    )
    lab.add_consumer("audit", name="d1", subscribe={"%DLQ%cg": "*"}, listener=ScriptedListener(["CONSUME_SUCCESS"]))
    lab.at(0, lab.add_producer("pg").send, Message("T", "poison"))
    return lab


@pytest.mark.parametrize("queues", [1, 2])
def test_a_precreated_dlq_can_be_consumed_from_the_start(queues: int) -> None:
    """Delivered at 0, retried at 10 s (level 3), dead-lettered then: the audit consumer gets it at once, in queue 0."""
    lab = _dlq_lab(queues).run(until="20s")
    dead = lab.trace.first(EventKind.DEAD_LETTERED, msg_id="M0001")
    assert (dead.time_ms, dead.get("topic")) == (10_000, "%DLQ%cg")
    audit = lab.trace.first(EventKind.DELIVERED, actor="consumer:d1")
    assert (audit.time_ms, audit.msg_id, audit.get("queue")) == (10_000, "M0001", "%DLQ%cg@broker-a:0")
    assert lab.brokers["broker-a"].topic_config["%DLQ%cg"].read_queue_nums == queues  # the admin's config is kept


def test_without_the_dlq_a_consumer_cannot_subscribe_to_it_yet() -> None:
    with pytest.raises(ConfigError, match=r"^topic='%DLQ%cg' is not allowed: expected a topic created with"):
        _dlq_lab(None)


@pytest.mark.parametrize("name", ["%RETRY%cg", "%DLQ%", "%DLQ%%x", "%DLQ%a b"])
def test_only_a_dead_letter_topic_of_a_group_may_be_created(name: str) -> None:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    with pytest.raises(ConfigError, match=r"^topic="):
        lab.create_topic(name)


def test_a_committed_offset_set_before_the_start_is_where_a_new_group_begins() -> None:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    producer = lab.add_producer("pg")
    for i in range(4):
        lab.at(0, producer.send, Message("T", f"m{i}"))
    lab.at(1_000, lab.update_consumer_offset, "cg", MQ, 2)
    lab.add_consumer("cg", name="c1", subscribe={"T": "*"}, listener=ScriptedListener(["CONSUME_SUCCESS"]), start="2s")
    lab.run(until="5s")
    assert [(e.time_ms, e.msg_id) for e in lab.trace.where(EventKind.DELIVERED)] == [(2_000, "M0003"), (2_000, "M0004")]
    admin = lab.trace.first(EventKind.ADMIN)
    assert (admin.time_ms, admin.actor, dict(admin.data)) == (
        1_000,
        "broker-a",
        {"command": "updateConsumeOffset", "group": "cg", "queue": "T@broker-a:0", "offset": 2},
    )


def test_a_scenario_file_sets_a_committed_offset_as_the_python_call_does() -> None:
    """The ``update_consumer_offset`` fault entry is ``lab.update_consumer_offset`` at its time: same trace."""
    scenario = {
        "name": "offset set before the group starts",
        "brokers": ["broker-a"],
        "topics": [{"name": "T", "queues": 1}],
        "producers": [{"name": "pg"}],
        "consumers": [
            {
                "group": "cg",
                "name": "c1",
                "subscribe": {"T": "*"},
                "start": "2s",
                "listener": {"default": ["CONSUME_SUCCESS"]},
            }
        ],
        "sends": [{"at": 0, "producer": "pg", "topic": "T", "body": f"m{i}"} for i in range(4)],
        "faults": [
            {
                "at": "1s",
                "kind": "update_consumer_offset",
                "group": "cg",
                "topic": "T",
                "broker": "broker-a",
                "queue_id": 0,
                "offset": 2,
            }
        ],
        "run_until": "5s",
    }
    lab = load_scenario(scenario).run()
    assert [(e.time_ms, e.msg_id) for e in lab.trace.where(EventKind.DELIVERED)] == [(2_000, "M0003"), (2_000, "M0004")]
    admin = lab.trace.first(EventKind.ADMIN)
    assert (admin.time_ms, admin.get("command"), admin.get("queue"), admin.get("offset")) == (
        1_000, "updateConsumeOffset", "T@broker-a:0", 2,
    )  # fmt: skip
    scenario["faults"][0]["topic"] = "U"  # type: ignore[index]
    with pytest.raises(ScenarioError, match="topic"):
        load_scenario(scenario)


def test_a_running_consumer_overwrites_a_set_offset_at_its_next_persist() -> None:
    """commitOffset overwrites; c1 keeps 3 in memory and persists it again at 45 s (every 5 s)."""
    lab = _slow_lab()
    lab.at("41s", lab.update_consumer_offset, "cg", MQ, 0)
    lab.run(until="41001")
    assert lab.snapshot().committed_offset("cg", MQ) == 0
    lab.run(until="50s")
    assert lab.snapshot().committed_offset("cg", MQ) == 3
    assert [(e.time_ms, e.actor, e.get("offset")) for e in lab.trace.where(EventKind.OFFSET_PERSISTED)][-2:] == [
        (41_000, "broker-a", 0),
        (45_000, "consumer:c1", 3),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("%RETRY%cg", MQ, 1), r"^group='%RETRY%cg' is not allowed"),
        (("cg", "T@broker-a:0", 1), r"^mq='T@broker-a:0' is not allowed: expected a MessageQueue"),
        (("cg", MQ, -1), r"^offset=-1 is not allowed"),
        (("cg", MessageQueue("T", "broker-z", 0), 1), r"^mq=.* is not allowed: expected a queue of a broker"),
        (("cg", MessageQueue("U", "broker-a", 0), 1), r"^mq=.* is not allowed: expected a queue of a topic broker-a"),
    ],
)
def test_a_bad_offset_set_up_is_refused_and_changes_nothing(args: tuple[object, ...], message: str) -> None:
    lab = _slow_lab()
    with pytest.raises(ConfigError, match=message):
        lab.update_consumer_offset(*args)  # type: ignore[arg-type]
    assert lab.brokers["broker-a"].consumer_offsets == {}


def test_the_docs_page_names_only_what_exists() -> None:
    """docs/state.md's ``snap.x(`` calls and ``pq.x`` / ``lock.x`` fields are real members."""
    import re

    from rmqlab.snapshot import ConsumeQueueSnap, LabSnapshot, LockSnap, ProcessQueueSnap

    text = (ROOT / "docs" / "state.md").read_text(encoding="utf-8")
    owners = {"snap": LabSnapshot, "pq": ProcessQueueSnap, "lock": LockSnap, "q": ConsumeQueueSnap, "lab": Lab}
    named = re.findall(r"\b(snap|pq|lock|q|lab)\.([a-z_]+)", text)
    assert named
    missing = [f"{o}.{m}" for o, m in named if not hasattr(owners[o], m) and m not in _fields(owners[o])]
    assert missing == []


def _fields(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()


def _dlq_scenario(dlq_topic: str) -> dict[str, object]:
    return {
        "name": "dlq audit",
        "seed": 1,
        "brokers": ["broker-a"],
        "topics": [{"name": "T", "queues": 1}, {"name": dlq_topic, "queues": 1}],
        "producers": [{"name": "pg"}],
        "consumers": [
            {
                "group": "cg",
                "name": "c1",
                "subscribe": {"T": "*"},
                "listener": ["RECONSUME_LATER"],
                "max_reconsume_times": 1,
            },
            {"group": "audit", "name": "d1", "subscribe": {dlq_topic: "*"}},
        ],
        "sends": [{"at": 0, "producer": "pg", "topic": "T", "body": "poison"}],
        "run_until": "20s",
    }


def test_a_scenario_declares_a_dlq_topic_ahead_and_consumes_it() -> None:
    lab = load_scenario(_dlq_scenario("%DLQ%cg")).run()
    assert [(e.time_ms, e.actor, e.get("queue")) for e in lab.trace.where(EventKind.DELIVERED)] == [
        (0, "consumer:c1", "T@broker-a:0"),
        (10_000, "consumer:c1", "%RETRY%cg@broker-a:0"),
        (10_000, "consumer:d1", "%DLQ%cg@broker-a:0"),
    ]


def test_a_scenario_dlq_topic_must_be_a_declared_groups() -> None:
    with pytest.raises(
        ScenarioError,
        match=r"^topics\[1\]\.name='%DLQ%nope' is not allowed: expected %DLQ%<group> of a declared consumer group: "
        r"one of \['audit', 'cg'\]",
    ):
        load_scenario(_dlq_scenario("%DLQ%nope"))
