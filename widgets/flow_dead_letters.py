"""Where a dead letter's tokens go in the message-flow picture: one in its group's ``%DLQ%`` queue, and one more in
the "consumed" tray of each other group that read it from there; and a ``%RETRY%`` queue its group no longer uses
(``retryQueueNums`` 0) says so.

A dead letter stays in ``%DLQ%<group>`` for its group: RocketMQ never delivers it to that group again. An operator's
consumer of another group (lab 04's ops1, group dlq-ops) may subscribe to the ``%DLQ%`` topic and consume it; the
legend says "a token per message and group", and the picture drew none for that group (revC defect 5).

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/SendMessageProcessor.java (the DLQ topic a
send-back past maxReconsumeTimes is written to; asyncConsumerSendMsgBack's retryQueueNums check) and store's
ConsumeQueue (each group keeps its own offset on it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from rmqlab.common.message import DLQ_PREFIX, RETRY_PREFIX
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import ConsumeQueueSnap, LabSnapshot, OffsetState

from .flow_model import TokenState

__all__ = ["RETRY_UNUSED", "offer_dead_letters", "retry_unused"]

RETRY_UNUSED = N_("retryQueueNums 0: not used")
"""The note of a ``%RETRY%`` queue whose group has no retry queue now: the topic stays (it was made at the first
heartbeat), but ``asyncConsumerSendMsgBack`` answers SUCCESS and stores nothing (lab 04 drew it as if in use)."""


class Offers(Protocol):
    """The flow's placement (:class:`widgets.flow_places._Placement`): where a message's token may be drawn."""

    def offer(
        self, owner: str, msg: str, place: str, state: TokenState, rt: int, offset: int | None = None
    ) -> None: ...


def offer_dead_letters(best: Offers, q: ConsumeQueueSnap, subscribers: Iterable[str]) -> None:
    """Each message of the ``%DLQ%`` queue ``q``: "dead" in the queue for its group; "done" in the tray of every
    other subscribing group whose offset on ``q`` is past it (acknowledged)."""
    owner = q.topic[len(DLQ_PREFIX) :]
    readers = [g for g in subscribers if g != owner]
    for cell in q.cells:
        if cell.msg_id is None:
            continue
        best.offer(owner, cell.msg_id, "queue:" + q.name, "dead", cell.reconsume_times, cell.offset)
        for group in readers:
            if cell.state_for(group) is OffsetState.ACKED:
                best.offer(group, cell.msg_id, f"done:{group}", "done", cell.reconsume_times)


def retry_unused(snap: LabSnapshot, q: ConsumeQueueSnap) -> str:
    """:data:`RETRY_UNUSED` for a ``%RETRY%`` queue whose group's ``retryQueueNums`` is 0 on its broker; else ""."""
    if q.kind != "retry":
        return ""
    group = q.topic[len(RETRY_PREFIX) :]
    nums = next((dict(b.retry_queue_nums) for b in snap.brokers if b.name == q.broker), {})
    return _(RETRY_UNUSED) if nums.get(group) == 0 else ""
