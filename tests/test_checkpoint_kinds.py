"""Two checkpoints the student review found answerable from the picture, and what now asks them (issue 30).

- Lab 06, "stored anyway?" (graded 06.3): the picture offered only queues, so a student could click nothing but where
  the message went. A send question now offers "send fails, not stored", drawn next to the producer (a placeholder
  until a send fails), answered once the send is over: a queue when the broker stored it, that place when nothing
  could.
- Lab 08, "does a BROADCASTING consumer subscribe %RETRY%cg?" (graded 08.3): no where/who/when asks a yes/no. The
  "whether" kind asks it with two buttons, its truth computed by the lab's predicate on the run after the pause.

View-model level: the labs' own dashboards (``test_lab_pictures``) and small runs through ``build_run``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from rmqlab.widgets.checkpoint_gate import gate
from rmqlab.widgets.checkpoint_whether import owns
from rmqlab.widgets.checkpoints import Checkpoint
from rmqlab.widgets.flow_view import FlowView
from rmqlab.widgets.frames import RunFrames, build_run
from test_lab_pictures import LABS, _dashboards_of

from rmqlab import EventKind, Lab, Message


def _checkpoint(lab: str, name: str) -> tuple[Any, Any]:
    for dash in _dashboards_of(LABS / lab):
        for cp in dash.controller.checkpoints:
            if cp.name == name:
                return dash, cp
    raise AssertionError(f"{lab} has no checkpoint {name!r}")


def _token_place(frames: RunFrames, frame: int, msg_id: str) -> str:
    vm = FlowView().model(frames.snapshots[frame])
    (place,) = {t.place for t in vm.tokens if t.msg_id == msg_id}
    return place


# ---------------------------------------------------------------- send fails, not stored


def test_lab06_offers_send_fails_not_stored_as_a_place_in_the_picture() -> None:
    dash, cp = _checkpoint("06_ordered_send.py", "stored anyway?")
    frames = dash.controller.frames
    fails = next(c for c in cp.choices if c.key == "failed:pg")
    assert (fails.label, fails.mark) == ("send fails, not stored", "place:failed:pg")
    view = next(v for v in dash.views if isinstance(v, FlowView))
    drawn = {p.key: p for p in frames.models(view)[cp.frame].places}
    assert drawn["failed:pg"].placeholder and drawn["failed:pg"].column == "producers"
    marks = {m.key: m for m in frames.scenes(view)[cp.frame].marks}
    assert "rq-placeholder" in (marks["place:failed:pg"].cls or "")
    assert marks["label:failed:pg"].text == "send fails, not stored"
    assert all(c.mark in marks for c in cp.choices)  # every answer is a click in the picture
    right, hint = cp.check("failed:pg")  # the lab's own hint (revD defect 8): the one attempt and its timeout
    assert not right and "one attempt" in hint and "3000 ms" in hint and "round robin" not in hint


def test_lab06_answer_is_where_the_engine_has_the_message_once_the_send_is_over() -> None:
    dash, cp = _checkpoint("06_ordered_send.py", "stored anyway?")
    frames = dash.controller.frames
    trace = list(frames.snapshots[-1].events)
    stored = next(e for e in trace if e.kind is EventKind.STORED and e.msg_id == "M0001")
    failed = next(e for e in trace if e.kind is EventKind.SEND_FAILED and e.msg_id == "M0001")
    assert "RemotingTimeoutException" in str(failed.get("error"))  # the producer gave up …
    assert cp.answer == f"queue:TopicTest@{stored.actor}:{stored.get('queue_id')}" == "queue:TopicTest@broker-a:3"
    over = next(i for i, p in enumerate(frames.positions) if p >= failed.seq)
    assert _token_place(frames, over, "M0001") == cp.answer  # … and the broker had stored it
    assert frames.positions[cp.frame] < stored.seq  # the paused picture has not shown the store


def _down_lab() -> Lab:
    """broker-a is down (still in the producer's cached route, read by the warm-up M0001) when M0002, a selector
    send, goes to its queue 0."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg")
    lab.at("500ms", p.send, Message("TopicTest", "warm-up"))
    lab.at("1s", lab.broker_down, "broker-a")
    lab.at("2s", p.send_with_selector, Message("TopicTest", "x"), lambda mqs, msg, arg: mqs[0], 0)
    return lab


def test_send_fails_not_stored_is_right_when_the_engine_stores_nothing() -> None:
    asked = Checkpoint(before="send_attempt", msg_id="M0002", ask="where")
    frames = build_run(_down_lab, horizon="10s", checkpoints=[asked])
    (cp,) = frames.checkpoints
    assert not [e for e in frames.snapshots[-1].events if e.kind is EventKind.STORED and e.msg_id == "M0002"]
    assert cp.answer == "failed:pg" == _token_place(frames, len(frames) - 1, cp.event.msg_id)
    right, explain = cp.check("failed:pg")
    assert right and explain.startswith("Right: send fails, not stored.")
    right, hint = cp.check("queue:TopicTest@broker-a:0")
    assert not right and "cannot reach a broker that can store it" in hint


# ---------------------------------------------------------------- whether


