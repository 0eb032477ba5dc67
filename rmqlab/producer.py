"""``DefaultMQProducer``: SYNC / ASYNC / ONEWAY sends, selector sends, and their retry rules (4.9.7).

Three facts drive everything here (spec §1):

* ``send_msg_timeout`` is **one budget for the whole send**; before each attempt the elapsed time is
  checked (``timeout < costTime`` → stop with "sendDefaultImpl call timeout"); no back-off.
* SYNC makes ``1 + retry_times_when_send_failed`` attempts and picks a queue on another broker than
  the one that just failed; ASYNC retries only failures with no response; ONEWAY and selector sends
  never retry.
* ``FLUSH_DISK_TIMEOUT`` & co. are *statuses* of a stored message, returned to the caller, retried
  only with ``retry_another_broker_when_not_store_ok`` — which then makes a duplicate.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .duration import parse_duration
from .errors import ConfigError
from .latency_fault import LATENCY_MAX, NOT_AVAILABLE_DURATION, MQFaultStrategy
from .message import (
    PROPERTY_DELAY,
    PROPERTY_MAX_RECONSUME_TIMES,
    PROPERTY_RECONSUME_TIME,
    PROPERTY_UNIQ_KEY,
    RETRY_PREFIX,
    Message,
    MessageExt,
)
from .namesrv import TopicRouteData
from .queue import MessageQueue
from .remoting import MQBrokerException, RemoteError, RemotingException, ResponseCode
from .scheduler import TimerKind, TimerLabel
from .trace import EventKind
from .validation import check_int

if TYPE_CHECKING:
    from .broker import SendResponse
    from .lab import Lab

__all__ = [
    "RETRY_RESPONSE_CODES",
    "CommunicationMode",
    "DefaultMQProducer",
    "MessageQueueSelector",
    "SelectMessageQueueByHash",
    "SendFuture",
    "SendResult",
    "SendStatus",
    "TopicPublishInfo",
    "check_message",
]

RETRY_RESPONSE_CODES = frozenset(
    {
        ResponseCode.TOPIC_NOT_EXIST,
        ResponseCode.SERVICE_NOT_AVAILABLE,
        ResponseCode.SYSTEM_ERROR,
        ResponseCode.NO_PERMISSION,
        204,  # NO_BUYER_ID
        205,  # NOT_IN_CURRENT_UNIT
    }
)
"""``DefaultMQProducer.retryResponseCodes`` in 4.9.x — note: SYSTEM_BUSY (2) is *not* retried."""

MessageQueueSelector = Callable[[Sequence[MessageQueue], Message, Any], MessageQueue | None]
"""``select(mqs, msg, arg)``: the application picks the queue (ordered sending)."""


def SelectMessageQueueByHash(mqs: Sequence[MessageQueue], msg: Message, arg: Any) -> MessageQueue:
    """RocketMQ's ``SelectMessageQueueByHash``: ``abs(hash(arg)) % len(mqs)`` (ints hash to themselves)."""
    key = arg if isinstance(arg, int) else _java_string_hash(str(arg))
    return mqs[abs(key) % len(mqs)]


def _java_string_hash(text: str) -> int:
    """``String.hashCode`` (deterministic, unlike Python's salted ``hash``)."""
    h = 0
    for ch in text:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


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


def _java_is_blank(text: str) -> bool:
    """``UtilAll.isBlank``: empty, or only ``Character.isWhitespace`` chars (no-break spaces are not blank)."""
    return all(
        ch in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"
        or (unicodedata.category(ch) in ("Zs", "Zl", "Zp") and ch not in _JAVA_WHITESPACE_EXCEPTIONS)
        for ch in text
    )


