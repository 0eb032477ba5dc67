"""What crosses the wire: response codes, remoting exceptions, and the one place RPCs happen.

Clients never call a broker method directly; they go through :meth:`Remoting.invoke`, which applies
the injected faults (broker down, slow, network partition) and the request timeout. A request takes
effect at the broker when it is sent; its response arrives ``response_delay_ms`` later — or, if that
is past the timeout, the client gets a timeout 1 ms *after* its deadline (real timeouts fire a few ms
late, which is why RocketMQ's ``timeout < costTime`` check aborts instead of retrying with 0 ms).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from .scheduler import Scheduler, TimerKind, TimerLabel

if TYPE_CHECKING:
    from .broker import Broker

__all__ = [
    "MQBrokerException",
    "Remoting",
    "RemotingConnectException",
    "RemotingException",
    "RemotingTimeoutException",
    "ResponseCode",
]


class ResponseCode(IntEnum):
    """The broker response codes rmqlab uses (values as in RocketMQ's ``ResponseCode``)."""

    SUCCESS = 0
    SYSTEM_ERROR = 1
    SYSTEM_BUSY = 2
    FLUSH_DISK_TIMEOUT = 10
    SLAVE_NOT_AVAILABLE = 11
    FLUSH_SLAVE_TIMEOUT = 12
    MESSAGE_ILLEGAL = 13
    SERVICE_NOT_AVAILABLE = 14
    NO_PERMISSION = 16
    TOPIC_NOT_EXIST = 17
    QUERY_NOT_FOUND = 22
    SUBSCRIPTION_GROUP_NOT_EXIST = 26


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


@dataclass(slots=True)
class NetworkFaults:
    """Cut links: (client name, broker name) pairs that cannot talk."""

    partitions: set[tuple[str, str]] = field(default_factory=set)


class Remoting:
    """Runs one request against a broker, applying faults, latency and the timeout."""

    def __init__(self, scheduler: Scheduler, brokers: dict[str, Broker]) -> None:
        self.scheduler = scheduler
        self.brokers = brokers
        self.faults = NetworkFaults()

    def reachable(self, client: str, broker_name: str) -> RemotingException | None:
        """``None`` if ``client`` can talk to ``broker_name`` now, else the exception it would get."""
        broker = self.brokers.get(broker_name)
        if broker is None:
            return RemotingConnectException(broker_name, f"the broker[{broker_name}] not exist")
        if not broker.up:
            return RemotingConnectException(broker_name, f"connect to {broker_name} failed: broker down")
        partitions = self.faults.partitions
        if partitions and (client.split("/", 1)[0], broker_name) in partitions:  # inner producer: same process
            return RemotingConnectException(broker_name, f"network partition {client} / {broker_name}")
        return None

    def invoke(
        self,
        client: str,
        broker_name: str,
        handler: Callable[[Broker], Any],
        timeout_ms: int,
        on_response: Callable[[Any], None],
        on_error: Callable[[RemoteError], None],
    ) -> None:
        """Send a request; exactly one of ``on_response`` / ``on_error`` is called, now or later.

        ``handler(broker)`` runs at the broker at once and returns the response, or an
        :class:`MQBrokerException` for an error code. With no response delay the callback runs
        synchronously (the common, fast path).
        """
        failure = self.reachable(client, broker_name)
        if failure is not None:
            on_error(failure)
            return
        if timeout_ms <= 0:
            on_error(RemotingTimeoutException(broker_name, "no time left for the request"))
            return
        broker = self.brokers[broker_name]
        response = handler(broker)
        delay = broker.response_delay_ms
        if broker.lose_responses:
            broker.connection_reset(client)  # the channel is gone: nothing stays held for it at the broker
            on_error(RemotingException(broker_name, "connection reset before the response arrived"))
            return
        if delay > timeout_ms:
            self.scheduler.schedule(
                timeout_ms + 1,
                on_error,
                RemotingTimeoutException(broker_name, f"wait response timeout {timeout_ms}ms"),
                label=TimerLabel(TimerKind.REQUEST_TIMEOUT, broker_name, detail=client),
            )
            return
        deliver = on_error if isinstance(response, MQBrokerException) else on_response
        if delay == 0:
            deliver(response)
        else:
            self.scheduler.schedule(
                delay,
                self._deliver_late,
                client,
                broker_name,
                deliver,
                response,
                on_error,
                label=TimerLabel(TimerKind.RESPONSE, broker_name, detail=client),
            )

    def _deliver_late(
        self,
        client: str,
        broker_name: str,
        deliver: Callable[[Any], None],
        response: Any,
        on_error: Callable[[RemoteError], None],
    ) -> None:
        """A delayed response is lost if the link broke while it was on its way."""
        failure = self.reachable(client, broker_name)
        if failure is not None:
            on_error(RemotingException(broker_name, "connection closed before the response arrived"))
        else:
            deliver(response)
