"""Messages as the producer builds them (:class:`Message`) and as a broker stores them (:class:`MessageExt`).

Property names are RocketMQ's ``MessageConst`` names. The message id a listener sees is the client id
``UNIQ_KEY``: it is set once by the producer and kept across retries, so every redelivery of a
message — through ``%RETRY%``, ``SCHEDULE_TOPIC_XXXX`` and into ``%DLQ%`` — carries the same id.
The store's own id (``offsetMsgId``, :func:`create_message_id`) names one stored copy: each retry, each
schedule-topic hop and the dead letter get a new one, and ``ORIGIN_MESSAGE_ID`` keeps the first.

Mirrors: common/src/main/java/org/apache/rocketmq/common/message/Message.java
    (Message.getDelayTimeLevel, Message.setDelayTimeLevel)
Mirrors: common/src/main/java/org/apache/rocketmq/common/message/MessageExt.java
    (MessageExt)
Mirrors: common/src/main/java/org/apache/rocketmq/common/message/MessageDecoder.java
    (MessageDecoder.createMessageId)
Mirrors: common/src/main/java/org/apache/rocketmq/common/MixAll.java
    (MixAll.getRetryTopic, MixAll.getDLQTopic)
Mirrors: common/src/main/java/org/apache/rocketmq/common/message/MessageConst.java
    (MessageConst)
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ConfigError

__all__ = [
    "DLQ_PREFIX",
    "PROPERTY_DELAY",
    "PROPERTY_MAX_OFFSET",
    "PROPERTY_MAX_RECONSUME_TIMES",
    "PROPERTY_MIN_OFFSET",
    "PROPERTY_ORIGIN_MESSAGE_ID",
    "PROPERTY_REAL_QID",
    "PROPERTY_REAL_TOPIC",
    "PROPERTY_RECONSUME_TIME",
    "PROPERTY_RETRY_TOPIC",
    "PROPERTY_UNIQ_KEY",
    "RETRY_PREFIX",
    "SCHEDULE_TOPIC",
    "Message",
    "MessageExt",
    "create_message_id",
    "dlq_topic",
    "offset_id",
    "retry_topic",
    "store_host_id",
]

PROPERTY_DELAY = "DELAY"
PROPERTY_RETRY_TOPIC = "RETRY_TOPIC"
PROPERTY_REAL_TOPIC = "REAL_TOPIC"
PROPERTY_REAL_QID = "REAL_QID"
PROPERTY_RECONSUME_TIME = "RECONSUME_TIME"
PROPERTY_MAX_RECONSUME_TIMES = "MAX_RECONSUME_TIMES"
PROPERTY_ORIGIN_MESSAGE_ID = "ORIGIN_MESSAGE_ID"
PROPERTY_UNIQ_KEY = "UNIQ_KEY"
PROPERTY_CONSUME_START_TIME = "CONSUME_START_TIME"
PROPERTY_MIN_OFFSET = "MIN_OFFSET"
PROPERTY_MAX_OFFSET = "MAX_OFFSET"

RETRY_PREFIX = "%RETRY%"
DLQ_PREFIX = "%DLQ%"
SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"


def create_message_id(store_host: str, commit_log_offset: int) -> str:
    """``MessageDecoder.createMessageId``: the store host's IPv4 address and port, then the CommitLog offset.

    16 bytes (4 of address, 4 of port, 8 of offset) as upper-case hex (``UtilAll.bytes2string``), so the id
    says where the message lives: ``7F00000100002A9F0000000000000000`` is the first message of 127.0.0.1:10911.
    rmqlab's CommitLog offsets count entries, not bytes, so the last 16 digits are the entry number.
    """
    return store_host_id(store_host) + offset_id(commit_log_offset)


def store_host_id(store_host: str) -> str:
    """The id's first 16 hex digits: the store host's address and port.

    They depend only on the broker's address, so a store works them out once, when it is built, and adds
    :func:`offset_id` for each message it puts (4.9.7 re-encodes the address into a byte buffer per message).
    """
    host, port = store_host.rsplit(":", 1)
    return (bytes(int(part) for part in host.split(".")) + int(port).to_bytes(4, "big")).hex().upper()


def offset_id(commit_log_offset: int) -> str:
    """The id's last 16 hex digits: the CommitLog offset as 8 big-endian bytes."""
    return commit_log_offset.to_bytes(8, "big").hex().upper()


