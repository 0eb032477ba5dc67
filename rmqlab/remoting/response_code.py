"""The codes a broker answers with: ``RemotingCommand.code`` on a response, as RocketMQ's ``ResponseCode``.

Only the codes rmqlab's brokers send or its clients test for are here, with RocketMQ's values, so a trace reads like
the Java's logs (``CODE: 16``).

Mirrors: common/src/main/java/org/apache/rocketmq/common/protocol/ResponseCode.java
    (ResponseCode)
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ResponseCode"]


class ResponseCode(IntEnum):
    """The broker response codes rmqlab uses (values as in RocketMQ's ``ResponseCode``)."""

    SUCCESS = 0
    SYSTEM_ERROR = 1
    SYSTEM_BUSY = 2
    FLUSH_DISK_TIMEOUT = 10
    SLAVE_NOT_AVAILABLE = 11
    FLUSH_SLAVE_TIMEOUT = 12
    MESSAGE_ILLEGAL = 13
    SERVICE_NOT_AVAILABLE = 14
    NO_PERMISSION = 16
    TOPIC_NOT_EXIST = 17
    QUERY_NOT_FOUND = 22
    SUBSCRIPTION_GROUP_NOT_EXIST = 26
    NO_BUYER_ID = 204
    """In ``retryResponseCodes``; no 4.9.7 broker sends it on a send (a teacher can script it)."""
    NOT_IN_CURRENT_UNIT = 205
    """In ``retryResponseCodes``; no 4.9.7 broker sends it on a send (a teacher can script it)."""
    FLOW_CONTROL = 215
    """``ResponseCode.FLOW_CONTROL``: the push consumer pulls again 20 ms later. No 4.9.7 broker sends it (an overloaded
    one answers SYSTEM_BUSY, 2); rmqlab's ``pull_error`` fault can."""
