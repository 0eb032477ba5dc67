"""Every lab's dashboards, stepped headless from Reset to the end the way a student steps them (issue 30).

Each lab source (``labs/NN_x.py``) is executed as a script with :class:`rmqlab.widgets.dashboard.Dashboard` replaced by
a subclass that records every dashboard the lab builds, so the runs checked are the lab's own, found by what they are
(dashboards), never by cell position. Each run is then stepped with a view-less controller and checked:

1. **Plain first lines.** No caption's first line holds a Java identifier: no ``Class.method``, no CamelCase
   class or method name (``ProcessQueue``, ``sendMessageBack``), no ``CONSTANT_CASE`` (``RECONSUME_LATER``,
   ``SCHEDULE_TOPIC_XXXX``), no all-caps status word (``SUCCESS``, ``SYNC``). The run's own names are allowed —
   topics, groups, clients, brokers and message ids are what the picture shows — and so are the retry and dead-letter
   topics (``%RETRY%cg``, ``%DLQ%cg``), which the flow view and the topology label by that name: a beginner finds
   them in the picture (see :mod:`rmqlab.narrate.plain`).
2. **Cause before effect** on the send-back → schedule → retry and send-back → DLQ paths: in the caption, the Events
   tab and the space-time diagram, the consumer's send-back comes before the broker's put it caused; and both
   paths occur across the labs, so the check is not vacuous.
3. **Two short lines.** The plain line is one sentence (and how many other events the step had), wrapped to at most
   two lines of the caption box at the notebook's default width, in English and in Chinese; the source line fits its
   budget.
4. **Repeats grouped.** Every Step lands on something new, and no sentence is said twice in one caption.
"""

from __future__ import annotations

import contextlib
import io
import re
import runpy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rmqlab.widgets import dashboard as dashboard_module
from rmqlab.widgets.controller import Controller
from rmqlab.widgets.event_log import event_log_model
from rmqlab.widgets.frames import build_run
from rmqlab.widgets.scene import text_width
from rmqlab.widgets.spacetime_view import ArrowKind, spacetime_view_model
from test_flow_fits import OUTPUT_AREA_PX

import rmqlab
from rmqlab import EventKind as K
from rmqlab import Lab
from rmqlab.core.i18n import columns, current_language
from rmqlab.narrate.steps import PLAIN_WIDTH, SOURCE_WIDTH

LABS = Path(__file__).resolve().parent.parent / "labs"
SOURCES = sorted(p.name for p in LABS.glob("[0-9][0-9]*_*.py"))

JAVA = [
    re.compile(r"\b[A-Za-z]\w*\.[a-z]\w*\("),  # Class.method( / obj.call(
    re.compile(r"\b[A-Z]\w*\.[a-z]\w+"),  # Class.method
    re.compile(r"\b[a-z]+[A-Z]\w*"),  # lowerCamel: sendMessageBack, msgTreeMap
    re.compile(r"\b[A-Z][a-z0-9]+[A-Z]\w*"),  # UpperCamel with two humps: ProcessQueue, CommitLog
    re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"),  # CONSTANT_CASE: RECONSUME_LATER, SCHEDULE_TOPIC_XXXX
    re.compile(r"\b[A-Z]{3,}\b"),  # an all-caps word: SUCCESS, SYNC, DLQ
]


@dataclass
class Run:
    lab: str
    index: int
    make_lab: Any
    horizon: Any
    frames: Any = None
    """The frames the dashboard built (its checkpoints' paused frames masked), as the lab left them."""


_BUILT: dict[tuple[str, str], list[Run]] = {}
"""Each lab's dashboards, by lab and language: executed once for the three test files that read them (this one,
test_caption_pairs and test_fault_bar), as a lab takes seconds to run."""


def _dashboards(source: str, monkeypatch: pytest.MonkeyPatch) -> list[Run]:
    """The dashboards ``labs/<source>`` builds, in the order it builds them."""
    monkeypatch.chdir(LABS)  # a lab's factories may read files beside it
    key = (source, current_language())
    if key not in _BUILT:
        _BUILT[key] = _run_lab(source)
    return _BUILT[key]


