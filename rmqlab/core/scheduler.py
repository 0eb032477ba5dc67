"""The one virtual clock and the one event heap.

Every action in a run is a callback scheduled at an integer millisecond. The heap is keyed by
``(time_ms, priority, seq)``:

* ``time_ms`` — virtual time; nothing in rmqlab reads the wall clock.
* ``priority`` — a :class:`Priority`; at the same millisecond, lower runs first.
* ``seq`` — a counter that increases with every ``schedule`` call; equal time and priority run in
  the order they were scheduled, which makes every run reproducible byte for byte.

**The ordering rule for one millisecond** (the same through ``lab.at``, the Lab's fault methods and
scenario files): faults take effect first, then everything else, each group in the order it was scheduled.
A fault is any call of the fault registry (:mod:`rmqlab.lab.faults`: ``lab.broker_down`` / ``broker_up``,
``lab.set_broker_fault``, ``lab.partition``, ``lab.update_topic`` / ``update_subscription_group``, a
consumer's ``crash`` / ``start`` / ``shutdown``), whether a scenario file's ``faults`` entry or
``lab.at(t, lab.broker_down, "broker-a")`` scheduled it: it runs at :attr:`Priority.FAULT`. So a broker that
goes down at t=5000 refuses a send also scheduled at t=5000, whichever was written first. Everything else —
sends, pulls, consumption, the engine's own timers, a ``lab.at`` of anything that is not a registered fault
(a lambda wrapping a fault included) — runs at :attr:`Priority.NORMAL`, in schedule order. A scenario consumer
with ``start_order: after_sends`` is started at NORMAL priority, scheduled after every send of the file, so that
millisecond's faults and sends come before its start.

Every entry the engine schedules carries a :class:`TimerLabel`: what RocketMQ timer or wait it stands for
(:class:`TimerKind`), who owns it, and the queue / messages / delay level it is about. The label changes
nothing in how the loop runs; it is what lets :meth:`Lab.snapshot` list the timers a student would see
ticking (the 20 s rebalance, a 5 s local retry, a delay level's next delivery …).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import IntEnum
from heapq import heappop, heappush
from itertools import count
from typing import Any

from .errors import SimulationError
from .loop_guards import MAX_EVENTS_PER_INSTANT, SpinError, sigint_handled_by
from .timers import PERIODIC_TIMER_KINDS, TimerKind, TimerLabel

__all__ = [
    "MAX_EVENTS_PER_INSTANT",
    "PERIODIC_TIMER_KINDS",
    "Priority",
    "ReentrantRunError",
    "Scheduler",
    "SpinError",
    "Timer",
    "TimerKind",
    "TimerLabel",
]


class ReentrantRunError(SimulationError):
    """``run()`` or ``step()`` was called from inside the loop (a listener or a ``lab.at`` action).

    The inner call would run later events, then the outer loop would resume an event from the past: the
    clock would move backwards. Work that should happen later is scheduled with ``lab.at(time, ...)``.
    """


class Priority(IntEnum):
    """Tie-break among events of the same millisecond (lower first; see the module's ordering rule)."""

    FAULT = 0
    """A call of the fault registry (broker down/up, broker faults, partitions, consumer crash/start/shutdown,
    timed mqadmin commands), from a scenario file or ``lab.at``: it changes the world before anything else runs."""
    NORMAL = 1
    """Everything else: sends, pulls, consumption, the engine's periodic and one-shot timers, other ``lab.at``
    actions."""


class Timer:
    """A handle to a scheduled callback; ``cancel()`` makes it a no-op when its time comes.

    Its time is in its heap entry, ``(time_ms, priority, seq, timer)``.
    """

    __slots__ = ("args", "callback", "cancelled", "label")

    def __init__(self, callback: Callable[..., Any], args: tuple[Any, ...], label: TimerLabel | None = None) -> None:
        self.callback = callback
        self.args = args
        self.cancelled = False
        self.label = label

    def cancel(self) -> None:
        """Prevent the callback from running (the heap entry stays and is skipped)."""
        self.cancelled = True


def describe_event(callback: Callable[..., Any], label: TimerLabel | None) -> str:
    """What an event is, for error messages: its label (kind, owner, queue, detail) and the code it runs (for a
    process: the generator function it is in, such as ``PullMessageService._pull_loop``)."""
    owner = getattr(callback, "__self__", None)
    gen = getattr(owner, "_gen", None)
    code = getattr(gen, "__qualname__", None) or getattr(callback, "__qualname__", repr(callback))
    if label is None:
        return f"an unlabelled event running {code}"
    where = f" on {label.queue}" if label.queue is not None else ""
    detail = f" ({label.detail})" if label.detail else ""
    return f"a {label.kind.value} event of {label.owner}{where}{detail} running {code}"


class Scheduler:
    """A deterministic discrete-event loop in virtual milliseconds.

    Three verbs drive it: :meth:`peek` (when is the next event), :meth:`step` (run one) and
    :meth:`run` (run until a time or until the heap is empty).
    """

    def __init__(self) -> None:
        self.now: int = 0
        self._heap: list[tuple[int, Priority, int, Timer]] = []
        self._seqs = count(1)
        """Each entry's ``seq``: 1, 2, 3 … in the order of the ``schedule`` calls."""
        self.steps = 0
        self.max_events_per_instant = MAX_EVENTS_PER_INSTANT
        """The spin guard's limit (:class:`SpinError`); a test may lower it."""
        self._same_instant = 0
        """Events run in a row at ``now`` (the spin guard's count)."""
        self._in_loop = False
        """True while :meth:`run` or :meth:`step` runs a callback (re-entry is refused)."""
        self._interrupt: BaseException | None = None
        """A ``KeyboardInterrupt`` / ``SystemExit`` (or re-entry error) from user code the engine absorbed, or a Ctrl-C
        that arrived while engine code ran; re-raised by the loop once the event that caught it has returned, so the
        engine's state is consistent."""
        self._user_code = 0
        """How deep the loop is in user code (a listener, a ``lab.at`` action): there a Ctrl-C is raised at once."""
        self._sigint_held = False
        """True inside :meth:`handling_interrupts`: the SIGINT handler is installed already."""

    def interrupt_after_event(self, exc: BaseException) -> None:
        """Make :meth:`run` / :meth:`step` raise ``exc`` as soon as the current event's callback returns.

        Engine code that calls user code (a listener) catches ``BaseException`` to keep its own state consistent,
        then hands the exception here so a student's Ctrl-C still stops the run.
        """
        if self._interrupt is None:
            self._interrupt = exc

    @property
    def in_user_code(self) -> bool:
        """True while a listener runs (:meth:`call_user_code`)."""
        return self._user_code > 0

    def call_user_code(self, action: Callable[..., Any], *args: Any) -> Any:
        """``action(*args)``, marked as user code (a listener): a Ctrl-C while it runs is raised in it at once (so a
        listener stuck in ``while True`` can be stopped), and the engine code around the call catches it
        (``run_listener``). Its result, or what it raised, goes to the caller."""
        self._user_code += 1
        try:
            return action(*args)
        finally:
            self._user_code -= 1

    def _on_sigint(self, signum: int, frame: Any) -> None:
        """The SIGINT handler while the loop runs. A Ctrl-C in engine code would stop a process's generator half-way
        (a heartbeat or route-poll thread would die for good, a lock would stay held), so it is put off until the
        current event has returned: ``run()`` then raises ``KeyboardInterrupt`` between two events, and ``run()``
        again goes on exactly as if it had never been interrupted. In a listener it is raised at once, and so is a
        second Ctrl-C before the first was raised (a ``lab.at`` action stuck in a loop can still be stopped)."""
        if self._user_code or self._interrupt is not None:
            raise KeyboardInterrupt  # in a listener, or a second Ctrl-C while one is pending: now
        self.interrupt_after_event(KeyboardInterrupt())

    def _raise_interrupt(self) -> None:
        exc, self._interrupt = self._interrupt, None
        if exc is not None:
            raise exc

    def _refuse_reentry(self) -> None:
        if self._in_loop:
            raise ReentrantRunError(
                f"lab.run() / lab.step() called at now={self.now} ms while the lab is already running (from a "
                "listener or a lab.at action): the clock would move backwards; schedule later work with "
                "lab.at(time, ...) and call run() only from the notebook"
            )

    def has_periodic_timers(self) -> bool:
        """True when a self-re-arming timer (:data:`PERIODIC_TIMER_KINDS`) is pending: the heap never empties."""
        return any(
            not timer.cancelled and timer.label is not None and timer.label.kind in PERIODIC_TIMER_KINDS
            for _, _, _, timer in self._heap
        )

    def schedule(
        self,
        delay_ms: int,
        callback: Callable[..., Any],
        *args: Any,
        priority: Priority = Priority.NORMAL,
        label: TimerLabel | None = None,
    ) -> Timer:
        """Run ``callback(*args)`` ``delay_ms`` from now; returns a cancellable :class:`Timer`.

        The one place an entry enters the heap: the next ``seq`` breaks ties.
        """
        if delay_ms < 0:
            raise SimulationError(f"delay_ms={delay_ms} is negative: events cannot go back in time")
        timer = Timer(callback, args, label)
        heappush(self._heap, (self.now + delay_ms, priority, next(self._seqs), timer))
        return timer

    def schedule_at(
        self,
        time_ms: int,
        callback: Callable[..., Any],
        *args: Any,
        priority: Priority = Priority.NORMAL,
        label: TimerLabel | None = None,
    ) -> Timer:
        """Run ``callback(*args)`` at absolute virtual time ``time_ms`` (not before now)."""
        if time_ms < self.now:
            raise SimulationError(f"time_ms={time_ms} is before now={self.now}")
        return self.schedule(time_ms - self.now, callback, *args, priority=priority, label=label)

    def peek(self) -> int | None:
        """Virtual time of the next live event, or ``None`` when nothing is scheduled."""
        heap = self._heap
        while heap and heap[0][3].cancelled:
            heappop(heap)
        return heap[0][0] if heap else None

    @contextmanager
    def handling_interrupts(self) -> Iterator[None]:
        """Let SIGINT reach :meth:`_on_sigint` (a Ctrl-C put off until the current event has returned) for as long as
        the block lasts. :meth:`run` and :meth:`step` open it themselves; a caller that steps one run many times
        (a dashboard's frames: tens of thousands of :meth:`step` calls) opens it once around the walk, because
        installing the handler and putting the old one back at every step cost more than the events themselves.
        A Ctrl-C that came between two steps of such a walk is raised by the next step, or when the block ends."""
        if self._sigint_held:
            yield
            return
        with sigint_handled_by(self._on_sigint):
            self._sigint_held = True
            try:
                yield
            finally:
                self._sigint_held = False
        self._raise_interrupt()

    def step(self) -> bool:
        """Run the next live event; return ``False`` when the heap is empty.

        Inside :meth:`handling_interrupts` (a walk of many steps, :meth:`Lab.stepping`) the SIGINT handler is already
        there and the step runs at once; alone, it sets the handler up for this one step."""
        self._refuse_reentry()
        if self._sigint_held:
            ran = self._run_next()
        else:
            with self.handling_interrupts():
                ran = self._run_next()
        if not ran:
            return False
        self._raise_interrupt()
        return True

    def _run_next(self) -> bool:
        """Pop the cancelled entries on top of the heap and run the first live one; ``False`` when none is left."""
        heap = self._heap
        while heap:
            entry = heappop(heap)
            if entry[3].cancelled:
                continue
            self._in_loop = True
            try:
                self._run_entry(entry)
            finally:
                self._in_loop = False
            return True
        return False

    def run(self, until: int | None = None) -> None:
        """Run events up to and including ``until`` (all of them when ``None``), then set the clock.

        ``until`` in the past is a mistake in the caller and raises :class:`SimulationError`; so is a call from
        inside the loop (:class:`ReentrantRunError`). An interrupt absorbed by the engine
        (:meth:`interrupt_after_event`), a Ctrl-C included, stops the loop after its event, with the clock at that
        event's time: ``run(until)`` again carries on as if nothing had happened. :class:`SpinError` stops a loop
        that would never let the clock move.
        """
        self._refuse_reentry()
        if until is not None and until < self.now:
            raise SimulationError(f"until={until} is before now={self.now}; virtual time only moves forward")
        self._in_loop = True
        try:
            with self.handling_interrupts():
                self._run_loop(until)
        finally:
            self._in_loop = False
        self._raise_interrupt()  # a Ctrl-C after the last event: the run is complete, but it still stops here
        if until is not None:
            self.now = until

    def _run_loop(self, until: int | None) -> None:
        heap = self._heap
        while heap and (until is None or heap[0][0] <= until):
            entry = heappop(heap)
            if entry[3].cancelled:
                continue
            self._run_entry(entry)
            if self._interrupt is not None:
                self._raise_interrupt()

    def _run_entry(self, entry: tuple[int, Priority, int, Timer]) -> None:
        """Run one popped, live entry: move the clock, count it for the spin guard, call it."""
        time_ms, _, _, timer = entry
        if time_ms != self.now:
            self.now = time_ms
            self._same_instant = 0
        self._same_instant += 1
        if self._same_instant > self.max_events_per_instant:
            heappush(self._heap, entry)  # not run: the engine stays as it was
            self._same_instant = 0
            raise SpinError(
                f"run() is stuck at {time_ms} ms: {self.max_events_per_instant:,} events in a row at this one "
                f"virtual millisecond, the last {describe_event(timer.callback, timer.label)}; something reschedules "
                "itself with no delay for ever, so virtual time would never move on"
            )
        self.steps += 1
        timer.callback(*timer.args)

    def pending(self) -> int:
        """Number of heap entries (including cancelled ones not yet skipped)."""
        return len(self._heap)

    def due_time(self, timer: Timer) -> int | None:
        """When ``timer`` will run (None once it ran or was cancelled): for views, which name what a timer is for."""
        if timer.cancelled:
            return None
        return next((t for t, _, _, entry in self._heap if entry is timer), None)

    def timers(self) -> list[tuple[int, Priority, int, TimerLabel | None]]:
        """Every live entry as (time, priority, seq, label), in the order the loop will run them (for views)."""
        return [(t, Priority(p), seq, timer.label) for t, p, seq, timer in sorted(self._heap) if not timer.cancelled]
