"""Issue 35, item 1: the dashboards' words in Chinese through the gettext catalogs (the player's buttons and their
accessible names, the tabs, the fault buttons, the clock line, the legends, the checkpoints' fixed words), English by
default; RocketMQ's identifiers kept as they are. View-models and widget traits only: no browser."""

from __future__ import annotations

import json
import re
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from rmqlab.widgets import Checkpoint, Dashboard, demo_lab
from rmqlab.widgets.kind_names import jump_names
from rmqlab.widgets.player import player_words
from rmqlab.widgets.replay import _LABELS, FAULT_KINDS
from rmqlab.widgets.scene import SceneView

import rmqlab
from rmqlab import EventKind, Lab
from rmqlab.core import i18n

SCENE_JS = Path(rmqlab.widgets.__file__).with_name("scene.js")
PO = i18n.LOCALE_DIR / "zh_CN" / "LC_MESSAGES" / "rmqlab.po"
CHINESE = re.compile(r"[\u4e00-\u9fff]")
CHECKPOINTS = [Checkpoint(before="send_back", ask="where"), Checkpoint(before="delivered", nth=3, ask="who"),
               Checkpoint(before="delay_delivered", ask="when")]  # fmt: skip


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(i18n.ENV_VARIABLE, raising=False)
    yield
    rmqlab.set_language(None)


def failing() -> Lab:
    return demo_lab(listener="fail_all", max_reconsume_times=1)


def legend_texts(view: SceneView) -> list[str]:
    assert view.current is not None
    return [m.text for m in view.current.marks if m.role == "legend" and m.kind == "text" and m.text != "✗"]


def test_english_by_default_and_nothing_sent_for_it() -> None:
    dash = Dashboard(failing, horizon="2m", checkpoints=CHECKPOINTS)
    ctl = dash.controller
    assert [label for label, _ in dash.tabs.buttons.options] == [
        "ProcessQueues", "Space-time", "Retry timeline", "Topology", "Events"]  # fmt: skip
    assert (ctl.reset_button.description, ctl.step_button.description, ctl.jump_button.description) == (
        "Reset", "Step", "Jump")  # fmt: skip
    # nothing but the Jump box's plain names of the kinds (the page's player has the trace's kind names only)
    assert set(ctl.player.words) == {f"kind:{kind}" for kind in jump_names()}
    assert ctl.player.words["kind:lifecycle"] == "a consumer starts, crashes or stops"
    assert ctl.clock_text == "t = 0 ms · event 0 / 64"
    assert (
        ctl.frames is not None and ctl.frames.clock(len(ctl.frames) - 1) == "t = 2 m (120000 ms) · event 64 / 64 · end"
    )
    where, who, when = ctl.checkpoints
    assert where.question == "Where is M0001 after the next step? Click the place in the picture (or a button)."
    assert who.question == "Which instance gets M0003 next?"
    assert when.question == "When does M0001 leave its delay level? Pick the time."
    assert "delay level 3 · 10 s" in [c.label for c in where.choices]
    assert legend_texts(dash.main_view)[0] == "a message, stored in a queue or pulled into a ProcessQueue"  # type: ignore[arg-type]


def test_chinese_dashboard_words() -> None:
    rmqlab.set_language("zh")
    dash = Dashboard(failing, horizon="2m", checkpoints=CHECKPOINTS)
    ctl = dash.controller
    assert [label for label, _ in dash.tabs.buttons.options] == [
        "处理队列 ProcessQueue", "时空图", "重试时间线", "拓扑", "事件"]  # fmt: skip
    assert dash.tabs.buttons.tooltips[0] == "显示“处理队列 ProcessQueue”视图"
    assert dash.view("Message flow") is dash.main_view  # titles stay the views' English names in code
    assert dash.rebuild_button.description == "重建"
    buttons = (ctl.reset_button, ctl.back_button, ctl.step_button, ctl.pause_button, ctl.jump_button)
    assert [b.description for b in buttons] == ["重置", "后退一步", "单步", "暂停", "跳转"]
    assert [b.description for b in ctl.fault_buttons.values()] == [
        "Broker 宕机", "重启 Broker", "Consumer 崩溃", "重启 Consumer", "网络分区", "恢复网络"]  # fmt: skip
    assert ctl.fault_buttons["broker_down"].tooltip == "broker_down：所选 Broker 立即停止"
    # the page's player: its buttons' names, their shortcuts' wording, the checkpoint prompt
    words = ctl.player.words
    assert (words["Step"], words["Step back"], words["Play"], words["Pause"], words["Reset"], words["Jump"]) == (
        "单步", "后退一步", "播放", "暂停", "重置", "跳转")  # fmt: skip
    assert words["Checkpoint: {question}"] == "检查点：{question}" and words["Show me"] == "演示给我看"
    assert ctl.clock_text == "t = 0 ms · 事件 0 / 64"
    assert (
        ctl.frames is not None and ctl.frames.clock(len(ctl.frames) - 1) == "t = 2 m (120000 ms) · 事件 64 / 64 · 结束"
    )
    assert ctl.frames.player_json()["clocks"][1].startswith("t = ") and "事件" in ctl.frames.player_json()["clocks"][1]
    where, who, when = ctl.checkpoints
    assert where.question == "下一步之后 M0001 在哪里？在图中点击那个位置（或点下面的按钮）。"
    assert who.question == "下一次由哪个实例拿到 M0003？"
    assert when.question == "M0001 什么时候离开它的延迟级别？请选择时间。"  # one whole sentence per event kind
    labels = [c.label for c in where.choices]
    assert "延迟级别 3 · 10 s" in labels and "%DLQ%cg:0（死信队列）" in labels
    assert where.hint.startswith("消费失败的消息不会原地重试") and "SCHEDULE_TOPIC_XXXX" in where.hint
    assert ctl.answer(where.name, where.answer) == (True, where.explain) and where.explain.startswith(
        "答对了：延迟级别 3"
    )
    legend = legend_texts(dash.main_view)  # type: ignore[arg-type]
    assert legend[0] == "一条消息：存储在队列中，或已拉取到 ProcessQueue" and "在 %DLQ% 中（死信）" in legend
    flow = dash.main_view
    assert isinstance(flow, SceneView) and flow.current is not None
    texts = {m.key: m.text for m in flow.current.marks if m.kind == "text"}
    assert texts["title"].startswith("消息流转 t = ") and texts["col:consumers"] == "Consumer 实例"
    lanes = (texts["lane:broker-a:retry"], texts["lane:broker-a:schedule"])
    assert lanes == ("%RETRY% 重试队列", "SCHEDULE_TOPIC_XXXX")
    spacetime = dash.view("Space-time")
    spacetime.update(ctl.snapshot)  # type: ignore[arg-type]  # a hidden tab: drawn when shown
    assert isinstance(spacetime, SceneView) and "写入死信队列" in legend_texts(spacetime)
    strip = dash.view("ProcessQueues")
    assert isinstance(strip, SceneView) and "已回传到 %RETRY%（此处完成，副本继续存在）" in legend_texts(strip)
    static = dash.static_html()
    assert '"words":{' in static and json.dumps("单步") in static and "<h4>消息流转</h4>" in static


