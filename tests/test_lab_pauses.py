"""At the checkpoints of labs 07a, 07b and 09 the picture pauses before it draws the outcome (issue 30, stop 34).

The stop-34 review found each of these asked with its answer already on screen: lab 07b's "where is M0001 next?"
paused with M0001 already pulled into c2's ProcessQueue; lab 09's "where does bad-card wait?" with bad-card back in
pay-1's ProcessQueue, marked "suspended · again now"; lab 07a's "when does c1 send bad back?" at 33 s, after two 30 s
pauses had been drawn ("again in 30 s"). Each now pauses before the step that draws it
(``Checkpoint(pause_before=...)``), and the new question on 07b's batch picture pauses before the batch is handed out.

For each, in both languages, at the paused frame (the labs' dashboards built as the labs build them,
``test_lab_pictures``): the run so far has no event that shows the outcome, the message-flow view-model draws the
message neither at the answer (a "where" whose answer is a new place) nor with a suspension note, and the
caption does not name it. Headless: view-models and the trace, no browser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rmqlab.widgets.flow_view import FlowView
from test_lab_checkpoint_facts import _dashboards_of
from test_lab_pictures import LABS

from rmqlab import EventKind, TraceEvent


def _asked(name: str, factory: str, wanted: Callable[[Any], bool]) -> tuple[Any, Any]:
    """The dashboard built from ``factory`` in lab ``name`` and its one checkpoint that ``wanted`` picks."""
    found = [(dash, cp) for dash in _dashboards_of(LABS / name) if _factory(dash) == factory
             for cp in dash.controller.checkpoints if wanted(cp)]  # fmt: skip
    assert len(found) == 1, (name, factory, [cp.name for _dash, cp in found])
    return found[0]


def _factory(dash: Any) -> str:
    """The name of the lab function a dashboard runs (the Dashboard wraps it with its knobs)."""
    make = dash.controller.replay.make_lab
    while hasattr(make, "func"):
        make = make.func
    return str(getattr(make, "__name__", ""))


def _paused(dash: Any, cp: Any) -> tuple[list[TraceEvent], Any, str]:
    """At the checkpoint's paused frame: the run so far, the message-flow view-model and the caption."""
    frames = dash.controller.frames
    replay = dash.controller.replay
    from rmqlab.widgets.replay import Replay

    fresh = Replay(replay.make_lab, horizon=replay.horizon_ms, max_idle_steps=replay.max_idle_steps,
                   faults=replay.faults)  # fmt: skip
    fresh.run_to_end()
    trace = list(fresh.lab.trace)[: frames.positions[cp.frame]]
    flow = frames.models(next(v for v in dash.views if isinstance(v, FlowView)))[cp.frame]
    return trace, flow, " ".join(frames.captions[cp.frame])


def _suspension_notes(flow: Any) -> list[str]:
    return [p.note for p in flow.places if "suspend" in p.note or "挂起" in p.note]


BOTH = ("", "zh/")


@pytest.mark.parametrize("lang", BOTH)
def test_07b_asks_where_m0001_goes_before_c2_pulls_it(lang: str) -> None:
    dash, cp = _asked(f"{lang}07b_orderly_failover.py", "moving_queue_lab",
                      lambda cp: cp.ask == "where" and cp.event.kind is EventKind.DELIVERED)  # fmt: skip
    trace, flow, caption = _paused(dash, cp)
    assert cp.answer == "pq:c2:TopicTest@broker-a:1"
    pulls = [e for e in trace if e.kind is EventKind.PULLED and e.actor == "consumer:c2"
             and "M0001" in (e.get("msg_ids") or [])]  # fmt: skip
    assert pulls == []
    assert [t.place for t in flow.tokens if t.msg_id == "M0001" and t.place == cp.answer] == []
    assert "M0001" not in caption
    # the lock it asked about a step earlier is drawn: the question is about the pull, not about the lock
    assert any(e.kind is EventKind.LOCK_ACQUIRED and e.actor == "consumer:c2" for e in trace)


@pytest.mark.parametrize("lang", BOTH)
def test_07b_asks_where_a_is_before_its_batch_fails(lang: str) -> None:
    dash, cp = _asked(f"{lang}07b_orderly_failover.py", "batch_lab", lambda cp: cp.ask == "where")
    trace, flow, caption = _paused(dash, cp)
    assert (cp.event.kind, cp.event.msg_id, cp.answer) == (EventKind.SUSPENDED, "M0001", "pq:c1:TopicTest@broker-a:0")
    assert [e for e in trace if e.kind in (EventKind.DELIVERED, EventKind.CONSUMED, EventKind.SUSPENDED)] == []
    assert [str(t.state) for t in flow.tokens if t.msg_id == "M0001"] == ["pulled"]
    assert _suspension_notes(flow) == [] and "SUSPEND" not in caption


@pytest.mark.parametrize("lang", BOTH)
def test_09_asks_where_bad_card_waits_before_it_is_suspended(lang: str) -> None:
    dash, cp = _asked(f"{lang}09_capstone.py", "deployed_lab", lambda cp: cp.ask == "where")
    trace, flow, caption = _paused(dash, cp)
    bad = cp.event.msg_id
    assert [e for e in trace if e.msg_id == bad and e.kind in (EventKind.DELIVERED, EventKind.CONSUMED,
                                                               EventKind.SUSPENDED)] == []  # fmt: skip
    assert _suspension_notes(flow) == [] and "SUSPEND" not in caption
    assert [e.msg_id for e in trace if e.kind is EventKind.PULLED][-1:] == [None]  # bad-card is pulled, not yet handed
    assert any(bad in (e.get("msg_ids") or []) for e in trace if e.kind is EventKind.PULLED)


@pytest.mark.parametrize("lang", BOTH)
def test_07a_asks_when_bad_goes_back_before_any_pause_is_drawn(lang: str) -> None:
    dash, cp = _asked(f"{lang}07a_orderly_locks.py", "pause_picture", lambda cp: cp.ask == "when")
    trace, flow, caption = _paused(dash, cp)
    assert cp.event.kind is EventKind.SEND_BACK
    assert [e for e in trace if e.kind is EventKind.SUSPENDED] == []
    assert _suspension_notes(flow) == []
    assert "30 s" not in caption and "30000" not in caption


@pytest.mark.parametrize("lang", BOTH)
def test_07b_asks_where_b_goes_once_the_listener_has_it(lang: str) -> None:
    """The ROLLBACK question says "the listener now returns ROLLBACK for b": the picture pauses with b handed to the
    listener (revF defect 3: it paused at the pull, b drawn as only pulled, caption "c1 fetches M0002")."""
    dash, cp = _asked(f"{lang}07b_orderly_failover.py", "commit_picture", lambda cp: cp.ask == "where")
    trace, flow, caption = _paused(dash, cp)
    assert (cp.event.kind, cp.event.msg_id, cp.answer) == (EventKind.CONSUMED, "M0002", "pq:c1:TopicTest@broker-a:0")
    assert trace[-1].kind is EventKind.DELIVERED and trace[-1].msg_id == "M0002"
    assert [e for e in trace if e.kind is EventKind.CONSUMED and e.msg_id == "M0002"] == []
    assert [str(t.state) for t in flow.tokens if t.msg_id == "M0002"] == ["consuming"]
    assert "M0002" in caption and "fetches" not in caption and "拉取" not in caption
