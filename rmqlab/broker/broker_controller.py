"""A RocketMQ broker: its store, and the processors that answer clients' requests.

``Broker`` is :class:`~rmqlab.store.default_message_store.BrokerStore` (CommitLog, ConsumeQueues, topic configs,
subscription groups, consumer offsets) plus one class per 4.9.7 processor or service, each in its own module:
``SendMessageProcessor`` (send, send-back, retry and DLQ routing), ``PullMessageProcessor`` with
``PullRequestHoldService`` (long polling), ``ConsumerManager`` (heartbeats, group membership),
``CleanCommitLogService`` (retention), and, here, the orderly locks (``RebalanceLockManager``) and
``process_request``, the dispatch of every request that arrives through remoting.

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/BrokerController.java
    (BrokerController.initialize, BrokerController.registerProcessor, BrokerController.start,
    BrokerController.shutdown)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/AdminBrokerProcessor.java
    (AdminBrokerProcessor.lockBatchMQ, AdminBrokerProcessor.unlockBatchMQ)
Mirrors: remoting/src/main/java/org/apache/rocketmq/remoting/netty/NettyRemotingAbstract.java
    (NettyRemotingAbstract.processRequestCommand)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..common.message_queue import MessageQueue
from ..common.topic_config import PERM_READ, PERM_RW, PERM_WRITE, SubscriptionGroupConfig, TopicConfig
from ..core.scheduler import Scheduler, TimerKind, TimerLabel
from ..core.trace import EventKind, Trace
from ..remoting.protocol import (
    ConsumerSendMsgBackRequest,
    GetConsumerListByGroupRequest,
    GetMaxOffsetRequest,
    HeartbeatRequest,
    LockBatchMqRequest,
    PullMessageRequest,
    QueryConsumerOffsetRequest,
    SearchOffsetRequest,
    SendMessageRequest,
    UnlockBatchMqRequest,
    UnregisterClientRequest,
    UpdateConsumerOffsetRequest,
)
from ..remoting.remoting import MQBrokerException, Remoting, ResponseCode
from ..store.clean_commit_log_service import CleanCommitLogService
from ..store.commit_log import CommitLog, ConsumeQueue
from ..store.put_message_status import PutMessageStatus, parse_response_code, parse_send_responses
from ..store.schedule_message_service import DelayLevelTable, ScheduleMessageService
from .client_channel_info import _ClientChannel
from .consumer_manager import ConsumerManager
from .pull_message_processor import PullMessageProcessor
from .pull_message_types import BROKER_SUSPEND_MAX_TIME_MILLIS, MAX_TRANSFER_COUNT, PullResult, PullStatus, _HeldPull
from .rebalance_lock_manager import RebalanceLockManager
from .send_message_processor import SendMessageProcessor, SendResponse

__all__ = [
    "BROKER_SUSPEND_MAX_TIME_MILLIS",
    "MAX_TRANSFER_COUNT",
    "PERM_READ",
    "PERM_RW",
    "PERM_WRITE",
    "Broker",
    "LockBatchResult",
    "PullResult",
    "PullStatus",
    "PutMessageStatus",
    "SendResponse",
    "SubscriptionGroupConfig",
    "TopicConfig",
    "parse_response_code",
    "parse_send_responses",
]


@dataclass(slots=True)
class LockBatchResult:
    """The answer to ``LOCK_BATCH_MQ``: the queues now locked for the caller.

    ``holders`` is not in 4.9.7's wire format (``LockBatchResponseBody`` carries only the locked set); rmqlab adds
    who holds each refused queue so the trace can name it for students.
    """

    locked: frozenset[MessageQueue]
    holders: dict[MessageQueue, str]


class Broker(SendMessageProcessor, PullMessageProcessor, ConsumerManager, CleanCommitLogService):
    """One broker master, with its CommitLog, ConsumeQueues and services."""

    def __init__(
        self,
        name: str,
        scheduler: Scheduler,
        trace: Trace,
        rng: random.Random,
        remoting: Remoting,
        *,
        delay_levels: DelayLevelTable | None = None,
        dlq_readable: bool = True,
        address: str = "127.0.0.1:10911",
    ) -> None:
        self.name = name
        self.address = address
        """``brokerIP1:listenPort``, the store host written into each stored message and its ``offsetMsgId``."""
        self.scheduler = scheduler
        self.trace = trace
        self.rng = rng
        self.remoting = remoting
        """Only to tell clients about group changes (``Broker2Client``); requests reach the broker through it."""
        self.up = True
        self.dlq_readable = dlq_readable
        self.broker_permission = PERM_RW
        """``BrokerConfig.brokerPermission``: an operator sets 4 (read only) to drain a broker before taking it away."""
        # Injected faults (see rmqlab/lab/faults/): all off by default.
        self.response_delay_ms = 0
        self.lose_responses = False
        self.put_status = PutMessageStatus.PUT_OK
        self.reject_send_back = False
        self.send_error: ResponseCode | None = None
        self.send_responses: list[tuple[ResponseCode, str]] = []
        """Scripted answers, one per SEND_MESSAGE, consumed in order (then normal again): SUCCESS and the
        FLUSH_* / SLAVE_NOT_AVAILABLE codes store the message and answer that code; any other code is an error
        response with its remark and nothing is stored."""
        self.send_back_error: tuple[ResponseCode, str] | None = None
        self.query_offset_error: tuple[ResponseCode, str] | None = None
        self.pull_error: tuple[ResponseCode, str] | None = None
        """An error answer to every PULL_MESSAGE (code, remark) before it is processed; ``None``: pulls served."""
        """An error answer to every QUERY_CONSUMER_OFFSET (code, remark); ``None``: answered normally."""
        """CONSUMER_SEND_MSG_BACK answers this code and remark (nothing stored) while set."""
        self.commit_log = CommitLog()
        self.consume_queues: dict[tuple[str, int], ConsumeQueue] = {}
        self.topic_config: dict[str, TopicConfig] = {}
        self.subscription_groups: dict[str, SubscriptionGroupConfig] = {}
        self.consumer_offsets: dict[tuple[str, str, int], int] = {}
        self.consumer_groups: dict[str, dict[str, _ClientChannel]] = {}
        self.lock_manager = RebalanceLockManager(lambda: self.scheduler.now)
        self.delay_levels = delay_levels or DelayLevelTable()
        self.schedule_service = ScheduleMessageService(self, scheduler, self.delay_levels)
        self._held: dict[tuple[str, int], list[_HeldPull]] = {}
        self.on_topic_config = lambda broker, cfg: None
        """Called with every new or changed topic config: the broker registers it with the name server."""
        self.schedule_service.start()
        scheduler.schedule(10_000, self._scan_not_active_channels, label=TimerLabel(TimerKind.CHANNEL_SCAN, name))
        scheduler.schedule_at(
            self._next_delete_window(scheduler.now), self._clean_commit_log, label=TimerLabel(TimerKind.RETENTION, name)
        )

    # ------------------------------------------------------------------ orderly locks
    def lock_batch_mq(self, request: LockBatchMqRequest) -> LockBatchResult:
        """``AdminBrokerProcessor.lockBatchMQ``: lock or renew; an expired lock taken over is traced here."""
        locked, taken = self.lock_manager.try_lock_batch(request.group, list(request.mqs), request.client_id)
        for queue, previous in taken:
            self.trace.record(
                self.scheduler.now,
                EventKind.LOCK_EXPIRED,
                self.name,
                None,
                queue=str(queue),
                group=request.group,
                previous_holder=previous,
                new_holder=request.client_id,
            )
        holders = {}
        for mq in request.mqs:
            if mq not in locked:
                holder = self.lock_manager.holder(request.group, mq)
                if holder is not None:
                    holders[mq] = holder[0]
        return LockBatchResult(frozenset(locked), holders)

    def unlock_batch_mq(self, request: UnlockBatchMqRequest) -> ResponseCode:
        """``AdminBrokerProcessor.unlockBatchMQ``: release the caller's locks (often sent oneway, so the release is
        traced where it takes effect, under the consumer that asked)."""
        released = self.lock_manager.unlock_batch(request.group, list(request.mqs), request.client_id)
        for mq in sorted(released):
            self.trace.record(
                self.scheduler.now, EventKind.UNLOCKED, f"consumer:{request.client_id}", None, queue=str(mq),
                group=request.group,
            )  # fmt: skip
        return ResponseCode.SUCCESS

    # ------------------------------------------------------------------ dispatch
    def process_request(self, request: object, opaque: int | None) -> object:
        """``NettyRemotingServer``'s processor table: hand ``request`` to the processor for its code.

        ``opaque`` is the request's number (``None`` for a oneway one); only a held pull keeps it, to answer later.
        The most frequent requests are tested first: every message is sent once and, in a retry storm, sent back
        after each failed consumption, while one pull fetches up to 32 messages.
        """
        if isinstance(request, SendMessageRequest):
            return self.send_message(request.msg, request.reconsume_times, request.max_reconsume_times)
        if isinstance(request, ConsumerSendMsgBackRequest):
            return self.consumer_send_msg_back(
                request.group,
                request.commit_log_offset,
                request.delay_level,
                request.max_reconsume_times,
            )
        if isinstance(request, PullMessageRequest):
            if self.pull_error is not None:
                return MQBrokerException(self.name, *self.pull_error)
            return self.pull_message(request, opaque)
        if isinstance(request, HeartbeatRequest):
            self.heartbeat(request)
            return ResponseCode.SUCCESS
        if isinstance(request, UnregisterClientRequest):
            self.unregister(request.group, request.client_id)
            return ResponseCode.SUCCESS
        if isinstance(request, GetConsumerListByGroupRequest):
            return self.consumer_ids(request.group)
        if isinstance(request, GetMaxOffsetRequest):
            return self.max_offset(request.topic, request.queue_id)
        if isinstance(request, SearchOffsetRequest):
            return self.get_offset_in_queue_by_time(request.topic, request.queue_id, request.timestamp)
        if isinstance(request, QueryConsumerOffsetRequest):
            if self.query_offset_error is not None:
                return MQBrokerException(self.name, *self.query_offset_error)
            return self.query_consumer_offset(request.group, request.topic, request.queue_id)
        if isinstance(request, UpdateConsumerOffsetRequest):
            self.commit_offset(request.group, request.topic, request.queue_id, request.offset, request.client)
            return ResponseCode.SUCCESS
        if isinstance(request, LockBatchMqRequest):
            return self.lock_batch_mq(request)
        if isinstance(request, UnlockBatchMqRequest):
            return self.unlock_batch_mq(request)
        raise TypeError(f"broker {self.name} got a request it has no processor for: {request!r}")

    # ------------------------------------------------------------------ lifecycle
    def go_down(self) -> None:
        """Stop serving. The clients whose pulls were held learn it from remoting (``Remoting.channel_closed``)."""
        self.up = False
        self.schedule_service.stop()
        self.consumer_groups.clear()
        self.drop_held_pulls()

    def come_up(self) -> None:
        """Serve again; the schedule service restarts with its first delay of 1 s."""
        self.up = True
        self.schedule_service.start(restart=True)
