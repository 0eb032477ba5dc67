"""The push consumer side of RocketMQ 4.9.7's client (``client/.../client/consumer/`` and
``client/.../impl/consumer/``): ``DefaultMQPushConsumer`` and its impl, ``RebalanceImpl`` / ``RebalanceService``,
``PullMessageService`` and flow control, ``ProcessQueue``, the two consume services (concurrent and orderly), the
offset stores and the listener statuses.
"""
