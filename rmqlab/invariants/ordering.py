"""Orderly queue order: ``orderly_queue_order``.

Within one queue of an orderly audience, a message is consumed successfully only when every earlier
offset of that queue (that the audience subscribes to) has finished — succeeded or been dead-lettered
through the orderly send-back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..common.message_queue import MessageQueue
from ..core.trace import EventKind, TraceEvent

if TYPE_CHECKING:
    from .context import CheckContext

__all__ = ["check_orderly_order"]


def check_orderly_order(ctx: CheckContext, successes: Mapping[tuple[str, str], list[TraceEvent]]) -> None:
    """Within an orderly audience's queue, success at offset k needs every earlier wanted offset finished."""
    finished_at: dict[tuple[str, str, int], int] = {}  # (audience, queue, offset) → seq it finished
    for (audience_key, _), wins in successes.items():
        for e in wins:
            k = (audience_key, str(e.data["queue"]), int(e.data["queue_offset"]))
            finished_at[k] = min(finished_at.get(k, e.seq), e.seq)
    deliveries: dict[tuple[str, str], int] = {}
    last_consumed: dict[tuple[str, str], TraceEvent] = {}  # (actor, msg id) → its latest CONSUMED
    for e in ctx.events:
        audience = ctx.by_actor.get(e.actor)
        if audience is None or not audience.orderly:
            continue
        if e.kind is EventKind.DELIVERED:
            q = (audience.key, str(e.data["queue"]))
            deliveries[q] = min(deliveries.get(q, int(e.data["queue_offset"])), int(e.data["queue_offset"]))
        elif e.kind is EventKind.CONSUMED and e.msg_id is not None:
            last_consumed[(e.actor, e.msg_id)] = e
        elif e.kind is EventKind.SEND_BACK and e.data.get("ok") and e.msg_id is not None:
            x = last_consumed.get((e.actor, e.msg_id))
            if x is not None:
                k = (audience.key, str(x.data["queue"]), int(x.data["queue_offset"]))
                finished_at[k] = min(finished_at.get(k, e.seq), e.seq)
    for (audience_key, queue), first in sorted(deliveries.items()):
        audience = ctx.audiences[audience_key]
        mq = MessageQueue.parse(queue)
        try:
            stored = ctx.snap.queue(mq)
        except KeyError:
            continue
        wanted: list[int] = []
        for cell in stored.cells:
            if cell.offset < first or cell.msg_id is None:
                continue
            if mq.topic.startswith("%") or audience.wants(mq.topic, cell.tags):
                wanted.append(cell.offset)
        latest = 0  # the latest finish among earlier offsets; None once one of them never finished
        blocker: int | None = None
        for offset in wanted:
            done = finished_at.get((audience_key, queue, offset))
            if done is not None and (blocker is not None or done < latest):
                event = ctx.seq_index[done]
                ctx.violate(
                    "orderly_queue_order",
                    event.msg_id,
                    event.time_ms,
                    f"{audience_key} finished {queue} offset {offset} before an earlier offset"
                    + (f" ({blocker}, never finished)" if blocker is not None else ""),
                    ctx.by_msg.get(str(event.msg_id), []),
                )
                break
            if done is None:
                blocker = offset if blocker is None else blocker
            else:
                latest = max(latest, done)
