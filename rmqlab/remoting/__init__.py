"""The wire between clients and brokers, as RocketMQ 4.9.7's ``remoting`` module
(``remoting/src/main/java/org/apache/rocketmq/remoting/``): request objects with their request codes (``protocol``) and
the one place a request crosses to a broker and an answer comes back (``remoting``: ``NettyRemotingAbstract``'s
``invokeSync`` / ``invokeAsync`` / ``invokeOneway`` and ``ResponseFuture``), where faults act.
"""
