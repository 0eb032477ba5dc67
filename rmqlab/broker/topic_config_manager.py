"""``TopicConfigManager``: the topics one broker serves, and what it tells the name server about them.

Every new or changed topic is registered with the name server the broker was given (``registerBrokerAll`` /
``registerIncrementBrokerData``), as the broker does in 4.9.7: nothing above the broker is called. A broker whose
own permission (``BrokerConfig.brokerPermission``) is not read+write registers every topic with that permission
instead of the topic's; the manager keeps the permission, since registering is the only thing it changes.

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/topic/TopicConfigManager.java
    (TopicConfigManager.updateTopicConfig, TopicConfigManager.createTopicInSendMessageBackMethod,
    TopicConfigManager.selectTopicConfig)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/BrokerController.java
    (BrokerController.registerBrokerAll, BrokerController.registerIncrementBrokerData)
"""

from __future__ import annotations

from ..common.topic_config import PERM_RW, TopicConfig
from ..namesrv.route_info_manager import NameServer

__all__ = ["TopicConfigManager"]


class TopicConfigManager:
    """The topic config table of one broker, and its registration with the name server."""

    def __init__(self, broker_name: str, namesrv: NameServer) -> None:
        self.broker_name = broker_name
        self.namesrv = namesrv
        self.topic_config: dict[str, TopicConfig] = {}
        """``topicConfigTable``: topic name → its config."""
        self.broker_permission = PERM_RW
        """``BrokerConfig.brokerPermission``: an operator sets 4 (read only) to drain a broker before taking it away."""

    def select_topic_config(self, topic: str) -> TopicConfig | None:
        """``selectTopicConfig``: the topic's config, if the broker has it."""
        return self.topic_config.get(topic)

    def create_topic(self, topic: str, queue_nums: int, perm: int = PERM_RW) -> TopicConfig:
        """Create ``topic`` with ``queue_nums`` read and write queues; an existing one is kept as is
        (``createTopicInSendMessageBackMethod``, for ``%RETRY%`` and ``%DLQ%`` topics)."""
        existing = self.topic_config.get(topic)
        if existing is not None:
            return existing
        return self.update_topic(topic, queue_nums, queue_nums, perm)

    def update_topic(self, topic: str, read_queue_nums: int, write_queue_nums: int, perm: int) -> TopicConfig:
        """``AdminBrokerProcessor.updateAndCreateTopic``: replace the config and register it with the name server.

        Nothing else changes: stored messages stay in their ConsumeQueues, including queues the new config no
        longer lists; clients see the new route on their next name-server poll.
        """
        config = TopicConfig(topic, read_queue_nums, write_queue_nums, perm)
        self.topic_config[topic] = config
        self._register(config)
        return config

    def registered_config(self, config: TopicConfig) -> TopicConfig:
        """What the name server is told about ``config`` (``registerBrokerAll`` / ``registerIncrementBrokerData``).

        A broker whose own permission is not read+write registers *every* topic with the broker's permission
        instead of the topic's: that is how a read-only broker leaves the producers' routes (they list only
        writable queues) while consumers go on reading it. The broker's own table keeps the topic's permission.
        """
        if self.broker_permission == PERM_RW:
            return config
        return TopicConfig(config.topic_name, config.read_queue_nums, config.write_queue_nums, self.broker_permission)

    def update_broker_permission(self, perm: int) -> None:
        """``updateBrokerConfig`` with ``brokerPermission``: keep it, re-register every topic (``registerBrokerAll``).

        Clients see the new routes on their next name-server poll; until then a producer's cached route still
        lists this broker, and its sends are stored (4.9.7 refuses a plain send only for an *order* topic).
        """
        self.broker_permission = perm
        for topic in sorted(self.topic_config):
            self._register(self.topic_config[topic])

    def _register(self, config: TopicConfig) -> None:
        registered = self.registered_config(config)
        self.namesrv.register(
            self.broker_name,
            registered.topic_name,
            registered.read_queue_nums,
            registered.write_queue_nums,
            registered.perm,
        )
