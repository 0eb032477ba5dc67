"""A push consumer as a view sees it: its ``ProcessQueue``s (the TreeMaps, the lock mirror), its in-memory
``OffsetStore``, its consume pool; and the pending timers of every client and broker.

Mirrors ``DefaultMQPushConsumerImpl``'s ``RebalanceImpl.processQueueTable`` and ``OffsetStore.offsetTable``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..client.consumer.process_queue import REBALANCE_LOCK_MAX_LIVE_TIME_MS
from ..common.message_queue import MessageQueue
from ..core.scheduler import Priority, TimerKind

__all__ = ["CLIENT_TRUST_MS", "ConsumerSnap", "ProcessQueueSnap", "RequestSnap", "TimerSnap"]


CLIENT_TRUST_MS = REBALANCE_LOCK_MAX_LIVE_TIME_MS
"""The client's trust window (30 s) a :class:`ProcessQueueSnap` counts down, for views."""


@dataclass(frozen=True, slots=True)
class ProcessQueueSnap:
    """A client ProcessQueue: the TreeMaps, the lock mirror, and what the next commit would be."""

    queue: str
    msg_tree_keys: tuple[int, ...]
    consuming_keys: tuple[int, ...]
    locked: bool
    lock_age_ms: int
    dropped: bool
    in_listener: bool
    """The ProcessQueue consume lock is held (orderly: a listener is mid-batch)."""
    local_lock_held: bool
    """The consumer's local ``MessageQueueLock`` for this queue is held (orderly)."""
    commit_offset: int | None
    """The offset the next ``remove_message``/``commit`` would store (None when nothing is in flight):
    the smallest ``msg_tree_map`` key, or, orderly, ``commit() = last consuming key + 1``."""
    client_id: str = ""
    """The consumer instance owning this ProcessQueue."""
    group: str = ""
    last_lock_ms: int = 0
    """``lastLockTimestamp``: the last successful broker lock or renewal as this client saw it."""
    trust_until_ms: int = 0
    """``last_lock_ms + 30000`` (``REBALANCE_LOCK_MAX_LIVE_TIME``): after it the client stops consuming."""
    lock_expired: bool = False
    """The client-side ``isLockExpired()`` (now − last_lock_ms > 30000), whatever the broker thinks."""
    last_pull_ms: int = 0
    """``lastPullTimestamp``: when the pull loop last ran for this queue."""
    last_consume_ms: int = 0
    """``lastConsumeTimestamp``."""
    msg_count: int = 0
    """``msgCount``: messages held (both maps)."""
    memory_offset: int | None = None
    """The client's in-memory committed offset for this queue (``offsetTable``), not yet persisted maybe."""
    broker_offset: int | None = None
    """The persisted offset: the broker's ``consumerOffset`` (CLUSTERING) or the local file (BROADCASTING)."""
    msg_tree_ids: tuple[str, ...] = ()
    """The message ids of ``msg_tree_keys``, in the same order."""
    consuming_ids: tuple[str, ...] = ()
    """The message ids of ``consuming_keys``, in the same order."""
    msg_size: int = 0
    """``msgSize``: body bytes held (both maps), what ``pullThresholdSizeForQueue`` (MiB) is checked against."""

    @property
    def mq(self) -> MessageQueue:
        """The queue as the engine keys it."""
        return MessageQueue.parse(self.queue)


@dataclass(frozen=True, slots=True)
class ConsumerSnap:
    """A push consumer instance and its ProcessQueues and in-memory offset store."""

    client_id: str
    group: str
    running: bool
    orderly: bool
    message_model: str
    subscriptions: tuple[str, ...]
    process_queues: tuple[ProcessQueueSnap, ...]
    offset_store: tuple[tuple[str, int], ...]
    crashed: bool = False
    """Stopped by a crash (nothing persisted, broker locks left to expire), not a clean shutdown."""
    assigned: tuple[MessageQueue, ...] = ()
    """Queues this instance owns now (ProcessQueues not dropped), sorted; empty unless running."""
    busy_threads: int = 0
    """Consume threads running a ConsumeRequest now."""
    waiting_requests: int = 0
    """ConsumeRequests queued for a free consume thread."""
    local_offsets: tuple[tuple[MessageQueue, int], ...] = ()
    """BROADCASTING: this instance's offset file (``~/.rocketmq_offsets``), what a restart resumes from; sorted."""

    shutting_down: bool = False
    """``shutdown`` was called and has not finished: the consume service stopped taking requests, the pool's await,
    ``unlockAllMQ`` and the last persist are still to come."""
    begin_times: tuple[tuple[MessageQueue, int], ...] = ()
    """Orderly: each queue whose ``ConsumeRequest`` is in its consume loop now, with the loop's ``beginTime`` (it yields
    the thread after ``MAX_TIME_CONSUME_CONTINUOUSLY``); sorted."""

    @property
    def actor(self) -> str:
        """How the trace names this instance (``consumer:<client id>``)."""
        return f"consumer:{self.client_id}"

    def process_queue(self, mq: MessageQueue | str) -> ProcessQueueSnap:
        """This instance's ProcessQueue for ``mq`` (KeyError names the ones it has)."""
        name = str(mq)
        for pq in self.process_queues:
            if pq.queue == name:
                return pq
        raise KeyError(f"{name!r}; {self.client_id} has {[pq.queue for pq in self.process_queues]}")


@dataclass(frozen=True, slots=True)
class TimerSnap:
    """One pending scheduler entry a student could see ticking: when it fires, what it is, whose it is."""

    due_ms: int
    remaining_ms: int
    """``due_ms − now``."""
    kind: TimerKind
    owner: str
    """The actor that armed it: ``consumer:c1``, ``producer:pg``, ``broker-a``, ``schedule:broker-a``, ``lab``."""
    queue: MessageQueue | None = None
    msg_ids: tuple[str, ...] = ()
    level: int | None = None
    detail: str = ""
    priority: Priority = Priority.NORMAL
    seq: int = 0
    """The scheduler's sequence number: unique, stable across equal runs, the tie-break at equal times; 0 for a
    task that waits its turn on a client's scheduled thread (the thread itself waits for the first one due)."""


@dataclass(frozen=True, slots=True)
class RequestSnap:
    """A request sent and not answered yet: an entry of the client's ``responseTable`` (``ResponseFuture``)."""

    client: str
    """The client id that sent it (an inner producer's is ``<client id>/…``)."""
    broker: str
    code: str
    """Its ``RequestCode`` name (``UNLOCK_BATCH_MQ``, ``PULL_MESSAGE`` …)."""
    begin_ms: int
    timeout_ms: int
    gives_up_ms: int | None = None
    """When the client stops waiting (its timeout timer, or ``scanResponseTable``'s expiry), None when the answer
    will come first."""


@dataclass(frozen=True, slots=True)
class FaultItemSnap:
    """A broker a producer's ``MQFaultStrategy`` keeps out of its queue choice: a ``FaultItem`` of its
    ``LatencyFaultToleranceImpl`` whose ``startTimestamp`` is still ahead (``isAvailable`` is false until then)."""

    producer: str
    """The producer's name (``pg``)."""
    broker: str
    latency_ms: int
    """``currentLatency``: the last attempt's latency (30 000 for a failed one)."""
    until_ms: int
    """``startTimestamp``: the end of the attempt + ``notAvailableDuration`` for its latency."""
