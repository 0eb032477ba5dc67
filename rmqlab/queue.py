"""``MessageQueue``: the (topic, broker name, queue id) triple every RocketMQ component talks about."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MessageQueue"]


@dataclass(frozen=True, slots=True, order=True)
class MessageQueue:
    """One queue of one topic on one broker; sorts as RocketMQ sorts ``mqAll`` before allocation."""

    topic: str
    broker_name: str
    queue_id: int

    def __str__(self) -> str:
        return f"{self.topic}@{self.broker_name}:{self.queue_id}"

    @classmethod
    def parse(cls, text: str) -> MessageQueue:
        """Inverse of ``str()``: ``"TopicTest@broker-a:3"``."""
        topic, _, rest = text.rpartition("@")
        broker, _, qid = rest.partition(":")
        return cls(topic, broker, int(qid))
