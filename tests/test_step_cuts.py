"""A checkpoint can pause between two events of one scheduler step: a SYNC send's failed try 1 and its try 2.

4.9.7 ``DefaultMQProducerImpl.sendDefaultImpl`` makes every try of a SYNC send in the caller's thread, one after the
other, and a connection to a broker that is down fails at once: the engine runs them in one scheduler step, so the
dashboard had no frame between them and lab 01a's question had to state try 1's failure in its text (issue 30).
A checkpoint with ``inside_step=True`` makes the replay cut that step right before its event, with the engine's own
state there (:mod:`rmqlab.widgets.replay_cuts`); the run itself is the same, event for event.
"""

from __future__ import annotations

from rmqlab.widgets import Checkpoint, Controller
from rmqlab.widgets.frames import build_run
from rmqlab.widgets.replay import Replay
from test_checkpoint_truth import LABS, trace_of
from test_lab_pictures import _dashboards_of

from rmqlab import EventKind as K
from rmqlab import Lab, Message

TRY_2 = Checkpoint(before="send_attempt", msg_id="M0002", nth=2, ask="where", inside_step=True, name="try 2")


def broker_a_dies() -> Lab:
    """Lab 01a's first picture, small: the route is cached at 1 s, broker-a dies at 2 s, M0002 is sent at 3 s."""
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.add_broker("broker-b")
    lab.create_topic("TopicTest")
    p = lab.add_producer("pg", send_which_queue_start=0)
    lab.at("1s", p.send, Message("TopicTest", "warm-up"))
    lab.at("2s", lab.broker_down, "broker-a")
    lab.at("3s", p.send, Message("TopicTest", "m1"))
    lab.at("4s", p.send, Message("TopicTest", "m2"))
    return lab


def _stored(snap: object) -> set[str]:
    return {c.msg_id for q in snap.queues for c in q.cells if c.msg_id}  # type: ignore[attr-defined]


def test_a_cut_is_a_frame_between_the_tries_with_the_engines_state_there() -> None:
    plain = build_run(broker_a_dies, horizon="6s")
    cut = build_run(broker_a_dies, horizon="6s", checkpoints=[TRY_2])
    trace = Replay(broker_a_dies, horizon="6s")
    trace.run_to_end()
    events = list(trace.lab.trace)
    tries = [e for e in events if e.kind is K.SEND_ATTEMPT and e.msg_id == "M0002"]
    assert [(e.get("attempt"), e.get("broker"), e.time_ms) for e in tries] == [
        (1, "broker-a", 3000),
        (2, "broker-b", 3000),
    ]
    at = tries[1].seq - 1  # the events before try 2
    assert at not in plain.positions  # without the cut: try 1 and try 2 are one step
    assert cut.positions == sorted([*plain.positions, at])  # with it: one frame more, between them, and no other
    i = cut.positions.index(at)
    shown = events[cut.positions[i - 1] : at]
    assert [(e.kind, e.get("attempt")) for e in shown if e.msg_id == "M0002"] == [
        (K.SEND_ATTEMPT, 1),
        (K.SEND_RESULT, 1),
    ]
    assert next(e for e in shown if e.kind is K.SEND_RESULT).get("outcome") != "SEND_OK"  # try 1 failed
    # the engine's state between the tries: try 1 stored nothing, try 2 has not been made
    assert "M0002" not in _stored(cut.snapshots[i]) and "M0002" in _stored(cut.snapshots[i + 1])
    assert cut.now_ms[i] == 3000 and _stored(cut.snapshots[i]) == _stored(cut.snapshots[i - 1])
    (asked,) = cut.checkpoints
    stored = next(e for e in events if e.kind is K.STORED and e.msg_id == "M0002")
    assert asked.frame == i and asked.answer == f"queue:TopicTest@{stored.actor}:{stored.get('queue_id')}"
    assert asked.answer == "queue:TopicTest@broker-b:0"  # the engine's answer: broker-a, which just failed, skipped
    # the cut only reads: the run is the same, event for event
    again = Replay(broker_a_dies, horizon="6s", cuts=[TRY_2])
    again.run_to_end()
    assert again.lab.trace.to_jsonl() == trace.lab.trace.to_jsonl()


def test_the_kernel_stops_at_the_cut_and_steps_back_to_it() -> None:
    """The kernel's controller follows the page's frames: Step lands on the cut (gated there), with its snapshot."""
    c = Controller(broker_a_dies, horizon="6s", checkpoints=[TRY_2])
    assert c.frames is not None
    (asked,) = c.checkpoints
    at = c.frames.positions[asked.frame]
    while c.step_once():
        pass
    assert c.position == at and c.snapshot is not None and "M0002" not in _stored(c.snapshot)
    assert c.answer("try 2", asked.answer)[0]
    assert c.step_once() and "M0002" in _stored(c.snapshot)
    assert c.step_back() == at and "M0002" not in _stored(c.snapshot)


def test_a_bad_inside_step_is_refused() -> None:
    try:
        Checkpoint(before="send_attempt", inside_step="yes")  # type: ignore[arg-type]
    except ValueError as exc:
        assert "inside_step='yes'" in str(exc)
    else:
        raise AssertionError("inside_step='yes' was accepted")


def test_lab_01a_pauses_between_the_tries_and_asks_where_try_2_goes() -> None:
    """Lab 01a's first picture pauses after M0002's try 1 failed, before try 2, and asks where try 2 goes; its
    question no longer tells try 1's failure (the picture does), the answer is where the engine stored M0002, and
    nothing read at the pause names it."""
    dash = _dashboards_of(LABS / "01a_send_retry.py")[0]
    (cp,) = dash.controller.checkpoints
    trace = trace_of(dash)
    assert (cp.event.kind, cp.event.msg_id, cp.event.get("attempt")) == (K.SEND_ATTEMPT, "M0002", 2)
    stored = next(e for e in trace if e.kind is K.STORED and e.msg_id == "M0002")
    assert cp.answer == f"queue:TopicTest@{stored.actor}:{stored.get('queue_id')}" == "queue:TopicTest@broker-b:0"
    frames = dash.controller.frames
    assert frames.positions[cp.frame] == cp.event.seq - 1  # right before try 2, after try 1's result
    before = trace[frames.positions[cp.frame - 1] : frames.positions[cp.frame]]
    assert any(e.kind is K.SEND_RESULT and e.msg_id == "M0002" and e.get("attempt") == 1 for e in before)
    paused = " ".join(frames.captions[cp.frame])
    assert "broker-a" in paused and "broker-b" not in paused and "broker" not in cp.question
    assert "broker-b" in cp.explain and "broker-a" in cp.explain
