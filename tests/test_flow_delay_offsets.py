"""``delayOffset.json`` in the flow picture: lab 03's crash question is answered by the file (written every
``flushDelayOffsetInterval``, 10 s; read back by ``load()`` at the restart), which the picture did not draw (revC
defect 2). The snapshot mirrors ``ScheduleMessageService.offsetTable`` against the file, read-only."""

from __future__ import annotations

import pytest
from rmqlab.widgets.flow_view import flow_scene, flow_view_model

import rmqlab
from rmqlab import ConsumeConcurrentlyStatus, Lab, Message
from rmqlab.snapshot import DelayOffsetSnap


def crash_lab(until: int, crash_at_ms: int | None = 9_999) -> Lab:
    """Lab 03's crash: "late" (level 2, 5 s) and "later" (level 3, 10 s) sent at 0; broker-a down, up at 12 s."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, name="c1",
                     listener=lambda msgs, ctx: ConsumeConcurrentlyStatus.CONSUME_SUCCESS)  # fmt: skip
    for body, level in (("late", 2), ("later", 3)):
        msg = Message("TopicTest", body)
        msg.delay_time_level = level
        lab.at(0, producer.send, msg)
    if crash_at_ms is not None:
        lab.at(crash_at_ms, lab.broker_down, "broker-a")
        lab.at(12_000, lab.broker_up, "broker-a")
    return lab.run(until=until)


def _lines(lab: Lab) -> list[str]:
    scene = flow_scene(flow_view_model(lab.snapshot()))
    return [m.text for m in scene.marks if m.key.startswith("delay-offsets:broker-a:")]


def test_the_snapshot_holds_the_live_and_saved_offsets_without_catching_the_service_up() -> None:
    lab = crash_lab(10_500, crash_at_ms=10_500)
    assert lab.snapshot().brokers[0].delay_offsets == DelayOffsetSnap(
        live=((2, 1), (3, 1)), saved=((2, 1),), written_ms=10_000, next_write_ms=None, interval_ms=10_000
    )
    running = crash_lab(25_000, crash_at_ms=None)
    service = running.brokers["broker-a"].schedule_service
    before = (dict(service.persisted), service.persisted_at)
    assert running.snapshot().brokers[0].delay_offsets == DelayOffsetSnap(
        live=((2, 1), (3, 1)), saved=((2, 1), (3, 1)), written_ms=20_000, next_write_ms=30_000, interval_ms=10_000
    )
    assert (dict(service.persisted), service.persisted_at) == before  # read-only: the service is not caught up


@pytest.mark.parametrize(
    ("until", "lines"),
    [
        (5_500, ["delayOffset.json, saved every 10 s", "last save: never · next: at 10 s",
                 "level 2: saved none · in memory 1", "level 3: saved none · in memory 0"]),
        (10_000, ["delayOffset.json, saved every 10 s", "last save: never · next: none while down",
                  "level 2: saved none · in memory 1 (lost in the crash)", "level 3: saved none · in memory 0"]),
        (12_500, ["delayOffset.json, saved every 10 s", "last save: never · next: at 22 s",
                  "level 2: saved none · in memory 0", "level 3: saved none · in memory 0"]),
    ],
)  # fmt: skip
def test_the_crash_picture_draws_delay_offset_json_under_the_schedule_topic(until: int, lines: list[str]) -> None:
    assert _lines(crash_lab(until)) == lines


def test_a_later_crash_loses_only_what_changed_since_the_write_at_10_s() -> None:
    assert _lines(crash_lab(11_000, crash_at_ms=10_500)) == [
        "delayOffset.json, saved every 10 s",
        "last save: at 10 s · next: none while down",
        "level 2: saved 1 · in memory 1",
        "level 3: saved none · in memory 1 (lost in the crash)",
    ]


def test_a_run_without_a_crash_draws_no_file_and_no_legend_line() -> None:
    lab = crash_lab(5_500, crash_at_ms=None)
    assert _lines(lab) == []
    legend = [m.text for m in flow_scene(flow_view_model(lab.snapshot())).marks if m.key.startswith("legend")]
    assert not any("delayOffset.json" in str(t) for t in legend)
    crashed = [m.text for m in flow_scene(flow_view_model(crash_lab(5_500).snapshot())).marks]
    assert "delayOffset.json: each delay level's offset as last saved, and in memory" in crashed


def test_the_lines_are_chinese_in_the_chinese_lab() -> None:
    rmqlab.set_language("zh")
    try:
        lines = _lines(crash_lab(10_000))
    finally:
        rmqlab.set_language(None)
    assert lines == [
        "delayOffset.json，每 10 s 保存一次",
        "上次保存：从未 · 下次：宕机期间不保存",
        "级别 2：已保存 无 · 内存中 1（随宕机丢失）",
        "级别 3：已保存 无 · 内存中 0",
    ]


def test_a_crash_run_without_a_delayed_message_draws_no_file() -> None:
    """Lab 01a's broker-a goes down too, but nothing waits in a delay level: the file matters to nothing there."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    lab.at("1s", lab.add_producer("pg").send, Message("TopicTest", "m"))
    lab.at("2s", lab.broker_down, "broker-a")
    assert _lines(lab.run(until="3s")) == []
