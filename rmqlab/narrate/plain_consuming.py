"""Plain first lines for the consume side: pulls, deliveries, consume results, send-backs, offsets, rebalancing and
queue locks (the rules of :mod:`~rmqlab.narrate.plain` hold: no Java identifier, only the run's own names).
"""

from __future__ import annotations

from ..core.trace import EventKind, TraceEvent
from .context import CaptionContext, dur, name_of
from .plain_words import error_words, ids_words, ordinal, queue_words

__all__ = [
    "broadcast_dropped",
    "consume_request",
    "consumed",
    "dead_lettered",
    "delivered",
    "local_retry",
    "lock_acquired",
    "lock_batch",
    "lock_expired",
    "lock_refused",
    "lock_renewed",
    "offset_persisted",
    "offset_updated",
    "pull_deferred",
    "pull_empty",
    "pulled",
    "rebalanced",
    "send_back",
    "send_back_fallback",
    "suspended",
    "unlocked",
]


def pulled(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    return f"{name_of(e.actor)} fetches {ids_words(list(d.get('msg_ids') or ()))} from {queue_words(d.get('queue'))}."


def pull_deferred(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    why = {
        "paused": "it is paused",
        "flow_control_count": "it already holds too many messages from that queue",
        "flow_control_size": "it already holds too many bytes from that queue",
        "flow_control_span": "its messages from that queue span too many positions",
        "not_locked": "it does not hold that queue's lock",
        "broker_flow_control": "the broker asked it to slow down",
    }.get(str(d.get("reason")), f"the fetch failed ({error_words(d.get('error'))})")
    wait, queue = dur(int(d.get("delay_ms", 0))), queue_words(d.get("queue"))
    return f"{name_of(e.actor)} waits {wait} before fetching from {queue}: {why}."


def pull_empty(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who, queue = e.data, name_of(e.actor), queue_words(e.get("queue"))
    if d.get("status") == "OFFSET_ILLEGAL":
        asked, nxt = d.get("offset"), d.get("next_offset")
        return f"{who} asked {queue} for position {asked}, which is not there; it starts over at {nxt}."
    return f"{who} finds nothing new in {queue}."


def delivered(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg, who = e.data, e.msg_id or "?", name_of(e.actor)
    rt = int(d.get("reconsume_times", 0))
    ctx.delivery_rt[msg] = rt
    if rt:
        return f"{who} hands {msg} to its listener again: retry {rt}, its {ordinal(rt + 1)} delivery."
    return f"{who} hands {msg} to its listener (the application's code)."


def consumed(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg, who = e.data, e.msg_id or "?", name_of(e.actor)
    status = str(d.get("status"))
    if status in ("CONSUME_SUCCESS", "SUCCESS", "COMMIT"):
        return f"{who}'s listener is done with {msg}."
    if ctx.message_model.get(e.actor) == "BROADCASTING":
        return f"{who}'s listener fails {msg}."  # the drop that follows says why nothing retries it
    if status == "SUSPEND_CURRENT_QUEUE_A_MOMENT":
        nth = ordinal(ctx.delivery_rt.get(msg, 0) + 1)
        return f"{who}'s listener fails {msg} for the {nth} time and asks to wait before trying it again."
    return f"{who}'s listener fails {msg}."


def send_back(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg, who = e.data, e.msg_id or "?", name_of(e.actor)
    rt = int(d.get("reconsume_times", 0))
    nth = ordinal(rt + 1)
    group = ctx.group_of.get(e.actor, "?")
    if d.get("path") == "orderly":
        if not d.get("ok"):
            return f"{who} could not hand {msg} to the broker ({error_words(d.get('error'))}); it keeps retrying it."
        times = "1 time" if rt == 1 else f"{rt} times"
        return f"{who} has retried {msg} {times}, its limit, so it goes to the dead-letter topic %DLQ%{group}."
    if not d.get("ok"):
        why = error_words(d.get("error"))
        return f"{who} could not send {msg} back to {d.get('broker')} ({why}), so it tries another way."
    for done in ctx.broker_did.get(msg, []):
        if done.kind is EventKind.SCHEDULED:
            wait = dur(int(done.get("due_ms", done.time_ms)) - done.time_ms)
            return f"{who} failed {msg} for the {nth} time, so it goes back to the broker and returns in {wait}."
        if done.kind is EventKind.DEAD_LETTERED:
            level = d.get("delay_level")
            if isinstance(level, int) and level < 0:
                return (
                    f"{who} failed {msg} and its listener asked for no more retries, so it goes to the "
                    "dead-letter topic."
                )
            return f"{who} failed {msg} for the {nth} time, its last allowed try, so it goes to the dead-letter topic."
    if group == "?":
        return f"{who} failed {msg} for the {nth} time, so it goes back to the broker."
    return f"{who} failed {msg} for the {nth} time and sends it back, but {group} has no retry queue: {msg} is lost."


def send_back_fallback(ctx: CaptionContext, e: TraceEvent) -> str:
    msg, who = e.msg_id or "?", name_of(e.actor)
    if e.data.get("ok"):
        return f"{who} puts {msg} into the retry topic itself, as a new message."
    return f"That failed too, so {who} keeps {msg} and retries it on its own."


def local_retry(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    wait = dur(int(d.get("retry_in_ms", 5000)))
    return f"{name_of(e.actor)} keeps {e.msg_id} in memory and gives it to its listener again in {wait}."


def dead_lettered(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    return f"{msg} is now a dead letter: nobody gets it unless they subscribe to {d.get('topic')}."


def broadcast_dropped(ctx: CaptionContext, e: TraceEvent) -> str:
    return f"{name_of(e.actor)} drops the failed {e.msg_id}: broadcasting never retries a message."


def offset_updated(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    return f"{name_of(e.actor)} has finished {queue_words(d.get('queue'))} up to position {d.get('offset')}."


def offset_persisted(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    where = "its local file" if d.get("store") == "local" else "the broker"
    queue = queue_words(d.get("queue"))
    return f"{name_of(e.actor)}'s progress on {queue} (position {d.get('offset')}) is saved at {where}."


def rebalanced(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who = e.data, name_of(e.actor)
    queues = list(d.get("queues") or ())
    if not queues:
        return f"{who} now reads no queue of {d.get('topic')}."
    ids = ", ".join(str(q).rpartition(":")[2] for q in queues)
    brokers = sorted({str(q).partition("@")[2].rpartition(":")[0] for q in queues})
    plural = "s" if len(queues) > 1 else ""
    return f"{who} now reads {len(queues)} queue{plural} of {d.get('topic')} ({ids} on {', '.join(brokers)})."


def lock_batch(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who = e.data, name_of(e.actor)
    if d.get("error"):
        return f"{who} asks {d.get('broker')} for its queue locks but gets no answer ({error_words(d.get('error'))})."
    got, refused = len(d.get("locked") or ()), len(d.get("refused") or ())
    return f"{who} asks {d.get('broker')} for its queue locks: {got} granted, {refused} refused."


def lock_acquired(ctx: CaptionContext, e: TraceEvent) -> str:
    who, queue = name_of(e.actor), queue_words(e.get("queue"))
    return f"{who} gets the lock on {queue}: now only {who} reads it, in order."


def lock_renewed(ctx: CaptionContext, e: TraceEvent) -> str:
    return f"{name_of(e.actor)} renews its lock on {queue_words(e.get('queue'))}."


def lock_refused(ctx: CaptionContext, e: TraceEvent) -> str:
    who, holder = name_of(e.actor), e.get("holder")
    by = f": {holder} holds it" if holder and holder != who else ""
    return f"{who} is refused the lock on {queue_words(e.get('queue'))}{by}, so it does not read that queue."


def lock_expired(ctx: CaptionContext, e: TraceEvent) -> str:
    queue = queue_words(e.get("queue"))
    return (
        f"{e.get('previous_holder')} did not renew its lock on {queue} for 60 s, so {e.actor} gives it to "
        f"{e.get('new_holder')}."
    )


def unlocked(ctx: CaptionContext, e: TraceEvent) -> str:
    return f"{name_of(e.actor)} gives back its lock on {queue_words(e.get('queue'))}."


def suspended(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    wait = dur(int(d.get("retry_in_ms", 0)))
    return f"{name_of(e.actor)} pauses {queue_words(d.get('queue'))} for {wait}, then tries {e.msg_id} again there."


def consume_request(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    delay = int(d.get("delay_ms", 0))
    later = f" in {dur(delay)}" if delay else ""
    return f"{name_of(e.actor)} schedules its listener for {queue_words(d.get('queue'))}{later}."
