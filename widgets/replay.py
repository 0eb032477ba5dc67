"""Deterministic replay: positions in a run, reached by stepping forward from a fresh Lab.

The engine cannot run backwards and a Lab cannot be copied (its timers are closures), so stepping
back rebuilds the scenario from a *factory* and replays it. The engine is deterministic, so that is
exact: a position is reached by the same scheduler steps every time.

**Position** = number of trace events. One scheduler step may append several events, or none (a
periodic timer with nothing to do), so the reachable positions are the trace lengths right after the
steps that appended something. ``seek(k)`` stops at the first such step with ``len(trace) >= k``;
whatever route led there (forward, or rebuild and replay), the Lab is in the same state.

**The run starts at event 0.** A consumer the factory starts records its start (and its first rebalance, and,
orderly, its locks) while the Lab is being built; the state before those events is the built Lab with that
consumer not started yet (:mod:`widgets.origin`), and the replay starts there, at position 0 and t = 0: its first
step reaches the end of the build. (A factory that sends or runs while building has no such state: the replay
starts where the factory left it.)

**Injected faults** make a replay "factory + faults": each :class:`InjectedFault` is scheduled with
``lab.at`` right after the factory returns, as ordinary work (through a wrapper, so at ``Priority.NORMAL``: it
acts after what of its millisecond was already shown), so a run with a broker crash injected at *t* is the very
run of a factory whose last action was ``lab.at(t, lambda: lab.broker_down(...))`` — same trace, byte for byte.
(A bare ``lab.at(t, lab.broker_down, ...)`` is a fault and acts first in its millisecond: see rmqlab.core.scheduler.)
"""

from __future__ import annotations

import bisect
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from rmqlab import EventKind, Lab, format_duration, parse_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.lab import faults as fault_registry
from rmqlab.snapshot import LabSnapshot, TraceIndex, take_snapshot

from .origin import origin_snapshot
from .replay_cuts import Cut, StepCuts

__all__ = ["FAULT_KINDS", "InjectedFault", "Replay", "ReplayError", "RunOutline", "fault_target"]

_DASHBOARD = {fault.kind: fault for fault in fault_registry.FAULTS if fault.dashboard}
FAULT_KINDS: dict[str, str] = {kind: str(fault.dashboard) for kind, fault in _DASHBOARD.items()}
"""Fault kinds a controller can inject → what the list of injected faults calls them. Read from
rmqlab/lab/faults/kinds.py, the one registry (the kinds with a ``dashboard`` label: ``broker_down``, ``broker_up``,
``partition``, ``heal``,
``consumer_crash``, ``consumer_restart``), so a dashboard fault is the scenario file's fault of the same name.
Shown translated (:attr:`InjectedFault.label`); the labels are marked for the catalog in :data:`_LABELS`."""
_LABELS = (N_("crash"), N_("restart"), N_("partition"), N_("heal"), N_("crash consumer"), N_("restart consumer"))
"""The registry's ``dashboard`` labels, for Babel (``tests/test_i18n_dashboard.py`` checks they are these)."""


def fault_target(kind: str) -> str:
    """What ``kind``'s target names: ``broker``, ``consumer`` or ``client`` (then a broker is the other end)."""
    return str(_DASHBOARD[kind].params[0].ref)


@dataclass(frozen=True, slots=True)
class InjectedFault:
    """``kind`` applied to ``target`` at virtual time ``at_ms``; ``broker`` is the other end of a partition."""

    at_ms: int
    kind: str
    target: str
    broker: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"kind={self.kind!r} is not a fault; expected one of {sorted(FAULT_KINDS)}")
        if fault_target(self.kind) == "client" and not self.broker:
            raise ValueError(f"broker={self.broker!r}: a {self.kind} needs the broker on the other end of the link")
        if not isinstance(self.at_ms, int) or self.at_ms < 0:
            raise ValueError(f"at_ms={self.at_ms!r}; expected an int of virtual ms >= 0")

    @property
    def spec(self) -> dict[str, str]:
        """The scenario file's fault entry for it, without ``at``: ``{"kind": "partition", "client": "c1",
        "broker": "broker-a"}``."""
        target = _DASHBOARD[self.kind].params[0].name
        link = fault_target(self.kind) == "client"
        return {"kind": self.kind, target: self.target, **({"broker": str(self.broker)} if link else {})}

    def apply(self, lab: Lab) -> None:
        """Do it now, as the registry does a scenario file's entry (the Lab's public fault API, what a factory
        would have scheduled: ``lab.broker_down(name)``, ``lab.consumer(id).crash()``, ``lab.partition(...)`` …)."""
        fault_registry.apply(lab, self.spec)

    @property
    def label(self) -> str:
        """``t = 5 s: crash broker broker-a`` (for the list of injected faults)."""
        what = _(FAULT_KINDS[self.kind])
        who = f"{self.target} ↔ {self.broker}" if self.broker else self.target
        return _("t = {time}: {what} {who}").format(time=format_duration(self.at_ms), what=what, who=who)


