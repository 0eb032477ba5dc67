"""``DefaultMQProducer``: the public producer API — SYNC / ASYNC / ONEWAY sends and selector sends (4.9.7).

As in Java, this class holds the settings and checks the arguments; the sending itself is
:class:`~rmqlab.client.producer.default_mq_producer_impl.DefaultMQProducerImpl` (where a send goes, how often it is
tried) and :class:`~rmqlab.client.mq_client_api_impl.MQClientAPIImpl` (one request and its answer). The names a lab
imports from
here — ``SendResult``, ``SendStatus``, ``check_message``, ``SelectMessageQueueByHash`` … — live in modules named
after their RocketMQ classes and are re-exported.

Mirrors: client/src/main/java/org/apache/rocketmq/client/producer/DefaultMQProducer.java
    (DefaultMQProducer.send, DefaultMQProducer.sendOneway, DefaultMQProducer.shutdown)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ...common.message import Message
from ...common.message_queue import MessageQueue
from ...core.duration import parse_duration
from ...core.errors import ConfigError
from ...core.process import Body, ProcessGroup, Sleep
from ...core.scheduler import TimerKind, TimerLabel
from ...core.validation import check_int
from ..validators import check_message
from .default_mq_producer_impl import RETRY_RESPONSE_CODES, DefaultMQProducerImpl
from .latency_fault_tolerance import LATENCY_MAX, NOT_AVAILABLE_DURATION, MQFaultStrategy
from .message_queue_selector import MessageQueueSelector, SelectMessageQueueByHash
from .send_result import CommunicationMode, SendFuture, SendResult, SendStatus
from .topic_publish_info import ThreadLocalIndex, TopicPublishInfo

if TYPE_CHECKING:
    from ...core.context import Context

__all__ = [
    "RETRY_RESPONSE_CODES",
    "CommunicationMode",
    "DefaultMQProducer",
    "MessageQueueSelector",
    "SelectMessageQueueByHash",
    "SendFuture",
    "SendResult",
    "SendStatus",
    "ThreadLocalIndex",
    "TopicPublishInfo",
    "check_message",
]

ROUTE_POLL_FIRST_MS = 10
"""``MQClientInstance.startScheduledTask``: the first route poll, 10 ms after start."""
POLL_NAME_SERVER_INTERVAL_MS = 30_000
"""``ClientConfig.pollNameServerInterval``."""


class DefaultMQProducer:
    """A producer instance of ``producer_group``; every method acts at the lab's current virtual time."""

    def __init__(
        self,
        context: Context,
        producer_group: str,
        *,
        name: str | None = None,
        send_msg_timeout: int | str = 3000,
        retry_times_when_send_failed: int = 2,
        retry_times_when_send_async_failed: int = 2,
        retry_another_broker_when_not_store_ok: bool = False,
        send_which_queue_start: int | None = None,
        send_latency_fault_enable: bool = False,
        latency_max: Sequence[int] = LATENCY_MAX,
        not_available_duration: Sequence[int] = NOT_AVAILABLE_DURATION,
    ) -> None:

        if not isinstance(producer_group, str) or not producer_group:
            raise ConfigError("producer_group", producer_group, "a non-empty string")
        self.context = context
        self.producer_group = producer_group
        self.name = name or producer_group
        self.actor = f"producer:{self.name}"
        """How the trace names this producer."""
        self.send_msg_timeout = parse_duration(send_msg_timeout, "send_msg_timeout")
        if self.send_msg_timeout <= 0:
            raise ConfigError("send_msg_timeout", send_msg_timeout, "a duration > 0 ms")
        self.retry_times_when_send_failed = check_int(
            "retry_times_when_send_failed", retry_times_when_send_failed, 0, 1000
        )
        self.retry_times_when_send_async_failed = check_int(
            "retry_times_when_send_async_failed", retry_times_when_send_async_failed, 0, 1000
        )
        if not isinstance(retry_another_broker_when_not_store_ok, bool):
            raise ConfigError(
                "retry_another_broker_when_not_store_ok", retry_another_broker_when_not_store_ok, "True or False"
            )
        self.retry_another_broker_when_not_store_ok = retry_another_broker_when_not_store_ok
        start = send_which_queue_start
        if start is None:
            start = context.rng.randrange(1 << 31)
        self.send_which_queue = ThreadLocalIndex(check_int("send_which_queue_start", start, 0, (1 << 31) - 1))
        # whichItemWorst is seeded only when the strategy is on, so a default producer draws nothing more
        worst_start = context.rng.randrange(1 << 31) if send_latency_fault_enable is True else 0
        self.fault_strategy = MQFaultStrategy(
            send_latency_fault_enable=send_latency_fault_enable,
            which_item_worst_start=worst_start,
            latency_max=latency_max,
            not_available_duration=not_available_duration,
        )
        """``MQFaultStrategy`` (``sendLatencyFaultEnable``, off by default); its fault table is public for labs."""
        self.running = True
        self.processes = ProcessGroup(context.scheduler, context.remoting, self.actor)
        """This client's processes: one per send in flight, and the route poll."""
        self.impl = DefaultMQProducerImpl(self)
        """``getDefaultMQProducerImpl()``: the route table and the send loops."""
        self._route_poll = self.processes.spawn(self._route_service())

    def _route_service(self) -> Body:
        """``updateTopicRouteInfoFromNameServer``: every cached route re-read every 30 s, the first time after 10 ms."""
        label = TimerLabel(TimerKind.ROUTE_POLL, self.actor)
        yield Sleep(ROUTE_POLL_FIRST_MS, label)
        while True:
            self.impl.update_topic_route_info_from_name_server()
            yield Sleep(POLL_NAME_SERVER_INTERVAL_MS, label)

    # ------------------------------------------------------------------ public API
    def send(self, msg: Message, timeout: int | str | None = None) -> SendFuture:
        """SYNC send: up to ``1 + retry_times_when_send_failed`` attempts within one time budget."""
        call = self.impl.prepare(msg, CommunicationMode.SYNC, timeout, 1 + self.retry_times_when_send_failed)
        if not call.future.done:
            self.impl.send_default_impl(call)
        return call.future

    def send_async(
        self,
        msg: Message,
        on_success: Callable[[SendResult], None] | None = None,
        on_exception: Callable[[str], None] | None = None,
        timeout: int | str | None = None,
    ) -> SendFuture:
        """ASYNC send: the callback fires once; only no-response failures are retried.

        Every failure, an invalid message included, reaches ``on_exception`` (4.9.7 runs the whole send in the
        async-sender task, which passes each exception to ``sendCallback.onException``); only a callback that is
        not callable — a ``SendCallback`` Java would not compile — is a ConfigError, raised before anything is sent.
        """
        _check_send_callback(on_success, on_exception)
        call = self.impl.prepare(
            msg, CommunicationMode.ASYNC, timeout, 1, executor_timeout="DEFAULT ASYNC send call timeout"
        )
        if not call.future.done:
            self.impl.send_default_impl(call)
        return _with_send_callback(call.future, on_success, on_exception, accepted=self.running)

    def send_oneway(self, msg: Message) -> SendFuture:
        """ONEWAY send: one attempt, no response awaited, never retried."""
        call = self.impl.prepare(msg, CommunicationMode.ONEWAY, None, 1)
        if not call.future.done:
            self.impl.send_default_impl(call)
        return call.future

    def send_with_selector(
        self,
        msg: Message,
        selector: MessageQueueSelector,
        arg: Any,
        mode: CommunicationMode | str = CommunicationMode.SYNC,
        timeout: int | str | None = None,
        on_success: Callable[[SendResult], None] | None = None,
        on_exception: Callable[[str], None] | None = None,
    ) -> SendFuture:
        """``send(msg, selector, arg[, callback])`` (``sendSelectImpl``): the selector's queue, a single attempt.

        ``on_success`` / ``on_exception`` are the ``SendCallback`` of ``send(msg, selector, arg, callback)``, so
        they need ``mode="ASYNC"``; every failure, a refused message or a throwing selector included, reaches
        ``on_exception``, as the 4.9.7 executor task passes each exception to ``sendCallback.onException``.
        """
        mode = _mode(mode)
        if selector is not None and not callable(selector):  # None is Java's null: it fails in the task, as there
            raise ConfigError("selector", selector, "a callable select(mqs, msg, arg) returning a MessageQueue")
        _check_send_callback(on_success, on_exception)
        if (on_success is not None or on_exception is not None) and mode is not CommunicationMode.ASYNC:
            raise ConfigError("mode", mode.value, "ASYNC when on_success / on_exception is given (a SendCallback)")
        executor_timeout = "call timeout" if mode is CommunicationMode.ASYNC else None
        call = self.impl.prepare(msg, mode, timeout, 1, executor_timeout=executor_timeout)
        if not call.future.done:
            self.impl.send_select_impl(call, selector, arg)
        return _with_send_callback(call.future, on_success, on_exception, accepted=self.running)

    def send_to_queue(
        self,
        msg: Message,
        mq: MessageQueue,
        mode: CommunicationMode | str = CommunicationMode.SYNC,
        timeout: int | str | None = None,
        on_success: Callable[[SendResult], None] | None = None,
        on_exception: Callable[[str], None] | None = None,
    ) -> SendFuture:
        """``send(msg, mq[, callback])`` / ``sendOneway(msg, mq)``: straight to ``mq``, one attempt, no selection.

        No route is consulted (only the broker's address), no fault table is updated for SYNC and ONEWAY, and an
        ASYNC retry stays on ``mq``'s broker (``onExceptionImpl`` without a ``TopicPublishInfo``). A queue id the
        broker does not have is its SYSTEM_ERROR "request queueId[n] is illegal", which is not retried.
        """
        mode = _mode(mode)
        if not isinstance(mq, MessageQueue):
            raise ConfigError("mq", mq, "an rmqlab.MessageQueue (topic, broker_name, queue_id)")
        _check_send_callback(on_success, on_exception)
        if (on_success is not None or on_exception is not None) and mode is not CommunicationMode.ASYNC:
            raise ConfigError("mode", mode.value, "ASYNC when on_success / on_exception is given (a SendCallback)")
        call = self.impl.prepare(msg, mode, timeout, 1)
        if not call.future.done:
            self.impl.send_to_queue(call, mq)
        return _with_send_callback(call.future, on_success, on_exception, accepted=self.running)

    def shutdown(self) -> None:
        """Stop the route poll. Sends already under way run to their end (rmqlab closes no connection).

        A later SYNC or ONEWAY send fails with "The producer service state not OK, SHUTDOWN_ALREADY"
        (``makeSureStateOK``); a later ASYNC send with "executor rejected " and no callback (4.9.7 shuts the
        async-sender executor down, so ``submit`` throws to the caller).
        """
        self.running = False
        self._route_poll.kill()


