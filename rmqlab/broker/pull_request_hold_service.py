"""``PullRequestHoldService``: the broker's long polling, one service thread per broker.

A pull that finds nothing new is suspended here (:meth:`PullRequestHoldService.suspend_pull_request`), in a table
keyed by its queue: ``topic@queueId`` in 4.9.7, a ``(topic, queue id)`` pair here. It is answered in one of two
ways, both by processing the request again as new (``PullMessageProcessor.executeRequestWhenWakeup``, which does not
hold it a second time):

* a message is stored in its queue: the store's ``ReputMessageService`` calls the ``NotifyMessageArrivingListener``,
  which calls :meth:`~PullRequestHoldService.notify_message_arriving` with the queue's new max offset and the
  message's tag: every pull held on that queue that now has something to read, and whose subscription takes that
  tag, is answered at once;
* the service thread wakes every 5 s (``waitForRunning(5 * 1000)``) and walks every queue of the table
  (``checkHoldRequest``): a pull is answered if its queue has messages beyond its offset, or if its time is up
  (``now >= suspendTimestamp + timeoutMillis``). So an idle pull suspended at ``t`` is answered at the first check
  at or after ``t + 15 s``: 15 to 20 s after it was suspended, on the 5 s grid that began when the broker started.

The table's keys stay once made (4.9.7 never removes one); a walk visits them in the order they were first used
(a ``ConcurrentHashMap`` visits them in hash order, which no run could reproduce).

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/longpolling/PullRequestHoldService.java
    (PullRequestHoldService.suspendPullRequest, PullRequestHoldService.run, PullRequestHoldService.checkHoldRequest,
    PullRequestHoldService.notifyMessageArriving)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/longpolling/NotifyMessageArrivingListener.java
    (NotifyMessageArrivingListener.arriving)
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.network import Network
from ..core.process import Body, ProcessGroup, Sleep
from ..core.scheduler import Scheduler, TimerKind, TimerLabel
from ..remoting.remoting import Remoting
from ..store.default_message_store import DefaultMessageStore
from .pull_message_types import HOLD_CHECK_INTERVAL_MS, ManyPullRequest, PullRequest

__all__ = ["PullRequestHoldService"]

QueueKey = tuple[str, int]
"""A table key: (topic, queue id)."""


class PullRequestHoldService:
    """The held pulls of one broker, and the thread that checks them every 5 s while the broker runs."""

    def __init__(
        self,
        broker_name: str,
        scheduler: Scheduler,
        remoting: Remoting,
        *,
        store: DefaultMessageStore,
        execute_request_when_wakeup: Callable[[PullRequest], None],
    ) -> None:
        self.name = broker_name
        self.scheduler = scheduler
        self.remoting = remoting
        """Where a pull dropped by a connection reset is forgotten (``Remoting.forget``)."""
        self.store = store
        """``getMessageStore()``: each check reads a queue's max offset from it."""
        self.execute_request_when_wakeup = execute_request_when_wakeup
        """``getPullMessageProcessor().executeRequestWhenWakeup``: process a held request again, and answer it."""
        self.pull_request_table: dict[QueueKey, ManyPullRequest] = {}
        """``pullRequestTable``: (topic, queue id) → the pulls held on that queue."""
        network: Network = remoting
        self.processes = ProcessGroup(scheduler, network, broker_name)
        """The service thread, while the broker runs (a crash kills it with its pending wait)."""
        self.label = TimerLabel(TimerKind.HOLD_CHECK, broker_name)
        """What the thread's 5 s wait is, for ``lab.snapshot().timers``."""

    # ------------------------------------------------------------------ the service thread
    def start(self) -> None:
        """``ServiceThread.start`` (from ``BrokerController.start``): the first check 5 s from now (once: a thread
        already started is left as it is)."""
        if not self.processes.processes:
            self.processes.spawn(self.run())

    def shutdown(self) -> None:
        """The broker stops: the thread ends, and the held pulls go with the process (their channels close)."""
        self.processes.kill_all()
        self.pull_request_table.clear()

    def run(self) -> Body:
        """``run``: ``waitForRunning(5 * 1000)``, then ``checkHoldRequest``, while the broker runs. Nothing calls
        this thread's ``wakeup`` (arrivals go through :meth:`notify_message_arriving` on the store's thread), so each
        wait lasts its full 5 s."""
        while True:
            yield Sleep(HOLD_CHECK_INTERVAL_MS, self.label)
            self.check_hold_request()

    def check_hold_request(self) -> None:
        """``checkHoldRequest``: each queue of the table is notified with its current max offset (and no tag).

        4.9.7 splits each ``topic@queueId`` key back into its two parts and ``notifyMessageArriving`` builds it again
        to look the pulls up; a pair needs neither, and the walk hands on the pulls it already has.
        """
        for (topic, queue_id), many in list(self.pull_request_table.items()):
            self.answer_ready(many, topic, queue_id, max_offset=self.store.max_offset(topic, queue_id), tags_code=None)

    # ------------------------------------------------------------------ holding and answering
    def suspend_pull_request(self, topic: str, queue_id: int, pull_request: PullRequest) -> None:
        """``suspendPullRequest``: hold ``pull_request`` on its queue."""
        key = self.build_key(topic, queue_id)
        many = self.pull_request_table.get(key)
        if many is None:
            many = self.pull_request_table[key] = ManyPullRequest()
        many.add_pull_request(pull_request)

    @staticmethod
    def build_key(topic: str, queue_id: int) -> QueueKey:
        """``buildKey``: ``topic@queueId`` in 4.9.7, a string Java can hash; a Python pair hashes as it is."""
        return (topic, queue_id)

    def notify_message_arriving(self, topic: str, queue_id: int, max_offset: int, tags_code: str | None = None) -> None:
        """``notifyMessageArriving``: answer the pulls held on the queue that can be answered now
        (:meth:`answer_ready`), if any is held there."""
        many = self.pull_request_table.get(self.build_key(topic, queue_id))
        if many is not None:
            self.answer_ready(many, topic, queue_id, max_offset=max_offset, tags_code=tags_code)

    def answer_ready(
        self, many: ManyPullRequest, topic: str, queue_id: int, *, max_offset: int, tags_code: str | None
    ) -> None:
        """``notifyMessageArriving``'s walk of one queue's held pulls (``many``): answer those that can be answered.

        ``max_offset`` is the queue's max offset (the stored message's offset + 1 when one arrives); ``tags_code``
        the arriving message's tag, ``None`` in a check. A pull is answered if the queue has something beyond its
        offset and its subscription takes the tag, or if its suspend time is up; the others are put back.
        """
        request_list = many.clone_list_and_clear()
        if request_list is None:
            return
        now = self.scheduler.now  # System.currentTimeMillis(): virtual time stands still during the walk
        replay_list: list[PullRequest] = []
        for request in request_list:
            newest_offset = max_offset
            if newest_offset <= request.pull_from_this_offset:
                newest_offset = self.store.max_offset(topic, queue_id)
            if newest_offset > request.pull_from_this_offset and request.is_matched_by_consume_queue(tags_code):
                self.execute_request_when_wakeup(request)
                continue
            if now >= request.suspend_timestamp + request.timeout_millis:
                self.execute_request_when_wakeup(request)
                continue
            replay_list.append(request)
        if replay_list:
            many.add_pull_requests(replay_list)

    def arriving(self, topic: str, queue_id: int, logic_offset: int, tags_code: str) -> None:
        """``NotifyMessageArrivingListener.arriving``: the store dispatched a message of ``topic``/``queue_id``
        (``logic_offset``: its queue offset + 1)."""
        self.notify_message_arriving(topic, queue_id, logic_offset, tags_code)

    # ------------------------------------------------------------------ channels, and what views read
    def connection_reset(self, client: str) -> None:
        """A client's channel closed: pulls held for it can never be answered, so forget them.

        Nothing is sent to the client. In 4.9.7 it only notices through its response table: the pull's
        ``ResponseFuture`` expires in ``scanResponseTable`` 30 s + 1 s after it was sent
        (:meth:`Remoting.forget <rmqlab.remoting.remoting.Remoting.forget>`). (4.9.7 keeps the request in the table
        and its answer fails on the closed channel; taking it out at once is the same for every client.)
        """
        process = client.split("/", 1)[0]
        for many in self.pull_request_table.values():
            keep: list[PullRequest] = []
            for held in many.pull_request_list:
                if held.client_id.removeprefix("consumer:") == process:
                    self.remoting.forget(held.opaque)
                else:
                    keep.append(held)
            many.pull_request_list = keep

    def held_pulls(self, topic: str, queue_id: int) -> tuple[PullRequest, ...]:
        """The pulls held on ``topic``/``queue_id`` now, in the order they were suspended (for views and tests)."""
        many = self.pull_request_table.get(self.build_key(topic, queue_id))
        return () if many is None else tuple(many.pull_request_list)
