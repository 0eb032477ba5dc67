"""A checkpoint that asks about a value hides it in every view until the question is answered.

Lab 05's first picture asks when c1's committed offset moves past the slow message, and its ProcessQueues tab read
"committed 1 · broker 1" with a bracket "holes: done above the committed offset" on every step up to the question
(found by the student review: the picture told the mechanism's result, and graded exercise 05.1's answer). The
checkpoint now declares ``hides=("committed_offset",)``: view-model level, no browser, every frame a student can see
before answering (the run's start to the pause) states no committed offset of that queue in any view — the
ProcessQueues tab, the Events tab's rows, the caption — and one step past the question they do again.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
from rmqlab.widgets.checkpoint_hide import SHOWN_IN, Hidden, hide_strip, offset_patterns
from rmqlab.widgets.event_log import EventLog
from rmqlab.widgets.event_table import event_frames
from rmqlab.widgets.frames import RunFrames, decode
from rmqlab.widgets.offset_strip import OffsetStripView
from test_lab_pictures import LABS, _dashboards_of

QUEUE = "TopicTest@broker-a:0"


def _lab05() -> tuple[Any, Any]:
    dash = _dashboards_of(LABS / "05_offsets_process_queue.py")[0]
    cp = next(c for c in dash.controller.checkpoints if c.hidden)
    return dash, cp


def _committed(frames: RunFrames, i: int) -> tuple[int, ...]:
    """The engine's committed offsets of the queue at frame ``i``: c1's and the broker's."""
    snap = frames.snapshots[i]
    client = [o for c in snap.consumers for q, o in c.offset_store if q == QUEUE]
    broker = [o for b in snap.brokers for g, mq, o in b.committed_offsets if g == "cg" and str(mq) == QUEUE]
    return tuple(client + broker)


def _told(dash: Any, frames: RunFrames, i: int) -> list[str]:
    """What the views at frame ``i`` say of the queue's committed offset: a pointer with its number or place, a hole,
    an offset row's number, a caption sentence's number."""
    strip = next(v for v in dash.views if isinstance(v, OffsetStripView))
    told = []
    for row in frames.models(strip)[i].rows:
        if row.queue != QUEUE:
            continue
        told += [f"pointer {p.label}" for p in row.pointers
                 if not p.hidden or p.offset >= 0 or re.search(r"\d", p.label)]  # fmt: skip
        told += [f"hole at {c.offset}" for c in row.cells if c.hole]
    texts = {m.text for m in frames.scenes(strip)[i].marks if m.text}
    told += [t for t in texts if re.fullmatch(r"(committed|broker|local file) \d+", t)]
    events = next(v for v in dash.views if isinstance(v, EventLog))
    for r in decode(event_frames(frames, events.models), i)["marks"]:
        if r["kind"].startswith("offset_") and f"queue={QUEUE}" in r["details"]:
            told += [f"row {r['seq']}: {m}" for m in re.findall(r"\b(?:offset|previous)=\d+", r["details"])]
    for line in frames.captions[i]:
        found = [m.group(0) for p in offset_patterns() for m in p.finditer(line)]
        told += [f"caption: {m}" for m in found if m[-1].isdigit()]
    return told


def test_lab05_hides_the_committed_offset_up_to_its_question_and_shows_it_after() -> None:
    dash, cp = _lab05()
    frames = dash.controller.frames
    assert cp.hidden == (Hidden("committed_offset", QUEUE, None),)
    assert _committed(frames, cp.frame) == (1, 1)  # what the pause would have shown: the slow message's offset
    leaks = [(i, t) for i in range(cp.frame + 1) for t in _told(dash, frames, i)]
    assert leaks == []
    after = cp.frame + 1
    strip = next(v for v in dash.views if isinstance(v, OffsetStripView))
    row = next(r for r in frames.models(strip)[after].rows if r.queue == QUEUE)
    shown = {p.name: p.offset for p in row.pointers}
    assert (shown["committed"], shown["broker"]) == _committed(frames, after) == (5, 1)
    assert "committed 5" in {m.text for m in frames.scenes(strip)[after].marks}


