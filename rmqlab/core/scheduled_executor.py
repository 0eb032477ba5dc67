"""``ScheduledThreadPoolExecutor`` with one thread: the periodic housekeeping of a RocketMQ client.

``MQClientInstance.startScheduledTask`` puts the route poll, the heartbeat and the offset persistence on *one*
scheduled thread (``MQClientFactoryScheduledThread``), and ``ConsumeMessageOrderlyService`` runs ``lockAll`` on a
thread of its own. Two properties of that executor shape every timeline after a slow broker:

* **fixed rate** — ``scheduleAtFixedRate``: each run is due one period after the previous run was *due*
  (``ScheduledFutureTask.setNextRunTime``: ``time += period``), not after it ended, so a renewal that waited 1 s
  for its answer does not push every later renewal back by a second;
* **one thread** — runs never overlap: a heartbeat that waits 3 s for an unreachable broker delays the offset
  persistence that fell due meanwhile, which then runs as soon as the thread is free, and missed runs follow
  back to back until the schedule is caught up. Two tasks due at the same millisecond run in the order they
  were scheduled (``ScheduledFutureTask.sequenceNumber``).

The thread is a process of the client's :class:`~rmqlab.core.process.ProcessGroup`, so a crash stops it with the rest.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/factory/MQClientInstance.java
    (MQClientInstance.startScheduledTask)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/ConsumeMessageOrderlyService.java
    (ConsumeMessageOrderlyService.start)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .process import Body, Process, ProcessGroup, Sleep
from .scheduler import TimerLabel

__all__ = ["ScheduledExecutor"]


@dataclass(order=True)
class _FixedRateTask:
    """One ``ScheduledFutureTask``: ordered by due time, then by the order it was scheduled in."""

    due: int
    sequence: int
    period_ms: int = field(compare=False)
    label: TimerLabel = field(compare=False)
    run: Callable[[], Body | None] = field(compare=False)


class ScheduledExecutor:
    """A single-threaded scheduled executor: fixed-rate tasks that share one thread and never overlap.

    Every task is scheduled when the client starts (as ``startScheduledTask`` does), before the thread begins to
    wait; :meth:`start` then starts the thread.
    """

    def __init__(self, processes: ProcessGroup) -> None:
        self.processes = processes
        self._tasks: list[_FixedRateTask] = []
        self._started = False
        self._current: _FixedRateTask | None = None
        """The task the thread waits for or runs; the others wait their turn (:meth:`queued`)."""
        self._thread_process: Process | None = None

    def schedule_at_fixed_rate(
        self, initial_ms: int, period_ms: int, label: TimerLabel, task: Callable[[], Body | None]
    ) -> None:
        """Run ``task()`` at ``initial_ms + k × period_ms`` from now (later if the thread is busy then).

        ``task`` is a plain function, or a generator function for a task that waits for answers (``lockAll``,
        a heartbeat). ``label`` names the wait in ``lab.snapshot().timers`` while this task is the next one due.
        """
        if self._started:
            raise RuntimeError("schedule every task before start(): the thread is already waiting")
        if initial_ms < 0 or period_ms <= 0:
            raise ValueError(f"initial_ms must be >= 0 and period_ms > 0, got {initial_ms} and {period_ms}")
        now = self.processes.scheduler.now
        self._tasks.append(_FixedRateTask(now + initial_ms, len(self._tasks), period_ms, label, task))

    def start(self) -> None:
        """Start the thread: it runs whichever task is due first, one at a time, for as long as the client lives."""
        self._started = True
        if self._tasks:
            self._thread_process = self.processes.spawn(self._thread())

    def queued(self) -> list[tuple[int, TimerLabel]]:
        """(due, label) of each task waiting behind the one the thread is on, for views: the scheduler only
        knows the thread's own wait, yet a student should see every housekeeping task's next run."""
        if self._thread_process is None or not self._thread_process.alive:
            return []
        return [(task.due, task.label) for task in sorted(self._tasks) if task is not self._current]

    def _thread(self) -> Body:
        scheduler = self.processes.scheduler
        while True:
            task = self._current = min(self._tasks)
            if task.due > scheduler.now:
                yield Sleep(task.due - scheduler.now, task.label)
            run = task.run()
            if run is not None:
                yield from run
            task.due += task.period_ms
