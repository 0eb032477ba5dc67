"""ScheduleMessageService across a broker crash, pinned to 4.9.7's ``store/schedule/ScheduleMessageService``.

``start`` schedules ``persist`` (``delayOffset.json``) at a fixed rate, first 10 s after start, then every
``flushDelayOffsetInterval`` (10 000 ms, ``MessageStoreConfig``); ``load`` reads the file back and
``correctDelayOffset`` clamps each level's offset into its ConsumeQueue. The level timers restart
``FIRST_DELAY_TIME`` (1000 ms) after the restart, on a 100 ms grid (``DELAY_FOR_A_WHILE``).
"""

from __future__ import annotations

import pytest

from rmqlab import ConfigError, Lab, Message
from rmqlab import EventKind as K
from rmqlab.store.schedule_message_service import ScheduleMessageService


def _delayed(lab: Lab, level: int, at: int = 0) -> None:
    msg = Message("T", "late")
    msg.delay_time_level = level
    lab.at(at, lab.add_producer(f"pg{at}").send, msg)


def _deliveries(lab: Lab) -> list[tuple[int, str, int]]:
    """(time, msg id, waited) of every DELAY_DELIVERED."""
    return [(e.time_ms, e.msg_id or "", e.get("waited_ms")) for e in lab.trace if e.kind is K.DELAY_DELIVERED]


def _stored_on_t(lab: Lab) -> list[tuple[int, int, int]]:
    """(time, queue id, queue offset) of every STORED on topic T."""
    return [
        (e.time_ms, e.get("queue_id"), e.get("queue_offset"))
        for e in lab.trace
        if e.kind is K.STORED and e.get("topic") == "T"
    ]


def _crash(lab: Lab, down: int, up: int) -> None:
    lab.at(down, lab.broker_down, "broker-a")
    lab.at(up, lab.broker_up, "broker-a")


def test_a_delivery_after_the_last_persist_is_delivered_again_after_a_crash(lab: Lab) -> None:
    """Level 2 (5 s) is delivered at 5000; no persist before 10 000, so the crash at 9999 loses offset 1.

    At the restart (12 000) ``load`` finds no file: level 2 starts from offset 0 and the same message (same
    ``UNIQ_KEY``) is put on T again 1000 ms later, at the next queue offset.
    """
    _delayed(lab, 2)
    _crash(lab, 9_999, 12_000)
    lab.run(until="20s")
    assert _deliveries(lab) == [(5_000, "M0001", 5_000), (13_000, "M0001", 13_000)]
    (first_t, qid, first_off), second = _stored_on_t(lab)
    assert (first_t, first_off) == (5_000, 0)
    assert second == (13_000, qid, 1)
    warning = next(e for e in lab.trace if e.kind is K.WARNING and e.actor == "schedule:broker-a")
    assert warning.time_ms == 12_000
    assert warning.data["message"] == (
        "delayOffset.json gives delay level 2 offset 0, not 1: "
        "1 message(s) delivered since the last persist will be delivered again"
    )
    assert lab.brokers["broker-a"].schedule_service.offset_table == {2: 1}


def test_a_persist_at_the_crash_millisecond_keeps_the_offset(lab: Lab) -> None:
    """The first persist runs at 10 000 (before a crash at that millisecond): nothing is delivered twice."""
    _delayed(lab, 2)
    _crash(lab, 10_000, 12_000)
    lab.run(until="20s")
    assert _deliveries(lab) == [(5_000, "M0001", 5_000)]
    service = lab.brokers["broker-a"].schedule_service
    assert service.persisted == {2: 1}
    assert service.offset_table == {2: 1}
    assert not [e for e in lab.trace if e.kind is K.WARNING]


