"""``ConsumeMessageOrderlyService``: one thread per queue at a time, local retries, three locks.

1. **Broker queue lock** — only the holder may consume a queue (CLUSTERING); renewed every 20 s by
   ``lockAll``, trusted by the client for 30 s, expired at the broker after 60 s.
2. **Local queue lock** — ``MessageQueueLock``: a ConsumeRequest holds it for its whole loop, so at
   most one thread of this consumer touches the queue.
3. **ProcessQueue consume lock** — held around each listener call; rebalance cannot release a queue
   at the broker while a listener is mid-batch.

A failed orderly message is **not** sent to ``%RETRY%`` with growing delays: the queue is suspended for
``suspend_current_queue_time_millis`` (1 s) and the same message is consumed again, forever by
default (max reconsume times −1 = ``Integer.MAX_VALUE``).

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/ConsumeMessageOrderlyService.java
    (ConsumeMessageOrderlyService.start, ConsumeMessageOrderlyService.shutdown,
    ConsumeMessageOrderlyService.lockMQPeriodically, ConsumeMessageOrderlyService.unlockAllMQ,
    ConsumeMessageOrderlyService.lockOneMQ, ConsumeMessageOrderlyService.submitConsumeRequest,
    ConsumeMessageOrderlyService.submitConsumeRequestLater, ConsumeMessageOrderlyService.tryLockLaterAndReconsume,
    ConsumeMessageOrderlyService.processConsumeResult, ConsumeMessageOrderlyService.checkReconsumeTimes,
    ConsumeMessageOrderlyService.sendMessageBack, ConsumeRequest.run)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/MessageQueueLock.java
    (MessageQueueLock.fetchLockObject)
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ...common.message import (
    PROPERTY_RECONSUME_TIME,
    MessageExt,
)
from ...common.message_queue import MessageQueue
from ...core.process import LocalLock, Sleep
from ...core.scheduled_executor import ScheduledExecutor
from ...core.scheduler import TimerKind, TimerLabel
from ...core.thread_pool import RejectedExecutionException, ThreadPool
from ...core.trace import EventKind
from .consume_message_service import (
    context_int,
    record_delivered,
    reset_retry_topic,
    run_listener,
    send_retry_message,
)
from .listener import ConsumeOrderlyContext, ConsumeOrderlyStatus
from .process_queue import REBALANCE_LOCK_INTERVAL_MS, ProcessQueue

if TYPE_CHECKING:
    from .push_consumer import PushConsumer

__all__ = ["MAX_TIME_CONSUME_CONTINUOUSLY_MS", "ConsumeMessageOrderlyService"]

MAX_TIME_CONSUME_CONTINUOUSLY_MS = 60_000
LOCK_MQ_FIRST_DELAY_MS = 1000


def clamp_suspend(ms: int, default: int) -> int:
    """``submitConsumeRequestLater``: −1 means the consumer's setting; then clamp to 10–30000 ms."""
    if ms == -1:
        ms = default
    return min(max(ms, 10), 30_000)


