"""Issue 35, item 1: both lines of each step's caption in Chinese (``rmqlab.set_language("zh")``): the plain first line,
with the run's own names and numbers, and the second ("in the source: …" → "源码：…"), whose prose is translated around
RocketMQ's identifiers (``ConsumeMessageConcurrentlyService.processConsumeResult``, ``RECONSUME_LATER``,
``reconsumeTimes``, ``%RETRY%cg``), which stay as they are; English by default."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import rmqlab
from rmqlab.core import i18n
from rmqlab.core.reasons import translated
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
        "2", "broker-a 上 TopicTest 的队列 0", "Broker 说它太忙了", "a, b, c 以及另外 2 条")  # fmt: skip


def test_a_failing_message_in_both_languages() -> None:
    scenario = load_scenario(ROOT / "examples" / "default_retry_schedule.json")
    english = [c.plain for c in narrate(scenario.run().trace)]
    rmqlab.set_language("zh")
    chinese = [c.plain for c in narrate(scenario.run().trace)]
    assert len(chinese) == len(english)
    back = english.index("c1 failed M0001 for the 1st time, so it goes back to the broker: into %RETRY%cg in 10 s.")
    assert chinese[back] == "c1 第 1 次消费 M0001 失败，所以它被回传给 Broker：10 s 后进入 %RETRY%cg。"
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


SOURCE_IDENTIFIERS = re.compile(
    r"%(?:RETRY|DLQ)%[\w-]*|[\w.%-]+@[\w.-]+(?::\d+)?|\b\w+(?:\.\w+)*\([^)]*\)|\b\w+(?:\.\w+)+|\b\w*[A-Z0-9_]\w*\b"
    r"|\b[a-z]+-[a-z]\b|/inner\b|\b(?:ms|min|s|h|cg|pg|now|null|false|true|mqadmin)\b"
)
"""What the second line may spell in Latin letters: Java's names (classes, ``Class.method``, calls such as
``sendMessageBack(M0001, delayLevel 0)``, camelCase fields such as ``reconsumeTimes``, constants), topics and queues,
the run's names (``c1``, ``broker-a``, ``M0001``), units, Java's ``null``, ``false``, ``true`` and
``mqadmin``."""
ENGLISH_PROSE = re.compile(r"\b[a-z]{2,}\b")
"""Any lower-case English word left once the identifiers are out (``the``, ``uses``, ``level``, ``due``)."""


def data_removed(line: str, data: dict[str, object]) -> str:
    """``line`` without what it quotes of the event's data (the trace is data, the same in every language): a
    RocketMQ log line (a WARNING's message), a broker's remark, an error, a group's name (``bg``), an admin command's
    or a fault's ``key value``. Each is taken out where it stands as a whole (``T`` the topic, not the T of
    ``sendMsgTimeout``)."""
    quoted = [f"{key} = {value}" for key, value in data.items()] + [f"{key} {value}" for key, value in data.items()]
    quoted += [translated(words) for words in quoted]  # data quoted with rmqlab's own failures in Chinese (reasons)
    values = [str(value) for value in data.values()]
    for words in sorted([*quoted, *values, *map(translated, values)], key=len, reverse=True):  # longest first
        line = re.sub(rf"(?<![\w%@.-]){re.escape(words)}(?![\w@.(-])", " ", line)
    return EXCEPTION.sub(" ", line)


EXCEPTION = re.compile(r"\b[A-Z]\w*Exception\b[^；（）。，]*")
"""An exception and its message, as RocketMQ words it, up to the Chinese punctuation after it (a send's failure is
quoted again by the next attempt: ``RemotingConnectException: connect to broker-a failed: broker down``)."""


def test_the_source_line_of_a_send_back_in_both_languages() -> None:
    scenario = load_scenario(ROOT / "examples" / "default_retry_schedule.json")
    english = next(c for c in narrate(scenario.run().trace) if c.kind.name == "SEND_BACK")
    assert english.lines[1] == (
        "in the source: ConsumeMessageConcurrentlyService.processConsumeResult: RECONSUME_LATER → "
        "sendMessageBack(M0001, delayLevel 0); SendMessageProcessor.asyncConsumerSendMsgBack uses 3 + reconsumeTimes "
        "0 = level 3, due in 10 s"
    )
    rmqlab.set_language("zh")
    chinese = next(c for c in narrate(scenario.run().trace) if c.kind.name == "SEND_BACK")
    assert chinese.lines[1] == (
        "源码：ConsumeMessageConcurrentlyService.processConsumeResult：RECONSUME_LATER → "
        "sendMessageBack(M0001, delayLevel 0)；SendMessageProcessor.asyncConsumerSendMsgBack 取 3 + reconsumeTimes "
        "0 = 延迟级别 3，10 s 后到期"
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_source_line_of_every_example_is_chinese(path: Path) -> None:
    """Each event's second line, in a Chinese run of each example: "源码：", Java's names, and Chinese prose around
    them — no English word left once the identifiers and the event's own data (a log line RocketMQ prints, a
    broker's remark) are taken out. A line made only of data (``mqadmin updateTopic``'s settings) needs no Chinese."""
    rmqlab.set_language("zh")
    trace = load_scenario(path).run().trace
    for event, c in zip(trace, narrate(trace), strict=True):
        line = c.lines[1]
        assert line.startswith("源码："), line
        left = SOURCE_IDENTIFIERS.sub(" ", data_removed(line, dict(event.data)))
        assert not ENGLISH_PROSE.search(left), (line, ENGLISH_PROSE.findall(left))
        assert CHINESE.search(line.removeprefix("源码：")) or not re.search(r"[a-z]{2,}", left), line


def test_a_chinese_step_caption_has_no_gap_between_its_sentences() -> None:
    """A step's first line joins its sentences: a space after an English one, none after a Chinese full stop (the
    tour's first delivery read "…成功。 c1 的…" in JupyterLab)."""
    from rmqlab.narrate.steps import step_caption

    scenario = load_scenario(ROOT / "examples" / "default_retry_schedule.json")
    english = [c for c in narrate(scenario.run().trace) if c.plain][:2]
    assert step_caption(english).plain == f"{english[0].plain} (and 1 more: see the Events tab)"
    rmqlab.set_language("zh")
    chinese = [c for c in narrate(scenario.run().trace) if c.plain][:2]
    counted = "（还有 1 条：见“事件”标签页）"
    assert chinese[0].plain.endswith("。") and step_caption(chinese).plain == chinese[0].plain + counted