def _run_lab(source: str) -> list[Run]:
    built: list[Run] = []
    real = dashboard_module.Dashboard

    class Recording(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            c = self.controller
            built.append(Run(source, len(built), c.make_lab, c.horizon, c.frames))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dashboard_module, "Dashboard", Recording)
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(str(LABS / source), run_name="__lab__")
    return built


def _names(lab: Lab) -> set[str]:
    """The run's own names: clients, brokers, topics, groups, message ids."""
    names: set[str] = set()
    for e in lab.trace:
        names.add(e.actor.split(":", 1)[-1])
        names.update(e.actor.split(":", 1)[-1].split("/"))
        if e.msg_id:
            names.add(e.msg_id)
        for key in ("topic", "real_topic", "original_topic", "group", "queue", "broker", "holder", "client"):
            value = e.data.get(key)
            if isinstance(value, str):
                names.add(value)
                names.add(value.partition("@")[0])
        for key in ("queues", "msg_ids"):
            for value in e.data.get(key) or ():
                names.update((str(value), str(value).partition("@")[0]))
    return {n for n in names if n} | {"RocketMQ"}  # the product's name is a plain word here


def java_identifiers(line: str, names: set[str]) -> list[str]:
    """The Java-looking words of ``line`` once the run's own names are taken out."""
    for name in sorted(names, key=len, reverse=True):
        line = line.replace(name, " ")
    return [m.group(0) for pattern in JAVA for m in pattern.finditer(line)]


def test_the_identifier_check_catches_java_and_spares_the_runs_names():
    names = {"TopicTest", "%RETRY%cg", "%DLQ%cg", "c1", "M0001", "broker-a"}
    assert java_identifiers("c1 failed M0001, so it goes to %DLQ%cg on broker-a of TopicTest.", names) == []
    found = java_identifiers(
        "CommitLog.asyncPutMessage parks it in SCHEDULE_TOPIC_XXXX; sendMessageBack answered SUCCESS", names
    )
    assert {"CommitLog.asyncPutMessage", "sendMessageBack", "SCHEDULE_TOPIC_XXXX", "SUCCESS"} <= set(found)


@dataclass
class Paths:
    scheduled: int = 0
    dead_lettered: int = 0


PATHS = Paths()


