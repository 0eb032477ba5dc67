"""Cooperative processes: Java's blocking thread code, written as Python generators.

A consume thread in RocketMQ *blocks*: it calls the listener, then ``sendMessageBack`` synchronously
(up to 5 s), then maybe the fallback producer. In virtual time a blocking call is a generator that
``yield``\\ s what it waits for:

* ``yield Sleep(ms)`` — time passes (a listener taking ``ms``, a service waiting for its next round);
* ``yield Rpc(client, broker, request, timeout_ms)`` — a request object (:mod:`rmqlab.remoting.protocol`) through
  :class:`~rmqlab.remoting.remoting.Remoting`; resumes with ``(response, error)``, at once if the answer is there;
* ``yield future`` (a :class:`~rmqlab.client.producer.default_mq_producer.SendFuture` or a :class:`Signal`) — resumes
when it is done.

Everything in a client that waits is such a process: consume threads, the pull loop of each queue, the
rebalance service, heartbeats, lock renewal, offset persistence, the route poll and the delayed tasks a
Java client hands to its ``ScheduledExecutorService``. A client owns its processes in a
:class:`ProcessGroup`; a crash kills them all, which cancels their pending sleeps, and a response that
arrives for a killed process is dropped. So no flag, token or incarnation counter is needed to tell a
stale callback from a live one.

When the awaited thing is already available (a healthy broker answers in 0 ms) the generator is
resumed at once, in a loop rather than by recursion.

Mirrors: common/src/main/java/org/apache/rocketmq/common/ServiceThread.java
    (ServiceThread.waitForRunning, ServiceThread.wakeup)
"""

from __future__ import annotations

import inspect
from collections import deque
from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from .scheduler import Scheduler, Timer, TimerKind, TimerLabel

if TYPE_CHECKING:
    from .network import Network

__all__ = ["Body", "LocalLock", "Process", "ProcessGroup", "ProcessKilled", "Rpc", "Signal", "Sleep", "spawn"]


class ProcessKilled(BaseException):
    """Raised inside a running process to end it where it stands.

    A crash kills every consume thread with :meth:`Process.kill`, but a thread cannot close its own generator
    while it runs: when a listener crashes its own consumer, the crash happens once the listener call returns and
    that thread ends by raising this (its ``finally`` blocks run, as ``close()`` would run them). A
    ``BaseException``, like Java's ``ThreadDeath`` error, so no ``except Exception`` on the way can swallow it.
    """


@dataclass(slots=True)
class Sleep:
    """Wait ``ms`` virtual milliseconds; ``label`` says what the wait stands for (``lab.snapshot().timers``).

    An unlabelled ``Sleep(0)`` continues at once. A labelled one is a *hand-off*: the process resumes at the same
    millisecond, after the work already queued for it, as a Java task put on an executor's queue runs after the
    tasks before it (``executePullRequestImmediately`` puts a PullRequest on the PullMessageService's queue).
    """

    ms: int
    label: TimerLabel | None = None


@dataclass(slots=True)
class Rpc:
    """Send ``request`` to ``broker`` as ``client`` through remoting; resume with ``(response, error)``."""

    client: str
    broker: str
    request: Any
    """A request object from :mod:`rmqlab.remoting.protocol`."""
    timeout_ms: int


Body = Generator[Any, Any, Any]

_PENDING = object()
"""What :meth:`Process._wait` returns when the process has to wait: it resumes later, from a callback."""


class Pool(Protocol):
    """What a process needs of the thread pool that runs it (:class:`~rmqlab.core.thread_pool.ThreadPool`)."""

    def finished(self, process: Process) -> bool:
        """``process``'s task returned: ``True`` if the thread took the next waiting task, ``False`` if it ends."""


class Process:
    """Drives one generator; ``alive`` is ``False`` once it returned or was killed.

    A process started by a :class:`~rmqlab.core.thread_pool.ThreadPool` is one of its threads: when its task returns it
    takes the next waiting task (:meth:`run_task`), as a Java worker thread does, and ends when none is waiting.
    """

    __slots__ = ("_gen", "_timer", "alive", "group", "label", "pool", "remoting", "scheduler")

    def __init__(
        self,
        scheduler: Scheduler,
        remoting: Network,
        gen: Body,
        pool: Pool | None = None,
        label: TimerLabel | None = None,
        group: ProcessGroup | None = None,
    ):
        self.scheduler = scheduler
        self.remoting = remoting
        self._gen = gen
        self.pool = pool
        self.group = group
        self.alive = True
        self.label = label
        """The request a pool thread runs (kind ``CONSUME``); each unlabelled ``Sleep`` is labelled with it as a
        ``LISTENER``."""
        self._timer: Timer | None = None
        """The wake-up armed by the last ``Sleep`` (or the start of a pool task): cancelled when the process is killed,
        so no dead timer stays (cancelling one that already fired changes nothing)."""

    def kill(self) -> None:
        """Stop without resuming (a crashed consumer's threads vanish with it)."""
        if self.alive:
            if self._timer is not None:
                self._timer.cancel()
            self._ended()
            if inspect.getgeneratorstate(self._gen) != inspect.GEN_RUNNING:  # a running one raises ProcessKilled
                self._gen.close()

    def _ended(self) -> None:
        """It returned or was killed: it leaves its group, and drops its pool and its last timer (whose callback refers
        back to it): no cycle is left for the GC."""
        self.alive = False
        self._timer = None
        self.pool = None
        group, self.group = self.group, None
        if group is not None:
            group.processes.pop(self, None)

    def resume(self, value: Any = None) -> None:
        """Advance the generator until it waits on something not yet available."""
        gen = self._gen
        while self.alive:
            try:
                command = gen.send(value)
            except StopIteration:
                if self.pool is None or not self.pool.finished(self):  # a pool thread may take the next task
                    self._ended()
                return
            except ProcessKilled:
                self._ended()  # its pool was shut down with the crash: it is not told
                return
            value = self._wait(command)
            if value is _PENDING:
                return

    def _wait(self, command: Any) -> Any:
        if isinstance(command, Rpc):
            answer = self.remoting.invoke(
                command.client, command.broker, command.request, command.timeout_ms, self._answered
            )
            return _PENDING if answer is None else answer  # no answer yet: _answered resumes the process
        if isinstance(command, Sleep):
            label = command.label
            if label is None:
                if command.ms <= 0:
                    return None
                label = self.label
                if label is not None:
                    label = replace(label, kind=TimerKind.LISTENER)
            self._timer = self.scheduler.schedule(max(command.ms, 0), self.resume, label=label)
            return _PENDING
        done = getattr(command, "done", None)
        if done is not None and hasattr(command, "callbacks"):
            if done:
                return command
            command.callbacks.append(self.resume)  # resumes with the future, once it is done
            return _PENDING
        raise TypeError(f"a process yielded {command!r}; expected Sleep, Rpc or a SendFuture")

    def start_after_queued_work(self) -> None:
        """Start at this millisecond, after the work already queued (a task handed to a pool thread)."""
        self._timer = self.scheduler.schedule(0, self.resume, label=self.label)

    def run_task(self, gen: Body, label: TimerLabel | None) -> None:
        """A pool thread whose task returned takes the next one: ``gen``, started after the work already queued."""
        self._gen = gen
        self.label = label
        self.start_after_queued_work()

    def _answered(self, response: Any, error: Any) -> None:
        """Remoting's answer to the pending ``Rpc``, when it came later (a response, or an error with no response)."""
        self.resume((response, error))