def check_message(msg: Message) -> str | None:
    """``Validators.checkMessage``: the MQClientException text RocketMQ refuses ``msg`` with, else ``None``.

    The checks run in 4.9.7's order, so a message that breaks two rules gets the first one's text.
    Lengths are Java's: UTF-16 units for the topic, UTF-8 bytes for a ``str`` body.
    """
    topic = msg.topic
    if _java_is_blank(topic):
        return "The specified topic is blank"
    if len(topic.encode("utf-16-le")) // 2 > TOPIC_MAX_LENGTH:
        return f"The specified topic is longer than topic max length {TOPIC_MAX_LENGTH}."
    if any(ch not in _TOPIC_CHARS for ch in topic):
        return f"The specified topic[{topic}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
    if topic in NOT_ALLOWED_SEND_TOPICS:
        return f"Sending message to topic[{topic}] is forbidden."
    body = msg.body
    if body is None:
        return "the message body is null"
    if not isinstance(body, str | bytes | bytearray):
        return None  # a lab may send any Python object as the body; it stands for a non-empty byte[]
    size = len(body.encode()) if isinstance(body, str) else len(body)
    if size == 0:
        return "the message body length is zero"
    if size > MAX_MESSAGE_SIZE:
        return f"the message body size over max value, MAX: {MAX_MESSAGE_SIZE}"
    return None


class CommunicationMode(StrEnum):
    SYNC = "SYNC"
    ASYNC = "ASYNC"
    ONEWAY = "ONEWAY"


class SendStatus(StrEnum):
    """``SendStatus``: anything but SEND_OK still means *stored*, with a durability caveat."""

    SEND_OK = "SEND_OK"
    FLUSH_DISK_TIMEOUT = "FLUSH_DISK_TIMEOUT"
    FLUSH_SLAVE_TIMEOUT = "FLUSH_SLAVE_TIMEOUT"
    SLAVE_NOT_AVAILABLE = "SLAVE_NOT_AVAILABLE"


_CODE_STATUS = {
    ResponseCode.SUCCESS: SendStatus.SEND_OK,
    ResponseCode.FLUSH_DISK_TIMEOUT: SendStatus.FLUSH_DISK_TIMEOUT,
    ResponseCode.FLUSH_SLAVE_TIMEOUT: SendStatus.FLUSH_SLAVE_TIMEOUT,
    ResponseCode.SLAVE_NOT_AVAILABLE: SendStatus.SLAVE_NOT_AVAILABLE,
}


@dataclass(frozen=True, slots=True)
class SendResult:
    """What a successful (possibly non-OK) send returns."""

    send_status: SendStatus
    msg_id: str
    message_queue: MessageQueue
    queue_offset: int


