"""``Network`` and ``ClientNetwork``: what a process and a client need of the wire, stated in core so that core does
not import :mod:`rmqlab.remoting` (the layer above it). :class:`rmqlab.remoting.remoting.Remoting` is the one network.

A process that yields an ``Rpc`` hands it to ``invoke``; the answer is there at once, or comes later through
``on_answer``, as a Java caller of ``NettyRemotingAbstract.invokeAsyncImpl`` gets it through its
``InvokeCallback``. A client also writes oneway requests, asks whether a broker can be reached, accepts requests a
broker sends it, and closes its channels when its process dies: ``ClientNetwork``, the part of the wire the
:class:`~rmqlab.core.context.Context` hands every client.

The requests, answers and errors are remoting's types (``rmqlab.remoting.protocol``, ``rmqlab.remoting.exceptions``):
core cannot name them, so they are ``Any`` here, as a Java ``RemotingCommand`` is one type for every request.

Mirrors: remoting/src/main/java/org/apache/rocketmq/remoting/RemotingClient.java
    (RemotingClient.invokeSync, RemotingClient.invokeAsync, RemotingClient.invokeOneway,
    RemotingClient.registerProcessor, RemotingClient.isChannelWritable)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

__all__ = ["ClientNetwork", "Network"]


class Network(Protocol):
    """The remote-call side of the wire, as a process uses it."""

    def invoke(
        self, client: str, broker_name: str, request: Any, timeout_ms: int, on_answer: Callable[[Any, Any], None]
    ) -> tuple[Any, Any] | None:
        """Send ``request`` from ``client`` to ``broker_name``: ``(response, error)`` now, or ``None`` and
        ``on_answer(response, error)`` later (or never, if the broker holds it and the caller is gone)."""
        ...


class ClientNetwork(Network, Protocol):
    """The wire as a client uses it: remote calls, oneway requests, and the broker-initiated requests it accepts."""

    @property
    def brokers(self) -> Mapping[str, object]:
        """The brokers the network knows, by name (a producer checks an explicit queue's broker against it)."""
        ...

    def reachable(self, client: str, broker_name: str) -> Any:
        """``None`` if ``client`` can talk to ``broker_name`` now, else the ``RemotingException`` it would get."""
        ...

    def invoke_oneway(self, client: str, broker_name: str, request: Any) -> Any:
        """Send ``request`` without waiting for an answer (``invokeOneway``); the error if it could not be sent."""
        ...

    def register_client(self, client_id: str, handler: Callable[[str, Any], None]) -> None:
        """``client_id`` accepts broker-initiated requests through ``handler(broker_name, request)``
        (``ClientRemotingProcessor``)."""
        ...

    def client_closed(self, client_id: str, group: str) -> None:
        """A client process died: every broker sees its channels close and drops it from ``group``."""
        ...
