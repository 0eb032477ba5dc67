"""The push consumer's two modes of operation: who gets a message, and where a new group starts reading.

``MessageModel`` is ``org.apache.rocketmq.common.protocol.heartbeat.MessageModel``; ``ConsumeFromWhere`` is
``org.apache.rocketmq.common.consumer.ConsumeFromWhere`` (the two starting points rmqlab supports).
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
