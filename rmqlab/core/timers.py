"""What a scheduled entry stands for: :class:`TimerKind` (the RocketMQ 4.9.7 timer, service or wait behind it) and
:class:`TimerLabel` (that kind, its owner and what it is about). Labels change nothing in how the loop runs; they
are what ``lab.snapshot().timers`` lists. Imported by :mod:`rmqlab.core.scheduler`, which re-exports them.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/factory/MQClientInstance.java
    (MQClientInstance.startScheduledTask)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..common.message_queue import MessageQueue

__all__ = ["PERIODIC_TIMER_KINDS", "TimerKind", "TimerLabel"]


class TimerKind(StrEnum):
    """What a scheduled entry stands for, named after the RocketMQ 4.9.7 timer, service or wait behind it."""

    # ---- the consumer's periodic services
    REBALANCE = "rebalance"
    """``RebalanceService``: ``waitForRunning(20000)`` before each ``doRebalance``; a wake-up (the consumer's start, the
    broker saying the group changed) ends the wait at once, and the next 20 s count from that rebalance's end."""
    PERSIST_OFFSET = "persist_offset"
    """``persistConsumerOffset``: in-memory offsets to the broker / local file every 5 s (first after 10 s)."""
    HEARTBEAT = "heartbeat"
    """``sendHeartbeatToAllBrokerWithLock`` every 30 s."""
    ROUTE_POLL = "route_poll"
    """``updateTopicRouteInfoFromNameServer`` every 30 s (consumers and producers; a producer's first after 10 ms)."""
    LOCK_RENEW = "lock_renew"
    """Orderly ``lockAll``: renew every broker queue lock every 20 s (first after 1 s)."""
    CLEAN_EXPIRED = "clean_expired"
    """``cleanExpiredMsg`` every ``consumeTimeout`` (15 min)."""
    # ---- the consumer's one-shot waits
    PULL = "pull"
    """``executePullRequestImmediately``: the next pull of a queue, now."""
    PULL_LATER = "pull_later"
    """``executePullRequestLater``: 1 s after a pull error or while an orderly queue is not locked, 50 ms under
    flow control."""
    CONSUME = "consume"
    """A ConsumeRequest handed to a free consume thread."""
    LISTENER = "listener"
    """A listener is running; the consume thread resumes when it returns (its virtual duration)."""
    LOCAL_RETRY = "local_retry"
    """``submitConsumeRequestLater``: send-back and fallback failed, consume the messages again locally in 5 s."""
    SUSPEND = "suspend"
    """Orderly ``submitConsumeRequestLater``: a suspended queue is consumed again after
    ``suspendCurrentQueueTimeMillis`` (1 s; 10 ms to continue, 3 s when relocking failed)."""
    CONSUME_YIELD = "consume_yield"
    """Orderly ``ConsumeRequest.run``: a request that has consumed one queue for more than
    ``MAX_TIME_CONSUME_CONTINUOUSLY`` (60 s) gives its thread back and resubmits itself 10 ms later
    (``submitConsumeRequestLater``), so the other queues get the thread: a yield, not a suspension."""
    TRY_LOCK_LATER = "try_lock_later"
    """Orderly ``tryLockLaterAndReconsume``: ask the broker lock again, then resubmit."""
    CONSUME_LOCK_WAIT = "consume_lock_wait"
    """``removeUnnecessaryMessageQueue``: the rebalance waits up to 1 s (``tryLock(1000 ms)``) for a removed orderly
    queue's consume lock, held while a listener runs."""
    UNLOCK_DELAYED = "unlock_delayed"
    """``removeUnnecessaryMessageQueue``: a queue that still had messages is unlocked 20 s after it was removed."""
    SHUTDOWN_AWAIT = "shutdown_await"
    """``ThreadUtils.shutdownGracefully``: a consumer's shutdown waits up to ``awaitTerminationMillisWhenShutdown`` for
    its consume pool to finish, and once more after dropping the tasks still queued."""
    OFFSET_FIXUP = "offset_fixup"
    """``OFFSET_ILLEGAL``: store the corrected offset and drop the ProcessQueue 10 s later."""
    # ---- the network
    RESPONSE = "response"
    """A broker response on its way back (``response_delay_ms``)."""
    REQUEST_TIMEOUT = "request_timeout"
    """The client gives up on a request 1 ms after its timeout."""
    # ---- the broker's services
    DELAY_LEVEL = "delay_level"
    """``ScheduleMessageService``: the next delivery of one delay level's queue (its head message's due tick)."""
    HOLD_CHECK = "hold_check"
    """``PullRequestHoldService``: every 5 s from the broker's start, one walk of every held pull, answering those
    whose queue has messages or whose 15 s are up (one per broker, however many pulls it holds)."""
    CHANNEL_SCAN = "channel_scan"
    """``scanNotActiveChannel`` every 10 s: consumers silent for 120 s leave the group."""
    RETENTION = "retention"
    """``CleanCommitLogService``: the 04:00 deletion window, every 10 s within it."""
    # ---- the lab
    ACTION = "action"
    """A ``lab.at(...)`` or scenario action: a send, a fault, a start/crash the student scheduled."""
    OTHER = "other"
    """An entry scheduled without a label (never by the engine itself)."""


PERIODIC_TIMER_KINDS = frozenset(
    {
        TimerKind.REBALANCE,
        TimerKind.PERSIST_OFFSET,
        TimerKind.HEARTBEAT,
        TimerKind.ROUTE_POLL,
        TimerKind.LOCK_RENEW,
        TimerKind.CLEAN_EXPIRED,
        TimerKind.CHANNEL_SCAN,
        TimerKind.HOLD_CHECK,
        TimerKind.RETENTION,
    }
)
"""Timers that re-arm themselves every time they fire: while one is pending, the heap never empties."""


@dataclass(slots=True)
class TimerLabel:
    """What one scheduled entry is, for views; never changed once made, so one label may be shared by many entries.

    A plain slotted dataclass: one is made per ConsumeRequest, and a named tuple's ``__new__`` or a frozen
    dataclass's ``__init__`` costs half again or four times as much to build.
    """

    kind: TimerKind
    owner: str
    """Who armed it, as the trace names actors: ``consumer:c1``, ``producer:pg``, ``broker-a``, ``schedule:broker-a``,
    ``lab``."""
    queue: MessageQueue | None = None
    msg_ids: tuple[str, ...] = ()
    level: int | None = None
    """The delay level (``DELAY_LEVEL`` timers)."""
    detail: str = ""
    """A short free-text note (the action's name, the client a response goes to)."""
