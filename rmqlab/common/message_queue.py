"""``MessageQueue``: the (topic, broker name, queue id) triple every RocketMQ component talks about.

Mirrors: common/src/main/java/org/apache/rocketmq/common/message/MessageQueue.java
    (MessageQueue.hashCode, MessageQueue.toString, MessageQueue.compareTo)
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["MessageQueue"]


class MessageQueue(NamedTuple):
    """One queue of one topic on one broker; sorts as RocketMQ sorts ``mqAll`` before allocation (``compareTo``:
    topic, then broker name, then queue id), and is equal to and hashes as any other with the same three fields
    (``equals``, ``hashCode``): an immutable value made of its three fields, which is what a named tuple is."""

    topic: str
    broker_name: str
    queue_id: int

    def __str__(self) -> str:
        """``Topic@broker-a:0``: how the trace and the views name a queue (4.9.7's ``toString`` spells out the three
        fields; this short form is rmqlab's, and :meth:`parse` reads it back)."""
        return f"{self.topic}@{self.broker_name}:{self.queue_id}"

    @classmethod
    def parse(cls, text: str) -> MessageQueue:
        """Inverse of ``str()``: ``"TopicTest@broker-a:3"``."""
        topic, _, rest = text.rpartition("@")
        broker, _, qid = rest.partition(":")
        return cls(topic, broker, int(qid))
