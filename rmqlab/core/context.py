"""``Context``: what a client needs from the machine it runs on, handed to it by the Lab that builds it.

A producer or a push consumer reads the clock, writes the trace, sends requests through the network
(:class:`~rmqlab.remoting.remoting.Remoting`), asks the name server for routes and draws from the seeded random source.
Core states what it needs of the network and the name server as protocols (:class:`~rmqlab.core.network.ClientNetwork`,
:class:`~rmqlab.core.name_server_client.NameServerClient`): the Lab hands in the real ones, and core imports nothing of
the layers above it.
In RocketMQ these are the JVM's clock, its log, its Netty client and its ``NamesrvAddr``; here they are one small
object, so a client module imports this module (and the protocol types), never :mod:`rmqlab.lab`. The
:class:`~rmqlab.lab.Lab` is the facade: it builds the cluster, owns the brokers and clients, injects faults,
and hands the same ``Context`` to every client it builds.

What lives here is the machine's, not any one client's: the consumers' local offset files (a
``LocalFileOffsetStore`` outlives a crash of its process, so the files cannot live in the consumer), the
message-id counter (ids are unique across producers) and the log of sends and of user-code errors.

Mirrors: common/src/main/java/org/apache/rocketmq/common/message/MessageClientIDSetter.java
    (MessageClientIDSetter.createUniqID)
Mirrors: client/src/main/java/org/apache/rocketmq/client/ClientConfig.java
    (ClientConfig.getNamesrvAddr)
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..common.message_queue import MessageQueue
from .name_server_client import NameServerClient
from .network import ClientNetwork
from .scheduler import ReentrantRunError, Scheduler
from .trace import EventKind, Trace

__all__ = ["Context"]


@dataclass(eq=False, repr=False)
class Context:
    """The clock, the trace, the network, the name server and the seeded random source of one simulated machine."""

    scheduler: Scheduler
    """The virtual clock and its event heap."""
    trace: Trace
    """The append-only event log (a :class:`~rmqlab.core.trace.CountingTrace` when the lab only counts)."""
    remoting: ClientNetwork
    """The network: every client→broker request and its answer go through it."""
    namesrv: NameServerClient
    """Where clients read topic routes."""
    rng: random.Random
    """The lab's seeded random source (each producer draws its ``sendWhichQueue`` start from it)."""
    local_offset_files: dict[tuple[str, str], dict[MessageQueue, int]] = field(default_factory=dict)
    """``LocalFileOffsetStore``'s files, by (client id, group): on the machine's disk, so they survive a crash."""
    sends: list[Any] = field(default_factory=list)
    """Every send's :class:`~rmqlab.client.producer.send_result.SendFuture`, in the order it was made (reports and
    invariants read it; the Lab names its type)."""
    errors: list[str] = field(default_factory=list)
    """Exceptions raised by user code (listeners, callbacks, ``lab.at`` actions), with a short traceback."""
    _msg_counter: int = 0

    @property
    def now(self) -> int:
        """Virtual time in ms."""
        return self.scheduler.now

    def next_msg_id(self) -> str:
        """Client message ids (``UNIQ_KEY``): ``M0001``, ``M0002`` … in send order, across every producer."""
        self._msg_counter += 1
        return f"M{self._msg_counter:04d}"

    def safely(self, action: Callable[..., Any], *args: Any, where: str = "callback", **kwargs: Any) -> Any:
        """Call user code; an exception becomes a WARNING event instead of killing the run."""
        try:
            return action(*args, **kwargs)
        except ReentrantRunError:
            raise  # misuse of the lab itself, not a failing action: the caller must see it
        except Exception as exc:
            message = f"{where} raised {type(exc).__name__}: {exc}"
            self.errors.append(message + "\n" + traceback.format_exc(limit=3))
            self.trace.record(self.now, EventKind.WARNING, "lab", None, message=message)
            return None
