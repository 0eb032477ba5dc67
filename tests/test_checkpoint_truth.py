"""Every hint and explanation a checkpoint of labs 00–04 shows is true of the run it is shown in (issue 30, stop 33).

The student review found hints written for another run: lab 00 told a consumer that had not started yet "not at once"
(c2 rebalances the moment it starts), lab 02b called the 5 s local retry after a failed send-back a broker's delay
level, and the "Right:" texts repeated the caption. Read from the checkpoints as the labs resolve them (the engine's
answer, the run's trace), never from cell positions:

- every number a question, hint or explanation quotes (a duration, a count, a level, a queue) is a number of the
  run: an event's time or data, a time between two of its events (or a 04:00 deletion window of a run that long),
  or one of RocketMQ's own constants that the text names (the delay table, ``latencyMax``, the 20 s rebalance
  period, ``fileReservedTime`` …);
- a message whose send-back failed is never said to be held by the broker at a delay level;
- an instance that has not started is never told "not at once";
- a right answer's explanation gives the mechanism (a source name and this run's numbers), not the caption again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from test_lab_pictures import _dashboards_of

from rmqlab import DEFAULT_MESSAGE_DELAY_LEVEL, DelayLevelTable, TraceEvent
from rmqlab.client.producer.latency_fault_tolerance import LATENCY_MAX, NOT_AVAILABLE_DURATION

LABS = Path(__file__).resolve().parent.parent / "labs"
MINE = ("00_tour", "01a_send_retry", "01b_send_status_timeout", "02a_consume_failure_send_back",
        "02b_send_back_failures", "03_delay_levels_schedule", "04_dead_letter_queue")  # fmt: skip
SOURCES = [LABS / f"{n}.py" for n in MINE] + [LABS / "zh" / f"{n}.py" for n in MINE]

DELAYS = DelayLevelTable(DEFAULT_MESSAGE_DELAY_LEVEL)
CONSTANT_MS = {
    *(DELAYS.delay_ms(level) for level in range(1, DELAYS.max_level + 1)),  # messageDelayLevel
    *LATENCY_MAX, *NOT_AVAILABLE_DURATION,  # MQFaultStrategy
    20_000,  # RebalanceService.waitInterval; lock renewal (lockAll) period
    5_000,  # ConsumeMessageConcurrentlyService.submitConsumeRequestLater
    30_000, 60_000,  # route poll; a client's lock trust; the broker's lock lease
    1_000,  # an orderly consumer's default suspendCurrentQueueTimeMillis
    72 * 3_600_000, 24 * 3_600_000,  # fileReservedTime; deleteWhen's hour comes once a day (CleanCommitLogService)
}
"""Durations RocketMQ 4.9.7 fixes in its source, which a hint may name as the rule (not as this run's number)."""
CONSTANT_INTS = {3, 16, 18}
"""Delay level 3 + reconsumeTimes; maxReconsumeTimes -1 → 16; the 18 delay levels."""
DAY_MS, DELETE_WHEN_MS = 86_400_000, 4 * 3_600_000
"""deleteWhen "04": a run past 04:00 has the broker's deletion windows among its clock times."""
UNITS = {"d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1_000, "ms": 1, "秒": 1_000, "分": 60_000}
RANK = {"d": -1, "h": 0, "m": 1, "分": 1, "s": 2, "秒": 2, "ms": 3}
DURATION = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?(ms|d|h|m|s|秒|分)(?![A-Za-z])")


def durations_in(text: str) -> list[int]:
    """The durations ``text`` quotes, in ms; "1 m 10 s" is one (units in falling order, only spaces between)."""
    out: list[int] = []
    last_end, last_rank = -2, -1
    for m in DURATION.finditer(text):
        value, unit = float(m.group(1)), m.group(2)
        joined = text[last_end : m.start()].strip() == "" and RANK[unit] > last_rank and out
        ms = round(value * UNITS[unit])
        if joined:
            out[-1] += ms
        else:
            out.append(ms)
        last_end, last_rank = m.end(), RANK[unit]
    return out


def integers_in(text: str) -> list[int]:
    """The bare integers ``text`` quotes, without its durations, message ids (M0002), queue names (TopicTest:2) and
    message bodies (lab 04's "refund 17", "Order 19": names)."""
    text = DURATION.sub(" ", text)
    text = re.sub(r"\bM\d{4}\b|[\w%\-]+:\d+|\b\d+(?:st|nd|rd|th)\b|(?:[Rr]efund|[Oo]rder|退款|订单) \d+", " ", text)
    return [int(n) for n in re.findall(r"(?<![\w.])\d+(?![\w.])", text)]


def run_numbers(trace: list[TraceEvent]) -> tuple[set[int], set[int]]:
    """(durations in ms, integers) of a run: its events' times and the times between them, their data's numbers."""
    horizon = max((e.time_ms for e in trace), default=0)
    windows = {day * DAY_MS + DELETE_WHEN_MS for day in range(horizon // DAY_MS + 1)}  # CleanCommitLogService runs
    times = sorted({e.time_ms for e in trace} | (windows if horizon > DELETE_WHEN_MS else set()))
    spans = set(times) | {b - a for i, a in enumerate(times) for b in times[i + 1 :]}
    ints: set[int] = set(CONSTANT_INTS)
    for e in trace:
        for key, value in e.data.items():
            for v in value if isinstance(value, list | tuple) else [value]:
                if isinstance(v, int) and not isinstance(v, bool):
                    ints.add(v)
                    if key.endswith("_ms") or key in ("not_available_until",):
                        spans.add(v)
                        spans.add(v - e.time_ms)
            if isinstance(value, list | tuple):
                ints.add(len(value))
    return spans | CONSTANT_MS, ints | {t // 1000 for t in spans if t % 1000 == 0}


_TRACES: dict[int, list[TraceEvent]] = {}


def trace_of(dash: Any) -> list[TraceEvent]:
    """The whole run of ``dash`` (a fresh Lab from its factory, run to its horizon), once per dashboard."""
    if id(dash) not in _TRACES:
        lab = dash._factory()()
        lab.run(until=dash.controller.horizon)
        _TRACES[id(dash)] = list(lab.trace)
    return _TRACES[id(dash)]


def _asked() -> Iterator[tuple[str, Any, Any]]:
    for source in SOURCES:
        for dash in _dashboards_of(source):
            for cp in dash.controller.checkpoints:
                yield f"{source.parent.name}/{source.stem}", dash, cp


def _texts(cp: Any) -> list[tuple[str, str]]:
    wrong = [(f"hint of {c.key}", cp.hint_for(c.key)) for c in cp.choices if c.key != cp.answer]
    return [("question", cp.question), ("explain", cp.explain), ("hint", cp.hint), *wrong]


def test_every_number_a_checkpoint_quotes_is_the_runs() -> None:
    """For every checkpoint of labs 00–04 (both languages), each duration and each integer its question, hints and
    explanation quote is one of the run's (or a constant of RocketMQ the text names as the rule)."""
    false: list[tuple[str, str, str, str]] = []
    seen = 0
    for lab, dash, cp in _asked():
        spans, ints = run_numbers(trace_of(dash))
        for where, text in _texts(cp):
            seen += 1
            false += [(lab, cp.name, where, f"{ms} ms") for ms in durations_in(text) if ms not in spans]
            false += [(lab, cp.name, where, str(n)) for n in integers_in(text) if n not in ints]
    assert seen > 100
    assert false == []


def test_the_number_check_finds_a_false_number() -> None:
    """The check above can fail: a made-up 7 s wait and level 9, and the parser reads compound and CJK durations."""
    spans, ints = run_numbers([])
    assert durations_in("returns in 1 m 10 s, at t = 2 s; 1s 5s; 600 ms; 30 秒") == [70_000, 2_000, 1_000, 5_000,
                                                                                      600, 30_000]
    assert integers_in("level 9 of TopicTest:3, M0002, its 2nd try 4") == [9, 4]
    assert 7_000 not in spans and 9 not in ints


def _send_back_failed(trace: list[TraceEvent], event: TraceEvent) -> bool:
    backs = [e for e in trace[: event.seq - 1] if e.msg_id == event.msg_id
             and e.kind.value in ("send_back", "send_back_fallback")]  # fmt: skip
    return bool(backs) and not backs[-1].get("ok")


def says_the_broker_holds_it(text: str) -> bool:
    """A claim that the broker keeps the message at a delay level (false when the send-back failed)."""
    return re.search(r"broker holds it|holds it for its delay level|Broker 持有|parks it", text) is not None


def test_a_failed_send_back_is_never_called_a_delay_level() -> None:
    """Lab 02b: the send-back failed (a partition), so the next delivery is the consumer's own 5 s local retry
    (submitConsumeRequestLater). No hint says the broker holds it; the explanation names the local retry and its
    5 s, and says no delay level is involved."""
    asked = [(lab, dash, cp) for lab, dash, cp in _asked()
             if cp.event.kind.value == "delivered" and _send_back_failed(trace_of(dash), cp.event)]
    assert {lab for lab, _, _ in asked} == {"labs/02b_send_back_failures", "zh/02b_send_back_failures"}
    for lab, _, cp in asked:
        assert [w for w, t in _texts(cp) if says_the_broker_holds_it(t)] == [], (lab, cp.name)
        assert "submitConsumeRequestLater" in cp.explain and "5 s" in cp.explain, (lab, cp.explain)
    assert says_the_broker_holds_it("A concurrent consumer sends the message back, and the broker holds it for its "
                                    "delay level.")  # stop 32's hint, now false for this run


def test_an_instance_that_has_not_started_is_not_told_not_at_once() -> None:
    """Lab 00: paused at 1 s, c2 starts at 2 s and rebalances at once (start → rebalanceImmediately). The paused
    moment's choice says c2 is not running yet, not "not at once"."""
    (_, dash, cp), *_ = [(lab, d, cp) for lab, d, cp in _asked() if lab == "labs/00_tour" and cp.ask == "when"]
    now = str(dash.controller.frames.now_ms[cp.frame])
    assert cp.answer == "2000" and now == "1000"
    said = cp.hint_for(now)
    assert "not running yet at 1 s" in said and "Not at once" not in said


def test_lab_00_offers_the_period_its_exercise_names() -> None:
    """Lab 00's "when does c1 take c2's queues back" (c2 leaves at 45 s): the "it waits for its period" misreading is
    c1's first 20 s tick after the event (22 s → 42 s → 62 s), the 62 s exercise 2 names, not the paused clock + 20 s
    (revE defect 8: it offered 1 m 1 s); a consumer with no rebalance yet (c2 at its start) keeps the paused + 20 s."""
    asked = [cp for lab, _d, cp in _asked() if lab == "labs/00_tour" and cp.ask == "when"]
    back = next(cp for cp in asked if cp.answer == "45000")
    assert "62000" in [c.key for c in back.choices] and "61000" not in [c.key for c in back.choices]
    hints = {c.key: c.hint for cp in asked for c in cp.choices}  # the choices' own (lab 00 gives a question hint)
    assert hints["62000"].startswith("Too late. That is c1's next periodic rebalance (every 20 s)")
    assert hints["21000"].startswith("Too late. A consumer that starts")


def test_a_right_answer_is_explained_not_restated() -> None:
    """Every checkpoint of labs 00–04 explains its right answer with the mechanism: the explanation is not the
    answer step's caption, it names RocketMQ's code (a class or method) and quotes a number of this run."""
    poor = []
    for lab, dash, cp in _asked():
        after = next(i for i, p in enumerate(dash.controller.frames.positions) if p >= cp.event.seq)
        plain = dash.controller.frames.captions[after][0]
        code = re.search(r"\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*", cp.explain.split(".", 1)[-1])
        if plain in cp.explain or code is None or not re.search(r"\d", cp.explain.split(".", 1)[-1]):
            poor.append((lab, cp.name, cp.explain))
    assert poor == []


def test_lab_01b_asks_on_its_first_picture_and_faults_only_what_the_caption_names() -> None:
    """Lab 01b's first dashboard asks where the next send goes after a FLUSH_DISK_TIMEOUT (the round robin's next
    queue: a status is not a failure), and only broker-a, the broker its first caption names, answers with a "!"."""
    first = _dashboards_of(LABS / "01b_send_status_timeout.py")[0]
    (cp,) = first.controller.checkpoints
    assert (cp.event.msg_id, cp.answer) == ("M0002", "queue:TopicTest@broker-a:2")
    frames = first.controller.frames
    faulted = {e.actor for e in trace_of(first) if e.kind.value == "fault" and e.get("put_status")}
    assert faulted == {"broker-a"} and "broker-a" in frames.captions[0][0]
    flagged = {t.place.split("@")[-1].split(":")[0] for vm in frames.models(first.main_view) for t in vm.tokens
               if t.put_status}  # fmt: skip
    assert flagged == {"broker-a"}


def test_no_visible_cell_tells_a_checkpoint_answer() -> None:
    """The words a lab gives a right answer ("Right: …", the answer keys they belong to) tell the answer: they are
    only in folded cells (``source_hidden``), not in the Dashboard cell a student reads while the picture asks."""
    told = []
    for source in SOURCES:
        for cell in re.split(r"(?m)^(?=# %%)", source.read_text()):
            header = cell.split("\n", 1)[0]
            if re.search(r'"(?:Right: |对：)', cell) and '"source_hidden": true' not in header:
                told.append((source.name, header))
            if "Dashboard(" in cell and re.search(r'explain=\{|explain="', cell):
                told.append((source.name, "an answer key or text in the Dashboard cell"))
    assert told == []


ASKED_IN_FOLDS = MINE[:5]
"""Labs 00–02b, whose checkpoints' words sit in a folded cell before the picture (labs 03 and 04 have their own)."""


def _answers(source: Path) -> set[str]:
    """Each checkpoint's answer as the lab's picture has it: its key (``queue:TopicTest@broker-b:0``, ``7000``) and
    its button's label in the lab's language (``TopicTest:0 · broker-b``, ``t = 7 s``). A "who" answer is left out:
    it is the name of an instance the lab builds (``broker-b``, ``c2``), and every one of its choices is named in
    the lab's code just as much, so naming it tells nothing."""
    from test_lab_checkpoint_facts import _dashboards_of as dashboards_in_language

    out = set()
    for dash in dashboards_in_language(source):
        for cp in dash.controller.checkpoints:
            if cp.ask != "who":
                out |= {cp.answer, next(c.label for c in cp.choices if c.key == cp.answer)}
    return out


def _stated(sources: list[str], answers: set[str]) -> list[str]:
    """The answers that ``sources`` (cells' code and Markdown) state, each as a whole word."""
    text = "\n".join(sources)
    return sorted(a for a in answers if re.search(rf"(?<![\w.,:@-]){re.escape(a)}(?![\w])", text))


def test_the_student_copy_states_no_checkpoint_answer(tmp_path: Path) -> None:
    """Issue 30, stop 33 review: labs 00–02b kept each checkpoint's explanation in a folded cell keyed by its answer
    (``WHY_B0 = {"queue:TopicTest@broker-b:0": …}``, lab 02b's ``"7000"``), which a student opens with one click.
    No cell of the student copy (``labs/make_student.py``, both languages) states a checkpoint's answer key or the
    label of its right button: the words name the answer only as ``{answer}``-style fields filled in by the run."""
    import nbformat
    from lab_tools import load_lab_tool

    make_student = load_lab_tool("make_student.py")
    told = []
    for folder in (LABS, LABS / "zh"):
        out = tmp_path / folder.name
        assert make_student.main([str(folder), str(out)]) == 0
        for name in ASKED_IN_FOLDS:
            answers = _answers(folder / f"{name}.py")
            assert answers, name
            cells = nbformat.read(out / f"{name}.ipynb", as_version=4).cells
            told += [(folder.name, name, a) for a in _stated([c.source for c in cells], answers)]
    assert told == []


def test_the_answer_search_finds_an_answer_keyed_explanation() -> None:
    """The check above can fail: lab 01a's folded cell as it was, and lab 02b's, state their answers."""
    old_01a = 'WHY_B0 = {  # by the answer it explains\n    "queue:TopicTest@broker-b:0": ("Right: {answer}. …"),\n}'
    old_02b = 'WHY_LOCAL = {\n    "7000": ("Right: {answer}. …"),\n}'
    answers = {"queue:TopicTest@broker-b:0", "TopicTest:0 · broker-b", "7000", "t = 7 s"}
    assert _stated([old_01a, old_02b], answers) == ["7000", "queue:TopicTest@broker-b:0"]
    assert _stated(["TopicTest:0 · broker-b2", "17000 ms", "{answer}"], answers) == []


def test_lab_02a_asks_on_its_first_picture_where_the_failed_message_goes() -> None:
    """Lab 02a's first picture (the listener that throws) asked nothing: its section's question ("acknowledged, or
    sent back?") was asked in cells only. It now pauses before the first send-back and asks where M0001 is after the
    listener's answer: parked at the delay level the broker picks (3 + reconsumeTimes 0), not consumed, not in the
    queue; the hint is the lab's own (the exception counts as RECONSUME_LATER), the explanation the run's level and
    due time, and the paused frame's caption names neither."""
    first = _dashboards_of(LABS / "02a_consume_failure_send_back.py")[0]
    (cp,) = first.controller.checkpoints
    assert (cp.event.kind.value, cp.event.msg_id, cp.ask, cp.answer) == ("send_back", "M0001", "where",
                                                                        "delay:broker-a:3")  # fmt: skip
    scheduled = next(e for e in trace_of(first) if e.kind.value == "scheduled" and e.msg_id == "M0001")
    assert scheduled.get("level") == 3 and cp.lab_hint and "RECONSUME_LATER" in cp.hint
    assert "EXCEPTION" in cp.question and {"done:cg", "pq:c1:TopicTest@broker-a:0"} <= {c.key for c in cp.choices}
    assert "= 3, due at 11 s" in cp.explain and scheduled.get("due_ms") == 11_000
    paused = " ".join(first.controller.frames.captions[cp.frame])
    assert "10 s" not in paused and "level" not in paused and "goes back" not in paused


def test_lab_03_asks_where_late_goes_before_the_restart_shows_it() -> None:
    """revA: the crash question was asked after the picture drew M0001 back at "level 2 · due now". It now pauses
    before broker-a restarts (12 s), while the answer (c1 gets M0001 again) is a step away."""
    asked = [(d, cp) for lab, d, cp in _asked() if lab.endswith("03_delay_levels_schedule") and cp.ask == "where"
             and cp.event.kind.value == "delay_delivered" and cp.event.msg_id == "M0001"]  # fmt: skip
    assert len(asked) == 2  # English and Chinese
    for dash, cp in asked:
        assert dash.controller.frames.now_ms[cp.frame] < 12_000 <= cp.event.time_ms
        assert cp.answer == "pq:c1:TopicTest@broker-a:0"
