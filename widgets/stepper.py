"""Stepper: meaningful steps and their captions over one :class:`~widgets.replay.Replay`, without any widget.

The controller (live, one step per click) and the frame builder (:mod:`widgets.frames`, the whole run at once,
for the browser) walk a run the same way through this one class, so the picture and the caption at step k are
the same whichever of them got there.

**Steps are meaningful events.** :meth:`step` moves to the next position whose scheduler step appended a
meaningful event (:func:`rmqlab.narrate.is_meaningful`: a delivery, a consume result, a send-back, a schedule
hop, a DLQ write, a lock change, a send, a fault, a rebalance), skipping offset and lock-renewal bookkeeping;
``raw=True`` moves one reachable position. The caption of a position is a function of the position and
``raw`` only, so every route to a position shows the same words. The start says what the picture shows and what
is about to happen (:func:`widgets.run_intro.intro_caption`); the run's last step, what the whole run showed
(:func:`rmqlab.narrate.end_caption`).
"""

from __future__ import annotations

import bisect

from rmqlab import EventKind
from rmqlab.narrate import Caption, Narrator, StepCaption, end_caption, step_caption
from rmqlab.narrate.steps import Subject
from rmqlab.snapshot import LabSnapshot

from .replay import Replay
from .run_intro import intro_caption

__all__ = ["CAPTION_LINES", "DELIVERY_STEPS", "Stepper"]

CAPTION_LINES = 2
"""A step's caption is two lines: the plain sentence, then "in the source: …" (:func:`rmqlab.narrate.step_caption`)."""


DELIVERY_STEPS = 8
"""A delivery that repeats an earlier one (an orderly message delivered again after each suspension, the same queue
offset one reconsumeTimes higher) still gets its own step, up to this many times in a row; only the repeats after
those fold into one step. The labs ask students to count such deliveries ("how many times is bad delivered?", "when
does pay-1 give up?"): lab 07a's steps jumped from 4 s to 6 s with bad's 5 s delivery inside "(and 8 more)". Eight
cover the labs' limits (max_reconsume_times up to 7) without bringing back stop 34's 21-27 steps of one unlimited
local retry loop. A failing pull repeated every second for hours still folds at once: it is not a delivery."""


