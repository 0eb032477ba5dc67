"""A RocketMQ broker: storage, topic configs, consumer offsets, send-back, long-polling pulls, locks.

Only the behaviour that decides where a message goes is modelled, following 4.9.7's
``SendMessageProcessor`` (send, send-back, retry and DLQ routing), ``CommitLog`` (delay rewrite and
level cap), ``PullMessageProcessor`` / ``PullRequestHoldService`` (long polling),
``ConsumerManageProcessor`` (offsets) and ``RebalanceLockManager`` (orderly locks).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from .delay import DelayLevelTable, ScheduleMessageService
from .errors import ConfigError
from .lock import RebalanceLockManager
from .message import (
    DLQ_PREFIX,
    PROPERTY_DELAY,
    PROPERTY_ORIGIN_MESSAGE_ID,
    PROPERTY_REAL_QID,
    PROPERTY_REAL_TOPIC,
    PROPERTY_RETRY_TOPIC,
    RETRY_PREFIX,
    SCHEDULE_TOPIC,
    MessageExt,
    dlq_topic,
)
from .protocol import (
    ConsumerSendMsgBackRequest,
    GetConsumerListByGroupRequest,
    GetMaxOffsetRequest,
    HeartbeatRequest,
    LockBatchMqRequest,
    NotifyConsumerIdsChangedRequest,
    PullMessageRequest,
    QueryConsumerOffsetRequest,
    SendMessageRequest,
    UnlockBatchMqRequest,
    UnregisterClientRequest,
    UpdateConsumerOffsetRequest,
)
from .queue import MessageQueue
from .remoting import HELD, MQBrokerException, Remoting, ResponseCode, ResponseFuture
from .scheduler import Scheduler, Timer, TimerKind, TimerLabel
from .store import CommitLog, ConsumeQueue, ConsumeQueueEntry
from .trace import EventKind, Trace

__all__ = [
    "PERM_READ",
    "PERM_WRITE",
    "Broker",
    "PullResult",
    "PullStatus",
    "PutMessageStatus",
    "SubscriptionGroupConfig",
    "TopicConfig",
    "parse_response_code",
    "parse_send_responses",
]

PERM_READ = 4
PERM_WRITE = 2
PERM_RW = PERM_READ | PERM_WRITE

BROKER_SUSPEND_MAX_TIME_MILLIS = 15_000
MAX_TRANSFER_COUNT = 32
CHANNEL_EXPIRED_TIMEOUT_MS = 120_000
FILE_RESERVED_TIME_MS = 72 * 3_600_000
DELETE_WHEN_HOUR = 4
CLEAN_RESOURCE_INTERVAL_MS = 10_000
DAY_MS = 86_400_000


class PutMessageStatus(StrEnum):
    """``PutMessageStatus`` of 4.9.7, all eleven (the ``put_status`` fault makes the store answer one)."""

    PUT_OK = "PUT_OK"
    FLUSH_DISK_TIMEOUT = "FLUSH_DISK_TIMEOUT"
    FLUSH_SLAVE_TIMEOUT = "FLUSH_SLAVE_TIMEOUT"
    SLAVE_NOT_AVAILABLE = "SLAVE_NOT_AVAILABLE"
    SERVICE_NOT_AVAILABLE = "SERVICE_NOT_AVAILABLE"
    CREATE_MAPEDFILE_FAILED = "CREATE_MAPEDFILE_FAILED"
    MESSAGE_ILLEGAL = "MESSAGE_ILLEGAL"
    PROPERTIES_SIZE_EXCEEDED = "PROPERTIES_SIZE_EXCEEDED"
    OS_PAGECACHE_BUSY = "OS_PAGECACHE_BUSY"
    UNKNOWN_ERROR = "UNKNOWN_ERROR"
    LMQ_CONSUME_QUEUE_NUM_EXCEEDED = "LMQ_CONSUME_QUEUE_NUM_EXCEEDED"


_PUT_STATUS_CODE = {
    PutMessageStatus.PUT_OK: ResponseCode.SUCCESS,
    PutMessageStatus.FLUSH_DISK_TIMEOUT: ResponseCode.FLUSH_DISK_TIMEOUT,
    PutMessageStatus.FLUSH_SLAVE_TIMEOUT: ResponseCode.FLUSH_SLAVE_TIMEOUT,
    PutMessageStatus.SLAVE_NOT_AVAILABLE: ResponseCode.SLAVE_NOT_AVAILABLE,
}


_STORED_CODES = frozenset(
    {
        ResponseCode.SUCCESS,
        ResponseCode.FLUSH_DISK_TIMEOUT,
        ResponseCode.FLUSH_SLAVE_TIMEOUT,
        ResponseCode.SLAVE_NOT_AVAILABLE,
    }
)
"""Codes ``MQClientAPIImpl.processSendResponse`` turns into a SendResult (the message is stored); any other throws."""


def parse_response_code(value: object, parameter: str, *, allow_success: bool = True) -> ResponseCode:
    """A ``ResponseCode`` named by ``value`` (its name, e.g. ``"SYSTEM_ERROR"``), else a ConfigError."""
    names = [c.name for c in ResponseCode if allow_success or c is not ResponseCode.SUCCESS]
    if isinstance(value, str) and value in names:
        return ResponseCode[value]
    raise ConfigError(parameter, value, "one of " + ", ".join(names))


def parse_send_responses(value: object) -> list[tuple[ResponseCode, str]]:
    """``send_responses``: a list of code names or ``{"code": NAME, "remark": TEXT}``, one per SEND_MESSAGE."""
    if not isinstance(value, list | tuple):
        raise ConfigError("send_responses", value, "a list of response code names or {code, remark} mappings")
    out: list[tuple[ResponseCode, str]] = []
    for i, item in enumerate(value):
        where = f"send_responses[{i}]"
        remark: object = None
        if isinstance(item, dict):
            unknown = sorted(set(item) - {"code", "remark"})
            if unknown or "code" not in item:
                raise ConfigError(where, item, "a code name or a mapping with 'code' and an optional 'remark'")
            code_value, remark = item["code"], item.get("remark")
        else:
            code_value = item
        code = parse_response_code(code_value, f"{where}.code" if isinstance(item, dict) else where)
        if remark is not None and not isinstance(remark, str):
            raise ConfigError(f"{where}.remark", remark, "a string (the response's remark)")
        out.append((code, f"[{code.name}] injected fault" if remark is None else remark))
    return out


_ILLEGAL = (
    ResponseCode.MESSAGE_ILLEGAL,
    "the message is illegal, maybe msg body or properties length not matched. msg body length limit 4194304B, "
    "msg properties length limit 32KB.",
)
_PUT_STATUS_ERROR: dict[PutMessageStatus, tuple[ResponseCode, str]] = {
    PutMessageStatus.CREATE_MAPEDFILE_FAILED: (
        ResponseCode.SYSTEM_ERROR,
        "create mapped file failed, server is busy or broken.",
    ),
    PutMessageStatus.MESSAGE_ILLEGAL: _ILLEGAL,
    PutMessageStatus.PROPERTIES_SIZE_EXCEEDED: _ILLEGAL,
    PutMessageStatus.SERVICE_NOT_AVAILABLE: (
        ResponseCode.SERVICE_NOT_AVAILABLE,
        "service not available now. It may be caused by one of the following reasons: the broker's disk is full "
        "[CL: 0.95 CQ: 0.95 INDEX: 0.95], messages are put to the slave, message store has been shut down, etc.",
    ),
    PutMessageStatus.OS_PAGECACHE_BUSY: (
        ResponseCode.SYSTEM_ERROR,
        "[PC_SYNCHRONIZED]broker busy, start flow control for a while",
    ),
    PutMessageStatus.LMQ_CONSUME_QUEUE_NUM_EXCEEDED: (
        ResponseCode.SYSTEM_ERROR,
        "[LMQ_CONSUME_QUEUE_NUM_EXCEEDED]broker config enableLmq and enableMultiDispatch, lmq consumeQueue num "
        "exceed maxLmqConsumeQueueNum config num, default limit 2w.",
    ),
    PutMessageStatus.UNKNOWN_ERROR: (ResponseCode.SYSTEM_ERROR, "UNKNOWN_ERROR"),
}
"""``SendMessageProcessor.handlePutMessageResult``: a failed put's response code and remark (nothing stored;
maxMessageSize 4 MiB; the disk ratios of ``diskUtil()`` are shown as 0.95, a full disk)."""


class PullStatus(StrEnum):
    """``PullStatus``."""

    FOUND = "FOUND"
    NO_NEW_MSG = "NO_NEW_MSG"
    NO_MATCHED_MSG = "NO_MATCHED_MSG"
    OFFSET_ILLEGAL = "OFFSET_ILLEGAL"


@dataclass(slots=True)
class TopicConfig:
    """``TopicConfig``: queue counts and permission bits (READ 4, WRITE 2)."""

    topic_name: str
    read_queue_nums: int
    write_queue_nums: int
    perm: int = PERM_RW

    @property
    def readable(self) -> bool:
        return bool(self.perm & PERM_READ)

    @property
    def writable(self) -> bool:
        return bool(self.perm & PERM_WRITE)


@dataclass(slots=True)
class SubscriptionGroupConfig:
    """``SubscriptionGroupConfig`` defaults: one retry queue, 16 retries unless the client says otherwise."""

    group_name: str
    retry_queue_nums: int = 1
    retry_max_times: int = 16


@dataclass(slots=True)
class PullResult:
    """What a pull returns to the client."""

    status: PullStatus
    next_begin_offset: int
    min_offset: int
    max_offset: int
    msgs: list[MessageExt] = field(default_factory=list)


@dataclass(slots=True)
class SendResponse:
    """Broker's answer to SEND_MESSAGE: code, where it was stored."""

    code: ResponseCode
    topic: str
    queue_id: int
    queue_offset: int
    msg_id: str


