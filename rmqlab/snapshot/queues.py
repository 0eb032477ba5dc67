"""ConsumeQueue cells as a view sees them: each offset's message and where it stands for each consumer group.

Mirrors the broker's ``ConsumeQueue`` (one per topic and queue id, ``TOPIC@BROKER:QID``), in the four lanes of
the retry machinery: the business topic, ``%RETRY%<group>``, ``SCHEDULE_TOPIC_XXXX`` and ``%DLQ%<group>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..common.message import DLQ_PREFIX, RETRY_PREFIX, SCHEDULE_TOPIC
from ..common.message_queue import MessageQueue

__all__ = ["BROADCAST_SUMMARY_ORDER", "SCHEDULE_GROUP", "ConsumeQueueSnap", "OffsetState", "QueueCell", "queue_kind"]


SCHEDULE_GROUP = "(schedule)"
"""Pseudo group for ``SCHEDULE_TOPIC_XXXX`` cells: ACKED there means "the schedule service delivered it"."""


class OffsetState(StrEnum):
    """Where one ConsumeQueue offset stands for one consumer group."""

    STORED = "stored"
    """In the ConsumeQueue, not in any live ProcessQueue (not pulled yet, or pulled by a crashed client)."""
    PULLED = "pulled"
    """In a live ProcessQueue's ``msg_tree_map``, waiting for a consume thread."""
    CONSUMING = "consuming"
    """A listener is running on it right now (or it is in ``consuming_msg_orderly_tree_map``)."""
    ACKED = "acked"
    """Consumed successfully, or below the committed offset."""
    SENT_BACK = "sent_back"
    """Failed and handed to ``%RETRY%`` (or straight to ``%DLQ%``): this offset is done, a copy lives on."""
    DROPPED = "dropped"
    """Failed and gone, never acked: a BROADCASTING failure (``BROADCAST_DROPPED``), or a send-back the
    broker answered SUCCESS without storing a copy (``retryQueueNums`` 0). The offset moves on regardless."""


BROADCAST_SUMMARY_ORDER = (
    OffsetState.CONSUMING,
    OffsetState.PULLED,
    OffsetState.DROPPED,
    OffsetState.STORED,
    OffsetState.SENT_BACK,
    OffsetState.ACKED,
)
"""A BROADCASTING group's cell state is the first of these any instance has: in flight somewhere, else dropped by
one of them (never shown as acked), else still waiting for one, else acked by all."""


def queue_kind(topic: str) -> str:
    """``business`` / ``retry`` / ``dlq`` / ``schedule`` — the four lanes of the retry machinery."""
    if topic.startswith(RETRY_PREFIX):
        return "retry"
    if topic.startswith(DLQ_PREFIX):
        return "dlq"
    if topic == SCHEDULE_TOPIC:
        return "schedule"
    return "business"


@dataclass(frozen=True, slots=True)
class QueueCell:
    """One ConsumeQueue offset: the message stored there and its state per group."""

    offset: int
    msg_id: str | None
    states: tuple[tuple[str, OffsetState], ...]
    tags: str | None = None
    keys: str | None = None
    """The message's ``KEYS`` (an ordered lab's sharding key, for a stable token colour)."""
    reconsume_times: int = 0
    """``reconsumeTimes`` of this stored copy (a retry copy counts the failures before it)."""
    store_ms: int = 0
    """When the broker stored this copy."""
    real_topic: str | None = None
    """``SCHEDULE_TOPIC_XXXX`` cells: the topic the message goes back to when due (``REAL_TOPIC``)."""
    deliver_ms: int | None = None
    """``SCHEDULE_TOPIC_XXXX`` cells: ``deliverTimestamp`` = store time + the level's delay."""
    instance_states: tuple[tuple[str, OffsetState], ...] = ()
    """BROADCASTING: (client id, state) per instance, since every instance consumes every message on its own.
    The group's entry in ``states`` is then their summary (see :data:`BROADCAST_SUMMARY_ORDER`)."""

    def state_for(self, group: str | None) -> OffsetState:
        """The state for ``group`` (STORED when that group has nothing to say about it)."""
        for name, state in self.states:
            if name == group:
                return state
        return OffsetState.STORED

    def state_for_instance(self, client_id: str) -> OffsetState:
        """A BROADCASTING instance's own state (STORED when it has nothing to say about it)."""
        for name, state in self.instance_states:
            if name == client_id:
                return state
        return OffsetState.STORED


@dataclass(frozen=True, slots=True)
class ConsumeQueueSnap:
    """One ConsumeQueue of one broker, with committed offsets per group (broker side)."""

    topic: str
    broker: str
    queue_id: int
    kind: str
    min_offset: int
    max_offset: int
    groups: tuple[str, ...]
    committed: tuple[tuple[str, int], ...]
    cells: tuple[QueueCell, ...]
    read_queue_nums: int | None = None
    """The topic's read queue count on this broker (``None``: no TopicConfig, e.g. the schedule topic)."""

    @property
    def mq(self) -> MessageQueue:
        """The engine's key for this queue."""
        return MessageQueue(self.topic, self.broker, self.queue_id)

    @property
    def listed(self) -> bool:
        """Whether the topic's route lists this queue; a queue at or above ``read_queue_nums`` is never pulled."""
        return self.read_queue_nums is None or self.queue_id < self.read_queue_nums

    @property
    def name(self) -> str:
        """``TOPIC@BROKER:QID`` as the trace spells queues (for display)."""
        return str(self.mq)
