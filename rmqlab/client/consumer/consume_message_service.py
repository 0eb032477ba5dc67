"""What the two consume services share: calling the listener, what is recorded around the call, and the retry
message a client builds and sends itself.

4.9.7 ``ConsumeMessageConcurrentlyService`` and ``ConsumeMessageOrderlyService`` each have a ``ConsumeRequest``
whose ``run`` calls the listener inside ``catch (Throwable e)`` after ``resetRetryAndNamespace``, between the impl's
``executeHookBefore`` and ``executeHookAfter`` (the consume hooks, which the message trace reads: here the trace's
DELIVERED and CONSUMED events, ``Trace.delivered`` and ``Trace.consumed``, which build nothing when the trace is
off); both build a ``%RETRY%<group>`` message and send it with the client's own producer when the broker cannot
take a send-back (the concurrent fallback) or the message is to be dead-lettered (orderly). Those steps are written
once, here.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/ConsumeMessageService.java
    (ConsumeMessageService)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/ConsumeMessageConcurrentlyService.java
    (ConsumeRequest.run)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/DefaultMQPushConsumerImpl.java
    (DefaultMQPushConsumerImpl.resetRetryAndNamespace, DefaultMQPushConsumerImpl.sendMessageBack,
    DefaultMQPushConsumerImpl.executeHookBefore)
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any

from ...common.message import (
    PROPERTY_CONSUME_START_TIME,
    PROPERTY_MAX_RECONSUME_TIMES,
    PROPERTY_ORIGIN_MESSAGE_ID,
    PROPERTY_RECONSUME_TIME,
    PROPERTY_RETRY_TOPIC,
    Message,
    MessageExt,
    retry_topic,
)
from ...core.process import ProcessGroup, ProcessKilled, Sleep
from ...core.scheduler import ReentrantRunError, TimerLabel
from ...core.thread_pool import ThreadPool
from ...core.trace import EventKind
from .listener import HANG, Delayed

if TYPE_CHECKING:
    from ...common.message_queue import MessageQueue
    from ..producer.send_result import SendFuture
    from .push_consumer import PushConsumer
    from .push_consumer_settings import PushConsumerSettings

__all__ = [
    "build_retry_message",
    "context_int",
    "record_delivered",
    "reset_retry_topic",
    "run_listener",
    "send_retry_message",
    "shutdown_gracefully",
]

_RAISED = object()
"""``run_listener``'s marker for a listener call that raised."""


def shutdown_gracefully(
    pool: ThreadPool, group: ProcessGroup, await_ms: int, label: TimerLabel
) -> Generator[Any, Any, None]:
    """``ThreadUtils.shutdownGracefully(consumeExecutor, awaitTerminateMillis)``: wait up to ``await_ms`` for every
    task, queued ones included; if some are left, ``shutdownNow`` drops the queued ones and the wait is repeated
    once, up to ``await_ms`` again, for the running ones. A listener still running after that is left to finish
    on its own; its result finds the ProcessQueue dropped."""
    if not (yield from pool.await_termination(group, await_ms, label)):
        pool.drop_waiting()
        yield from pool.await_termination(group, await_ms, label)


def build_retry_message(
    group: str, msg: MessageExt, reconsume_time: int, max_times: int, *, orderly: bool = False
) -> Message:
    """The client-built ``%RETRY%<group>`` message (concurrent fallback and orderly dead-lettering).

    Same body and properties; ``RETRY_TOPIC``, ``RECONSUME_TIME`` and ``MAX_RECONSUME_TIMES`` set; delay
    level ``3 + reconsume_times``. The concurrent fallback passes ``reconsume_times + 1``, the 4.9.x orderly
    path passes ``reconsume_times`` (4.9.7 ``DefaultMQPushConsumerImpl.sendMessageBack`` and
    ``ConsumeMessageOrderlyService.sendMessageBack``).

    ``ORIGIN_MESSAGE_ID``: the orderly path copies the properties, then sets it when absent to
    ``msg.getMsgId()`` (the UNIQ_KEY). The concurrent fallback (``DefaultMQPushConsumerImpl.sendMessageBack``)
    sets it first and then replaces the whole property map with the message's (``setProperties``), so the copy
    carries one only if the message already had it.
    """
    retry = Message(retry_topic(group), msg.body, msg.tags, msg.keys, dict(msg.properties))
    if orderly:
        retry.properties.setdefault(PROPERTY_ORIGIN_MESSAGE_ID, msg.msg_id)
    retry.properties[PROPERTY_RETRY_TOPIC] = msg.topic
    retry.properties[PROPERTY_RECONSUME_TIME] = str(reconsume_time)
    retry.properties[PROPERTY_MAX_RECONSUME_TIMES] = str(max_times)
    retry.delay_time_level = 3 + msg.reconsume_times
    return retry