def test_unhidden_the_same_views_tell_the_committed_offset() -> None:
    """The check above can fail: without the checkpoint's mask the paused frame says "committed 1", marks the holes
    and the Events tab's offset rows say ``offset=1``."""
    dash, cp = _lab05()
    frames = dash.controller.frames
    bare = dataclasses.replace(frames, masks={}, _models={}, _scenes={})
    told = _told(dash, bare, cp.frame)
    assert "pointer committed 1" in told and any(t.startswith("hole at") for t in told)


def test_the_kernel_hides_it_at_every_step_before_the_question() -> None:
    """The kernel's own ProcessQueues picture at a step before the question (a tab opened there) is the page's."""
    dash, cp = _lab05()
    frames = dash.controller.frames
    strip = next(v for v in dash.views if isinstance(v, OffsetStripView))
    dash.controller.reset()
    dash.controller.step_once()
    i = frames.index_of(dash.controller.position)
    assert 0 < i < cp.frame
    assert strip.current == frames.scenes(strip)[i]
    assert not any(t.startswith("pointer") for t in _told(dash, frames, i))


def test_hide_strip_names_the_hidden_pointer_without_its_place() -> None:
    """A hidden pointer keeps its name and reads "(hidden)" (the orderly commit() too), at no offset."""
    from rmqlab.widgets.offset_model import OffsetStripModel, StripCell, StripPointer, StripRow

    from rmqlab.snapshot import OffsetState

    cell = StripCell(0, "M1", OffsetState.ACKED, hole=True)
    pointers = (StripPointer("committed", 2, "committed 2", "why"),
                StripPointer("commit()", 3, "commit() = lastKey + 1 = 3", "why"),
                StripPointer("next", 4, "next 4", "why"))
    row = StripRow("c1", "cg", QUEUE, True, False, True, 0, 3, (cell,), pointers, (), ())
    vm = hide_strip(OffsetStripModel(0, (row,)), (Hidden("committed_offset", QUEUE),))
    got = {p.name: (p.label, p.offset, p.hidden) for p in vm.rows[0].pointers}
    assert got == {"committed": ("committed (hidden)", -1, True),
                   "commit()": ("commit() = (hidden)", -1, True),
                   "next": ("next 4", 4, False)}  # fmt: skip
    assert not vm.rows[0].cells[0].hole
    other = hide_strip(OffsetStripModel(0, (row,)), (Hidden("committed_offset", "TopicTest@broker-b:0"),))
    assert other.rows[0] == row


@pytest.mark.parametrize("bad", ["committed", ("offset",)])
def test_a_checkpoint_hides_only_what_it_knows(bad: Any) -> None:
    from rmqlab.widgets.checkpoints import Checkpoint

    with pytest.raises(ValueError, match="hides="):
        Checkpoint(before="delivered", hides=bad)


def test_a_question_about_a_hidden_value_names_the_tab_that_shows_it() -> None:
    """Lab 05's question hides the committed offset, which the ProcessQueues tab shows: the page is told that tab (in
    the player's data), the tab is one of the dashboard's, and a checkpoint naming no tab sends no ``tab`` key."""
    dash, cp = _lab05()
    assert SHOWN_IN["committed_offset"] == OffsetStripView.title == cp.tab
    assert cp.tab in dash.tabs.titles
    sent = {c["name"]: c for c in dash.controller.frames.player_json()["checkpoints"]}
    assert sent[cp.name]["tab"] == "ProcessQueues"
    assert [c.get("tab") for name, c in sent.items() if name != cp.name] == [None] * (len(sent) - 1)
    assert dataclasses.replace(cp, tab="").to_json().keys() == sent[cp.name].keys() - {"tab"}
    # what the page itself gets (sealed: no answer, no texts) still names the tab, which the page opens as it asks
    from rmqlab.widgets.page_seal import sealed_checkpoint

    asked = next(c for c in dash.controller.frames.checkpoints if c.name == cp.name)
    assert sealed_checkpoint(asked)["tab"] == "ProcessQueues"
