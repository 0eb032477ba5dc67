"""``MQClientAPIImpl.sendMessage``: one SEND_MESSAGE request to a broker and what its answer means (4.9.7).

:class:`~rmqlab.client.producer.default_mq_producer_impl.DefaultMQProducerImpl` decides *where* and *how often* to
send; this module makes one attempt and turns the answer into a result or an error:

* SYNC (``sendMessageSync``): the caller's process blocks on ``yield Rpc(...)`` until the response, an error
  response (``MQBrokerException``) or the timeout;
* ONEWAY (``invokeOneway``): the request is written and nobody waits for an answer (the broker sends none);
* ASYNC (``sendMessageAsync``): a process of its own, the callback thread's view of the request: the response
  completes the send, a failure with no response is re-sent by ``onExceptionImpl``.

Every attempt is a SEND_ATTEMPT in the trace and its outcome a SEND_RESULT; a send that ends without a result
is a SEND_FAILED.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/MQClientAPIImpl.java
    (MQClientAPIImpl.sendMessage, MQClientAPIImpl.sendMessageSync, MQClientAPIImpl.sendMessageAsync,
    MQClientAPIImpl.onExceptionImpl, MQClientAPIImpl.processSendResponse)
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..common.message import Message, MessageExt
from ..common.message_queue import MessageQueue
from ..core.process import Body, ProcessGroup, Rpc
from ..core.trace import EventKind
from ..remoting.exceptions import MQBrokerException, RemoteError, RemotingException
from ..remoting.protocol import SendMessageRequest
from ..remoting.response_code import ResponseCode
from .producer.latency_fault_tolerance import MQFaultStrategy
from .producer.send_result import CODE_STATUS, ClientErrorCode, SendFuture, SendResult

if TYPE_CHECKING:
    from ..core.context import Context

__all__ = ["MQClientAPIImpl", "SendCall", "describe"]

Attempt = Generator[Any, Any, tuple[SendResult | None, RemoteError | None]]
"""A SYNC attempt run with ``yield from``: it returns the result or the error."""


@dataclass(slots=True)
class SendCall:
    """One call of ``send``: the local variables of 4.9.7's ``sendDefaultImpl`` and the future the caller holds."""

    msg: Message
    future: SendFuture
    timeout_ms: int
    """``timeout``: one budget for every attempt of this send."""
    start_ms: int
    """``beginTimestampFirst``."""
    times_total: int
    # the rest starts empty and is filled in as the send goes on (not constructor arguments)
    header_rt: int | None = field(default=None, init=False)
    """``reconsumeTimes`` of the request header (a ``%RETRY%`` message re-sent by a client)."""
    header_max: int | None = field(default=None, init=False)
    """``maxReconsumeTimes`` of the request header."""
    times: int = field(default=0, init=False)
    """Attempts made so far."""
    entry: str = field(default="sendDefaultImpl", init=False)
    """The method that drives the send: ``sendDefaultImpl`` (a loop of up to ``times_total`` attempts), or
    ``sendSelectImpl`` / ``sendKernelImpl`` (``send(msg, selector, arg)`` / ``send(msg, mq)``: one call of
    ``sendKernelImpl``, no loop). A SEND_ATTEMPT names it when it is not ``sendDefaultImpl``."""
    brokers_sent: list[str] = field(default_factory=list, init=False)
    send_result: SendResult | None = field(default=None, init=False)
    """The last non-OK result kept by ``retryAnotherBrokerWhenNotStoreOK`` while trying another broker."""
    last_error: RemoteError | None = field(default=None, init=False)




