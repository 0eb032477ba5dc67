"""Scheduler tie-breaks, durations, determinism, the light engine import, packaging agreement."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import rmqlab
from rmqlab import ConfigError, Lab, Message, Priority, Scheduler, SimulationError, format_duration, parse_duration
from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab.broker.broker_controller import TopicConfig

ROOT = Path(__file__).resolve().parents[1]


def test_same_time_events_run_by_priority_then_schedule_order() -> None:
    scheduler = Scheduler()
    order: list[str] = []
    scheduler.schedule(5, order.append, "work-1")
    scheduler.schedule(5, order.append, "fault", priority=Priority.FAULT)
    scheduler.schedule(5, order.append, "work-2")
    scheduler.schedule(5, order.append, "fault-2", priority=Priority.FAULT)
    scheduler.schedule(4, order.append, "earlier")
    assert scheduler.peek() == 4
    scheduler.run()
    assert order == ["earlier", "fault", "fault-2", "work-1", "work-2"]
    assert scheduler.now == 5


def test_run_until_the_past_names_the_value() -> None:
    scheduler = Scheduler()
    scheduler.run(until=100)
    with pytest.raises(SimulationError, match=r"until=50 is before now=100"):
        scheduler.run(until=50)
    with pytest.raises(SimulationError, match=r"delay_ms=-1 is negative"):
        scheduler.schedule(-1, print)


def test_cancelled_timers_are_skipped() -> None:
    scheduler = Scheduler()
    hits: list[int] = []
    timer = scheduler.schedule(10, hits.append, 1)
    scheduler.schedule(20, hits.append, 2)
    timer.cancel()
    assert scheduler.peek() == 20
    assert scheduler.step() and hits == [2]
    assert not scheduler.step()


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        (0, 0),
        (1500, 1500),
        ("250ms", 250),
        ("10s", 10_000),
        ("1m", 60_000),
        ("4h46m", 17_160_000),
        ("4h45m40s", 17_140_000),
        ("2h", 7_200_000),
        ("1.5s", 1500),
        ("3d", 259_200_000),
        ("100", 100),
    ],
)
def test_parse_duration(text: int | str, ms: int) -> None:
    assert parse_duration(text) == ms


@pytest.mark.parametrize("bad", ["", "10x", "s10", "-5s", -5, True, None, "1.0005s", [1]])
def test_parse_duration_rejects_bad_values_naming_the_parameter(bad: object) -> None:
    with pytest.raises(ConfigError, match=r"^delay="):
        parse_duration(bad, "delay")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0 ms"),
        (250, "250 ms"),
        (10_000, "10 s"),
        (1500, "1.500 s"),
        (65_000, "1 m 5 s"),
        (17_140_000, "4 h 45 m 40 s"),
        (90_000_000, "1 d 1 h"),
    ],
)
def test_format_duration_reads_well_across_scales(ms: int, text: str) -> None:
    assert format_duration(ms) == text


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (59_999, "59.999 s"),
        (61_000, "1 m 1 s"),
        (101_500, "1 m 41.500 s"),
        (60_001, "1 m 0.001 s"),
        (3_660_250, "1 h 1 m 0.250 s"),
        (-101_500, "-1 m 41.500 s"),
    ],
)
def test_an_exact_duration_keeps_the_milliseconds_at_every_scale(ms: int, text: str) -> None:
    """Timelines use ``exact``: two events half a second apart after the first minute must not look simultaneous."""
    assert format_duration(ms, exact=True) == text


def _retry_story(seed: int) -> str:
    lab = Lab(seed=seed)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("T", queues=3)
    producer = lab.add_producer("pg")
    lab.add_consumer(
        "cg",
        subscribe={"T": "*"},
        name="c1",
        listener=lambda m, c: C.RECONSUME_LATER if m[0].reconsume_times < 2 else C.CONSUME_SUCCESS,
    )
    lab.add_consumer("cg", subscribe={"T": "*"}, name="c2", listener=lambda m, c: C.CONSUME_SUCCESS, start="15s")
    for i in range(20):
        lab.at(i * 700, producer.send, Message("T", f"m{i}", keys=f"k{i}"))
    lab.at("5s", lab.broker_down, "broker-b")
    lab.at("50s", lab.broker_up, "broker-b")
    lab.run(until="10m")
    return lab.trace.to_jsonl()


def test_same_seed_same_trace_byte_for_byte() -> None:
    first = _retry_story(11)
    assert first == _retry_story(11)
    assert first != _retry_story(12)
    assert len(first.splitlines()) > 200


def test_importing_the_engine_loads_nothing_from_jupyter_and_stays_light() -> None:
    """The engine imports only the standard library and sortedcontainers (the TreeMap of a ProcessQueue).
    (``import rmqlab`` alone loads its names on first use: the test asks for ``Lab``, which loads the engine.)

    "Light" is checked by what gets imported, not by a stopwatch: a time bound fails on a loaded machine and
    says nothing on a fast one (the import time itself, ~0.03 s, is a figure in bench/README.md).
    """
    code = (
        "import sys; before = set(sys.modules); import rmqlab; rmqlab.Lab; "
        "print(*sorted({m.split('.')[0] for m in set(sys.modules) - before} - set(sys.stdlib_module_names)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["rmqlab", "sortedcontainers"]  # no ipywidgets, IPython, plotly, jsonschema …


def test_public_names_are_sorted_and_exported() -> None:
    def isort_style(name: str) -> tuple[int, str]:  # ruff RUF022: CONSTANTS, then Classes, then functions
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert rmqlab.__all__ == sorted(rmqlab.__all__, key=isort_style)
    public = {n for n in dir(rmqlab) if not n.startswith("_") and not isinstance(getattr(rmqlab, n), type(rmqlab))}
    assert set(rmqlab.__all__) == public - {"annotations"}


def test_dlq_and_retry_topic_names() -> None:
    """Misconception: the DLQ is '%DLQ%group@group'. It is '%DLQ%' + group (the @ form is a stats key)."""
    assert rmqlab.dlq_topic("cg") == "%DLQ%cg"
    assert rmqlab.retry_topic("cg") == "%RETRY%cg"


def _dead_letter_one(dlq_readable: bool) -> TopicConfig:
    """Dead-letter one message at once (max_reconsume_times=0); return the DLQ's topic config."""
    lab = Lab(seed=1, dlq_readable=dlq_readable)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=4)
    producer = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"T": "*"}, listener=lambda m, c: C.RECONSUME_LATER, max_reconsume_times=0)
    lab.at(0, producer.send, Message("T", "x"))
    lab.run(until="1s")
    return lab.brokers["broker-a"].topic_config["%DLQ%cg"]


