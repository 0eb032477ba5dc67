"""What crosses the wire: the one place RPCs happen.

The answers it carries are in :mod:`rmqlab.remoting.response_code` and :mod:`rmqlab.remoting.exceptions`.

Clients never call a broker method directly; they hand a request object (:mod:`rmqlab.remoting.protocol`) to
:meth:`Remoting.invoke`, which applies the injected faults (broker down, slow or lost responses, network
partition) and the request timeout, to every kind of request alike. A request takes
effect at the broker when it is sent; its response arrives ``response_delay_ms`` later — or, if that
is past the timeout, the client gets a timeout 1 ms *after* its deadline (real timeouts fire a few ms
late, which is why RocketMQ's ``timeout < costTime`` check aborts instead of retrying with 0 ms).

Mirrors: remoting/src/main/java/org/apache/rocketmq/remoting/netty/NettyRemotingAbstract.java
    (NettyRemotingAbstract.invokeSyncImpl, NettyRemotingAbstract.invokeAsyncImpl,
    NettyRemotingAbstract.invokeOnewayImpl, NettyRemotingAbstract.scanResponseTable)
Mirrors: remoting/src/main/java/org/apache/rocketmq/remoting/netty/ResponseFuture.java
    (ResponseFuture)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Protocol

from ..core import reasons
from ..core.scheduler import Scheduler, Timer, TimerKind, TimerLabel
from .exceptions import (
    MQBrokerException,
    RemoteError,
    RemotingConnectException,
    RemotingException,
    RemotingTimeoutException,
    ResponseExpiredException,
)
from .protocol import RequestCode

__all__ = [
    "HELD",
    "BrokerEndpoint",
    "Remoting",
    "ResponseFuture",
]


@dataclass(slots=True)
class NetworkFaults:
    """Cut links: (client name, broker name) pairs that cannot talk."""

    partitions: set[tuple[str, str]] = field(default_factory=set)


Answer = tuple[Any, RemoteError | None]
"""A request's one answer: ``(response, None)``, or ``(None, error)`` for an error response
(:class:`MQBrokerException`) or a failure with no response."""
AnswerCallback = Callable[[Any, RemoteError | None], None]
"""How a request's sender takes an answer that comes later: ``on_answer(*answer)``."""


def _answer(response: Any) -> Answer:
    """A broker's response as its sender takes it: an error code is an error, anything else the response."""
    return (None, response) if isinstance(response, MQBrokerException) else (response, None)


HELD = object()
"""What a broker processor returns for a request it keeps to answer later (a long-polling pull): the processor
keeps the request's ``opaque`` and answers through :meth:`Remoting.reply` (or drops it: :meth:`Remoting.forget`)."""

RESPONSE_TABLE_SCAN_GRACE_MS = 1_000
"""``NettyRemotingAbstract.scanResponseTable`` (every 1 s) expires a request once ``begin + timeout + 1000 <= now``."""


@dataclass(slots=True, eq=False)
class ResponseFuture:
    """A request whose answer is not back yet: an entry of the client's ``responseTable``, keyed by ``opaque``.

    Only a request that waits gets one: a broker that holds it (long polling), a response on its way back
    (``response_delay_ms``) or a timeout to come. A request answered at once returns its answer from
    :meth:`Remoting.invoke`, with nothing left to look up.
    """

    opaque: int
    """The request's number (``RemotingCommand.opaque``): increasing, so the table's order is the send order."""
    client: str
    broker: str
    request: Any
    timeout_ms: int
    begin_ms: int
    on_answer: AnswerCallback
    timer: Timer | None = None


class ResponseFaults(Protocol):
    """The injected faults the network applies to a broker's responses (the broker's ``BrokerFaults`` is one)."""

    @property
    def response_delay_ms(self) -> int:
        """Every response arrives this much later."""

    @property
    def lose_responses(self) -> bool:
        """Requests take effect, responses never arrive (the connection resets)."""


class BrokerEndpoint(Protocol):
    """What the network needs of a broker (:class:`~rmqlab.broker.broker_controller.Broker` is one): whether its
    process is up, its injected response faults, and the entry points of its ``NettyRemotingServer``. Written here,
    so the network knows brokers by this shape and ``remoting`` imports nothing of ``broker``."""

    up: bool

    @property
    def faults(self) -> ResponseFaults:
        """The broker's injected faults; the network reads the two about responses."""

    def process_request(self, request: object, opaque: int | None) -> object:
        """Dispatch ``request`` (``opaque``: its number, ``None`` if oneway) to its processor; ``HELD`` when a
        long-polling pull is answered later."""

    def connection_reset(self, client: str) -> None:
        """``client``'s channel closed: forget what is held for it."""

    def unregister(self, group: str, client_id: str) -> None:
        """``client_id``'s channel closed: drop it from ``group`` (``doChannelCloseEvent``)."""


