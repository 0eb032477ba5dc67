"""Plain first lines for the consume side: pulls, deliveries, consume results, send-backs, offsets, rebalancing and
queue locks (the rules of :mod:`~rmqlab.narrate.plain` hold: no Java identifier, only the run's own names).
"""

from __future__ import annotations

from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from ..core.trace import EventKind, TraceEvent
from .context import CaptionContext, copy_number, dur, name_of
from .plain_words import copy_words, error_words, ids_words, ordinal, queue_words
from .send_back_reason import cause_words, send_back_reason

__all__ = [
    "DONE_WITH",
    "DROPS_FAILED",
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
    return _("{who} fetches {ids} from {queue}.").format(
        who=name_of(e.actor), ids=ids_words(list(d.get("msg_ids") or ())), queue=queue_words(d.get("queue"))
    )


def pull_deferred(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    why = {
        "paused": _("it is paused"),
        "flow_control_count": _("it already holds too many messages from that queue"),
        "flow_control_size": _("it already holds too many bytes from that queue"),
        "flow_control_span": _("its messages from that queue span too many positions"),
        "not_locked": _("it does not hold that queue's lock"),
        "broker_flow_control": _("the broker asked it to slow down"),
    }.get(str(d.get("reason")), _("the fetch failed ({why})").format(why=error_words(d.get("error"))))
    wait, queue = dur(int(d.get("delay_ms", 0))), queue_words(d.get("queue"))
    return _("{who} waits {wait} before fetching from {queue}: {why}.").format(
        who=name_of(e.actor), wait=wait, queue=queue, why=why
    )


def pull_empty(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who, queue = e.data, name_of(e.actor), queue_words(e.get("queue"))
    if d.get("status") == "OFFSET_ILLEGAL":
        asked, nxt = d.get("offset"), d.get("next_offset")
        return _("{who} asked {queue} for position {asked}, which is not there; it starts over at {next}.").format(
            who=who, queue=queue, asked=asked, next=nxt
        )
    return _("{who} finds nothing new in {queue}.").format(who=who, queue=queue)


def delivered(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg, who = e.data, e.msg_id or "?", name_of(e.actor)
    rt = int(d.get("reconsume_times", 0))
    ctx.delivery_rt[msg] = rt
    dlq = str(d.get("queue", "")).split("@", 1)[0]
    if dlq.startswith("%DLQ%"):  # a dead letter read by a subscriber of the DLQ (lab 04's operator): not a retry
        return _("{who} reads the dead letter {msg} from {topic} and hands it to its listener.").format(
            who=who, msg=msg, topic=dlq
        )
    if rt:
        return _("{who} hands {msg} to its listener again: retry {rt}, its {nth} delivery.").format(
            who=who, msg=msg, rt=rt, nth=ordinal(rt + 1)
        )
    copy = copy_number(ctx, e)
    if copy > 1:  # a duplicate under the same id: the listener sees this message id again
        return _("{who} hands {copy} to its listener (the application's code).").format(
            who=who, copy=copy_words(msg, copy)
        )
    return _("{who} hands {msg} to its listener (the application's code).").format(who=who, msg=msg)


DONE_WITH = N_("{who}'s listener is done with {msg}.")
DROPS_FAILED = N_("{who} drops the failed {msg}: broadcasting never retries a message.")
"""The sentences that put a message in its group's "consumed" tray and in a BROADCASTING instance's "dropped" one:
a checkpoint's pause never leads with them when they are its answer (:mod:`widgets.checkpoint_lead`)."""


def consumed(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg, who = e.data, e.msg_id or "?", name_of(e.actor)
    status = str(d.get("status"))
    if status in ("CONSUME_SUCCESS", "SUCCESS", "COMMIT"):
        return _(DONE_WITH).format(who=who, msg=msg)
    if ctx.message_model.get(e.actor) == "BROADCASTING":
        return _("{who}'s listener fails {msg}.").format(who=who, msg=msg)  # the drop that follows says why
    if status == "SUSPEND_CURRENT_QUEUE_A_MOMENT":
        nth = ordinal(ctx.delivery_rt.get(msg, 0) + 1)
        return _("{who}'s listener fails {msg} for the {nth} time and asks to wait before trying it again.").format(
            who=who, msg=msg, nth=nth
        )
    return _("{who}'s listener fails {msg}.").format(who=who, msg=msg)


def send_back(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg, who = e.data, e.msg_id or "?", name_of(e.actor)
    rt = int(d.get("reconsume_times", 0))
    nth = ordinal(rt + 1)
    group = ctx.group_of.get(e.actor, "?")
    if d.get("path") == "orderly":
        if not d.get("ok"):
            return _("{who} could not hand {msg} to the broker ({why}); it keeps retrying it.").format(
                who=who, msg=msg, why=error_words(d.get("error"))
            )
        times = ngettext("{count} time", "{count} times", rt).format(count=rt)
        return _(
            "{who} has retried {msg} {times}, its limit, so it goes to the dead-letter topic %DLQ%{group}."
        ).format(who=who, msg=msg, times=times, group=group)
    if not d.get("ok"):
        why = error_words(d.get("error"))
        return _("{who} could not send {msg} back to {broker} ({why}), so it tries another way.").format(
            who=who, msg=msg, broker=d.get("broker"), why=why
        )
    cause = cause_words(send_back_reason(ctx, e), ctx, e)
    if cause:  # not a plain RECONSUME_LATER: an exception, a null, the ack index, the consume timeout
        return _send_back_because(ctx, e, cause, group)
    for done in ctx.broker_did.get(msg, []):
        if done.kind is EventKind.SCHEDULED:
            wait = dur(int(done.get("due_ms", done.time_ms)) - done.time_ms)
            topic = done.get("real_topic") or f"%RETRY%{group}"  # where it is due; a stranded queue is never pulled
            return _(
                "{who} failed {msg} for the {nth} time, so it goes back to the broker: into {topic} in {wait}."
            ).format(who=who, msg=msg, nth=nth, wait=wait, topic=topic)
        if done.kind is EventKind.DEAD_LETTERED:
            level = d.get("delay_level")
            if isinstance(level, int) and level < 0:
                return _(
                    "{who} failed {msg} and its listener asked for no more retries, so it goes to the "
                    "dead-letter topic."
                ).format(who=who, msg=msg)
            return _(
                "{who} failed {msg} for the {nth} time, its last allowed try, so it goes to the dead-letter topic."
            ).format(who=who, msg=msg, nth=nth)
    if group == "?":
        return _("{who} failed {msg} for the {nth} time, so it goes back to the broker.").format(
            who=who, msg=msg, nth=nth
        )
    return _(
        "{who} failed {msg} for the {nth} time and sends it back, but {group} has no retry queue: {msg} is lost."
    ).format(who=who, msg=msg, nth=nth, group=group)


def _send_back_because(ctx: CaptionContext, e: TraceEvent, cause: str, group: str) -> str:
    """A send-back's sentence when its cause is not a plain failure: the cause, then what the broker did."""
    msg, level = e.msg_id or "?", e.data.get("delay_level")
    for done in ctx.broker_did.get(msg, []):
        if done.kind is EventKind.SCHEDULED:
            wait = dur(int(done.get("due_ms", done.time_ms)) - done.time_ms)
            topic = done.get("real_topic") or f"%RETRY%{group}"
            return _("{cause}, so {msg} goes back to the broker: into {topic} in {wait}.").format(
                cause=cause, msg=msg, wait=wait, topic=topic
            )
        if done.kind is EventKind.DEAD_LETTERED and isinstance(level, int) and level < 0:
            return _(
                "{cause}, and the listener asked for no more retries, so {msg} goes to the dead-letter topic."
            ).format(cause=cause, msg=msg)
        if done.kind is EventKind.DEAD_LETTERED:
            return _("{cause}; {msg} has had its last allowed try, so it goes to the dead-letter topic.").format(
                cause=cause, msg=msg
            )
    if group == "?":
        return _("{cause}, so {msg} goes back to the broker.").format(cause=cause, msg=msg)
    return _("{cause}, so {msg} is sent back, but {group} has no retry queue: {msg} is lost.").format(
        cause=cause, msg=msg, group=group
    )


def send_back_fallback(ctx: CaptionContext, e: TraceEvent) -> str:
    msg, who = e.msg_id or "?", name_of(e.actor)
    if e.data.get("ok"):  # said alone as its step's sentence: with its cause (the send-back that failed)
        said = _("{who} could not send {msg} back, so it puts it into the retry topic itself, as a new message.")
        return said.format(who=who, msg=msg)
    return _("That failed too, so {who} keeps {msg} and retries it on its own.").format(who=who, msg=msg)


def local_retry(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    wait = dur(int(d.get("retry_in_ms", 5000)))  # its step's one sentence: the cause, then what c1 does
    return _("{who} could not send {msg} back, so it keeps it and gives it to its listener again in {wait}.").format(
        who=name_of(e.actor), msg=e.msg_id, wait=wait
    )


def dead_lettered(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    return _("{msg} is now a dead letter: nobody gets it unless they subscribe to {topic}.").format(
        msg=msg, topic=d.get("topic")
    )


def broadcast_dropped(ctx: CaptionContext, e: TraceEvent) -> str:
    return _(DROPS_FAILED).format(
        who=name_of(e.actor), msg=e.msg_id
    )


def offset_updated(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    previous, offset = d.get("previous"), d.get("offset")
    if isinstance(previous, int) and isinstance(offset, int) and previous >= 0 and offset - previous > 1:
        jump = _("{who}'s offset on {queue} jumps from {previous} to {offset}: every message before it is done.")
        return jump.format(who=name_of(e.actor), queue=queue_words(d.get("queue")), previous=previous, offset=offset)
    return _("{who} has finished {queue} up to position {offset}.").format(
        who=name_of(e.actor), queue=queue_words(d.get("queue")), offset=d.get("offset")
    )


def offset_persisted(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    where = _("its local file") if d.get("store") == "local" else _("the broker")
    queue = queue_words(d.get("queue"))
    return _("{who}'s progress on {queue} (position {offset}) is saved at {where}.").format(
        who=name_of(e.actor), queue=queue, offset=d.get("offset"), where=where
    )


def rebalanced(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who = e.data, name_of(e.actor)
    queues = list(d.get("queues") or ())
    if not queues:
        return _("{who} now reads no queue of {topic}.").format(who=who, topic=d.get("topic"))
    ids = ", ".join(str(q).rpartition(":")[2] for q in queues)
    brokers = sorted({str(q).partition("@")[2].rpartition(":")[0] for q in queues})
    if len(brokers) > 1:  # "0, 1, 0, 1 on broker-a, broker-b" said which broker has which queue only by position
        where = _("; ").join(
            _("{ids} on {broker}").format(
                ids=", ".join(str(q).rpartition(":")[2] for q in queues if f"@{broker}:" in str(q)), broker=broker
            )
            for broker in brokers
        )
        return _("{who} now reads {count} queues of {topic} ({where}).").format(
            who=who, count=len(queues), topic=d.get("topic"), where=where
        )
    return ngettext(
        "{who} now reads {count} queue of {topic} ({ids} on {brokers}).",
        "{who} now reads {count} queues of {topic} ({ids} on {brokers}).",
        len(queues),
    ).format(who=who, count=len(queues), topic=d.get("topic"), ids=ids, brokers=", ".join(brokers))


def lock_batch(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who = e.data, name_of(e.actor)
    if d.get("error"):
        return _("{who} asks {broker} for its queue locks but gets no answer ({why}).").format(
            who=who, broker=d.get("broker"), why=error_words(d.get("error"))
        )
    got, refused = len(d.get("locked") or ()), len(d.get("refused") or ())
    return _("{who} asks {broker} for its queue locks: {got} granted, {refused} refused.").format(
        who=who, broker=d.get("broker"), got=got, refused=refused
    )


def lock_acquired(ctx: CaptionContext, e: TraceEvent) -> str:
    who, queue = name_of(e.actor), queue_words(e.get("queue"))
    return _("{who} gets the lock on {queue}: now only {who} reads it, in order.").format(who=who, queue=queue)


def lock_renewed(ctx: CaptionContext, e: TraceEvent) -> str:
    return _("{who} renews its lock on {queue}.").format(who=name_of(e.actor), queue=queue_words(e.get("queue")))


def lock_refused(ctx: CaptionContext, e: TraceEvent) -> str:
    who, holder = name_of(e.actor), e.get("holder")
    by = _(": {holder} holds it").format(holder=holder) if holder and holder != who else ""
    return _("{who} is refused the lock on {queue}{by}, so it does not read that queue.").format(
        who=who, queue=queue_words(e.get("queue")), by=by
    )


def lock_expired(ctx: CaptionContext, e: TraceEvent) -> str:
    queue = queue_words(e.get("queue"))
    return _("{previous} did not renew its lock on {queue} for 60 s, so {broker} gives it to {new}.").format(
        previous=e.get("previous_holder"), queue=queue, broker=e.actor, new=e.get("new_holder")
    )


def unlocked(ctx: CaptionContext, e: TraceEvent) -> str:
    return _("{who} gives back its lock on {queue}.").format(who=name_of(e.actor), queue=queue_words(e.get("queue")))


def suspended(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    wait = dur(int(d.get("retry_in_ms", 0)))
    return _("{msg} failed, so {who} pauses {queue} for {wait}, then tries it again there.").format(
        who=name_of(e.actor), queue=queue_words(d.get("queue")), wait=wait, msg=e.msg_id
    )


def consume_request(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    delay = int(d.get("delay_ms", 0))
    if d.get("reason") == "continuous_60s":  # MAX_TIME_CONSUME_CONTINUOUSLY: a yield, not a suspension
        return _(
            "{who} has consumed {queue} for over 60 s in a row, so it gives the thread back to its other queues and "
            "goes on with this one in {wait}."
        ).format(who=name_of(e.actor), queue=queue_words(d.get("queue")), wait=dur(delay))
    later = _(" in {wait}").format(wait=dur(delay)) if delay else ""
    return _("{who} schedules its listener for {queue}{later}.").format(
        who=name_of(e.actor), queue=queue_words(d.get("queue")), later=later
    )
