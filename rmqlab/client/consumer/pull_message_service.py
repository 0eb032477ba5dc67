"""``PullMessageService``: one pull loop per ProcessQueue, fetching messages into it.

In RocketMQ one thread takes ``PullRequest``s from a queue and calls ``pullMessage`` for each; the answer comes back
in a ``PullCallback`` that puts the request back (at once, after ``pullInterval``, or later: see
``flow_control.py``). Here each queue's loop is one generator process of the consumer, which reads as that cycle:
gates, request, answer, again.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/PullMessageService.java
    (PullMessageService.executePullRequestImmediately, PullMessageService.executePullRequestLater,
    PullMessageService.run)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/DefaultMQPushConsumerImpl.java
    (DefaultMQPushConsumerImpl.pullMessage)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/PullAPIWrapper.java
    (PullAPIWrapper.pullKernelImpl, PullAPIWrapper.processPullResult)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/PullRequest.java
    (PullRequest)
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ...common.message import PROPERTY_MAX_OFFSET, PROPERTY_MIN_OFFSET
from ...common.message_queue import MessageQueue
from ...core.process import ProcessGroup, Rpc, Sleep
from ...core.scheduler import TimerKind, TimerLabel
from ...core.thread_pool import RejectedExecutionException
from ...core.trace import EventKind
from ...remoting.exceptions import ResponseExpiredException
from ...remoting.protocol import PullMessageRequest, PullResult, PullStatus
from .flow_control import PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION, DeferReason, FlowControl
from .offset_store import OffsetStore
from .process_queue import ProcessQueue

if TYPE_CHECKING:
    from .push_consumer_settings import PushConsumerSettings

__all__ = ["PullMessageService", "PullRequest"]

CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND = 30_000
OFFSET_ILLEGAL_FIXUP_DELAY_MS = 10_000


@dataclass(slots=True)
class PullRequest:
    """One queue's pull cursor."""

    mq: MessageQueue
    pq: ProcessQueue
    next_offset: int
    previously_locked: bool = False


class PullConsumer(Protocol):
    """What the pull service reads of its push consumer's impl (``DefaultMQPushConsumerImpl`` is one)."""

    processes: ProcessGroup
    consume_orderly: bool
    process_queue_table: dict[MessageQueue, ProcessQueue]
    offset_store: OffsetStore
    consume_service: Any

    @property
    def default_mq_push_consumer(self) -> PushConsumerSettings:
        """The public ``DefaultMQPushConsumer``: group, subscription, ``pullBatchSize``, ``pullInterval``."""

    def _label(self, kind: TimerKind, queue: MessageQueue | None = None, msg_ids: tuple[str, ...] = ()) -> TimerLabel:
        """What a wait of the consumer stands for, for views."""



class Rebalance(Protocol):
    """The two steps of the consumer's rebalance a pull needs (``RebalancePushImpl`` is one)."""

    def compute_pull_from_where(self, mq: MessageQueue) -> Generator[Any, Any, int | None]:
        """``computePullFromWhereWithException``: −1 could not tell, ``None`` it threw."""

    def remove_unnecessary_message_queue(self, mq: MessageQueue, pq: ProcessQueue) -> Generator[Any, Any, bool]:
        """``removeUnnecessaryMessageQueue``."""


