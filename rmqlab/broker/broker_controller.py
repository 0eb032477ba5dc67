"""``BrokerController``: one broker, holding its store, its managers and the processors that answer clients.

As in 4.9.7 the broker is an object graph, not one class: it holds a ``DefaultMessageStore`` (CommitLog,
ConsumeQueues, ``ScheduleMessageService``, ``CleanCommitLogService``), the managers of its tables
(``TopicConfigManager``, ``SubscriptionGroupManager``, ``ConsumerOffsetManager``, ``ConsumerManager``,
``RebalanceLockManager``) and its processors (``SendMessageProcessor``, ``PullMessageProcessor`` with the hold
service). :attr:`Broker.processor_table` is the processor table (``registerProcessor``): every request that arrives
through remoting is handed by :meth:`Broker.process_request` to the processor registered for its request code. The
smaller processors (``ClientManageProcessor``, ``ConsumerManageProcessor``, ``AdminBrokerProcessor``'s lock
requests) are a few lines each, here.

The broker registers its topics with the name server it is given (``registerBrokerAll``); it calls nothing above
itself. Injected faults are one :class:`~rmqlab.broker.broker_faults.BrokerFaults` the parts consult where 4.9.7
would produce that answer.

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/BrokerController.java
    (BrokerController.initialize, BrokerController.registerProcessor, BrokerController.start,
    BrokerController.shutdown)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/AdminBrokerProcessor.java
    (AdminBrokerProcessor.lockBatchMQ, AdminBrokerProcessor.unlockBatchMQ, AdminBrokerProcessor.getMaxOffset,
    AdminBrokerProcessor.searchOffsetByTimestamp)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/ClientManageProcessor.java
    (ClientManageProcessor.heartBeat, ClientManageProcessor.unregisterClient)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/ConsumerManageProcessor.java
    (ConsumerManageProcessor.getConsumerListByGroup, ConsumerManageProcessor.queryConsumerOffset,
    ConsumerManageProcessor.updateConsumerOffset)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/client/ClientHousekeepingService.java
    (ClientHousekeepingService.scanExceptionChannel, ClientHousekeepingService.onChannelClose)
Mirrors: remoting/src/main/java/org/apache/rocketmq/remoting/netty/NettyRemotingAbstract.java
    (NettyRemotingAbstract.processRequestCommand)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..common.message import RETRY_PREFIX
from ..common.message_queue import MessageQueue
from ..common.topic_config import PERM_READ, PERM_RW, PERM_WRITE, SubscriptionGroupConfig, TopicConfig
from ..core.scheduler import Scheduler, TimerKind, TimerLabel
from ..core.trace import EventKind, Trace
from ..namesrv.route_info_manager import NameServer
from ..remoting.exceptions import MQBrokerException
from ..remoting.protocol import (
    HeartbeatRequest,
    LockBatchMqRequest,
    LockBatchResult,
    PullMessageRequest,
    PullResult,
    PullStatus,
    QueryConsumerOffsetRequest,
    RequestCode,
    UnlockBatchMqRequest,
    UnregisterClientRequest,
    UpdateConsumerOffsetRequest,
)
from ..remoting.remoting import Remoting
from ..remoting.response_code import ResponseCode
from ..store.commit_log import CommitLog, ConsumeQueue
from ..store.default_message_store import DefaultMessageStore
from ..store.put_message_status import PutMessageStatus, parse_response_code, parse_send_responses
from ..store.schedule_message_service import DelayLevelTable, ScheduleMessageService
from .broker_faults import BrokerFaults
from .client_channel_info import _ClientChannel
from .consumer_manager import ConsumerManager
from .consumer_offset_manager import ConsumerOffsetManager
from .pull_message_processor import PullMessageProcessor
from .pull_message_types import BROKER_SUSPEND_MAX_TIME_MILLIS, MAX_TRANSFER_COUNT
from .rebalance_lock_manager import RebalanceLockManager
from .send_message_processor import SendMessageProcessor, SendResponse
from .subscription_group_manager import SubscriptionGroupManager
from .topic_config_manager import TopicConfigManager

__all__ = [
    "BROKER_SUSPEND_MAX_TIME_MILLIS",
    "MAX_TRANSFER_COUNT",
    "PERM_READ",
    "PERM_RW",
    "PERM_WRITE",
    "Broker",
    "BrokerFaults",
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

CHANNEL_SCAN_INTERVAL_MS = 10_000
"""``ClientHousekeepingService``: ``scanExceptionChannel`` every 10 s."""


class Broker:
    """One broker master (``BrokerController``): its store, managers and processors, and the request dispatch."""

    def __init__(
        self,
        name: str,
        scheduler: Scheduler,
        trace: Trace,
        rng: random.Random,
        remoting: Remoting,
        namesrv: NameServer,
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
        self.up = True
        """Whether the broker process runs: remoting refuses every request to a broker that is down."""
        self.faults = BrokerFaults()
        self.topic_config_manager = TopicConfigManager(name, namesrv)
        self.subscription_group_manager = SubscriptionGroupManager()
        self.consumer_offset_manager = ConsumerOffsetManager(name, scheduler, trace)
        self.consumer_manager = ConsumerManager(name, scheduler, trace, remoting)
        self.rebalance_lock_manager = RebalanceLockManager(lambda: self.scheduler.now)
        self.message_store = DefaultMessageStore(
            name, address, scheduler, trace, self.faults, delay_levels or DelayLevelTable()
        )
        self.pull_message_processor = PullMessageProcessor(
            name,
            address,
            scheduler,
            remoting,
            store=self.message_store,
            topics=self.topic_config_manager,
            offsets=self.consumer_offset_manager,
        )
        self.pull_request_hold_service = self.pull_message_processor.pull_request_hold_service
        """``getPullRequestHoldService()``: long polling's held pulls and their 5 s check."""
        self.message_store.message_arriving_listener = self.pull_request_hold_service.arriving
        self.send_message_processor = SendMessageProcessor(
            name,
            address,
            rng,
            store=self.message_store,
            topics=self.topic_config_manager,
            groups=self.subscription_group_manager,
            faults=self.faults,
            dlq_readable=dlq_readable,
        )
        self.processor_table = self._register_processors()
        """The remoting server's ``processorTable``: request code → the processor that answers it."""
        self.message_store.start()
        self.pull_request_hold_service.start()
        scheduler.schedule(
            CHANNEL_SCAN_INTERVAL_MS, self._scan_exception_channel, label=TimerLabel(TimerKind.CHANNEL_SCAN, name)
        )
        self.message_store.clean_commit_log_service.start()

    # ------------------------------------------------------------------ what labs and views read
    @property
    def commit_log(self) -> CommitLog:
        """``getMessageStore()``'s CommitLog."""
        return self.message_store.commit_log

    @property
    def consume_queues(self) -> dict[tuple[str, int], ConsumeQueue]:
        """``getMessageStore()``'s ConsumeQueues, by (topic, queue id)."""
        return self.message_store.consume_queues

    @property
    def schedule_service(self) -> ScheduleMessageService:
        """``getScheduleMessageService()``."""
        return self.message_store.schedule_service

    @property
    def delay_levels(self) -> DelayLevelTable:
        """``messageDelayLevel``, as the store's schedule service uses it."""
        return self.message_store.delay_levels

    @property
    def topic_config(self) -> dict[str, TopicConfig]:
        """``getTopicConfigManager().getTopicConfigTable()``."""
        return self.topic_config_manager.topic_config

    @property
    def subscription_groups(self) -> dict[str, SubscriptionGroupConfig]:
        """``getSubscriptionGroupManager().getSubscriptionGroupTable()``."""
        return self.subscription_group_manager.subscription_groups

    @property
    def consumer_offsets(self) -> dict[tuple[str, str, int], int]:
        """``getConsumerOffsetManager().getOffsetTable()``, by (group, topic, queue id)."""
        return self.consumer_offset_manager.consumer_offsets

    @property
    def consumer_groups(self) -> dict[str, dict[str, _ClientChannel]]:
        """``getConsumerManager()``'s consumer table: group → client id → channel."""
        return self.consumer_manager.consumer_groups

    @property
    def lock_manager(self) -> RebalanceLockManager:
        """``getRebalanceLockManager()``."""
        return self.rebalance_lock_manager

    # ------------------------------------------------------------------ dispatch
    def process_request(self, request: object, opaque: int | None) -> object:
        """``NettyRemotingAbstract.processRequestCommand``: hand ``request`` to the processor registered for its code
        (:attr:`processor_table`).

        ``opaque`` is the request's number (``None`` for a oneway one); only a held pull keeps it, to answer later.
        """
        if isinstance(request, PullMessageRequest):  # the one request a processor may hold, so it takes the opaque
            if self.faults.pull_error is not None:
                return MQBrokerException(self.name, *self.faults.pull_error)
            return self.pull_message_processor.pull_message(request, opaque)
        code: RequestCode | None = getattr(request, "code", None)  # every request class names its code
        processor = None if code is None else self.processor_table.get(code)
        if processor is None:
            raise TypeError(f"broker {self.name} got a request it has no processor for: {request!r}")
        return processor(request)

    def _register_processors(self) -> dict[RequestCode, Callable[[Any], object]]:
        """``BrokerController.registerProcessor``: which processor answers each request code (``PULL_MESSAGE`` is
        dispatched apart, since the pull processor may hold the request: :meth:`process_request`)."""
        send, clients = self.send_message_processor, self.consumer_manager
        store = self.message_store
        return {
            RequestCode.SEND_MESSAGE: lambda r: send.send_message(r.msg, r.reconsume_times, r.max_reconsume_times),
            RequestCode.CONSUMER_SEND_MSG_BACK: lambda r: send.consumer_send_msg_back(
                r.group, r.commit_log_offset, r.delay_level, r.max_reconsume_times
            ),
            RequestCode.HEART_BEAT: self.heartbeat,
            RequestCode.UNREGISTER_CLIENT: self.unregister_client,
            RequestCode.GET_CONSUMER_LIST_BY_GROUP: lambda r: clients.consumer_ids(r.group),
            RequestCode.GET_MAX_OFFSET: lambda r: store.max_offset(r.topic, r.queue_id),
            RequestCode.SEARCH_OFFSET_BY_TIMESTAMP: lambda r: store.get_offset_in_queue_by_time(
                r.topic, r.queue_id, r.timestamp
            ),
            RequestCode.QUERY_CONSUMER_OFFSET: self.query_consumer_offset_request,
            RequestCode.UPDATE_CONSUMER_OFFSET: self.update_consumer_offset,
            RequestCode.LOCK_BATCH_MQ: self.lock_batch_mq,
            RequestCode.UNLOCK_BATCH_MQ: self.unlock_batch_mq,
        }

    # ------------------------------------------------------------------ the small processors
    def heartbeat(self, request: HeartbeatRequest) -> ResponseCode:
        """``ClientManageProcessor.heartBeat``: a clustering consumer's group gets its ``%RETRY%`` topic, then the
        consumer is registered (a newcomer makes the broker notify the others)."""
        sub = self.subscription_group_manager.find_subscription_group_config(request.group)
        if request.clustering:
            self.topic_config_manager.create_topic(RETRY_PREFIX + request.group, sub.retry_queue_nums)
        self.consumer_manager.register_consumer(request.group, request.client_id)
        return ResponseCode.SUCCESS

    def unregister_client(self, request: UnregisterClientRequest) -> ResponseCode:
        """``ClientManageProcessor.unregisterClient``: the client leaves its group (a clean shutdown)."""
        self.consumer_manager.unregister(request.group, request.client_id)
        return ResponseCode.SUCCESS

    def update_consumer_offset(self, request: UpdateConsumerOffsetRequest) -> ResponseCode:
        """``ConsumerManageProcessor.updateConsumerOffset``: the broker overwrites the group's offset."""
        self.consumer_offset_manager.commit_offset(
            request.group, request.topic, request.queue_id, request.offset, request.client
        )
        return ResponseCode.SUCCESS

    def query_consumer_offset_request(self, request: QueryConsumerOffsetRequest) -> int | MQBrokerException:
        """``ConsumerManageProcessor.queryConsumerOffset`` as a client asks it: an injected error, or the offset."""
        if self.faults.query_offset_error is not None:
            return MQBrokerException(self.name, *self.faults.query_offset_error)
        return self.query_consumer_offset(request.group, request.topic, request.queue_id)

    def query_consumer_offset(self, group: str, topic: str, queue_id: int) -> int:
        """``ConsumerManageProcessor.queryConsumerOffset``: the stored offset; else 0 if offset 0 is still kept;
        else −1."""
        stored = self.consumer_offset_manager.consumer_offsets.get((group, topic, queue_id))
        if stored is not None:
            return stored
        queue = self.message_store.find_consume_queue(topic, queue_id)
        if queue is None or queue.min_offset <= 0:
            return 0
        return -1

    def lock_batch_mq(self, request: LockBatchMqRequest) -> LockBatchResult:
        """``AdminBrokerProcessor.lockBatchMQ``: lock or renew; an expired lock taken over is traced here."""
        manager = self.rebalance_lock_manager
        locked, taken = manager.try_lock_batch(request.group, list(request.mqs), request.client_id)
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
        holders: dict[MessageQueue, str] = {}
        for mq in request.mqs:
            if mq not in locked:
                holder = manager.holder(request.group, mq)
                if holder is not None:
                    holders[mq] = holder[0]
        return LockBatchResult(frozenset(locked), holders)

    def unlock_batch_mq(self, request: UnlockBatchMqRequest) -> ResponseCode:
        """``AdminBrokerProcessor.unlockBatchMQ``: release the caller's locks (often sent oneway, so the release is
        traced where it takes effect, under the consumer that asked)."""
        released = self.rebalance_lock_manager.unlock_batch(request.group, list(request.mqs), request.client_id)
        for mq in sorted(released):
            self.trace.record(
                self.scheduler.now, EventKind.UNLOCKED, f"consumer:{request.client_id}", None, queue=str(mq),
                group=request.group,
            )  # fmt: skip
        return ResponseCode.SUCCESS

    # ------------------------------------------------------------------ channels (ClientHousekeepingService)
    def connection_reset(self, client: str) -> None:
        """``client``'s channel closed: the pulls held for it can never be answered."""
        self.pull_request_hold_service.connection_reset(client)

    def unregister(self, group: str, client_id: str) -> None:
        """``client_id``'s channel closed: drop it from ``group`` (``onChannelClose`` → ``doChannelCloseEvent``)."""
        self.consumer_manager.unregister(group, client_id)

    def _scan_exception_channel(self) -> None:
        """``scanExceptionChannel`` every 10 s while the broker runs: drop consumers silent for 120 s."""
        if self.up:
            self.consumer_manager.scan_not_active_channel()
        self.scheduler.schedule(
            CHANNEL_SCAN_INTERVAL_MS, self._scan_exception_channel, label=TimerLabel(TimerKind.CHANNEL_SCAN, self.name)
        )

    # ------------------------------------------------------------------ lifecycle
    def go_down(self) -> None:
        """Stop serving. The clients whose pulls were held learn it from remoting (``Remoting.channel_closed``)."""
        self.up = False
        self.message_store.shutdown()
        self.consumer_manager.consumer_groups.clear()
        self.pull_request_hold_service.shutdown()

    def come_up(self) -> None:
        """Serve again; the schedule service restarts with its first delay of 1 s."""
        self.up = True
        self.message_store.start(restart=True)
        self.pull_request_hold_service.start()  # a new broker process: its 5 s checks count from now