def test_the_persist_schedule_restarts_with_the_broker(lab: Lab) -> None:
    """After a restart at 12 000 the next persists are at 22 000, 32 000 …: a crash at 21 999 loses again."""
    _delayed(lab, 2)
    _crash(lab, 9_999, 12_000)
    _crash(lab, 21_999, 24_000)
    lab.run(until="30s")
    assert [t for t, _, _ in _deliveries(lab)] == [5_000, 13_000, 25_000]
    assert [off for _, _, off in _stored_on_t(lab)] == [0, 1, 2]


def test_a_crash_after_the_second_persist_keeps_the_redelivered_offset(lab: Lab) -> None:
    _delayed(lab, 2)
    _crash(lab, 9_999, 12_000)
    _crash(lab, 22_000, 24_000)
    lab.run(until="30s")
    assert [t for t, _, _ in _deliveries(lab)] == [5_000, 13_000]


def test_a_waiting_message_survives_the_crash_and_is_delivered_when_due(lab: Lab) -> None:
    """Level 3 (10 s) parked at 0: down 5000–7000, the timers restart at 8000 and deliver at 10 000 as planned."""
    _delayed(lab, 3)
    _crash(lab, 5_000, 7_000)
    lab.run(until="15s")
    assert _deliveries(lab) == [(10_000, "M0001", 10_000)]


def test_a_message_that_fell_due_while_the_broker_was_down_comes_1_s_after_the_restart(lab: Lab) -> None:
    _delayed(lab, 3)
    _crash(lab, 5_000, 20_000)
    lab.run(until="25s")
    assert _deliveries(lab) == [(21_000, "M0001", 21_000)]


def test_correct_delay_offset_clamps_the_loaded_offset_to_the_consume_queue(lab: Lab) -> None:
    """``correctDelayOffset``: a file offset above the queue's max offset (1) is corrected to it, with its log line."""
    _delayed(lab, 2)
    lab.run(until="10s")
    service = lab.brokers["broker-a"].schedule_service
    lab.broker_down("broker-a")
    service.persisted = {2: 5}  # the file found at the restart is ahead of the ConsumeQueue (e.g. a truncated queue)
    lab.broker_up("broker-a")
    lab.run(until="20s")
    assert service.offset_table == {2: 1}
    assert [e.data["message"] for e in lab.trace if e.kind is K.WARNING] == [
        "correct delay offset [ delayLevel 2 ] from 5 to 1"
    ]
    assert len(_deliveries(lab)) == 1


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "10s"])
def test_flush_delay_offset_interval_must_be_a_positive_int(lab: Lab, bad: object) -> None:
    broker = lab.brokers["broker-a"]
    with pytest.raises(ConfigError, match="flush_delay_offset_interval"):
        ScheduleMessageService(broker, broker.scheduler, broker.delay_levels, bad)  # type: ignore[arg-type]


def test_correct_delay_offset_sets_a_level_without_a_queue_to_0_so_its_next_message_is_delivered(lab: Lab) -> None:
    """4.9.7 ``correctDelayOffset`` looks each level's queue up with ``findConsumeQueue``, which creates a missing
    one, empty (min = max = 0): a saved offset of a level that has no queue yet is corrected to 0. Before, rmqlab
    skipped that level and kept the saved 4, and a level-3 message sent after the restart (offset 0) was never
    delivered."""
    _delayed(lab, 2)
    lab.run(until="10s")
    service = lab.brokers["broker-a"].schedule_service
    lab.broker_down("broker-a")
    service.persisted = {2: 1, 3: 4}  # a delayOffset.json from an earlier store, with level 3 ahead of any queue
    lab.broker_up("broker-a")
    lab.run(until="11s")
    assert service.offset_table == {2: 1, 3: 0}
    assert [e.data["message"] for e in lab.trace if e.kind is K.WARNING] == [
        "correct delay offset [ delayLevel 3 ] from 4 to 0"
    ]
    _delayed(lab, 3, at=11_000)  # level 3: 10 s
    lab.run(until="40s")
    assert [msg_id for _, msg_id, _ in _deliveries(lab)] == ["M0001", "M0002"]