def send_retry_message(
    impl: PushConsumer, msg: MessageExt, reconsume_time: int, max_times: int, *, orderly: bool = False
) -> Generator[Any, Any, SendFuture]:
    """Build ``msg``'s ``%RETRY%<group>`` copy (:func:`build_retry_message`) and send it with the client's own
    producer (``mQClientFactory.getDefaultMQProducer().send(newMsg)``); the send's future, once it is done."""
    group = impl.default_mq_push_consumer.consumer_group
    retry = build_retry_message(group, msg, reconsume_time, max_times, orderly=orderly)
    assert impl.inner_producer is not None  # made at start
    future: SendFuture = yield impl.inner_producer.send(retry)
    return future


def record_delivered(consumer: PushConsumerSettings, mq: MessageQueue, msgs: Sequence[MessageExt]) -> int:
    """``executeHookBefore``: the batch is handed to the listener now. Each message is recorded DELIVERED and stamped
    ``CONSUME_START_TIME``, which the concurrent ``cleanExpireMsg`` reads (4.9.7 stamps only the concurrent service's
    messages; an orderly one here carries the stamp too, into a retry copy's properties). Returns the start, in
    virtual ms."""
    ctx = consumer.context
    start = ctx.now
    for msg in msgs:
        msg.properties[PROPERTY_CONSUME_START_TIME] = str(start)
    ctx.trace.delivered(start, consumer.actor, group=consumer.consumer_group, mq=mq, msgs=msgs)
    return start


def context_int(consumer: PushConsumerSettings, msg_id: str, name: str, value: Any, default: int) -> int:
    """A listener-set context field: an int is used as is; anything else is a WARNING and ``default``.

    In Java the field is typed; in Python a listener could store ``"x"``. That must not break the run.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    ctx = consumer.context
    ctx.trace.record(
        ctx.now,
        EventKind.WARNING,
        consumer.actor,
        msg_id,
        message=f"{name}={value!r} is invalid (allowed: an int); treated as {default}",
    )
    return default


def reset_retry_topic(msgs: Sequence[MessageExt], group: str) -> None:
    """``resetRetryAndNamespace``: a retry message is shown to the listener under its original topic."""
    retry = retry_topic(group)
    for msg in msgs:
        original = msg.properties.get(PROPERTY_RETRY_TOPIC)
        if original is not None and msg.topic == retry:
            msg.topic = original


def run_listener(impl: PushConsumer, msgs: list[MessageExt], context: Any) -> Generator[Any, Any, tuple[Any, str]]:
    """Call the listener and wait out its virtual duration; returns (status or None, return type).

    A listener that raises, returns a wrong type, or returns ``HANG`` never breaks the engine: the
    exception is caught exactly as RocketMQ's ``catch (Throwable e)`` does.

    That includes ``KeyboardInterrupt`` and ``SystemExit`` (a student's Ctrl-C, a ``sys.exit``): to
    ``catch (Throwable e)`` they are one more throwable, so the call counts as a failed consume (RECONSUME_LATER,
    or SUSPEND for orderly) and the engine finishes handling it, which keeps every lock, ProcessQueue and consume
    thread consistent. The exception is then re-raised by the scheduler once this event returns, so ``lab.run``
    stops; ``lab.run`` again carries on from there. A ``lab.run`` re-entered from the listener is handled the
    same way. A listener that crashes its own consumer gets the crash once its call returns: the thread dies
    there (:class:`~rmqlab.core.process.ProcessKilled`), before any result is processed, as with a killed JVM.
    """
    consumer = impl.default_mq_push_consumer
    scheduler = consumer.context.scheduler
    impl.in_listener = True
    try:  # a Ctrl-C is raised in the listener, caught below
        outcome = scheduler.call_user_code(impl.message_listener_inner, list(msgs), context)  # type: ignore[arg-type]
    except BaseException as exc:
        escapes = isinstance(exc, ReentrantRunError) or not isinstance(exc, Exception)
        note = "; counted as a failed consume, re-raised after this event" if escapes else ""
        ctx = consumer.context
        ctx.trace.record(
            ctx.now,
            EventKind.WARNING,
            consumer.actor,
            msgs[0].msg_id,
            message=f"listener raised {type(exc).__name__}: {exc}{note}",
        )
        if escapes:
            ctx.scheduler.interrupt_after_event(exc)
        outcome = _RAISED
    finally:
        impl.in_listener = False
    if impl.crash_requested:
        impl.crash_requested = False
        impl.crash()
        raise ProcessKilled(consumer.client_id)
    if outcome is _RAISED:
        return None, "EXCEPTION"
    if outcome is HANG:
        while True:  # the thread is blocked for good; only a crash ends it
            yield Sleep(365 * 86_400_000)
    if isinstance(outcome, Delayed):
        if outcome.took_ms:
            yield Sleep(outcome.took_ms)
        if outcome.error:
            ctx = consumer.context
            ctx.trace.record(
                ctx.now, EventKind.WARNING, consumer.actor, msgs[0].msg_id, message=f"listener raised: {outcome.error}"
            )
            return None, "EXCEPTION"
        outcome = outcome.status
    if outcome is None:
        return None, "RETURNNULL"
    return outcome, ""