class PullMessageService:
    """The pull half of ``DefaultMQPushConsumerImpl`` (``pullMessage`` and its ``PullCallback``) and
    ``PullMessageService``'s loop, one per queue; the consumer's impl holds one."""

    def __init__(self, impl: PullConsumer, flow_control: FlowControl, rebalance: Rebalance) -> None:
        self.default_mq_push_consumer_impl = impl
        self.default_mq_push_consumer = impl.default_mq_push_consumer
        """The public consumer, where the settings are read."""
        self.flow_control = flow_control
        self.rebalance = rebalance

    # ------------------------------------------------------------------ pulling
    def pull_loop(self, request: PullRequest) -> Generator[Any, Any, None]:
        """``PullMessageService`` for one queue: ``pullMessage``, wait for the answer, hand the messages to the
        consume service, and go again, until the ProcessQueue is dropped (or the consumer dies with its processes).

        Every round starts with a hand-off (``executePullRequestImmediately``): the pull runs after the work already
        queued for this millisecond. A pull put off (``executePullRequestLater``) is a PULL_DEFERRED event with its
        reason and delay (``flow_control.py``); after messages were found the next pull waits ``pullInterval`` if
        that is set (else it goes at once).
        """
        impl, consumer, flow = self.default_mq_push_consumer_impl, self.default_mq_push_consumer, self.flow_control
        pq, mq = request.pq, request.mq
        delay, kind = 0, TimerKind.PULL
        # this queue's two kinds of wait, labelled once: a label never changes, so every round's wait shares one
        labels = {wait: impl._label(wait, mq) for wait in (TimerKind.PULL, TimerKind.PULL_LATER)}
        while True:
            yield Sleep(delay, labels[kind])
            if pq.dropped:
                return
            kind = TimerKind.PULL_LATER
            pq.last_pull_timestamp = consumer.context.now
            deferral = flow.pull_deferral(pq)
            if deferral is not None:
                delay = flow.record_deferral(mq, *deferral)
                continue
            if impl.consume_orderly and consumer.is_clustering:
                if not pq.locked:
                    delay = flow.record_deferral(mq, DeferReason.NOT_LOCKED, PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION, {})
                    continue
                if not request.previously_locked:
                    # the first pull since the lock: the start offset again, from the broker
                    offset = yield from self.rebalance.compute_pull_from_where(mq)
                    if offset is None:  # it threw: executePullRequestLater(1000), nothing pulled
                        consumer.context.trace.record(
                            consumer.context.now,
                            EventKind.WARNING,
                            consumer.actor,
                            None,
                            message=f"Failed to compute pull offset of {mq}; pull again in "
                            f"{PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION} ms",
                        )
                        delay = flow.record_deferral(
                            mq,
                            DeferReason.EXCEPTION,
                            PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION,
                            {"error": "computePullFromWhereWithException"},
                        )
                        continue
                    request.previously_locked = True
                    request.next_offset = offset  # even −1 (a failed offset query): 4.9.7 sets it as it is
            commit = impl.offset_store.read_memory(mq) if consumer.is_clustering else -1
            pull = PullMessageRequest(
                consumer_group=consumer.consumer_group,
                client=consumer.actor,
                mq=mq,
                queue_offset=request.next_offset,
                tags=consumer.subscriptions.get(mq.topic),
                commit_offset=commit if commit > 0 else None,
                max_msg_nums=consumer.pull_batch_size,
            )
            sent_at = consumer.context.now
            result, error = yield Rpc(consumer.client_id, mq.broker_name, pull, CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND)
            if error is not None:
                if isinstance(error, ResponseExpiredException):
                    consumer.context.trace.record(
                        consumer.context.now,
                        EventKind.WARNING,
                        consumer.actor,
                        None,
                        message=f"pull of {mq} sent at {sent_at} ms: wait response timeout "
                        f"{CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND}ms; pull again in "
                        f"{PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION} ms",
                    )
                delay = flow.record_deferral(mq, *flow.error_deferral(error))
                continue
            delay, kind = 0, TimerKind.PULL
            try:
                if not self._on_pull_result(request, result):
                    return
            except RejectedExecutionException:  # onSuccess threw (the consume pool is shut down): onException
                error = {"error": "RejectedExecutionException"}
                delay = flow.record_deferral(mq, DeferReason.EXCEPTION, PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION, error)
                continue
            if result.status is PullStatus.FOUND and consumer.pull_interval > 0:
                delay, kind = consumer.pull_interval, TimerKind.PULL_LATER  # executePullRequestLater(pullInterval)

    def _on_pull_result(self, request: PullRequest, result: PullResult) -> bool:
        """``PullCallback.onSuccess``; ``False`` when this queue's pull loop ends (dropped, or OFFSET_ILLEGAL)."""
        impl, consumer = self.default_mq_push_consumer_impl, self.default_mq_push_consumer
        pq, mq = request.pq, request.mq
        if result.status is PullStatus.FOUND:
            # PullAPIWrapper.processPullResult: each message carries the queue's bounds at this pull, which the
            # client's own retry copies (they copy the property map) keep
            bounds = {PROPERTY_MIN_OFFSET: str(result.min_offset), PROPERTY_MAX_OFFSET: str(result.max_offset)}
            for msg in result.msgs:
                msg.properties.update(bounds)
            request.next_offset = result.next_begin_offset
            if pq.dropped:
                return False
            dispatch = pq.put_message(result.msgs)
            consumer.context.trace.pulled(
                consumer.context.now, consumer.actor, mq=mq, msgs=result.msgs, next_offset=result.next_begin_offset
            )
            impl.consume_service.submit_consume_request(result.msgs, pq, mq, dispatch)
            return True
        asked, request.next_offset = request.next_offset, result.next_begin_offset
        if result.status in (PullStatus.NO_NEW_MSG, PullStatus.NO_MATCHED_MSG):
            corrected = False
            if pq.msg_count == 0 and not pq.consuming_msg_orderly_tree_map:  # correctTagsOffset
                corrected = impl.offset_store.update_offset(mq, request.next_offset, True)
            # a long poll that found nothing new and changed nothing is left out: one every 15 s per queue
            if result.status is PullStatus.NO_MATCHED_MSG or corrected or request.next_offset != asked:
                self._record_empty(mq, result, asked, corrected=corrected)
            return True
        # OFFSET_ILLEGAL
        pq.dropped = True
        self._record_empty(mq, result, asked, fix_in_ms=OFFSET_ILLEGAL_FIXUP_DELAY_MS)
        consumer.context.trace.record(
            consumer.context.now,
            EventKind.WARNING,
            consumer.actor,
            None,
            message=f"OFFSET_ILLEGAL on {mq}; fixing offset to {result.next_begin_offset}",
        )
        impl.processes.spawn(self._fix_offset(request))
        return False

    def _record_empty(self, mq: MessageQueue, result: PullResult, asked: int, **what: Any) -> None:
        """A pull of ``mq`` at offset ``asked`` answered without messages (PULL_EMPTY, bookkeeping)."""
        consumer = self.default_mq_push_consumer
        consumer.context.trace.record(
            consumer.context.now, EventKind.PULL_EMPTY, consumer.actor, None, queue=str(mq), status=result.status.value,
            offset=asked, next_offset=result.next_begin_offset, **what,
        )  # fmt: skip

    def _fix_offset(self, request: PullRequest) -> Generator[Any, Any, None]:
        """OFFSET_ILLEGAL's task 10 s later (``executeTaskLater``): store the corrected offset, persist it, and
        ``removeProcessQueue`` (``removeUnnecessaryMessageQueue``: persist, forget the offset, unlock an orderly
        queue); the next rebalance creates the queue afresh."""
        impl, consumer = self.default_mq_push_consumer_impl, self.default_mq_push_consumer
        mq = request.mq
        yield Sleep(OFFSET_ILLEGAL_FIXUP_DELAY_MS, impl._label(TimerKind.OFFSET_FIXUP, mq))
        impl.offset_store.update_offset(mq, request.next_offset, False)
        impl.offset_store.persist(mq)
        pq = impl.process_queue_table.pop(mq, None)
        if pq is not None:
            pq.dropped = True
            yield from self.rebalance.remove_unnecessary_message_queue(mq, pq)
        consumer.context.trace.record(
            consumer.context.now,
            EventKind.WARNING,
            consumer.actor,
            None,
            message=f"fix the pull request offset, {mq}: offset {request.next_offset} persisted, ProcessQueue removed",
        )
