"""``RebalanceService``: the one thread that runs a client's rebalances, and how it is woken.

4.9.7's loop is two lines — ``while (!stopped) { waitForRunning(20000); doRebalance(); }`` — and the timing
lives in ``ServiceThread``:

* ``waitForRunning(20000)`` waits up to 20 s, but ``wakeup()`` ends the wait at once; after the rebalance that
  follows, the next wait is a full 20 s again. So a rebalance triggered by a group change (the broker's
  NOTIFY_CONSUMER_IDS_CHANGED, or the consumer's own start: ``rebalanceImmediately``) *restarts* the 20 s
  period: there is no fixed 20 s grid from start.
* ``wakeup()`` while a rebalance runs sets ``hasNotified``: the next ``waitForRunning`` returns at once, so
  the change is looked at by one more rebalance straight after, and several wake-ups meanwhile count as one.

Rebalances never overlap: there is one thread. Here it is a process of the client's
:class:`~rmqlab.core.process.ProcessGroup`; ending its wait early is done by replacing the waiting process with one
that goes straight to ``doRebalance`` (the wait is a plain :class:`~rmqlab.core.process.Sleep`, which a crash
cancels like every other).

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/RebalanceService.java
    (RebalanceService.run)
Mirrors: common/src/main/java/org/apache/rocketmq/common/ServiceThread.java
    (ServiceThread.waitForRunning, ServiceThread.wakeup)
"""

from __future__ import annotations

from collections.abc import Callable

from ...core.process import Body, Process, ProcessGroup, Sleep
from ...core.scheduler import TimerLabel

__all__ = ["REBALANCE_WAIT_INTERVAL_MS", "RebalanceService"]

REBALANCE_WAIT_INTERVAL_MS = 20_000
"""``rocketmq.client.rebalance.waitInterval``: 20 s."""


class RebalanceService:
    """One rebalance at a time; each after a 20 s wait that a :meth:`wakeup` cuts short."""

    def __init__(self, processes: ProcessGroup, label: TimerLabel, do_rebalance: Callable[[], Body]) -> None:
        self.processes = processes
        self.label = label
        """What the 20 s wait is, for ``lab.snapshot().timers`` (kind ``REBALANCE``)."""
        self.do_rebalance = do_rebalance
        self.has_notified = False
        """``ServiceThread.hasNotified``: a wake-up came while no wait was running."""
        self.waiting = False
        """The thread is in ``waitForRunning`` (not in a rebalance)."""
        self._thread: Process | None = None

    def start(self) -> None:
        """``ServiceThread.start``: the thread begins with a 20 s wait."""
        self._thread = self.processes.spawn(self._run(wait_first=True))

    def wakeup(self) -> None:
        """``ServiceThread.wakeup`` (``rebalanceImmediately``): end the wait now, or rebalance once more after
        the one running."""
        if self.has_notified:
            return
        if self.waiting and self._thread is not None and self._thread.alive:
            self._thread.kill()  # waitPoint.countDown(): the wait ends here
            self._thread = self.processes.spawn(self._run(wait_first=False))
        else:
            self.has_notified = True

    def _run(self, *, wait_first: bool) -> Body:
        if wait_first:
            yield from self._wait_for_running()
        else:
            self.waiting = False
        while True:
            yield from self.do_rebalance()
            yield from self._wait_for_running()

    def _wait_for_running(self) -> Body:
        """``waitForRunning(20000)``: return at once if notified meanwhile, else wait 20 s (or until woken)."""
        if self.has_notified:
            self.has_notified = False
            return
        self.waiting = True
        yield Sleep(REBALANCE_WAIT_INTERVAL_MS, self.label)
        self.waiting = False
