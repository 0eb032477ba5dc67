"""Accounting: every produced message ends in exactly one fate per audience, and extra successes have a cause.

``accounted``: for each audience that should see a produced message, it is **consumed** (a listener
succeeded), **dlq**, **broadcast_dropped** or **in flight** (see :mod:`.in_flight`); a copy left in a
queue the route no longer lists is **stranded**, anything else is *lost* (both are violations).

``duplicate``: consumed more than once (or consumed *and* dead-lettered) needs a producer duplicate, a
replayed copy, a ``cleanExpiredMsg`` send-back, a send-back whose request stored a copy although the
client saw it fail, a send-back fallback whose inner producer retried after an attempt that stored, or a
delayed copy the ScheduleMessageService delivered again after a broker crash (its delayOffset was lost).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..common.message import RETRY_PREFIX
from ..core.i18n import N_
from ..core.i18n import gettext as _
from ..core.trace import EventKind, TraceEvent
from .in_flight import waiting_copies
from .settled import MECHANICS_MS, can_drain, queues_with_running_listener, settlement

if TYPE_CHECKING:
    from .context import CheckContext

__all__ = ["account"]

_RETRY_HINT = N_(
    " (the send-back picked random % retryQueueNums, and a %RETRY% topic is never resized when retryQueueNums"
    " grows; updateTopic on it frees the queue)"
)
"""Shown through ``_()``: a violation's detail is what a student reads, in the current language (the invariant's
name, the fates and the counts are data and stay English)."""


def account(
    ctx: CheckContext,
    copies: Mapping[str, list[TraceEvent]],
    successes: Mapping[tuple[str, str], list[TraceEvent]],
    dup_sources: Mapping[tuple[str, str], list[TraceEvent]],
) -> None:
    """Give each (audience, produced message) its fate in ``ctx.report.fates``; flag lost and unexplained copies."""
    counts = ctx.report.counts
    dlq: set[tuple[str, str]] = set()
    dropped: set[tuple[str, str]] = set()
    for e in ctx.events:
        if e.kind is EventKind.DEAD_LETTERED and e.msg_id is not None:
            dlq.add((f"group:{e.data['group']}", e.msg_id))
        elif e.kind is EventKind.BROADCAST_DROPPED and e.msg_id is not None:
            audience = ctx.by_actor.get(e.actor)
            if audience is not None:
                dropped.add((audience.key, e.msg_id))
    delivered_to: set[tuple[str, str]] = set()
    for e in ctx.events:
        if e.kind is EventKind.DELIVERED and e.msg_id is not None and e.actor in ctx.by_actor:
            delivered_to.add((ctx.by_actor[e.actor].key, e.msg_id))
    deliveries: dict[tuple[str, str], dict[str, int]] = {}  # (audience, queue) → msg id → its last delivery time
    for e in ctx.events:
        if e.kind is EventKind.DELIVERED and e.actor in ctx.by_actor and e.msg_id is not None:
            key = (ctx.by_actor[e.actor].key, str(e.data.get("queue", "")))
            deliveries.setdefault(key, {})[e.msg_id] = e.time_ms
    starts = _first_starts(ctx)
    waiting = {key: waiting_copies(ctx.snap, a) for key, a in sorted(ctx.audiences.items())}
    settled = ctx.report.settlement = settlement(ctx)
    draining = {key: settled.settled and can_drain(ctx, a) for key, a in ctx.audiences.items()}
    listening = {key: queues_with_running_listener(ctx, a) for key, a in ctx.audiences.items()}
    counts["produced"] = len(copies)
    counts["produced_copies"] = sum(len(v) for v in copies.values())
    for msg_id, stored in sorted(copies.items()):
        first = stored[0]
        topic = str(first.data.get("topic") if first.kind is EventKind.STORED else first.data["real_topic"])
        tags = ctx.tags.get(msg_id)
        audiences = [
            a
            for a in ctx.audiences.values()
            if a.wants(topic, tags)
            and (
                a.clustering  # a young queue's new group starts at offset 0 (queryConsumerOffset)
                or (a.key in starts and first.seq > starts[a.key])
                or (a.key, msg_id) in delivered_to
            )
        ]
        if not audiences:
            counts["unsubscribed"] += 1
        for audience in sorted(audiences, key=lambda a: a.key):
            key = (audience.key, msg_id)
            in_flight, stranded, queue_of = waiting[audience.key]
            wins = successes.get(key, [])
            if wins:
                fate = "consumed"
            elif key in dlq:
                fate = "dlq"
            elif key in dropped:
                fate = "broadcast_dropped"
            elif msg_id in in_flight:
                fate = "in_flight:" + in_flight[msg_id]
                counts["in_flight"] += 1
                queue = queue_of.get(msg_id, "")
                if (
                    draining[audience.key]
                    and queue not in listening[audience.key]
                    and not _taking_its_turn(ctx, msg_id, in_flight[msg_id], deliveries.get((audience.key, queue), {}))
                ):
                    ctx.violate(
                        "settled",
                        msg_id,
                        ctx.lab.now,
                        f"still {in_flight[msg_id].replace('_', ' ')} in {queue} for {audience.key} at the end of a "
                        f"settled run ({settled.reason}): stuck, not waiting",
                        ctx.by_msg[msg_id],
                    )
            elif msg_id in stranded:
                fate = "stranded"
                mq, read_queues = stranded[msg_id]
                ctx.violate(
                    "accounted",
                    msg_id,
                    ctx.lab.now,
                    _(
                        "stranded for {audience} in {mq}: {topic} on {broker} lists {read_queues} read queue(s), "
                        "so no consumer pulls queue {queue_id}"
                    ).format(
                        audience=audience.key,
                        mq=mq,
                        topic=mq.topic,
                        broker=mq.broker_name,
                        read_queues=read_queues,
                        queue_id=mq.queue_id,
                    )
                    + (_(_RETRY_HINT) if mq.topic.startswith(RETRY_PREFIX) else ""),
                    ctx.by_msg[msg_id],
                )
            else:
                fate = "lost"
                cause, admin = _dropped_by_zero_retry_queues(ctx, audience.key, audience.group, msg_id)
                ctx.violate(
                    "accounted",
                    msg_id,
                    ctx.lab.now,
                    _(
                        "produced to {topic} but neither consumed, dead-lettered, dropped nor in flight for {audience}"
                    ).format(topic=topic, audience=audience.key)
                    + cause,
                    sorted([*ctx.by_msg[msg_id], *admin], key=lambda e: e.seq),
                )
            ctx.report.fates[key] = fate
            counts[fate] += 1
            extra = len(wins) - 1 + (1 if wins and key in dlq else 0)
            if extra > 0:
                counts["duplicate_consumptions"] += extra
                explained = len(stored) > 1 or bool(dup_sources.get(key))
                if not explained:
                    ctx.violate(
                        "duplicate",
                        msg_id,
                        wins[-1].time_ms,
                        f"consumed {len(wins)} time(s){' and dead-lettered' if key in dlq else ''} by "
                        f"{audience.key} with no producer duplicate, replay, cleanExpiredMsg or lost "
                        "send-back response to explain it",
                        ctx.by_msg[msg_id],
                    )


def _taking_its_turn(ctx: CheckContext, msg_id: str, where: str, delivered: Mapping[str, int]) -> bool:
    """A copy that is in flight because it waits its turn, not because something stopped: the settled rule's bound
    leaves listener durations out, so a long backlog can still be draining when a run ends.

    * parked in ``SCHEDULE_TOPIC_XXXX`` with its due time still ahead (a retry that failed late, behind the backlog):
      the ScheduleMessageService delivers it then;
    * stored or held in a ProcessQueue of a queue from which the audience was still being delivered *other* messages
      within the last :data:`~.settled.MECHANICS_MS`: the consumer is working through that queue (the same message
      delivered again and again, an orderly one suspended for ever, is no progress).
    """
    now = ctx.lab.now
    if where == "scheduled":
        due = [int(e.data["due_ms"]) for e in ctx.by_msg[msg_id] if e.kind is EventKind.SCHEDULED]
        return bool(due) and due[-1] + SCHEDULE_TICK_GRACE_MS > now
    return any(now - time < MECHANICS_MS for other, time in delivered.items() if other != msg_id)


SCHEDULE_TICK_GRACE_MS = 1_000
"""A due copy is delivered at the level timer's next 100 ms tick (1 s after a broker's restart): this much past its
due time it still counts as on its way."""


def _dropped_by_zero_retry_queues(
    ctx: CheckContext, audience_key: str, group: str, msg_id: str
) -> tuple[str, list[TraceEvent]]:
    """Name the usual cause of a silent loss: a send-back answered SUCCESS while ``retryQueueNums`` was 0.

    RocketMQ gives no sign of it (the broker stores nothing and says SUCCESS), so the checker points at
    the ``updateSubGroup`` that set it. Returns ("", []) when that is not what happened.
    """
    send_back = None
    for e in ctx.by_msg[msg_id]:
        if e.kind is EventKind.SEND_BACK and e.data.get("ok") is True:
            audience = ctx.by_actor.get(e.actor)
            if audience is not None and audience.key == audience_key:
                send_back = e
    if send_back is None:
        return "", []
    broker = send_back.data.get("broker")
    admin = None
    for e in ctx.admin_events:  # few; the whole trace is never rescanned per lost message
        if e.seq > send_back.seq:
            break
        if e.actor == broker and e.data.get("group") == group:
            admin = e
    if admin is None or admin.data.get("retry_queue_nums") != 0:
        return "", []
    return (
        _(
            ": its send-back at {sent} ms was answered SUCCESS by {broker}, whose updateSubGroup at {set} ms set "
            "retry_queue_nums=0 for {group}, so the broker stored no retry copy"
        ).format(sent=send_back.time_ms, broker=broker, set=admin.time_ms, group=group),
        [admin],
    )


def _first_starts(ctx: CheckContext) -> dict[str, int]:
    starts: dict[str, int] = {}
    for e in ctx.events:
        if e.kind is EventKind.LIFECYCLE and e.data.get("event") == "start":
            audience = ctx.by_actor.get(e.actor)
            if audience is not None:
                starts.setdefault(audience.key, e.seq)
    return starts
