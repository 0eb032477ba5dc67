"""What client and broker share, as RocketMQ 4.9.7's ``common`` module keeps it
(``common/src/main/java/org/apache/rocketmq/common/``): ``MessageQueue``, ``Message`` / ``MessageExt`` and the
``MixAll`` topic names, ``TopicConfig`` / ``SubscriptionGroupConfig``, ``MessageModel`` / ``ConsumeFromWhere`` and
``UtilAll``'s time strings.
"""
