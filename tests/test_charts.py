"""widgets/chart_data.py and widgets/charts.py: whole-run charts computed from the trace, drawn with plotly.

The data is asserted exactly (virtual times, offsets, counts) on small runs whose story the labs tell: lab 05's
five messages with one slow one (the broker's copy of the offset lags the client's until the 5 s persist tick),
lab 03's always-failing consumer (17 140 s to the DLQ with the default 16 retries, 45 940 s with 20), lab 09's
poisoned orderly queue, and the demo's consumer crash. The figures are checked for what they draw from it, for
being plain ``go.Figure`` s, and for a mime bundle that is the same bytes every time (nbval compares it).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import plotly.graph_objects as go
import pytest
from rmqlab.widgets import demo_lab
from rmqlab.widgets.chart_data import (
    DeliveryCount,
    DlqPoint,
    LagPoint,
    Marker,
    consumer_lag,
    deliveries_per_message,
    run_markers,
    run_summary,
    time_to_dlq,
)
from rmqlab.widgets.charts import deliveries_chart, lag_chart, summary_chart, time_to_dlq_chart

import rmqlab
from rmqlab import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Lab, Message, after

ROOT = Path(__file__).resolve().parents[1]
OK = ConsumeConcurrentlyStatus.CONSUME_SUCCESS


def five_messages() -> Lab:
    """Lab 05: one queue; ok0, slow (60 s), ok2, ok3, ok4 sent at 1..5 s."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, name="c1",
                     listener=lambda msgs, ctx: after("60s", OK) if msgs[0].body == "slow" else OK)  # fmt: skip
    for i, body in enumerate(["ok0", "slow", "ok2", "ok3", "ok4"]):
        lab.at(f"{1 + i}s", p.send, Message("TopicTest", body))
    return lab


def failing_lab(**consumer_options: object) -> Lab:
    """Lab 03: one always-failing consumer, one message sent at t = 0."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, name="c1", **consumer_options,  # type: ignore[arg-type]
                     listener=lambda msgs, ctx: ConsumeConcurrentlyStatus.RECONSUME_LATER)  # fmt: skip
    lab.at(0, p.send, Message("TopicTest", "poison"))
    return lab


def payments(max_reconsume_times: int) -> Lab:
    """Lab 09: an orderly consumer, five payments at 1..5 s, the third one can never succeed."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("Payments", queues=1)
    p = lab.add_producer("pay-producer")
    bad, good = ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT, ConsumeOrderlyStatus.SUCCESS
    lab.add_consumer("pay-cg", subscribe={"Payments": "*"}, orderly=True, name="pay-1",
                     max_reconsume_times=max_reconsume_times,
                     listener=lambda msgs, ctx: bad if msgs[0].body == "bad-card" else good)  # fmt: skip
    for i, body in enumerate(["p1", "p2", "bad-card", "p4", "p5"]):
        lab.at(f"{1 + i}s", p.send, Message("Payments", body))
    return lab


def test_lag_is_max_offset_minus_the_brokers_offset() -> None:
    """The slow message pins the commit at 1: lag grows to 4; the client's copy reaches 5 when slow finishes
    (62 s), the broker's at the next persist tick (65 s); the lines run to the end of the run (2 min)."""
    lab = five_messages().run(until="2m")
    series = {s.queue: s for s in consumer_lag(lab.trace, until_ms=lab.now)}
    assert sorted(series) == ["%RETRY%cg@broker-a:0", "TopicTest@broker-a:0"]
    topic = series["TopicTest@broker-a:0"]
    assert topic.owner == "cg"
    assert topic.points == (
        LagPoint(1000, 1, 1, 1), LagPoint(2000, 2, 1, 1), LagPoint(3000, 3, 1, 1), LagPoint(4000, 4, 1, 1),
        LagPoint(5000, 5, 1, 1), LagPoint(62_000, 5, 1, 5), LagPoint(65_000, 5, 5, 5), LagPoint(120_000, 5, 5, 5),
    )  # fmt: skip
    assert [p.lag for p in topic.points] == [0, 1, 2, 3, 4, 4, 0, 0]
    assert [p.client_lag for p in topic.points] == [0, 1, 2, 3, 4, 0, 0, 0]
    assert series["%RETRY%cg@broker-a:0"].points == (LagPoint(10_000, 0, 0, 0), LagPoint(120_000, 0, 0, 0))