class MQClientAPIImpl:
    """Sends one attempt of a :class:`SendCall` as ``producer_group``'s client ``client_name``."""

    def __init__(
        self,
        context: Context,
        client_name: str,
        producer_group: str,
        actor: str,
        fault_strategy: MQFaultStrategy,
        processes: ProcessGroup,
    ) -> None:
        self.context = context
        self.client_name = client_name
        """The client process as remoting knows it (partitions cut it)."""
        self.producer_group = producer_group
        self.actor = actor
        """How the trace names the producer."""
        self.fault_strategy = fault_strategy
        self.processes = processes
        """The producer's processes, which the request processes this class starts join."""

    # ------------------------------------------------------------------ one attempt
    def send_message_sync(self, call: SendCall, mq: MessageQueue, *, rated: bool) -> Attempt:
        """``sendMessageSync``: block until the answer; ``rated``: record its latency in the fault table.

        4.9.7's ``sendDefaultImpl`` rates its SYNC turns; ``sendSelectImpl`` and ``send(msg, mq)`` rate nothing.
        """
        attempt, begin, remaining, request = self._begin(call, mq)
        response, error = yield Rpc(self.client_name, mq.broker_name, request, remaining)
        now = self.context.now
        # DefaultMQProducerImpl.updateFaultItem: when the broker is available again (None: the strategy is off)
        until = (
            self.fault_strategy.update_fault_item(mq.broker_name, now - begin, isolation=error is not None, now=now)
            if rated
            else None
        )
        if error is not None:
            self._record_result(call, mq, attempt, describe(error), until)
            return None, error
        code, offset_msg_id = response.code, response.offset_msg_id
        self._record_result(call, mq, attempt, code.name, until, offset_msg_id=offset_msg_id)
        return SendResult(CODE_STATUS[code], call.future.msg_id, mq, response.queue_offset, offset_msg_id), None

    def send_message_oneway(self, call: SendCall, mq: MessageQueue, *, rated: bool) -> RemoteError | None:
        """``invokeOneway``: write the request and return at once; the error if the connection cannot be made.

        The broker never answers a oneway request (``processRequestCommand`` writes a response only
        ``if (!cmd.isOnewayRPC())``), so nothing is waited for: the send is over (ONEWAY_SENT, no result) as soon
        as the request is written. What the broker then does with it, the producer never learns: a message the
        broker refuses (an error code, a store that fails) or answers late is simply not seen again, with no
        exception. Only a connection that cannot be made (``RemotingConnectException``) is thrown, at once.
        4.9.7 can also throw when none of the 65,535 ``semaphoreOneway`` permits (requests still being written)
        frees up within the timeout; the lab's requests are written at once, so that never happens here.
        ``rated`` (``sendDefaultImpl``'s turn) records the connection failure, or else a 0 ms success.
        """
        attempt, now, _, request = self._begin(call, mq)
        failure: RemoteError | None = self.context.remoting.invoke_oneway(self.client_name, mq.broker_name, request)
        if failure is not None:
            until = self.fault_strategy.update_fault_item(mq.broker_name, 0, isolation=True, now=now) if rated else None
            self._record_result(call, mq, attempt, describe(failure), until)
            return failure
        self._record_result(call, mq, attempt, "ONEWAY_SENT")
        self.finish(call, None)
        if rated:
            self.fault_strategy.update_fault_item(mq.broker_name, 0, isolation=False, now=now)
        return None

    def send_message_async(
        self, call: SendCall, mq: MessageQueue, retry_times: int, reselect: Callable[[str], str] | None
    ) -> Body:
        """``sendMessageAsync`` and its ``onExceptionImpl``: the life of an ASYNC request, as a process.

        Every answer is rated in the fault table. A response completes the send, an error response
        (``MQBrokerException``) fails it at once; a failure with no response (``RemotingException``) re-sends the
        same request, up to ``retry_times`` more times, with what is left of the budget. ``reselect`` is the
        ``TopicPublishInfo`` of a plain ``send(msg, callback)``: it names the broker of the retry, avoiding the one
        that failed; only the broker name is taken, so the request keeps its queue id. Selector and explicit-queue
        sends have none (``None``) and retry on the same broker.
        """
        while True:
            result, error = yield from self.send_message_sync(call, mq, rated=True)
            if result is not None:
                self.finish(call, result)
                return
            call.last_error = error
            if not isinstance(error, RemotingException) or call.times > retry_times:
                self.fail(call, describe(error), error)
                return
            broker = mq.broker_name if reselect is None else reselect(mq.broker_name)
            mq = MessageQueue(mq.topic, broker, mq.queue_id)

    def _begin(self, call: SendCall, mq: MessageQueue) -> tuple[int, int, int, Any]:
        """Count the attempt, trace it, and build its request: the broker's copy of the message, born now."""
        future, msg = call.future, call.msg
        call.times += 1
        call.brokers_sent.append(mq.broker_name)
        future.attempts = call.times
        now = self.context.now
        # what is left of the one budget: sendKernelImpl's ``timeout - costTime``, onExceptionImpl's
        # ``timeoutMillis - cost`` (negative once spent: the request then fails with no time left)
        remaining = call.timeout_ms - (now - call.start_ms)
        self.context.trace.send_attempt(
            now,
            self.actor,
            msg_id=future.msg_id,
            mq=mq,
            attempt=call.times,
            mode=future.mode,
            timeout_ms=remaining,
            entry=call.entry,
        )
        stored = MessageExt(
            topic=mq.topic,
            queue_id=mq.queue_id,
            msg_id=future.msg_id,
            body=msg.body,
            tags=msg.tags,
            keys=msg.keys,
            properties=dict(msg.properties),
            born_timestamp=now,  # the broker sets it from the header: msgInner.setBornTimestamp(bornTimestamp)
        )
        request = SendMessageRequest(
            producer_group=self.producer_group,
            msg=stored,
            reconsume_times=call.header_rt,
            max_reconsume_times=call.header_max,
        )
        return call.times, now, remaining, request

    def _record_result(
        self,
        call: SendCall,
        mq: MessageQueue,
        attempt: int,
        outcome: str,
        not_available_until: int | None = None,
        offset_msg_id: str | None = None,
    ) -> None:
        """A SEND_RESULT; with latency fault tolerance on, also when the fault table lets the broker back in.

        ``offset_msg_id``: of an answer that stored the message (the store's id, beside the client's).
        """
        self.context.trace.send_result(
            self.context.now,
            self.actor,
            msg_id=call.future.msg_id,
            mq=mq,
            attempt=attempt,
            outcome=outcome,
            not_available_until=not_available_until,
            offset_msg_id=offset_msg_id,
        )

    # ------------------------------------------------------------------ the outcome reaches the caller
    def finish(self, call: SendCall, result: SendResult | None) -> None:
        """The send returns ``result`` (``SendCallback.onSuccess``); ``None`` for a ONEWAY send."""
        future = call.future
        if future.done:
            return
        future.done = True
        future.result = result
        for callback in future.callbacks:
            self.context.safely(callback, future, where=f"{self.actor} send callback")

    def fail(
        self,
        call: SendCall,
        error: str,
        cause: RemoteError | None = None,
        code: ClientErrorCode | ResponseCode | None = None,
    ) -> SendFuture:
        """The send throws ``error`` (``SendCallback.onException``); a broker's error response as ``cause`` gives
        its code and remark, else ``code`` is the one the MQClientException carries (a ``ClientErrorCode``, or
        MESSAGE_ILLEGAL from ``Validators.checkMessage``)."""
        future = call.future
        if not future.done:
            future.done = True
            future.error = error
            answered: dict[str, Any] = {}
            if isinstance(cause, MQBrokerException):
                future.response_code, future.remark = int(cause.code), cause.remark
                answered = {"response_code": int(cause.code), "remark": cause.remark}
            elif code is not None:
                future.response_code = int(code)
                answered = {"response_code": int(code)}
            self.context.trace.record(
                self.context.now,
                EventKind.SEND_FAILED,
                self.actor,
                future.msg_id,
                error=error,
                attempts=call.times,
                mode=future.mode.value,
                **answered,
            )
            for callback in future.callbacks:
                self.context.safely(callback, future, where=f"{self.actor} send callback")
        return future


def describe(error: RemoteError | None) -> str:
    """The exception's text as the caller sees it (``toString`` of the Java exception)."""
    if error is None:
        return "unknown"
    if isinstance(error, MQBrokerException):
        return f"MQBrokerException: CODE: {int(error.code)} ({error.code.name}) DESC: {error.remark}"
    return f"{error.name}: {error.reason}"
