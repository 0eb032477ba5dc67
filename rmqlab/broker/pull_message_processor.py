"""``PullMessageProcessor``: reading a queue for a PULL_MESSAGE, or suspending the request (long polling).

A pull that finds nothing new is handed to the broker's
:class:`~rmqlab.broker.pull_request_hold_service.PullRequestHoldService`, which wakes it when a message arrives or
at its first 5 s check after the 15 s the client allowed; the woken request is processed again as new, without
being held a second time (``executeRequestWhenWakeup`` → ``processRequest(channel, request, false)``).

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/PullMessageProcessor.java
    (PullMessageProcessor.processRequest, PullMessageProcessor.executeRequestWhenWakeup)
Mirrors: store/src/main/java/org/apache/rocketmq/store/DefaultMessageStore.java
    (DefaultMessageStore.getMessage)
"""

from __future__ import annotations

from ..common.message import (
    MessageExt,
)
from ..common.message_queue import MessageQueue
from ..common.topic_config import PERM_READ
from ..core.scheduler import Scheduler
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
from .pull_message_types import BROKER_SUSPEND_MAX_TIME_MILLIS, PullRequest
from .pull_request_hold_service import PullRequestHoldService
from .topic_config_manager import TopicConfigManager

__all__ = [
    "PullMessageProcessor",
]

class PullMessageProcessor:
    """PULL_MESSAGE on one broker: it reads the store, and suspends what it cannot answer yet in the broker's
    :attr:`pull_request_hold_service`."""

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
        """Where a woken pull is answered (``Remoting.reply``)."""
        self.store = store
        self.topics = topics
        self.offsets = offsets
        self.pull_request_hold_service = PullRequestHoldService(
            broker_name,
            scheduler,
            remoting,
            store=store,
            execute_request_when_wakeup=self.execute_request_when_wakeup,
        )
        """``BrokerController.getPullRequestHoldService()``: made here, as it and this processor call each other;
        the broker starts and stops it."""

    # ------------------------------------------------------------------ pulls (long polling)
    def pull_message(self, request: PullMessageRequest, opaque: int | None) -> PullResult | object:
        """``processRequest(channel, request, true)``: answer now, or suspend the request (long polling).

        Returns the result when answering at once, :data:`~rmqlab.remoting.remoting.HELD` when the request is held: the
        answer then goes through ``Remoting.reply(opaque, …)``, or never if a connection reset drops it
        (``Remoting.forget``). A oneway request (``opaque`` ``None``) is never held.
        """
        return self.process_request(request, opaque, broker_allow_suspend=True)

    def process_request(
        self, request: PullMessageRequest, opaque: int | None, *, broker_allow_suspend: bool
    ) -> PullResult | MQBrokerException | object:
        """``processRequest``: the permission checks, the read, then (``PULL_NOT_FOUND``) the suspension, which only a
        request as it first comes may get (``brokerAllowSuspend``); a woken request answers "no new message".

        The piggybacked consumer offset is stored only then too (``storeOffsetEnable = brokerAllowSuspend && …``),
        so a woken request does not store it a second time.
        """
        mq, offset = request.mq, request.queue_offset
        forbidden = self._pull_forbidden(mq.topic)
        if forbidden is not None:
            return forbidden  # before the offset commit, as 4.9.7 returns before it
        if broker_allow_suspend and request.commit_offset is not None and request.commit_offset >= 0:
            self.offsets.commit_offset(
                request.consumer_group, mq.topic, mq.queue_id, request.commit_offset, request.client
            )
        result = self._read(mq, offset, request.tags, request.max_msg_nums)
        if result.status is PullStatus.NO_NEW_MSG and broker_allow_suspend and request.suspend and opaque is not None:
            held = PullRequest(
                request_command=request,
                opaque=opaque,
                timeout_millis=BROKER_SUSPEND_MAX_TIME_MILLIS,  # the push consumer's suspendTimeoutMillis
                suspend_timestamp=self.scheduler.now,
                pull_from_this_offset=offset,
            )
            self.pull_request_hold_service.suspend_pull_request(mq.topic, mq.queue_id, held)
            return HELD
        return result

    def execute_request_when_wakeup(self, held: PullRequest) -> None:
        """``executeRequestWhenWakeup``: process the held request again as new, without suspending it, and answer
        the client with what that gives (messages, "no new message", or an error such as NO_PERMISSION)."""
        answer = self.process_request(held.request_command, held.opaque, broker_allow_suspend=False)
        self.remoting.reply(held.opaque, answer)

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
