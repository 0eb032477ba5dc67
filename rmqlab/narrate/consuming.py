"""Captions of a push consumer's consume loop: pulls, deliveries, listener results, send-backs and their
fallbacks, local retries, ``cleanExpiredMsg`` and orderly suspends (``ConsumeMessageConcurrentlyService``,
``ConsumeMessageOrderlyService``, ``DefaultMQPushConsumerImpl``).

A send-back's caption is judged by what the broker just did with it (parked at a level, written to the DLQ, or
— with ``retryQueueNums`` 0 — nothing at all), which :class:`~rmqlab.narrate.context.CaptionContext` recorded.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.trace import EventKind, TraceEvent
from .context import CaptionContext, dur, name_of

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
        return "nothing"
    if len(offsets) == 1:
        return f"offset {offsets[0]}"
    if list(offsets) == list(range(offsets[0], offsets[0] + len(offsets))):
        return f"offsets {offsets[0]}–{offsets[-1]}"
    return "offsets " + ", ".join(str(o) for o in offsets)


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
        f"{name_of(e.actor)} pulled {_offsets(offsets)} of {d.get('queue')} ({which}) into its ProcessQueue "
        f"msgTreeMap; the next pull starts at offset {d.get('next_offset')}",
    )


def on_pull_deferred(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d = e.data
    why = {
        "paused": "the consumer is paused (suspend())",
        "flow_control_count": f"its ProcessQueue caches {d.get('cached_count')} messages, more than "
        f"pullThresholdForQueue {d.get('threshold')}",
        "flow_control_size": f"its ProcessQueue caches {d.get('cached_mib')} MiB of bodies, more than "
        f"pullThresholdSizeForQueue {d.get('threshold')}",
        "flow_control_span": f"its ProcessQueue spans {d.get('span')} offsets, more than "
        f"consumeConcurrentlyMaxSpan {d.get('threshold')}",
        "not_locked": "the queue is not locked at the broker (orderly)",
        "broker_flow_control": "the broker answered FLOW_CONTROL",
    }.get(str(d.get("reason")), f"the pull failed ({d.get('error')})")
    return (
        "DefaultMQPushConsumerImpl.pullMessage",
        f"{name_of(e.actor)} puts off the pull of {d.get('queue')} for {d.get('delay_ms')} ms: {why} "
        f"(executePullRequestLater)",
    )


def on_pull_empty(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, who, queue = e.data, name_of(e.actor), e.get("queue")
    status, asked, nxt = d.get("status"), d.get("offset"), d.get("next_offset")
    if status == "OFFSET_ILLEGAL":
        what = (
            f"offset {asked} is not in the queue: the ProcessQueue is dropped, the pull loop stops, and "
            f"{dur(int(d.get('fix_in_ms', 10_000)))} later offset {nxt} is stored and persisted and the queue removed, "
            f"for the next rebalance to create again"
        )
    elif d.get("corrected"):
        what = f"nothing at {asked}; the ProcessQueue is empty, so correctTagsOffset moves the offset to {nxt}"
    else:
        what = f"nothing at {asked}; the next pull asks for {nxt}, the committed offset stays"
    return "DefaultMQPushConsumerImpl.pullMessage", f"{who}'s pull of {queue} answered {status}: {what}"


def on_consume_request(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, queue = e.data, e.get("queue")
    delay, reason = int(d.get("delay_ms", 0)), str(d.get("reason"))
    if not delay:
        return "ConsumeMessageOrderlyService.submitConsumeRequest", (
            f"messages of {queue} were pulled while it was idle: a ConsumeRequest goes to the consume pool (one per "
            f"queue at a time; while it runs, new messages just wait in the ProcessQueue)"
        )
    why = {
        "suspend": "the listener suspended or rolled back (suspendCurrentQueueTimeMillis, clamped to 10..30000 ms)",
        "continuous_60s": "this request consumed for more than 60 s (MAX_TIME_CONSUME_CONTINUOUSLY): other queues "
        "get the thread",
        "relocked": "the broker lock was had again",
        "lock_failed": "the broker lock could not be had",
    }.get(reason, reason)
    return "ConsumeMessageOrderlyService.submitConsumeRequestLater", (f"{queue} is consumed again in {delay} ms: {why}")


def on_delivered(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg, who = e.data, e.msg_id or "?", name_of(e.actor)
    rt, queue = int(d.get("reconsume_times", 0)), str(d.get("queue"))
    service = _service(ctx, e.actor)
    batch = f" (batch of {d.get('batch')})" if int(d.get("batch", 1)) > 1 else ""
    if queue.startswith("%RETRY%"):
        what = f"retry {rt} of {msg} from {queue}, shown under its original topic {d.get('topic')}"
    elif rt:
        what = f"{msg} again (reconsumeTimes {rt}, local retry) from {queue}"
    else:
        what = f"{msg} (offset {d.get('queue_offset')} of {queue}, reconsumeTimes 0)"
    lock = (
        " while holding the MessageQueueLock and the ProcessQueue consume lock"
        if service == "ConsumeMessageOrderlyService"
        else ""
    )
    return f"{service}.ConsumeRequest.run", f"{who}'s listener is called with {what}{batch}{lock}"


def on_consumed(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg, who = e.data, e.msg_id or "?", name_of(e.actor)
    status, how, took = str(d.get("status")), str(d.get("return_type")), int(d.get("took_ms", 0))
    ctx.broker_did.pop(msg, None)
    ctx.inner_send.discard(msg)
    ctx.cleaned.discard(msg)
    ctx.last_hop.pop(msg, None)
    took_text = f" after {dur(took)}" if took else ""
    if status in ("CONSUME_SUCCESS", "RECONSUME_LATER"):
        where = "ConsumeMessageConcurrentlyService.ConsumeRequest.run"
        cause = {
            "EXCEPTION": "the listener threw, which counts as RECONSUME_LATER",
            "RETURNNULL": "the listener returned null, which counts as RECONSUME_LATER",
            "TIME_OUT": f"the listener returned {status}",
        }.get(how, f"the listener returned {status}")
        if status == "CONSUME_SUCCESS":
            then = "processConsumeResult removes it from the ProcessQueue"
        elif ctx.message_model.get(e.actor) == "BROADCASTING":
            then = "BROADCASTING: processConsumeResult will drop it"
        else:
            then = "processConsumeResult will send it back to the broker"
        slow = " (slow, but TIME_OUT is only a stats label: the status stands)" if how == "TIME_OUT" else ""
        return where, f"{cause} for {msg} in {who}{took_text}{slow}; {then}"
    where = "ConsumeMessageOrderlyService.processConsumeResult"
    if status == "SUSPEND_CURRENT_QUEUE_A_MOMENT":
        cause = {
            "EXCEPTION": "the listener threw, which counts as SUSPEND_CURRENT_QUEUE_A_MOMENT",
            "RETURNNULL": "the listener returned null, which counts as SUSPEND_CURRENT_QUEUE_A_MOMENT",
        }.get(how, "the listener returned SUSPEND_CURRENT_QUEUE_A_MOMENT")
        return where, f"{cause} for {msg} in {who}{took_text}; checkReconsumeTimes decides: retry here, or DLQ"
    if status in ("COMMIT", "ROLLBACK"):
        return where, f"the listener returned deprecated {status} for {msg}{took_text}"
    return where, f"the listener returned {status} for {msg}{took_text}; commit() makes the offset lastKey + 1"


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
            return where, (
                f"reconsumeTimes {rt} ≥ maxReconsumeTimes {max_times}, but sending {msg} to %RETRY%{group} failed "
                f"({d.get('error')}); the queue suspends and retries locally"
            )
        return where, (
            f"reconsumeTimes {rt} ≥ maxReconsumeTimes {max_times} → sendMessageBack produces {msg} to "
            f"%RETRY%{group} with RECONSUME_TIME {rt}; the broker's handleRetryAndDLQ routes it to %DLQ%{group} "
            f"and the queue moves on"
        )
    cleaned = msg in ctx.cleaned
    ctx.cleaned.discard(msg)
    where = (
        "ConsumeMessageConcurrentlyService.cleanExpiredMsg"
        if cleaned
        else "ConsumeMessageConcurrentlyService.processConsumeResult"
    )
    head = (
        f"sendMessageBack({msg}, delayLevel {level})"
        if cleaned
        else f"RECONSUME_LATER → sendMessageBack({msg}, delayLevel {level})"
    )
    call = f"{head} via MQClientAPIImpl.consumerSendMessageBack to {d.get('broker')}"
    if not d.get("ok"):
        return where, (
            f"{call} failed ({d.get('error')}); the client falls back to producing a new %RETRY%{group} "
            f"message itself (CLIENT_INNER_PRODUCER)"
        )
    call = head  # it reached the broker: the rule it applied says more than the RPC's path
    broker = "SendMessageProcessor.asyncConsumerSendMsgBack"
    for done in did:
        if done.kind is EventKind.SCHEDULED:
            lvl, due = int(done.get("level", 0)), int(done.get("due_ms", e.time_ms))
            if level == 0 and not cleaned:
                how = f"uses 3 + reconsumeTimes {rt} = level {lvl}"
                if 3 + rt > lvl:
                    how = f"uses 3 + reconsumeTimes {rt} = {3 + rt}, capped at level {lvl}"
            else:
                how = f"keeps delay level {lvl}"
            return where, f"{call}; {broker} {how}, due in {dur(due - done.time_ms)}"
        if done.kind is EventKind.DEAD_LETTERED:
            if isinstance(level, int) and level < 0:
                why = f"delayLevel {level} < 0"
            else:
                why = f"reconsumeTimes {rt} ≥ maxReconsumeTimes {max_times}"
            return where, f"{call}; {broker}: {why}, so it goes to {done.get('topic')}"
    if group == "?":  # narrated without the run before it: what the broker stored is not known here
        return where, f"{call}; {broker} answered SUCCESS"
    return where, (
        f"{call}; {broker} answered SUCCESS but stored nothing — retryQueueNums is 0 for {group}, "
        f"so {msg} is silently dropped"
    )


def on_send_back_fallback(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    group = ctx.group_of.get(e.actor, "?")
    where = "DefaultMQPushConsumerImpl.sendMessageBack"
    if d.get("ok"):
        return where, (
            f"fallback: CLIENT_INNER_PRODUCER produced a new %RETRY%{group} message for {msg} with "
            f"RECONSUME_TIME {d.get('reconsume_times')} and DELAY {d.get('delay_level')} (3 + reconsumeTimes; "
            f"the listener's delayLevelWhenNextConsume is ignored here)"
        )
    return where, (
        f"fallback: producing {msg} to %RETRY%{group} failed too ({d.get('error')}), so sendMessageBack returns "
        f"false and the message is re-consumed locally"
    )


def on_local_retry(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    return (
        "ConsumeMessageConcurrentlyService.submitConsumeRequestLater",
        f"send-back and fallback both failed: {msg} stays in the ProcessQueue of {d.get('queue')} (pinning the "
        f"committed offset) and is consumed again in {d.get('retry_in_ms', LOCAL_RETRY_MS)} ms with "
        f"reconsumeTimes {d.get('reconsume_times')} (in memory only)",
    )


def on_broadcast_dropped(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    return (
        "ConsumeMessageConcurrentlyService.processConsumeResult",
        f"BROADCASTING, the message consume failed, drop it: {msg} from {d.get('queue')} is dropped — never "
        f"retried and never acked; the offset moves past it anyway",
    )


def on_clean_expired(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    ctx.cleaned.add(msg)
    ctx.broker_did.pop(msg, None)
    return (
        "ConsumeMessageConcurrentlyService.cleanExpiredMsg",
        f"{msg} at offset {d.get('queue_offset')} of {d.get('queue')} has been consuming for "
        f"{dur(int(d.get('consuming_for_ms', 0)))} > consumeTimeout 15 min, so it is sent back with delay "
        f"level 3 and removed; the listener thread is not interrupted",
    )


def on_suspended(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    return (
        "ConsumeMessageOrderlyService.processConsumeResult",
        f"SUSPEND_CURRENT_QUEUE_A_MOMENT: reconsumeTimes of {msg} is now {d.get('reconsume_times')}, still below "
        f"maxReconsumeTimes, so makeMessageToConsumeAgain puts it back and {d.get('queue')} waits "
        f"{d.get('retry_in_ms')} ms (suspendCurrentQueueTimeMillis, submitConsumeRequestLater); "
        f"no broker round trip, nothing behind it is consumed",
    )