def test_lag_chart_draws_both_copies_and_hides_idle_queues() -> None:
    lab = five_messages().run(until="2m")
    fig = lag_chart(lab)
    assert isinstance(fig, go.Figure) and not isinstance(fig, go.FigureWidget)
    names = [t.name for t in fig.data]
    assert names == [
        "cg · %RETRY%cg@broker-a:0 (broker's offset)", "cg · %RETRY%cg@broker-a:0 (client's offset)",
        "cg · TopicTest@broker-a:0 (broker's offset)", "cg · TopicTest@broker-a:0 (client's offset)",
    ]  # fmt: skip
    assert [t.visible for t in fig.data] == ["legendonly", "legendonly", True, True]
    broker, client = fig.data[2], fig.data[3]
    assert list(broker.x) == [1.0, 2.0, 3.0, 4.0, 5.0, 62.0, 65.0, 120.0]
    assert list(broker.y) == [0, 1, 2, 3, 4, 4, 0, 0] and list(client.y) == [0, 1, 2, 3, 4, 0, 0, 0]
    assert broker.line.shape == "hv" and client.line.dash == "dot"  # a step function, and not colour alone


def test_time_to_dlq_runs_the_engine_per_value() -> None:
    """Lab 03's numbers: level 3 + reconsumeTimes, capped at level 18 (2 h) from the 16th retry on."""
    points = time_to_dlq(failing_lab, [0, 2, -1, 16, 20], until="1d")
    assert points == [
        DlqPoint(0, 1, 0, 1),
        DlqPoint(2, 3, 40_000, 3),
        DlqPoint(-1, 17, 17_140_000, 17),
        DlqPoint(16, 17, 17_140_000, 17),
        DlqPoint(20, 21, 45_940_000, 21),
    ]
    cut = time_to_dlq(failing_lab, [16], until="1h")
    assert cut == [DlqPoint(16, 13, None, None)]  # at 1 h still retrying: the 12th retry came at 3 340 s
    fig = time_to_dlq_chart(points + cut)
    assert [t.name for t in fig.data] == ["dead-lettered", "not dead-lettered by the horizon"]
    assert list(fig.data[0].y) == [0.0, 40_000 / 3_600_000, 17_140_000 / 3_600_000, 17_140_000 / 3_600_000,
                                   45_940_000 / 3_600_000]  # fmt: skip
    assert list(fig.data[0].text) == ["", "", "4 h 45 m 40 s · 17×", "4 h 45 m 40 s · 17×", "12 h 45 m 40 s · 21×"]


