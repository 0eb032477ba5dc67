"""``SubscriptionGroupManager``: the consumer groups' broker-side settings (``retryQueueNums``, ``retryMaxTimes``).

A group the broker has not heard of is created with the defaults on first use (``autoCreateSubscriptionGroup``).

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/subscription/SubscriptionGroupManager.java
    (SubscriptionGroupManager.findSubscriptionGroupConfig, SubscriptionGroupManager.updateSubscriptionGroupConfig)
"""

from __future__ import annotations

from ..common.topic_config import SubscriptionGroupConfig

__all__ = ["SubscriptionGroupManager"]


class SubscriptionGroupManager:
    """The subscription group table of one broker."""

    def __init__(self) -> None:
        self.subscription_groups: dict[str, SubscriptionGroupConfig] = {}
        """``subscriptionGroupTable``: group name → its config."""

    def find_subscription_group_config(self, group: str) -> SubscriptionGroupConfig:
        """The group's config, auto-created with the defaults on first use (``autoCreateSubscriptionGroup``)."""
        sub = self.subscription_groups.get(group)
        if sub is None:
            sub = self.subscription_groups[group] = SubscriptionGroupConfig(group)
        return sub