def _check_send_callback(
    on_success: Callable[[SendResult], None] | None, on_exception: Callable[[str], None] | None
) -> None:
    """A ``SendCallback``'s two methods must be callables (or None: no such method); anything else is a program
    error Java's compiler refuses, not a send failure, so it is refused before the send starts."""
    for parameter, value, takes in (
        ("on_success", on_success, "the SendResult"),
        ("on_exception", on_exception, "the error text"),
    ):
        if value is not None and not callable(value):
            raise ConfigError(parameter, value, f"a callable taking {takes}, or None")


def _with_send_callback(
    future: SendFuture,
    on_success: Callable[[SendResult], None] | None,
    on_exception: Callable[[str], None] | None,
    *,
    accepted: bool = True,
) -> SendFuture:
    """Attach a ``SendCallback``: exactly one of its methods runs once, when the send is done (maybe already).

    ``accepted=False``: the async-sender executor refused the task (the producer is shut down), so the caller got
    the exception and the callback is never called.
    """
    if (on_success is None and on_exception is None) or not accepted:
        return future

    def callback(f: SendFuture) -> None:
        if f.result is not None and on_success:
            on_success(f.result)
        elif f.error is not None and on_exception:
            on_exception(f.error)

    future.callbacks.append(callback)
    if future.done:
        callback(future)
    return future


def _mode(mode: CommunicationMode | str) -> CommunicationMode:
    try:
        return CommunicationMode(mode)
    except ValueError:
        raise ConfigError("mode", mode, "one of SYNC, ASYNC, ONEWAY") from None
