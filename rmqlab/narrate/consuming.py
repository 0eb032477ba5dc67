"""Captions of a push consumer's consume loop: pulls, deliveries, listener results, send-backs and their
fallbacks, local retries, ``cleanExpiredMsg`` and orderly suspends (``ConsumeMessageConcurrentlyService``,
``ConsumeMessageOrderlyService``, ``DefaultMQPushConsumerImpl``).

A send-back's caption is judged by what the broker just did with it (parked at a level, written to the DLQ, or
— with ``retryQueueNums`` 0 — nothing at all), which :class:`~rmqlab.narrate.context.CaptionContext` recorded.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.i18n import gettext as _
from ..core.trace import EventKind, TraceEvent
from .context import CaptionContext, dur, name_of
from .send_back_reason import cause_rule, note_consumed, note_delivered, note_sent_back, send_back_reason

__all__ = [
    "LOCAL_RETRY_MS",
    "on_broadcast_dropped",
    "on_clean_expired",
    "on_consume_request",
    "on_consumed",
    "on_delivered",
    "on_local_retry",
    "on_pull_deferred",
    "on_pull_empty",
    "on_pulled",
    "on_send_back",
    "on_send_back_fallback",
    "on_suspended",
]

LOCAL_RETRY_MS = 5000


def _offsets(offsets: Sequence[int]) -> str:
    if not offsets:
        return _("nothing")
    if len(offsets) == 1:
        return _("offset {offset}").format(offset=offsets[0])
    if list(offsets) == list(range(offsets[0], offsets[0] + len(offsets))):
        return _("offsets {first}–{last}").format(first=offsets[0], last=offsets[-1])
    return _("offsets {offsets}").format(offsets=", ".join(str(o) for o in offsets))


def _service(ctx: CaptionContext, actor: str) -> str:
    if ctx.consume_mode.get(actor) == "orderly":
        return "ConsumeMessageOrderlyService"
    return "ConsumeMessageConcurrentlyService"


def on_pulled(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d = e.data
    offsets, ids = list(d.get("offsets") or ()), list(d.get("msg_ids") or ())
    which = ", ".join(ids[:3]) + (" …" if len(ids) > 3 else "")
    return (
        "DefaultMQPushConsumerImpl.pullMessage",
        _(
            "{who} pulled {offsets} of {queue} ({ids}) into its ProcessQueue msgTreeMap; the next pull starts at "
            "offset {next}"
        ).format(
            who=name_of(e.actor), offsets=_offsets(offsets), queue=d.get("queue"), ids=which, next=d.get("next_offset")
        ),
    )


def on_pull_deferred(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d = e.data
    why = {
        "paused": _("the consumer is paused (suspend())"),
        "flow_control_count": _(
            "its ProcessQueue caches {count} messages, more than pullThresholdForQueue {threshold}"
        ).format(count=d.get("cached_count"), threshold=d.get("threshold")),
        "flow_control_size": _(
            "its ProcessQueue caches {mib} MiB of bodies, more than pullThresholdSizeForQueue {threshold}"
        ).format(mib=d.get("cached_mib"), threshold=d.get("threshold")),
        "flow_control_span": _(
            "its ProcessQueue spans {span} offsets, more than consumeConcurrentlyMaxSpan {threshold}"
        ).format(span=d.get("span"), threshold=d.get("threshold")),
        "not_locked": _("the queue is not locked at the broker (orderly)"),
        "broker_flow_control": _("the broker answered FLOW_CONTROL"),
    }.get(str(d.get("reason")), _("the pull failed ({error})").format(error=d.get("error")))
    return (
        "DefaultMQPushConsumerImpl.pullMessage",
        _("{who} puts off the pull of {queue} for {delay} ms: {why} (executePullRequestLater)").format(
            who=name_of(e.actor), queue=d.get("queue"), delay=d.get("delay_ms"), why=why
        ),
    )


def on_pull_empty(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, who, queue = e.data, name_of(e.actor), e.get("queue")
    status, asked, nxt = d.get("status"), d.get("offset"), d.get("next_offset")
    if status == "OFFSET_ILLEGAL":
        what = _(
            "offset {asked} is not in the queue: the ProcessQueue is dropped, the pull loop stops, and {later} later "
            "offset {next} is stored and persisted and the queue removed, for the next rebalance to create again"
        ).format(asked=asked, later=dur(int(d.get("fix_in_ms", 10_000))), next=nxt)
    elif d.get("corrected"):
        what = _(
            "nothing at {asked}; the ProcessQueue is empty, so correctTagsOffset moves the offset to {next}"
        ).format(asked=asked, next=nxt)
    else:
        what = _("nothing at {asked}; the next pull asks for {next}, the committed offset stays").format(
            asked=asked, next=nxt
        )
    return "DefaultMQPushConsumerImpl.pullMessage", _("{who}'s pull of {queue} answered {status}: {what}").format(
        who=who, queue=queue, status=status, what=what
    )


def on_consume_request(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, queue = e.data, e.get("queue")
    delay, reason = int(d.get("delay_ms", 0)), str(d.get("reason"))
    if not delay:
        return "ConsumeMessageOrderlyService.submitConsumeRequest", _(
            "messages of {queue} were pulled while it was idle: a ConsumeRequest goes to the consume pool (one per "
            "queue at a time; while it runs, new messages just wait in the ProcessQueue)"
        ).format(queue=queue)
    why = {
        "suspend": _("the listener suspended or rolled back (suspendCurrentQueueTimeMillis, clamped to 10..30000 ms)"),
        "continuous_60s": _(
            "this request consumed for more than 60 s (MAX_TIME_CONSUME_CONTINUOUSLY): other queues get the thread"
        ),
        "relocked": _("the broker lock was had again"),
        "lock_failed": _("the broker lock could not be had"),
    }.get(reason, reason)
    return "ConsumeMessageOrderlyService.submitConsumeRequestLater", _(
        "{queue} is consumed again in {delay} ms: {why}"
    ).format(queue=queue, delay=delay, why=why)


def on_delivered(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg, who = e.data, e.msg_id or "?", name_of(e.actor)
    note_delivered(ctx, e)
    rt, queue = int(d.get("reconsume_times", 0)), str(d.get("queue"))
    service = _service(ctx, e.actor)
    batch = _(" (batch of {size})").format(size=d.get("batch")) if int(d.get("batch", 1)) > 1 else ""
    if queue.startswith("%RETRY%"):
        what = _("retry {rt} of {msg} from {queue}, shown under its original topic {topic}").format(
            rt=rt, msg=msg, queue=queue, topic=d.get("topic")
        )
    elif rt:
        what = _("{msg} again (reconsumeTimes {rt}, local retry) from {queue}").format(msg=msg, rt=rt, queue=queue)
    else:
        what = _("{msg} (offset {offset} of {queue}, reconsumeTimes 0)").format(
            msg=msg, offset=d.get("queue_offset"), queue=queue
        )
    lock = (
        _(" while holding the MessageQueueLock and the ProcessQueue consume lock")
        if service == "ConsumeMessageOrderlyService"
        else ""
    )
    return f"{service}.ConsumeRequest.run", _("{who}'s listener is called with {what}{batch}{lock}").format(
        who=who, what=what, batch=batch, lock=lock
    )


def on_consumed(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg, who = e.data, e.msg_id or "?", name_of(e.actor)
    status, how, took = str(d.get("status")), str(d.get("return_type")), int(d.get("took_ms", 0))
    note_consumed(ctx, e)
    ctx.broker_did.pop(msg, None)
    ctx.inner_send.discard(msg)
    ctx.cleaned.pop(msg, None)
    ctx.last_hop.pop(msg, None)
    took_text = _(" after {took}").format(took=dur(took)) if took else ""
    returned = _("the listener returned {status}").format(status=status)
    if status in ("CONSUME_SUCCESS", "RECONSUME_LATER"):
        where = "ConsumeMessageConcurrentlyService.ConsumeRequest.run"
        cause = {
            "EXCEPTION": _("the listener threw, which counts as RECONSUME_LATER"),
            "RETURNNULL": _("the listener returned null, which counts as RECONSUME_LATER"),
        }.get(how, returned)
        if status == "CONSUME_SUCCESS":
            then = _("processConsumeResult removes it from the ProcessQueue")
        elif ctx.message_model.get(e.actor) == "BROADCASTING":
            then = _("BROADCASTING: processConsumeResult will drop it")
        else:
            then = _("processConsumeResult will send it back to the broker")
        slow = _(" (slow, but TIME_OUT is only a stats label: the status stands)") if how == "TIME_OUT" else ""
        return where, _("{cause} for {msg} in {who}{took}{slow}; {then}").format(
            cause=cause, msg=msg, who=who, took=took_text, slow=slow, then=then
        )
    where = "ConsumeMessageOrderlyService.processConsumeResult"
    if status == "SUSPEND_CURRENT_QUEUE_A_MOMENT":
        cause = {
            "EXCEPTION": _("the listener threw, which counts as SUSPEND_CURRENT_QUEUE_A_MOMENT"),
            "RETURNNULL": _("the listener returned null, which counts as SUSPEND_CURRENT_QUEUE_A_MOMENT"),
        }.get(how, returned)
        return where, _("{cause} for {msg} in {who}{took}; checkReconsumeTimes decides: retry here, or DLQ").format(
            cause=cause, msg=msg, who=who, took=took_text
        )
    if d.get("auto_commit") is False:  # processConsumeResult's second switch: the listener commits by hand
        manual = {
            "SUCCESS": _("autoCommit is off, so SUCCESS commits nothing: the offset stays until a COMMIT"),
            "COMMIT": _("autoCommit is off, so COMMIT calls commit(), which makes the offset lastKey + 1"),
            "ROLLBACK": _("autoCommit is off, so rollback() puts every uncommitted message back to be consumed again"),
        }.get(status)
        if manual:
            return where, _("{returned} for {msg}{took}; {then}").format(
                returned=returned, msg=msg, took=took_text, then=manual
            )
    if status in ("COMMIT", "ROLLBACK"):  # autoCommit on: logged as illegal, then handled as SUCCESS
        return where, _("the listener returned deprecated {status} for {msg}{took}").format(
            status=status, msg=msg, took=took_text
        )
    return where, _("the listener returned {status} for {msg}{took}; commit() makes the offset lastKey + 1").format(
        status=status, msg=msg, took=took_text
    )


def on_send_back(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    group = ctx.group_of.get(e.actor, "?")
    rt, max_times = int(d.get("reconsume_times", 0)), d.get("max_reconsume_times")
    if max_times is not None:
        ctx.max_reconsume_times[group] = int(max_times)
    did = ctx.broker_did.pop(msg, [])
    level = d.get("delay_level")
    if d.get("path") == "orderly":
        where = "ConsumeMessageOrderlyService.checkReconsumeTimes"
        if not d.get("ok"):
            return where, _(
                "reconsumeTimes {rt} ≥ maxReconsumeTimes {max}, but sending {msg} to %RETRY%{group} failed "
                "({error}); the queue suspends and retries locally"
            ).format(rt=rt, max=max_times, msg=msg, group=group, error=d.get("error"))
        return where, _(
            "reconsumeTimes {rt} ≥ maxReconsumeTimes {max} → sendMessageBack produces {msg} to %RETRY%{group} with "
            "RECONSUME_TIME {rt}; the broker's handleRetryAndDLQ routes it to %DLQ%{group} and the queue moves on"
        ).format(rt=rt, max=max_times, msg=msg, group=group)
    reason = send_back_reason(ctx, e)
    note_sent_back(ctx, e)
    cleaned = ctx.cleaned.pop(msg, None) is not None
    where = "ProcessQueue.cleanExpiredMsg" if cleaned else "ConsumeMessageConcurrentlyService.processConsumeResult"
    head = cause_rule(reason, msg, level)
    call = _("{call} via MQClientAPIImpl.consumerSendMessageBack to {broker}").format(call=head, broker=d.get("broker"))
    if not d.get("ok"):
        return where, _(
            "{call} failed ({error}); the client falls back to producing a new %RETRY%{group} message itself "
            "(CLIENT_INNER_PRODUCER)"
        ).format(call=call, error=d.get("error"), group=group)
    call = head  # it reached the broker: the rule it applied says more than the RPC's path
    broker = "SendMessageProcessor.asyncConsumerSendMsgBack"
    for done in did:
        if done.kind is EventKind.SCHEDULED:
            lvl, due = int(done.get("level", 0)), int(done.get("due_ms", e.time_ms))
            if level == 0 and not cleaned:
                how = _("uses 3 + reconsumeTimes {rt} = level {level}").format(rt=rt, level=lvl)
                if 3 + rt > lvl:
                    how = _("uses 3 + reconsumeTimes {rt} = {sum}, capped at level {level}").format(
                        rt=rt, sum=3 + rt, level=lvl
                    )
            else:
                how = _("keeps delay level {level}").format(level=lvl)
            return where, _("{call}; {broker} {how}, due in {due}").format(
                call=call, broker=broker, how=how, due=dur(due - done.time_ms)
            )
        if done.kind is EventKind.DEAD_LETTERED:
            if isinstance(level, int) and level < 0:
                why = f"delayLevel {level} < 0"
            else:
                why = f"reconsumeTimes {rt} ≥ maxReconsumeTimes {max_times}"
            return where, _("{call}; {broker}: {why}, so it goes to {topic}").format(
                call=call, broker=broker, why=why, topic=done.get("topic")
            )
    if group == "?":  # narrated without the run before it: what the broker stored is not known here
        return where, _("{call}; {broker} answered SUCCESS").format(call=call, broker=broker)
    return where, _(
        "{call}; {broker} answered SUCCESS but stored nothing — retryQueueNums is 0 for {group}, so {msg} is "
        "silently dropped"
    ).format(call=call, broker=broker, group=group, msg=msg)


def on_send_back_fallback(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    group = ctx.group_of.get(e.actor, "?")
    where = "DefaultMQPushConsumerImpl.sendMessageBack"
    if d.get("ok"):
        return where, _(
            "fallback: CLIENT_INNER_PRODUCER produced a new %RETRY%{group} message for {msg} with RECONSUME_TIME {rt} "
            "and DELAY {level} (3 + reconsumeTimes; the listener's delayLevelWhenNextConsume is ignored here)"
        ).format(group=group, msg=msg, rt=d.get("reconsume_times"), level=d.get("delay_level"))
    return where, _(
        "fallback: producing {msg} to %RETRY%{group} failed too ({error}), so sendMessageBack returns false and the "
        "message is re-consumed locally"
    ).format(msg=msg, group=group, error=d.get("error"))


def on_local_retry(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    return (
        "ConsumeMessageConcurrentlyService.submitConsumeRequestLater",
        _(
            "send-back and fallback both failed: {msg} stays in the ProcessQueue of {queue} (pinning the committed "
            "offset) and is consumed again in {delay} ms with reconsumeTimes {rt} (in memory only)"
        ).format(
            msg=msg, queue=d.get("queue"), delay=d.get("retry_in_ms", LOCAL_RETRY_MS), rt=d.get("reconsume_times")
        ),
    )


def on_broadcast_dropped(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    return (
        "ConsumeMessageConcurrentlyService.processConsumeResult",
        _(
            "BROADCASTING, the message consume failed, drop it: {msg} from {queue} is dropped — never retried and "
            "never acked; the offset moves past it anyway"
        ).format(msg=msg, queue=d.get("queue")),
    )


def on_clean_expired(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    ctx.cleaned[msg] = int(d.get("consuming_for_ms", 0))
    ctx.broker_did.pop(msg, None)
    return (
        "ProcessQueue.cleanExpiredMsg",
        _(
            "{msg} at offset {offset} of {queue} has been consuming for {took} > consumeTimeout 15 min, so it is "
            "sent back with delay level 3 and removed; the listener thread is not interrupted"
        ).format(
            msg=msg, offset=d.get("queue_offset"), queue=d.get("queue"), took=dur(int(d.get("consuming_for_ms", 0)))
        ),
    )


def on_suspended(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    """checkReconsumeTimes compares ``msg.getReconsumeTimes() >= getMaxReconsumeTimes()`` BEFORE it adds one: the
    event carries the count after the increment, so the caption says the count that was compared (one less) and the
    max it was compared with (a trace without ``max_reconsume_times`` leaves the max out)."""
    d, msg = e.data, e.msg_id or "?"
    now, max_times = int(d.get("reconsume_times", 0)), d.get("max_reconsume_times")
    where = "ConsumeMessageOrderlyService.processConsumeResult"
    then = _(
        "makeMessageToConsumeAgain puts it back and {queue} waits {delay} ms (suspendCurrentQueueTimeMillis, "
        "submitConsumeRequestLater); no broker round trip, nothing behind it is consumed"
    ).format(queue=d.get("queue"), delay=d.get("retry_in_ms"))
    if max_times is None:
        head = _("SUSPEND_CURRENT_QUEUE_A_MOMENT: reconsumeTimes of {msg} is now {rt}").format(msg=msg, rt=now)
    elif now - 1 < int(max_times):
        head = _(
            "SUSPEND_CURRENT_QUEUE_A_MOMENT: reconsumeTimes of {msg} was {was}, below maxReconsumeTimes {max}, "
            "so it is tried again (now {rt})"
        ).format(msg=msg, was=now - 1, max=max_times, rt=now)
    else:  # at the max, but its sendMessageBack to %RETRY% failed: suspended and counted all the same
        head = _(
            "SUSPEND_CURRENT_QUEUE_A_MOMENT: reconsumeTimes of {msg} was {was}, not below maxReconsumeTimes {max}, "
            "but its send-back failed, so it stays and is counted (now {rt})"
        ).format(msg=msg, was=now - 1, max=max_times, rt=now)
    return where, head + _("; ") + then
