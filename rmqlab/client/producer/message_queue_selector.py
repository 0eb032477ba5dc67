"""``MessageQueueSelector``: the application picks the queue of an ordered send (``send(msg, selector, arg)``).

``SelectMessageQueueByHash`` is the selector RocketMQ ships: the same sharding key always lands on the same
queue while the route does not change, which is what ordered sending relies on.

Mirrors: client/src/main/java/org/apache/rocketmq/client/producer/MessageQueueSelector.java
    (MessageQueueSelector.select)
Mirrors: client/src/main/java/org/apache/rocketmq/client/producer/selector/SelectMessageQueueByHash.java
    (SelectMessageQueueByHash.select)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...common.message import Message
from ...common.message_queue import MessageQueue

__all__ = ["MessageQueueSelector", "SelectMessageQueueByHash", "java_string_hash"]

MessageQueueSelector = Callable[[Sequence[MessageQueue], Message, Any], MessageQueue | None]
"""``select(mqs, msg, arg)``: the application picks the queue (ordered sending)."""


def SelectMessageQueueByHash(mqs: Sequence[MessageQueue], msg: Message, arg: Any) -> MessageQueue:
    """RocketMQ's ``SelectMessageQueueByHash``: ``abs(hash(arg)) % len(mqs)`` (ints hash to themselves)."""
    key = arg if isinstance(arg, int) else java_string_hash(str(arg))
    return mqs[abs(key) % len(mqs)]


def java_string_hash(text: str) -> int:
    """``String.hashCode`` (deterministic, unlike Python's salted ``hash``), as a signed 32-bit int."""
    h = 0
    for ch in text:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h