ClientHandler = Callable[[str, Any], None]
"""How a client takes a broker-initiated request: ``handler(broker_name, request)``."""


class Remoting:
    """Runs every request between clients and brokers, applying faults, latency and the timeout.

    Clients never call a broker method directly and brokers never call a client object: a request goes through
    :meth:`invoke` (or :meth:`invoke_oneway`) and is dispatched by the broker's ``process_request``; a broker
    tells a client something through :meth:`notify_client`.
    """

    def __init__(self, scheduler: Scheduler, brokers: Mapping[str, BrokerEndpoint]) -> None:
        self.scheduler = scheduler
        self.brokers = brokers
        self.faults = NetworkFaults()
        self.response_table: dict[int, ResponseFuture] = {}
        """Requests sent and not yet answered, by opaque (their send order)."""
        self._opaques = count(1)  # each request's number (opaque): 1, 2, 3 …
        self.clients: dict[str, ClientHandler] = {}
        """Client instances that accept broker-initiated requests (``NOTIFY_CONSUMER_IDS_CHANGED``), by client id."""

    def reachable(self, client: str, broker_name: str) -> RemotingException | None:
        """``None`` if ``client`` can talk to ``broker_name`` now, else the exception it would get."""
        broker = self.brokers.get(broker_name)
        if broker is None:
            return RemotingConnectException(broker_name, f"the broker[{broker_name}] not exist")
        if not broker.up:
            return RemotingConnectException(broker_name, reasons.BROKER_DOWN.format(broker=broker_name))
        partitions = self.faults.partitions
        if partitions and (client.split("/", 1)[0], broker_name) in partitions:  # inner producer: same process
            cut = reasons.NETWORK_PARTITION.format(client=client, broker=broker_name)
            return RemotingConnectException(broker_name, cut)
        return None

    def invoke(
        self, client: str, broker_name: str, request: Any, timeout_ms: int, on_answer: AnswerCallback
    ) -> Answer | None:
        """Send ``request``: its answer, ``(response, None)`` or ``(None, error)``, if it is there at once; else
        ``None``, and ``on_answer`` gets it later (or never, if the broker holds it and the client's process is gone).

        The request takes effect at the broker at once (``Broker.process_request``); its response, or an
        :class:`MQBrokerException` for an error code, comes back ``response_delay_ms`` later. Only a request that
        waits gets a :class:`ResponseFuture` in the response table.
        """
        failure = self.reachable(client, broker_name)
        if failure is not None:
            return None, failure
        if timeout_ms <= 0:
            return None, RemotingTimeoutException(broker_name, reasons.NO_TIME_LEFT)
        broker = self.brokers[broker_name]
        opaque = next(self._opaques)
        response: Any = broker.process_request(request, opaque)
        if broker.faults.lose_responses:
            broker.connection_reset(client)  # the channel is gone: nothing stays held for it at the broker
            return None, RemotingException(broker_name, reasons.RESET_BEFORE_RESPONSE)
        delay = broker.faults.response_delay_ms
        if delay == 0 and response is not HELD:
            return _answer(response)
        now = self.scheduler.now
        future = self.response_table[opaque] = ResponseFuture(
            opaque, client, broker_name, request, timeout_ms, now, on_answer
        )
        if delay > timeout_ms:
            label = TimerLabel(TimerKind.REQUEST_TIMEOUT, broker_name, detail=client)
            future.timer = self.scheduler.schedule(timeout_ms + 1, self._time_out, future, label=label)
        elif response is not HELD:  # else the broker answers through reply()
            label = TimerLabel(TimerKind.RESPONSE, broker_name, detail=client)
            future.timer = self.scheduler.schedule(delay, self._deliver_late, future, response, label=label)
        return None

    def invoke_oneway(self, client: str, broker_name: str, request: Any) -> RemotingException | None:
        """Send ``request`` without waiting for an answer (``invokeOneway``); the error if it could not be sent.

        A oneway request that reaches the broker takes effect; one whose link is cut is lost, and the client only
        logs it (``updateConsumeOffsetToBroker(…, oneway=true)``, ``unlock(mq, oneway=true)``).
        """
        failure = self.reachable(client, broker_name)
        if failure is not None:
            return failure
        self.brokers[broker_name].process_request(request, None)
        return None

    def finish(self, future: ResponseFuture) -> None:
        """Take ``future`` out of the response table (answered, failed or timed out)."""
        self.response_table.pop(future.opaque, None)
        if future.timer is not None:
            future.timer.cancel()
            future.timer = None

    def pending(self, future: ResponseFuture) -> bool:
        """Still in the response table: no answer, error or timeout has reached the client yet."""
        return self.response_table.get(future.opaque) is future

    def reply(self, opaque: int, response: Any) -> None:
        """A held request is answered now; the answer crosses the same faulty link as any response.

        An opaque no longer in the table is a client that gave up (timeout) or whose channel failed: the late
        answer is dropped (``processResponseCommand``: "receive response, but not matched any request").
        """
        future = self.response_table.get(opaque)
        if future is None:
            return
        self.finish(future)
        lost = self.brokers[future.broker].faults.lose_responses
        if self.reachable(future.client, future.broker) is not None or lost:
            future.on_answer(None, RemotingException(future.broker, reasons.CLOSED_BEFORE_RESPONSE))
        else:
            future.on_answer(*_answer(response))  # an error answer (NO_PERMISSION to a held pull) is an error

    def forget(self, opaque: int) -> None:
        """The broker dropped the held request ``opaque`` unanswered (connection reset) and will never answer it:
        the client is not told (4.9.7 fails pending requests fast only when *it* closes the channel). The
        ``ResponseFuture`` stays in the response table until ``scanResponseTable`` expires it, ``timeout + 1 s``
        after it was sent. The scan's 1 s phase is not modelled: the timeout fires at the first instant the scan
        would see it.
        """
        future = self.response_table.get(opaque)
        if future is None or future.timer is not None:
            return
        future.timer = self.scheduler.schedule_at(
            future.begin_ms + future.timeout_ms + RESPONSE_TABLE_SCAN_GRACE_MS,
            self._expire,
            future,
            label=TimerLabel(TimerKind.REQUEST_TIMEOUT, future.broker, detail=future.client),
        )

    def _expire(self, future: ResponseFuture) -> None:
        if self.pending(future):
            self.finish(future)
            expired = ResponseExpiredException(future.broker, f"wait response timeout {future.timeout_ms}ms")
            future.on_answer(None, expired)

    def _time_out(self, future: ResponseFuture) -> None:
        if self.pending(future):
            future.timer = None
            self.finish(future)
            timeout = RemotingTimeoutException(future.broker, f"wait response timeout {future.timeout_ms}ms")
            future.on_answer(None, timeout)

    def _deliver_late(self, future: ResponseFuture, response: Any) -> None:
        """A delayed response is lost if the link broke while it was on its way."""
        if not self.pending(future):
            return
        future.timer = None
        self.finish(future)
        if self.reachable(future.client, future.broker) is not None:
            future.on_answer(None, RemotingException(future.broker, reasons.CLOSED_BEFORE_RESPONSE))
        else:
            future.on_answer(*_answer(response))

    def channel_closed(self, broker_name: str) -> None:
        """The broker's process died: the pulls waiting on it fail at once, in the order they were sent.

        A long-polling pull is what a consumer's connection is busy with, and the closed channel fails it
        (``PullCallback.onException``, pull again in 1 s). Any other request still waiting finds out when its
        answer would have arrived: the delayed response is then lost on a link that no longer exists.
        """
        pulls = [
            f for f in self.response_table.values()
            if f.broker == broker_name and f.request.code is RequestCode.PULL_MESSAGE
        ]  # fmt: skip
        for future in pulls:
            self.finish(future)
            closed = RemotingConnectException(broker_name, reasons.CLOSED_BROKER_DOWN.format(broker=broker_name))
            future.on_answer(None, closed)

    def client_closed(self, client_id: str, group: str) -> None:
        """A client process died: every running broker sees its channels close (``channelInactive``) and drops it
        from ``group`` (``ConsumerManager.doChannelCloseEvent``), telling the other members."""
        for broker in self.brokers.values():
            if broker.up:
                broker.unregister(group, client_id)

    # ------------------------------------------------------------------ broker → client
    def register_client(self, client_id: str, handler: ClientHandler) -> None:
        """``client_id`` accepts broker-initiated requests through ``handler``."""
        self.clients[client_id] = handler

    def notify_client(self, broker_name: str, client_id: str, request: Any) -> None:
        """A broker sends ``request`` to a client, oneway (``Broker2Client``); lost if the link is cut."""
        handler = self.clients.get(client_id)
        if handler is not None and self.reachable(client_id, broker_name) is None:
            handler(broker_name, request)
