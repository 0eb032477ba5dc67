"""The name server, as RocketMQ 4.9.7's ``namesrv`` module (``namesrv/src/main/java/org/apache/rocketmq/namesrv/``):
``RouteInfoManager``'s topic routes, which brokers serve a topic with how many queues.
"""
