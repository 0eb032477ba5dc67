"""``DefaultMQProducerImpl``: where a send goes and how often it is tried (4.9.7 ``sendDefaultImpl`` & co.).

Three facts of ``sendDefaultImpl`` drive everything here:

* ``send_msg_timeout`` is **one budget for the whole send**; before each attempt the elapsed time is
  checked (``timeout < costTime`` → stop with "sendDefaultImpl call timeout"); no back-off.
* SYNC makes ``1 + retry_times_when_send_failed`` attempts and picks a queue on another broker than
  the one that just failed; ASYNC retries only failures with no response; ONEWAY and selector sends
  never retry.
* ``FLUSH_DISK_TIMEOUT`` & co. are *statuses* of a stored message, returned to the caller, retried
  only with ``retry_another_broker_when_not_store_ok`` — which then makes a duplicate.

A SYNC send is a process whose body is ``sendDefaultImpl``'s ``for`` loop: each turn blocks on its attempt
(``yield from``), as the Java thread blocks in ``invokeSync``. An ASYNC send never blocks its caller: the
hand-over here runs at once and the request lives on as its own process (:mod:`rmqlab.client.mq_client_api_impl`).

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/producer/DefaultMQProducerImpl.java
    (DefaultMQProducerImpl.sendDefaultImpl, DefaultMQProducerImpl.sendSelectImpl,
    DefaultMQProducerImpl.sendKernelImpl, DefaultMQProducerImpl.tryToFindTopicPublishInfo,
    DefaultMQProducerImpl.selectOneMessageQueue)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/factory/MQClientInstance.java
    (MQClientInstance.updateTopicRouteInfoFromNameServer)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...common.message import (
    PROPERTY_DELAY,
    PROPERTY_MAX_RECONSUME_TIMES,
    PROPERTY_RECONSUME_TIME,
    PROPERTY_UNIQ_KEY,
    RETRY_PREFIX,
    Message,
)
from ...common.message_queue import MessageQueue
from ...core.duration import parse_duration
from ...core.errors import ConfigError
from ...core.process import Body
from ...remoting.exceptions import MQBrokerException
from ...remoting.response_code import ResponseCode
from ..mq_client_api_impl import MQClientAPIImpl, SendCall, describe
from ..validators import refusal
from .message_queue_selector import MessageQueueSelector
from .producer_settings import ProducerSettings
from .send_result import ClientErrorCode, CommunicationMode, SendFuture, SendStatus, client_error_code
from .topic_publish_info import TopicPublishInfo

if TYPE_CHECKING:
    pass

__all__ = ["RETRY_RESPONSE_CODES", "DefaultMQProducerImpl", "ProducerSettings"]

RETRY_RESPONSE_CODES = frozenset(
    {
        ResponseCode.TOPIC_NOT_EXIST,
        ResponseCode.SERVICE_NOT_AVAILABLE,
        ResponseCode.SYSTEM_ERROR,
        ResponseCode.NO_PERMISSION,
        ResponseCode.NO_BUYER_ID,
        ResponseCode.NOT_IN_CURRENT_UNIT,
    }
)
"""``DefaultMQProducer.retryResponseCodes`` in 4.9.x — note: SYSTEM_BUSY (2) is *not* retried."""


class DefaultMQProducerImpl:
    """The sending side of one producer: its route table, the send loops, and the outcome of each send."""

    def __init__(self, producer: ProducerSettings) -> None:
        self.producer = producer
        self.context = producer.context
        self.api = MQClientAPIImpl(
            producer.context,
            producer.name,
            producer.producer_group,
            producer.actor,
            producer.fault_strategy,
            producer.processes,
        )
        self.topic_publish_info_table: dict[str, TopicPublishInfo] = {}

    # ------------------------------------------------------------------ routes
    def update_topic_route_info_from_name_server(self) -> None:
        """Re-read every cached route; a changed one replaces its ``TopicPublishInfo`` (``topicRouteDataIsChange``)."""
        table = self.topic_publish_info_table
        for topic in list(table):
            route = self.context.namesrv.route(topic)
            if route is not None and route != table[topic].route:
                table[topic] = TopicPublishInfo.of(route)

    def try_to_find_topic_publish_info(self, topic: str) -> TopicPublishInfo | None:
        """``tryToFindTopicPublishInfo``: the cached route if it has a writable queue (``ok()``), else ask now.

        So a topic that had no writable queue is looked up again at every send, not only at the 30 s poll.
        """
        info = self.topic_publish_info_table.get(topic)
        if info is None or not info.ok():
            route = self.context.namesrv.route(topic)
            if route is not None:
                info = self.topic_publish_info_table[topic] = TopicPublishInfo.of(route)
        return info

    def select_one_message_queue(self, info: TopicPublishInfo, last_broker: str | None) -> MessageQueue:
        """``MQFaultStrategy.selectOneMessageQueue``: latency-aware when enabled, else ``TopicPublishInfo``'s."""
        producer = self.producer
        if producer.fault_strategy.send_latency_fault_enable:
            index = producer.send_which_queue.increment_and_get()
            return producer.fault_strategy.select_latency_aware(
                info.message_queue_list, info.write_queue_nums(), index, producer.send_which_queue, self.context.now
            )
        return info.select_one_message_queue(last_broker, producer.send_which_queue)

    # ------------------------------------------------------------------ the send entry points
    def prepare(
        self,
        msg: Message,
        mode: CommunicationMode,
        timeout: int | str | None,
        times_total: int,
        *,
        executor_timeout: str | None = None,
    ) -> SendCall:
        """Start a send, or refuse a call that Java would not even compile.

        Only programming errors raise (a non-Message, a topic that is neither a string nor ``None``, a DELAY
        property that is not a number: ``setDelayTimeLevel`` takes an int). What RocketMQ itself rejects —
        ``Validators.checkMessage``, a topic-less message (``new Message()``, topic ``null``) included — is an
        outcome: the returned call's future has already failed, and for ASYNC that reaches ``on_exception``,
        because ``DefaultMQProducerImpl.send(msg, callback, timeout)`` validates inside the executor task.

        ``executor_timeout``: the ``RemotingTooMuchRequestException`` text of an ASYNC entry point whose executor
        task checks ``timeout > costTime`` *before* the message (``send(msg, callback)``: "DEFAULT ASYNC send call
        timeout", ``send(msg, selector, arg, callback)``: "call timeout"). The task runs at once in rmqlab
        (``costTime`` = 0), so only a budget of 0 ms fails it, and then nothing is validated or sent.
        """
        if not isinstance(msg, Message):
            raise ConfigError("msg", msg, "an rmqlab.Message")
        topic, properties = msg.topic, msg.properties
        if topic is not None and not isinstance(topic, str):
            raise ConfigError("topic", topic, "a topic name (str), or None for a topic-less message")
        if PROPERTY_DELAY in properties:
            delay = properties[PROPERTY_DELAY]
            if not isinstance(delay, str) or not delay.lstrip("-").isdigit():
                # RocketMQ ignores a level <= 0 and caps one above the max, but the property must be a number
                raise ConfigError("delay_level", delay, "an int in the DELAY property (<= 0: not delayed)")
        budget = self.producer.send_msg_timeout if timeout is None else parse_duration(timeout, "timeout")
        msg_id = properties.get(PROPERTY_UNIQ_KEY)
        if msg_id is None:
            msg_id = properties[PROPERTY_UNIQ_KEY] = self.context.next_msg_id()
        future = SendFuture(msg_id, mode)
        self.context.sends.append(future)
        call = SendCall(msg, future, budget, self.context.now, times_total)
        if not self.producer.running:
            # shutdown() stopped the async-sender executor: submit() is rejected and the caller gets the exception
            # (no SendCallback runs); every other entry point starts with makeSureStateOK
            if mode is CommunicationMode.ASYNC:
                self.api.fail(call, "MQClientException: executor rejected ")
            else:
                self.api.fail(call, "MQClientException: The producer service state not OK, SHUTDOWN_ALREADY")
            return call
        if executor_timeout is not None and budget <= 0:
            self.api.fail(call, f"RemotingTooMuchRequestException: {executor_timeout}")
            return call
        if topic is not None and topic.startswith(RETRY_PREFIX):
            # sendKernelImpl moves these two properties into the request header for retry topics.
            rt = properties.pop(PROPERTY_RECONSUME_TIME, None)
            mx = properties.pop(PROPERTY_MAX_RECONSUME_TIMES, None)
            call.header_rt = None if rt is None else int(rt)
            call.header_max = None if mx is None else int(mx)
        refused = refusal(msg)
        if refused is not None:
            code, text = refused
            if code is None:
                self.api.fail(call, f"MQClientException: {text}")
            else:  # MQClientException(responseCode, errorMessage): "CODE: 13  DESC: …", as rmqlab spells codes
                self.api.fail(call, f"MQClientException: CODE: {int(code)} ({code.name}) DESC: {text}", code=code)
        return call

    def send_default_impl(self, call: SendCall) -> None:
        """``send(msg)`` / ``send(msg, callback)`` / ``sendOneway(msg)``: a queue chosen by the producer.

        The route is looked up once: every turn of the send (and every ASYNC re-send) chooses from this
        ``TopicPublishInfo``, even if a route poll replaces the table's entry meanwhile, as in 4.9.7.
        """
        info = self.try_to_find_topic_publish_info(call.msg.topic)
        if info is None or not info.ok():
            self.api.fail(
                call,
                f"MQClientException: No route info of this topic: {call.msg.topic}",
                code=ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION,
            )
        elif call.future.mode is CommunicationMode.ASYNC:
            self._send_default_impl_async(call, info)
        else:
            self.producer.processes.spawn(self._send_default_impl(call, info))

    def send_select_impl(self, call: SendCall, selector: MessageQueueSelector, arg: Any) -> None:
        """``sendSelectImpl``: the application's selector picks the queue; one attempt (ASYNC may re-send)."""
        msg = call.msg
        call.entry = "sendSelectImpl"
        info = self.try_to_find_topic_publish_info(msg.topic)
        if info is None or not info.ok():
            self.api.fail(call, f"MQClientException: No route info for this topic, {msg.topic}")
            return
        queues = list(info.message_queue_list)  # parsePublishMessageQueues: a fresh list for the selector
        try:
            mq = selector(queues, msg, arg)
        except Exception as exc:  # the application's selector raised: RocketMQ wraps it
            self.api.fail(call, f"MQClientException: select message queue threw exception. ({exc!r})")
            return
        if mq is None:
            self.api.fail(call, "MQClientException: select message queue return null.")
        elif not isinstance(mq, MessageQueue) or mq not in queues:
            self.api.fail(call, f"MQClientException: selector returned {mq!r}, not one of the route's queues")
        else:
            self.send_kernel_impl(call, mq)

    def send_to_queue(self, call: SendCall, mq: MessageQueue) -> None:
        """``send(msg, mq[, callback])`` / ``sendOneway(msg, mq)``: no route, only the broker's address."""
        call.entry = "sendKernelImpl"
        if call.msg.topic != mq.topic:
            self.api.fail(call, "MQClientException: message's topic not equal mq's topic")
        elif call.future.mode is CommunicationMode.ASYNC and call.timeout_ms <= 0:
            # send(msg, mq, callback, timeout): the executor task checks timeout > costTime after the message
            self.api.fail(call, "RemotingTooMuchRequestException: call timeout")
        elif mq.broker_name not in self.context.remoting.brokers:
            # sendKernelImpl: findBrokerAddressInPublish finds no address, even after a route lookup
            self.api.fail(call, f"MQClientException: The broker[{mq.broker_name}] not exist")
        else:
            self.send_kernel_impl(call, mq)

    def send_kernel_impl(self, call: SendCall, mq: MessageQueue) -> None:
        """``sendKernelImpl`` called directly (``send(msg, mq)``, selector sends): one attempt, nothing rated.

        There is no loop around it, so a remoting exception reaches the caller as it is; an ASYNC request keeps
        its broker when it is re-sent (``onExceptionImpl`` without a ``TopicPublishInfo``).
        """
        mode = call.future.mode
        if mode is CommunicationMode.ASYNC:
            retry_times = self.producer.retry_times_when_send_async_failed
            self.producer.processes.spawn(self.api.send_message_async(call, mq, retry_times, None))
        elif mode is CommunicationMode.ONEWAY:
            error = self.api.send_message_oneway(call, mq, rated=False)
            if error is not None:
                call.last_error = error
                self.api.fail(call, describe(error), error)
        else:
            self.producer.processes.spawn(self._send_once(call, mq))

    # ------------------------------------------------------------------ the processes
    def _send_default_impl(self, call: SendCall, info: TopicPublishInfo) -> Body:
        """``sendDefaultImpl``'s loop for SYNC (``timesTotal = 1 + retryTimesWhenSendFailed``) and ONEWAY (1)."""
        api = self.api
        call_timeout = False
        mq: MessageQueue | None = None
        for _ in range(call.times_total):
            mq = self.select_one_message_queue(info, None if mq is None else mq.broker_name)
            if call.timeout_ms < self.context.now - call.start_ms:
                call_timeout = True
                break
            if call.future.mode is CommunicationMode.ONEWAY:
                error = api.send_message_oneway(call, mq, rated=True)
                if error is None:
                    return  # written to the wire: the process that records it finishes the send
                call.last_error = error
                continue
            result, error = yield from api.send_message_sync(call, mq, rated=True)
            if result is not None:
                retry_another_broker = self.producer.retry_another_broker_when_not_store_ok  # off by default
                if retry_another_broker and result.send_status is not SendStatus.SEND_OK:
                    call.send_result = result  # stored, but try another broker: the caller may get a duplicate
                    continue
                api.finish(call, result)
                return
            call.last_error = error
            if isinstance(error, MQBrokerException) and error.code not in RETRY_RESPONSE_CODES:
                if call.send_result is not None:
                    api.finish(call, call.send_result)
                else:
                    api.fail(call, describe(error), error)  # the MQBrokerException itself, not wrapped
                return
        if call.send_result is not None:
            api.finish(call, call.send_result)  # even after a call timeout: 4.9.7 checks the result first
        elif call_timeout:
            api.fail(call, "RemotingTooMuchRequestException: sendDefaultImpl call timeout")
        else:
            api.fail(
                call,
                f"MQClientException: Send [{call.times}] times, still failed, cost "
                f"[{self.context.now - call.start_ms}]ms, Topic: {call.msg.topic}, "
                f"BrokersSent: [{', '.join(call.brokers_sent)}] ({describe(call.last_error)})",  # Arrays.toString
                call.last_error,
                client_error_code(call.last_error),
            )

    def _send_once(self, call: SendCall, mq: MessageQueue) -> Body:
        """A SYNC ``sendKernelImpl`` without the loop: the result, or the exception as it is."""
        result, error = yield from self.api.send_message_sync(call, mq, rated=False)
        if result is not None:
            self.api.finish(call, result)
        else:
            call.last_error = error
            self.api.fail(call, describe(error), error)

    def _send_default_impl_async(self, call: SendCall, info: TopicPublishInfo) -> None:
        """``sendDefaultImpl`` for ASYNC (``timesTotal = 1``): choose a queue, hand the request over, return.

        ``sendKernelImpl`` returns once the request is handed over, and ``sendDefaultImpl`` then records a fast
        success for the selected broker. The response comes later on a callback thread (here: the request's own
        process), so for a reachable broker the fast success is recorded *before* the process starts: even an
        instant (0 ms) answer, which the process gets as soon as it is spawned, is recorded after it. Only a
        connection that cannot be made fails *during* the hand-over (``invokeAsync`` throws; its isolation and
        ``onExceptionImpl``'s re-sends run on the caller's thread), so then the fast success comes after the spawn
        and overwrites the isolation, as in 4.9.7.
        """
        mq = self.select_one_message_queue(info, None)
        if call.timeout_ms < self.context.now - call.start_ms:
            self.api.fail(call, "RemotingTooMuchRequestException: sendDefaultImpl call timeout")
            return
        request = self.api.send_message_async(
            call, mq, self.producer.retry_times_when_send_async_failed, self._retry_broker(info)
        )
        fault_strategy, now = self.producer.fault_strategy, self.context.now
        if self.context.remoting.reachable(self.producer.name, mq.broker_name) is None:
            fault_strategy.update_fault_item(mq.broker_name, 0, isolation=False, now=now)
            self.producer.processes.spawn(request)
        else:
            self.producer.processes.spawn(request)
            fault_strategy.update_fault_item(mq.broker_name, 0, isolation=False, now=now)

    def _retry_broker(self, info: TopicPublishInfo) -> Callable[[str], str]:
        """``onExceptionImpl`` with the send's ``TopicPublishInfo``: the broker an ASYNC re-send goes to."""

        def retry_broker(failed: str) -> str:
            return self.select_one_message_queue(info, failed).broker_name

        return retry_broker
