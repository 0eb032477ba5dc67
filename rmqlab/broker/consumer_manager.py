"""``ConsumerManager``: the consumer groups a broker knows from heartbeats; it tells members when a group changes.

A channel silent for 120 s is dropped (``scanNotActiveChannel``, which the broker's ``ClientHousekeepingService``
runs every 10 s).

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/client/ConsumerManager.java
    (ConsumerManager.registerConsumer, ConsumerManager.unregisterConsumer, ConsumerManager.scanNotActiveChannel)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/client/ConsumerGroupInfo.java
    (ConsumerGroupInfo.getAllClientId)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/client/net/Broker2Client.java
    (Broker2Client.notifyConsumerIdsChanged)
"""

from __future__ import annotations

from ..core.scheduler import Scheduler
from ..core.trace import EventKind, Trace
from ..remoting.protocol import NotifyConsumerIdsChangedRequest
from ..remoting.remoting import Remoting
from .client_channel_info import CHANNEL_EXPIRED_TIMEOUT_MS, _ClientChannel

__all__ = [
    "ConsumerManager",
]


class ConsumerManager:
    """The consumer table of one broker: group → client id → its channel (last heartbeat)."""

    def __init__(self, broker_name: str, scheduler: Scheduler, trace: Trace, remoting: Remoting) -> None:
        self.broker_name = broker_name
        self.scheduler = scheduler
        self.trace = trace
        self.remoting = remoting
        """Only to tell clients about group changes (``Broker2Client``)."""
        self.consumer_groups: dict[str, dict[str, _ClientChannel]] = {}
        """``consumerTable``: group → client id → channel."""

    def register_consumer(self, group: str, client_id: str) -> None:
        """``registerConsumer``: note the heartbeat; a newcomer makes the broker notify the group's other members."""
        members = self.consumer_groups.setdefault(group, {})
        known = client_id in members
        members[client_id] = _ClientChannel(client_id, self.scheduler.now)
        if not known:
            self._notify_ids_changed(group, exclude=client_id)

    def unregister(self, group: str, client_id: str) -> None:
        """``unregisterConsumer``: the client shut down or its channel closed: forget it and tell the others."""
        members = self.consumer_groups.get(group, {})
        if members.pop(client_id, None) is not None:
            self._notify_ids_changed(group, exclude=client_id)

    def consumer_ids(self, group: str) -> list[str]:
        """``getAllClientId`` of the group, sorted."""
        return sorted(self.consumer_groups.get(group, {}))

    def _notify_ids_changed(self, group: str, exclude: str) -> None:
        """``Broker2Client.notifyConsumerIdsChanged`` to every other member, oneway, in client id order."""
        for client_id in sorted(self.consumer_groups.get(group, {})):
            if client_id != exclude:
                self.remoting.notify_client(
                    self.broker_name, client_id, NotifyConsumerIdsChangedRequest(group, self.broker_name)
                )

    def scan_not_active_channel(self) -> None:
        """``scanNotActiveChannel``: drop consumer channels silent for more than 120 s."""
        now = self.scheduler.now
        for group, members in sorted(self.consumer_groups.items()):
            for client_id, channel in sorted(members.items()):
                if now - channel.last_update > CHANNEL_EXPIRED_TIMEOUT_MS:
                    self.trace.record(
                        now,
                        EventKind.WARNING,
                        self.broker_name,
                        None,
                        message=f"channel of {client_id} expired; removed from {group}",
                    )
                    self.unregister(group, client_id)
