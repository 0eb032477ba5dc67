"""Captions of what a broker does with a message: the CommitLog put, the schedule topic's levels, the DLQ,
retention and ``mqadmin`` (``CommitLog``, ``ScheduleMessageService``, ``SendMessageProcessor``).

A parked retry's caption works out *why* it got its delay level (3 + reconsumeTimes, the listener's
``delayLevelWhenNextConsume``, the cap at ``maxDelayLevel``), and a DLQ write's which limit it crossed.
"""

from __future__ import annotations

from ..core.i18n import gettext as _
from ..core.trace import TraceEvent
from .context import CaptionContext, copy_number, dur, level_wait

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
    where = _("{queue} offset {offset}").format(
        queue=f"{topic}@{e.actor}:{d.get('queue_id')}", offset=d.get("queue_offset")
    )
    rt = d.get("reconsume_times", 0)
    hop = ctx.last_hop.get(msg)
    if hop is not None and hop[0] == e.time_ms:
        origin = _("the ScheduleMessageService's put")
    elif topic.startswith("%RETRY%"):
        origin = _("a retry copy")
    else:
        origin = _("the message")
    kind = ""
    if topic.startswith("%RETRY%"):
        kind = _(" (reconsumeTimes {rt}); the group's consumers pull it from there").format(rt=rt)
    elif topic.startswith("%DLQ%"):
        kind = f" (reconsumeTimes {rt})"
    else:
        kind = _(
            "; a pull held on that queue whose subscription takes its tag is answered at once (PullRequestHoldService)"
        )
    return "CommitLog.asyncPutMessage", _("{broker} appended {msg} ({origin}) to {where}{kind}").format(
        broker=e.actor, msg=msg, origin=origin, where=where, kind=kind
    )


def _level_reason(ctx: CaptionContext, e: TraceEvent) -> str:
    """Why a message sent back to ``%RETRY%`` got this level (from the stored reconsumeTimes)."""
    d, msg = e.data, e.msg_id or "?"
    level, stored_rt = int(d.get("level", 0)), int(d.get("reconsume_times", 0))
    real = str(d.get("real_topic"))
    if real.startswith("%DLQ%"):
        return _(
            "4.9.x quirk: handleRetryAndDLQ routed it to {topic} but the request's DELAY property survives, so the "
            "DLQ copy first waits level {level}"
        ).format(topic=real, level=level)
    if not real.startswith("%RETRY%"):
        return _("the producer set the DELAY property to level {level}").format(level=level)
    if msg in ctx.cleaned:
        return _("cleanExpiredMsg sends back with the fixed delay level 3")
    rt = stored_rt - 1
    default = 3 + rt
    if msg in ctx.inner_send:
        formula = _("the client's fallback set DELAY = 3 + reconsumeTimes {rt} = {sum}").format(rt=rt, sum=default)
    else:
        formula = _("delayLevel 0 → asyncConsumerSendMsgBack uses 3 + reconsumeTimes {rt} = {sum}").format(
            rt=rt, sum=default
        )
    if level == default:
        return formula
    if level == MAX_DELAY_LEVEL and default > MAX_DELAY_LEVEL:
        return _("{formula}, capped at maxDelayLevel {max}").format(formula=formula, max=MAX_DELAY_LEVEL)
    return _("the listener's delayLevelWhenNextConsume asked for level {level}").format(level=level)


