"""While a checkpoint waits, every tab tells as little as the caption, and the kernel draws what the page draws.

Stop 31 masked the caption and the message-flow picture of a paused "when" checkpoint, but a student could open the
Events tab and read ``retry_in_ms=1000`` (lab 07a, paused at 3 s, answer 4 s), ``retry_in_ms=5000`` (lab 02b) or
``due_ms=40000`` (lab 03), and the Retries tab said "L4 · 30 s", "due at 40 s", "due in 30 s". And a picture the
kernel drew itself at the paused position (a hidden tab opened there, before the page had its frames) had neither
the "?" nor a "where" checkpoint's placeholders.

View-model level, no browser: every lab's dashboards are built as the lab builds them (``test_lab_pictures``), the
controller is moved to each checkpoint (:meth:`Controller.goto_checkpoint`, what the page's player makes the kernel
do), and what the kernel then holds is compared with the page's frame.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

import pytest
from rmqlab.widgets.checkpoints import AskedCheckpoint
from rmqlab.widgets.event_log import EventLog, event_log_model
from rmqlab.widgets.event_table import event_frames, event_table_json
from rmqlab.widgets.flow_model import countdown_time
from rmqlab.widgets.frames import RunFrames, decode
from rmqlab.widgets.scene import SceneView
from test_lab_pictures import LABS, SOURCES, _dashboards_of

from rmqlab import format_duration

WHEN_LABS = [name for name in SOURCES if 'ask="when"' in (LABS / name).read_text()]
ASKING_LABS = [name for name in SOURCES if "Checkpoint(before=" in (LABS / name).read_text()]


_OWN: dict[str, list[Any]] = {}


def _own_dashboards(name: str) -> list[Any]:
    """Lab ``name``'s dashboards from a run of this module's own, built once: the session's shared ones are stepped
    and answered by other tests, and a pause answered draws what it hid (widgets/checkpoint_answered.py)."""
    if name not in _OWN:
        _OWN[name] = _dashboards_of(LABS / name, fresh=True)
    return _OWN[name]


def _checkpoints(names: list[str], ask: str | None = None) -> Iterator[tuple[str, Any, AskedCheckpoint]]:
    for name in names:
        for dash in _own_dashboards(name):
            for cp in dash.controller.checkpoints:
                if ask is None or cp.ask == ask:
                    yield name, dash, cp


COMING = ("retry_in_ms", "delay_ms", "due_ms", "fix_in_ms", "expires_ms")
"""The trace's fields that say when something comes next: the ones that can state a "when" answer."""


def _told(text: str, *, answer_ms: int, left_ms: int) -> list[str]:
    """How ``text`` states a "when" answer: the time left as written anywhere (``1 s``, ``1000 ms``), the answer's time
    after ``t =`` / ``at``, or either as a field in ms (``retry_in_ms=1000``, ``due_ms=40000``)."""
    spans = {countdown_time(left_ms), format_duration(left_ms), f"{left_ms} ms", f"{left_ms:,} ms"}
    moments = {f"t = {format_duration(answer_ms)}", f"at {format_duration(answer_ms)}", f"{answer_ms} ms"}
    found = [w for w in spans | moments if re.search(rf"(?<![0-9.,]){re.escape(w)}(?![0-9A-Za-z])", text)]
    found += re.findall(rf"\b(?:{'|'.join(COMING)})=(?:{answer_ms}|{left_ms})\b", text)
    return found


def _row_leaks(table: dict[str, Any], *, answer_ms: int, left_ms: int, now_ms: int, position: int) -> list[str]:
    """What an Events table (:func:`event_table_json`) at a paused "when" frame tells: a row after the pause, or a
    row's words stating the answer (its time column is an event's own time, never later than now)."""
    leaks = [f"row {r['seq']} after the pause" for r in table["marks"] if r["seq"] > position]
    for r in table["marks"]:
        said = f"{r['details']} {r['repeats']}"
        leaks += [f"row {r['seq']}: {w}" for w in _told(said, answer_ms=answer_ms, left_ms=left_ms)]
    return leaks


def _page_events(dash: Any, frames: RunFrames, frame: int) -> dict[str, Any]:
    events = next(v for v in dash.views if isinstance(v, EventLog))
    return decode(event_frames(frames, events.models), frame)