class ConsumeMessageOrderlyService:
    """Orderly consumption for one consumer."""

    def __init__(self, impl: PushConsumer) -> None:
        self.default_mq_push_consumer_impl = impl
        self.default_mq_push_consumer = impl.default_mq_push_consumer
        """The public consumer, where the settings are read."""
        self.context = self.default_mq_push_consumer.context
        self.pool = ThreadPool(
            self.context.scheduler, self.context.remoting, self.default_mq_push_consumer.consume_thread_min
        )
        self.mq_locks: dict[MessageQueue, LocalLock] = {}
        self.begin_times: dict[MessageQueue, int] = {}
        """``ConsumeRequest.run``'s ``beginTime`` of each queue whose request is in its consume loop now: the request
        yields its thread once it has run longer than ``MAX_TIME_CONSUME_CONTINUOUSLY`` (read by views only)."""
        self.stopped = False
        """``shutdown`` was called: no new ConsumeRequest, no lock renewal (``lockMQPeriodically`` checks it)."""
        self.monitor = LocalLock()
        """The service's own monitor: ``lockMQPeriodically``, ``lockOneMQ`` and ``unlockAllMQ`` are ``synchronized``
        methods in 4.9.7, so a shutdown's ``unlockAll`` waits for a renewal still waiting for a slow broker's
        answer, and is sent after it. A crash ends the service with its threads (a restart makes a new one), so a
        killed holder is never waited for."""

    def start(self) -> None:
        """``ConsumeMessageOrderlyService.start``: ``lockAll`` after 1 s, then every 20 s, at a fixed rate on the
        service's own scheduled thread: a renewal whose answer is slow (up to the 1 s timeout per broker) does not
        push the next one back, so a renewal is due every 20 s, well inside the client's 30 s trust."""
        if self.default_mq_push_consumer.is_clustering:
            executor = ScheduledExecutor(self.default_mq_push_consumer_impl.processes)
            executor.schedule_at_fixed_rate(
                LOCK_MQ_FIRST_DELAY_MS,
                REBALANCE_LOCK_INTERVAL_MS,
                self.default_mq_push_consumer_impl._label(TimerKind.LOCK_RENEW),
                self._lock_mq_periodically,
            )
            executor.start()

    def _lock_mq_periodically(self) -> Generator[Any, Any, None]:
        """``lockMQPeriodically`` (``synchronized``): ``lockAll``, unless the service was shut down."""
        yield from self.monitor.acquire()
        try:
            if not self.stopped:
                yield from self.default_mq_push_consumer_impl.rebalance_impl.lock_all()
        finally:
            self.monitor.release()

    def unlock_all_mq(self) -> Generator[Any, Any, None]:
        """``unlockAllMQ`` (``synchronized``), the last step of ``shutdown``: ``unlockAll(false)`` once no renewal
        or single lock of this service is in flight. Were it sent beside a renewal still waiting for its answer,
        the broker would release the queues first and the late answer would then mark them locked again."""
        yield from self.monitor.acquire()
        try:
            yield from self.default_mq_push_consumer_impl.rebalance_impl.unlock_all()
        finally:
            self.monitor.release()

    def shutdown(self) -> None:
        """``stopped = true`` and ``consumeExecutor.shutdown()``: running listeners finish, queued requests still
        run, nothing new is taken or scheduled, locks are no longer renewed."""
        self.stopped = True

    def kill(self) -> None:
        self.pool.shutdown_now()

    def submit_consume_request(
        self, msgs: list[MessageExt], pq: ProcessQueue, mq: MessageQueue, dispatch_to_consume: bool
    ) -> None:
        """Only an idle ProcessQueue gets a new request; it takes messages from the pq, not ``msgs``."""
        if dispatch_to_consume:
            if self.stopped:
                actor = self.default_mq_push_consumer.actor
                raise RejectedExecutionException(f"{actor}: the consume pool is shut down")
            self._record_request(mq, 0, "pulled")
            self._submit(pq, mq)

    def _submit(self, pq: ProcessQueue, mq: MessageQueue) -> None:
        label = TimerLabel(TimerKind.CONSUME, self.default_mq_push_consumer.actor, mq)
        self.pool.submit(self._consume, pq, mq, label=label)

    def _record_request(self, mq: MessageQueue, delay_ms: int, reason: str, **more: Any) -> None:
        """CONSUME_REQUEST (bookkeeping): a ConsumeRequest for ``mq`` made for pulled messages (``delay_ms`` 0) or
        scheduled ``delay_ms`` on; the scheduled one reaching the pool is not recorded again."""
        ctx = self.context
        ctx.trace.record(
            ctx.now, EventKind.CONSUME_REQUEST, self.default_mq_push_consumer.actor, None, queue=str(mq),
            delay_ms=delay_ms, reason=reason, **more,
        )  # fmt: skip

    def submit_consume_request_later(self, pq: ProcessQueue, mq: MessageQueue, delay_ms: int, reason: str) -> None:
        """``submitConsumeRequestLater``: consume ``mq`` again after the delay, −1 meaning the consumer's
        ``suspend_current_queue_time_millis``, clamped to 10..30000 ms (nothing once shut down: 4.9.7's scheduled
        executor refuses the task). ``reason``: ``suspend`` (a SUSPEND or ROLLBACK result), ``continuous_60s``
        (the request yields after 60 s), ``relocked`` or ``lock_failed`` (after ``tryLockLaterAndReconsume``)."""
        if self.stopped:
            return
        delay = clamp_suspend(delay_ms, self.default_mq_push_consumer.suspend_current_queue_time_millis)
        self._record_request(mq, delay, reason, requested_delay_ms=delay_ms)
        kind = TimerKind.CONSUME_YIELD if reason == "continuous_60s" else TimerKind.SUSPEND
        self.default_mq_push_consumer_impl.schedule(delay, kind, self._submit_later, pq, mq, queue=mq)

    def _submit_later(self, pq: ProcessQueue, mq: MessageQueue) -> None:
        if not self.stopped:  # the request announced by submit_consume_request_later's event
            self._submit(pq, mq)

    def try_lock_later_and_reconsume(self, pq: ProcessQueue, mq: MessageQueue, delay_ms: int) -> None:
        """After ``delay_ms`` try the broker lock again: got it → consume in 10 ms, else in 3000 ms."""

        def retry() -> Generator[Any, Any, None]:
            yield Sleep(delay_ms, self.default_mq_push_consumer_impl._label(TimerKind.TRY_LOCK_LATER, mq))
            locked = yield from self.lock_one_mq(mq)
            if self.stopped:  # lockOneMQ asks nothing once stopped, and the resubmit is refused
                return
            self.submit_consume_request_later(pq, mq, 10 if locked else 3000, "relocked" if locked else "lock_failed")

        self.default_mq_push_consumer_impl.processes.spawn(retry())

    def lock_one_mq(self, mq: MessageQueue) -> Generator[Any, Any, bool]:
        """``lockOneMQ`` (``synchronized``): lock ``mq`` at its broker, unless the service was shut down."""
        yield from self.monitor.acquire()
        try:
            if self.stopped:
                return False
            return (yield from self.default_mq_push_consumer_impl.rebalance_impl.lock(mq))
        finally:
            self.monitor.release()

    def _consume(self, pq: ProcessQueue, mq: MessageQueue) -> Generator[Any, Any, None]:
        """``ConsumeRequest.run`` for orderly consumption."""
        consumer, ctx = self.default_mq_push_consumer, self.context
        if pq.dropped:
            return
        local = self.mq_locks.setdefault(mq, LocalLock())
        yield from local.acquire()
        try:
            clustering = consumer.is_clustering
            if not clustering or (pq.locked and not pq.is_lock_expired(ctx.now)):
                begin = self.begin_times[mq] = ctx.now
                while True:
                    if pq.dropped:
                        break
                    if clustering and (not pq.locked or pq.is_lock_expired(ctx.now)):
                        ctx.trace.record(
                            ctx.now,
                            EventKind.WARNING,
                            consumer.actor,
                            None,
                            message=f"{mq} lock is {'lost' if not pq.locked else 'expired'}; try to lock again later",
                        )
                        self.try_lock_later_and_reconsume(pq, mq, 10)
                        break
                    if ctx.now - begin > MAX_TIME_CONSUME_CONTINUOUSLY_MS:
                        self.submit_consume_request_later(pq, mq, 10, "continuous_60s")
                        break
                    msgs = pq.take_messages(consumer.consume_message_batch_max_size, ctx.now)
                    if not msgs:
                        break
                    reset_retry_topic(msgs, consumer.consumer_group)
                    context = ConsumeOrderlyContext(mq)
                    yield from pq.consume_lock.acquire()
                    if pq.dropped:
                        pq.consume_lock.release()
                        break
                    start = record_delivered(consumer, mq, msgs)
                    try:
                        status, return_type = yield from run_listener(self.default_mq_push_consumer_impl, msgs, context)
                    finally:
                        pq.consume_lock.release()
                    status = self._normalise(status, msgs)
                    ctx.trace.consumed(  # executeHookAfter
                        ctx.now, consumer.actor, mq=mq, msgs=msgs, status=status,
                        return_type=return_type or status.value, took_ms=ctx.now - start,
                        auto_commit=context.auto_commit,
                    )  # fmt: skip
                    go_on = yield from self._process_consume_result(msgs, status, context, pq, mq)
                    if not go_on:
                        break
            elif not pq.dropped:
                self.try_lock_later_and_reconsume(pq, mq, 100)
        finally:
            self.begin_times.pop(mq, None)
            local.release()

    def _normalise(self, status: Any, msgs: list[MessageExt]) -> ConsumeOrderlyStatus:
        if status is None:
            return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
        try:
            return ConsumeOrderlyStatus(status)
        except ValueError:
            self.context.trace.record(
                self.context.now,
                EventKind.WARNING,
                self.default_mq_push_consumer.actor,
                msgs[0].msg_id,
                message=f"listener returned {status!r}, not a ConsumeOrderlyStatus; "
                "treated as SUSPEND_CURRENT_QUEUE_A_MOMENT",
            )
            return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT

    def _process_consume_result(
        self,
        msgs: list[MessageExt],
        status: ConsumeOrderlyStatus,
        context: ConsumeOrderlyContext,
        pq: ProcessQueue,
        mq: MessageQueue,
    ) -> Generator[Any, Any, bool]:
        """``processConsumeResult``'s decision table (4.9.7 orderly); returns whether the loop continues."""
        impl, consumer, ctx = self.default_mq_push_consumer_impl, self.default_mq_push_consumer, self.context
        S = ConsumeOrderlyStatus
        commit_offset = -1
        go_on = True
        context.suspend_current_queue_time_millis = context_int(
            consumer, msgs[0].msg_id, "suspend_current_queue_time_millis", context.suspend_current_queue_time_millis, -1
        )
        suspend_ms = clamp_suspend(
            context.suspend_current_queue_time_millis, consumer.suspend_current_queue_time_millis
        )
        if status in (S.COMMIT, S.ROLLBACK) and context.auto_commit:
            ctx.trace.record(
                ctx.now,
                EventKind.WARNING,
                consumer.actor,
                msgs[0].msg_id,
                message=f"the message queue consume result is illegal, we think you want to "
                f"ack these message {status.value} (deprecated; treated as SUCCESS)",
            )
        if status is S.SUSPEND_CURRENT_QUEUE_A_MOMENT:
            again = yield from self._check_reconsume_times(msgs)
            if again:
                pq.make_message_to_consume_again(msgs)
                for msg in msgs:
                    ctx.trace.record(
                        ctx.now,
                        EventKind.SUSPENDED,
                        consumer.actor,
                        msg.msg_id,
                        queue=str(mq),
                        retry_in_ms=suspend_ms,
                        reconsume_times=msg.reconsume_times,
                        max_reconsume_times=impl.effective_max_reconsume_times(),  # what checkReconsumeTimes compared
                    )
                self.submit_consume_request_later(pq, mq, context.suspend_current_queue_time_millis, "suspend")
                go_on = False
            elif context.auto_commit:
                commit_offset = pq.commit()
        elif context.auto_commit or status is S.COMMIT:
            commit_offset = pq.commit()
        elif status is S.ROLLBACK:
            pq.rollback()
            self.submit_consume_request_later(pq, mq, context.suspend_current_queue_time_millis, "suspend")
            go_on = False
        if commit_offset >= 0 and not pq.dropped:
            impl.offset_store.update_offset(mq, commit_offset, False)
        return go_on

    def _check_reconsume_times(self, msgs: list[MessageExt]) -> Generator[Any, Any, bool]:
        """Past the max → dead-letter via ``%RETRY%`` (broker check); otherwise count one more try."""
        max_times = self.default_mq_push_consumer_impl.effective_max_reconsume_times()
        suspend = False
        for msg in msgs:
            if msg.reconsume_times >= max_times:
                msg.properties[PROPERTY_RECONSUME_TIME] = str(msg.reconsume_times)
                ok = yield from self._send_message_back(msg, max_times)
                if not ok:
                    suspend = True
                    msg.reconsume_times += 1
            else:
                suspend = True
                msg.reconsume_times += 1
        return suspend

    def _send_message_back(self, msg: MessageExt, max_times: int) -> Generator[Any, Any, bool]:
        """Orderly ``sendMessageBack``: a new ``%RETRY%`` message with RECONSUME_TIME = rt (4.9.x)."""
        impl, consumer, ctx = self.default_mq_push_consumer_impl, self.default_mq_push_consumer, self.context
        future = yield from send_retry_message(impl, msg, msg.reconsume_times, max_times, orderly=True)
        ctx.trace.send_back(
            ctx.now,
            consumer.actor,
            msg=msg,
            ok=future.result is not None,
            broker=future.result.message_queue.broker_name if future.result else None,
            delay_level=3 + msg.reconsume_times,
            max_reconsume_times=max_times,
            path="orderly",
            error=future.error,
            **future.broker_answer,
        )
        return future.result is not None
