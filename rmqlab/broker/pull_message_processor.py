"""``PullMessageProcessor`` and ``PullRequestHoldService``: reading a queue, and long polling.

A pull that finds nothing new is held up to 15 s and answered as soon as a message arrives
(``notifyMessageArriving``).

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/PullMessageProcessor.java
    (PullMessageProcessor.processRequest, PullMessageProcessor.executeRequestWhenWakeup)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/longpolling/PullRequestHoldService.java
    (PullRequestHoldService.suspendPullRequest, PullRequestHoldService.notifyMessageArriving,
    PullRequestHoldService.checkHoldRequest)
Mirrors: store/src/main/java/org/apache/rocketmq/store/DefaultMessageStore.java
    (DefaultMessageStore.getMessage)
"""

from __future__ import annotations

from ..common.message import (
    MessageExt,
)
from ..common.message_queue import MessageQueue
from ..common.topic_config import PERM_READ
from ..core.scheduler import Scheduler, TimerKind, TimerLabel
from ..remoting.exceptions import MQBrokerException
from ..remoting.protocol import (
    PullMessageRequest,
    PullResult,
    PullStatus,
)
from ..remoting.remoting import HELD, Remoting
from ..remoting.response_code import ResponseCode
from ..store.default_message_store import DefaultMessageStore
from .consumer_offset_manager import ConsumerOffsetManager
from .pull_message_types import BROKER_SUSPEND_MAX_TIME_MILLIS, MAX_TRANSFER_COUNT, _HeldPull
from .topic_config_manager import TopicConfigManager

__all__ = [
    "PullMessageProcessor",
]