def test_a_chinese_dashboard_has_no_english_word_left_in_its_chrome() -> None:
    """Every button, dropdown and toggle of the controller and the dashboard reads Chinese (identifiers aside)."""
    rmqlab.set_language("zh")
    dash = Dashboard(lambda max_reconsume_times: demo_lab(listener="fail_all", max_reconsume_times=max_reconsume_times),
                     knobs={"max_reconsume_times": 1}, horizon="2m")  # fmt: skip
    assert dash.controller.ok
    ctl = dash.controller
    named = [ctl.reset_button, ctl.back_button, ctl.step_button, ctl.pause_button, ctl.jump_button, ctl.every_event,
             ctl.speed, ctl.scrubber, ctl.kind_choice, ctl.fault_client, ctl.clear_faults_button,
             *ctl.fault_buttons.values(), dash.rebuild_button]  # fmt: skip
    for widget in named:
        assert CHINESE.search(widget.description), widget.description
        assert CHINESE.search(widget.tooltip), widget.tooltip
    assert (ctl.fault_broker.description, ctl.fault_broker.tooltip) == (
        "Broker",
        "故障按钮作用的 Broker",
    )  # a name kept
    english_player = {e for e in player_words.__code__.co_consts if isinstance(e, str) and e != player_words.__doc__}
    kinds = {f"kind:{kind.value}" for kind in EventKind}  # the Jump box's names of the event kinds
    assert set(ctl.player.words) == english_player | kinds  # every word of the page's player is translated
    assert ctl.fault_list.value == '<div data-testid="rmq-faults" role="status">没有生效中的故障</div>'
    ctl.step_once()
    # the first Step from Reset (event 0) is the build, at t = 0
    assert ctl.inject("broker_down", "broker-a")
    assert ctl.faults[0].label == "t = 0 ms：宕机 broker-a" and "已注入：" in ctl.fault_list.value


def test_the_pages_player_asks_only_for_words_the_kernel_sends() -> None:
    """scene.js translates with ``tr("English")``: each such text is a key of :func:`player_words` (else it would
    stay English in a Chinese page), and each key is used by the page."""
    rmqlab.set_language("zh")
    script = SCENE_JS.read_text(encoding="utf-8")
    asked = set(re.findall(r'\btr\(\s*"((?:[^"\\]|\\.)*)"', script))
    assert asked == {word for word in player_words() if not word.startswith("kind:")}
    assert "WORDS[`kind:${kind}`]" in script  # the Jump box names each kind by its "kind:<kind>" word


def test_placeholders_and_identifiers_survive_translation() -> None:
    """Every translation keeps the message's ``{names}`` and its RocketMQ identifiers (%RETRY%, %DLQ%, class and
    method names, SCHEDULE_TOPIC_XXXX) exactly."""
    with PO.open("rb") as f:
        po = read_po(f)
    identifier = re.compile(r"%RETRY%|%DLQ%|SCHEDULE_TOPIC_XXXX|\b[A-Z][a-z]+[A-Z]\w+|\b[a-z]+[A-Z]\w+")
    for message in po:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        said = message.string if isinstance(message.string, tuple) else (message.string,)
        names = {f for _, f, _, _ in string.Formatter().parse(ids[-1]) if f}
        for text in said:
            assert {f for _, f, _, _ in string.Formatter().parse(text) if f} == names, message.id
            kept = sorted(name.removesuffix("s") for name in identifier.findall(text))  # ProcessQueues: a plural
            assert sorted(name.removesuffix("s") for name in identifier.findall(ids[0])) == kept, message.id


def test_the_fault_labels_are_in_the_catalog() -> None:
    """The registry's dashboard labels (rmqlab/lab/faults) are the ones marked for Babel in widgets/replay.py."""
    assert sorted(FAULT_KINDS.values()) == sorted(_LABELS)