@pytest.mark.parametrize("source", SOURCES)
def test_every_dashboard_of_the_lab_steps_plain_cause_first_and_grouped(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _dashboards(source, monkeypatch)
    assert runs, f"{source} builds no dashboard"
    for run in runs:
        c = Controller(run.make_lab, horizon=run.horizon)
        c.reset()
        assert c.replay is not None
        previous = c.position
        landings = [(c.position, c.caption_lines)]
        steps = 0
        while c.step_once():
            steps += 1
            landings.append((c.position, c.caption_lines))
            if not c.at_end:  # 4. a Step lands on something new, or on a delivery a student may count (repeat or not)
                assert c.stepper is not None
                fresh = [k for k in range(previous, c.position) if c.stepper.captions[k].meaningful
                         and (c.stepper.captions[k].fresh or c.stepper.counted_delivery(k))]  # fmt: skip
                assert fresh, f"{source} #{run.index}: step {steps} landed on repeats only"
            previous = c.position
            assert steps <= 2000, f"{source} #{run.index}: more than 2000 steps"
        names = _names(c.replay.lab)
        for position, lines in landings:
            if not lines:
                continue
            assert len(lines) == 2 and lines[1].startswith("in the source: "), (source, position, lines)
            # two short lines, not four: lab 02b's fallback step read 4 lines of plain text and 3 of source
            assert columns(lines[0]) <= PLAIN_WIDTH, (source, run.index, position, lines[0])
            assert columns(lines[1]) <= SOURCE_WIDTH, (source, run.index, position, lines[1])
            assert len(_sentences(lines[0])) == 1 and wrapped_lines(lines[0]) <= 2, (source, run.index, lines[0])
            plain = lines[0]
            assert java_identifiers(plain, names) == [], (source, run.index, position, plain)  # 1.
            sentences = [s for s in re.split(r"(?<=\.) ", plain) if s]
            assert len(sentences) == len(set(sentences)), (source, position, plain)  # 4. said once
        _check_cause_first(c, source, run.index)
        _check_chinese_plain_lines(run, source)


CAPTION_PX = 13
"""The caption's text size in the page's player (JupyterLab's --jp-ui-font-size1)."""
CAPTION_BOX_PX = OUTPUT_AREA_PX - 3 - 16
"""The caption's line width at the notebook's default width: the output area less its 3 px rule and 2 x 8 px padding."""
COUNTED = re.compile(  # the count of a step's other events, naming what they consumed (or a second copy) or not
    r"\s*(\(and \d+ more: (?:[^()]* (?:consumed|stored|delivered), )?see the Events tab\)"
    r"|（还有 \d+ 条：(?:[^（）]*(?:已消费|已存储|已投递)，)?见“事件”标签页）)$"
)


def _sentences(plain: str) -> list[str]:
    """``plain``'s sentences, the count of the step's other events ("(and 3 more: see the Events tab)") left out."""
    # a sentence ends at "。", or at "." before a space (not inside a time: "cut at 1.500 s")
    return [s for s in re.split(r"(?<=\.)\s+(?=\S)|(?<=。)\s*(?=\S)", COUNTED.sub("", plain)) if s]


def wrapped_lines(text: str, width: float = CAPTION_BOX_PX, px: float = CAPTION_PX) -> int:
    """How many lines ``text`` takes wrapped at ``width`` px: English at spaces, Chinese at any character (as a
    browser breaks them), each word measured with :func:`text_width` (the widest of JupyterLab's sans faces)."""
    wide = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"  # 汉字 and full-width signs: a line may break after any
    words = re.findall(rf"[{wide}]|[^\s{wide}]+\s*", text)
    lines, used = 1, 0.0
    for word in words:
        if used and used + text_width(word.rstrip(), px) > width:
            lines, used = lines + 1, 0.0
        used += text_width(word, px)
    return lines


def test_the_wrap_measure_counts_lines() -> None:
    """A stop-31 caption (four sentences, 234 columns: within the old 240-column budget) wraps to three lines; one
    sentence and its count, two; a Chinese line breaks between characters."""
    old = ("c1's listener is done with M0001. c1 failed M0003 for the 1st time, so it goes back to the broker and "
           "returns in 10 s. c1 failed M0004 for the 1st time, so it goes back to the broker and returns in 10 s. "
           "(and 9 more: see the Events tab)")  # fmt: skip
    assert columns(old) <= 240 and wrapped_lines(old) == 3 and len(_sentences(old)) == 3
    now = "c1 failed M0003 for the 1st time, so it goes back to the broker: into %RETRY%cg in 10 s."
    assert wrapped_lines(now) == 1 and wrapped_lines(now + " (and 11 more: see the Events tab)") == 2
    assert _sentences(now + " (and 11 more: see the Events tab)") == [now]
    zh = "c1 第 1 次消费 M0001 失败。"
    assert wrapped_lines("汉" * 100) == 2 and _sentences(zh + "（还有 6 条：见“事件”标签页）") == [zh]


def _check_chinese_plain_lines(run: Run, source: str) -> None:
    """3. in Chinese: the same run's every step (the frames the page plays) says one sentence in at most two lines."""
    rmqlab.set_language("zh")
    try:
        frames = build_run(run.make_lab, horizon=run.horizon)
    finally:
        rmqlab.set_language(None)
    long = [(i, plain) for i, (plain, *_) in enumerate(c for c in frames.captions if c)
            if len(_sentences(plain)) != 1 or wrapped_lines(plain) > 2]  # fmt: skip
    assert long == [], (source, run.index, long)


def _check_cause_first(c: Controller, source: str, index: int) -> None:
    """2. Every send-back answered by a schedule hop or a DLQ write reads cause first, in the three places."""
    assert c.replay is not None
    trace = c.replay.lab.trace
    for back in trace.where(K.SEND_BACK, ok=True):
        effects = [
            e
            for e in trace.where(K.SCHEDULED, K.DEAD_LETTERED, msg_id=back.msg_id)
            if e.time_ms == back.time_ms and e.seq < back.seq
        ]
        if not effects or back.get("path") == "orderly":
            continue
        effect = effects[-1]
        c.seek(back.seq)  # the step that recorded the send-back
        plain = c.caption_lines[0]
        # the step's one sentence is the send-back's: the consumer's failure, then what the broker does with it
        told = "goes back to the broker: into %RETRY%" if effect.kind is K.SCHEDULED else "goes to the dead-letter"
        cause = plain.find(f"failed {back.msg_id} for the")
        if cause >= 0:  # a step with several send-backs tells of its first one (the Events tab of the others)
            assert told in plain[cause:], (source, index, plain)
            if effect.kind is K.SCHEDULED:
                PATHS.scheduled += 1
            else:
                PATHS.dead_lettered += 1
        snap = c.replay.snapshot()
        rows = [
            r for r in event_log_model(snap, msg_id=str(back.msg_id), limit=10**6).rows if r.time_ms == back.time_ms
        ]
        kinds = [r.kind for r in rows]
        assert kinds.index("send_back") < kinds.index(effect.kind.value), (source, index, kinds)
        drawn = [r for r in spacetime_view_model(snap).rows if r.msg_id == back.msg_id and r.time_ms == back.time_ms]
        first_from_consumer = next(i for i, r in enumerate(drawn) if r.src.startswith("consumer:"))
        if effect.kind is K.SCHEDULED:  # the send-back arrow, then the hop to the schedule lane
            hop = next(i for i, r in enumerate(drawn) if r.kind is ArrowKind.SCHEDULE)
            assert drawn[first_from_consumer].kind is not ArrowKind.SCHEDULE and first_from_consumer < hop
        else:  # the DLQ write is drawn as the consumer's send-back arrow answered by %DLQ%
            dlq = next(r for r in drawn if r.kind is ArrowKind.DLQ)
            assert dlq.src.startswith("consumer:"), (source, index, dlq)


def test_both_send_back_paths_were_seen_in_the_labs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cause-first check is not vacuous: the dashboards of labs 03 and 04 (the retry schedule and the DLQ) show
    both paths in a caption, send-back → schedule and send-back → DLQ (checked here on its own, whatever ran before)."""
    PATHS.scheduled = PATHS.dead_lettered = 0
    for source in ("03_delay_levels_schedule.py", "04_dead_letter_queue.py"):
        for run in _dashboards(source, monkeypatch):
            c = Controller(run.make_lab, horizon=run.horizon)
            c.reset()
            while c.step_once():
                pass
            _check_cause_first(c, source, run.index)
    assert PATHS.scheduled > 0 and PATHS.dead_lettered > 0


def test_lab_03_broker_crash_is_a_few_steps_not_a_hundred_thousand(monkeypatch: pytest.MonkeyPatch) -> None:
    """'Crash broker' at 15 s in lab 03's dashboard: a failing pull per queue every second (100,000 events over
    the dashboard's 14 h; here its first hour, 7,000 events, to keep the test short), but Step walks through them
    at once, and the Events tab shows each queue's failures as one row."""
    run = _dashboards("03_delay_levels_schedule.py", monkeypatch)[0]
    c = Controller(run.make_lab, horizon="1h")
    c.seek_time(15_000)
    assert c.inject("broker_down", "broker-a")
    steps = 0
    while c.step_once():
        steps += 1
    assert c.position > 7000 and steps < 10
    assert c.replay is not None
    rows = event_log_model(c.replay.snapshot(), limit=4).rows
    assert [(r.kind, r.repeats) for r in rows[-2:]] == [
        ("pull_deferred", f"× {rows[-2].count:,}, every 1 s"),
        ("pull_deferred", f"× {rows[-1].count:,}, every 1 s"),
    ]
    assert rows[-1].count > 3500
