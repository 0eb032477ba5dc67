"""Captions of who owns which queue: committed and persisted offsets, rebalances and orderly queue locks
(``OffsetStore``, ``RebalanceImpl``, ``RebalanceLockManager``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.i18n import gettext as _
from ..core.trace import TraceEvent
from .context import CaptionContext, dur, name_of

__all__ = [
    "BROKER_LOCK_MS",
    "CLIENT_LOCK_MS",
    "LOCK_INTERVAL_MS",
    "UNLOCK_DELAY_MS",
    "on_lock_acquired",
    "on_lock_batch",
    "on_lock_expired",
    "on_lock_refused",
    "on_lock_renewed",
    "on_offset_persisted",
    "on_offset_updated",
    "on_rebalanced",
    "on_unlocked",
]

BROKER_LOCK_MS = 60_000
CLIENT_LOCK_MS = 30_000
LOCK_INTERVAL_MS = 20_000
UNLOCK_DELAY_MS = 20_000


def _queues(queues: Sequence[str]) -> str:
    return ", ".join(queues) if queues else _("none")


def on_offset_updated(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, who = e.data, name_of(e.actor)
    previous = d.get("previous")
    since = f"{previous} → {d.get('offset')}" if previous is not None and previous >= 0 else f"{d.get('offset')}"
    store = "LocalFileOffsetStore" if ctx.message_model.get(e.actor) == "BROADCASTING" else "RemoteBrokerOffsetStore"
    if ctx.consume_mode.get(e.actor) == "orderly":
        why = _("ProcessQueue.commit() returns lastKey + 1 of consumingMsgOrderlyTreeMap (overwrite)")
    else:
        why = _("ProcessQueue.removeMessage returns the smallest key of msgTreeMap, or queueOffsetMax + 1 when empty")
    return f"{store}.updateOffset", _("{who}'s committed offset of {queue} is {since}: {why}").format(
        who=who, queue=d.get("queue"), since=since, why=why
    )


def on_offset_persisted(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d = e.data
    if d.get("store") == "local":
        return "LocalFileOffsetStore.persistAll", _(
            "{who} wrote offset {offset} of {queue} to its local offsets.json"
        ).format(who=name_of(e.actor), offset=d.get("offset"), queue=d.get("queue"))
    broker = str(d.get("queue", "")).split("@")[-1].split(":")[0]
    return "ConsumerOffsetManager.commitOffset", _(
        "{broker} now holds offset {offset} of {queue} for {group} (persistAll every 5000 ms, or a pull's "
        "piggy-backed commitOffset): a restarted consumer resumes there"
    ).format(broker=broker, offset=d.get("offset"), queue=d.get("queue"), group=d.get("group"))


def on_rebalanced(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, who = e.data, name_of(e.actor)
    added, removed = list(d.get("added") or ()), list(d.get("removed") or ())
    for queue in removed:
        ctx.removed_at[(e.actor, queue)] = e.time_ms
    if ctx.message_model.get(e.actor) == "BROADCASTING":
        how = _("BROADCASTING: every instance takes every queue")
    else:
        how = _("AllocateMessageQueueAveragely over the sorted queues and client ids")
    change = []
    if added:
        change.append(_("added {queues}").format(queues=_queues(added)))
    if removed:
        change.append(_("removed {queues} (offset persisted, ProcessQueue dropped)").format(queues=_queues(removed)))
    return "RebalanceImpl.rebalanceByTopic", _("{who} now owns {queues} of {topic} ({how}); {change}").format(
        who=who, queues=_queues(list(d.get("queues") or ())), topic=d.get("topic"), how=how, change=_("; ").join(change)
    )


def on_lock_batch(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, who = e.data, name_of(e.actor)
    where = f"RebalanceImpl.{d.get('via', 'lock')}"
    asked = ", ".join(d.get("queues", ())) or _("no queue")
    if d.get("error"):
        return where, _(
            "{who}'s LOCK_BATCH_MQ to {broker} for {asked} failed ({error}): nothing is locked or renewed by it; a "
            "lease the broker already gave runs out {seconds} s after its last renewal"
        ).format(who=who, broker=d.get("broker"), asked=asked, error=d.get("error"), seconds=BROKER_LOCK_MS // 1000)
    locked, refused = list(d.get("locked", ())), list(d.get("refused", ()))
    holders = d.get("holders") or {}
    parts = [_("granted {queues}").format(queues=", ".join(locked)) if locked else _("granted nothing")]
    if refused:
        held = ", ".join(
            _("{queue} (held by {holder})").format(queue=q, holder=holders.get(q) or _("another client"))
            for q in refused
        )
        parts.append(_("refused {queues}").format(queues=held))
    return where, _("{who} asked {broker} to lock {asked} (LOCK_BATCH_MQ, 1 s timeout): {parts}").format(
        who=who, broker=d.get("broker"), asked=asked, parts=_("; ").join(parts)
    )


def on_lock_acquired(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    who, queue = name_of(e.actor), str(e.get("queue"))
    taken = ctx.expired.pop(queue, None)
    over = (
        _(" (taking over {holder}'s expired lease)").format(holder=taken[1])
        if taken is not None and taken[0] == e.time_ms
        else ""
    )
    return "RebalanceImpl.lock", _(
        "RebalanceLockManager.tryLockBatch grants {who} the broker lock on {queue}{over}: the broker keeps it "
        "{broker_s} s, the client trusts it for {client_s} s and renews every {every_s} s, and only the holder "
        "consumes the queue in order"
    ).format(
        who=who,
        queue=queue,
        over=over,
        broker_s=BROKER_LOCK_MS // 1000,
        client_s=CLIENT_LOCK_MS // 1000,
        every_s=LOCK_INTERVAL_MS // 1000,
    )


def on_lock_renewed(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    return "RebalanceImpl.lockAll", _(
        "{who} renewed its broker lock on {queue} (every {every_s} s; lastLockTimestamp = now)"
    ).format(who=name_of(e.actor), queue=e.get("queue"), every_s=LOCK_INTERVAL_MS // 1000)


def on_lock_refused(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    who, holder = name_of(e.actor), e.get("holder")
    if holder and holder != who:
        why = _("{holder} holds it and its {seconds} s lease has not expired").format(
            holder=holder, seconds=BROKER_LOCK_MS // 1000
        )
    else:
        why = _("the broker could not grant it")
    return "RebalanceLockManager.tryLockBatch", _(
        "refused {who} the lock on {queue}: {why}; {who} does not consume that queue until it gets the lock"
    ).format(who=who, queue=e.get("queue"), why=why)


def on_lock_expired(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    queue, previous, new = str(e.get("queue")), e.get("previous_holder"), e.get("new_holder")
    ctx.expired[queue] = (e.time_ms, str(previous))
    return "RebalanceLockManager.tryLockBatch", _(
        "{previous}'s lock on {queue} was not renewed for more than {seconds} s (REBALANCE_LOCK_MAX_LIVE_TIME), so "
        "{broker} hands it to {new}"
    ).format(previous=previous, queue=queue, seconds=BROKER_LOCK_MS // 1000, broker=e.actor, new=new)


def on_unlocked(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    who, queue = name_of(e.actor), str(e.get("queue"))
    removed = ctx.removed_at.get((e.actor, queue))
    if removed is not None and e.time_ms - removed >= UNLOCK_DELAY_MS:
        why = _(
            "{after} after the rebalance removed it, because it still held messages "
            "(UNLOCK_DELAY_TIME_MILLS {delay} ms)"
        ).format(after=dur(e.time_ms - removed), delay=UNLOCK_DELAY_MS)
    elif removed is not None:
        why = _("right after the rebalance removed it (the consume lock was free and nothing was held)")
    else:
        return "RebalanceImpl.unlockAll", _(
            "{who} released its broker lock on {queue} (unlockBatchMQ): the last step of the orderly consume "
            "service's shutdown, before the final offset persist"
        ).format(who=who, queue=queue)
    return "RebalancePushImpl.removeUnnecessaryMessageQueue", _(
        "{who} released its broker lock on {queue} (unlockBatchMQ) {why}"
    ).format(who=who, queue=queue, why=why)
