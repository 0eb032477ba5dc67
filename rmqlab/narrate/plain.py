"""The first line of a caption: one plain sentence a beginner understands, with this run's numbers.

No Java identifier appears here (no ``Class.method``, no ``RECONSUME_LATER``, no ``SCHEDULE_TOPIC_XXXX``): those are
the second line's business ("in the source", :mod:`~rmqlab.narrate.narrator`). What a plain sentence may name are
the run's own things, the names the student sees in the picture: consumers (``c1``), producers (``pg``), brokers
(``broker-a``), message ids (``M0001``), topics (``TopicTest``) and the group's retry and dead-letter topics
(``%RETRY%cg``, ``%DLQ%cg``). Those last two are place names, not code: the flow view and the topology label the
queues with them, so a sentence that says "the dead-letter topic %DLQ%cg" points at a place the student can find.

Each function is called with the context *before* the event's own (second-line) caption function updates it, so a
send-back's sentence still sees what the broker just did with the message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..core.trace import EventKind, TraceEvent
from .context import CaptionContext, dur, name_of

__all__ = ["PLAIN", "error_words", "ordinal", "queue_words"]

K = EventKind


def ordinal(n: int) -> str:
    """``1`` → ``1st``, ``2`` → ``2nd``, ``11`` → ``11th``, ``23`` → ``23rd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def queue_words(queue: object) -> str:
    """``TopicTest@broker-a:0`` → ``TopicTest queue 0 on broker-a`` (anything else stays as it is)."""
    text = str(queue)
    topic, at, rest = text.partition("@")
    broker, colon, queue_id = rest.rpartition(":")
    if not at or not colon:
        return text
    return f"{topic} queue {queue_id} on {broker}"


def error_words(error: object) -> str:
    """A remoting exception or broker answer, as a beginner would say it."""
    text = str(error)
    for needle, words in (
        ("Connect", "the broker could not be reached"),
        ("Timeout", "no answer came in time"),
        ("call timeout", "the time allowed for the send ran out"),
        ("SYSTEM_BUSY", "the broker said it is too busy"),
        ("NO_PERMISSION", "the broker refused it (no permission)"),
        ("TOPIC_NOT_EXIST", "the broker does not know the topic"),
        ("SUBSCRIPTION_GROUP_NOT_EXIST", "the broker does not know the group"),
        ("MESSAGE_ILLEGAL", "the broker rejected the message as invalid"),
        ("SERVICE_NOT_AVAILABLE", "the broker is not accepting writes"),
        ("SYSTEM_ERROR", "the broker had an internal error"),
        ("FLOW_CONTROL", "the broker asked it to slow down"),
    ):
        if needle in text:
            return words
    return "an error"


def _ids(ids: Sequence[str]) -> str:
    if not ids:
        return "nothing"
    shown = ", ".join(ids[:3])
    return shown + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")