def test_lab08_asks_whether_c1_subscribes_the_retry_topic_with_two_buttons() -> None:
    dash, cp = _checkpoint("08_broadcasting_vs_clustering.py", "whether c1 subscribes %RETRY%cg")
    frames = dash.controller.frames
    assert cp.ask == "whether"
    assert [(c.key, c.label, c.mark) for c in cp.choices] == [("yes", "yes", ""), ("no", "no", "")]
    after = next(i for i, p in enumerate(frames.positions) if p >= cp.event.seq)
    c1 = next(c for c in frames.snapshots[after].consumers if c.client_id == "c1")
    topics = {pq.queue.split("@")[0] for pq in c1.process_queues}
    assert c1.message_model == "BROADCASTING" and topics == {"TopicTest"} and cp.answer == "no"
    right, hint = cp.check("yes")
    assert not right and "copySubscription" in hint
    right, explain = cp.check("no")
    assert right and explain.startswith("Right: no.")
    as_json = cp.to_json()
    assert as_json["ask"] == "whether" and [c["key"] for c in as_json["choices"]] == ["yes", "no"]
    # the same gate as every question: no move forward passes it unanswered; it counts in the score
    assert gate(frames, (), frames.positions[0], frames.positions[-1]) == frames.positions[cp.frame]
    assert dash.controller.score["checkpoints"] == len(dash.controller.checkpoints) == 2


def _group(model: str) -> Lab:
    """Group cg, c1 and c2, in ``model``; one message at 1 s."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    p = lab.add_producer("pg")
    for name in ("c1", "c2"):
        lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda msgs, ctx: None, name=name,
                         message_model=model)
    lab.at("1s", p.send, Message("TopicTest", "config changed"))
    return lab


def test_a_whether_answer_is_the_runs_not_the_labs() -> None:
    """Lab 08's checkpoint on a CLUSTERING run answers "yes", on a BROADCASTING run "no": the predicate reads the
    engine; and the paused pictures of the two runs say the same (nothing has started)."""
    _dash, _asked = _checkpoint("08_broadcasting_vs_clustering.py", "whether c1 subscribes %RETRY%cg")
    spec = next(c for c in _dash.controller.checkpoint_specs if c.ask == "whether")
    answers, paused = {}, {}
    for model in ("CLUSTERING", "BROADCASTING"):
        frames = build_run(functools.partial(_group, model), horizon="5s", checkpoints=[spec])
        (cp,) = frames.checkpoints
        answers[model] = cp.answer
        view = FlowView()
        paused[model] = {m.text for m in frames.scenes(view)[cp.frame].marks if m.text and "RETRY" in m.text}
    assert answers == {"CLUSTERING": "yes", "BROADCASTING": "no"}
    assert paused["CLUSTERING"] == paused["BROADCASTING"]


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"ask": "whether", "question": "Does it?"}, "holds="),
        ({"ask": "whether", "holds": lambda t, s: True}, "question="),
        ({"ask": "where", "holds": lambda t, s: True}, "holds="),
    ],
)
def test_a_whether_checkpoint_needs_its_predicate_and_its_question(kwargs: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        Checkpoint(before="rebalanced", **kwargs)


def test_a_predicate_that_answers_no_bool_is_an_error_naming_the_checkpoint() -> None:
    cp = Checkpoint(before="rebalanced", ask="whether", question="Q?", holds=lambda t, s: "yes", name="odd")  # type: ignore[arg-type,return-value]
    with pytest.raises(ValueError, match="checkpoint 'odd': holds returned 'yes'"):
        build_run(_down_lab_with_consumer, horizon="3s", checkpoints=[cp])


def _down_lab_with_consumer() -> Lab:
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=lambda msgs, ctx: None, name="c1")
    return lab


def test_owns_names_the_consumers_there_are() -> None:
    frames = build_run(_down_lab_with_consumer, horizon="3s")
    assert owns(frames.snapshots[-1], "c1", "TopicTest") and not owns(frames.snapshots[0], "c1", "TopicTest")
    with pytest.raises(KeyError, match="the run has \\['c1'\\]"):
        owns(frames.snapshots[-1], "c9", "TopicTest")


# ---------------------------------------------------------------- the student copy


def test_the_student_copy_of_labs_05_06_08_states_none_of_these_answers(tmp_path: Path) -> None:
    """The student copy (``labs/make_student.py``, both languages) states no answer of these labs' checkpoints: no
    answer key or right label, no "when" answer in seconds (lab 05's Exercise 3 said "`slow` finished at 62 s" and
    its chart note "pins the commit at 1"; lab 06's note under 06.3 said a re-send "adds a duplicate"), and no
    "Right: no" / "Right: yes" of a yes/no question."""
    import nbformat
    from lab_tools import load_lab_tool
    from test_checkpoint_truth import _stated
    from test_lab_checkpoint_facts import _dashboards_of as dashboards_in_language

    make_student = load_lab_tool("make_student.py")
    told = []
    for folder in (LABS, LABS / "zh"):
        out = tmp_path / folder.name
        assert make_student.main([str(folder), str(out)]) == 0
        for stem in ("05_offsets_process_queue", "06_ordered_send", "08_broadcasting_vs_clustering"):
            answers: set[str] = set()
            for dash in dashboards_in_language(folder / f"{stem}.py"):
                for cp in dash.controller.checkpoints:
                    label = next(c.label for c in cp.choices if c.key == cp.answer)
                    if cp.ask == "whether":
                        answers |= {f"Right: {label}", f"答对了：{label}"}
                    else:
                        answers |= {cp.answer, label}
                    if cp.ask == "when":
                        answers.add(f"{int(cp.answer) / 1000:g} s")
            cells = nbformat.read(out / f"{stem}.ipynb", as_version=4).cells
            told += [(folder.name, stem, a) for a in _stated([c.source for c in cells], answers)]
            told += [(folder.name, stem, "commit at 1") for c in cells if "commit at 1" in c.source]
            told += [(folder.name, stem, "adds a duplicate") for c in cells
                     if c.cell_type == "markdown" and "adds a" in c.source]  # fmt: skip
    assert told == []
