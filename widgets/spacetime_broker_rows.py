"""The space-time rows of the broker side and the lab: the schedule hop and the due delivery back, DLQ writes,
local notes (suspend, rebalance, admin commands), lifecycle, injected faults and orderly locks (each
``fn(builder, event, lane)``, see :data:`widgets.spacetime_rows.HANDLERS`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from rmqlab import EventKind, TraceEvent, format_duration
from rmqlab.core.i18n import N_, ngettext
from rmqlab.core.i18n import gettext as _
from rmqlab.core.reasons import translated
from rmqlab.narrate.plain import fault_effects, fault_sentence

from .spacetime_model import ArrowKind, Row

if TYPE_CHECKING:
    from .spacetime_rows import RowBuilder

_LIFECYCLE = {"start": N_("start"), "shutting_down": N_("shutting_down")}
"""What a consumer's lifecycle row says (the trace's ``event`` word, in the current language)."""

__all__ = ["fault", "hop", "lifecycle", "lock", "lock_expired", "note"]


def hop(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    """A message's hop on the broker side, one arrow each: parked in ``SCHEDULE_TOPIC_XXXX`` (to the broker's
    schedule lane), due back into its topic (to the broker), or written to the DLQ (on the broker's own lane)."""
    arrow, target, words = _HOPS[e.kind]
    label, detail = words(e)
    builder.add(Row.of_event(e, arrow, lane, target(builder, e, lane), label, detail))


def _schedule_lane(builder: RowBuilder, e: TraceEvent, lane: str) -> str:
    broker = lane.partition(":")[2]
    name = _("{broker} schedule").format(broker=broker)
    return builder.ensure_lane("schedule:" + broker, "schedule", name, "ScheduleMessageService")


def _scheduled_words(e: TraceEvent) -> tuple[str, str]:
    d = e.data
    level, due = d["level"], d["due_ms"]
    label = f"{e.msg_id} L{level} · {format_duration(due - e.time_ms)}"
    detail = _(
        "{msg} parked in SCHEDULE_TOPIC_XXXX queue {queue} (delay level {level}), due at {due}, then to {topic}"
    ).format(msg=e.msg_id, queue=level - 1, level=level, due=format_duration(due), topic=d["real_topic"])
    return label, detail


def _due_words(e: TraceEvent) -> tuple[str, str]:
    d = e.data
    label = _("{msg} due → {topic}").format(msg=e.msg_id, topic=d["topic"])
    detail = _(
        "ScheduleMessageService: delay level {level} due after {waited}; {msg} stored in {topic} queue {queue}"
    ).format(
        level=d["level"], waited=format_duration(d["waited_ms"]), msg=e.msg_id, topic=d["topic"], queue=d["queue_id"]
    )
    return label, detail


def _dead_letter_words(e: TraceEvent) -> tuple[str, str]:
    d = e.data
    label = f"{e.msg_id} → {d['topic']} (r{d['reconsume_times'] - 1})"
    detail = ngettext(
        "{msg} written to {topic} after {n} delivery (original topic {original})",
        "{msg} written to {topic} after {n} deliveries (original topic {original})",
        d["reconsume_times"],
    ).format(msg=e.msg_id, topic=d["topic"], n=d["reconsume_times"], original=d["original_topic"])
    return label, detail


_HOPS: dict[
    EventKind, tuple[ArrowKind, Callable[[RowBuilder, TraceEvent, str], str], Callable[[TraceEvent], tuple[str, str]]]
] = {
    EventKind.SCHEDULED: (ArrowKind.SCHEDULE, _schedule_lane, _scheduled_words),
    EventKind.DELAY_DELIVERED: (
        ArrowKind.DUE,
        lambda builder, e, lane: builder.broker_lane(e.actor.partition(":")[2]),
        _due_words,
    ),
    EventKind.DEAD_LETTERED: (ArrowKind.DLQ, lambda builder, e, lane: lane, _dead_letter_words),
}
"""Event kind → its arrow, where the arrow goes (from the event's lane), and the row's label and tooltip."""


def note(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    d = e.data
    kind: ArrowKind = ArrowKind.NOTE
    if e.kind is EventKind.SUSPENDED:
        label = f"{e.msg_id} SUSPEND {format_duration(d['retry_in_ms'])} (r{d['reconsume_times']})"
        detail = _("SUSPEND_CURRENT_QUEUE_A_MOMENT: {queue} waits, {msg} is retried locally").format(
            queue=d["queue"], msg=e.msg_id
        )
    elif e.kind is EventKind.BROADCAST_DROPPED:
        kind = ArrowKind.FAILURE
        label = _("✗ {msg} dropped (BROADCASTING)").format(msg=e.msg_id)
        detail = _("BROADCASTING: the failed message is dropped, never retried; RocketMQ logs “{log}”").format(
            log=d["message"]
        )
    elif e.kind is EventKind.CLEAN_EXPIRED:
        label = f"{e.msg_id} cleanExpiredMsg"
        detail = _("cleanExpiredMsg: {msg} consumed longer than consumeTimeout, sent back").format(msg=e.msg_id)
    elif e.kind is EventKind.REBALANCED:
        added, removed = len(d["added"]), len(d["removed"])
        label = _("rebalance {topic} +{added} −{removed}").format(topic=d["topic"], added=added, removed=removed)
        detail = _("{topic}: now {queues}").format(topic=d["topic"], queues=", ".join(d["queues"]) or _("no queues"))
    elif e.kind is EventKind.ADMIN:
        label = f"mqadmin {d['command']}"
        detail = ", ".join(f"{k}={v}" for k, v in d.items())
    elif e.kind is EventKind.RETENTION_DELETED:
        label = _("retention: commit log cleaned")
        detail = ", ".join(f"{k}={v}" for k, v in d.items())
    else:
        return
    builder.add(Row.of_event(e, kind, lane, lane, label, detail))


LIFECYCLE_WORDS = {"start": N_("start"), "shutdown": N_("shutdown"), "restart": N_("restart")}
"""A consumer's lifecycle event on its lane (translated where shown; the tooltip keeps the event's name)."""


def lifecycle(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    how = e.data["event"]
    if how == "crash":
        row = Row.of_event(e, ArrowKind.FAULT, lane, lane, "✗ " + _("crash"), _("the consumer process died"))
        builder.add(row)
        builder.span_open(lane, "crashed", e.seq)
        return
    builder.span_close(lane, "crashed", e.seq)
    said = _(LIFECYCLE_WORDS[how]) if how in LIFECYCLE_WORDS else how
    detail = _("consumer {event} ({group})").format(event=said, group=e.data.get("group", ""))
    builder.add(Row.of_event(e, ArrowKind.NOTE, lane, lane, said, detail))


def fault(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    d = e.data
    fault = d["fault"]
    if fault == "broker_down":
        label = "✗ " + _("broker down")
        builder.add(Row.of_event(e, ArrowKind.FAULT, lane, lane, label, _("injected fault: broker down")))
        builder.span_open(lane, "down", e.seq)
    elif fault == "broker_up":
        builder.add(Row.of_event(e, ArrowKind.FAULT, lane, lane, _("broker up"), _("the broker is back")))
        builder.span_close(lane, "down", e.seq)
    elif fault in ("partition", "heal"):
        sign = _("✗ partition") if fault == "partition" else _("heal")
        label = f"{sign} {d.get('client', '')} ↮ {lane.partition(':')[2]}"
        said = _("network partition") if fault == "partition" else _("network healed")
        builder.add(Row.of_event(e, ArrowKind.FAULT, lane, lane, label, f"{said}: {_fields(d)}"))
    else:  # set_broker_fault: what it does ("answers every request 4 s late"), not its raw id
        effects = fault_effects(e)
        label = "⚠ " + effects if effects else _("works normally again")
        builder.add(Row.of_event(e, ArrowKind.FAULT, lane, lane, label, f"{fault_sentence(e)} ({_fields(d)})"))


def _fields(data: Mapping[str, object]) -> str:
    """An event's data as the Events table shows it (``fault=partition client=c1``): names and values, no prose."""
    return translated(" ".join(f"{k}={v}" for k, v in data.items()))  # rmqlab's own failure texts translated


def lock(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    if not builder.locks:
        return
    d = e.data
    broker = builder.broker_of(d["queue"])
    if broker is None:
        return
    target = builder.broker_lane(broker)
    refused = e.kind is EventKind.LOCK_REFUSED
    verb = _({
        EventKind.LOCK_ACQUIRED: N_("lock"),
        EventKind.LOCK_RENEWED: N_("renew"),
        EventKind.LOCK_REFUSED: N_("lock ✗"),
        EventKind.UNLOCKED: N_("unlock"),
    }[e.kind])
    kind = ArrowKind.LOCK_REFUSED if refused else ArrowKind.LOCK
    # one lockBatchMQ request covers every queue of that broker: one arrow per (client, broker, ms, verb)
    group_key = (lane, target, e.time_ms, verb)
    queues = builder.lock_queues.get(group_key)
    last = len(builder.rows) - 1
    if queues is not None and queues[0] == last:
        queues[1].append(d["queue"])
        n = len(queues[1])
        label = _("{verb} {n} queues").format(verb=verb, n=n)
        builder.rows[last] = replace(builder.rows[last], label=label, detail=f"{verb}: {', '.join(queues[1])}")
        return
    builder.lock_queues[group_key] = (last + 1, [d["queue"]])
    label = _("{verb} 1 queue").format(verb=verb)
    builder.add(Row.of_event(e, kind, lane, target, label, f"{verb}: {d['queue']}"))


def lock_expired(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    if builder.locks:
        d = e.data
        said = _("{queue}: trust expired").format(queue=d["queue"])
        builder.add(Row.of_event(e, ArrowKind.NOTE, lane, lane, _("lock expired"), said))