def retry_topic(group: str) -> str:
    """``MixAll.getRetryTopic``: ``%RETRY%`` + group."""
    return RETRY_PREFIX + group


def dlq_topic(group: str) -> str:
    """``MixAll.getDLQTopic``: ``%DLQ%`` + group (not ``%DLQ%group@group``, a stats-key format)."""
    return DLQ_PREFIX + group


@dataclass(slots=True)
class Message:
    """What an application hands to ``DefaultMQProducer.send``."""

    topic: str
    body: Any = ""
    tags: str | None = None
    keys: str | None = None
    properties: dict[str, str] = field(default_factory=dict)

    @property
    def delay_time_level(self) -> int:
        """``Message.getDelayTimeLevel``: the ``DELAY`` property as an int (0 = not delayed)."""
        return int(self.properties.get(PROPERTY_DELAY, "0"))

    @delay_time_level.setter
    def delay_time_level(self, level: int) -> None:
        # ``setDelayTimeLevel(int)``: an integral float is the int it equals (one rule for every int in rmqlab);
        # anything else is refused here, not left in the property to be dropped at send time
        if isinstance(level, bool) or not (isinstance(level, int) or (isinstance(level, float) and level.is_integer())):
            raise ConfigError("delay_time_level", level, "an int (0: not delayed, 1..18: a delay level)")
        self.properties[PROPERTY_DELAY] = str(int(level))


_IMMUTABLE_BODIES = (str, bytes, int, float, complex, bool, type(None), frozenset)


def _own_body(body: Any) -> Any:
    """A body the receiver may change freely: immutable ones as they are, anything else deep-copied."""
    if isinstance(body, _IMMUTABLE_BODIES):
        return body
    try:
        return copy.deepcopy(body)
    except Exception:  # a body that cannot be copied (a lock, a socket) is shared, as before
        return body


@dataclass(slots=True)
class MessageExt:
    """A stored message: a CommitLog entry, or the copy a consumer pulled.

    ``reconsume_times`` is a field stored with the message, not a property. An immutable ``body`` (``str``,
    ``bytes``, a number) is shared between the CommitLog entry and every pulled copy; a mutable one (a dict,
    a list) is deep-copied per pull, since RocketMQ decodes each pull's bytes into the consumer's own objects:
    a listener that changes its dict changes nothing in the CommitLog or in another consumer's copy.
    """

    topic: str
    queue_id: int
    msg_id: str
    body: Any
    tags: str | None
    keys: str | None
    properties: dict[str, str]
    reconsume_times: int = 0
    queue_offset: int = -1
    commit_log_offset: int = -1
    born_timestamp: int = 0
    store_timestamp: int = 0
    store_host: str = ""
    offset_msg_id: str = ""
    """``MessageClientExt.getOffsetMsgId``: the store's id of this copy (:func:`create_message_id`), set on put."""

    def copy(self) -> MessageExt:
        """A shallow copy with its own property map (what a pull hands to the client)."""
        return MessageExt(
            topic=self.topic,
            queue_id=self.queue_id,
            msg_id=self.msg_id,
            body=_own_body(self.body),
            tags=self.tags,
            keys=self.keys,
            properties=dict(self.properties),
            reconsume_times=self.reconsume_times,
            queue_offset=self.queue_offset,
            commit_log_offset=self.commit_log_offset,
            born_timestamp=self.born_timestamp,
            store_timestamp=self.store_timestamp,
            store_host=self.store_host,
            offset_msg_id=self.offset_msg_id,
        )

    @property
    def delay_time_level(self) -> int:
        """``getDelayTimeLevel``: the ``DELAY`` property as an int, 0 when absent (only a present one is parsed)."""
        level = self.properties.get(PROPERTY_DELAY)
        return 0 if level is None else int(level)

    def __repr__(self) -> str:
        return (
            f"MessageExt({self.msg_id} {self.topic}@{self.store_host}:{self.queue_id}"
            f" offset={self.queue_offset} reconsume_times={self.reconsume_times})"
        )
