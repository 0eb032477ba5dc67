"""Issue 35, item 1: the failures rmqlab words itself (``rmqlab.core.reasons``: a partition, a broker stopped in the
lab, an injected fault) are Chinese where a Chinese run shows them — the captions' "in the source" line and the trace
table — while the trace itself, which is data, stays the same in every language."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from string import Formatter

import pytest

import rmqlab
from rmqlab.core import i18n, reasons
from rmqlab.lab.scenario import load_scenario
from rmqlab.lab.trace_table import trace_rows
from rmqlab.narrate import narrate

ROOT = Path(__file__).resolve().parents[1]
PARTITION = ROOT / "examples" / "send_back_local_retry.json"
BROKER_DOWN = ROOT / "examples" / "broker_down_sync_retry.json"


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(i18n.ENV_VARIABLE, raising=False)
    yield
    rmqlab.set_language(None)


def fields(template: str) -> set[str]:
    return {field for _, field, _, _ in Formatter().parse(template) if field is not None}


@pytest.mark.parametrize("template", reasons.TEMPLATES)
def test_each_template_has_a_chinese_translation_with_the_same_values(template: str) -> None:
    rmqlab.set_language("zh")
    chinese = i18n.gettext(template)
    assert chinese != template and re.search(r"[\u4e00-\u9fff]", chinese), chinese
    assert fields(chinese) == fields(template)


def test_a_text_is_translated_around_its_values_and_unchanged_in_english() -> None:
    text = "RemotingConnectException: network partition c1/inner / broker-a"
    assert reasons.translated(text) == text
    rmqlab.set_language("zh")
    assert reasons.translated(text) == "RemotingConnectException: 网络分区 c1/inner / broker-a"
    quoted = "(MQBrokerException: CODE: 10 (SYSTEM_BUSY) DESC: [SYSTEM_BUSY] injected fault)"
    assert reasons.translated(quoted) == "(MQBrokerException: CODE: 10 (SYSTEM_BUSY) DESC: [SYSTEM_BUSY] 注入的故障)"
    assert reasons.translated("the broker[broker-x] not exist") == "the broker[broker-x] not exist"  # RocketMQ's


def test_a_partition_in_a_chinese_run_of_the_captions_and_the_trace_table() -> None:
    scenario = load_scenario(PARTITION)
    english_trace = scenario.run().trace
    english = [c.lines[1] for c in narrate(english_trace)]
    assert any("RemotingConnectException: network partition c1/inner / broker-a" in line for line in english)
    rmqlab.set_language("zh")
    trace = scenario.run().trace
    assert [e.data for e in trace] == [e.data for e in english_trace]  # the trace is data: still English
    chinese = [c.lines[1] for c in narrate(trace)]
    partitioned = [line for line in chinese if "RemotingConnectException: 网络分区 c1/inner / broker-a" in line]
    assert len(partitioned) == sum("network partition c1/inner / broker-a" in line for line in english) > 0
    assert not any("network partition" in line for line in chinese)
    details = [str(" ".join(row[4])) for row in trace_rows(trace)]
    assert sum("outcome=RemotingConnectException: 网络分区 c1/inner / broker-a" in d for d in details) == 6
    assert not any("network partition" in d for d in details)


def test_a_stopped_broker_in_a_chinese_run() -> None:
    rmqlab.set_language("zh")
    lines = [c.lines[1] for c in narrate(load_scenario(BROKER_DOWN).run().trace)]
    assert any("connect to broker-a failed（Broker 已停止）" in line for line in lines)
    assert not any("broker down" in line for line in lines)
