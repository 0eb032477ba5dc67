"""The producer side of RocketMQ 4.9.7's client (``client/.../client/producer/`` and ``client/.../impl/producer/``):
``DefaultMQProducer`` and its ``DefaultMQProducerImpl`` (SYNC / ASYNC / ONEWAY and selector sends, the retry loop),
``TopicPublishInfo``, ``MQFaultStrategy`` / ``LatencyFaultToleranceImpl``, ``MessageQueueSelector`` and ``SendResult``.
"""