@dataclass(slots=True)
class _HeldPull:
    """A pull the broker holds (``PullRequestHoldService``) until messages arrive or 15 s pass."""

    client_id: str
    group: str
    mq: MessageQueue
    offset: int
    tags: frozenset[str] | None
    future: ResponseFuture
    """The client's pending request: the broker answers through it, or forgets it in a connection reset."""
    timer: Timer | None = None


@dataclass(slots=True)
class LockBatchResult:
    """The answer to ``LOCK_BATCH_MQ``: the queues now locked for the caller.

    ``holders`` is not in 4.9.7's wire format (``LockBatchResponseBody`` carries only the locked set); rmqlab adds
    who holds each refused queue so the trace can name it for students.
    """

    locked: frozenset[MessageQueue]
    holders: dict[MessageQueue, str]


@dataclass(slots=True)
class _ClientChannel:
    """``ClientChannelInfo``: a consumer instance of a group, as its last heartbeat left it."""

    client_id: str
    last_update: int


class Broker:
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
    ) -> None:
        self.name = name
        self.scheduler = scheduler
        self.trace = trace
        self.rng = rng
        self.remoting = remoting
        """Only to tell clients about group changes (``Broker2Client``); requests reach the broker through it."""
        self.up = True
        self.dlq_readable = dlq_readable
        self.broker_permission = PERM_RW
        """``BrokerConfig.brokerPermission``: an operator sets 4 (read only) to drain a broker before taking it away."""
        # Injected faults (see faults.py): all off by default.
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
        self.on_topic_config: Callable[[Broker, TopicConfig], None] = lambda broker, cfg: None
        """Called with every new or changed topic config: the broker registers it with the name server."""
        self.schedule_service.start()
        self._scan_timer = scheduler.schedule(
            10_000, self._scan_not_active_channels, label=TimerLabel(TimerKind.CHANNEL_SCAN, name)
        )
        scheduler.schedule_at(
            self._next_delete_window(scheduler.now), self._clean_commit_log, label=TimerLabel(TimerKind.RETENTION, name)
        )

    # ------------------------------------------------------------------ topics and storage
    def create_topic(self, topic: str, queue_nums: int, perm: int = PERM_RW) -> TopicConfig:
        """Create ``topic`` with ``queue_nums`` read and write queues; an existing one is kept as is."""
        existing = self.topic_config.get(topic)
        if existing is not None:
            return existing
        return self.update_topic(topic, queue_nums, queue_nums, perm)

    def update_topic(self, topic: str, read_queue_nums: int, write_queue_nums: int, perm: int) -> TopicConfig:
        """``AdminBrokerProcessor.updateAndCreateTopic``: replace the config and register it with the name server.

        Nothing else changes: stored messages stay in their ConsumeQueues, including queues the new config no
        longer lists; clients see the new route on their next name-server poll.
        """
        config = TopicConfig(topic, read_queue_nums, write_queue_nums, perm)
        self.topic_config[topic] = config
        self.on_topic_config(self, self.registered_config(config))
        return config

    def registered_config(self, config: TopicConfig) -> TopicConfig:
        """What the name server is told about ``config`` (``registerBrokerAll`` / ``registerIncrementBrokerData``).

        A broker whose own permission is not read+write registers *every* topic with the broker's permission
        instead of the topic's: that is how a read-only broker leaves the producers' routes (they list only
        writable queues) while consumers go on reading it. The broker's own table keeps the topic's permission.
        """
        if self.broker_permission == PERM_RW:
            return config
        return TopicConfig(config.topic_name, config.read_queue_nums, config.write_queue_nums, self.broker_permission)

    def update_broker_permission(self, perm: int) -> None:
        """``updateBrokerConfig`` with ``brokerPermission``: keep it, re-register every topic (``registerBrokerAll``).

        Clients see the new routes on their next name-server poll; until then a producer's cached route still
        lists this broker, and its sends are stored (4.9.7 refuses a plain send only for an *order* topic).
        """
        self.broker_permission = perm
        for topic in sorted(self.topic_config):
            self.on_topic_config(self, self.registered_config(self.topic_config[topic]))

    def find_consume_queue(self, topic: str, queue_id: int) -> ConsumeQueue | None:
        return self.consume_queues.get((topic, queue_id))

    def max_offset(self, topic: str, queue_id: int) -> int:
        queue = self.consume_queues.get((topic, queue_id))
        return queue.max_offset if queue else 0

    def put_message(self, msg: MessageExt) -> PutMessageStatus:
        """``CommitLog.asyncPutMessage`` + dispatch: store, rewrite delayed messages, wake held pulls."""
        now = self.scheduler.now
        properties = msg.properties
        level = msg.delay_time_level
        deliver_ts = 0
        if level > 0 and not msg.topic.startswith(SCHEDULE_TOPIC):
            level = self.delay_levels.cap(level)
            properties[PROPERTY_DELAY] = str(level)
            properties[PROPERTY_REAL_TOPIC] = msg.topic
            properties[PROPERTY_REAL_QID] = str(msg.queue_id)
            msg.topic = SCHEDULE_TOPIC
            msg.queue_id = level - 1
            deliver_ts = now + self.delay_levels.delay_ms(level)
        msg.store_timestamp = now
        msg.store_host = self.name
        self.commit_log.append(msg)
        key = (msg.topic, msg.queue_id)
        queue = self.consume_queues.get(key)
        if queue is None:
            queue = self.consume_queues[key] = ConsumeQueue(msg.topic, msg.queue_id)
        msg.queue_offset = queue.append(ConsumeQueueEntry(msg.commit_log_offset, deliver_ts))
        trace = self.trace
        if deliver_ts:
            trace.record(
                now,
                EventKind.SCHEDULED,
                self.name,
                msg.msg_id,
                level=level,
                real_topic=properties[PROPERTY_REAL_TOPIC],
                due_ms=deliver_ts,
                reconsume_times=msg.reconsume_times,
            )
            self.schedule_service.on_enqueue(level)
            return self.put_status
        trace.record(
            now,
            EventKind.STORED,
            self.name,
            msg.msg_id,
            topic=msg.topic,
            queue_id=msg.queue_id,
            queue_offset=msg.queue_offset,
            reconsume_times=msg.reconsume_times,
        )
        if msg.topic.startswith(DLQ_PREFIX):
            trace.record(
                now,
                EventKind.DEAD_LETTERED,
                self.name,
                msg.msg_id,
                group=msg.topic[len(DLQ_PREFIX) :],
                topic=msg.topic,
                reconsume_times=msg.reconsume_times,
                original_topic=properties.get(PROPERTY_RETRY_TOPIC, msg.topic),
            )
        self._notify_message_arriving(msg.topic, msg.queue_id)
        return self.put_status

    def subscription_group(self, group: str) -> SubscriptionGroupConfig:
        """The group's config, auto-created with the defaults on first use (``autoCreateSubscriptionGroup``)."""
        sub = self.subscription_groups.get(group)
        if sub is None:
            sub = self.subscription_groups[group] = SubscriptionGroupConfig(group)
        return sub

    # ------------------------------------------------------------------ SEND_MESSAGE
    def send_message(
        self,
        msg: MessageExt,
        producer_group: str,
        reconsume_times: int | None = None,
        max_reconsume_times: int | None = None,
    ) -> SendResponse | MQBrokerException:
        """``SendMessageProcessor.asyncSendMessage``, including ``handleRetryAndDLQ`` for ``%RETRY%``.

        Neither the topic's nor the broker's permission is checked here: in 4.9.7 ``msgCheck`` refuses a send
        with NO_PERMISSION only when the broker is not writable *and* the topic is an order topic (a name-server
        KV setting rmqlab does not model). Write permission is enforced by the routes: a producer lists only
        writable queues, so a message reaches a read-only topic or broker only through a stale cached route,
        and then it is stored.
        """
        if self.send_error is not None:
            return MQBrokerException(self.name, self.send_error, f"[{self.send_error.name}] injected fault")
        answer: ResponseCode | None = None
        if self.send_responses:
            answer, remark = self.send_responses.pop(0)
            if answer not in _STORED_CODES:
                return MQBrokerException(self.name, answer, remark)
        config = self.topic_config.get(msg.topic)
        if config is None and msg.topic.startswith(RETRY_PREFIX):
            config = self.create_topic(msg.topic, 1)
        if config is None:
            return MQBrokerException(
                self.name, ResponseCode.TOPIC_NOT_EXIST, f"topic[{msg.topic}] not exist, apply first please!"
            )
        if msg.queue_id >= max(config.read_queue_nums, config.write_queue_nums):
            return MQBrokerException(
                self.name, ResponseCode.SYSTEM_ERROR, f"request queueId[{msg.queue_id}] is illegal"
            )
        if msg.topic.startswith(RETRY_PREFIX):
            group = msg.topic[len(RETRY_PREFIX) :]
            sub = self.subscription_group(group)
            rt = reconsume_times or 0
            max_times = sub.retry_max_times if max_reconsume_times is None else max_reconsume_times
            msg.reconsume_times = rt
            if rt >= max_times:
                # handleRetryAndDLQ sets delay level 0 on the inner message, but 4.9.x then restores
                # the request's property map, so a client-set DELAY survives (spec §4.3 quirk).
                msg.topic = dlq_topic(group)
                msg.queue_id = 0
                self.create_topic(msg.topic, 1, PERM_RW if self.dlq_readable else PERM_WRITE)
        failed = _PUT_STATUS_ERROR.get(self.put_status)
        if failed is not None:
            return MQBrokerException(self.name, *failed)
        status = self.put_message(msg)
        code = _PUT_STATUS_CODE[status] if answer is None or answer is ResponseCode.SUCCESS else answer
        return SendResponse(code, msg.topic, msg.queue_id, msg.queue_offset, msg.msg_id)

    # ------------------------------------------------------------------ CONSUMER_SEND_MSG_BACK
    def consumer_send_msg_back(
        self,
        group: str,
        commit_log_offset: int,
        delay_level: int,
        origin_msg_id: str,
        max_reconsume_times: int | None,
    ) -> ResponseCode | MQBrokerException:
        """``asyncConsumerSendMsgBack``: re-store the original as a retry (or DLQ) message."""
        if self.reject_send_back:
            return MQBrokerException(self.name, ResponseCode.SYSTEM_ERROR, "send back rejected (injected fault)")
        if self.send_back_error is not None:
            return MQBrokerException(self.name, *self.send_back_error)
        sub = self.subscription_group(group)
        if not self.broker_permission & PERM_WRITE:
            # 4.9.7 names the broker by its IP (brokerIP1); rmqlab's brokers have names only
            return MQBrokerException(
                self.name, ResponseCode.NO_PERMISSION, f"the broker[{self.name}] sending message is forbidden"
            )
        if sub.retry_queue_nums <= 0:
            return ResponseCode.SUCCESS  # stores nothing: the message is silently dropped
        retry = self.create_topic(RETRY_PREFIX + group, sub.retry_queue_nums)
        if not retry.writable:
            return MQBrokerException(
                self.name, ResponseCode.NO_PERMISSION, f"the topic[{retry.topic_name}] sending message is forbidden"
            )
        original = self.commit_log.get(commit_log_offset)
        if original is None:
            return MQBrokerException(
                self.name, ResponseCode.SYSTEM_ERROR, f"look message by offset failed, {commit_log_offset}"
            )
        properties = dict(original.properties)
        properties.setdefault(PROPERTY_RETRY_TOPIC, original.topic)
        max_times = sub.retry_max_times if max_reconsume_times is None else max_reconsume_times
        rt = original.reconsume_times
        if rt >= max_times or delay_level < 0:
            topic = dlq_topic(group)
            self.create_topic(topic, 1, PERM_RW if self.dlq_readable else PERM_WRITE)
            properties.pop(PROPERTY_DELAY, None)  # 4.9.2+: a DLQ copy is never delayed
        else:
            topic = retry.topic_name
            properties[PROPERTY_DELAY] = str(3 + rt if delay_level == 0 else delay_level)
        properties.setdefault(PROPERTY_ORIGIN_MESSAGE_ID, origin_msg_id)
        inner = MessageExt(
            topic,
            # ``random % retryQueueNums``: the group's setting, not the existing topic's queue count
            0 if topic != retry.topic_name or sub.retry_queue_nums == 1 else self.rng.randrange(sub.retry_queue_nums),
            original.msg_id,
            original.body,
            original.tags,
            original.keys,
            properties,
            rt + 1,
            born_timestamp=original.born_timestamp,
        )
        self.put_message(inner)
        return ResponseCode.SUCCESS

    # ------------------------------------------------------------------ pulls (long polling)
    def pull_message(
        self, request: PullMessageRequest, future: ResponseFuture | None
    ) -> PullResult | object:
        """``PullMessageProcessor``: answer now, or hold the request until messages arrive (15 s max).

        Returns the result when answering at once, :data:`~rmqlab.remoting.HELD` when the request is held: the
        answer then goes through ``future.reply``, or never if a connection reset drops it (``future.forget``).
        """
        mq, offset, tags = request.mq, request.queue_offset, request.tags
        if request.commit_offset is not None and request.commit_offset >= 0:
            self.commit_offset(request.consumer_group, mq.topic, mq.queue_id, request.commit_offset, request.client)
        config = self.topic_config.get(mq.topic)
        if config is not None and not config.readable:
            return PullResult(PullStatus.NO_NEW_MSG, offset, 0, 0)
        result = self._read(mq, offset, tags, request.max_msg_nums)
        if result.status is PullStatus.NO_NEW_MSG and request.suspend and future is not None:
            held = _HeldPull(request.client, request.consumer_group, mq, offset, tags, future)
            held.timer = self.scheduler.schedule(
                BROKER_SUSPEND_MAX_TIME_MILLIS,
                self._hold_timeout,
                held,
                label=TimerLabel(TimerKind.HOLD_TIMEOUT, self.name, mq, detail=request.client),
            )
            self._held.setdefault((mq.topic, mq.queue_id), []).append(held)
            return HELD
        return result

    def _read(self, mq: MessageQueue, offset: int, tags: frozenset[str] | None, max_nums: int) -> PullResult:
        queue = self.consume_queues.get((mq.topic, mq.queue_id))
        if queue is None:
            return PullResult(PullStatus.NO_NEW_MSG, 0, 0, 0)
        if offset < queue.min_offset or offset > queue.max_offset:
            nearest = queue.min_offset if offset < queue.min_offset else queue.max_offset
            return PullResult(PullStatus.OFFSET_ILLEGAL, nearest, queue.min_offset, queue.max_offset)
        if offset == queue.max_offset:
            return PullResult(PullStatus.NO_NEW_MSG, offset, queue.min_offset, queue.max_offset)
        msgs: list[MessageExt] = []
        end = min(queue.max_offset, offset + max_nums)
        next_offset = offset
        for position in range(offset, end):
            next_offset = position + 1
            stored = self.commit_log.get(queue.entries[position].commit_log_offset)
            if stored is None:
                continue
            if tags is not None and stored.tags not in tags:
                continue
            msgs.append(stored.copy())
        status = PullStatus.FOUND if msgs else PullStatus.NO_MATCHED_MSG
        return PullResult(status, next_offset, queue.min_offset, queue.max_offset, msgs)

    def _hold_timeout(self, held: _HeldPull) -> None:
        waiting = self._held.get((held.mq.topic, held.mq.queue_id), [])
        if held in waiting:
            waiting.remove(held)
            held.future.reply(self._read(held.mq, held.offset, held.tags, MAX_TRANSFER_COUNT))

    def _notify_message_arriving(self, topic: str, queue_id: int) -> None:
        """``PullRequestHoldService.notifyMessageArriving``: answer held pulls that now have messages."""
        waiting = self._held.get((topic, queue_id))
        if not waiting:
            return
        self._held[(topic, queue_id)] = []
        for held in waiting:
            result = self._read(held.mq, held.offset, held.tags, MAX_TRANSFER_COUNT)
            if result.status is PullStatus.NO_NEW_MSG:
                self._held[(topic, queue_id)].append(held)
                continue
            if held.timer is not None:
                held.timer.cancel()
            held.future.reply(result)

    def connection_reset(self, client: str) -> None:
        """A client's channel closed: pulls held for it can never be answered, so forget them.

        Nothing is sent to the client. In 4.9.7 it only notices through its response table: the pull's
        ``ResponseFuture`` expires in ``scanResponseTable`` 30 s + 1 s after it was sent
        (:meth:`ResponseFuture.forget`).
        """
        process = client.split("/", 1)[0]
        for key, waiting in self._held.items():
            keep = [h for h in waiting if h.client_id.removeprefix("consumer:") != process]
            for held in waiting:
                if held not in keep:
                    if held.timer is not None:
                        held.timer.cancel()
                    held.future.forget()
            self._held[key] = keep

    def drop_held_pulls(self) -> list[_HeldPull]:
        """The broker went down: every held pull loses its connection."""
        dropped = [h for waiting in self._held.values() for h in waiting]
        for held in dropped:
            if held.timer is not None:
                held.timer.cancel()
        self._held.clear()
        return dropped

    # ------------------------------------------------------------------ offsets
    def query_consumer_offset(self, group: str, topic: str, queue_id: int) -> int:
        """``queryConsumerOffset``: the stored offset; else 0 if offset 0 is still kept; else -1."""
        stored = self.consumer_offsets.get((group, topic, queue_id))
        if stored is not None:
            return stored
        queue = self.consume_queues.get((topic, queue_id))
        if queue is None or queue.min_offset <= 0:
            return 0
        return -1

    def commit_offset(self, group: str, topic: str, queue_id: int, offset: int, actor: str = "") -> None:
        """``ConsumerOffsetManager.commitOffset`` (the broker overwrites); a change is traced."""
        key = (group, topic, queue_id)
        if self.consumer_offsets.get(key) != offset:
            self.consumer_offsets[key] = offset
            self.trace.record(
                self.scheduler.now,
                EventKind.OFFSET_PERSISTED,
                actor or self.name,
                None,
                queue=str(MessageQueue(topic, self.name, queue_id)),
                offset=offset,
                group=group,
                store="broker",
            )

    # ------------------------------------------------------------------ consumer membership
    def heartbeat(self, request: HeartbeatRequest) -> None:
        """``ClientManageProcessor.heartBeat``: register a consumer of a group; a newcomer makes the broker notify
        the others."""
        group = request.group
        sub = self.subscription_group(group)
        if request.clustering:
            self.create_topic(RETRY_PREFIX + group, sub.retry_queue_nums)
        members = self.consumer_groups.setdefault(group, {})
        known = request.client_id in members
        members[request.client_id] = _ClientChannel(request.client_id, self.scheduler.now)
        if not known:
            self._notify_ids_changed(group, exclude=request.client_id)

    def unregister(self, group: str, client_id: str) -> None:
        """The client shut down or its channel closed: forget it and tell the others."""
        members = self.consumer_groups.get(group, {})
        if members.pop(client_id, None) is not None:
            self._notify_ids_changed(group, exclude=client_id)

    def consumer_ids(self, group: str) -> list[str]:
        """``getConsumerIdListByGroup``."""
        return sorted(self.consumer_groups.get(group, {}))

    def _notify_ids_changed(self, group: str, exclude: str) -> None:
        """``Broker2Client.notifyConsumerIdsChanged`` to every other member, oneway, in client id order."""
        for client_id in sorted(self.consumer_groups.get(group, {})):
            if client_id != exclude:
                self.remoting.notify_client(self.name, client_id, NotifyConsumerIdsChangedRequest(group, self.name))

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
    def process_request(self, client: str, request: object, future: ResponseFuture | None) -> object:
        """``NettyRemotingServer``'s processor table: hand ``request`` to the processor for its code.

        ``future`` is the client's pending request (``None`` for a oneway one); only a held pull keeps it.
        """
        if isinstance(request, SendMessageRequest):
            return self.send_message(
                request.msg, request.producer_group, request.reconsume_times, request.max_reconsume_times
            )
        if isinstance(request, PullMessageRequest):
            return self.pull_message(request, future)
        if isinstance(request, ConsumerSendMsgBackRequest):
            return self.consumer_send_msg_back(
                request.group,
                request.commit_log_offset,
                request.delay_level,
                request.origin_msg_id,
                request.max_reconsume_times,
            )
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
        if isinstance(request, QueryConsumerOffsetRequest):
            return self.query_consumer_offset(request.group, request.topic, request.queue_id)
        if isinstance(request, UpdateConsumerOffsetRequest):
            self.commit_offset(request.group, request.topic, request.queue_id, request.offset, request.client)
            return ResponseCode.SUCCESS
        if isinstance(request, LockBatchMqRequest):
            return self.lock_batch_mq(request)
        if isinstance(request, UnlockBatchMqRequest):
            return self.unlock_batch_mq(request)
        raise TypeError(f"broker {self.name} got a request it has no processor for: {request!r}")

    def _scan_not_active_channels(self) -> None:
        """Every 10 s drop consumer channels silent for more than 120 s (``ConsumerManager``)."""
        now = self.scheduler.now
        if self.up:
            for group, members in sorted(self.consumer_groups.items()):
                for client_id, channel in sorted(members.items()):
                    if now - channel.last_update > CHANNEL_EXPIRED_TIMEOUT_MS:
                        self.trace.record(
                            now,
                            EventKind.WARNING,
                            self.name,
                            None,
                            message=f"channel of {client_id} expired; removed from {group}",
                        )
                        self.unregister(group, client_id)
        self._scan_timer = self.scheduler.schedule(
            10_000, self._scan_not_active_channels, label=TimerLabel(TimerKind.CHANNEL_SCAN, self.name)
        )

    # ------------------------------------------------------------------ retention
    @staticmethod
    def _next_delete_window(now: int) -> int:
        """Start of the next ``deleteWhen`` hour (04:00; virtual time 0 is midnight of day 0)."""
        start = (now // DAY_MS) * DAY_MS + DELETE_WHEN_HOUR * 3_600_000
        return start if start >= now else start + DAY_MS

    def _clean_commit_log(self) -> None:
        """``CleanCommitLogService``: during the 04:xx hour, every 10 s, delete messages older than 72 h.

        RocketMQ deletes whole 1 GiB files; a lab-sized CommitLog is far smaller, so each message stands for its
        own file. Retry, schedule and DLQ messages are ordinary entries: a DLQ message is *not* kept longer.
        """
        now = self.scheduler.now
        if self.up:
            cutoff = now - FILE_RESERVED_TIME_MS
            log = self.commit_log
            first = log.min_offset
            end = first
            while end < log.max_offset:
                msg = log.get(end)
                if msg is not None and msg.store_timestamp >= cutoff:
                    break
                end += 1
            if end > first:
                topics: dict[str, int] = {}
                for offset in range(first, end):
                    msg = log.get(offset)
                    if msg is not None:
                        topics[msg.topic] = topics.get(msg.topic, 0) + 1
                log.delete_before(end)
                for queue in self.consume_queues.values():
                    while (
                        queue.min_offset < queue.max_offset and queue.entries[queue.min_offset].commit_log_offset < end
                    ):
                        queue.min_offset += 1
                self.trace.record(
                    now,
                    EventKind.RETENTION_DELETED,
                    self.name,
                    None,
                    count=end - first,
                    topics=dict(sorted(topics.items())),
                )
        next_tick = now + CLEAN_RESOURCE_INTERVAL_MS
        if (next_tick % DAY_MS) // 3_600_000 != DELETE_WHEN_HOUR:
            next_tick = self._next_delete_window(next_tick)
        self.scheduler.schedule_at(next_tick, self._clean_commit_log, label=TimerLabel(TimerKind.RETENTION, self.name))

    # ------------------------------------------------------------------ lifecycle
    def go_down(self) -> list[_HeldPull]:
        """Stop serving; returns held pulls whose clients must see a broken connection."""
        self.up = False
        self.schedule_service.stop()
        self.consumer_groups.clear()
        return self.drop_held_pulls()

    def come_up(self) -> None:
        """Serve again; the schedule service restarts with its first delay of 1 s."""
        self.up = True
        self.schedule_service.start(restart=True)