def spawn(scheduler: Scheduler, remoting: Network, gen: Body) -> Process:
    """Start ``gen`` now (synchronously, until its first real wait)."""
    process = Process(scheduler, remoting, gen)
    process.resume()
    return process


class ProcessGroup:
    """The processes of one client instance (a consumer's threads and scheduled tasks): killed together by a crash.

    Kept in start order (a dict used as an ordered set), so a crash kills them in a reproducible order.
    """

    def __init__(self, scheduler: Scheduler, remoting: Network, owner: str) -> None:
        self.scheduler = scheduler
        self.remoting = remoting
        self.owner = owner
        """The trace name of the client (``consumer:c1``): the owner of the timers its processes arm."""
        self.processes: dict[Process, None] = {}

    def spawn(self, gen: Body) -> Process:
        """Start ``gen`` now, as a process of this client (runs synchronously until its first real wait)."""
        process = Process(self.scheduler, self.remoting, gen, group=self)
        self.processes[process] = None
        process.resume()
        return process

    def schedule(self, delay_ms: int, label: TimerLabel, action: Callable[..., Any], *args: Any) -> Process:
        """``ScheduledExecutorService.schedule``: ``action(*args)`` after ``delay_ms``, unless the client dies first.

        A delay of 0 still waits its turn behind the work already queued for this millisecond.
        """
        return self.spawn(_after(delay_ms, label, action, args))

    def kill_all(self) -> None:
        """The client crashed or shut down: every process ends where it stands, its pending sleeps cancelled."""
        for process in list(self.processes):
            process.kill()
        self.processes.clear()


def _after(delay_ms: int, label: TimerLabel, action: Callable[..., Any], args: tuple[Any, ...]) -> Body:
    yield Sleep(delay_ms, label)
    action(*args)


class Signal:
    """A one-shot event a process can ``yield`` on (same protocol as a SendFuture)."""

    __slots__ = ("callbacks", "done")

    def __init__(self) -> None:
        self.done = False
        self.callbacks: list[Callable[[Any], None]] = []

    def fire(self) -> None:
        if not self.done:
            self.done = True
            for callback in self.callbacks:
                callback(self)


class LocalLock:
    """``MessageQueueLock``'s object for one queue: ``synchronized``, with waiting threads in FIFO."""

    __slots__ = ("held", "waiters")

    def __init__(self) -> None:
        self.held = False
        self.waiters: deque[Signal] = deque()

    def acquire(self) -> Generator[Any, Any, None]:
        """``yield from lock.acquire()`` blocks the calling process until the lock is free."""
        if self.held:
            signal = Signal()
            self.waiters.append(signal)
            yield signal
        self.held = True

    def try_acquire(self, group: ProcessGroup, timeout_ms: int, label: TimerLabel) -> Generator[Any, Any, bool]:
        """``tryLock(timeout)``: take the lock if it is free, else wait for it at most ``timeout_ms``.

        ``True`` if taken. A lock handed over by :meth:`release` is taken in the releasing thread's millisecond,
        but this thread goes on only after that thread's step (``Sleep(0)``), as a woken Java thread would; a
        timeout or a crash while waiting leaves the queue of waiters as if this thread had never asked.
        """
        if not self.held:
            self.held = True
            return True
        signal = Signal()
        self.waiters.append(signal)
        timeout = group.schedule(timeout_ms, label, signal.fire)
        try:
            yield signal
        finally:
            timeout.kill()
            handed_over = signal not in self.waiters
            if not handed_over:
                self.waiters.remove(signal)
        if handed_over:
            yield Sleep(0, label)
        return handed_over

    def release(self) -> None:
        self.held = False
        while self.waiters:
            signal = self.waiters.popleft()
            if signal.callbacks:
                self.held = True  # hand over directly to the next waiter
                signal.fire()
                return
