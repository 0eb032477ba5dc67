"""``Network``: what a process needs of the wire to make a remote call, stated in core so that core does not
import :mod:`rmqlab.remoting` (the layer above it). :class:`rmqlab.remoting.remoting.Remoting` is the one network.

A process that yields an ``Rpc`` hands it to ``invoke``; the answer is there at once, or comes later through
``on_answer``, as a Java caller of ``NettyRemotingAbstract.invokeAsyncImpl`` gets it through its
``InvokeCallback``.

Mirrors: remoting/src/main/java/org/apache/rocketmq/remoting/RemotingClient.java
    (RemotingClient.invokeSync, RemotingClient.invokeAsync)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["Network"]


class Network(Protocol):
    """The remote-call side of the wire, as a process uses it."""

    def invoke(
        self, client: str, broker_name: str, request: Any, timeout_ms: int, on_answer: Callable[[Any, Any], None]
    ) -> tuple[Any, Any] | None:
        """Send ``request`` from ``client`` to ``broker_name``: ``(response, error)`` now, or ``None`` and
        ``on_answer(response, error)`` later (or never, if the broker holds it and the caller is gone)."""
        ...
