"""Captions of who owns which queue: committed and persisted offsets, rebalances and orderly queue locks
(``OffsetStore``, ``RebalanceImpl``, ``RebalanceLockManager``).
"""

from __future__ import annotations

from collections.abc import Sequence

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
    return ", ".join(queues) if queues else "none"


def on_offset_updated(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, who = e.data, name_of(e.actor)
    previous = d.get("previous")
    since = f"{previous} → {d.get('offset')}" if previous is not None and previous >= 0 else f"{d.get('offset')}"
    store = "LocalFileOffsetStore" if ctx.message_model.get(e.actor) == "BROADCASTING" else "RemoteBrokerOffsetStore"
    if ctx.consume_mode.get(e.actor) == "orderly":
        why = "ProcessQueue.commit() returns lastKey + 1 of consumingMsgOrderlyTreeMap (overwrite)"
    else:
        why = "ProcessQueue.removeMessage returns the smallest key of msgTreeMap, or queueOffsetMax + 1 when empty"
    return f"{store}.updateOffset", f"{who}'s committed offset of {d.get('queue')} is {since}: {why}"


def on_offset_persisted(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d = e.data
    if d.get("store") == "local":
        return "LocalFileOffsetStore.persistAll", (
            f"{name_of(e.actor)} wrote offset {d.get('offset')} of {d.get('queue')} to its local offsets.json"
        )
    broker = str(d.get("queue", "")).split("@")[-1].split(":")[0]
    return "ConsumerOffsetManager.commitOffset", (
        f"{broker} now holds offset {d.get('offset')} of {d.get('queue')} for {d.get('group')} (persistAll every "
        f"5000 ms, or a pull's piggy-backed commitOffset): a restarted consumer resumes there"
    )


def on_rebalanced(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, who = e.data, name_of(e.actor)
    added, removed = list(d.get("added") or ()), list(d.get("removed") or ())
    for queue in removed:
        ctx.removed_at[(e.actor, queue)] = e.time_ms
    if ctx.message_model.get(e.actor) == "BROADCASTING":
        how = "BROADCASTING: every instance takes every queue"
    else:
        how = "AllocateMessageQueueAveragely over the sorted queues and client ids"
    change = []
    if added:
        change.append(f"added {_queues(added)}")
    if removed:
        change.append(f"removed {_queues(removed)} (offset persisted, ProcessQueue dropped)")
    return "RebalanceImpl.rebalanceByTopic", (
        f"{who} now owns {_queues(list(d.get('queues') or ()))} of {d.get('topic')} ({how}); {'; '.join(change)}"
    )


def on_lock_batch(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, who = e.data, name_of(e.actor)
    where = f"RebalanceImpl.{d.get('via', 'lock')}"
    asked = ", ".join(d.get("queues", ())) or "no queue"
    if d.get("error"):
        return where, (
            f"{who}'s LOCK_BATCH_MQ to {d.get('broker')} for {asked} failed ({d.get('error')}): nothing is locked or "
            f"renewed by it; a lease the broker already gave runs out {BROKER_LOCK_MS // 1000} s after its last renewal"
        )
    locked, refused = list(d.get("locked", ())), list(d.get("refused", ()))
    holders = d.get("holders") or {}
    parts = [f"granted {', '.join(locked)}" if locked else "granted nothing"]
    if refused:
        parts.append("refused " + ", ".join(f"{q} (held by {holders.get(q) or 'another client'})" for q in refused))
    return where, f"{who} asked {d.get('broker')} to lock {asked} (LOCK_BATCH_MQ, 1 s timeout): {'; '.join(parts)}"


def on_lock_acquired(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    who, queue = name_of(e.actor), str(e.get("queue"))
    taken = ctx.expired.pop(queue, None)
    over = f" (taking over {taken[1]}'s expired lease)" if taken is not None and taken[0] == e.time_ms else ""
    return "RebalanceImpl.lock", (
        f"RebalanceLockManager.tryLockBatch grants {who} the broker lock on {queue}{over}: the broker keeps it "
        f"{BROKER_LOCK_MS // 1000} s, the client trusts it for {CLIENT_LOCK_MS // 1000} s and renews every "
        f"{LOCK_INTERVAL_MS // 1000} s, and only the holder consumes the queue in order"
    )


def on_lock_renewed(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    return "RebalanceImpl.lockAll", (
        f"{name_of(e.actor)} renewed its broker lock on {e.get('queue')} (every {LOCK_INTERVAL_MS // 1000} s; "
        f"lastLockTimestamp = now)"
    )


def on_lock_refused(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    who, holder = name_of(e.actor), e.get("holder")
    if holder and holder != who:
        why = f"{holder} holds it and its {BROKER_LOCK_MS // 1000} s lease has not expired"
    else:
        why = "the broker could not grant it"
    return "RebalanceLockManager.tryLockBatch", (
        f"refused {who} the lock on {e.get('queue')}: {why}; {who} does not consume that queue until it gets the lock"
    )


def on_lock_expired(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    queue, previous, new = str(e.get("queue")), e.get("previous_holder"), e.get("new_holder")
    ctx.expired[queue] = (e.time_ms, str(previous))
    return "RebalanceLockManager.tryLockBatch", (
        f"{previous}'s lock on {queue} was not renewed for more than {BROKER_LOCK_MS // 1000} s "
        f"(REBALANCE_LOCK_MAX_LIVE_TIME), so {e.actor} hands it to {new}"
    )


def on_unlocked(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    who, queue = name_of(e.actor), str(e.get("queue"))
    removed = ctx.removed_at.get((e.actor, queue))
    if removed is not None and e.time_ms - removed >= UNLOCK_DELAY_MS:
        why = (
            f"{dur(e.time_ms - removed)} after the rebalance removed it, because it still held messages "
            f"(UNLOCK_DELAY_TIME_MILLS {UNLOCK_DELAY_MS} ms)"
        )
    elif removed is not None:
        why = "right after the rebalance removed it (the consume lock was free and nothing was held)"
    else:
        return "RebalanceImpl.unlockAll", (
            f"{who} released its broker lock on {queue} (unlockBatchMQ): the last step of the orderly consume "
            "service's shutdown, before the final offset persist"
        )
    return "RebalancePushImpl.removeUnnecessaryMessageQueue", (
        f"{who} released its broker lock on {queue} (unlockBatchMQ) {why}"
    )
