"""What a request's sender gets instead of a response: a remoting failure, or the broker's error answer.

A ``RemotingException`` means no response came (the broker was unreachable, or the answer did not arrive in time);
an ``MQBrokerException`` means the broker answered with an error :class:`ResponseCode`. The client's retry logic
tells them apart, as ``DefaultMQProducerImpl.sendDefaultImpl`` does. They are values handed to the sender's
callback, not raised: a process in virtual time cannot unwind through the scheduler.

Mirrors: remoting/src/main/java/org/apache/rocketmq/remoting/exception/RemotingException.java
    (RemotingException)
Mirrors: remoting/src/main/java/org/apache/rocketmq/remoting/exception/RemotingConnectException.java
    (RemotingConnectException)
Mirrors: remoting/src/main/java/org/apache/rocketmq/remoting/exception/RemotingTimeoutException.java
    (RemotingTimeoutException)
Mirrors: client/src/main/java/org/apache/rocketmq/client/exception/MQBrokerException.java
    (MQBrokerException)
"""

from __future__ import annotations

from dataclasses import dataclass

from .response_code import ResponseCode

__all__ = [
    "MQBrokerException",
    "RemoteError",
    "RemotingConnectException",
    "RemotingException",
    "RemotingTimeoutException",
    "ResponseExpiredException",
]


@dataclass(frozen=True, slots=True)
class RemotingException:
    """A failure with no broker response (connection refused, closed, timed out)."""

    broker: str
    reason: str

    @property
    def name(self) -> str:
        return type(self).__name__


@dataclass(frozen=True, slots=True)
class RemotingConnectException(RemotingException):
    """The broker could not be reached (down, or the network is cut)."""


@dataclass(frozen=True, slots=True)
class RemotingTimeoutException(RemotingException):
    """No response within the request's timeout (the broker may still have acted on it)."""


@dataclass(frozen=True, slots=True)
class MQBrokerException:
    """The broker answered with an error code."""

    broker: str
    code: ResponseCode
    remark: str = ""

    @property
    def name(self) -> str:
        return "MQBrokerException"


RemoteError = RemotingException | MQBrokerException


class ResponseExpiredException(RemotingTimeoutException):
    """``scanResponseTable`` removed a request the broker will never answer (it forgot it in a connection reset)."""
