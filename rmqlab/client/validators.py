"""``Validators.checkMessage``: what RocketMQ 4.9.7 refuses to send, with its exact exception texts.

A refused message is an *outcome*, not a Python error: the send fails as data (``SendFuture.error``), and for
ASYNC it reaches ``on_exception``, because 4.9.7 validates inside the executor task. Lengths are Java's: UTF-16
units for the topic, UTF-8 bytes for a ``str`` body.

Mirrors: client/src/main/java/org/apache/rocketmq/client/Validators.java
    (Validators.checkMessage, Validators.checkTopic)
"""

from __future__ import annotations

import unicodedata

from ..common.message import Message
from ..remoting.response_code import ResponseCode

__all__ = ["MAX_MESSAGE_SIZE", "NOT_ALLOWED_SEND_TOPICS", "TOPIC_MAX_LENGTH", "check_message", "refusal"]

TOPIC_MAX_LENGTH = 127
"""``Validators.TOPIC_MAX_LENGTH``."""
MAX_MESSAGE_SIZE = 4 * 1024 * 1024
"""``DefaultMQProducer.maxMessageSize``: 4 MiB."""
NOT_ALLOWED_SEND_TOPICS = frozenset(
    {
        "SCHEDULE_TOPIC_XXXX",
        "RMQ_SYS_TRANS_HALF_TOPIC",
        "RMQ_SYS_TRANS_OP_HALF_TOPIC",
        "TRANS_CHECK_MAX_TIME_TOPIC",
        "SELF_TEST_TOPIC",
        "OFFSET_MOVED_EVENT",
    }
)
"""``TopicValidator.NOT_ALLOWED_SEND_TOPIC_SET``: system topics no client may send to."""
_TOPIC_CHARS = frozenset("%|-_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_JAVA_WHITESPACE_EXCEPTIONS = frozenset("\u00a0\u2007\u202f")
_BYTES_BODIES = (bytes, bytearray)
"""The bodies that are bytes (a ``str`` body is counted in UTF-8 bytes; anything else stands for a non-empty
``byte[]``)."""


def _java_is_blank(text: str) -> bool:
    """``UtilAll.isBlank``: empty, or only ``Character.isWhitespace`` chars (no-break spaces are not blank)."""
    return all(
        ch in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"
        or (unicodedata.category(ch) in ("Zs", "Zl", "Zp") and ch not in _JAVA_WHITESPACE_EXCEPTIONS)
        for ch in text
    )


def check_message(msg: Message) -> str | None:
    """``Validators.checkMessage``: the error message RocketMQ refuses ``msg`` with (``getErrorMessage``), else
    ``None``. The checks run in 4.9.7's order, so a message that breaks two rules gets the first one's text."""
    refused = refusal(msg)
    return None if refused is None else refused[1]


def refusal(msg: Message) -> tuple[ResponseCode | None, str] | None:
    """``Validators.checkMessage`` as the MQClientException it throws: its response code and error message.

    The topic checks throw ``MQClientException(text, null)`` (code −1: ``None``); the body checks throw
    ``MQClientException(ResponseCode.MESSAGE_ILLEGAL, text)``, whose message is "CODE: 13  DESC: <text>".
    """
    refused = _check_topic(msg.topic)
    if refused is not None:
        return None, refused
    body = msg.body
    if isinstance(body, str):
        size = len(body.encode())  # the UTF-8 bytes the producer would send
    elif isinstance(body, _BYTES_BODIES):
        size = len(body)
    elif body is None:
        return ResponseCode.MESSAGE_ILLEGAL, "the message body is null"
    else:
        return None  # a lab may send any Python object as the body; it stands for a non-empty byte[]
    if size == 0:
        return ResponseCode.MESSAGE_ILLEGAL, "the message body length is zero"
    if size > MAX_MESSAGE_SIZE:
        return ResponseCode.MESSAGE_ILLEGAL, f"the message body size over max value, MAX: {MAX_MESSAGE_SIZE}"
    return None


def _check_topic(topic: str | None) -> str | None:
    """``Validators.checkTopic`` and ``isNotAllowedSendTopic``: why no message may be sent to ``topic``, else ``None``.
    """
    if topic is None or _java_is_blank(topic):  # UtilAll.isBlank(null) is true: a topic-less message
        return "The specified topic is blank"
    if len(topic.encode("utf-16-le")) // 2 > TOPIC_MAX_LENGTH:
        return f"The specified topic is longer than topic max length {TOPIC_MAX_LENGTH}."
    if not _TOPIC_CHARS.issuperset(topic):
        return f"The specified topic[{topic}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
    if topic in NOT_ALLOWED_SEND_TOPICS:
        return f"Sending message to topic[{topic}] is forbidden."
    return None
