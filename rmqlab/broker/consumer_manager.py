"""``ConsumerManager``: the consumer groups a broker knows from heartbeats; it tells members when a group changes.

A channel silent for 120 s is dropped (``scanNotActiveChannel`` every 10 s).

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/client/ConsumerManager.java
    (ConsumerManager.registerConsumer, ConsumerManager.unregisterConsumer, ConsumerManager.scanNotActiveChannel)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/client/ConsumerGroupInfo.java
    (ConsumerGroupInfo.getAllClientId)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/ClientManageProcessor.java
    (ClientManageProcessor.heartBeat, ClientManageProcessor.unregisterClient)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/ConsumerManageProcessor.java
    (ConsumerManageProcessor.getConsumerListByGroup)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/client/net/Broker2Client.java
    (Broker2Client.notifyConsumerIdsChanged)
"""

from __future__ import annotations

from ..common.message import (
    RETRY_PREFIX,
)
from ..core.scheduler import TimerKind, TimerLabel
from ..core.trace import EventKind
from ..remoting.protocol import (
    HeartbeatRequest,
    NotifyConsumerIdsChangedRequest,
)
from ..store.default_message_store import BrokerStore
from .client_channel_info import CHANNEL_EXPIRED_TIMEOUT_MS, _ClientChannel

__all__ = [
    "ConsumerManager",
]

class ConsumerManager(BrokerStore):
    """HEART_BEAT, UNREGISTER_CLIENT and GET_CONSUMER_LIST_BY_GROUP, mixed into
    :class:`~rmqlab.broker.broker_controller.Broker`."""


    # ------------------------------------------------------------------ consumer membership
    def heartbeat(self, request: HeartbeatRequest) -> None:
        """``ClientManageProcessor.heartBeat``: register a consumer of a group; a newcomer makes the broker notify
        the others."""
        group = request.group
        sub = self.subscription_group(group)
        if request.clustering:
            self.create_topic(RETRY_PREFIX + group, sub.retry_queue_nums)
        members = self.consumer_groups.setdefault(group, {})
        known = request.client_id in members
        members[request.client_id] = _ClientChannel(request.client_id, self.scheduler.now)
        if not known:
            self._notify_ids_changed(group, exclude=request.client_id)

    def unregister(self, group: str, client_id: str) -> None:
        """The client shut down or its channel closed: forget it and tell the others."""
        members = self.consumer_groups.get(group, {})
        if members.pop(client_id, None) is not None:
            self._notify_ids_changed(group, exclude=client_id)

    def consumer_ids(self, group: str) -> list[str]:
        """``getConsumerIdListByGroup``."""
        return sorted(self.consumer_groups.get(group, {}))

    def _notify_ids_changed(self, group: str, exclude: str) -> None:
        """``Broker2Client.notifyConsumerIdsChanged`` to every other member, oneway, in client id order."""
        for client_id in sorted(self.consumer_groups.get(group, {})):
            if client_id != exclude:
                self.remoting.notify_client(self.name, client_id, NotifyConsumerIdsChangedRequest(group, self.name))

    def _scan_not_active_channels(self) -> None:
        """Every 10 s drop consumer channels silent for more than 120 s (``ConsumerManager``)."""
        now = self.scheduler.now
        if self.up:
            for group, members in sorted(self.consumer_groups.items()):
                for client_id, channel in sorted(members.items()):
                    if now - channel.last_update > CHANNEL_EXPIRED_TIMEOUT_MS:
                        self.trace.record(
                            now,
                            EventKind.WARNING,
                            self.name,
                            None,
                            message=f"channel of {client_id} expired; removed from {group}",
                        )
                        self.unregister(group, client_id)
        self.scheduler.schedule(
            10_000, self._scan_not_active_channels, label=TimerLabel(TimerKind.CHANNEL_SCAN, self.name)
        )
