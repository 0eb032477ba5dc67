"""``ConsumeMessageConcurrentlyService``: consume in parallel, send failures back to the broker.

The path of a failed message in CLUSTERING (``processConsumeResult``, ``sendMessageBack``):

1. the listener returns RECONSUME_LATER, returns ``None``, raises, or acks only part of the batch
   (``ack_index``) — all the same afterwards;
2. ``sendMessageBack``: CONSUMER_SEND_MSG_BACK to the broker the message came from, with
   ``delay_level_when_next_consume`` (−1 → DLQ now, 0 → the broker picks ``3 + reconsume_times``);
3. if that request fails, the client itself produces a new message to ``%RETRY%<group>``;
4. if that fails too, the message stays in the ProcessQueue and is consumed again locally after
   5000 ms — its offset stays pinned meanwhile.

BROADCASTING skips 2–4: failed messages are logged and dropped.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/ConsumeMessageConcurrentlyService.java
    (ConsumeMessageConcurrentlyService.start, ConsumeMessageConcurrentlyService.shutdown,
    ConsumeMessageConcurrentlyService.submitConsumeRequest,
    ConsumeMessageConcurrentlyService.submitConsumeRequestLater,
    ConsumeMessageConcurrentlyService.processConsumeResult, ConsumeMessageConcurrentlyService.sendMessageBack,
    ConsumeMessageConcurrentlyService.cleanExpireMsg, ConsumeRequest.run)
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ...common.message import PROPERTY_CONSUME_START_TIME, MessageExt
from ...common.message_queue import MessageQueue
from ...core.process import Rpc, Sleep
from ...core.scheduler import TimerKind, TimerLabel
from ...core.thread_pool import RejectedExecutionException, ThreadPool
from ...core.trace import EventKind
from ...remoting.exceptions import MQBrokerException
from ...remoting.protocol import ConsumerSendMsgBackRequest
from ...remoting.response_code import ResponseCode
from .consume_message_service import (
    context_int,
    record_delivered,
    reset_retry_topic,
    run_listener,
    send_retry_message,
)
from .listener import ConsumeConcurrentlyContext, ConsumeConcurrentlyStatus
from .process_queue import ProcessQueue

if TYPE_CHECKING:
    from .push_consumer import PushConsumer

__all__ = ["ConsumeMessageConcurrentlyService"]

LOCAL_RETRY_DELAY_MS = 5000
SEND_BACK_TIMEOUT_MS = 5000
CLEAN_EXPIRED_MSG_BATCH = 16
CLEAN_EXPIRED_DELAY_LEVEL = 3


class ConsumeMessageConcurrentlyService:
    """Cuts pulled batches into ConsumeRequests of ``consume_message_batch_max_size`` on a thread pool."""

    def __init__(self, impl: PushConsumer) -> None:
        self.default_mq_push_consumer_impl = impl
        self.default_mq_push_consumer = impl.default_mq_push_consumer
        """The public consumer, where the settings are read."""
        self.context = self.default_mq_push_consumer.context
        self.pool = ThreadPool(
            self.context.scheduler, self.context.remoting, self.default_mq_push_consumer.consume_thread_min
        )
        self.stopped = False
        """``shutdown`` was called: the pool takes no new ConsumeRequest."""

    def start(self) -> None:
        self.default_mq_push_consumer_impl.processes.spawn(self._clean_expired_service())

    def _clean_expired_service(self) -> Generator[Any, Any, None]:
        """``cleanExpireMsgExecutors``: ``cleanExpireMsg`` every ``consumeTimeout`` minutes (first after one period).

        Each pass runs on its own thread, so a slow send-back does not delay the next period.
        """
        period = self.default_mq_push_consumer.consume_timeout * 60_000
        while True:
            yield Sleep(period, self.default_mq_push_consumer_impl._label(TimerKind.CLEAN_EXPIRED))
            self.clean_expired_msg()

    def shutdown(self) -> None:
        """``consumeExecutor.shutdown()``: threads finish what they are doing, queued requests still run, nothing new
        is taken (the consumer waits for the pool, ``shutdown_gracefully``, when it is told to)."""
        self.stopped = True

    def kill(self) -> None:
        self.pool.shutdown_now()

    def submit_consume_request(
        self, msgs: list[MessageExt], pq: ProcessQueue, mq: MessageQueue, dispatch_to_consume: bool
    ) -> None:
        """Every pulled batch is consumed (``dispatchToConsume`` is ignored in concurrent mode)."""
        if self.stopped:
            raise RejectedExecutionException(f"{self.default_mq_push_consumer.actor}: the consume pool is shut down")
        consumer = self.default_mq_push_consumer
        size = consumer.consume_message_batch_max_size
        ids = tuple([m.msg_id for m in msgs])
        for i in range(0, len(msgs), size):
            label = TimerLabel(TimerKind.CONSUME, consumer.actor, mq, ids[i : i + size])
            self.pool.submit(self._consume, msgs[i : i + size], pq, mq, label=label)

    def _submit_later(self, msgs: list[MessageExt], pq: ProcessQueue, mq: MessageQueue) -> None:
        """``submitConsumeRequestLater``'s task, 5 s on: after ``shutdown`` its submit is rejected and the messages
        stay cached, their offset pinned."""
        if not self.stopped:
            self.submit_consume_request(msgs, pq, mq, True)

    def _consume(self, msgs: list[MessageExt], pq: ProcessQueue, mq: MessageQueue) -> Generator[Any, Any, None]:
        """``ConsumeRequest.run`` + ``processConsumeResult``."""
        consumer, ctx = self.default_mq_push_consumer, self.context
        if pq.dropped:
            return
        context = ConsumeConcurrentlyContext(mq)
        reset_retry_topic(msgs, consumer.consumer_group)
        start = record_delivered(consumer, mq, msgs)
        status, return_type = yield from run_listener(self.default_mq_push_consumer_impl, msgs, context)
        if status is not None and not isinstance(status, ConsumeConcurrentlyStatus):
            try:
                status = ConsumeConcurrentlyStatus(status)
            except ValueError:
                ctx.trace.record(
                    ctx.now,
                    EventKind.WARNING,
                    consumer.actor,
                    msgs[0].msg_id,
                    message=f"listener returned {status!r}, not a ConsumeConcurrentlyStatus; "
                    "treated as RECONSUME_LATER",
                )
                status, return_type = None, "EXCEPTION"
        effective = status or ConsumeConcurrentlyStatus.RECONSUME_LATER
        took = ctx.now - start
        if not return_type:
            if took >= consumer.consume_timeout * 60_000:
                return_type = "TIME_OUT"
            else:
                return_type = "SUCCESS" if effective is ConsumeConcurrentlyStatus.CONSUME_SUCCESS else "FAILED"
        ctx.trace.consumed(  # executeHookAfter
            ctx.now, consumer.actor, mq=mq, msgs=msgs, status=effective, return_type=return_type, took_ms=took
        )
        if pq.dropped:
            ctx.trace.record(
                ctx.now,
                EventKind.WARNING,
                consumer.actor,
                msgs[0].msg_id,
                message=f"{mq} was dropped while consuming; result discarded",
            )
            return
        yield from self._process_consume_result(effective, context, msgs, pq, mq)

    def _process_consume_result(
        self,
        status: ConsumeConcurrentlyStatus,
        context: ConsumeConcurrentlyContext,
        msgs: list[MessageExt],
        pq: ProcessQueue,
        mq: MessageQueue,
    ) -> Generator[Any, Any, None]:
        impl, consumer, ctx = self.default_mq_push_consumer_impl, self.default_mq_push_consumer, self.context
        if status is ConsumeConcurrentlyStatus.CONSUME_SUCCESS:
            ack_index = context.ack_index
            if not isinstance(ack_index, int) or ack_index < -1:
                ctx.trace.record(
                    ctx.now,
                    EventKind.WARNING,
                    consumer.actor,
                    msgs[0].msg_id,
                    message=f"ack_index={ack_index!r} is invalid (allowed: an int >= -1); "
                    "treated as -1 (whole batch failed)",
                )
                ack_index = -1
            ack_index = min(ack_index, len(msgs) - 1)
        else:
            ack_index = -1
        failed = msgs[ack_index + 1 :]
        back_failed: list[MessageExt] = []
        if failed and consumer.is_clustering:
            level = context_int(
                consumer, msgs[0].msg_id, "delay_level_when_next_consume", context.delay_level_when_next_consume, 0
            )
            for msg in failed:
                ok = yield from self.send_message_back(msg, level, mq.broker_name)
                if not ok:
                    msg.reconsume_times += 1
                    back_failed.append(msg)
        else:
            for msg in failed:
                ctx.trace.record(
                    ctx.now,
                    EventKind.BROADCAST_DROPPED,
                    consumer.actor,
                    msg.msg_id,
                    queue=str(mq),
                    reconsume_times=msg.reconsume_times,
                    message="BROADCASTING, the message consume failed, drop it",
                )
        done = msgs
        if back_failed:
            done = [m for m in msgs if m not in back_failed]
            for msg in back_failed:
                ctx.trace.record(
                    ctx.now,
                    EventKind.LOCAL_RETRY,
                    consumer.actor,
                    msg.msg_id,
                    queue=str(mq),
                    retry_in_ms=LOCAL_RETRY_DELAY_MS,
                    reconsume_times=msg.reconsume_times,
                )
            impl.schedule(
                LOCAL_RETRY_DELAY_MS,
                TimerKind.LOCAL_RETRY,
                self._submit_later,
                back_failed,
                pq,
                mq,
                queue=mq,
                msg_ids=tuple(m.msg_id for m in back_failed),
            )
        offset = pq.remove_message(done, ctx.now)
        if offset >= 0 and not pq.dropped:
            impl.offset_store.update_offset(mq, offset, True)

    def send_message_back(
        self, msg: MessageExt, delay_level: int, broker_name: str | None
    ) -> Generator[Any, Any, bool]:
        """``DefaultMQPushConsumerImpl.sendMessageBack``: broker request, else the client-side fallback."""
        impl, consumer, ctx = self.default_mq_push_consumer_impl, self.default_mq_push_consumer, self.context
        broker_name = broker_name or msg.store_host
        max_times = impl.effective_max_reconsume_times()

        request = ConsumerSendMsgBackRequest(
            group=consumer.consumer_group,
            commit_log_offset=msg.commit_log_offset,
            delay_level=delay_level,
            origin_msg_id=msg.msg_id,
            max_reconsume_times=max_times,
        )
        response, error = yield Rpc(consumer.client_id, broker_name, request, SEND_BACK_TIMEOUT_MS)
        ok = error is None and response is ResponseCode.SUCCESS
        failure: dict[str, Any] = {}
        if not ok:
            failure["error"] = getattr(error, "name", str(response))
            if isinstance(error, MQBrokerException):  # the broker's answer, as MQBrokerException carries it
                failure.update(response_code=int(error.code), remark=error.remark)
        ctx.trace.send_back(
            ctx.now,
            consumer.actor,
            msg=msg,
            ok=ok,
            broker=broker_name,
            delay_level=delay_level,
            max_reconsume_times=max_times,
            **failure,
        )
        if ok:
            return True
        future = yield from send_retry_message(impl, msg, msg.reconsume_times + 1, max_times)
        ctx.trace.record(
            ctx.now,
            EventKind.SEND_BACK_FALLBACK,
            consumer.actor,
            msg.msg_id,
            ok=future.result is not None,
            delay_level=3 + msg.reconsume_times,
            reconsume_times=msg.reconsume_times + 1,
            error=future.error,
            **future.broker_answer,
        )
        return future.result is not None

    # ------------------------------------------------------------------ cleanExpiredMsg
    def clean_expired_msg(self) -> None:
        """Start the cleanExpiredMsg pass on its own thread (not the consume pool, which may be stuck)."""
        self.default_mq_push_consumer_impl.processes.spawn(self._clean_expired())

    def _clean_expired(self) -> Generator[Any, Any, None]:
        """Per queue, up to 16 times: send back the lowest-offset message if it is consuming too long.

        Only a successful send-back (broker request or client fallback) removes the message from the ProcessQueue.
        """
        impl, consumer, ctx = self.default_mq_push_consumer_impl, self.default_mq_push_consumer, self.context
        timeout = consumer.consume_timeout * 60_000
        for mq, pq in sorted(impl.process_queue_table.items()):
            for _ in range(min(len(pq.msg_tree_map), CLEAN_EXPIRED_MSG_BATCH)):
                if not pq.msg_tree_map or pq.dropped:
                    break
                offset, msg = pq.msg_tree_map.peekitem(0)
                started = msg.properties.get(PROPERTY_CONSUME_START_TIME)
                if started is None or ctx.now - int(started) <= timeout:
                    break
                ctx.trace.record(
                    ctx.now,
                    EventKind.CLEAN_EXPIRED,
                    consumer.actor,
                    msg.msg_id,
                    queue=str(mq),
                    queue_offset=offset,
                    consuming_for_ms=ctx.now - int(started),
                )
                sent = yield from self.send_message_back(msg, CLEAN_EXPIRED_DELAY_LEVEL, None)
                if not sent:
                    # 4.9.7: sendMessageBack throws once its fallback send fails too; the catch is inside the
                    # loop, so the message stays in the ProcessQueue (its offset pinned) and the next round looks
                    # at the same first message again. Removing it here would commit past a message no copy holds.
                    continue
                if pq.msg_tree_map and pq.msg_tree_map.peekitem(0)[1] is msg:
                    pq.remove_message([msg], ctx.now)
