"""Issue 35, item 1: the plain first line of each step's caption in Chinese (``rmqlab.set_language("zh")``), with the
run's own names and numbers; English by default. The second line ("in the source: …") is Java and stays as it is."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import rmqlab
from rmqlab.core import i18n
from rmqlab.lab.scenario import load_scenario
from rmqlab.narrate import narrate
from rmqlab.narrate.plain_words import error_words, ids_words, ordinal, queue_words

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted(p for p in (ROOT / "examples").iterdir() if p.suffix in {".json", ".yaml"} and ".expected." not in
                  p.name)  # fmt: skip
CHINESE = re.compile(r"[\u4e00-\u9fff]")
RUN_NAMES = re.compile(
    r"%(?:RETRY|DLQ)%\w+|\b[\w.-]+@[\w.-]+:\d+|\b\w*[A-Z0-9_]\w*\b|\b[a-z]+-[a-z]\b|\b[a-z]{1,2}\d*\b"
)
"""What a Chinese sentence may still spell in Latin letters: the run's names (c1, pg, broker-a, M0001, TopicTest,
%RETRY%cg), units (ms, s, min, h), RocketMQ's proper nouns (Broker, Topic, Consumer) and status words in capitals."""
ENGLISH_WORDS = re.compile(r"\b(the|its|is|to|of|and|from|for|again|queue|message|fails?|sends?|listener)\b")


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(i18n.ENV_VARIABLE, raising=False)
    yield
    rmqlab.set_language(None)


def test_the_shared_words() -> None:
    assert (ordinal(2), queue_words("TopicTest@broker-a:0"), error_words("SYSTEM_BUSY"), ids_words(list("abcde"))) == (
        "2nd", "TopicTest queue 0 on broker-a", "the broker said it is too busy", "a, b, c and 2 more")  # fmt: skip
    rmqlab.set_language("zh")
    assert (ordinal(2), queue_words("TopicTest@broker-a:0"), error_words("SYSTEM_BUSY"), ids_words(list("abcde"))) == (
        "2", "broker-a 上 TopicTest 的队列 0", "Broker 说它太忙了", "a, b, c 等另外 2 条")  # fmt: skip


def test_a_failing_message_in_both_languages() -> None:
    scenario = load_scenario(ROOT / "examples" / "default_retry_schedule.json")
    english = [c.plain for c in narrate(scenario.run().trace)]
    rmqlab.set_language("zh")
    chinese = [c.plain for c in narrate(scenario.run().trace)]
    assert len(chinese) == len(english)
    back = english.index("c1 failed M0001 for the 1st time, so it goes back to the broker and returns in 10 s.")
    assert chinese[back] == "c1 第 1 次消费 M0001 失败，所以它被回传给 Broker，10 s 后重新投递。"
    assert "M0001 现在成了死信：除非订阅 %DLQ%cg，否则没有人会收到它。" in chinese
    assert any(line.startswith("c1 再次把 M0001 交给监听器：第 16 次重试，第 17 次投递") for line in chinese)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_plain_sentence_of_every_example_is_chinese(path: Path) -> None:
    """Each event's plain sentence, in a Chinese run of each example: Chinese words around the run's own names, no
    English sentence left (the numbers and names are the English run's)."""
    rmqlab.set_language("zh")
    for c in narrate(load_scenario(path).run().trace):
        if not c.plain:
            continue
        assert CHINESE.search(c.plain), c.plain
        latin = RUN_NAMES.sub("", c.plain)
        assert not ENGLISH_WORDS.search(latin), c.plain


def test_a_chinese_step_caption_has_no_gap_between_its_sentences() -> None:
    """A step's first line joins its sentences: a space after an English one, none after a Chinese full stop (the
    tour's first delivery read "…成功。 c1 的…" in JupyterLab)."""
    from rmqlab.narrate.steps import step_caption

    scenario = load_scenario(ROOT / "examples" / "default_retry_schedule.json")
    english = [c for c in narrate(scenario.run().trace) if c.plain][:2]
    assert step_caption(english).plain == f"{english[0].plain} {english[1].plain}"
    rmqlab.set_language("zh")
    chinese = [c for c in narrate(scenario.run().trace) if c.plain][:2]
    assert chinese[0].plain.endswith("。") and step_caption(chinese).plain == chinese[0].plain + chinese[1].plain
