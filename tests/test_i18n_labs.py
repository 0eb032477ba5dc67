"""Issue 35, item 1: no untranslated message in a Chinese run of the labs. What rmqlab says to a student in a lab,
driven here directly (no kernel, no browser): every check's verdict of every lab (right, each near miss, a
prediction of the wrong kind, wrong twice, no prediction, show_me, the score), the tables the labs print, and the
dashboards' checkpoints (each question, choice label, near-miss hint and explanation), offset strips, every view's
hover texts, the Jump box (kernel and page) and the Events tab on every example run (the mechanisms the labs pause
on); an exported page. Each text either contains Chinese, with no English prose left
around the identifiers, or is made of identifiers and numbers only (``TopicTest:0 (c1)``, ``M0001``, ``10 s``)."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from rmqlab.widgets import Checkpoint, Dashboard
from rmqlab.widgets.controller_controls import SOURCE_STYLE
from rmqlab.widgets.export_html import standalone_html
from rmqlab.widgets.export_pictures import export_scenes
from rmqlab.widgets.export_svg import standalone_svg
from rmqlab.widgets.kind_names import jump_names
from rmqlab.widgets.offset_strip import offset_strip_text
from rmqlab.widgets.scene import SceneView

import rmqlab
from rmqlab.core import i18n
from rmqlab.course import exercises
from rmqlab.course.answers import UNIT_MS
from rmqlab.course.bank import EXERCISES
from rmqlab.lab.scenario import load_scenario
from rmqlab.lab.trace_table import width
from teacher.compile import EXERCISES as TEACHER_BANK
from teacher.compile import answers

ROOT = Path(__file__).resolve().parents[1]
CHINESE = re.compile(r"[\u4e00-\u9fff]")
IDENTIFIERS = re.compile(
    r"`[^`]*`|'[^']*'|%(?:RETRY|DLQ)%[\w-]*|[\w.%-]+@[\w.-]+(?::\d+)?|\b\w+(?:\.\w+)*\(\)|\b\w+(?:\.\w+)+|\b\w*[A-Z0-9_]\w*\b"
    r"|\b[a-z]+-[a-z]\b|\b[a-z]{1,2}\d*\b|\b(?:ms|min|cg|pg|mq|pq|rt)\b|\b\w+=\S*"
)
"""What may stay in Latin letters: quoted code and values, %RETRY%/%DLQ% topics, queues (``T@broker-a:0``), calls
and dotted names (``pq.locked``),
names with a capital, digit or underscore (``TopicTest``, ``M0001``, ``RECONSUME_LATER``, ``c1``), brokers
(``broker-a``), units, the labs' short names and ``key=value`` data (``committed=0``)."""
ENGLISH = re.compile(
    r"[A-Za-z]{2,}(?:[ ,;:]+[A-Za-z]{2,})+|\b(?:the|and|of|to|is|are|you|your|not|yet|again|"
    r"level|queue|message|offset|stored|dropped|committed|locked|hint|right|quite)\b"
)
"""English left in a text: two Latin words or more in a row (prose: a lone word between Chinese ones is an
identifier, ``opaque``, ``timeout``), or one of the words a dashboard or a check would show untranslated."""
LABS = sorted({ex.lab for ex in EXERCISES})
SCENARIOS = sorted(p.name for p in (ROOT / "examples").iterdir() if p.suffix in {".json", ".yaml"}
                   and ".expected." not in p.name)  # fmt: skip
"""Every example run (each lab's mechanisms: delay levels, the DLQ, a BROADCASTING drop, a send to another broker,
an orderly suspension, a lock taken over, a failed send-back's 5 s local retry …), its first two minutes."""
ASKED = {"where": ("stored", "send_back", "scheduled", "delay_delivered", "dead_lettered", "delivered", "consumed"),
         "when": ("delivered", "delay_delivered", "rebalanced", "lock_acquired"),
         "who": ("delivered", "lock_acquired")}  # fmt: skip


