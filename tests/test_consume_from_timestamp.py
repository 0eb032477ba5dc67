"""``CONSUME_FROM_TIMESTAMP`` and ``consumeTimestamp`` (4.9.7).

``RebalancePushImpl.computePullFromWhereWithException``: with no offset at the broker (``readOffset`` −1) a
``%RETRY%`` queue starts at its max offset, any other queue at ``MQAdminImpl.searchOffset(mq, timestamp)``, where
``timestamp = UtilAll.parseDate(consumeTimestamp, "yyyyMMddHHmmss")``: a SEARCH_OFFSET_BY_TIMESTAMP (29) request
with ``MQAdminImpl.timeoutMillis`` (6000 ms), answered by ``ConsumeQueue.getOffsetInQueueByTime`` — a binary
search by store time that returns an exact hit where it lands on one, else the nearer neighbour (the left one on a
tie), the last entry for a time past them all. ``DefaultMQPushConsumer.consumeTimestamp`` defaults to
``timeMillisToHumanString3(now − 30 min)`` when the consumer object is made. The lab's calendar: virtual 0 ms is
2000-01-01 00:00:00 (``rmqlab.common.util_all``). """

from __future__ import annotations

from typing import Any

import pytest

from rmqlab import ConfigError, Lab, Message, ScenarioError
from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import ConsumeOrderlyStatus as O
from rmqlab import EventKind as K
from rmqlab.common.util_all import parse_date, time_millis_to_human_string3
from rmqlab.lab.scenario import load_scenario

DAY_MS = 86_400_000


def _store(lab: Lab, sends: list[tuple[int, str]]) -> None:
    producer = lab.add_producer("pg")
    for at, body in sends:
        lab.at(at, producer.send, Message("T", body))


def _one_queue_lab() -> Lab:
    lab = Lab(seed=3)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    return lab


def _requests(lab: Lab) -> list[tuple[int, str, str, int | None]]:
    """Record what broker-a is asked (a test-only wrapper around its request dispatch)."""
    broker = lab.brokers["broker-a"]
    seen: list[tuple[int, str, str, int | None]] = []
    process = broker.process_request

    def recording(request: Any, future: Any) -> object:
        if type(request).__name__ in ("SearchOffsetRequest", "GetMaxOffsetRequest"):
            seen.append((lab.now, type(request).__name__, request.topic, getattr(request, "timestamp", None)))
        return process(request, future)

    broker.process_request = recording  # type: ignore[method-assign]
    return seen


def test_the_lab_calendar_starts_at_midnight_1_january_2000() -> None:
    assert time_millis_to_human_string3(0) == "20000101000000"
    assert time_millis_to_human_string3(90_999) == "20000101000130"  # milliseconds dropped
    assert time_millis_to_human_string3(-30 * 60_000) == "19991231233000"
    assert time_millis_to_human_string3(3 * DAY_MS + 5 * 3_600_000) == "20000104050000"
    assert parse_date("20000101000130") == 90_000
    assert parse_date("19991231233000") == -1_800_000
    assert [parse_date(s) for s in ("20001301000000", "2000010100013", "2000-01-01 00:0", "20000230000000")] == [
        None,
        None,
        None,
        None,
    ]


def test_get_offset_in_queue_by_time_is_a_nearest_store_time_binary_search() -> None:
    lab = _one_queue_lab()
    _store(lab, [(1000, "a"), (1000, "b"), (1000, "c"), (3000, "d"), (5000, "e")])  # offsets 0..4
    lab.run(until="6s")
    broker = lab.brokers["broker-a"]
    store = broker.message_store
    found = {t: store.get_offset_in_queue_by_time("T", 0, t) for t in (0, 1000, 2000, 2001, 3999, 4001, 9000)}
    # 1000: the first probe (mid of 0..4) is offset 2, stored at 1000: an exact hit, so a and b are passed over;
    # 2000 is as near 1000 as 3000: the left one (2); 9000 is past all: the last entry (4), not the max offset (5)
    assert found == {0: 0, 1000: 2, 2000: 2, 2001: 3, 3999: 3, 4001: 4, 9000: 4}
    assert broker.message_store.get_offset_in_queue_by_time("T", 1, 1000) == 0  # no such queue
    assert broker.message_store.get_offset_in_queue_by_time("NOPE", 0, 1000) == 0


def test_a_new_group_starts_at_the_searched_offset_and_its_retry_queue_at_max() -> None:
    """The broker answers the offset query with an error (readOffset −1, "no offset in broker")."""
    lab = _one_queue_lab()
    _store(lab, [(1000, "a"), (1000, "b"), (1000, "c"), (3000, "d"), (5000, "e")])
    lab.set_broker_fault("broker-a", query_offset_error="SYSTEM_ERROR")
    lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        listener=lambda m, c: C.CONSUME_SUCCESS,
        start="8s",
        consume_from_where="CONSUME_FROM_TIMESTAMP",
        consume_timestamp="20000101000002",
    )
    asked = _requests(lab)
    lab.run(until="10s")
    assert asked == [(8000, "GetMaxOffsetRequest", "%RETRY%cg", None), (8000, "SearchOffsetRequest", "T", 2000)]
    assert [(e.time_ms, e.get("queue_offset"), e.msg_id) for e in lab.trace.where(K.DELIVERED)] == [
        (8000, 2, "M0003"),
        (8000, 3, "M0004"),
        (8000, 4, "M0005"),
    ]


