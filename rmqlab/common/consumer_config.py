"""The push consumer's two modes of operation: who gets a message, and where a new group starts reading.

``MessageModel`` is ``org.apache.rocketmq.common.protocol.heartbeat.MessageModel``; ``ConsumeFromWhere`` is
``org.apache.rocketmq.common.consumer.ConsumeFromWhere`` (the three starting points rmqlab supports; 4.9.7's
deprecated MIN/MAX/LAST_AND_FROM_MIN variants behave as LAST_OFFSET).

Mirrors: common/src/main/java/org/apache/rocketmq/common/protocol/heartbeat/MessageModel.java
    (MessageModel)
Mirrors: common/src/main/java/org/apache/rocketmq/common/consumer/ConsumeFromWhere.java
    (ConsumeFromWhere)
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ConsumeFromWhere", "MessageModel"]


class MessageModel(StrEnum):
    CLUSTERING = "CLUSTERING"
    """Each message goes to one consumer of the group; failures are retried via ``%RETRY%<group>``."""
    BROADCASTING = "BROADCASTING"
    """Every consumer gets every message; failed messages are dropped, never retried."""


class ConsumeFromWhere(StrEnum):
    CONSUME_FROM_LAST_OFFSET = "CONSUME_FROM_LAST_OFFSET"
    CONSUME_FROM_FIRST_OFFSET = "CONSUME_FROM_FIRST_OFFSET"
    CONSUME_FROM_TIMESTAMP = "CONSUME_FROM_TIMESTAMP"
    """From the queue offset whose store time is nearest ``consume_timestamp`` (``rmqlab.common.util_all``)."""
