"""What a run did, as data (:func:`build_report`), as a readable timeline (:func:`format_timeline`) and as one
line (:func:`summary`).

Both are pure functions of a :class:`Lab`: they read its trace and its snapshot (:meth:`Lab.snapshot`, for the
broker state) and change nothing,
so a notebook, the command line and the golden-example tests all see the same numbers. Events are
paired the way RocketMQ's own logs would have to be read: a DELIVERED event with the CONSUMED event
of the same consumer, queue, queue offset and message id (first unmatched one first), a SEND_ATTEMPT
with the SEND_RESULT of the same producer, message id and attempt number.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any

from ..core.duration import format_duration
from ..core.i18n import gettext, ngettext
from ..core.trace import EventKind, TraceEvent

if TYPE_CHECKING:
    from ..snapshot import LabSnapshot
    from .lab import Lab

__all__ = ["SUCCESS_STATUSES", "TIMELINE_KINDS", "build_report", "format_event", "format_timeline", "summary"]


def _client(actor: str) -> str:
    """``consumer:c1`` → ``c1``; ``producer:pg`` → ``pg`` (the name used in the scenario file)."""
    return actor.partition(":")[2] or actor


def _pair(
    lab: Lab,
    start: EventKind,
    end: EventKind,
    key: Callable[[TraceEvent], tuple[Any, ...]],
    row: Callable[[TraceEvent], dict[str, Any]],
    field: str,
    value: str,
) -> list[dict[str, Any]]:
    """One row per ``start`` event; the first unmatched ``end`` event with the same key fills ``field``."""
    rows: list[dict[str, Any]] = []
    waiting: dict[tuple[Any, ...], deque[dict[str, Any]]] = defaultdict(deque)
    for event in lab.trace.of_kind(start, end):
        if event.kind is start:
            new = {**row(event), field: None}
            rows.append(new)
            waiting[key(event)].append(new)
        elif waiting[key(event)]:
            waiting[key(event)].popleft()[field] = event.get(value)
    return rows


def deliveries(lab: Lab) -> list[dict[str, Any]]:
    """Every listener call per message, with the status of its matching CONSUMED event (or ``None``)."""
    return _pair(
        lab,
        EventKind.DELIVERED,
        EventKind.CONSUMED,
        lambda e: (e.actor, e.get("queue"), e.get("queue_offset"), e.msg_id),
        lambda e: {
            "time_ms": e.time_ms,
            "msg_id": e.msg_id,
            "topic": e.get("topic"),
            "queue": e.get("queue"),
            "reconsume_times": e.get("reconsume_times"),
            "consumer": _client(e.actor),
            "group": e.get("group"),
        },
        "status",
        "status",
    )


def send_attempts(lab: Lab) -> list[dict[str, Any]]:
    """Every producer attempt (application and consumer-inner producers) with its outcome (or ``None``)."""
    return _pair(
        lab,
        EventKind.SEND_ATTEMPT,
        EventKind.SEND_RESULT,
        lambda e: (e.actor, e.msg_id, e.get("attempt")),
        lambda e: {
            "time_ms": e.time_ms,
            "producer": _client(e.actor),
            "msg_id": e.msg_id,
            "topic": e.get("topic"),
            "mode": e.get("mode"),
            "broker": e.get("broker"),
            "queue_id": e.get("queue_id"),
            "attempt": e.get("attempt"),
        },
        "outcome",
        "outcome",
    )


def dead_letters(lab: Lab) -> dict[str, list[dict[str, Any]]]:
    """Group → messages written to ``%DLQ%<group>``, in the order they arrived."""
    dlq: dict[str, list[dict[str, Any]]] = {}
    for event in lab.trace.of_kind(EventKind.DEAD_LETTERED):
        dlq.setdefault(event.get("group"), []).append(
            {
                "msg_id": event.msg_id,
                "reconsume_times": event.get("reconsume_times"),
                "original_topic": event.get("original_topic"),
            }
        )
    return {group: dlq[group] for group in sorted(dlq)}


def committed_offsets(lab: Lab, snap: LabSnapshot | None = None) -> dict[str, dict[str, int]]:
    """Group → ``TOPIC@BROKER:QID`` → the offset the *broker* holds (what a restarted consumer resumes from)."""
    snap = lab.snapshot() if snap is None else snap
    offsets: dict[str, dict[str, int]] = defaultdict(dict)
    for broker in snap.brokers:
        for group, mq, offset in broker.committed_offsets:
            offsets[group][str(mq)] = offset
    return {group: dict(sorted(offsets[group].items())) for group in sorted(offsets)}


def stored_counts(lab: Lab, snap: LabSnapshot | None = None) -> dict[str, int]:
    """Topic → messages kept in every broker's CommitLog (business, %RETRY%, SCHEDULE_TOPIC_XXXX, %DLQ%).

    Every stored message has one ConsumeQueue entry, under the topic it was stored as, and retention moves a
    queue's ``min_offset`` past deleted ones: so the snapshot's cells are exactly the CommitLog's live messages.
    """
    snap = lab.snapshot() if snap is None else snap
    counts: dict[str, int] = defaultdict(int)
    for queue in snap.queues:
        counts[queue.topic] += sum(1 for cell in queue.cells if cell.msg_id is not None)
    return {topic: n for topic, n in sorted(counts.items()) if n}


def build_report(lab: Lab) -> dict[str, Any]:
    """The run as one JSON-ready dict; equal runs give equal dicts (and equal ``json.dumps`` text)."""
    snap = lab.snapshot()
    return {
        "end_time_ms": lab.now,
        "deliveries": deliveries(lab),
        "send_attempts": send_attempts(lab),
        "dlq": dead_letters(lab),
        "offsets": committed_offsets(lab, snap),
        "stored": stored_counts(lab, snap),
    }


# ---------------------------------------------------------------------- the timeline
TIMELINE_KINDS: dict[EventKind, tuple[str, ...] | None] = {
    EventKind.LIFECYCLE: ("event", "group", "mode", "message_model"),
    EventKind.FAULT: None,
    EventKind.ADMIN: None,
    EventKind.SEND_ATTEMPT: ("topic", "broker", "queue_id", "attempt", "mode"),
    EventKind.SEND_RESULT: ("broker", "queue_id", "attempt", "outcome", "not_available_until"),
    EventKind.SEND_FAILED: ("attempts", "error"),
    EventKind.STORED: ("topic", "queue_id", "queue_offset", "reconsume_times"),
    EventKind.SCHEDULED: ("real_topic", "level", "due_ms", "reconsume_times"),
    EventKind.DELAY_DELIVERED: ("topic", "level", "waited_ms"),
    EventKind.DELIVERED: ("queue", "queue_offset", "topic", "reconsume_times", "batch"),
    EventKind.CONSUMED: ("status", "return_type", "took_ms"),
    EventKind.SEND_BACK: ("ok", "broker", "delay_level", "reconsume_times", "error"),
    EventKind.SEND_BACK_FALLBACK: ("ok", "delay_level", "reconsume_times", "error"),
    EventKind.LOCAL_RETRY: ("queue", "retry_in_ms", "reconsume_times"),
    EventKind.DEAD_LETTERED: ("topic", "reconsume_times", "original_topic"),
    EventKind.BROADCAST_DROPPED: ("queue", "reconsume_times"),
    EventKind.REBALANCED: ("topic", "added", "removed"),
    EventKind.LOCK_ACQUIRED: ("queue",),
    EventKind.LOCK_REFUSED: ("queue", "holder"),
    EventKind.LOCK_EXPIRED: ("queue", "previous_holder", "new_holder"),
    EventKind.UNLOCKED: ("queue",),
    EventKind.SUSPENDED: ("queue", "retry_in_ms", "reconsume_times"),
    EventKind.CLEAN_EXPIRED: None,
    EventKind.WARNING: ("message",),
}
"""Kinds worth a line, and which data fields to show (``None``: all). Pulls, offset commits and lock
renewals are left out: they repeat every few seconds and would bury the story."""


def _value(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value) or "-"
    return str(value)


HEAD_WIDTH = 16 + 2 + 24 + 1 + 18 + 1 + 6
"""Columns of a timeline line before its details: time, actor, kind, message id."""
WRAP_INDENT = 18
"""Continuation lines of a wrapped event start under the actor column."""


def _details(event: TraceEvent, fields: tuple[str, ...] | None) -> list[str]:
    data: Mapping[str, Any] = event.data
    keys = list(data) if fields is None else [k for k in fields if k in data]
    return [f"{k}={_value(data[k])}" for k in keys if data[k] is not None and data[k] != []]


def _head(event: TraceEvent) -> str:
    when = format_duration(event.time_ms, exact=True)
    return f"{when:>16}  {event.actor:<24} {event.kind.value:<18} {event.msg_id or '-':<6}"


def format_event(event: TraceEvent, fields: tuple[str, ...] | None = None) -> str:
    """One aligned line: time, actor, kind, message id, then ``key=value`` details."""
    return f"{_head(event)} {' '.join(_details(event, fields))}".rstrip()


def _pieces(token: str, room: int) -> list[str]:
    """``token`` cut after commas into pieces of at most ``room`` columns (a comma-less run stays whole)."""
    if len(token) <= room:
        return [token]
    pieces: list[str] = []
    current = ""
    for part in token.split(","):
        part_with_comma = part + ","
        if current and len(current) + len(part_with_comma) > room:
            pieces.append(current)
            current = ""
        current += part_with_comma
    pieces.append(current[:-1])  # the last part had no comma
    return pieces


def _wrapped(event: TraceEvent, fields: tuple[str, ...] | None, width: int) -> list[str]:
    """The event as lines of at most ``width`` columns: the head, then details under the actor column.

    A list value longer than a line (a rebalance's ``added=`` queues) is cut after its commas.
    """
    lines: list[str] = []
    current = _head(event)
    indent = " " * WRAP_INDENT
    for token in _details(event, fields):
        for piece in _pieces(token, width - WRAP_INDENT):
            if len(current) + 1 + len(piece) <= width or current == indent:
                current = f"{current} {piece}" if current != indent else indent + piece
            else:
                lines.append(current)
                current = indent + piece
    lines.append(current)
    return [line.rstrip() for line in lines]


def format_timeline(
    lab: Lab, *, msg_id: str | None = None, kinds: Collection[str] | None = None, width: int | None = None
) -> str:
    """The interesting events of a run, one per line (see :data:`TIMELINE_KINDS`).

    ``msg_id`` keeps one message's events (``M0001``), ``kinds`` keeps those kinds (``{"delivered"}``; any
    :class:`EventKind` value, also ones the default leaves out, such as ``pulled``). ``width`` wraps each
    event's details under it so that no line is wider (the command line uses 100); ``None``: one line each.
    """
    if kinds is not None:
        known = {k.value for k in EventKind}
        unknown = sorted(set(kinds) - known)
        if unknown:
            raise ValueError(f"kinds={unknown!r}: not an event kind; allowed: {', '.join(sorted(known))}")
    if width is not None and width < HEAD_WIDTH:
        raise ValueError(f"width={width}: must be at least {HEAD_WIDTH} (the time, actor, kind and id columns)")
    wanted = TIMELINE_KINDS if kinds is None else {EventKind(k): TIMELINE_KINDS.get(EventKind(k)) for k in kinds}
    lines: list[str] = []
    for event in lab.trace:
        if event.kind not in wanted or (msg_id is not None and event.msg_id != msg_id):
            continue
        fields = wanted[event.kind]
        lines.extend([format_event(event, fields)] if width is None else _wrapped(event, fields, width))
    return "\n".join(lines) + ("\n" if lines else "")


SUCCESS_STATUSES = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})
"""Listener answers after which a message counts as consumed (orderly COMMIT commits like SUCCESS)."""


def summary(lab: Lab) -> str:
    """The run in one line: deliveries, messages consumed, dead letters per DLQ, and the end time.

    ``17 deliveries · 0 consumed · %DLQ%cg: 1 · ended at 6 h``: what a reader checks first, and what the
    command line prints under the timeline. ``consumed`` counts deliveries answered with a success status.
    """
    rows = deliveries(lab)
    consumed = sum(1 for row in rows if row["status"] in SUCCESS_STATUSES)
    dlq = dead_letters(lab)
    dead = " · ".join(f"%DLQ%{group}: {len(msgs)}" for group, msgs in dlq.items()) or gettext("no dead letters")
    deliveries_text = ngettext("{count} delivery", "{count} deliveries", len(rows)).format(count=len(rows))
    return " · ".join([
        deliveries_text, gettext("{count} consumed").format(count=consumed), dead,
        gettext("ended at {time}").format(time=format_duration(lab.now)),
    ])  # fmt: skip
