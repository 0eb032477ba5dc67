"""Cuts inside one scheduler step: a position between two events the engine appends in the same step.

A SYNC send makes all its tries in one scheduler step (4.9.7 ``DefaultMQProducerImpl.sendDefaultImpl`` loops over
them in the caller's thread; a connection to a broker that is down fails at once), so a replay that stops only
between scheduler steps has no position between try 1's failure and try 2 — and a checkpoint cannot pause there to
ask where try 2 goes. A :class:`StepCuts` makes such a position without changing the run: it watches the events as
the engine appends them (:meth:`rmqlab.core.trace.Trace.watch`, which only reads) and, just before an event a
checkpoint pauses before, if that event is not the first of its step, it takes the snapshot of the engine's state
right there — the state after the events before it and before the event itself, taken from the engine, not rebuilt
from the trace. :class:`~widgets.replay.Replay` then shows that position as a stop of its own (with that snapshot)
before the rest of the step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from rmqlab import Lab, TraceEvent
from rmqlab.snapshot import LabSnapshot

__all__ = ["Cut", "StepCuts"]


class Cut(Protocol):
    """Which event to cut before: the ``nth`` event that :meth:`matches` (a :class:`~widgets.checkpoints.Checkpoint`
    is one)."""

    @property
    def nth(self) -> int: ...
    def matches(self, event: TraceEvent) -> bool: ...


class StepCuts:
    """The cuts of one Lab's run: each position inside a step before a wanted event, with the engine's state there."""

    def __init__(self, cuts: Sequence[Cut], snapshot: Callable[[], LabSnapshot]) -> None:
        self.cuts = tuple(cuts)
        self._snapshot = snapshot
        self._seen = [0] * len(self.cuts)
        """Per cut: how many matching events so far."""
        self._step_start: int | None = None
        """The trace length when the scheduler step being run began (``None``: no step is running)."""
        self._cut_in_step: list[int] = []
        """The positions cut inside the scheduler step being run (or the last one), in the order they came."""
        self.snapshots: dict[int, LabSnapshot] = {}
        """Position (trace length) inside a step → the engine's state there."""

    def attach(self, lab: Lab) -> None:
        """Watch ``lab``'s trace (a fresh Lab: the counts start again)."""
        self._seen = [0] * len(self.cuts)
        self._step_start = None
        self._cut_in_step = []
        self.snapshots = {}
        if self.cuts:
            lab.trace.watch(lambda event: self._before(event, lab))

    def run_step(self, lab: Lab) -> list[int]:
        """Run one scheduler step of ``lab``; returns the positions cut inside it, in order (the trace only grows, so
        the order they came in)."""
        if not self.cuts:  # nothing to watch for: the step as it is
            lab.step()
            return []
        self._step_start, self._cut_in_step = len(lab.trace), []
        try:
            lab.step()
        finally:
            self._step_start = None
        return self._cut_in_step

    def _before(self, event: TraceEvent, lab: Lab) -> None:
        for i, cut in enumerate(self.cuts):
            if not cut.matches(event):
                continue
            self._seen[i] += 1
            position = len(lab.trace)
            inside = self._step_start is not None and position > self._step_start
            if self._seen[i] == cut.nth and inside and position not in self.snapshots:
                self.snapshots[position] = self._snapshot()
                self._cut_in_step.append(position)