class PullMessageProcessor:
    """PULL_MESSAGE and the hold service of one broker: it reads the store, and holds what it cannot answer yet."""

    def __init__(
        self,
        broker_name: str,
        address: str,
        scheduler: Scheduler,
        remoting: Remoting,
        *,
        store: DefaultMessageStore,
        topics: TopicConfigManager,
        offsets: ConsumerOffsetManager,
    ) -> None:
        self.name = broker_name
        self.address = address
        """``getBrokerIP1()`` is its host part: NO_PERMISSION names it."""
        self.scheduler = scheduler
        self.remoting = remoting
        """Where a held pull is answered (``Remoting.reply``) or forgotten."""
        self.store = store
        self.topics = topics
        self.offsets = offsets
        self._held: dict[tuple[str, int], list[_HeldPull]] = {}
        """``PullRequestHoldService.pullRequestTable``: the held pulls of each (topic, queue id)."""


    # ------------------------------------------------------------------ pulls (long polling)
    def pull_message(
        self, request: PullMessageRequest, opaque: int | None
    ) -> PullResult | object:
        """``PullMessageProcessor``: answer now, or hold the request until messages arrive (15 s max).

        Returns the result when answering at once, :data:`~rmqlab.remoting.remoting.HELD` when the request is held: the
        answer then goes through ``Remoting.reply(opaque, …)``, or never if a connection reset drops it
        (``Remoting.forget``). A oneway request (``opaque`` ``None``) is never held.
        """
        mq, offset, tags = request.mq, request.queue_offset, request.tags
        forbidden = self._pull_forbidden(mq.topic)
        if forbidden is not None:
            return forbidden  # before the offset commit, as 4.9.7 returns before it
        if request.commit_offset is not None and request.commit_offset >= 0:
            self.offsets.commit_offset(
                request.consumer_group, mq.topic, mq.queue_id, request.commit_offset, request.client
            )
        result = self._read(mq, offset, tags, request.max_msg_nums)
        if result.status is PullStatus.NO_NEW_MSG and request.suspend and opaque is not None:
            held = _HeldPull(request.client, request.consumer_group, mq, offset, tags, opaque)
            held.timer = self.scheduler.schedule(
                BROKER_SUSPEND_MAX_TIME_MILLIS,
                self._hold_timeout,
                held,
                label=TimerLabel(TimerKind.HOLD_TIMEOUT, self.name, mq, detail=request.client),
            )
            self._held.setdefault((mq.topic, mq.queue_id), []).append(held)
            return HELD
        return result

    def _pull_forbidden(self, topic: str) -> MQBrokerException | None:
        """4.9.7 ``processRequest``: a broker, then a topic, without the read bit answers NO_PERMISSION, "the
        topic[T] pulling message is forbidden" (never "no new message": the client would pull again at once, at the
        same millisecond, forever). The same check runs when a held pull wakes up (``executeRequestWhenWakeup``
        calls ``processRequest`` again)."""
        if not self.topics.broker_permission & PERM_READ:  # updateBrokerConfig brokerPermission=2, checked first
            ip = self.address.rsplit(":", 1)[0]  # getBrokerIP1(): the host part, no port
            remark = f"the broker[{ip}] pulling message is forbidden"
            return MQBrokerException(self.name, ResponseCode.NO_PERMISSION, remark)
        config = self.topics.select_topic_config(topic)
        if config is not None and not config.readable:
            remark = f"the topic[{topic}] pulling message is forbidden"
            return MQBrokerException(self.name, ResponseCode.NO_PERMISSION, remark)
        return None

    def _read(self, mq: MessageQueue, offset: int, tags: frozenset[str] | None, max_nums: int) -> PullResult:
        queue = self.store.consume_queues.get((mq.topic, mq.queue_id))
        if queue is None:
            return PullResult(PullStatus.NO_NEW_MSG, 0, 0, 0)
        if offset < queue.min_offset or offset > queue.max_offset:
            nearest = queue.min_offset if offset < queue.min_offset else queue.max_offset
            return PullResult(PullStatus.OFFSET_ILLEGAL, nearest, queue.min_offset, queue.max_offset)
        if offset == queue.max_offset:
            return PullResult(PullStatus.NO_NEW_MSG, offset, queue.min_offset, queue.max_offset)
        msgs: list[MessageExt] = []
        end = min(queue.max_offset, offset + max_nums)  # the next begin offset: every entry up to it is read
        for entry in queue.entries[offset:end]:
            stored = self.store.commit_log.get(entry.commit_log_offset)
            if stored is None:
                continue
            if tags is not None and stored.tags not in tags:
                continue
            msgs.append(stored.copy())
        status = PullStatus.FOUND if msgs else PullStatus.NO_MATCHED_MSG
        return PullResult(status, end, queue.min_offset, queue.max_offset, msgs)

    def _hold_timeout(self, held: _HeldPull) -> None:
        held.timer = None
        waiting = self._held.get((held.mq.topic, held.mq.queue_id), [])
        if held in waiting:
            waiting.remove(held)
            forbidden = self._pull_forbidden(held.mq.topic)
            answer = forbidden or self._read(held.mq, held.offset, held.tags, MAX_TRANSFER_COUNT)
            self.remoting.reply(held.opaque, answer)

    def notify_message_arriving(self, topic: str, queue_id: int) -> None:
        """``PullRequestHoldService.notifyMessageArriving``: answer held pulls that now have messages."""
        waiting = self._held.get((topic, queue_id))
        if not waiting:
            return
        self._held[(topic, queue_id)] = []
        forbidden = self._pull_forbidden(topic)
        for held in waiting:
            result = forbidden or self._read(held.mq, held.offset, held.tags, MAX_TRANSFER_COUNT)
            if isinstance(result, PullResult) and result.status is PullStatus.NO_NEW_MSG:
                self._held[(topic, queue_id)].append(held)
                continue
            if held.timer is not None:
                held.timer.cancel()
                held.timer = None  # the timer's arguments name the held pull: no cycle left for the GC
            self.remoting.reply(held.opaque, result)

    def connection_reset(self, client: str) -> None:
        """A client's channel closed: pulls held for it can never be answered, so forget them.

        Nothing is sent to the client. In 4.9.7 it only notices through its response table: the pull's
        ``ResponseFuture`` expires in ``scanResponseTable`` 30 s + 1 s after it was sent
        (:meth:`Remoting.forget <rmqlab.remoting.remoting.Remoting.forget>`).
        """
        process = client.split("/", 1)[0]
        for key, waiting in self._held.items():
            keep = [h for h in waiting if h.client_id.removeprefix("consumer:") != process]
            for held in waiting:
                if held not in keep:
                    if held.timer is not None:
                        held.timer.cancel()
                    self.remoting.forget(held.opaque)
            self._held[key] = keep

    def drop_held_pulls(self) -> None:
        """The broker went down: every held pull loses its connection (its hold timer is cancelled)."""
        for waiting in self._held.values():
            for held in waiting:
                if held.timer is not None:
                    held.timer.cancel()
        self._held.clear()
