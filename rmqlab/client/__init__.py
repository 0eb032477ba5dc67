"""The client, as RocketMQ 4.9.7's ``client`` module (``client/src/main/java/org/apache/rocketmq/client/``): the
producer (:mod:`rmqlab.client.producer`), the push consumer (:mod:`rmqlab.client.consumer`), and what both stand on:
``MQClientAPIImpl`` (one request to a broker and what its answer means), ``MQClientInstance`` (the scheduled route
poll, heartbeat and offset persist) and ``Validators``.
"""