def test_the_events_tab_at_a_paused_when_checkpoint_tells_nothing_of_the_answer() -> None:
    """At every "when" checkpoint of every lab, the Events tab — the page's frame and the kernel's table once it
    reached the paused step — shows no event after the pause and no field or word stating the answer's time or the
    time left; the mechanism's fields stay (``retry_in_ms=?``)."""
    leaks, asked = [], 0
    for name, dash, cp in _checkpoints(WHEN_LABS, "when"):
        asked += 1
        frames = dash.controller.frames
        at = {"answer_ms": int(cp.answer), "left_ms": int(cp.answer) - frames.now_ms[cp.frame]}
        where = {"now_ms": frames.now_ms[cp.frame], "position": frames.positions[cp.frame]}
        page = _page_events(dash, frames, cp.frame)
        dash.controller.goto_checkpoint(cp.name)
        kernel = event_table_json(next(v for v in dash.views if isinstance(v, EventLog)).vm)
        assert kernel == page, (name, cp.name)
        leaks += [(name, cp.name, leak) for leak in _row_leaks(page, **at, **where)]
    assert asked >= 6
    assert leaks == []


def test_with_masking_off_the_events_tab_tells_the_answer() -> None:
    """The check above can fail: the same tables unmasked state the answer at most "when" checkpoints (lab 07a's
    ``retry_in_ms=1000``, lab 03's ``due_ms=40000``)."""
    told = set()
    for name, dash, cp in _checkpoints(WHEN_LABS, "when"):
        frames = dash.controller.frames
        unmasked = dataclasses.replace(frames, masks={})
        at = {"answer_ms": int(cp.answer), "left_ms": int(cp.answer) - frames.now_ms[cp.frame]}
        where = {"now_ms": frames.now_ms[cp.frame], "position": frames.positions[cp.frame]}
        page_tells = bool(_row_leaks(_page_events(dash, unmasked, cp.frame), **at, **where))
        if page_tells:
            told.add(name)
        # the kernel's own table, before the kernel knew the mask, said the same (per checkpoint: a lab may ask
        # several "when" questions, not all of which the unmasked table answers)
        bare = event_table_json(event_log_model(frames.snapshots[cp.frame]))
        assert bool(_row_leaks(bare, **at, **where)) == page_tells, (name, cp.name)
    assert {"07a_orderly_locks.py", "02b_send_back_failures.py", "03_delay_levels_schedule.py"} <= told


@pytest.mark.parametrize("name", ASKING_LABS)
def test_the_kernel_draws_a_paused_checkpoint_as_the_page_does(name: str) -> None:
    """At every checkpoint of the lab, each picture the kernel computes once it reached the paused step (drawn live
    when the page has not the view's frames: a hidden tab opened there) equals the page's frame — the "?" of a
    "when" and the placeholders of a "where" included — and so does the kernel's caption."""
    differ = []
    for _, dash, cp in _checkpoints([name]):
        frames = dash.controller.frames
        dash.controller.goto_checkpoint(cp.name)
        assert tuple(dash.controller.caption_lines) == frames.captions[cp.frame], cp.name
        for view in (v for v in dash.views if isinstance(v, SceneView)):
            if view.current != frames.scenes(view)[cp.frame]:
                differ.append((cp.name, type(view).__name__))
    assert differ == []


def test_unmasked_the_kernels_pictures_differ_from_the_pages() -> None:
    """The comparison above can fail: a view updated at the paused step without the mask draws a "where"
    checkpoint's flow picture without its placeholders and a "when"'s retry timeline with its due time."""
    seen = set()
    for _name, dash, cp in _checkpoints(["03_delay_levels_schedule.py"]):
        frames = dash.controller.frames
        dash.controller.goto_checkpoint(cp.name)
        for view in (v for v in dash.views if isinstance(v, SceneView)):
            view.update(frames.snapshots[cp.frame])  # no mask
            if view.current != frames.scenes(view)[cp.frame]:
                seen.add((cp.ask, type(view).__name__))
    assert {("where", "FlowView"), ("when", "RetryTimeline")} <= seen, seen