def test_time_to_dlq_bad_values() -> None:
    with pytest.raises(ValueError, match=r"values=\[\]: must be a non-empty list of ints"):
        time_to_dlq(failing_lab, [])
    with pytest.raises(ValueError, match=r"values=\[1, '2'\]"):
        time_to_dlq(failing_lab, [1, "2"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="points=\\[\\]"):
        time_to_dlq_chart([])


def test_deliveries_per_message_on_the_capstone() -> None:
    """max 5: bad-card is delivered 6 times, then parked at delay level 8 (4 min) on its way to %DLQ% (248 s)."""
    lab = payments(max_reconsume_times=5).run(until="10m")
    bodies = {m.msg_id: m.body for m in lab.brokers["broker-a"].commit_log.live() if m.topic == "Payments"}
    rows = deliveries_per_message(lab.trace, labels=bodies)
    assert rows == [
        DeliveryCount("M0001", "pay-cg", 1, "consumed", "p1"),
        DeliveryCount("M0002", "pay-cg", 1, "consumed", "p2"),
        DeliveryCount("M0003", "pay-cg", 6, "dead-lettered", "bad-card"),
        DeliveryCount("M0004", "pay-cg", 1, "consumed", "p4"),
        DeliveryCount("M0005", "pay-cg", 1, "consumed", "p5"),
    ]
    deployed = payments(max_reconsume_times=-1).run(until="10m")
    assert [(r.label, r.deliveries, r.outcome) for r in deliveries_per_message(deployed.trace, labels=bodies)] == [
        ("p1", 1, "consumed"), ("p2", 1, "consumed"), ("bad-card", 598, "in flight"),
        ("p4", 0, "waiting"), ("p5", 0, "waiting"),
    ]  # fmt: skip  # once a second from 3 s to 10 min; p4 and p5 never reach the listener
    early = payments(max_reconsume_times=5).run(until="2m")
    assert [r.outcome for r in deliveries_per_message(early.trace)][2] == "in flight"
    fig = deliveries_chart(lab, labels=bodies)
    assert [(t.name, list(t.x), list(t.y)) for t in fig.data] == [
        ("consumed", ["p1", "p2", "p4", "p5"], [1, 1, 1, 1]),
        ("dead-lettered", ["bad-card"], [6]),
    ]
    assert fig.data[1].marker.pattern.shape == "x"
    assert list(fig.layout.xaxis.categoryarray) == ["p1", "p2", "bad-card", "p4", "p5"]


def test_run_summary_and_markers_of_a_consumer_crash() -> None:
    """The demo's crash: c1 dies at 3 s with three messages delivered and failed, restarts at 90 s, is handed
    all three again (nothing was committed), and consumes them at 120 s."""
    lab = demo_lab(fault="consumer_crash", listener="fail_twice", messages=3).run(until="3m")
    series = {s.name: s.points for s in run_summary(lab.trace, until_ms=lab.now)}
    assert series == {
        "new messages stored": ((0, 0), (1000, 1), (1010, 2), (1020, 3), (180_000, 3)),
        "deliveries": ((0, 0), (1000, 1), (1010, 2), (1020, 3), (90_000, 6), (120_000, 9), (180_000, 9)),
        "consumed": ((0, 0), (120_000, 3), (180_000, 3)),
        "failed deliveries": ((0, 0), (1000, 1), (1010, 2), (1020, 3), (90_000, 6), (180_000, 6)),
    }
    assert run_markers(lab.trace) == [Marker(3000, "c1 crash"), Marker(90_000, "c1 restarts")]
    storm = demo_lab(fault="broker_down", listener="fail_all", messages=2).run(until="2m")
    assert run_markers(storm.trace) == [Marker(5000, "broker_down broker-a"), Marker(65_000, "broker_up broker-a")]
    fig = summary_chart(lab)
    assert [t.name for t in fig.data] == list(series)
    assert list(fig.data[2].x) == [0.0, 120.0, 180.0]  # the Lab's clock ends the lines
    assert [a.text for a in fig.layout.annotations] == ["c1 crash", "c1 restarts"]
    assert [s.x0 for s in fig.layout.shapes] == [3.0, 90.0]
    assert {t.mode for t in fig.data} == {"lines+markers"} and fig.layout.yaxis.type is None
    hung = summary_chart(payments(max_reconsume_times=-1).run(until="10m"), log_y=True)
    assert hung.layout.yaxis.type == "log"
    assert [(t.name, t.mode, t.y[-1]) for t in hung.data] == [
        ("new messages stored", "lines+markers", 5), ("deliveries", "lines", 600), ("consumed", "lines+markers", 2),
        ("failed deliveries", "lines", 598),
    ]  # fmt: skip


def test_output_is_the_same_bytes_every_time() -> None:
    """A chart shows plotly JSON plus HTML whose div id is the figure's hash, never plotly's uuid."""
    lab = five_messages().run(until="2m")
    first, second = (lag_chart(lab)._repr_mimebundle_() for _ in range(2))
    assert first == second
    assert sorted(first) == ["application/vnd.plotly.v1+json", "text/html"]
    ids = re.findall(r'<div id="([^"]+)"', first["text/html"])
    assert len(ids) == 1 and re.fullmatch(r"rmqlab-chart-[0-9a-f]{12}", ids[0])
    assert first["application/vnd.plotly.v1+json"]["data"][2]["y"] == [0, 1, 2, 3, 4, 4, 0, 0]
    other = lag_chart(lab, theme="dark")._repr_mimebundle_()
    assert re.findall(r'<div id="([^"]+)"', other["text/html"]) != ids


def test_a_chart_leaves_plotlys_renderers_alone() -> None:
    """Drawing a chart neither changes plotly's default renderer nor imports its renderer registry (which pulls in
    nbformat and jsonschema's URI grammar, a second and a half in every kernel)."""
    script = (
        "import sys\n"
        "from rmqlab.widgets import demo_lab\n"
        "from rmqlab.widgets.charts import lag_chart\n"
        "lag_chart(demo_lab(messages=2).run(until='1m'))._repr_mimebundle_()\n"
        "print(sorted(m for m in ('plotly.io._renderers', 'nbformat', 'jsonschema') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="run=str: must be a Lab or its Trace"):
        lag_chart("lab05")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="theme='sepia': must be 'light' or 'dark'"):
        summary_chart(five_messages().run(until="1s"), theme="sepia")  # type: ignore[arg-type]


def test_plotly_is_the_charts_alone() -> None:
    """plotly is declared for the charts; the step views stay SVG scenes, and only the charts module imports it."""
    importers = [p.name for p in [*ROOT.glob("widgets/*.py")]
                 if re.search(r"^\s*(import|from)\s+plotly", p.read_text(), re.M)]  # fmt: skip
    assert importers == ["charts.py"]
    assert not isinstance(lag_chart(five_messages().run(until="1s")), go.FigureWidget)


def english_left(texts: list[str]) -> list[str]:
    """What reads as English in ``texts`` once RocketMQ's identifiers, ids, names and units are taken out."""
    kept = re.compile(r"%RETRY%\S*|%DLQ%\S*|TopicTest\S*|maxReconsumeTimes|Broker|broker-a|\bc[g1]\b|M\d{4}|<br>|"
                      r"\b(ms|s|m|h|t)\b")  # fmt: skip
    return [text for text in texts if re.search(r"[A-Za-z]{2,}", kept.sub("", text))]


def test_every_word_of_the_charts_in_chinese_and_the_data_unchanged() -> None:
    """``set_language("zh")``: titles, axes, legend names, hover texts and the crash / restart markers in Chinese;
    the numbers, queues, groups and RocketMQ's identifiers as they are; a caller's own title kept."""
    lab = demo_lab(fault="consumer_crash", listener="fail_twice", messages=3).run(until="3m")
    points = [DlqPoint(0, 1, 0, 1), DlqPoint(2, 3, 40_000, 3), DlqPoint(16, 13, None, None)]

    def charts() -> list[go.Figure]:
        return [lag_chart(lab), summary_chart(lab, log_y=True), deliveries_chart(lab), time_to_dlq_chart(points)]

    english = charts()
    rmqlab.set_language("zh")
    try:
        lag, summary, deliveries, dlq = chinese = charts()
        own = deliveries_chart(lab, title="My own title").layout.title.text
    finally:
        rmqlab.set_language(None)
    for en, zh in zip(english, chinese, strict=True):
        assert [(t.x, t.y) for t in zh.data] == [(t.x, t.y) for t in en.data]
        words = [zh.layout.title.text, zh.layout.xaxis.title.text, zh.layout.yaxis.title.text,
                 *(t.name for t in zh.data), *(a.text for a in zh.layout.annotations),
                 *(str(h) for t in zh.data for h in (*(t.hovertext or ()), *(t.text or ())))]  # fmt: skip
        assert english_left(words) == [], words
    assert lag.layout.title.text == "各队列的消费堆积（队列最大位点 − 已提交的消费位点）"
    assert (lag.layout.xaxis.title.text, lag.layout.yaxis.title.text) == ("虚拟时间（s）", "堆积的消息数")
    assert lag.data[2].name == "cg · TopicTest@broker-a:0（Broker 端的消费位点）"
    assert lag.data[2].hovertext[1] == "t = 1.020 s<br>队列最大位点 2，已提交的消费位点 2（客户端 2）"
    assert [t.name for t in summary.data] == ["新存储的消息", "投递次数", "消费成功", "消费失败"]
    assert summary.layout.yaxis.title.text == "累计次数（对数刻度）"
    assert [a.text for a in summary.layout.annotations] == ["c1 崩溃", "c1 重启"]
    assert [t.name for t in deliveries.data] == ["消费成功"] and deliveries.layout.xaxis.title.text == "消息"
    assert deliveries.data[0].hovertext[0] == "M0001（cg）：投递 3 次，消费成功"
    assert [t.name for t in dlq.data] == ["进入死信队列", "到运行结束仍未进入死信队列"]
    assert dlq.data[0].hovertext[1] == "最大重试次数 2：投递 3 次后，于 40 s（40000 ms）进入死信队列"
    assert (dlq.layout.xaxis.title.text, list(dlq.data[1].text)) == ("maxReconsumeTimes", ["仍在重试"])
    assert own == "My own title"
