"""The retry storm in SimPy with the engine's pipeline: store, long-polling pulls, consume pool, send-back, delays.

``baseline_simpy.py`` is the minimal SimPy reference point: one process per message that only waits
out the retry delays. This module is the *like-for-like* reference point. It models the stages the
rmqlab engine runs for every delivery, written the way a SimPy user would write them:

* **producer**: one process that loops over SYNC sends at t=0 (0 ms network), queue ``i % 4``;
* **broker store**: a CommitLog (a list of :class:`MessageExt`) and ConsumeQueues (lists of
  ``(commit_log_offset, deliver_timestamp)``); a message with a delay level is rewritten to
  ``SCHEDULE_TOPIC_XXXX`` queue ``level - 1`` with ``REAL_TOPIC`` / ``REAL_QID``, as
  ``CommitLog.asyncPutMessage`` does;
* **pull + long polling**: one long-running process per queue (4 business queues and ``%RETRY%cg``),
  batches of 32, flow control (more than 1000 messages cached, or a span above 2000, → pull again
  in 50 ms), and a pull that finds nothing is held at the broker on a SimPy event until a message
  arrives (15 s at most). Each pulled message is a fresh copy of the stored one;
* **ProcessQueue**: a ``SortedDict`` keyed by queue offset; the committed offset is its smallest key
  (or max + 1 once empty), kept in the consumer's offset table, sent with each pull and persisted
  to the broker every 5 s;
* **consume pool**: ``consumeExecutor`` is a ``simpy.Resource`` of 20 threads, and every
  ConsumeRequest (one message: ``consumeMessageBatchMaxSize = 1``) is its own SimPy process;
* **send-back**: RECONSUME_LATER → ``CONSUMER_SEND_MSG_BACK``; the broker copies the stored
  original to ``%RETRY%cg`` at delay level ``3 + reconsumeTimes`` (so it is parked in the schedule
  topic), or to ``%DLQ%cg`` once reconsumeTimes reaches 16;
* **ScheduleMessageService**: one process per delay level on a 100 ms grid whose phase is broker
  start + 1000 ms; a level with nothing parked sleeps on an event until the broker parks one.

Network and listener take 0 virtual ms, as in ``engine_storm``. The run goes to the same horizon as
the engine (the expected last DLQ write + 1 h) because the pull loops and timers never finish.
Totals come from the listener (consumed, deliveries) and from broker state (the DLQ consume queue
and the store timestamps of its CommitLog entries), as in ``engine_storm``.

**Time stamps.** The counts always equal the oracle's. So do the time stamps, last DLQ write
17,140,000 ms included, while no flow control trips: up to 1,000 messages per queue and about
1,400 retries due per schedule tick (n = 4,000 is clear). Beyond that, flow control (the engine's
thresholds) pushes some deliveries back by 50 ms, which moves each of their retry chains one
100 ms tick later. How many messages a queue takes in within one virtual millisecond before the
threshold trips depends on how pulls and consume threads interleave inside that millisecond, and
there a SimPy model and the engine differ in two ways:

* ``simpy.Resource`` gives a released thread to the next waiting request only when the Release
  event is processed, one more pass through the same-time event queue; the engine's ThreadPool
  schedules the next task at once. Within t = 0 the SimPy model runs 20 ConsumeRequests per 5
  pulls of 32 messages, the engine 20 per 4;
* a held pull is answered by resuming its process after the put, so it reads up to 32 messages;
  the engine answers it synchronously inside ``put_message`` with the one message just stored.

So a business queue takes in 1,168 messages per 50 ms flow-control cycle (engine: 1,208), and the
retry queue trips at about 1,470 messages delivered in one tick (engine: about 2,690; the engine's
retry queue is flow-controlled too, e.g. 210 deliveries at 10,150 ms for n = 20,000). Last DLQ
write: 17,140,200 ms at n = 10,000 (engine 17,140,100), 17,140,300 at 20,000 (engine 17,140,200)
and 17,141,200 at 100,000 (engine 17,141,000). A scratch run that hands the thread over at once
put all but 8 of the 30,000 deliveries of n = 10,000 at the engine's millisecond.

What is left out, because nothing in the storm exercises it: rebalance (one consumer owns every
queue from the start), heartbeats and route polling, the trace, fault injection and the send-back
fallback through the client's inner producer, ``cleanExpiredMsg`` and CommitLog retention.

Run the self-check with ``python -m bench.baseline_simpy_pipeline`` from the repository root.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from enum import Enum

import simpy
from sortedcontainers import SortedDict

from bench.workload import (
    DEFAULT_N_MESSAGES,
    DELAY_LEVELS_MS,
    FIRST_RETRY_LEVEL,
    MAX_RECONSUME_TIMES,
    N_QUEUES,
    Totals,
    expected,
    measured_totals,
    outcome_plan,
    run_horizon_ms,
)

__all__ = ["PipelineRun", "run_pipeline", "run_simpy_pipeline"]

TOPIC = "StormTopic"
GROUP = "cg"
RETRY_TOPIC = "%RETRY%" + GROUP
DLQ_TOPIC = "%DLQ%" + GROUP
SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"

# MessageConst property names.
PROPERTY_DELAY = "DELAY"
PROPERTY_REAL_TOPIC = "REAL_TOPIC"
PROPERTY_REAL_QID = "REAL_QID"
PROPERTY_RETRY_TOPIC = "RETRY_TOPIC"
PROPERTY_ORIGIN_MESSAGE_ID = "ORIGIN_MESSAGE_ID"
PROPERTY_UNIQ_KEY = "UNIQ_KEY"
PROPERTY_CONSUME_START_TIME = "CONSUME_START_TIME"

# Broker side (4.9.7 defaults, the same constants as rmqlab/broker/broker_controller.py and
# rmqlab/store/schedule_message_service.py).
MAX_TRANSFER_COUNT = 32
BROKER_SUSPEND_MAX_TIME_MILLIS = 15_000
FIRST_DELAY_TIME = 1000
DELAY_FOR_A_WHILE = 100
RETRY_QUEUE_NUMS = 1

# Client side (DefaultMQPushConsumer defaults, as in rmqlab/client/consumer/default_mq_push_consumer.py).
PULL_BATCH_SIZE = 32
PULL_THRESHOLD_FOR_QUEUE = 1000
CONSUME_CONCURRENTLY_MAX_SPAN = 2000
PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL = 50
CONSUME_THREAD_MIN = 20
CONSUME_MESSAGE_BATCH_MAX_SIZE = 1
PERSIST_FIRST_DELAY_MS = 10_000
PERSIST_CONSUMER_OFFSET_INTERVAL_MS = 5_000

INTEGER_MAX_VALUE = 2**31 - 1


class ConsumeStatus(Enum):
    CONSUME_SUCCESS = "CONSUME_SUCCESS"
    RECONSUME_LATER = "RECONSUME_LATER"


class PullStatus(Enum):
    FOUND = "FOUND"
    NO_NEW_MSG = "NO_NEW_MSG"
    NO_MATCHED_MSG = "NO_MATCHED_MSG"


# ---------------------------------------------------------------------------------------- messages


@dataclass(slots=True)
class MessageExt:
    """A stored message (CommitLog entry) or the copy a pull hands to the client."""

    topic: str
    queue_id: int
    msg_id: str
    body: str
    tags: str | None
    keys: str | None
    properties: dict[str, str]
    reconsume_times: int = 0
    queue_offset: int = -1
    commit_log_offset: int = -1
    born_timestamp: int = 0
    store_timestamp: int = 0

    def copy(self) -> MessageExt:
        """A shallow copy with its own property map; the body is shared, never duplicated."""
        return MessageExt(
            self.topic,
            self.queue_id,
            self.msg_id,
            self.body,
            self.tags,
            self.keys,
            dict(self.properties),
            self.reconsume_times,
            self.queue_offset,
            self.commit_log_offset,
            self.born_timestamp,
            self.store_timestamp,
        )


MessageQueue = tuple[str, int]
"""(topic, queue id); there is one broker, so its name is left out."""

ConsumeQueueEntry = tuple[int, int]
"""(CommitLog offset, deliver timestamp); the timestamp is only set in the schedule topic."""


@dataclass(slots=True)
class PullResult:
    status: PullStatus
    next_begin_offset: int
    msgs: list[MessageExt] = field(default_factory=list)


# ---------------------------------------------------------------------------------------- broker


class Broker:
    """One broker: CommitLog, ConsumeQueues, consumer offsets, held pulls and the schedule service."""

    def __init__(self, env: simpy.Environment) -> None:
        self.env = env
        self.commit_log: list[MessageExt] = []
        self.consume_queues: dict[MessageQueue, list[ConsumeQueueEntry]] = {}
        self.topic_queue_nums: dict[str, int] = {}
        self.consumer_offsets: dict[tuple[str, str, int], int] = {}
        self.held_pulls: dict[MessageQueue, list[simpy.Event]] = {}
        self.schedule_service = ScheduleMessageService(env, self)

    def create_topic(self, topic: str, queue_nums: int) -> None:
        self.topic_queue_nums.setdefault(topic, queue_nums)

    # -------------------------------------------------------------- storage
    def put_message(self, msg: MessageExt) -> None:
        """``CommitLog.asyncPutMessage`` + dispatch: delay rewrite, append, index, wake held pulls."""
        now = int(self.env.now)
        properties = msg.properties
        level = int(properties.get(PROPERTY_DELAY, "0"))
        deliver_ts = 0
        if level > 0 and msg.topic != SCHEDULE_TOPIC:
            level = min(level, len(DELAY_LEVELS_MS))  # a level above the table is stored as the max
            properties[PROPERTY_DELAY] = str(level)
            properties[PROPERTY_REAL_TOPIC] = msg.topic
            properties[PROPERTY_REAL_QID] = str(msg.queue_id)
            msg.topic = SCHEDULE_TOPIC
            msg.queue_id = level - 1
            deliver_ts = now + DELAY_LEVELS_MS[level - 1]
        msg.store_timestamp = now
        msg.commit_log_offset = len(self.commit_log)
        self.commit_log.append(msg)
        key = (msg.topic, msg.queue_id)
        queue = self.consume_queues.get(key)
        if queue is None:
            queue = self.consume_queues[key] = []
        msg.queue_offset = len(queue)
        queue.append((msg.commit_log_offset, deliver_ts))
        if deliver_ts:
            self.schedule_service.on_enqueue(level)
            return
        # PullRequestHoldService.notifyMessageArriving: answer the pulls held on this queue.
        held = self.held_pulls.pop(key, None)
        if held:
            for arrived in held:
                arrived.succeed()

    def send_message(self, msg: MessageExt) -> None:
        """``SEND_MESSAGE``: check the topic and queue, then store."""
        queue_nums = self.topic_queue_nums.get(msg.topic)
        if queue_nums is None or not 0 <= msg.queue_id < queue_nums:
            raise ValueError(f"no queue {msg.queue_id} in topic {msg.topic!r}")
        self.put_message(msg)

    # -------------------------------------------------------------- CONSUMER_SEND_MSG_BACK
    def consumer_send_msg_back(
        self, group: str, commit_log_offset: int, delay_level: int, origin_msg_id: str, max_reconsume_times: int
    ) -> bool:
        """Re-store the original from the CommitLog as a retry message (delayed) or as a dead letter."""
        retry_topic = "%RETRY%" + group
        self.create_topic(retry_topic, RETRY_QUEUE_NUMS)
        original = self.commit_log[commit_log_offset]
        properties = dict(original.properties)
        properties.setdefault(PROPERTY_RETRY_TOPIC, original.topic)
        rt = original.reconsume_times
        if rt >= max_reconsume_times or delay_level < 0:
            topic = "%DLQ%" + group
            self.create_topic(topic, 1)
            properties.pop(PROPERTY_DELAY, None)
        else:
            topic = retry_topic
            properties[PROPERTY_DELAY] = str(FIRST_RETRY_LEVEL + rt if delay_level == 0 else delay_level)
        properties.setdefault(PROPERTY_ORIGIN_MESSAGE_ID, origin_msg_id)
        inner = MessageExt(
            topic,
            0,  # retry and DLQ topics have one queue
            original.msg_id,
            original.body,
            original.tags,
            original.keys,
            properties,
            rt + 1,
            born_timestamp=original.born_timestamp,
        )
        self.put_message(inner)
        return True

    # -------------------------------------------------------------- PULL_MESSAGE (long polling)
    def pull_message(
        self,
        group: str,
        mq: MessageQueue,
        offset: int,
        tags: frozenset[str] | None,
        commit_offset: int | None,
        max_nums: int,
    ) -> Generator[simpy.Event, object, PullResult]:
        """``PullMessageProcessor``: answer now, or hold the request until a message arrives (15 s max)."""
        if commit_offset is not None:
            self.commit_offset(group, mq, commit_offset)
        result = self._read(mq, offset, tags, max_nums)
        if result.status is PullStatus.NO_NEW_MSG:
            arrived = self.env.event()
            self.held_pulls.setdefault(mq, []).append(arrived)
            yield arrived | self.env.timeout(BROKER_SUSPEND_MAX_TIME_MILLIS)
            if not arrived.triggered:  # the hold timed out: forget the request
                self.held_pulls[mq].remove(arrived)
            # PullRequestHoldService answers a held pull with up to MAX_TRANSFER_COUNT messages.
            result = self._read(mq, offset, tags, MAX_TRANSFER_COUNT)
        return result

    def _read(self, mq: MessageQueue, offset: int, tags: frozenset[str] | None, max_nums: int) -> PullResult:
        queue = self.consume_queues.get(mq)
        if queue is None or offset >= len(queue):
            return PullResult(PullStatus.NO_NEW_MSG, offset if queue else 0)
        msgs = []
        end = min(len(queue), offset + max_nums)
        for position in range(offset, end):
            stored = self.commit_log[queue[position][0]]
            if tags is None or stored.tags in tags:
                msgs.append(stored.copy())
        return PullResult(PullStatus.FOUND if msgs else PullStatus.NO_MATCHED_MSG, end, msgs)

    # -------------------------------------------------------------- offsets
    def commit_offset(self, group: str, mq: MessageQueue, offset: int) -> None:
        """``ConsumerOffsetManager.commitOffset``."""
        self.consumer_offsets[(group, mq[0], mq[1])] = offset


class ScheduleMessageService:
    """One process per delay level that moves due messages from ``SCHEDULE_TOPIC_XXXX`` to their topic.

    Like the engine, a level's process does not poll every 100 ms: it sleeps until the 100 ms tick at
    which the head of its queue is due, or on an event while nothing is parked at that level.
    """

    def __init__(self, env: simpy.Environment, broker: Broker) -> None:
        self.env = env
        self.broker = broker
        self.offset_table: dict[int, int] = {}
        self.phase = 0
        self._idle: dict[int, simpy.Event] = {}

    def start(self) -> None:
        self.phase = int(self.env.now) + FIRST_DELAY_TIME
        for level in range(1, len(DELAY_LEVELS_MS) + 1):
            self.env.process(self.deliver_level(level))

    def on_enqueue(self, level: int) -> None:
        """A message was parked at ``level``: wake that level's process if it is idle."""
        idle = self._idle.pop(level, None)
        if idle is not None:
            idle.succeed()

    def next_tick(self, not_before: int) -> int:
        """First tick at or after ``not_before`` on the 100 ms grid that starts at the phase."""
        if not_before <= self.phase:
            return self.phase
        return self.phase - ((self.phase - not_before) // DELAY_FOR_A_WHILE) * DELAY_FOR_A_WHILE

    def deliver_level(self, level: int) -> Generator[simpy.Event, object, None]:
        """``DeliverDelayedMessageTimerTask`` for one level."""
        env, broker = self.env, self.broker
        key = (SCHEDULE_TOPIC, level - 1)
        offset = 0
        while True:
            queue = broker.consume_queues.get(key)
            if queue is None or offset >= len(queue):
                self._idle[level] = idle = env.event()
                yield idle
                continue
            tick = self.next_tick(max(queue[offset][1], int(env.now) + 1))
            yield env.timeout(tick - env.now)
            now = int(env.now)
            while offset < len(queue) and queue[offset][1] <= now:
                self._deliver(broker.commit_log[queue[offset][0]])
                offset += 1
                self.offset_table[level] = offset

    def _deliver(self, stored: MessageExt) -> None:
        """``messageTimeup``: a copy goes back to its real topic and queue, reconsume_times kept."""
        msg = stored.copy()
        msg.topic = msg.properties.pop(PROPERTY_REAL_TOPIC)
        msg.queue_id = int(msg.properties.pop(PROPERTY_REAL_QID))
        msg.properties.pop(PROPERTY_DELAY, None)
        self.broker.put_message(msg)


# ---------------------------------------------------------------------------------------- consumer


class ProcessQueue:
    """Pulled-but-not-finished messages of one queue, keyed by queue offset (Java's TreeMap)."""

    __slots__ = ("msg_count", "msg_tree_map", "queue_offset_max")

    def __init__(self) -> None:
        self.msg_tree_map = SortedDict()
        self.msg_count = 0
        self.queue_offset_max = 0

    def put_message(self, msgs: list[MessageExt]) -> None:
        tree = self.msg_tree_map
        for msg in msgs:
            if msg.queue_offset not in tree:
                tree[msg.queue_offset] = msg
                self.msg_count += 1
                self.queue_offset_max = msg.queue_offset

    def remove_message(self, msgs: list[MessageExt]) -> int:
        """Remove finished messages; return the offset to commit (−1 if the map was already empty)."""
        tree = self.msg_tree_map
        if not tree:
            return -1
        result = self.queue_offset_max + 1
        for msg in msgs:
            if tree.pop(msg.queue_offset, None) is not None:
                self.msg_count -= 1
        if tree:
            result = tree.peekitem(0)[0]
        return result

    def max_span(self) -> int:
        tree = self.msg_tree_map
        return tree.peekitem(-1)[0] - tree.peekitem(0)[0] if tree else 0


class ConsumeContext:
    """``ConsumeConcurrentlyContext``: the listener may set ``ack_index`` or the next delay level."""

    __slots__ = ("ack_index", "delay_level_when_next_consume", "message_queue")

    def __init__(self, message_queue: MessageQueue) -> None:
        self.message_queue = message_queue
        self.ack_index = INTEGER_MAX_VALUE
        self.delay_level_when_next_consume = 0


Listener = Callable[[list[MessageExt], ConsumeContext], ConsumeStatus]


class PushConsumer:
    """A concurrent push consumer of one group in CLUSTERING mode, subscribed to its retry topic too."""

    def __init__(self, env: simpy.Environment, broker: Broker, group: str, listener: Listener) -> None:
        self.env = env
        self.broker = broker
        self.group = group
        self.listener = listener
        self.subscriptions: dict[str, frozenset[str] | None] = {}
        self.process_queue_table: dict[MessageQueue, ProcessQueue] = {}
        self.offset_table: dict[MessageQueue, int] = {}
        self.consume_executor = simpy.Resource(env, capacity=CONSUME_THREAD_MIN)
        self.max_reconsume_times = MAX_RECONSUME_TIMES

    def subscribe(self, topic: str, tags: frozenset[str] | None = None) -> None:
        self.subscriptions[topic] = tags

    def start(self) -> None:
        """Own every queue of every subscribed topic (one consumer) and start one pull loop per queue."""
        self.subscriptions.setdefault("%RETRY%" + self.group, None)
        self.broker.create_topic("%RETRY%" + self.group, RETRY_QUEUE_NUMS)
        for topic in sorted(self.subscriptions):
            for queue_id in range(self.broker.topic_queue_nums[topic]):
                mq = (topic, queue_id)
                pq = self.process_queue_table[mq] = ProcessQueue()
                # CONSUME_FROM_LAST_OFFSET on an empty queue, and 0 for the retry topic: both start at 0.
                self.env.process(self.pull_loop(mq, pq, next_offset=0))
        self.env.process(self.persist_offsets())

    # -------------------------------------------------------------- PullMessageService
    def pull_loop(self, mq: MessageQueue, pq: ProcessQueue, next_offset: int) -> Generator[simpy.Event, object, None]:
        """``DefaultMQPushConsumerImpl.pullMessage`` and its ``PullCallback``, forever, for one queue."""
        env = self.env
        tags = self.subscriptions[mq[0]]
        while True:
            if pq.msg_count > PULL_THRESHOLD_FOR_QUEUE or pq.max_span() > CONSUME_CONCURRENTLY_MAX_SPAN:
                yield env.timeout(PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL)  # flow control
                continue
            commit = self.offset_table.get(mq, -1)
            result = yield from self.broker.pull_message(
                self.group, mq, next_offset, tags, commit if commit > 0 else None, PULL_BATCH_SIZE
            )
            next_offset = result.next_begin_offset
            if result.status is PullStatus.FOUND:
                pq.put_message(result.msgs)
                self.submit_consume_request(result.msgs, pq, mq)
            elif pq.msg_count == 0:
                self.update_offset(mq, next_offset)
            yield env.timeout(0)  # executePullRequestImmediately: back of the queue at the same ms

    def persist_offsets(self) -> Generator[simpy.Event, object, None]:
        """``persistConsumerOffset``: every 5 s (first after 10 s) the offsets go to the broker."""
        yield self.env.timeout(PERSIST_FIRST_DELAY_MS)
        while True:
            for mq in sorted(self.offset_table):
                self.broker.commit_offset(self.group, mq, self.offset_table[mq])
            yield self.env.timeout(PERSIST_CONSUMER_OFFSET_INTERVAL_MS)

    def update_offset(self, mq: MessageQueue, offset: int) -> None:
        """``RemoteBrokerOffsetStore.updateOffset(increaseOnly=true)``."""
        old = self.offset_table.get(mq)
        if old is None or offset > old:
            self.offset_table[mq] = offset

    # -------------------------------------------------------------- ConsumeMessageConcurrentlyService
    def submit_consume_request(self, msgs: list[MessageExt], pq: ProcessQueue, mq: MessageQueue) -> None:
        for i in range(0, len(msgs), CONSUME_MESSAGE_BATCH_MAX_SIZE):
            self.env.process(self.consume_request(msgs[i : i + CONSUME_MESSAGE_BATCH_MAX_SIZE], pq, mq))

    def consume_request(
        self, msgs: list[MessageExt], pq: ProcessQueue, mq: MessageQueue
    ) -> Generator[simpy.Event, object, None]:
        """``ConsumeRequest.run`` + ``processConsumeResult``, on one of the 20 consume threads."""
        with self.consume_executor.request() as thread:
            yield thread
            context = ConsumeContext(mq)
            started = str(int(self.env.now))
            for msg in msgs:
                # resetRetryAndNamespace: a retry message is shown under its original topic.
                if msg.topic == RETRY_TOPIC and PROPERTY_RETRY_TOPIC in msg.properties:
                    msg.topic = msg.properties[PROPERTY_RETRY_TOPIC]
                msg.properties[PROPERTY_CONSUME_START_TIME] = started
            status = self.listener(list(msgs), context)
            # CONSUME_SUCCESS acks up to ack_index (the whole batch by default); RECONSUME_LATER acks nothing.
            success = status is ConsumeStatus.CONSUME_SUCCESS
            ack_index = min(context.ack_index, len(msgs) - 1) if success else -1
            for msg in msgs[ack_index + 1 :]:
                self.send_message_back(msg, context.delay_level_when_next_consume)
            offset = pq.remove_message(msgs)
            if offset >= 0:
                self.update_offset(mq, offset)

    def send_message_back(self, msg: MessageExt, delay_level: int) -> bool:
        """``CONSUMER_SEND_MSG_BACK`` to the broker the message came from (0 ms network, always answered)."""
        return self.broker.consumer_send_msg_back(
            self.group, msg.commit_log_offset, delay_level, msg.msg_id, self.max_reconsume_times
        )


# ---------------------------------------------------------------------------------------- the storm


def body_for(i: int, size: int = 10) -> str:
    """The engine storm's bodies: distinct strings of ``size`` characters."""
    return str(i).zfill(size)


def producer(env: simpy.Environment, broker: Broker, n_messages: int) -> Generator[simpy.Event, object, None]:
    """The application's loop of SYNC sends at t=0 (0 ms network): message ``i`` goes to queue ``i % 4``."""
    yield env.timeout(0)  # like lab.at(0, ...): runs after the consumer's first pulls are held
    for i in range(n_messages):
        msg_id = f"M{i + 1:04d}"
        msg = MessageExt(TOPIC, i % N_QUEUES, msg_id, body_for(i), "TagA", str(i), {PROPERTY_UNIQ_KEY: msg_id})
        msg.born_timestamp = int(env.now)
        broker.send_message(msg)


@dataclass(slots=True)
class PipelineRun:
    """One run: the totals, plus the time stamps that show where flow control moved deliveries."""

    totals: Totals
    last_first_poison_ms: int | None
    """Latest virtual time at which a poison message was delivered the first time (as in engine_storm)."""
    dlq_times: dict[int, int]
    """Store timestamp → number of DLQ writes at that time."""
    delivery_times: dict[int, dict[int, int]] | None
    """Only with ``record_deliveries``: reconsumeTimes → {virtual ms → deliveries at that ms}."""
    broker: Broker = field(repr=False)
    """The broker after the run: CommitLog, ConsumeQueues, persisted offsets (for the checks)."""
    consumer: PushConsumer = field(repr=False)


def run_pipeline(
    n_messages: int = DEFAULT_N_MESSAGES, *, record_deliveries: bool = False, pause_gc: bool = False
) -> PipelineRun:
    """Build the broker, consumer and producer, run to the engine's horizon, read the totals back.

    ``pause_gc`` switches the cyclic garbage collector off for ``env.run`` exactly as the engine's
    ``Scheduler.run`` does, so the two can be compared without the collector's share (a third of this
    model's time at 100k messages) on one side only. Off by default: a SimPy user leaves it on.
    """
    env = simpy.Environment()
    broker = Broker(env)
    broker.create_topic(TOPIC, N_QUEUES)
    broker.schedule_service.start()
    plans = [outcome_plan(i) for i in range(n_messages)]
    counters = {"calls": 0, "succeeded": 0, "last_first_poison_ms": -1}
    delivery_times: dict[int, dict[int, int]] | None = {} if record_deliveries else None

    def listener(msgs: list[MessageExt], _context: ConsumeContext) -> ConsumeStatus:
        """The workload's business logic: message ``int(keys)`` fails as ``outcome_plan`` says."""
        counters["calls"] += 1
        msg = msgs[0]  # batch size 1
        if delivery_times is not None:
            at = delivery_times.setdefault(msg.reconsume_times, {})
            at[int(env.now)] = at.get(int(env.now), 0) + 1
        plan = plans[int(msg.keys)]  # type: ignore[arg-type]
        if plan is None:
            if msg.reconsume_times == 0:
                counters["last_first_poison_ms"] = int(env.now)
            return ConsumeStatus.RECONSUME_LATER
        if msg.reconsume_times >= plan:
            counters["succeeded"] += 1
            return ConsumeStatus.CONSUME_SUCCESS
        return ConsumeStatus.RECONSUME_LATER

    consumer = PushConsumer(env, broker, GROUP, listener)
    consumer.subscribe(TOPIC)
    consumer.start()
    env.process(producer(env, broker, n_messages))
    # The pull loops and timers never end, so run to the engine storm's horizon.
    gc_was_enabled = gc.isenabled()
    if pause_gc:
        gc.disable()
    try:
        env.run(until=run_horizon_ms(n_messages))
    finally:
        if gc_was_enabled:
            gc.enable()

    dlq_queue = broker.consume_queues.get((DLQ_TOPIC, 0), [])
    times = [broker.commit_log[commit_log_offset].store_timestamp for commit_log_offset, _ in dlq_queue]
    dlq_times: dict[int, int] = {}
    for stored_at in times:
        dlq_times[stored_at] = dlq_times.get(stored_at, 0) + 1
    return PipelineRun(
        totals=measured_totals(counters["succeeded"], counters["calls"], times),
        last_first_poison_ms=None if counters["last_first_poison_ms"] < 0 else counters["last_first_poison_ms"],
        dlq_times=dict(sorted(dlq_times.items())),
        delivery_times=(
            None
            if delivery_times is None
            else {rt: dict(sorted(at.items())) for rt, at in sorted(delivery_times.items())}
        ),
        broker=broker,
        consumer=consumer,
    )


def run_simpy_pipeline(n_messages: int = DEFAULT_N_MESSAGES, *, pause_gc: bool = False) -> Totals:
    """Simulate the workload through the modelled pipeline and return its totals."""
    return run_pipeline(n_messages, pause_gc=pause_gc).totals


if __name__ == "__main__":
    # 4,000 messages: 1,000 per queue and 1,200 retries per schedule tick, so flow control never
    # trips and every time stamp is the oracle's, including the last DLQ write at 17,140,000 ms.
    N_CLEAR = 4_000
    totals = run_simpy_pipeline(N_CLEAR)
    assert totals == expected(N_CLEAR), (totals, expected(N_CLEAR))
    print(f"SimPy pipeline baseline, n={N_CLEAR:,}: {totals} (no flow control: the oracle, exactly)")
    N = 10_000
    started = time.perf_counter()
    run = run_pipeline(N)
    wall_s = time.perf_counter() - started
    want = expected(N)
    counts = ("consumed", "dlq", "deliveries")
    assert all(run.totals[k] == want[k] for k in counts), (run.totals, want)  # type: ignore[literal-required]
    print(f"SimPy pipeline baseline, n={N:,}: {run.totals} in {wall_s:.3f} s wall")
    print(f"  flow control: last first delivery of a poison message at {run.last_first_poison_ms} ms;")
    print(f"  DLQ writes by time: {run.dlq_times}")