def test_the_retry_timeline_hides_the_wait_a_when_checkpoint_asks_about() -> None:
    """Lab 03 paused before the second retry leaves its delay level (10 s; answer 40 s): the Retries tab names the
    level it waits at, not for how long ("L4 · (hidden)", "due in (hidden)": words, not a lone "?"
    that read as a rendering bug); one step on, the outcome shows it again."""
    _, dash, cp = next(c for c in _checkpoints(["03_delay_levels_schedule.py"], "when")
                       if c[2].event.kind.value == "delay_delivered")  # the first "when" (the DLQ's comes later)
    frames = dash.controller.frames
    view = next(v for v in dash.views if type(v).__name__ == "RetryTimeline")
    texts = {m.text for m in frames.scenes(view)[cp.frame].marks if m.text}
    assert {"L4 · (hidden)", "due in (hidden)"} <= texts
    assert not {"L4 · 30 s", "due in 30 s"} & texts and not any(t.endswith(" ?") for t in texts)
    after = {m.text for m in frames.scenes(view)[cp.frame + 1].marks if m.text}
    assert "L4 · 30 s" in after


def test_a_paused_when_checkpoint_hides_no_budget_that_equals_its_answer() -> None:
    """A field that is a budget or a measure, not a time to come (``timeout_ms=3000``, ``took_ms``), is shown as it
    is at the pause: lab 05's answer is 3 s, and its send attempts read ``timeout_ms=?`` while every earlier caption
    said "sendMsgTimeout 3000 ms", which told the answer."""
    hidden, asked = [], 0
    for name, dash, cp in _checkpoints(WHEN_LABS, "when"):
        asked += 1
        frames = dash.controller.frames
        for r in _page_events(dash, frames, cp.frame)["marks"]:
            hidden += [(name, r["seq"], f) for f in re.findall(r"\b(\w+_ms)=\?", r["details"]) if f not in COMING]
    assert asked >= 6
    assert hidden == []


def _bare(text: str, *, answer_ms: int, left_ms: int) -> list[str]:
    """A time stated by its number alone, cut from its unit (``"is consumed again in 5000 …"``)."""
    values = {str(v) for v in (answer_ms, left_ms)} | {f"{v:,}" for v in (answer_ms, left_ms)}
    return [v for v in values if re.search(rf"(?<![0-9.,]){re.escape(v)}(?= ?…)", text)]


def test_both_caption_lines_of_a_paused_when_checkpoint_hide_its_answer() -> None:
    """At every "when" checkpoint, neither caption line — the plain sentence nor "in the source: …" — states the
    answer or the time left, on the page's frame and in the kernel's caption once it reached the paused step. Lab 02b's
    first line read "… again in ?" while its source line, cut to its width before the unit, said "is consumed again in
    5000 …" (paused at 2 s, answer 7 s)."""
    leaks, asked = [], 0
    for name, dash, cp in _checkpoints(WHEN_LABS, "when"):
        asked += 1
        frames = dash.controller.frames
        at = {"answer_ms": int(cp.answer), "left_ms": int(cp.answer) - frames.now_ms[cp.frame]}
        dash.controller.goto_checkpoint(cp.name)
        for where, lines in (("page", frames.captions[cp.frame]), ("kernel", dash.controller.caption_lines)):
            assert len(lines) == 2, (name, cp.name, lines)
            for line in lines:
                leaks += [(name, cp.name, where, w) for w in _told(line, **at) + _bare(line, **at)]
    assert asked >= 6
    assert leaks == []


def test_unmasked_the_cut_source_line_of_lab_02b_tells_the_time_left() -> None:
    """The check above can fail: lab 02b's "when" step, unmasked, ends its source line with the bare 5000 of the
    local retry's 5000 ms."""
    (_, dash, cp), = (c for c in _checkpoints(["02b_send_back_failures.py"], "when"))  # fmt: skip
    stepper_lines = dash.controller.stepper.caption_lines  # the step's own caption, before any mask
    dash.controller.goto_checkpoint(cp.name)
    frames = dash.controller.frames
    at = {"answer_ms": int(cp.answer), "left_ms": int(cp.answer) - frames.now_ms[cp.frame]}
    source = stepper_lines()[-1]
    assert _bare(source, **at) == ["5000"], source