def test_the_default_timestamp_is_half_an_hour_before_the_consumer_is_made() -> None:
    lab = _one_queue_lab()
    early = lab.add_consumer("cg", subscribe={"T": "*"}, start=False)
    lab.run(until="2h")
    late = lab.add_consumer("cg2", subscribe={"T": "*"}, start=False, consume_from_where="CONSUME_FROM_TIMESTAMP")
    assert (early.consume_timestamp, late.consume_timestamp) == ("19991231233000", "20000101013000")


def test_after_retention_the_group_starts_near_the_timestamp() -> None:
    """Offset 0 deleted by retention (day 3, 04:00): the broker has no offset for a new group (QUERY_NOT_FOUND),
    with no fault at all. 05:06 is nearer 05:10 than 05:00: "second" (offset 3) is the first delivered. "later"
    (day 2) makes "old" no longer the newest entry, which retention never deletes (the file being written)."""
    lab = _one_queue_lab()
    day3 = 3 * DAY_MS
    five = day3 + 5 * 3_600_000
    _store(lab, [(0, "old"), (2 * DAY_MS, "later"), (five, "first"), (five + 600_000, "second")])
    lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        listener=lambda m, c: C.CONSUME_SUCCESS,
        start=day3 + 6 * 3_600_000,
        consume_from_where="CONSUME_FROM_TIMESTAMP",
        consume_timestamp="20000104050600",
    )
    lab.run(until=day3 + 6 * 3_600_000 + 5000)
    assert [(e.time_ms - day3, e.get("queue_offset")) for e in lab.trace.where(K.DELIVERED)] == [(6 * 3_600_000, 3)]


def test_an_orderly_first_pull_whose_search_fails_is_retried_1000_ms_later_with_nothing_delivered() -> None:
    """DefaultMQPushConsumerImpl.pullMessage (orderly, not previously locked): searchOffset throws (the request
    times out after MQAdminImpl's 6000 ms) → executePullRequestLater(1000)."""
    lab = _one_queue_lab()
    _store(lab, [(1000, "a"), (3000, "b")])
    lab.set_broker_fault("broker-a", query_offset_error="SYSTEM_ERROR")
    lab.add_consumer(
        "og",
        subscribe={"T": "*"},
        listener=lambda m, c: O.SUCCESS,
        orderly=True,
        start="5s",
        consume_from_where="CONSUME_FROM_TIMESTAMP",
        consume_timestamp="20000101000003",
    )
    asked = _requests(lab)
    # every answer 100 ms late: T's lock 5600-5700, query 5700-5800, search 5800-5900 (offset 1, "b" at 3 s): added.
    # Its first pull computes the start again: query 5900-6000, then a search sent at 6000 under a 7 s delay
    lab.at(4950, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    lab.at(5950, lab.set_broker_fault, "broker-a", response_delay_ms=7000)
    lab.at(6050, lab.set_broker_fault, "broker-a", response_delay_ms=100)
    lab.run(until="15s")
    searches = [t for t, name, topic, _ in asked if name == "SearchOffsetRequest" and topic == "T"]
    deferred = [
        (e.time_ms, e.get("queue"), e.get("reason"), e.get("delay_ms")) for e in lab.trace.where(K.PULL_DEFERRED)
    ]
    delivered = [(e.time_ms, e.get("queue_offset")) for e in lab.trace.where(K.DELIVERED)]
    # the search times out at 6000 + 6000 + 1; the pull goes again at 13 001: query, search (13 101), pull (13 201)
    assert (searches, deferred, delivered) == (
        [5800, 6000, 13_101],
        [(12_001, "T@broker-a:0", "exception", 1000)],
        [(13_301, 1)],
    )


@pytest.mark.parametrize("bad", ["2000-01-01", "20001301000000", "", 20000101000000, None])
def test_a_bad_consume_timestamp_is_refused_when_the_consumer_is_made(bad: Any) -> None:
    lab = _one_queue_lab()
    if bad is None:  # None is the default, not a bad value
        assert lab.add_consumer("cg", consume_timestamp=None, start=False).consume_timestamp == "19991231233000"
        return
    with pytest.raises(ConfigError) as err:
        lab.add_consumer("cg", consume_timestamp=bad, start=False)
    assert (err.value.parameter, err.value.value) == ("consume_timestamp", bad)
    assert "yyyyMMddHHmmss" in err.value.allowed and "20000101000000" in err.value.allowed
    assert lab.consumers == {}


def _scenario(**consumer: Any) -> dict[str, Any]:
    return {
        "name": "from_timestamp",
        "brokers": ["broker-a"],
        "topics": [{"name": "T", "queues": 1}],
        "producers": [{"name": "pg"}],
        "consumers": [{"group": "cg", "subscribe": {"T": "*"}, "start": "8s", **consumer}],
        "faults": [{"at": 0, "kind": "offset_query_failure", "broker": "broker-a"}],
        "sends": [{"at": f"{t}s", "producer": "pg", "topic": "T", "body": b} for t, b in ((1, "a"), (3, "b"))],
        "run_until": "10s",
    }


def test_a_scenario_sets_consume_from_timestamp() -> None:
    lab = load_scenario(
        _scenario(consume_from_where="CONSUME_FROM_TIMESTAMP", consume_timestamp="20000101000003")
    ).run()
    assert [(e.time_ms, e.get("queue_offset")) for e in lab.trace.where(K.DELIVERED)] == [(8000, 1)]


@pytest.mark.parametrize("bad", ["2000-01-01T00:00:03", "20001301000000"])
def test_a_scenario_with_a_bad_consume_timestamp_names_the_field(bad: str) -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario(_scenario(consume_from_where="CONSUME_FROM_TIMESTAMP", consume_timestamp=bad))
    assert (err.value.parameter, err.value.value) == ("consumers[0].consume_timestamp", bad)