@pytest.fixture(autouse=True)
def chinese(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(i18n.ENV_VARIABLE, raising=False)
    rmqlab.set_language("zh")
    exercises.reset()
    yield
    exercises.reset()
    rmqlab.set_language(None)


def untranslated(text: str) -> list[str]:
    """The English left in ``text`` once its identifiers, numbers and units are taken out."""
    return ENGLISH.findall(IDENTIFIERS.sub(" ", text))


def said(action: object, *args: object) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert callable(action)
        action(*args)
    return out.getvalue()


def test_the_finder_of_english_words() -> None:
    assert untranslated("Not quite — you predicted 5. Hint: 比较") == ["quite", "you predicted"]  # capitals: names
    assert untranslated("正确——1。预算检查（timeout < costTime）结束了循环，max 5。") == []
    assert untranslated("还不对——你预测的是 'abc'。提示：看 DefaultMQProducer.retryResponseCodes 与 %DLQ%cg") == []
    assert untranslated("TopicTest:0 · broker-a (c1)") == [] and untranslated("t = 4 h 45 m 40 s") == []
    assert untranslated("delay level 3 · 10 s") == ["delay level"] and untranslated("dropped") == ["dropped"]


@pytest.mark.parametrize("lab", LABS)
def test_every_check_of_every_lab_speaks_chinese(lab: str) -> None:
    """Each exercise of the lab: no prediction, show_me too early, a prediction of the wrong kind, each near miss,
    two plain wrong guesses, show_me, the right answer — then the lab's score. Every paragraph is Chinese."""
    right = answers()
    texts = []
    for ex in (e for e in TEACHER_BANK if e.lab == lab):
        value = right[ex.id]
        texts += [said(exercises.check, ex.id, ...), said(exercises.show_me, ex.id)]
        texts.append(said(exercises.check, ex.id, {}))  # of no kind an answer has
        for near, _ in ex.hinted(value):
            texts.append(said(exercises.check, ex.id, near))
        far = 987654 if not isinstance(value, bool) else None
        texts += [said(exercises.check, ex.id, far), said(exercises.check, ex.id, far), said(exercises.show_me, ex.id)]
        measured = value * 2 if isinstance(value, int) and not isinstance(value, bool) and ex.unit in UNIT_MS else value
        texts.append(said(exercises.check, ex.id, value, measured))
    texts.append(said(exercises.score, lab))
    for text in texts:
        for paragraph in filter(None, text.split("\n\n")):
            assert CHINESE.search(paragraph), paragraph
            assert untranslated(paragraph.replace("show_me", "")) == [], paragraph


def test_the_tables_a_lab_prints_have_chinese_headers() -> None:
    lab = load_scenario(ROOT / "examples" / "default_retry_schedule.json").run()
    shown = said(lambda: exercises.show_trace(lab.trace, "delivered", limit=2)).splitlines()
    assert shown[0].split() == ["时间", "事件", "角色", "消息", "详情"] and shown[-1] == "… 还有 15 条"
    starts = [width(shown[0][: m.start()]) for m in re.finditer(r"\S+", shown[0])]  # on screen: 汉字 take two
    assert starts == [m.start() for m in re.finditer(r"-+", shown[1])]  # each header over its column


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_checkpoint_and_offset_strip_speaks_chinese(name: str) -> None:
    """Every checkpoint the run can hold (optional ones: those its events allow): the question, each choice's label,
    each wrong choice's near-miss hint, the explanation; the offset strip's words halfway through the run."""
    scenario = load_scenario(ROOT / "examples" / name)
    asked = [Checkpoint(before=kind, ask=ask, nth=n, optional=True)  # type: ignore[arg-type]
             for ask, kinds in ASKED.items() for kind in kinds for n in (1, 2)]  # fmt: skip
    dash = Dashboard(scenario.build, checkpoints=asked, horizon="2m")
    ctl = dash.controller
    assert ctl.ok and ctl.checkpoints, name
    sentences, labels = [], []
    for cp in ctl.checkpoints:
        sentences += [cp.question, cp.hint, cp.explain]
        sentences += [cp.hint_for(c.key) for c in cp.choices if c.key != cp.answer]
        labels += [c.label for c in cp.choices]
    assert ctl.frames is not None
    ctl.seek(len(ctl.frames) // 2)
    strip = dash.view("ProcessQueues")
    strip.update(ctl.snapshot)  # type: ignore[arg-type]
    assert isinstance(strip, SceneView) and strip.current is not None
    marks = [m.text for m in strip.current.marks if m.kind == "text" and m.text] + [
        m.title for m in strip.current.marks if m.title
    ]
    for text in sentences:
        assert CHINESE.search(text) and untranslated(text) == [], (name, text)
    for text in [*labels, *marks, *offset_strip_text(strip.model(ctl.snapshot)).splitlines()]:  # type: ignore[attr-defined]
        assert untranslated(text) == [], (name, text)
    what_the_dashboard_shows_is_chinese(name, dash)


ROCKETMQ_SAYS = re.compile(r"\b[A-Z]\w*Exception\b.*|\b\w*remark=.*|“[^”]*”")
"""What RocketMQ says in its own words, kept as it says them: an exception and its message (to the end of the text:
``RemotingTimeoutException: wait response timeout 3000ms``), a broker's remark (``pull_remark=[OVERLOAD]system
busy, …``), a log line quoted (“BROADCASTING, … drop it”)."""


def what_the_dashboard_shows_is_chinese(name: str, dash: Dashboard) -> None:
    """At the first step, halfway and at the end: every view's hover texts and labels; the Jump box's options in the
    kernel and the names the page's player gets for every kind its Jump box can offer; the caption's second line
    ("源码：…", each of its rules checked in tests/test_i18n_captions.py); the Events tab's filters, and
    its detail column, which is the events' data (``key=value``, no prose around it)."""
    ctl = dash.controller
    assert ctl.frames is not None
    words = ctl.player.words
    names = jump_names()
    for kind in ctl.frames.player_json()["jumps"]:  # the page's Jump box: "{kind} ({n})" in plain Chinese words
        assert CHINESE.search(words[f"kind:{kind}"]) and words[f"kind:{kind}"] == names[kind], kind
    assert words["{kind} ({n})"] == "{kind}（{n}）"
    events = dash.view("Events")
    filters = (events.msg_filter, events.kind_filter, events.actor_filter)  # type: ignore[attr-defined]
    assert all(CHINESE.search(f.description) and CHINESE.search(f.tooltip) for f in filters)
    assert all(CHINESE.search(label) for label, _ in events.kind_filter.options)  # type: ignore[attr-defined]
    for frame in (0, len(ctl.frames) // 2, len(ctl.frames) - 1):
        ctl.seek(frame)
        if frame < len(ctl.frames) - 1:
            offered = [label for label, _kind in ctl.kind_choice.options]  # kinds, or "answer the question first"
            assert offered and all(CHINESE.search(label) for label in offered), (name, offered)
        source = [line for line in ctl.caption_lines if line.startswith(("源码：", "in the source"))]
        assert all(line.startswith("源码：") and CHINESE.search(line) for line in source), (name, source)
        quiet = ctl.caption_html.value.count(f'<div style="{SOURCE_STYLE}">源码：')  # drawn quieter, as in English
        assert quiet == len(source), (name, ctl.caption_html.value)
        for view in dash.views:
            view.update(ctl.snapshot)  # type: ignore[arg-type]
            if isinstance(view, SceneView) and view.current is not None:
                marks = view.current.marks
                for text in [m.title for m in marks if m.title] + [m.text for m in marks if m.text]:
                    assert untranslated(ROCKETMQ_SAYS.sub(" ", text)) == [], (name, view.title, text)
        for row in events.vm.rows:  # type: ignore[attr-defined]
            assert re.fullmatch(r"(\w+=.*)?", row.details) and untranslated(row.repeats) == [], (name, row)


def test_an_export_of_a_chinese_dashboard_is_chinese() -> None:
    """The page ``save_html`` writes: its title, heading, pictures' titles and footer, and ``lang`` (a browser
    picks its Chinese font by it); the SVG document's name."""
    dash = Dashboard(lambda: load_scenario(ROOT / "examples" / "default_retry_schedule.json").build(), horizon="1m")
    page = standalone_html(dash)
    assert '<html lang="zh-CN">' in page and "<title>rmqlab 仪表盘</title>" in page
    assert "<footer>由 rmqlab 导出（虚拟时间；同样的种子得到同样的画面）</footer>" in page
    assert [name for name, _ in export_scenes(dash)][:3] == ["消息流转", "处理队列 ProcessQueue", "时空图"]
    assert 'aria-label="rmqlab 仪表盘"' in standalone_svg(dash)
    rmqlab.set_language("en")
    assert '<html lang="en">' in standalone_html(dash) and "<title>rmqlab dashboard</title>" in standalone_html(dash)
