"""The broker, as RocketMQ 4.9.7's ``broker`` module (``broker/src/main/java/org/apache/rocketmq/broker/``):
``BrokerController`` and the processors that answer clients (``SendMessageProcessor`` with ``handleRetryAndDLQ`` and
``asyncConsumerSendMsgBack``, ``PullMessageProcessor`` with ``PullRequestHoldService``), ``ConsumerManager`` and
``RebalanceLockManager``.
"""
