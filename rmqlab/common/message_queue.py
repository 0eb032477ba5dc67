"""``MessageQueue``: the (topic, broker name, queue id) triple every RocketMQ component talks about.

Mirrors: common/src/main/java/org/apache/rocketmq/common/message/MessageQueue.java
    (MessageQueue.hashCode, MessageQueue.toString, MessageQueue.compareTo)
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MessageQueue"]


@dataclass(frozen=True, slots=True, order=True)
class MessageQueue:
    """One queue of one topic on one broker; sorts as RocketMQ sorts ``mqAll`` before allocation."""

    topic: str
    broker_name: str
    queue_id: int
    text: str = field(init=False, repr=False, compare=False)
    """``str(mq)`` (``Topic@broker-a:0``), built once: how the trace names a queue, in most of its events. The hot
    paths read this attribute, since ``str()`` goes through a Python-level ``__str__`` at each call."""
    _hash: int = field(init=False, repr=False, compare=False)
    """The hash, computed once: queues key the offset table and the ProcessQueue table."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", f"{self.topic}@{self.broker_name}:{self.queue_id}")
        object.__setattr__(self, "_hash", hash((self.topic, self.broker_name, self.queue_id)))

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return self.text

    @classmethod
    def parse(cls, text: str) -> MessageQueue:
        """Inverse of ``str()``: ``"TopicTest@broker-a:3"``."""
        topic, _, rest = text.rpartition("@")
        broker, _, qid = rest.partition(":")
        return cls(topic, broker, int(qid))