def test_dlq_is_created_with_one_readable_queue_since_4_9_2() -> None:
    config = _dead_letter_one(dlq_readable=True)
    assert (config.read_queue_nums, config.write_queue_nums, config.perm) == (1, 1, 6)
    assert _dead_letter_one(dlq_readable=False).perm == 2  # ≤ 4.9.1: write-only


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (
            lambda lab: lab.add_consumer("cg", subscribe={"T": "*"}, listener=print, consume_message_batch_max_size=0),
            "consume_message_batch_max_size=0 is not allowed: expected an int in 1..1024",
        ),
        (
            lambda lab: lab.add_consumer("cg", subscribe={"T": "*"}, listener=print, max_reconsume_times=-2),
            "max_reconsume_times=-2 is not allowed",
        ),
        (
            lambda lab: lab.add_consumer("cg", subscribe={"NOPE": "*"}, listener=print),
            "topic='NOPE' is not allowed: expected a topic created with lab.create_topic",
        ),
        (
            lambda lab: lab.add_consumer("cg", subscribe={"T": "*"}, listener=print, message_model="P2P"),
            "message_model='P2P' is not allowed: expected one of CLUSTERING, BROADCASTING",
        ),
        (lambda lab: lab.add_producer("pg", send_msg_timeout="-3s"), "send_msg_timeout='-3s' is not allowed"),
        (lambda lab: lab.add_producer("pg", retry_times_when_send_failed=-1), "retry_times_when_send_failed=-1"),
        (lambda lab: lab.create_topic("T2", brokers=["broker-z"]), "brokers='broker-z' is not allowed"),
        (lambda lab: lab.create_topic("%RETRY%x"), "topic='%RETRY%x' is not allowed"),
        (lambda lab: lab.at(-5, print), "time=-5 is not allowed"),
        (lambda lab: lab.broker_down("broker-z"), "broker='broker-z' is not allowed: expected one of ['broker-a']"),
        (lambda lab: lab.set_broker_fault("broker-a", put_status="LOST"), "put_status='LOST' is not allowed"),
        (
            lambda lab: lab.brokers["broker-a"].delay_levels.delay_ms(19),
            "delay_level=19 is not allowed: expected an int in 1..18",
        ),
    ],
)
def test_invalid_options_name_the_parameter_and_what_is_allowed(call, fragment: str) -> None:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=4)
    with pytest.raises(ConfigError) as err:
        call(lab)
    assert fragment in str(err.value)
    assert lab.consumers == {} and lab.producers == {}