class Stepper:
    """Meaningful steps over ``replay`` (which it moves), with a caption for every position reached."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self._narrator = Narrator()
        self.captions: list[Caption] = []
        """One per trace event seen so far (same factory + faults → same run)."""
        self._repeat_of: list[int] = []
        """Per caption: how many earlier events of its repeat group there are (0: it starts its group)."""
        self._group_sizes: dict[int, int] = {}
        self.known_stops: list[int] = []
        """The longest list of reachable positions seen so far."""
        self.sync()

    def sync(self) -> None:
        """Caption every new trace event and remember every reachable position seen."""
        trace = self.replay.lab.trace
        for k in range(len(self.captions), self.replay.position):
            caption = self._narrator.feed(trace[k])
            self.captions.append(caption)
            self._repeat_of.append(self._group_sizes.get(caption.group, 0))
            self._group_sizes[caption.group] = self._repeat_of[-1] + 1
        count = self.replay.stop_count
        if count > len(self.known_stops):
            self.known_stops.extend(self.replay.stops_since(len(self.known_stops)))

    def segment(self, i: int) -> range:
        """Trace indexes appended by the step that reached known stop ``i`` (the start: everything before)."""
        first = self.known_stops[i - 1] if i > 0 else 0
        return range(first, self.known_stops[i])

    def stop_is_meaningful(self, i: int) -> bool:
        """A step lands here: something meaningful and new happened (not a repeat of an event still repeating, which
        the caption counts instead: "pull failed × 16,800, every 3 s"), or one of a message's first
        :data:`DELIVERY_STEPS` deliveries, repeat or not."""
        told = self.captions
        return any(told[k].meaningful and (told[k].fresh or self.counted_delivery(k)) for k in self.segment(i))

    def counted_delivery(self, k: int) -> bool:
        """Caption ``k`` is a repeated delivery that still gets its own step (:data:`DELIVERY_STEPS`)."""
        return self.captions[k].kind is EventKind.DELIVERED and self._repeat_of[k] < DELIVERY_STEPS

    def step(self, *, raw: bool = False) -> bool:
        """Advance to the next meaningful position (``raw``: one reachable position); ``False`` at the end."""
        moved = False
        while self.replay.step_once():
            moved = True
            self.sync()
            if raw or self.stop_is_meaningful(self.replay.stop_count - 1):
                break
        self.sync()
        return moved

    def shows_events(self) -> bool:
        """The step that reached the current position appended something meaningful (not only bookkeeping)."""
        i = bisect.bisect_left(self.known_stops, self.replay.position)
        stops = self.known_stops
        return 0 < i < len(stops) and stops[i] == self.replay.position and self.stop_is_meaningful(i)

    def back(self, *, raw: bool = False) -> int:
        """Back to the previous meaningful position (``raw``: the previous one), by rebuild and replay; from the
        run's end (a Step past its last event, whose caption is the summary), back to that last event."""
        if not raw and self.replay.at_end and self.shows_events():
            position = self.replay.position
            self.replay.rebuild()
            self.replay.seek(position)
        elif raw:
            self.replay.step_back()
        else:
            i = bisect.bisect_left(self.known_stops, self.replay.position) - 1
            while i > 0 and not self.stop_is_meaningful(i):
                i -= 1
            self.replay.seek(self.known_stops[i] if i >= 0 else self.replay.start)
        self.sync()
        return self.replay.position

    def caption_lines(
        self, *, raw: bool = False, last: bool = False, now_ms: int | None = None, state: LabSnapshot | None = None
    ) -> tuple[str, ...]:
        """The captions of the step that reached the current position (a function of position and ``raw``): at the
        start, the run's introduction (from the trace so far: :mod:`widgets.frames` gives it the whole run's);
        ``last`` (the run's last step, when its end is known) or a step that only kept books, the run's summary, at
        ``now_ms``: the clock the step is shown with (default: the Lab's clock now; :mod:`widgets.frames` gives its
        frame's, as finding the end may have run the idle timers on: lab 01b read "End of the run at 10 s" under
        "t = 8 s"), and the engine's ``state`` the summary places unfinished messages in (default: the snapshot
        now; :mod:`widgets.frames` gives its last frame's)."""
        position = self.replay.position
        if position == self.replay.start:
            lab = self.replay.lab
            return intro_caption(self.replay.snapshot(), [lab.trace[k] for k in range(len(lab.trace))]).lines
        if not self.known_stops:
            return ()
        i = bisect.bisect_left(self.known_stops, position)
        if i >= len(self.known_stops) or self.known_stops[i] != position:
            return ()
        chosen = self._chosen(i, raw=raw)
        if raw and last and self.replay.at_end:  # "every event": a Step past the last event shows the summary too
            return self._summary(step_caption(chosen), position, now_ms, state)
        if not raw and chosen and (last or not any(c.meaningful for c in chosen)):  # the end: what the run showed
            return self._summary(step_caption(chosen), position, now_ms, state)
        return step_caption(chosen).lines

    def _chosen(self, i: int, *, raw: bool = False) -> list[Caption]:
        """The captions a caption of known stop ``i`` tells: its step's (``raw``), or every meaningful one since the
        last stop a Step lands on (the bookkeeping steps it passed add none)."""
        chosen = [self.captions[k] for k in self.segment(i)]
        if raw:
            return chosen
        j = i - 1
        while j >= 0 and not self.stop_is_meaningful(j):
            j -= 1
        first = self.known_stops[j] if j >= 0 else 0
        return [c for c in self.captions[first : self.known_stops[i]] if c.meaningful] or chosen

    def caption_about(self, position: int, subject: Subject) -> tuple[str, ...]:
        """The caption of the Step that reached ``position`` (a known stop), leading with ``subject``'s events after
        the mechanism's: a checkpoint's pause speaks of what its question is about
        (:func:`~rmqlab.narrate.step_caption`).
        """
        i = bisect.bisect_left(self.known_stops, position)
        if not 0 < i < len(self.known_stops) or self.known_stops[i] != position:
            return ()
        return step_caption(self._chosen(i), subject).lines

    def _summary(
        self, step: StepCaption, position: int, now_ms: int | None, state: LabSnapshot | None
    ) -> tuple[str, ...]:
        """What the whole run showed, up to ``position`` (:func:`rmqlab.narrate.end_caption`)."""
        lab = self.replay.lab
        events = (lab.trace[k] for k in range(position))
        said = self.captions[:position]
        when = lab.now if now_ms is None else now_ms
        where = self.replay.snapshot() if state is None else state
        return end_caption(step, events, now_ms=when, captions=said, state=where).lines
