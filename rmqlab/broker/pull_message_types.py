"""What the hold service keeps: a held pull (``PullRequest``), the held pulls of one queue (``ManyPullRequest``),
and the long-polling limits.

What a pull answers (``PullResult``, ``PullStatus``) is wire data, in :mod:`rmqlab.remoting.protocol`. The broker's
``PullRequest`` is not the client's (:class:`rmqlab.client.consumer.pull_message_service.PullRequest`, a queue's pull
cursor): it is one PULL_MESSAGE request the broker could not answer yet, kept as it came.

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/longpolling/PullRequest.java
    (PullRequest)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/longpolling/ManyPullRequest.java
    (ManyPullRequest.addPullRequest, ManyPullRequest.cloneListAndClear)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..remoting.protocol import PullMessageRequest

__all__ = [
    "BROKER_SUSPEND_MAX_TIME_MILLIS",
    "HOLD_CHECK_INTERVAL_MS",
    "MAX_TRANSFER_COUNT",
    "ManyPullRequest",
    "PullRequest",
]

BROKER_SUSPEND_MAX_TIME_MILLIS = 15_000
"""``DefaultMQPushConsumerImpl.BROKER_SUSPEND_MAX_TIME_MILLIS``: how long a push consumer lets the broker hold its
pull (the request's ``suspendTimeoutMillis``); the broker answers it at its first check after that."""
HOLD_CHECK_INTERVAL_MS = 5_000
"""``PullRequestHoldService.run``: ``waitForRunning(5 * 1000)`` between two walks of the held pulls (long polling
on, as ``longPollingEnable`` is by default)."""
MAX_TRANSFER_COUNT = 32


@dataclass(slots=True, eq=False)
class PullRequest:
    """``longpolling.PullRequest``: a PULL_MESSAGE the broker holds until messages arrive or its time is up.

    ``eq=False``: two held pulls are the same only if they are the same object (a list's ``remove`` finds this one).
    """

    request_command: PullMessageRequest
    """The request as it came (``getRequestCommand``): a wake-up processes it again, as new."""
    opaque: int
    """The client's request number: the broker answers it (``Remoting.reply``), or forgets it in a connection reset
    (``Remoting.forget``)."""
    timeout_millis: int
    """The suspend time the client asked for (``suspendTimeoutMillis``: 15 s from a push consumer)."""
    suspend_timestamp: int
    """When the broker suspended it (``getMessageStore().now()``), in virtual ms."""
    pull_from_this_offset: int
    """The queue offset asked for: a wake-up needs the queue's max offset beyond it."""

    @property
    def client_id(self) -> str:
        """The pulling consumer's trace name (``consumer:<id>``): whose channel the answer goes to."""
        return self.request_command.client

    def is_matched_by_consume_queue(self, tags_code: str | None) -> bool:
        """``ExpressionMessageFilter.isMatchedByConsumeQueue``: a walk of the held pulls (no message: ``tags_code``
        ``None``) and a subscription to every tag ("*") match; else the arriving message's tag must be one subscribed
        (an untagged message arrives with ``""``, as its tags code is 0 in 4.9.7, and matches no tag)."""
        wanted = self.request_command.tags
        return tags_code is None or wanted is None or tags_code in wanted


@dataclass(slots=True)
class ManyPullRequest:
    """``ManyPullRequest``: the pulls held on one ``topic@queueId``, in the order they were suspended."""

    pull_request_list: list[PullRequest] = field(default_factory=list)

    def add_pull_request(self, pull_request: PullRequest) -> None:
        """``addPullRequest(PullRequest)``."""
        self.pull_request_list.append(pull_request)

    def add_pull_requests(self, many: list[PullRequest]) -> None:
        """``addPullRequest(List<PullRequest>)``: put back the pulls a walk did not answer."""
        self.pull_request_list.extend(many)

    def clone_list_and_clear(self) -> list[PullRequest] | None:
        """``cloneListAndClear``: take every held pull out (``None`` if there was none)."""
        if not self.pull_request_list:
            return None
        taken, self.pull_request_list = self.pull_request_list, []
        return taken