def _send_attempt(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who, msg = e.data, name_of(e.actor), e.msg_id or "?"
    attempt, mode = int(d.get("attempt", 1)), str(d.get("mode", "SYNC"))
    place = f"{d.get('topic')} queue {d.get('queue_id')} on {d.get('broker')}"
    inner = "/inner" in who
    if attempt > 1:
        return f"{who} tries {msg} again (try {attempt}), now on {place}."
    if inner:
        return f"{who.split('/')[0]} puts {msg} into the retry topic {d.get('topic')} itself, as a new message."
    if d.get("entry") == "sendSelectImpl":
        tries = "one try, no retry" if mode != "ASYNC" else "one try, re-sent only if no answer comes"
        return f"{who} sends {msg} to {place}, the queue its selector picked: {tries}."
    if mode == "ONEWAY":
        return f"{who} sends {msg} to {place} without waiting for an answer."
    return f"{who} sends {msg} to {place}."


def _send_result(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    outcome, broker, who = str(d.get("outcome")), d.get("broker"), name_of(e.actor)
    if outcome == "SUCCESS":
        return f"{broker} stored {msg} and told {who} so: the send is done."
    if outcome == "ONEWAY_SENT":
        return f"{msg} is on the wire; {who} gets no answer."
    if outcome in ("FLUSH_DISK_TIMEOUT", "SLAVE_NOT_AVAILABLE", "FLUSH_SLAVE_TIMEOUT"):
        return f"{broker} stored {msg} but could not make it safe in time; {who} is told, with no retry."
    return f"{who}'s try {d.get('attempt', 1)} of {msg} on {broker} failed: {error_words(outcome)}."


def _send_failed(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    attempts = int(d.get("attempts") or 0)
    tries = f"{attempts} tr{'y' if attempts == 1 else 'ies'}"
    return f"{name_of(e.actor)} gives up on {msg} after {tries}: {error_words(d.get('error'))}."


def _stored(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    topic = str(d.get("topic"))
    if topic.startswith("%RETRY%"):
        return f"{e.actor} puts {msg} into the retry topic {topic}, where the group fetches it again."
    if topic.startswith("%DLQ%"):
        return f"{e.actor} stores {msg} in {topic} queue {d.get('queue_id')}."
    return f"{e.actor} stores {msg} in {topic} queue {d.get('queue_id')} at position {d.get('queue_offset')}."


def _scheduled(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    level, due = int(d.get("level", 0)), int(d.get("due_ms", e.time_ms))
    real = str(d.get("real_topic"))
    then = "the dead-letter topic" if real.startswith("%DLQ%") else real
    return f"{e.actor} holds {msg} for {dur(due - e.time_ms)} (delay level {level}), then puts it into {then}."


def _delay_delivered(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    broker = name_of(e.actor)
    return f"{msg}'s {dur(int(d.get('waited_ms', 0)))} wait is over: {broker} moves it into {d.get('topic')}."


def _pulled(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    return f"{name_of(e.actor)} fetches {_ids(list(d.get('msg_ids') or ()))} from {queue_words(d.get('queue'))}."


def _pull_deferred(ctx: CaptionContext, e: TraceEvent) -> str:
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


def _pull_empty(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who, queue = e.data, name_of(e.actor), queue_words(e.get("queue"))
    if d.get("status") == "OFFSET_ILLEGAL":
        asked, nxt = d.get("offset"), d.get("next_offset")
        return f"{who} asked {queue} for position {asked}, which is not there; it starts over at {nxt}."
    return f"{who} finds nothing new in {queue}."


def _delivered(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg, who = e.data, e.msg_id or "?", name_of(e.actor)
    rt = int(d.get("reconsume_times", 0))
    ctx.delivery_rt[msg] = rt
    if rt:
        return f"{who} hands {msg} to its listener again: retry {rt}, its {ordinal(rt + 1)} delivery."
    return f"{who} hands {msg} to its listener (the application's code)."


def _consumed(ctx: CaptionContext, e: TraceEvent) -> str:
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


def _send_back(ctx: CaptionContext, e: TraceEvent) -> str:
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
        if done.kind is K.SCHEDULED:
            wait = dur(int(done.get("due_ms", done.time_ms)) - done.time_ms)
            return f"{who} failed {msg} for the {nth} time, so it goes back to the broker and returns in {wait}."
        if done.kind is K.DEAD_LETTERED:
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


def _send_back_fallback(ctx: CaptionContext, e: TraceEvent) -> str:
    msg, who = e.msg_id or "?", name_of(e.actor)
    if e.data.get("ok"):
        return f"{who} puts {msg} into the retry topic itself, as a new message."
    return f"That failed too, so {who} keeps {msg} and retries it on its own."


def _local_retry(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    wait = dur(int(d.get("retry_in_ms", 5000)))
    return f"{name_of(e.actor)} keeps {e.msg_id} in memory and gives it to its listener again in {wait}."


def _dead_lettered(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    return f"{msg} is now a dead letter: nobody gets it unless they subscribe to {d.get('topic')}."


def _broadcast_dropped(ctx: CaptionContext, e: TraceEvent) -> str:
    return f"{name_of(e.actor)} drops the failed {e.msg_id}: broadcasting never retries a message."


def _offset_updated(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    return f"{name_of(e.actor)} has finished {queue_words(d.get('queue'))} up to position {d.get('offset')}."


def _offset_persisted(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    where = "its local file" if d.get("store") == "local" else "the broker"
    queue = queue_words(d.get("queue"))
    return f"{name_of(e.actor)}'s progress on {queue} (position {d.get('offset')}) is saved at {where}."


def _rebalanced(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who = e.data, name_of(e.actor)
    queues = list(d.get("queues") or ())
    if not queues:
        return f"{who} now reads no queue of {d.get('topic')}."
    ids = ", ".join(str(q).rpartition(":")[2] for q in queues)
    brokers = sorted({str(q).partition("@")[2].rpartition(":")[0] for q in queues})
    plural = "s" if len(queues) > 1 else ""
    return f"{who} now reads {len(queues)} queue{plural} of {d.get('topic')} ({ids} on {', '.join(brokers)})."


def _lock_batch(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who = e.data, name_of(e.actor)
    if d.get("error"):
        return f"{who} asks {d.get('broker')} for its queue locks but gets no answer ({error_words(d.get('error'))})."
    got, refused = len(d.get("locked") or ()), len(d.get("refused") or ())
    return f"{who} asks {d.get('broker')} for its queue locks: {got} granted, {refused} refused."


def _lock_acquired(ctx: CaptionContext, e: TraceEvent) -> str:
    who, queue = name_of(e.actor), queue_words(e.get("queue"))
    return f"{who} gets the lock on {queue}: now only {who} reads it, in order."


def _lock_renewed(ctx: CaptionContext, e: TraceEvent) -> str:
    return f"{name_of(e.actor)} renews its lock on {queue_words(e.get('queue'))}."


def _lock_refused(ctx: CaptionContext, e: TraceEvent) -> str:
    who, holder = name_of(e.actor), e.get("holder")
    by = f": {holder} holds it" if holder and holder != who else ""
    return f"{who} is refused the lock on {queue_words(e.get('queue'))}{by}, so it does not read that queue."


def _lock_expired(ctx: CaptionContext, e: TraceEvent) -> str:
    queue = queue_words(e.get("queue"))
    return (
        f"{e.get('previous_holder')} did not renew its lock on {queue} for 60 s, so {e.actor} gives it to "
        f"{e.get('new_holder')}."
    )


def _unlocked(ctx: CaptionContext, e: TraceEvent) -> str:
    return f"{name_of(e.actor)} gives back its lock on {queue_words(e.get('queue'))}."


def _suspended(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    wait = dur(int(d.get("retry_in_ms", 0)))
    return f"{name_of(e.actor)} pauses {queue_words(d.get('queue'))} for {wait}, then tries {e.msg_id} again there."


def _consume_request(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    delay = int(d.get("delay_ms", 0))
    later = f" in {dur(delay)}" if delay else ""
    return f"{name_of(e.actor)} schedules its listener for {queue_words(d.get('queue'))}{later}."


def _clean_expired(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    took = dur(int(d.get("consuming_for_ms", 0)))
    return f"{e.msg_id} has been in {name_of(e.actor)}'s listener for {took}, over 15 min, so it is sent back."


def _retention_deleted(ctx: CaptionContext, e: TraceEvent) -> str:
    return f"{e.actor} deletes {e.get('count')} messages older than 72 h, dead letters included."


def _fault(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    fault = str(d.get("fault"))
    if fault == "broker_down":
        return f"{e.actor} crashes: nobody can reach it now."
    if fault == "broker_up":
        return f"{e.actor} is back up."
    if fault == "partition":
        return f"The network between {d.get('client')} and {e.actor} is cut."
    if fault == "heal":
        return f"The network between {d.get('client')} and {e.actor} works again."
    return f"{e.actor} starts to misbehave ({fault})."


def _admin(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    what = d.get("group") or d.get("topic") or "its settings"
    return f"An operator changes {e.actor}'s settings for {what}."


def _lifecycle(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who = e.data, name_of(e.actor)
    return {
        "start": f"{who} starts and joins the group {d.get('group')}.",
        "crash": f"{who} crashes without saving its progress.",
        "shutting_down": f"{who} begins a clean shutdown: it lets running work finish.",
        "shutdown": f"{who} has saved its progress and stops.",
    }.get(str(d.get("event")), f"{who}: {d.get('event')}.")


_QUEUE = re.compile(r"\S+@[\w.-]+:\d+")


def _warning(ctx: CaptionContext, e: TraceEvent) -> str:
    queue = _QUEUE.search(str(e.get("message") or ""))
    about = f" with {e.msg_id}" if e.msg_id else f" with {queue_words(queue.group(0))}" if queue else ""
    return f"{name_of(e.actor)} runs into a problem{about} that RocketMQ only writes to its log."


PLAIN: dict[EventKind, Callable[[CaptionContext, TraceEvent], str]] = {
    K.SEND_ATTEMPT: _send_attempt,
    K.SEND_RESULT: _send_result,
    K.SEND_FAILED: _send_failed,
    K.STORED: _stored,
    K.SCHEDULED: _scheduled,
    K.DELAY_DELIVERED: _delay_delivered,
    K.PULLED: _pulled,
    K.PULL_DEFERRED: _pull_deferred,
    K.PULL_EMPTY: _pull_empty,
    K.DELIVERED: _delivered,
    K.CONSUMED: _consumed,
    K.SEND_BACK: _send_back,
    K.SEND_BACK_FALLBACK: _send_back_fallback,
    K.LOCAL_RETRY: _local_retry,
    K.DEAD_LETTERED: _dead_lettered,
    K.BROADCAST_DROPPED: _broadcast_dropped,
    K.OFFSET_UPDATED: _offset_updated,
    K.OFFSET_PERSISTED: _offset_persisted,
    K.REBALANCED: _rebalanced,
    K.LOCK_BATCH: _lock_batch,
    K.LOCK_ACQUIRED: _lock_acquired,
    K.LOCK_RENEWED: _lock_renewed,
    K.LOCK_REFUSED: _lock_refused,
    K.LOCK_EXPIRED: _lock_expired,
    K.UNLOCKED: _unlocked,
    K.SUSPENDED: _suspended,
    K.CONSUME_REQUEST: _consume_request,
    K.CLEAN_EXPIRED: _clean_expired,
    K.RETENTION_DELETED: _retention_deleted,
    K.FAULT: _fault,
    K.ADMIN: _admin,
    K.LIFECYCLE: _lifecycle,
    K.WARNING: _warning,
}
"""Event kind → the plain sentence of its caption's first line."""
