"""The run's summary has a frame of its own, after the last event (stop 34's review: lab 07b's last Step, c1's unlock
timing out, its offsets persisted and c1 stopped, was replaced by "End of the run …").

The summary frame stands at the last event's trace position; the kernel reaches it by one more Step (the replay then
knows nothing follows), and Back from it returns to the last event, so the page and the kernel agree on every frame.
A run whose last step only kept books (an offset persisted) shows the summary on that step, as before.
"""

from __future__ import annotations

import pytest
from rmqlab.widgets import Controller, demo_lab
from test_run_summary import flush_timeouts

pytestmark = pytest.mark.usefixtures("no_running_loop")  # a page move is followed at once, as in a script


def test_the_last_event_keeps_its_caption_and_the_summary_comes_one_step_later() -> None:
    ctl = Controller(flush_timeouts, horizon="10s")  # lab 01b's run: the last step is M0002's send result
    frames = ctl.frames
    assert frames is not None and frames.summary_frame
    last = len(frames) - 1
    assert frames.positions[last] == frames.positions[last - 1]
    event, summary = frames.captions[last - 1], frames.captions[last]
    assert "M0002" in event[0] and not event[0].startswith("End of the run")  # the last send keeps its words
    assert summary[0].startswith("End of the run at 10 s: 2 messages sent") and summary[1].startswith(
        "in the source: sent: "
    )
    assert frames.clock(last).endswith(" · end") and not frames.clock(last - 1).endswith(" · end")
    ctl.reset()
    steps = 0
    while ctl.step_once():
        steps += 1
        assert ctl.caption_lines == frames.captions[steps], steps  # the kernel's steps are the page's frames
    assert steps == last - 1  # the last Step found the end: it did not move, and shows the summary frame
    assert ctl.caption_lines == summary and ctl.at_end
    assert ctl.frames is not None and ctl._page_frame(ctl.snapshot) == last  # type: ignore[arg-type]
    ctl.step_back()
    assert ctl.caption_lines == event and ctl._page_frame(ctl.snapshot) == last - 1  # type: ignore[arg-type]


def test_the_page_moving_to_the_summary_frame_moves_the_kernel_there_and_back() -> None:
    ctl = Controller(flush_timeouts, horizon="10s")
    frames = ctl.frames
    assert frames is not None
    last = len(frames) - 1
    ctl.player.position = last  # the page's Step (no event loop here: the kernel follows at once)
    assert ctl.caption_lines == frames.captions[last] and ctl.player.position == last
    ctl.player.position = last - 1
    assert ctl.caption_lines == frames.captions[last - 1] and ctl.player.position == last - 1


def test_a_run_ending_on_bookkeeping_shows_the_summary_there() -> None:
    """demo_lab's run ends on an offset persisted (no event a student steps to): that step says the summary and no
    frame is added."""
    frames = Controller(lambda: demo_lab(listener="fail_first"), horizon="2m").frames
    assert frames is not None and not frames.summary_frame
    assert frames.captions[-1][0].startswith("End of the run at 2 m")
    assert frames.positions[-1] > frames.positions[-2]