@dataclass(frozen=True, slots=True)
class RunOutline:
    """The whole run seen from its start: how long it is, and the kind of every event in it.

    The controller knows from it, at any position, which kinds of event are still to come, so its Jump box
    offers only those (with how many), instead of running to the horizon to find that none is left.
    """

    kinds: tuple[EventKind, ...]
    """``kinds[i]`` is the kind of trace event ``i``; the run ends at position ``len(kinds)``."""

    @property
    def end(self) -> int:
        """The final position."""
        return len(self.kinds)

    def ahead(self, position: int, until: int | None = None) -> Counter[EventKind]:
        """How many events of each kind come after ``position`` (events ``position`` … ``end − 1``; or only those
        before ``until``: a move forward stops at an unanswered checkpoint, so a Jump box lists only what it can
        reach)."""
        return Counter(self.kinds[position:until])


class ReplayError(RuntimeError):
    """The factory raised or did not return a Lab; the message carries the factory's traceback."""


class Replay:
    """A Lab plus a position in its trace, movable in both directions.

    ``horizon`` bounds virtual time: brokers and consumers keep periodic timers forever, so without
    a horizon "step to the next event" after the last message would never end. Steps that append nothing
    but move virtual time on are bounded by the horizon alone: however many queues sit idle (each held pull
    is answered 15–20 s after it was held), a send scheduled an hour later is still reached. ``max_idle_steps``
    bounds only the steps that append nothing *within one virtual millisecond* — a timer that reschedules itself at
    the same time forever — after which the replay stops there (``at_end``).
    """

    def __init__(
        self,
        make_lab: Callable[[], Lab],
        *,
        horizon: int | str = "6h",
        max_idle_steps: int = 200_000,
        faults: Iterable[InjectedFault] = (),
        cuts: Sequence[Cut] = (),
    ) -> None:
        self.make_lab = make_lab
        self.cuts = StepCuts(cuts, lambda: take_snapshot(self.lab, self.index))
        """Positions inside a scheduler step to stop at too (a checkpoint's event that is not its step's first)."""
        self._held: int | None = None
        """A position cut inside the last step, shown while the Lab is already at that step's end."""
        self._ahead: list[int] = []
        """The rest of the last step's positions (its other cuts, then its end), not shown yet."""
        self.horizon_ms = parse_duration(horizon, "horizon")
        self.max_idle_steps = max_idle_steps
        self.faults: tuple[InjectedFault, ...] = tuple(faults)
        self.fired: set[int] = set()
        """Indexes into :attr:`faults` of the faults that have been applied in the current Lab."""
        self.builds = 0
        self.lab: Lab = self._build()
        self.index = TraceIndex()
        self.origin: LabSnapshot | None = None
        """The state before the build's events (the replay is there until its first step), or ``None``."""
        self._at_origin = False
        self.start = 0
        self._stops: list[int] = []
        self.at_end = False
        self.cuts.attach(self.lab)
        self._start_at_origin()

    def _start_at_origin(self) -> None:
        """Stand at the run's first position: before the build's events when they are only consumer starts."""
        self.origin = origin_snapshot(take_snapshot(self.lab, self.index)) if len(self.lab.trace) else None
        self._at_origin = self.origin is not None
        self.start = 0 if self._at_origin else len(self.lab.trace)
        self._stops = [self.start]
        self.at_end = False
        self._held, self._ahead = None, []

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
        self.fired = set()
        for i, fault in enumerate(self.faults):
            if fault.at_ms < lab.now:
                raise ReplayError(f"{fault.label}: the factory's Lab is already at {lab.now} ms")
            lab.at(fault.at_ms, self._fire, lab, i)
        self.builds += 1
        return lab

    def _fire(self, lab: Lab, i: int) -> None:
        self.fired.add(i)
        self.faults[i].apply(lab)

    def rebuild(self) -> None:
        """A fresh Lab from the factory, at its initial position."""
        lab = self._build()
        self.lab, self.index = lab, TraceIndex()
        self.cuts.attach(lab)
        self._start_at_origin()

    # ------------------------------------------------------------------ position
    @property
    def position(self) -> int:
        """Number of trace events so far (0 before the build's events: :attr:`origin`; at a cut inside a step, the
        events before it)."""
        if self._held is not None:
            return self._held
        return 0 if self._at_origin else len(self.lab.trace)

    @property
    def stops(self) -> tuple[int, ...]:
        """Every reachable position up to the current one, in order."""
        return tuple(self._stops)

    @property
    def stop_count(self) -> int:
        """How many reachable positions up to the current one (``len(stops)`` without copying them)."""
        return len(self._stops)

    def stops_since(self, i: int) -> list[int]:
        """The reachable positions from the ``i``-th on (a copy of only those)."""
        return self._stops[i:]

    def _advance(self) -> bool:
        """Run scheduler steps until the trace grows; ``False`` at the horizon, or after ``max_idle_steps`` steps
        that appended nothing without virtual time moving on."""
        lab, before = self.lab, len(self.lab.trace)
        if self._ahead:  # the rest of a step already run: its next cut, or its end
            nxt = self._ahead.pop(0)
            self._held = nxt if self._ahead else None
            self._stops.append(nxt)
            return True
        if self._at_origin:  # the first step: what the build recorded
            self._at_origin = False
            self._stops.append(before)
            return True
        now, idle = lab.now, 0
        while True:
            when = lab.scheduler.peek()
            if when is None or when > self.horizon_ms:
                self.at_end = True
                return False
            inside = self.cuts.run_step(lab)
            if len(lab.trace) > before:
                if inside:  # stop at its first cut; the others, then its end, are the next positions
                    self._ahead = [*inside[1:], len(lab.trace)]
                    self._held = inside[0]
                self._stops.append(self.position)
                return True
            if lab.now != now:
                now, idle = lab.now, 0
                continue
            idle += 1
            if idle >= self.max_idle_steps:
                self.at_end = True
                return False

    def seek(self, k: int) -> int:
        """Go to the first reachable position >= ``k`` (or the end); returns the position reached."""
        if k < self.position:
            self.rebuild()
        with self.lab.stepping():  # one Ctrl-C handler for the walk, not one per scheduler step
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

    def seek_time(self, time_ms: int) -> int:
        """Go to the first reachable position whose virtual time is >= ``time_ms`` (or the end)."""
        if self.position > self.start:
            self.rebuild()
        with self.lab.stepping():  # hours of virtual time are tens of thousands of steps: one handler for them all
            while self.lab.now < time_ms and self._advance():
                pass
        return self.position

    def seek_fired(self, i: int) -> int:
        """From the start, the first reachable position after fault ``i`` was applied (or the end)."""
        self.rebuild()
        with self.lab.stepping():
            while i not in self.fired and self._advance():
                pass
        return self.position

    def jump_to_next(self, kind: EventKind | str) -> bool:
        """Step until an event of ``kind`` is appended; ``False`` (at the end) if none comes."""
        wanted = EventKind(kind)
        trace = self.lab.trace
        with self.lab.stepping():
            while True:
                seen = self.position
                if not self._advance():
                    return False
                if any(trace[i].kind is wanted for i in range(seen, self.position)):
                    return True

    def run_to_end(self) -> int:
        """Step to the horizon; returns the final position."""
        with self.lab.stepping():
            while self._advance():
                pass
        return self.position

    def snapshot(self) -> LabSnapshot:
        """The current state as immutable plain data."""
        if self._at_origin and self.origin is not None:
            return self.origin
        if self._held is not None:
            return self.cuts.snapshots[self._held]
        return take_snapshot(self.lab, self.index)

    def end_position(self) -> int:
        """The final position, found on a throwaway Lab so this one does not move."""
        return self.outline().end

    def outline(self) -> RunOutline:
        """The whole run (its end and every event's kind), found on a throwaway Lab so this one does not move."""
        other = Replay(self.make_lab, horizon=self.horizon_ms, max_idle_steps=self.max_idle_steps, faults=self.faults)
        other.run_to_end()
        return RunOutline(tuple(event.kind for event in other.lab.trace))
