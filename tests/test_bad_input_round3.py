"""Bad input and misuse, round 3 (issue 34 item 4): each a clear error naming the parameter, the value and what is
allowed, in bounded time, with the lab left as it was (or the file refused before any run)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rmqlab import (
    ConfigError,
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyStatus,
    Lab,
    ScenarioError,
    ScriptedListener,
    load_scenario,
)
from rmqlab.lab.cli import main as cli_main

HUGE = "9" * 5000


def _ok(msgs: Any, ctx: Any) -> ConsumeConcurrentlyStatus:
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS


def _ok_orderly(msgs: Any, ctx: Any) -> ConsumeOrderlyStatus:
    return ConsumeOrderlyStatus.SUCCESS


def _lab() -> Lab:
    lab = Lab(seed=1)
    lab.add_broker("broker-a")
    lab.create_topic("T", queues=1)
    lab.add_consumer("cg", name="c1", subscribe={"T": "*"}, listener=_ok)
    return lab


LONG = "expected an int of milliseconds or a string like '250ms', '10s', '4h46m', of at most 64 characters"
CASES: list[tuple[str, Callable[[Lab], Any], tuple[str, ...]]] = [
    ("5,000-digit run_until", lambda lab: lab.run(until=HUGE + "s"), ("until='9999", LONG, "(5001 given)")),
    ("5,000-digit run_until, no unit", lambda lab: lab.run(until=HUGE), ("until='9999", LONG, "(5000 given)")),
    ("5,000-digit at", lambda lab: lab.at(HUGE, lambda: None), ("time='9999", LONG)),
    (
        "5,000-digit listener take",
        lambda lab: ScriptedListener([{"take": HUGE + "ms", "then": "CONSUME_SUCCESS"}]),
        ("listener.default[0].take='9999", LONG, "(5002 given)"),
    ),
    (
        "Arabic-Indic digits in a listener take",
        lambda lab: ScriptedListener([{"take": "١٠s", "then": "CONSUME_SUCCESS"}]),
        ("listener.default[0].take='١٠s' is not allowed", "(ASCII digits 0-9)"),
    ),
    (
        "Arabic-Indic digits",
        lambda lab: lab.run(until="١٠s"),
        ("until='١٠s' is not allowed: expected an int of milliseconds or a string like", "(ASCII digits 0-9)"),
    ),
    (
        "Arabic-Indic digits, no unit",
        lambda lab: lab.at("١٠", lambda: None),
        ("time='١٠' is not allowed", "(ASCII digits 0-9)"),
    ),
    (
        "a fraction of a millisecond hidden in many digits",
        lambda lab: lab.run(until="1." + "9" * 30 + "s"),
        ("until='1.99", "expected a whole number of milliseconds"),
    ),
    (
        "subscribe as a bare topic name",
        lambda lab: lab.add_consumer("g2", subscribe="T", listener=_ok),
        ("subscribe='T' is not allowed: expected a mapping of topic to tag expression, such as {'T': '*'}",),
    ),
    (
        "orderly consumer in a concurrent group",
        lambda lab: lab.add_consumer("cg", subscribe={"T": "*"}, listener=_ok_orderly, orderly=True),
        (
            "orderly=True is not allowed: expected False, as the group's other consumers (c1 consumes concurrently):"
            " one group has one consume mode",
        ),
    ),
    (
        "lab.at of a string",
        lambda lab: lab.at("1s", "notcallable"),
        ("action='notcallable' is not allowed: expected a callable",),
    ),
    (
        "lab.at of a fault on a broker that does not exist",
        lambda lab: lab.at(1000, lab.broker_down, "zzz"),
        ("broker='zzz' is not allowed: expected one of ['broker-a']",),
    ),
    (
        "lab.at of a broker fault by keyword",
        lambda lab: lab.at(1000, lab.set_broker_fault, name="zzz", response_delay_ms=5),
        ("broker='zzz' is not allowed: expected one of ['broker-a']",),
    ),
    (
        "lab.at of a partition from a broker that does not exist",
        lambda lab: lab.at(1000, lab.partition, "c1", "zzz"),
        ("broker='zzz' is not allowed: expected one of ['broker-a']",),
    ),
    (
        "NUL in a broker name",
        lambda lab: lab.add_broker("broker\x00b"),
        ("broker='broker\\x00b' is not allowed: expected a name without control characters", "has '\\x00'"),
    ),
    (
        "newline in a broker name",
        lambda lab: lab.add_broker("broker\nb"),
        ("broker='broker\\nb' is not allowed: expected a name without control characters",),
    ),
    (
        "newline in a consumer group",
        lambda lab: lab.add_consumer("g\n2", subscribe={"T": "*"}, listener=_ok),
        ("consumer_group='g\\n2' is not allowed: expected a name without control characters",),
    ),
    (
        "NUL in a producer group",
        lambda lab: lab.add_producer("pg\x00"),
        ("producer_group='pg\\x00' is not allowed: expected a name without control characters",),
    ),
]


@pytest.mark.parametrize(("action", "fragments"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_misuse_is_a_clear_error_at_once_and_changes_nothing(
    action: Callable[[Lab], Any], fragments: tuple[str, ...]
) -> None:
    lab = _lab()
    before = (
        sorted(lab.consumers),
        sorted(lab.producers),
        sorted(lab.brokers),
        len(lab.trace),
        lab.scheduler.pending(),
    )
    started = time.process_time()
    with pytest.raises(ConfigError) as info:
        action(lab)
    assert time.process_time() - started < 1.0  # bounded: no 5,000-digit conversion, no run
    for fragment in fragments:
        assert fragment in str(info.value)
    after = (sorted(lab.consumers), sorted(lab.producers), sorted(lab.brokers), len(lab.trace), lab.scheduler.pending())
    assert after == before


def test_an_orderly_group_refuses_a_concurrent_consumer_too() -> None:
    lab = _lab()
    lab.add_consumer("og", name="o1", subscribe={"T": "*"}, listener=_ok_orderly, orderly=True)
    with pytest.raises(
        ConfigError, match="orderly=False is not allowed: expected True, as the group's other consumers"
    ):
        lab.add_consumer("og", subscribe={"T": "*"}, listener=_ok)


def _scenario_text(consumers: str) -> str:
    return (
        "name: mixed\nseed: 1\nbrokers: [broker-a]\ntopics:\n  - {name: T, queues: 1}\n"
        f"consumers:\n{consumers}run_until: 10s\n"
    )


@pytest.mark.parametrize(
    ("suffix", "text", "error"),
    [
        (
            ".json",
            '{"name": "a", "seed": 1, "name": "b", "brokers": ["broker-a"], "run_until": "1s"}',
            "expected each key of an object once ('name' appears twice in the object with keys name, seed, brokers, "
            "run_until; JSON readers would keep only the last)",
        ),
        (
            ".json",
            '{"name": "a", "brokers": ["broker-a"], "faults": [{"at": "1s", "kind": "broker_down", '
            '"broker": "broker-a", "at": "2s"}], "run_until": "3s"}',
            "('at' appears twice in the object with keys at, kind, broker;",
        ),
        (
            ".yaml",
            "name: a\nseed: 1\nbrokers: [broker-a]\nsends:\n  - {at: 1s, at: 2s}\nrun_until: 3s\n",
            "expected each key of a mapping once ('at' appears again at line 5; YAML would keep only the last)",
        ),
        (
            ".yaml",
            "name: a\nseed: 1\nname: b\nbrokers: [broker-a]\nrun_until: 3s\n",
            "('name' appears again at line 3;",
        ),
    ],
    ids=["JSON top level", "JSON fault entry", "YAML flow mapping", "YAML block mapping"],
)
def test_duplicate_keys_in_a_scenario_file_are_refused(tmp_path: Path, suffix: str, text: str, error: str) -> None:
    path = tmp_path / f"dup{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert error in str(info.value)
    assert cli_main(["validate", str(path)]) == 2


def test_a_yaml_merge_key_may_repeat_a_key_as_yaml_allows(tmp_path: Path) -> None:
    path = tmp_path / "merge.yaml"
    path.write_text(
        "name: merge\nseed: 1\nbrokers: [broker-a]\ntopics:\n  - {name: T, queues: 1}\n"
        "base: &base {group: cg, subscribe: {T: '*'}}\n"
        "consumers:\n  - {<<: *base, name: c1}\nrun_until: 1s\n",
        encoding="utf-8",
    )
    with pytest.raises(ScenarioError) as info:  # 'base' is not a scenario field: refused by the schema, not as a dup
        load_scenario(path)
    assert "appears again" not in str(info.value)


def test_a_scenario_mixing_orderly_and_concurrent_in_one_group_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mixed.yaml"
    path.write_text(
        _scenario_text(
            "  - {group: cg, name: c1, subscribe: {T: '*'}}\n  - {group: cg, name: c2, subscribe: {T: '*'}, "
            "orderly: true}\n"
        ),
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="orderly=True is not allowed: expected False"):
        load_scenario(path).build()


def test_a_scenario_duration_with_arabic_indic_digits_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "arabic.yaml"
    path.write_text(_scenario_text("  - {group: cg, subscribe: {T: '*'}}\n").replace("10s", "١٠s"), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"^run_until='١٠s' is not allowed"):
        load_scenario(path)
