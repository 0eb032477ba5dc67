"""What a send returns: ``SendResult`` and ``SendStatus`` (4.9.7), and rmqlab's ``SendFuture`` that holds it.

In Java a SYNC send returns a ``SendResult`` or throws, and an ASYNC send calls a ``SendCallback``. In virtual
time every send returns at once, so each returns a :class:`SendFuture` that is filled in when virtual time
reaches the outcome: a result (``FLUSH_DISK_TIMEOUT`` & co. are results too: the message *is* stored) or the
exception's text.

Mirrors: client/src/main/java/org/apache/rocketmq/client/producer/SendResult.java
    (SendResult)
Mirrors: client/src/main/java/org/apache/rocketmq/client/producer/SendStatus.java
    (SendStatus)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/CommunicationMode.java
    (CommunicationMode)
Mirrors: client/src/main/java/org/apache/rocketmq/client/producer/SendCallback.java
    (SendCallback.onSuccess, SendCallback.onException)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum

from ...common.message_queue import MessageQueue
from ...remoting.exceptions import RemoteError, RemotingConnectException, RemotingTimeoutException
from ...remoting.response_code import ResponseCode

__all__ = [
    "CODE_STATUS",
    "ClientErrorCode",
    "CommunicationMode",
    "SendFuture",
    "SendResult",
    "SendStatus",
    "client_error_code",
]


class ClientErrorCode(IntEnum):
    """``ClientErrorCode``: the code the client itself puts on the ``MQClientException`` a send throws
    (``getResponseCode``) when no broker answer gave one; values as in 4.9.7."""

    CONNECT_BROKER_EXCEPTION = 10001
    """The last attempt of ``sendDefaultImpl`` failed with a RemotingConnectException."""
    ACCESS_BROKER_TIMEOUT = 10002
    """… with a RemotingTimeoutException."""
    NOT_FOUND_TOPIC_EXCEPTION = 10005
    """"No route info of this topic" (``sendDefaultImpl`` found no route with a writable queue)."""


def client_error_code(error: RemoteError | None) -> ClientErrorCode | None:
    """``sendDefaultImpl``'s ``setResponseCode`` by the class of the last exception (an MQBrokerException's own code
    is taken as it is); a connection reset (a plain RemotingException) gets none."""
    if isinstance(error, RemotingConnectException):
        return ClientErrorCode.CONNECT_BROKER_EXCEPTION
    if isinstance(error, RemotingTimeoutException):
        return ClientErrorCode.ACCESS_BROKER_TIMEOUT
    return None


class CommunicationMode(StrEnum):
    """``CommunicationMode``: how the caller waits for the broker's answer."""

    SYNC = "SYNC"
    ASYNC = "ASYNC"
    ONEWAY = "ONEWAY"


class SendStatus(StrEnum):
    """``SendStatus``: anything but SEND_OK still means *stored*, with a durability caveat."""

    SEND_OK = "SEND_OK"
    FLUSH_DISK_TIMEOUT = "FLUSH_DISK_TIMEOUT"
    FLUSH_SLAVE_TIMEOUT = "FLUSH_SLAVE_TIMEOUT"
    SLAVE_NOT_AVAILABLE = "SLAVE_NOT_AVAILABLE"


CODE_STATUS = {
    ResponseCode.SUCCESS: SendStatus.SEND_OK,
    ResponseCode.FLUSH_DISK_TIMEOUT: SendStatus.FLUSH_DISK_TIMEOUT,
    ResponseCode.FLUSH_SLAVE_TIMEOUT: SendStatus.FLUSH_SLAVE_TIMEOUT,
    ResponseCode.SLAVE_NOT_AVAILABLE: SendStatus.SLAVE_NOT_AVAILABLE,
}
"""``MQClientAPIImpl.processSendResponse``: the response codes that are a stored message, and their status."""


@dataclass(slots=True)
class SendResult:
    """What a successful (possibly non-OK) send returns.

    A plain dataclass, as 4.9.7's is a bean with setters: one is built per send, and a frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__``, several times the work of a plain assignment.
    """

    send_status: SendStatus
    msg_id: str
    """The client's id (``UNIQ_KEY``), what a listener sees as ``getMsgId()``."""
    message_queue: MessageQueue
    queue_offset: int
    offset_msg_id: str = ""
    """The store's id of the stored copy (``SendResult.getOffsetMsgId``): broker address and CommitLog offset."""


@dataclass(slots=True)
class SendFuture:
    """The outcome of one ``send`` call, filled in when virtual time reaches it."""

    msg_id: str
    mode: CommunicationMode
    # the outcome: not constructor arguments, filled in when the send ends
    done: bool = field(default=False, init=False)
    result: SendResult | None = field(default=None, init=False)
    error: str | None = field(default=None, init=False)
    response_code: int | None = field(default=None, init=False)
    """A failed send's code, as ``getResponseCode`` of what the caller catches: a broker's error response (the
    ``MQBrokerException``'s, or the one ``sendDefaultImpl`` copies from the last of them), else a
    :class:`ClientErrorCode` ``sendDefaultImpl`` sets (10001 connect, 10002 timeout, 10005 no route), or
    MESSAGE_ILLEGAL (13) for a body ``Validators.checkMessage`` refuses; ``None`` where 4.9.7 leaves −1 (an ASYNC
    request's own failure, selector sends, a refused topic)."""
    remark: str | None = field(default=None, init=False)
    """A broker's error response's remark (``MQBrokerException.getErrorMessage``); ``None`` for a client code."""
    attempts: int = field(default=0, init=False)
    callbacks: list[Callable[[SendFuture], None]] = field(default_factory=list, init=False)

    @property
    def broker_answer(self) -> dict[str, object]:
        """``response_code`` and ``remark`` of a send a broker's error answer failed, for a trace event, else ``{}``."""
        return {} if self.remark is None else {"response_code": self.response_code, "remark": self.remark}

    @property
    def ok(self) -> bool:
        return self.result is not None and self.result.send_status is SendStatus.SEND_OK