def test_the_plain_budget_measures_a_chinese_line_as_it_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget measures the line as :func:`_joined` shows it, with no space after a Chinese full stop: two
    Chinese sentences that fill it exactly are kept together (measured joined by " ", as they were, the space made
    them one column too wide and the second was counted instead). With two sentences allowed, as before stop 32."""
    from rmqlab.core.i18n import columns
    from rmqlab.narrate import steps

    monkeypatch.setattr(steps, "MAX_SENTENCES", 2)
    first = "甲" * 49 + "。"
    second = "乙" * (steps.PLAIN_WIDTH // 2 - 51) + "。"
    assert columns(first + second) == steps.PLAIN_WIDTH and columns(f"{first} {second}") == steps.PLAIN_WIDTH + 1
    assert steps._fit_sentences([first, second], [0, 1]) == ([first, second], 0)
    wider = second + "丙"
    kept, lead = steps._fit_sentences([first, wider], [0, 1])
    assert lead == 0
    assert kept[0] == first and wider not in kept and len(kept) == 2  # the second is counted


def test_a_long_chinese_rule_is_cut_at_its_last_clause_that_fits() -> None:
    """A Chinese rule has no ``; ``: it is cut at its last ``；`` within the line's budget, like an English one."""
    from rmqlab.core.i18n import columns
    from rmqlab.narrate.steps import SOURCE_WIDTH, fit_rule

    clause = "甲" * 40  # 80 cells
    cut = fit_rule("源码：" + "；".join([clause] * 4))
    assert cut == "源码：" + clause + "；" + clause + " …" and columns(cut) <= SOURCE_WIDTH
