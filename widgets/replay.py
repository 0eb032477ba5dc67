"""Deterministic replay: positions in a run, reached by stepping forward from a fresh Lab.

The engine cannot run backwards and a Lab cannot be copied (its timers are closures), so stepping
back rebuilds the scenario from a *factory* and replays it. The engine is deterministic, so that is
exact: a position is reached by the same scheduler steps every time.

**Position** = number of trace events. One scheduler step may append several events, or none (a
periodic timer with nothing to do), so the reachable positions are the trace lengths right after the
steps that appended something. ``seek(k)`` stops at the first such step with ``len(trace) >= k``;
whatever route led there (forward, or rebuild and replay), the Lab is in the same state.
"""

from __future__ import annotations

import bisect
import traceback
from collections.abc import Callable

from rmqlab import EventKind, Lab, parse_duration

from .snapshot import LabSnapshot, TraceIndex, take_snapshot

__all__ = ["Replay", "ReplayError"]


class ReplayError(RuntimeError):
    """The factory raised or did not return a Lab; the message carries the factory's traceback."""


class Replay:
    """A Lab plus a position in its trace, movable in both directions.

    ``horizon`` bounds virtual time: brokers and consumers keep periodic timers forever, so without
    a horizon "step to the next event" after the last message would never end. ``max_idle_steps``
    bounds scheduler steps that append nothing, for the same reason.
    """

    def __init__(
        self,
        make_lab: Callable[[], Lab],
        *,
        horizon: int | str = "6h",
        max_idle_steps: int = 200_000,
    ) -> None:
        self.make_lab = make_lab
        self.horizon_ms = parse_duration(horizon, "horizon")
        self.max_idle_steps = max_idle_steps
        self.builds = 0
        self.lab: Lab = self._build()
        self.index = TraceIndex()
        self.start = len(self.lab.trace)
        self._stops: list[int] = [self.start]
        self.at_end = False

    # ------------------------------------------------------------------ building
    def _build(self) -> Lab:
        try:
            lab = self.make_lab()
        except Exception as exc:
            raise ReplayError(
                f"make_lab() raised {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"
            ) from exc
        if not isinstance(lab, Lab):
            raise ReplayError(f"make_lab() returned {type(lab).__name__}, not a rmqlab.Lab")
        if not lab.trace.enabled:
            raise ReplayError("make_lab() built Lab(trace=False); the controller needs the trace")
        self.builds += 1
        return lab

    def rebuild(self) -> None:
        """A fresh Lab from the factory, at its initial position."""
        lab = self._build()
        self.lab, self.index = lab, TraceIndex()
        self.start = len(lab.trace)
        self._stops = [self.start]
        self.at_end = False

    # ------------------------------------------------------------------ position
    @property
    def position(self) -> int:
        """Number of trace events so far."""
        return len(self.lab.trace)

    @property
    def stops(self) -> tuple[int, ...]:
        """Every reachable position up to the current one, in order."""
        return tuple(self._stops)

    def _advance(self) -> bool:
        """Run scheduler steps until the trace grows; ``False`` at the horizon or when idle too long."""
        lab, before = self.lab, len(self.lab.trace)
        for _ in range(self.max_idle_steps):
            when = lab.scheduler.peek()
            if when is None or when > self.horizon_ms:
                self.at_end = True
                return False
            lab.step()
            if len(lab.trace) > before:
                self._stops.append(len(lab.trace))
                return True
        self.at_end = True
        return False

    def seek(self, k: int) -> int:
        """Go to the first reachable position >= ``k`` (or the end); returns the position reached."""
        if k < self.position:
            self.rebuild()
        while self.position < k and self._advance():
            pass
        return self.position

    def step_once(self) -> bool:
        """One reachable position forward; ``False`` if already at the end."""
        return self._advance()

    def step_back(self) -> int:
        """The previous reachable position (rebuild and replay); stays at the start if there."""
        i = bisect.bisect_left(self._stops, self.position)
        target = self._stops[i - 1] if i > 0 else self.start
        return self.seek(target)

    def jump_to_next(self, kind: EventKind | str) -> bool:
        """Step until an event of ``kind`` is appended; ``False`` (at the end) if none comes."""
        wanted = EventKind(kind)
        trace = self.lab.trace
        while True:
            seen = self.position
            if not self._advance():
                return False
            if any(trace[i].kind is wanted for i in range(seen, self.position)):
                return True

    def run_to_end(self) -> int:
        """Step to the horizon; returns the final position."""
        while self._advance():
            pass
        return self.position

    def snapshot(self) -> LabSnapshot:
        """The current state as immutable plain data."""
        return take_snapshot(self.lab, self.index)

    def end_position(self) -> int:
        """The final position, found on a throwaway Lab so this one does not move."""
        other = Replay(self.make_lab, horizon=self.horizon_ms, max_idle_steps=self.max_idle_steps)
        return other.run_to_end()
