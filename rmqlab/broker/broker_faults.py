"""``BrokerFaults``: what a teacher injected into one broker, in one object the broker's parts consult.

None of this is RocketMQ's: each field stands in for an answer 4.9.7 gives when something below it fails, and is
read exactly where that answer arises — a slow or lost response where Netty writes it, a put status where the store
returns it, an error response where the processor would build it. All off by default; ``lab.set_broker_fault``
(:mod:`rmqlab.lab.fault_injection`) sets them.

Mirrors: remoting/src/main/java/org/apache/rocketmq/remoting/netty/NettyRemotingAbstract.java
    (NettyRemotingAbstract.processRequestCommand)
Mirrors: store/src/main/java/org/apache/rocketmq/store/PutMessageStatus.java
    (PutMessageStatus)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/SendMessageProcessor.java
    (SendMessageProcessor.handlePutMessageResult, SendMessageProcessor.asyncConsumerSendMsgBack)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..remoting.response_code import ResponseCode
from ..store.put_message_status import PutMessageStatus

__all__ = ["BrokerFaults"]


@dataclass(slots=True)
class BrokerFaults:
    """The injected faults of one broker (see ``Lab.set_broker_fault`` for what each does)."""

    response_delay_ms: int = 0
    """Every response arrives this much later (remoting)."""
    lose_responses: bool = False
    """Requests take effect, responses never arrive (remoting)."""
    put_status: PutMessageStatus = PutMessageStatus.PUT_OK
    """What the store answers every put: a failing status stores nothing."""
    reject_send_back: bool = False
    """CONSUMER_SEND_MSG_BACK answers SYSTEM_ERROR, nothing stored."""
    send_error: ResponseCode | None = None
    """Every SEND_MESSAGE answers this error code, nothing stored."""
    send_responses: list[tuple[ResponseCode, str]] = field(default_factory=list)
    """Scripted answers, one per SEND_MESSAGE, consumed in order (then normal again): SUCCESS and the
    FLUSH_* / SLAVE_NOT_AVAILABLE codes store the message and answer that code; any other code is an error
    response with its remark and nothing is stored."""
    send_back_error: tuple[ResponseCode, str] | None = None
    """CONSUMER_SEND_MSG_BACK answers this code and remark (nothing stored) while set."""
    query_offset_error: tuple[ResponseCode, str] | None = None
    """An error answer to every QUERY_CONSUMER_OFFSET (code, remark); ``None``: answered normally."""
    pull_error: tuple[ResponseCode, str] | None = None
    """An error answer to every PULL_MESSAGE (code, remark) before it is processed; ``None``: pulls served."""
