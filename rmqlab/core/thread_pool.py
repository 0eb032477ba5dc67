"""``consumeExecutor``: the consume pool a ConsumeRequest runs on, each thread a :class:`~rmqlab.core.process.Process`.

A Java ``ThreadPoolExecutor`` with an unbounded queue: a task runs on a free thread, or waits its turn. Each task
here is a generator function (a ConsumeRequest's ``run()``); each thread is a :class:`~rmqlab.core.process.Process` that
runs one task, then the next waiting one (``runWorker``'s ``getTask`` loop), and ends when none is left.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/ConsumeMessageConcurrentlyService.java
    (ConsumeMessageConcurrentlyService.consumeExecutor, ConsumeMessageConcurrentlyService.submitConsumeRequest,
    ConsumeMessageConcurrentlyService.shutdown)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from .process import Body, Process, ProcessGroup, Signal
from .scheduler import Scheduler, TimerLabel

if TYPE_CHECKING:
    from .network import Network

__all__ = ["RejectedExecutionException", "Task", "ThreadPool"]


Task = tuple[Callable[..., Body], tuple[Any, ...], TimerLabel | None]
"""A generator function, its arguments and its label: what a ConsumeRequest's ``run()`` is here."""


class RejectedExecutionException(Exception):
    """``java.util.concurrent.RejectedExecutionException``: a task submitted to a consume pool after its
    ``shutdown()``. The pull callback that submitted it fails (``PullCallback.onException``: pull again in 1000 ms);
    the messages stay cached in the ProcessQueue, their offset pinned."""


class ThreadPool:
    """``consumeExecutor``: ``size`` threads and an unbounded FIFO of waiting tasks.

    RocketMQ's pool has an unbounded queue, so only ``consumeThreadMin`` threads ever run: a 21st
    ConsumeRequest waits even if ``consumeThreadMax`` is larger.
    """

    def __init__(self, scheduler: Scheduler, remoting: Network, size: int) -> None:
        self.scheduler = scheduler
        self.remoting = remoting
        self.size = size
        self.busy = 0
        self.waiting: deque[Task] = deque()
        self.running: dict[Process, None] = {}
        """Threads running a task, in the order their tasks started (a task handed over this millisecond starts after
        the work queued before it; a crash kills them in this order)."""
        self.idle_waiters: list[Signal] = []
        """Threads in :meth:`await_termination`, woken when the last task ends."""

    def submit(self, function: Callable[..., Body], *args: Any, label: TimerLabel | None = None) -> None:
        """Run ``function(*args)`` (a generator function) on a free thread, now or when one frees up.

        ``label`` (kind ``CONSUME``) names the request for views; while it runs its waits are ``LISTENER`` timers.
        """
        if self.busy < self.size:
            self.busy += 1
            thread = Process(self.scheduler, self.remoting, function(*args), self, label)
            self.running[thread] = None
            thread.start_after_queued_work()
        else:
            self.waiting.append((function, args, label))

    def finished(self, thread: Process) -> bool:
        """``thread``'s task returned: it takes the next waiting task (``True``), or it ends and its slot is free."""
        del self.running[thread]
        if self.waiting:
            function, args, label = self.waiting.popleft()
            self.running[thread] = None  # last in start order, with its new task
            thread.run_task(function(*args), label)
            return True
        self.busy -= 1
        if not self.busy and self.idle_waiters:
            for signal in list(self.idle_waiters):
                signal.fire()
        return False

    def await_termination(self, group: ProcessGroup, timeout_ms: int, label: TimerLabel) -> Generator[Any, Any, bool]:
        """``awaitTermination(timeout)``: wait until no task runs or waits, at most ``timeout_ms``; ``True`` if so.

        Queued tasks still start meanwhile, as after ``ExecutorService.shutdown()``: only the caller stops
        submitting new ones.
        """
        if not self.busy:
            return True
        signal = Signal()
        self.idle_waiters.append(signal)
        timeout = group.schedule(timeout_ms, label, signal.fire)
        try:
            yield signal
        finally:
            timeout.kill()
            self.idle_waiters.remove(signal)
        return not self.busy

    def drop_waiting(self) -> int:
        """``shutdownNow()``'s queue drain: tasks not started never run (returns how many). The interrupt it sends
        to running threads is not modelled: a listener's virtual duration is not a blocking call it could leave."""
        dropped = len(self.waiting)
        self.waiting.clear()
        return dropped

    def shutdown_now(self) -> None:
        """A crash: every thread and queued task vanishes."""
        for process in list(self.running):
            process.pool = None
            process.kill()
        self.running.clear()
        self.waiting.clear()
        self.busy = 0
