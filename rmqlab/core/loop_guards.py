"""The loop's two guards: against a run that never lets the clock move, and against a Ctrl-C that lands in engine code.

* :class:`SpinError`: an event that reschedules itself with no delay for ever would make ``run()`` spin at one
  virtual millisecond and never return; the scheduler counts the events run in a row at one millisecond and stops
  past :data:`MAX_EVENTS_PER_INSTANT`, naming the last event.
* :func:`sigint_handled_by`: while the loop runs, SIGINT goes to the scheduler, which puts a Ctrl-C off until the
  current event has returned (see ``Scheduler._on_sigint``), so that an interrupted run can be resumed.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .errors import SimulationError

__all__ = ["MAX_EVENTS_PER_INSTANT", "SpinError", "sigint_handled_by"]


class SpinError(SimulationError):
    """``run()`` ran :data:`MAX_EVENTS_PER_INSTANT` events in a row without the clock moving: something reschedules
    itself at the same millisecond for ever (a pull answered "nothing" and re-sent at once, a ``lab.at`` action that
    schedules itself at ``lab.now`` …). Virtual time would never advance and ``run()`` would never return, so the
    loop stops with this error naming the last event; the entry is put back, so the engine's state is as it was."""


MAX_EVENTS_PER_INSTANT = 1_000_000
"""How many events may run at one virtual millisecond before :class:`SpinError`. The largest real burst (every
consumer of a 1,024-queue lab pulling each queue at start, thousands of sends scheduled at one time) is a few
tens of thousands; a million is far above any of them and is reached in a few seconds of wall time."""


@contextmanager
def sigint_handled_by(handler: Callable[[int, Any], None]) -> Iterator[None]:
    """Install ``handler`` for SIGINT for the duration, then put the previous one back.

    Only in the main thread (Python runs signal handlers there, and ``signal.signal`` refuses other threads); an
    ignored SIGINT stays ignored. Jupyter's kernel interrupt is a SIGINT too, so the notebook's "stop" button and a
    terminal's Ctrl-C behave the same.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) in (
        signal.SIG_IGN,
        None,
    ):
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