def on_scheduled(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    level, due = int(d.get("level", 0)), int(d.get("due_ms", e.time_ms))
    ctx.broker_did.setdefault(msg, []).append(e)
    ctx.parked[msg] = (e.time_ms, due)
    return "CommitLog.asyncPutMessage", _(
        "{msg} (reconsumeTimes {rt}) for {topic} is parked in SCHEDULE_TOPIC_XXXX queue {queue} at delay level "
        "{level}, due in {due_in} (t = {due}); why: {why}"
    ).format(
        msg=msg,
        rt=d.get("reconsume_times"),
        topic=d.get("real_topic"),
        queue=level - 1,
        level=level,
        due_in=dur(due - e.time_ms),
        due=dur(due),
        why=_level_reason(ctx, e),
    )


def on_delay_delivered(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    """The level's timer moves a due message back; after a broker restart, why it is late or a second time first
    (the rule is cut to its width: the restart's part must survive the cut)."""
    d, msg = e.data, e.msg_id or "?"
    level = int(d.get("level", 0))
    delay, due, restart = level_wait(ctx, e)
    copy = copy_number(ctx, e)
    ctx.last_hop[msg] = (e.time_ms, level, str(d.get("topic")))
    where = "ScheduleMessageService.DeliverDelayedMessageTimerTask"
    if restart is not None and copy > 1:
        return where, _(
            "load() at the restart ({restart}) read level {level}'s offset from delayOffset.json, saved before {msg} "
            "left: the timer moves {msg} again, to {topic} queue {queue_id}"
        ).format(restart=dur(restart), level=level, msg=msg, topic=d.get("topic"), queue_id=d.get("queue_id"))
    if restart is not None:
        return where, _(
            "due at {due}, {msg} is {late} late: the broker restarted at {restart} and start() arms each level's "
            "timer FIRST_DELAY_TIME (1 s) later; messageTimeup puts it back on {topic} queue {queue_id}"
        ).format(due=dur(due), msg=msg, late=dur(e.time_ms - due), restart=dur(restart), topic=d.get("topic"),
                 queue_id=d.get("queue_id"))  # fmt: skip
    return where, _(
        "level {level}'s timer (it polls every 100 ms) finds {msg} due after {waited} in SCHEDULE_TOPIC_XXXX "
        "queue {queue}; messageTimeup restores REAL_TOPIC {topic} queue {queue_id} and puts it back"
    ).format(
        level=level, msg=msg, waited=dur(delay), queue=level - 1, topic=d.get("topic"), queue_id=d.get("queue_id")
    )


def on_dead_lettered(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    group, topic = str(d.get("group")), str(d.get("topic"))
    stored = int(d.get("reconsume_times", 0))
    ctx.broker_did.setdefault(msg, []).append(e)
    known = ctx.max_reconsume_times.get(group)
    tail = _("; nobody consumes {topic} unless you subscribe to it (original topic {original})").format(
        topic=topic, original=d.get("original_topic")
    )
    hop = ctx.last_hop.get(msg)
    if hop is not None and not (hop[0] == e.time_ms and hop[2] == topic):
        hop = None
    if hop is not None or msg in ctx.inner_send:
        # the client re-sent it to %RETRY% itself (fallback or orderly path): handleRetryAndDLQ, no +1
        where = "SendMessageProcessor.handleRetryAndDLQ"
        limit = f"maxReconsumeTimes {known}" if known is not None else "maxReconsumeTimes"
        why = _("header reconsumeTimes {rt} ≥ {limit}").format(rt=stored, limit=limit)
        if hop is not None:
            why += _(", delivered only now after delay level {level} (4.9.x quirk)").format(level=hop[1])
        return where, _("{msg} written to {topic} with reconsumeTimes {rt}: {why}{tail}").format(
            msg=msg, topic=topic, rt=stored, why=why, tail=tail
        )
    rt = stored - 1
    where = "SendMessageProcessor.asyncConsumerSendMsgBack"
    if known is not None and rt >= known:
        why = f"reconsumeTimes {rt} ≥ maxReconsumeTimes {known}"
    elif known is not None:
        why = _("delayLevel < 0 (the listener set delayLevelWhenNextConsume −1); reconsumeTimes {rt} < {max}").format(
            rt=rt, max=known
        )
    else:
        why = _("reconsumeTimes {rt} ≥ the consumer's maxReconsumeTimes, or delayLevel < 0").format(rt=rt)
    return where, _("{why}, so {msg} goes to {topic} (stored with reconsumeTimes {stored}){tail}").format(
        why=why, msg=msg, topic=topic, stored=stored, tail=tail
    )


def on_retention_deleted(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d = e.data
    topics = d.get("topics") or {}
    per = ", ".join(f"{t}: {n}" for t, n in topics.items())
    return (
        "DefaultMessageStore.CleanCommitLogService",
        _(
            "in the deleteWhen 04:00 window {broker} deleted {count} messages stored fileReservedTime 72 h ago or "
            "more ({per}); DLQ messages expire like any other. The newest one stays: it stands for the file being "
            "written, which MappedFileQueue.deleteExpiredFileByTime never deletes"
        ).format(broker=e.actor, count=d.get("count"), per=per),
    )


def on_admin(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d = dict(e.data)
    command = str(d.pop("command", "admin"))
    if command == "updateSubGroup":
        group = d.pop("group", "?")
        settings = ", ".join(f"{k} {v}" for k, v in d.items())
        note = (
            _("; retryQueueNums 0: every send-back answers SUCCESS and stores nothing")
            if d.get("retry_queue_nums") == 0
            else ""
        )
        return f"mqadmin {command}", _("{broker}'s SubscriptionGroupConfig of {group} is now {settings}{note}").format(
            broker=e.actor, group=group, settings=settings, note=note
        )
    if command == "updateTopic":
        topic = d.pop("topic", "?")
        settings = ", ".join(f"{k} {v}" for k, v in d.items())
        return f"mqadmin {command}", _("{broker}'s TopicConfig of {topic} is now {settings}").format(
            broker=e.actor, topic=topic, settings=settings
        )
    return f"mqadmin {command}", f"{e.actor}: " + ", ".join(f"{k} {v}" for k, v in d.items())
