"""Every step of every lab's dashboards: the two caption lines are about one event (issue 30), step 0 says what the
picture shows and what will happen, and the last step says what the whole run showed.

The dashboards are the labs' own (found by :func:`test_lab_captions._dashboards`, never by cell position). For each
frame the test reads the events the step appended, narrated afresh (:func:`rmqlab.narrate.narrate`), and asks that
one of them both says the first line's sentence and has the second line's rule: before stop 33 a step whose first
line told of one event could give the rule of another (lab 01a: "pg tries M0002 again (try 2) … broker-b" over
"attempt 1 … broker-a:2"; an end-of-run summary over an unrelated ``commitOffset``).
"""

from __future__ import annotations

import re

import pytest
from rmqlab.widgets.frames import RunFrames
from rmqlab.widgets.replay import Replay
from test_lab_captions import SOURCES, _dashboards

from rmqlab.core.trace import TraceEvent
from rmqlab.narrate import Caption, count_fates, narrate
from rmqlab.narrate.summary import SYSTEM_TOPICS, summary_of

SOURCE = "in the source: "
COUNT = re.compile(r"\s*\(and \d+ more: (?:[^()]* (?:consumed|stored|delivered), )?see the Events tab\)$")  # what the
# rest consumed, or the second copy it stored / delivered
REPEATS = re.compile(r" \(× [\d,]+[^)]*\)\.$")


def _said(plain: str, caption: Caption) -> bool:
    """``caption``'s sentence is the line's (alone, or folded with its repeats: "… (× 16, every 1 s, 0 s – 15 s).")."""
    line = COUNT.sub("", plain)
    return line == caption.plain or REPEATS.sub("", line) == caption.plain.rstrip(".")


def _ruled(source: str, caption: Caption) -> bool:
    """``caption``'s rule is the line's (whole, or cut at a clause and ended with "…")."""
    rule = source.removeprefix(SOURCE)
    return rule == caption.text or (rule.endswith(" …") and caption.text.startswith(rule[:-2]))


@pytest.mark.parametrize("source", SOURCES)
def test_two_lines_tell_of_one_event_and_the_run_begins_and_ends_in_a_sentence(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _dashboards(source, monkeypatch)
    steps = 0
    for run in runs:
        frames = run.frames  # what the lab's dashboard sent the page
        assert frames is not None and frames.complete, (source, run.index)
        replay = Replay(run.make_lab, horizon=run.horizon)
        replay.run_to_end()
        captions = narrate(replay.lab.trace)
        for i in range(1, len(frames) - 1):
            if i in frames.masks:  # a paused checkpoint's caption hides its answer ("returns in ?")
                continue
            plain, rule = frames.captions[i]
            step = captions[frames.positions[i - 1] : frames.positions[i]]
            both = [c for c in step if _said(plain, c) and _ruled(rule, c)]
            assert both, (source, run, i, plain, rule, [c.plain for c in step if _ruled(rule, c)])
            steps += 1
        _check_first_and_last(source, run.index, frames, list(replay.lab.trace))
        _check_every_message_counted_once(source, run.index, frames, list(replay.lab.trace))
    assert steps >= 8, f"{source}: only {steps} steps checked"


def _check_first_and_last(source: str, index: int, frames: RunFrames, trace: list[TraceEvent]) -> None:
    """Step 0 names the brokers and how many messages will be sent; the last step says what the run showed."""
    snap, run = frames.snapshots[0], index
    plain, rule = frames.captions[0]
    brokers = [b.name for b in snap.brokers]
    assert plain.startswith(f"{len(brokers)} broker") and all(b in plain for b in brokers), (source, plain)
    sent = {e.msg_id for e in trace  # a send its selector refused was a send too (lab 06: no attempt, send_failed)
            if e.kind.value in ("send_attempt", "send_failed") and e.actor.startswith("producer:")}
    assert (f"will send {len(sent)} message" in plain) == bool(sent), (source, run, plain)
    assert rule.startswith(SOURCE + "the Lab builds BrokerController " + brokers[0]), (source, rule)
    end, end_rule = frames.captions[-1]
    assert end.startswith("End of the run at "), (source, run, end)
    assert (f"{len(sent)} message" in end) == bool(sent), (source, run, end)
    # the second line gives the code of the summary's fates, not one last event's rule
    assert end_rule.startswith(SOURCE + ("sent: " if sent else "")), (source, run, end_rule)


def _check_every_message_counted_once(source: str, index: int, frames: RunFrames, trace: list[TraceEvent]) -> None:
    """The last step counts each message the engine holds on its topic at that frame's clock exactly once, by one
    fate (issue 30: lab 07b's M0003, pulled by c2 behind the M0002 it retries, was counted nowhere; lab 01a's stored
    messages, with no consumer in the run, neither): the fates are disjoint, their sum is the number of messages sent
    and stored per the engine's state (the frame's snapshot), and the plain line is the summary of those fates."""
    end = len(frames) - 1
    state = frames.snapshots[end]
    stored = {c.msg_id for q in state.queues if not q.topic.startswith(SYSTEM_TOPICS) for c in q.cells if c.msg_id}
    fates = count_fates(trace[: frames.positions[end]], now_ms=frames.now_ms[end], state=state)
    stored |= set(fates.expired)  # retention deleted them (lab 04's 72 h picture): counted by their fate still
    counted = fates.counted()
    total = sum(len(messages) for messages in counted.values())
    assert total == len(stored) and {m for ms in counted.values() for m in ms} == stored, (source, index, counted)
    assert frames.captions[end][0] == summary_of(fates), (source, index)
