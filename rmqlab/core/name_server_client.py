"""``NameServerClient``: what a client asks the name server, stated in core so that core does not import
:mod:`rmqlab.namesrv` (the layer above it). :class:`rmqlab.namesrv.route_info_manager.NameServer` is the one name
server.

A Java client asks its name server through ``MQClientAPIImpl`` (a request over the wire); a lab client reads the
answer at once, from the :class:`~rmqlab.core.context.Context` it was handed. The route is the namesrv's
``TopicRouteData``, which core cannot name: ``Any`` here, typed where the client keeps it.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/MQClientAPIImpl.java
    (MQClientAPIImpl.getTopicRouteInfoFromNameServer, MQClientAPIImpl.getTopicListFromNameServer)
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["NameServerClient"]


class NameServerClient(Protocol):
    """The questions a client asks the name server."""

    def route(self, topic: str) -> Any:
        """``getTopicRouteInfoFromNameServer``: the topic's ``TopicRouteData``, ``None`` when no live broker serves
        it."""
        ...

    def topics(self) -> list[str]:
        """``getTopicListFromNameServer``: every topic the name server knows, sorted."""
        ...
