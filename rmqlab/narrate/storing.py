"""Captions of what a broker does with a message: the CommitLog put, the schedule topic's levels, the DLQ,
retention and ``mqadmin`` (``CommitLog``, ``ScheduleMessageService``, ``SendMessageProcessor``).

A parked retry's caption works out *why* it got its delay level (3 + reconsumeTimes, the listener's
``delayLevelWhenNextConsume``, the cap at ``maxDelayLevel``), and a DLQ write's which limit it crossed.
"""

from __future__ import annotations

from ..core.trace import TraceEvent
from .context import CaptionContext, dur

__all__ = [
    "MAX_DELAY_LEVEL",
    "on_admin",
    "on_dead_lettered",
    "on_delay_delivered",
    "on_retention_deleted",
    "on_scheduled",
    "on_stored",
]

MAX_DELAY_LEVEL = 18
"""``maxDelayLevel`` of the default ``messageDelayLevel`` (1s … 2h); the CommitLog caps a level at it."""


def on_stored(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    topic = str(d.get("topic"))
    where = f"{topic}@{e.actor}:{d.get('queue_id')} offset {d.get('queue_offset')}"
    rt = d.get("reconsume_times", 0)
    hop = ctx.last_hop.get(msg)
    if hop is not None and hop[0] == e.time_ms:
        origin = "the ScheduleMessageService's put"
    elif topic.startswith("%RETRY%"):
        origin = "a retry copy"
    else:
        origin = "the message"
    kind = ""
    if topic.startswith("%RETRY%"):
        kind = f" (reconsumeTimes {rt}); the group's consumers pull it from there"
    elif topic.startswith("%DLQ%"):
        kind = f" (reconsumeTimes {rt})"
    else:
        kind = "; any pull held on that queue (PullRequestHoldService) is answered at once"
    return "CommitLog.asyncPutMessage", f"{e.actor} appended {msg} ({origin}) to {where}{kind}"


def _level_reason(ctx: CaptionContext, e: TraceEvent) -> str:
    """Why a message sent back to ``%RETRY%`` got this level (from the stored reconsumeTimes)."""
    d, msg = e.data, e.msg_id or "?"
    level, stored_rt = int(d.get("level", 0)), int(d.get("reconsume_times", 0))
    real = str(d.get("real_topic"))
    if real.startswith("%DLQ%"):
        return (
            f"4.9.x quirk: handleRetryAndDLQ routed it to {real} but the request's DELAY property survives, "
            f"so the DLQ copy first waits level {level}"
        )
    if not real.startswith("%RETRY%"):
        return f"the producer set the DELAY property to level {level}"
    if msg in ctx.cleaned:
        return "cleanExpiredMsg sends back with the fixed delay level 3"
    rt = stored_rt - 1
    default = 3 + rt
    if msg in ctx.inner_send:
        formula = f"the client's fallback set DELAY = 3 + reconsumeTimes {rt} = {default}"
    else:
        formula = f"delayLevel 0 → asyncConsumerSendMsgBack uses 3 + reconsumeTimes {rt} = {default}"
    if level == default:
        return formula
    if level == MAX_DELAY_LEVEL and default > MAX_DELAY_LEVEL:
        return f"{formula}, capped at maxDelayLevel {MAX_DELAY_LEVEL}"
    return f"the listener's delayLevelWhenNextConsume asked for level {level}"


def on_scheduled(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    level, due = int(d.get("level", 0)), int(d.get("due_ms", e.time_ms))
    ctx.broker_did.setdefault(msg, []).append(e)
    return "CommitLog.asyncPutMessage", (
        f"{msg} (reconsumeTimes {d.get('reconsume_times')}) for {d.get('real_topic')} is parked in "
        f"SCHEDULE_TOPIC_XXXX queue {level - 1} at delay level {level}, due in {dur(due - e.time_ms)} "
        f"(t = {dur(due)}); why: {_level_reason(ctx, e)}"
    )


def on_delay_delivered(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    level = int(d.get("level", 0))
    ctx.last_hop[msg] = (e.time_ms, level, str(d.get("topic")))
    return (
        "ScheduleMessageService.DeliverDelayedMessageTimerTask",
        f"level {level}'s timer (it polls every 100 ms) finds {msg} due after {dur(int(d.get('waited_ms', 0)))} "
        f"in SCHEDULE_TOPIC_XXXX queue {level - 1}; messageTimeup restores REAL_TOPIC {d.get('topic')} "
        f"queue {d.get('queue_id')} and puts it back",
    )


def on_dead_lettered(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    group, topic = str(d.get("group")), str(d.get("topic"))
    stored = int(d.get("reconsume_times", 0))
    ctx.broker_did.setdefault(msg, []).append(e)
    known = ctx.max_reconsume_times.get(group)
    tail = f"; nobody consumes {topic} unless you subscribe to it (original topic {d.get('original_topic')})"
    hop = ctx.last_hop.get(msg)
    if hop is not None and not (hop[0] == e.time_ms and hop[2] == topic):
        hop = None
    if hop is not None or msg in ctx.inner_send:
        # the client re-sent it to %RETRY% itself (fallback or orderly path): handleRetryAndDLQ, no +1
        where = "SendMessageProcessor.handleRetryAndDLQ"
        limit = f"maxReconsumeTimes {known}" if known is not None else "maxReconsumeTimes"
        why = f"header reconsumeTimes {stored} ≥ {limit}"
        if hop is not None:
            why += f", delivered only now after delay level {hop[1]} (4.9.x quirk)"
        return where, f"{msg} written to {topic} with reconsumeTimes {stored}: {why}{tail}"
    rt = stored - 1
    where = "SendMessageProcessor.asyncConsumerSendMsgBack"
    if known is not None and rt >= known:
        why = f"reconsumeTimes {rt} ≥ maxReconsumeTimes {known}"
    elif known is not None:
        why = f"delayLevel < 0 (the listener set delayLevelWhenNextConsume −1); reconsumeTimes {rt} < {known}"
    else:
        why = f"reconsumeTimes {rt} ≥ the consumer's maxReconsumeTimes, or delayLevel < 0"
    return where, f"{why}, so {msg} goes to {topic} (stored with reconsumeTimes {stored}){tail}"


def on_retention_deleted(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d = e.data
    topics = d.get("topics") or {}
    per = ", ".join(f"{t}: {n}" for t, n in topics.items())
    return (
        "DefaultMessageStore.CleanCommitLogService",
        f"in the deleteWhen 04:00 window {e.actor} deleted {d.get('count')} messages older than fileReservedTime "
        f"72 h ({per}); DLQ messages expire like any other",
    )


def on_admin(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d = dict(e.data)
    command = str(d.pop("command", "admin"))
    if command == "updateSubGroup":
        group = d.pop("group", "?")
        settings = ", ".join(f"{k} {v}" for k, v in d.items())
        note = (
            "; retryQueueNums 0: every send-back answers SUCCESS and stores nothing"
            if d.get("retry_queue_nums") == 0
            else ""
        )
        return f"mqadmin {command}", f"{e.actor}'s SubscriptionGroupConfig of {group} is now {settings}{note}"
    if command == "updateTopic":
        topic = d.pop("topic", "?")
        settings = ", ".join(f"{k} {v}" for k, v in d.items())
        return f"mqadmin {command}", f"{e.actor}'s TopicConfig of {topic} is now {settings}"
    return f"mqadmin {command}", f"{e.actor}: " + ", ".join(f"{k} {v}" for k, v in d.items())
