"""What a client asks a broker, and what a broker tells a client: RocketMQ's request codes as objects.

In RocketMQ every call between a client and a broker is a ``RemotingCommand`` with a request code
(``RequestCode``) and a header (``…RequestHeader``), sent through ``NettyRemotingClient``. rmqlab keeps
that shape: each request below is a small dataclass naming its code, a client hands it to
:meth:`Remoting.invoke <rmqlab.remoting.remoting.Remoting.invoke>` (never to the broker directly), and the broker
dispatches it by type to the processor that handles it (``Broker.process_request``). So a network fault —
a partition, a slow or lost response — hits every kind of call alike: a send, a pull, a lock renewal, an
offset commit or a heartbeat.

The codes are RocketMQ 4.9.7's values (``org.apache.rocketmq.common.protocol.RequestCode``).

The requests are plain slotted dataclasses, not frozen (and so not hashable), as 4.9.7's request headers are
mutable beans. Nothing changes a request once it is sent: the broker only reads it.

Mirrors: common/src/main/java/org/apache/rocketmq/common/protocol/RequestCode.java
    (RequestCode)
Mirrors: common/src/main/java/org/apache/rocketmq/common/protocol/header/PullMessageRequestHeader.java
    (PullMessageRequestHeader)
Mirrors: common/src/main/java/org/apache/rocketmq/common/protocol/header/ConsumerSendMsgBackRequestHeader.java
    (ConsumerSendMsgBackRequestHeader)
Mirrors: remoting/src/main/java/org/apache/rocketmq/remoting/protocol/RemotingCommand.java
    (RemotingCommand.createRequestCommand)
Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/PullResult.java
    (PullResult)
Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/PullStatus.java
    (PullStatus)
Mirrors: common/src/main/java/org/apache/rocketmq/common/protocol/body/LockBatchResponseBody.java
    (LockBatchResponseBody)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING, ClassVar

from ..common.message_queue import MessageQueue

if TYPE_CHECKING:
    from ..common.message import MessageExt

__all__ = [
    "ConsumerSendMsgBackRequest",
    "GetConsumerListByGroupRequest",
    "GetMaxOffsetRequest",
    "HeartbeatRequest",
    "LockBatchMqRequest",
    "LockBatchResult",
    "NotifyConsumerIdsChangedRequest",
    "PullMessageRequest",
    "PullResult",
    "PullStatus",
    "QueryConsumerOffsetRequest",
    "RequestCode",
    "SearchOffsetRequest",
    "SendMessageRequest",
    "UnlockBatchMqRequest",
    "UnregisterClientRequest",
    "UpdateConsumerOffsetRequest",
]


class RequestCode(IntEnum):
    """The request codes rmqlab sends (values as in RocketMQ's ``RequestCode``)."""

    SEND_MESSAGE = 10
    PULL_MESSAGE = 11
    QUERY_CONSUMER_OFFSET = 14
    UPDATE_CONSUMER_OFFSET = 15
    SEARCH_OFFSET_BY_TIMESTAMP = 29
    GET_MAX_OFFSET = 30
    HEART_BEAT = 34
    UNREGISTER_CLIENT = 35
    CONSUMER_SEND_MSG_BACK = 36
    GET_CONSUMER_LIST_BY_GROUP = 38
    NOTIFY_CONSUMER_IDS_CHANGED = 40
    LOCK_BATCH_MQ = 41
    UNLOCK_BATCH_MQ = 42


@dataclass(slots=True)
class SendMessageRequest:
    """``SEND_MESSAGE``: store ``msg`` (the broker's copy, built by the producer for this attempt)."""

    code: ClassVar[RequestCode] = RequestCode.SEND_MESSAGE
    producer_group: str
    """``SendMessageRequestHeader.producerGroup``: on the wire as in 4.9.7; the send processor rmqlab models has no
    use for it (4.9.7 only copies it into the SendMessageContext of its send hooks, not modelled)."""
    msg: MessageExt
    reconsume_times: int | None = None
    """Set by the client when it re-sends a ``%RETRY%`` message itself (the send-back fallback)."""
    max_reconsume_times: int | None = None


@dataclass(slots=True)
class PullMessageRequest:
    """``PULL_MESSAGE``: up to ``max_msg_nums`` messages of ``mq`` from ``queue_offset``; may be held (long polling).

    ``commit_offset`` piggybacks the consumer's in-memory offset (``FLAG_COMMIT_OFFSET``): the broker stores it
    before reading.
    """

    code: ClassVar[RequestCode] = RequestCode.PULL_MESSAGE
    consumer_group: str
    client: str
    """The trace name of the pulling consumer (``consumer:<id>``): the broker records offsets under it."""
    mq: MessageQueue
    queue_offset: int
    tags: frozenset[str] | None
    commit_offset: int | None
    max_msg_nums: int
    suspend: bool = True


@dataclass(slots=True)
class ConsumerSendMsgBackRequest:
    """``CONSUMER_SEND_MSG_BACK``: re-store the message at ``commit_log_offset`` as a retry (or dead letter)."""

    code: ClassVar[RequestCode] = RequestCode.CONSUMER_SEND_MSG_BACK
    group: str
    commit_log_offset: int
    delay_level: int
    origin_msg_id: str
    """The consumer's ``msg.getMsgId()`` (the UNIQ_KEY); the broker stores the looked-up copy's own id instead."""
    max_reconsume_times: int | None


@dataclass(slots=True)
class HeartbeatRequest:
    """``HEART_BEAT``: ``client_id`` is alive and consumes for ``group`` (registers it; a newcomer is announced)."""

    code: ClassVar[RequestCode] = RequestCode.HEART_BEAT
    client_id: str
    group: str
    clustering: bool
    """A clustering consumer's heartbeat also makes the broker create ``%RETRY%<group>``."""


@dataclass(slots=True)
class UnregisterClientRequest:
    """``UNREGISTER_CLIENT``: a consumer shutting down leaves ``group`` (the others are told)."""

    code: ClassVar[RequestCode] = RequestCode.UNREGISTER_CLIENT
    client_id: str
    group: str


@dataclass(slots=True)
class GetConsumerListByGroupRequest:
    """``GET_CONSUMER_LIST_BY_GROUP``: the group's members as this broker knows them (rebalance's input)."""

    code: ClassVar[RequestCode] = RequestCode.GET_CONSUMER_LIST_BY_GROUP
    group: str


@dataclass(slots=True)
class GetMaxOffsetRequest:
    """``GET_MAX_OFFSET``: the queue's max offset (``CONSUME_FROM_LAST_OFFSET`` for a queue with no offset)."""

    code: ClassVar[RequestCode] = RequestCode.GET_MAX_OFFSET
    topic: str
    queue_id: int


@dataclass(slots=True)
class SearchOffsetRequest:
    """``SEARCH_OFFSET_BY_TIMESTAMP``: the queue offset whose store time is nearest ``timestamp`` (virtual ms;
    ``CONSUME_FROM_TIMESTAMP`` for a queue with no offset)."""

    code: ClassVar[RequestCode] = RequestCode.SEARCH_OFFSET_BY_TIMESTAMP
    topic: str
    queue_id: int
    timestamp: int


@dataclass(slots=True)
class QueryConsumerOffsetRequest:
    """``QUERY_CONSUMER_OFFSET``: the group's committed offset of one queue."""

    code: ClassVar[RequestCode] = RequestCode.QUERY_CONSUMER_OFFSET
    group: str
    topic: str
    queue_id: int


@dataclass(slots=True)
class UpdateConsumerOffsetRequest:
    """``UPDATE_CONSUMER_OFFSET``, sent oneway by ``persistAll`` every 5 s: a lost one is simply re-sent next time."""

    code: ClassVar[RequestCode] = RequestCode.UPDATE_CONSUMER_OFFSET
    group: str
    client: str
    topic: str
    queue_id: int
    offset: int


@dataclass(slots=True)
class LockBatchMqRequest:
    """``LOCK_BATCH_MQ``: lock (or renew) ``mqs`` for ``client_id``; the response is the set actually locked."""

    code: ClassVar[RequestCode] = RequestCode.LOCK_BATCH_MQ
    group: str
    client_id: str
    mqs: tuple[MessageQueue, ...]


@dataclass(slots=True)
class UnlockBatchMqRequest:
    """``UNLOCK_BATCH_MQ``: release ``mqs`` held by ``client_id`` (oneway when a rebalance removes a queue)."""

    code: ClassVar[RequestCode] = RequestCode.UNLOCK_BATCH_MQ
    group: str
    client_id: str
    mqs: tuple[MessageQueue, ...]


@dataclass(slots=True)
class NotifyConsumerIdsChangedRequest:
    """Broker → client, oneway: the group's membership changed, rebalance now (``rebalanceImmediately``)."""

    code: ClassVar[RequestCode] = RequestCode.NOTIFY_CONSUMER_IDS_CHANGED
    group: str
    broker_name: str


# ---------------------------------------------------------------------- answers
class PullStatus(StrEnum):
    """``PullStatus``: what a pull found (the client's reading of the broker's response code)."""

    FOUND = "FOUND"
    NO_NEW_MSG = "NO_NEW_MSG"
    NO_MATCHED_MSG = "NO_MATCHED_MSG"
    OFFSET_ILLEGAL = "OFFSET_ILLEGAL"


@dataclass(slots=True)
class PullResult:
    """The answer to ``PULL_MESSAGE`` as the client reads it (``PullResult``): the messages found and where the next
    pull begins."""

    status: PullStatus
    next_begin_offset: int
    min_offset: int
    max_offset: int
    msgs: list[MessageExt] = field(default_factory=list)


@dataclass(slots=True)
class LockBatchResult:
    """The answer to ``LOCK_BATCH_MQ``: the queues now locked for the caller.

    ``holders`` is not in 4.9.7's wire format (``LockBatchResponseBody`` carries only the locked set); rmqlab adds
    who holds each refused queue so the trace can name it for students.
    """

    locked: frozenset[MessageQueue]
    holders: dict[MessageQueue, str]
