"""``TopicConfig`` and ``SubscriptionGroupConfig``: what a broker knows about a topic and a consumer group.

Mirrors: common/src/main/java/org/apache/rocketmq/common/TopicConfig.java
    (TopicConfig)
Mirrors: common/src/main/java/org/apache/rocketmq/common/subscription/SubscriptionGroupConfig.java
    (SubscriptionGroupConfig)
Mirrors: common/src/main/java/org/apache/rocketmq/common/constant/PermName.java
    (PermName.isReadable, PermName.isWriteable)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "PERM_READ",
    "PERM_RW",
    "PERM_WRITE",
    "SubscriptionGroupConfig",
    "TopicConfig",
]

PERM_READ = 4
PERM_WRITE = 2
PERM_RW = PERM_READ | PERM_WRITE


@dataclass(slots=True)
class TopicConfig:
    """``TopicConfig``: queue counts and permission bits (READ 4, WRITE 2)."""

    topic_name: str
    read_queue_nums: int
    write_queue_nums: int
    perm: int = PERM_RW

    @property
    def readable(self) -> bool:
        return bool(self.perm & PERM_READ)

    @property
    def writable(self) -> bool:
        return bool(self.perm & PERM_WRITE)


@dataclass(slots=True)
class SubscriptionGroupConfig:
    """``SubscriptionGroupConfig`` defaults: one retry queue, 16 retries unless the client says otherwise."""

    group_name: str
    retry_queue_nums: int = 1
    retry_max_times: int = 16