@dataclass(slots=True)
class SendFuture:
    """The outcome of one ``send`` call, filled in when virtual time reaches it."""

    msg_id: str
    mode: CommunicationMode
    done: bool = False
    result: SendResult | None = None
    error: str | None = None
    response_code: int | None = None
    """A failed send whose cause is a broker's error response: its code (``MQClientException.getResponseCode``,
    which ``sendDefaultImpl`` copies from the last ``MQBrokerException``), else ``None``."""
    remark: str | None = None
    """That response's remark (``MQBrokerException.getErrorMessage``)."""
    attempts: int = 0
    callbacks: list[Callable[[SendFuture], None]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.result is not None and self.result.send_status is SendStatus.SEND_OK


@dataclass(slots=True)
class _Send:
    """State of one send in flight (the Java method's local variables)."""

    msg: Message
    future: SendFuture
    timeout_ms: int
    start_ms: int
    times_total: int
    header_rt: int | None = None
    header_max: int | None = None
    times: int = 0
    brokers_sent: list[str] = field(default_factory=list)
    send_result: SendResult | None = None
    last_error: RemoteError | None = None


@dataclass(slots=True)
class TopicPublishInfo:
    """``TopicPublishInfo``: a producer's cached route of one topic and *its own* list of writable queues.

    The list is a copy, because with latency fault tolerance 4.9.7 may re-point one of its queues at another
    broker (see :meth:`MQFaultStrategy.select_latency_aware`); it is rebuilt only when the name server's
    route changes (``topicRouteDataIsChange``), so such a rewrite lasts until then.
    """

    route: TopicRouteData
    message_queue_list: list[MessageQueue]

    @classmethod
    def of(cls, route: TopicRouteData) -> TopicPublishInfo:
        """``topicRouteData2TopicPublishInfo``."""
        return cls(route, list(route.message_queue_list))

    def write_queue_nums(self) -> dict[str, int]:
        """``getQueueIdByBroker`` for every broker: its ``writeQueueNums`` in the route (any permission)."""
        return {q.broker_name: q.write_queue_nums for q in self.route.queue_datas}


class ThreadLocalIndex:
    """``ThreadLocalIndex``: a seeded counter; ``increment_and_get`` wraps like ``& 0x7FFFFFFF``."""

    def __init__(self, start: int) -> None:
        self.value = start

    def increment_and_get(self) -> int:
        self.value = (self.value + 1) & 0x7FFFFFFF
        return self.value


class DefaultMQProducer:
    """A producer instance of ``producer_group``; every method acts at the lab's current virtual time."""

    def __init__(
        self,
        lab: Lab,
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
        self.lab = lab
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
            start = lab.rng.randrange(1 << 31)
        self.send_which_queue = ThreadLocalIndex(check_int("send_which_queue_start", start, 0, (1 << 31) - 1))
        # whichItemWorst is seeded only when the strategy is on, so a default producer draws nothing more
        worst_start = lab.rng.randrange(1 << 31) if send_latency_fault_enable is True else 0
        self.fault_strategy = MQFaultStrategy(
            send_latency_fault_enable=send_latency_fault_enable,
            which_item_worst_start=worst_start,
            latency_max=latency_max,
            not_available_duration=not_available_duration,
        )
        """``MQFaultStrategy`` (``sendLatencyFaultEnable``, off by default); its fault table is public for labs."""
        self._routes: dict[str, TopicPublishInfo] = {}
        self.running = True
        lab.scheduler.schedule(10, self._poll_name_server, label=TimerLabel(TimerKind.ROUTE_POLL, self.actor))

    # ------------------------------------------------------------------ routes
    def _poll_name_server(self) -> None:
        """Refresh every cached route from the name server every 30 s (first after 10 ms)."""
        if not self.running:
            return
        for topic in list(self._routes):
            route = self.lab.namesrv.route(topic)
            if route is not None and route != self._routes[topic].route:
                self._routes[topic] = TopicPublishInfo.of(route)
        self.lab.scheduler.schedule(30_000, self._poll_name_server, label=TimerLabel(TimerKind.ROUTE_POLL, self.actor))

    def _find_route(self, topic: str) -> TopicPublishInfo | None:
        """``tryToFindTopicPublishInfo``: the cached route if it has a writable queue (``ok()``), else ask now.

        So a topic that had no writable queue is looked up again at every send, not only at the 30 s poll.
        """
        info = self._routes.get(topic)
        if info is None or not info.message_queue_list:
            route = self.lab.namesrv.route(topic)
            if route is not None:
                info = self._routes[topic] = TopicPublishInfo.of(route)
        return info

    def select_one_message_queue(self, info: TopicPublishInfo, last_broker: str | None) -> MessageQueue:
        """``MQFaultStrategy.selectOneMessageQueue``: latency-aware when enabled, else ``TopicPublishInfo``'s."""
        queues = info.message_queue_list
        if self.fault_strategy.send_latency_fault_enable:
            index = self.send_which_queue.increment_and_get()
            return self.fault_strategy.select_latency_aware(
                queues, info.write_queue_nums(), index, self.send_which_queue, self.lab.now
            )
        if last_broker is None:
            return queues[self.send_which_queue.increment_and_get() % len(queues)]
        for _ in range(len(queues)):
            mq = queues[self.send_which_queue.increment_and_get() % len(queues)]
            if mq.broker_name != last_broker:
                return mq
        return queues[self.send_which_queue.increment_and_get() % len(queues)]

    # ------------------------------------------------------------------ public API
    def send(self, msg: Message, timeout: int | str | None = None) -> SendFuture:
        """SYNC send: up to ``1 + retry_times_when_send_failed`` attempts within one time budget."""
        return self._start(msg, CommunicationMode.SYNC, timeout, 1 + self.retry_times_when_send_failed)

    def send_async(
        self,
        msg: Message,
        on_success: Callable[[SendResult], None] | None = None,
        on_exception: Callable[[str], None] | None = None,
        timeout: int | str | None = None,
    ) -> SendFuture:
        """ASYNC send: the callback fires once; only no-response failures are retried."""
        future = self._start(msg, CommunicationMode.ASYNC, timeout, 1)
        return _with_send_callback(future, on_success, on_exception)

    def send_oneway(self, msg: Message) -> SendFuture:
        """ONEWAY send: one attempt, no response awaited, never retried."""
        return self._start(msg, CommunicationMode.ONEWAY, None, 1)

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
        if (on_success is not None or on_exception is not None) and mode is not CommunicationMode.ASYNC:
            raise ConfigError("mode", mode.value, "ASYNC when on_success / on_exception is given (a SendCallback)")
        state = self._prepare(msg, mode, timeout, 1)
        future = self._last_future if state is None else self._select_and_send(state, selector, arg)
        return _with_send_callback(future, on_success, on_exception)

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
        if (on_success is not None or on_exception is not None) and mode is not CommunicationMode.ASYNC:
            raise ConfigError("mode", mode.value, "ASYNC when on_success / on_exception is given (a SendCallback)")
        state = self._prepare(msg, mode, timeout, 1)
        if state is None:
            future = self._last_future
        elif msg.topic != mq.topic:
            future = self._fail(state, "MQClientException: message's topic not equal mq's topic")
        elif mq.broker_name not in self.lab.brokers:
            # sendKernelImpl: findBrokerAddressInPublish finds no address, even after a route lookup
            future = self._fail(state, f"MQClientException: The broker[{mq.broker_name}] not exist")
        else:
            self._attempt(state, mq, mode, retry=False)
            future = state.future
        return _with_send_callback(future, on_success, on_exception)

    def _select_and_send(self, state: _Send, selector: MessageQueueSelector, arg: Any) -> SendFuture:
        msg, mode = state.msg, state.future.mode
        info = self._find_route(msg.topic)
        if info is None or not info.message_queue_list:
            return self._fail(state, f"MQClientException: No route info for this topic, {msg.topic}")
        queues = list(info.message_queue_list)  # parsePublishMessageQueues: a fresh list for the selector
        try:
            mq = selector(queues, msg, arg)
        except Exception as exc:  # the application's selector raised: RocketMQ wraps it
            return self._fail(state, f"MQClientException: select message queue threw exception. ({exc!r})")
        if mq is None:
            return self._fail(state, "MQClientException: select message queue return null.")
        if not isinstance(mq, MessageQueue) or mq not in queues:
            return self._fail(state, f"MQClientException: selector returned {mq!r}, not one of the route's queues")
        self._attempt(state, mq, mode, retry=False)
        return state.future

    # ------------------------------------------------------------------ internals
    def _prepare(
        self, msg: Message, mode: CommunicationMode, timeout: int | str | None, times_total: int
    ) -> _Send | None:
        """Start a send, or refuse a call that Java would not even compile.

        Only programming errors raise (a non-Message, a non-string topic, a DELAY property that is not a
        number: ``setDelayTimeLevel`` takes an int). What RocketMQ itself rejects — ``Validators.checkMessage``
        — is an outcome: the send fails as data, and for ASYNC it reaches ``on_exception``, because
        ``DefaultMQProducerImpl.send(msg, callback, timeout)`` runs the validation inside the executor task.
        """
        if not isinstance(msg, Message):
            raise ConfigError("msg", msg, "an rmqlab.Message")
        if not isinstance(msg.topic, str):
            raise ConfigError("topic", msg.topic, "a topic name (str)")
        delay = msg.properties.get(PROPERTY_DELAY, "0")
        if not isinstance(delay, str) or not delay.lstrip("-").isdigit():
            # RocketMQ ignores a level <= 0 and caps one above the max, but the property must be a number
            raise ConfigError("delay_level", delay, "an int in the DELAY property (<= 0: not delayed)")
        budget = self.send_msg_timeout if timeout is None else parse_duration(timeout, "timeout")
        if msg.properties.get(PROPERTY_UNIQ_KEY) is None:
            msg.properties[PROPERTY_UNIQ_KEY] = self.lab.next_msg_id()
        msg_id = msg.properties[PROPERTY_UNIQ_KEY]
        future = SendFuture(msg_id, mode)
        self.lab.sends.append(future)
        self._last_future = future
        state = _Send(msg, future, budget, self.lab.now, times_total)
        if msg.topic.startswith(RETRY_PREFIX):
            # sendKernelImpl moves these two properties into the request header for retry topics.
            rt = msg.properties.pop(PROPERTY_RECONSUME_TIME, None)
            mx = msg.properties.pop(PROPERTY_MAX_RECONSUME_TIMES, None)
            state.header_rt = None if rt is None else int(rt)
            state.header_max = None if mx is None else int(mx)
        refused = check_message(msg)
        if refused is not None:
            self._fail(state, f"MQClientException: {refused}")
            return None
        return state

    def _start(self, msg: Message, mode: CommunicationMode, timeout: int | str | None, times_total: int) -> SendFuture:
        state = self._prepare(msg, mode, timeout, times_total)
        if state is None:
            return self._last_future
        route = self._find_route(msg.topic)
        if route is None or not route.message_queue_list:
            return self._fail(state, f"MQClientException: No route info of this topic: {msg.topic}")
        self._next_attempt(state)
        return state.future

    def _next_attempt(self, state: _Send) -> None:
        """One turn of ``sendDefaultImpl``'s loop."""
        info = self._find_route(state.msg.topic)
        if info is None or not info.message_queue_list:
            self._fail(state, f"MQClientException: No route info of this topic: {state.msg.topic}")
            return
        last_broker = state.brokers_sent[-1] if state.brokers_sent else None
        mq = self.select_one_message_queue(info, last_broker)
        cost = self.lab.now - state.start_ms
        if state.timeout_ms < cost:
            self._fail(state, "RemotingTooMuchRequestException: sendDefaultImpl call timeout")
            return
        if state.future.mode is not CommunicationMode.ASYNC:
            self._attempt(state, mq, state.future.mode, retry=True)
            return
        # ASYNC: sendKernelImpl returns once the request is handed over, and sendDefaultImpl then records a fast
        # success for the selected broker. The response, even an instant one, comes later on a callback thread;
        # only a connection that cannot be made fails during the hand-over, so it is recorded first (and then
        # overwritten by this fast success, as in 4.9.7).
        if self.lab.remoting.reachable(self.name, mq.broker_name) is None:
            self._update_fault_item(mq.broker_name, 0, isolation=False)
            self._attempt(state, mq, CommunicationMode.ASYNC, retry=True)
        else:
            self._attempt(state, mq, CommunicationMode.ASYNC, retry=True)
            self._update_fault_item(mq.broker_name, 0, isolation=False)

    def _attempt(self, state: _Send, mq: MessageQueue, mode: CommunicationMode, *, retry: bool) -> None:
        state.times += 1
        state.brokers_sent.append(mq.broker_name)
        state.future.attempts = state.times
        remaining = state.timeout_ms - (self.lab.now - state.start_ms)
        attempt = state.times
        begin = self.lab.now
        # Who records the attempt in the fault table (4.9.7): sendDefaultImpl for its SYNC and ONEWAY turns,
        # MQClientAPIImpl.sendMessageAsync for every ASYNC response or failure; a SYNC/ONEWAY selector send none.
        rated = mode is CommunicationMode.ASYNC or (retry and mode is CommunicationMode.SYNC)
        trace = self.lab.trace
        trace.record(
            self.lab.now,
            EventKind.SEND_ATTEMPT,
            self.actor,
            state.future.msg_id,
            broker=mq.broker_name,
            queue_id=mq.queue_id,
            attempt=attempt,
            mode=mode.value,
            topic=mq.topic,
        )
        stored = MessageExt(
            mq.topic,
            mq.queue_id,
            state.future.msg_id,
            state.msg.body,
            state.msg.tags,
            state.msg.keys,
            dict(state.msg.properties),
            born_timestamp=self.lab.now,
        )

        def handler(broker: Any) -> Any:
            return broker.send_message(stored, self.producer_group, state.header_rt, state.header_max)

        def on_response(response: SendResponse) -> None:
            until = self._update_fault_item(mq.broker_name, self.lab.now - begin, isolation=False) if rated else None
            self._record_result(state, mq, attempt, response.code.name, until)
            result = SendResult(_CODE_STATUS[response.code], state.future.msg_id, mq, response.queue_offset)
            if mode is CommunicationMode.ONEWAY:
                self._finish(state, result)
            elif (
                result.send_status is not SendStatus.SEND_OK
                and self.retry_another_broker_when_not_store_ok
                and retry
                and mode is CommunicationMode.SYNC
            ):
                state.send_result = result
                self._retry_or_finish(state)
            else:
                self._finish(state, result)

        def on_error(error: RemoteError) -> None:
            oneway_turn = retry and mode is CommunicationMode.ONEWAY
            until = (
                self._update_fault_item(mq.broker_name, self.lab.now - begin, isolation=True)
                if rated or oneway_turn
                else None
            )
            self._record_result(state, mq, attempt, _describe(error), until)
            state.last_error = error
            if mode is CommunicationMode.ASYNC:
                self._async_on_exception(state, mq, error, reselect_broker=retry)
            elif not retry:
                # sendSelectImpl / send(msg, mq) have no loop: the remoting exception itself propagates
                self._fail(state, _describe(error), error)
            elif isinstance(error, MQBrokerException) and error.code not in RETRY_RESPONSE_CODES:
                if state.send_result is not None:
                    self._finish(state, state.send_result)
                else:
                    self._fail(state, _describe(error), error)
            else:
                self._retry_or_finish(state)

        if mode is CommunicationMode.ONEWAY:
            failure = self.lab.remoting.reachable(self.name, mq.broker_name)
            if failure is not None:
                on_error(failure)
                return

            def sent(_: object) -> None:
                """invokeOneway returns once the request is written: no response, no error, no result."""
                self._record_result(state, mq, attempt, "ONEWAY_SENT")
                self._finish(state, None)

            self.lab.remoting.invoke(self.name, mq.broker_name, handler, max(remaining, 1), sent, sent)
            if retry:
                self._update_fault_item(mq.broker_name, 0, isolation=False)  # written to the wire: a fast success
            return
        self.lab.remoting.invoke(self.name, mq.broker_name, handler, remaining, on_response, on_error)

    def _async_on_exception(self, state: _Send, mq: MessageQueue, error: RemoteError, *, reselect_broker: bool) -> None:
        """``MQClientAPIImpl.onExceptionImpl``: retry no-response failures.

        A plain ``send(msg, callback)`` re-selects the broker (avoiding the one that failed); a selector or
        explicit-queue send has no TopicPublishInfo there and retries on the same broker.
        """
        need_retry = isinstance(error, RemotingException)
        if need_retry and state.times <= self.retry_times_when_send_async_failed:
            broker = mq.broker_name
            if reselect_broker:
                info = self._find_route(state.msg.topic)
                if info is not None and info.message_queue_list:
                    broker = self.select_one_message_queue(info, mq.broker_name).broker_name
            # the same request (hence the original queue id) goes to the re-selected broker
            self._attempt(
                state, MessageQueue(mq.topic, broker, mq.queue_id), CommunicationMode.ASYNC, retry=reselect_broker
            )
            return
        self._fail(state, _describe(error), error)

    def _retry_or_finish(self, state: _Send) -> None:
        if state.times < state.times_total:
            self._next_attempt(state)
        elif state.send_result is not None:
            self._finish(state, state.send_result)
        else:
            cause = _describe(state.last_error) if state.last_error else "unknown"
            self._fail(
                state,
                f"MQClientException: Send [{state.times}] times, still failed, cost "
                f"[{self.lab.now - state.start_ms}]ms, Topic: {state.msg.topic}, "
                f"BrokersSent: [{', '.join(state.brokers_sent)}] ({cause})",  # Arrays.toString
                state.last_error,
            )

    def _update_fault_item(self, broker_name: str, latency: int, *, isolation: bool) -> int | None:
        """``DefaultMQProducerImpl.updateFaultItem``: when the broker is available again (``None``: strategy off)."""
        return self.fault_strategy.update_fault_item(broker_name, latency, isolation, self.lab.now)

    def _record_result(
        self, state: _Send, mq: MessageQueue, attempt: int, outcome: str, not_available_until: int | None = None
    ) -> None:
        """A SEND_RESULT; with latency fault tolerance on, also when the fault table lets the broker back in."""
        fault = {} if not_available_until is None else {"not_available_until": not_available_until}
        self.lab.trace.record(
            self.lab.now,
            EventKind.SEND_RESULT,
            self.actor,
            state.future.msg_id,
            broker=mq.broker_name,
            queue_id=mq.queue_id,
            attempt=attempt,
            outcome=outcome,
            **fault,
        )

    def _finish(self, state: _Send, result: SendResult | None) -> None:
        future = state.future
        if future.done:
            return
        future.done = True
        future.result = result
        for callback in future.callbacks:
            self.lab.safely(callback, future, where=f"{self.actor} send callback")

    def _fail(self, state: _Send, error: str, cause: RemoteError | None = None) -> SendFuture:
        """The send is over without a result; a broker's error response as ``cause`` gives its code and remark."""
        future = state.future
        if not future.done:
            future.done = True
            future.error = error
            answered: dict[str, Any] = {}
            if isinstance(cause, MQBrokerException):
                future.response_code, future.remark = int(cause.code), cause.remark
                answered = {"response_code": int(cause.code), "remark": cause.remark}
            self.lab.trace.record(
                self.lab.now,
                EventKind.SEND_FAILED,
                self.actor,
                future.msg_id,
                error=error,
                attempts=state.times,
                mode=future.mode.value,
                **answered,
            )
            for callback in future.callbacks:
                self.lab.safely(callback, future, where=f"{self.actor} send callback")
        return future

    def shutdown(self) -> None:
        self.running = False


def _with_send_callback(
    future: SendFuture,
    on_success: Callable[[SendResult], None] | None,
    on_exception: Callable[[str], None] | None,
) -> SendFuture:
    """Attach a ``SendCallback``: exactly one of its methods runs once, when the send is done (maybe already)."""
    if on_success is None and on_exception is None:
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


def _describe(error: RemoteError | None) -> str:
    if error is None:
        return "unknown"
    if isinstance(error, MQBrokerException):
        return f"MQBrokerException: CODE: {int(error.code)} ({error.code.name}) DESC: {error.remark}"
    return f"{error.name}: {error.reason}"
