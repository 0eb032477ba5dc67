"""``ClientChannelInfo``: one consumer instance of a group, as a broker's ``ConsumerManager`` keeps it.

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/client/ClientChannelInfo.java
    (ClientChannelInfo)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CHANNEL_EXPIRED_TIMEOUT_MS",
]

CHANNEL_EXPIRED_TIMEOUT_MS = 120_000


@dataclass(slots=True)
class _ClientChannel:
    """``ClientChannelInfo``: a consumer instance of a group, as its last heartbeat left it."""

    client_id: str
    last_update: int
