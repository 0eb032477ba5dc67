"""The one virtual clock and the one event heap.

Every action in a run is a callback scheduled at an integer millisecond. The heap is keyed by
``(time_ms, priority, seq)``:

* ``time_ms`` — virtual time; nothing in rmqlab reads the wall clock.
* ``priority`` — a :class:`Priority`; at the same millisecond, lower runs first. We chose the order
  on purpose: faults and lock expiry happen *before* the ordinary work of that millisecond, so a
  broker that goes down at t=5000 refuses a send also scheduled at t=5000.
* ``seq`` — a counter that increases with every ``schedule`` call; equal time and priority run in
  the order they were scheduled, which makes every run reproducible byte for byte.
"""

from __future__ import annotations

import gc
import heapq
from collections.abc import Callable
from enum import IntEnum
from typing import Any

from .errors import SimulationError

__all__ = ["Priority", "Scheduler", "Timer"]


class Priority(IntEnum):
    """Tie-break among events of the same millisecond (lower first)."""

    FAULT = 0
    """Injected faults (broker down/up, crashes) change the world before anything else runs."""
    EXPIRY = 1
    """Lease checks (lock expiry, membership expiry) see the state as of the start of the ms."""
    NORMAL = 2
    """Ordinary work: sends, pulls, consumption, schedule-service ticks."""
    TIMER = 3
    """Periodic housekeeping (rebalance, offset persistence) runs after that ms's work."""


class Timer:
    """A handle to a scheduled callback; ``cancel()`` makes it a no-op when its time comes."""

    __slots__ = ("args", "callback", "cancelled", "time_ms")

    def __init__(self, time_ms: int, callback: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.time_ms = time_ms
        self.callback = callback
        self.args = args
        self.cancelled = False

    def cancel(self) -> None:
        """Prevent the callback from running (the heap entry stays and is skipped)."""
        self.cancelled = True


class Scheduler:
    """A deterministic discrete-event loop in virtual milliseconds.

    Three verbs drive it: :meth:`peek` (when is the next event), :meth:`step` (run one) and
    :meth:`run` (run until a time or until the heap is empty).
    """

    def __init__(self) -> None:
        self.now: int = 0
        self._heap: list[tuple[int, int, int, Timer]] = []
        self._seq = 0
        self.steps = 0

    def schedule(
        self,
        delay_ms: int,
        callback: Callable[..., Any],
        *args: Any,
        priority: Priority = Priority.NORMAL,
    ) -> Timer:
        """Run ``callback(*args)`` ``delay_ms`` from now; returns a cancellable :class:`Timer`."""
        if delay_ms < 0:
            raise SimulationError(f"delay_ms={delay_ms} is negative: events cannot go back in time")
        return self.schedule_at(self.now + delay_ms, callback, *args, priority=priority)

    def schedule_at(
        self,
        time_ms: int,
        callback: Callable[..., Any],
        *args: Any,
        priority: Priority = Priority.NORMAL,
    ) -> Timer:
        """Run ``callback(*args)`` at absolute virtual time ``time_ms`` (not before now)."""
        if time_ms < self.now:
            raise SimulationError(f"time_ms={time_ms} is before now={self.now}")
        timer = Timer(time_ms, callback, args)
        self._seq += 1
        heapq.heappush(self._heap, (time_ms, int(priority), self._seq, timer))
        return timer

    def peek(self) -> int | None:
        """Virtual time of the next live event, or ``None`` when nothing is scheduled."""
        heap = self._heap
        while heap and heap[0][3].cancelled:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def step(self) -> bool:
        """Run the next live event; return ``False`` when the heap is empty."""
        heap = self._heap
        while heap:
            time_ms, _, _, timer = heapq.heappop(heap)
            if timer.cancelled:
                continue
            self.now = time_ms
            self.steps += 1
            timer.callback(*timer.args)
            return True
        return False

    def run(self, until: int | None = None) -> None:
        """Run events up to and including ``until`` (all of them when ``None``), then set the clock.

        ``until`` in the past is a mistake in the caller and raises :class:`SimulationError`.
        """
        if until is not None and until < self.now:
            raise SimulationError(f"until={until} is before now={self.now}; virtual time only moves forward")
        # The loop allocates millions of short-lived objects that refcounting frees; the cyclic GC would
        # only rescan them (a fifth of the run time). Pause it for the loop and restore it afterwards.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            self._run_loop(until)
        finally:
            if gc_was_enabled:
                gc.enable()
        if until is not None:
            self.now = until

    def _run_loop(self, until: int | None) -> None:
        heap = self._heap
        pop = heapq.heappop
        while heap:
            entry = heap[0]
            if until is not None and entry[0] > until:
                break
            pop(heap)
            timer = entry[3]
            if timer.cancelled:
                continue
            self.now = entry[0]
            self.steps += 1
            timer.callback(*timer.args)

    def pending(self) -> int:
        """Number of heap entries (including cancelled ones not yet skipped)."""
        return len(self._heap)
