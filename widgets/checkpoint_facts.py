"""This run's numbers for a checkpoint's own words: a lab writes ``explain="Right: {answer}. … {local_retry_retry_in}
later …"`` and the picture fills the fields from the run it shows, so that a knob that changes the run (a later heal,
another ``ackIndex``) never leaves a false number on screen (issue 30: "every hint and explanation true of the run it
is shown in"). Read by :func:`widgets.checkpoints.resolve`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rmqlab import EventKind, TraceEvent, format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

__all__ = [
    "HINTS", "OTHER_HINT", "WHEN_QUESTIONS", "answer_kind", "default_hint", "default_question", "first_before",
    "run_facts", "subject",
]  # fmt: skip


OTHER_HINT = N_("Step through the run again and watch this message.")
"""The hint of a checkpoint on an event kind :data:`HINTS` has no words for (a constant of its own: Babel does not
extract a call nested in another call's arguments)."""
HINTS: dict[str, str] = {
    "send_back": N_(
        "A failed message is not retried in place: the consumer sends it back to the broker, which parks "
        "it in SCHEDULE_TOPIC_XXXX at delay level 3 + reconsumeTimes before it returns on %RETRY%<group>."
    ),
    "scheduled": N_(
        "The broker keeps a retried message in SCHEDULE_TOPIC_XXXX, one queue per delay level; which "
        "level follows from how many times it was already reconsumed."
    ),
    "delay_delivered": N_(
        "When its delay level's time is up, ScheduleMessageService moves the message to the topic in "
        "its REAL_TOPIC property: for a retry, %RETRY%<group>."
    ),
    "dead_lettered": N_(
        "Once reconsumeTimes reaches maxReconsumeTimes (16 by default), the broker stores the message "
        "in %DLQ%<group> instead of scheduling another retry."
    ),
    "delivered": N_(
        "A consumer instance only pulls from the queues the rebalance gave it (AllocateMessageQueue"
        "Averagely over the sorted client ids and queues)."
    ),
    "stored": N_(
        "The producer picks the queue (round robin, or the MessageQueueSelector) and the broker appends it there."
    ),
    "lock_acquired": N_(
        "An orderly consumer must hold the broker's lock on a queue before it consumes it; a lock "
        "expires 60 s after its last renewal, then another instance may take it."
    ),
    "rebalanced": N_(
        "Every 20 s, and when the group's members change, each instance recomputes its share of the "
        "queues from the same sorted lists."
    ),
}
"""A hint about the mechanism, per event kind (used when the checkpoint gives none; shown translated)."""


def subject(event: TraceEvent) -> str:
    """Who acts: a consumer's client id, or a broker's name."""
    actor = event.actor
    for prefix in ("consumer:", "schedule:", "producer:"):
        if actor.startswith(prefix):
            return actor[len(prefix) :]
    return actor


def run_facts(event: TraceEvent, before: Sequence[TraceEvent], *, now_ms: int, answer: str) -> dict[str, str]:
    """This run's numbers for a lab's own ``question``, ``hint`` and ``explain``, so that its words stay true when a
    knob changes the run: ``{answer}`` (the right choice's label), ``{time}`` (the event's), ``{now}`` (the paused
    clock), ``{msg}``, ``{who}``; the event's data fields (``{reconsume_times}``, ``{level}`` …; a ``…_ms`` field
    also as a duration without the suffix: ``{due}``, and ``{due_in}`` the wait until it); and of the last event of
    each kind about the same message (or by the same actor, for an event about none) before it, ``{KIND_at}`` (its
    time) and ``{KIND_FIELD}`` (its data: ``{send_back_error}``, ``{local_retry_retry_in}``)."""
    facts = dict(answer=answer, time=format_duration(event.time_ms), now=format_duration(now_ms),
                   msg=event.msg_id or "", who=subject(event))  # fmt: skip

    def add(prefix: str, data: Mapping[str, Any]) -> None:
        for key, value in dict(data).items():
            facts[prefix + key] = str(value)
            if key.endswith("_ms") and isinstance(value, int):
                facts[prefix + key.removesuffix("_ms")] = format_duration(value)

    same = [e for e in before if (e.msg_id == event.msg_id if event.msg_id else e.actor == event.actor)]
    for e in same:  # in trace order: the last of each kind wins
        facts[f"{e.kind.value}_at"] = format_duration(e.time_ms)
        add(f"{e.kind.value}_", e.data)
    add("", event.data)
    about = [e for e in before if event.msg_id is not None and e.msg_id == event.msg_id]
    facts["since"] = format_duration(event.time_ms - about[-1].time_ms) if about else ""
    due = event.get("due_ms")
    if isinstance(due, int):
        facts["due_in"] = format_duration(due - event.time_ms)
    return facts


def default_hint(
    event: TraceEvent, answer: str, before: Sequence[TraceEvent], hints: Mapping[str, str], other: str
) -> str:
    """The mechanism's hint for ``event``'s kind (``hints``, else ``other``; the caller translates it), unless this
    run's facts make it false: a send-back that dead-letters is not parked at a delay level; a message whose send-back
    failed comes back from its own consumer, not from the broker (lab 02b); a retried send avoids the broker of the
    try before."""
    kind = event.kind.value
    if kind == "send_back" and answer.startswith("queue:%DLQ%"):
        kind = "dead_lettered"
    mine = [e for e in before if e.msg_id == event.msg_id and e.msg_id is not None]
    backs = [e for e in mine if e.kind in (EventKind.SEND_BACK, EventKind.SEND_BACK_FALLBACK)]  # the fallback last
    if kind == "delivered" and backs and not backs[-1].get("ok"):
        return N_("A send-back that fails leaves the message with its consumer: processConsumeResult resubmits it "
                 "itself (submitConsumeRequestLater) after a fixed wait; the broker never holds it.")
    tries = [e for e in mine if e.kind is EventKind.SEND_ATTEMPT]
    if kind == "stored" and tries and int(tries[-1].get("attempt") or 1) > 1:
        return N_("A retried send picks its queue with selectOneMessageQueue(lastBrokerName): the round robin moves "
                 "on, skipping the broker of the try before.")
    return hints.get(kind, other)


def first_before(kind: EventKind, event: TraceEvent, trace: Sequence[TraceEvent]) -> TraceEvent | None:
    """The first event of ``kind`` by ``event``'s actor (on ``event``'s queue and about its message, when both name
    one) before ``event`` and since the actor last started (a restarted consumer pulls again: it is the pull after
    the restart that draws the answer, not the first one of the run): where a checkpoint with ``pause_before`` pauses
    (before the step holding it)."""
    queue = event.get("queue")
    before = trace[: event.seq - 1]
    starts = [i for i, e in enumerate(before) if e.kind is EventKind.LIFECYCLE and e.actor == event.actor]
    for e in before[starts[-1] + 1 if starts else 0:]:
        if (e.kind is kind and e.actor == event.actor and (e.msg_id is None or e.msg_id == event.msg_id)
                and (queue is None or e.get("queue") in (None, queue))):  # fmt: skip
            return e
    return None


def answer_kind(key: str) -> str:
    """The kind of place a "where" answer is (``dlq``, ``delay``, ``retry``, ``business``, ``process_queue``, ``done``
    …), so that an ``explain`` given per answer can name the kind rather than spell the place."""
    prefix, _colon, rest = key.partition(":")
    if prefix == "queue":
        return "dlq" if rest.startswith("%DLQ%") else "retry" if rest.startswith("%RETRY%") else "business"
    return {"pq": "process_queue", "delay": "delay", "failed": "send_failed"}.get(prefix, prefix)


WHEN_QUESTIONS = {
    EventKind.DELIVERED: N_("When is {msg} delivered next? Pick the time."),
    EventKind.DELAY_DELIVERED: N_("When does {msg} leave its delay level? Pick the time."),
    EventKind.REBALANCED: N_("When does {who} rebalance? Pick the time."),
    EventKind.LOCK_ACQUIRED: N_("When does {who} get the lock? Pick the time."),
    EventKind.CONSUMED: N_("When is {msg} consumed next? Pick the time."),
    EventKind.SEND_BACK: N_("When is {msg} sent back next? Pick the time."),
    EventKind.DEAD_LETTERED: N_("When is {msg} dead-lettered? Pick the time."),
    EventKind.STORED: N_("When is {msg} stored next? Pick the time."),
    EventKind.SCHEDULED: N_("When is {msg} parked at a delay level next? Pick the time."),
}
"""A 'when' question per event kind, whole sentences so that each translates as one (a clause glued into a
frame does not survive a language whose word order differs)."""


def default_question(ask: str, event: TraceEvent) -> str:
    """The question a checkpoint asks when its lab gives none (a "whether" always has its own)."""
    msg = event.msg_id or _("it")
    if ask == "where":
        return _("Where is {msg} after the next step? Click the place in the picture (or a button).").format(msg=msg)
    if ask == "who":
        if event.kind.value == "delivered":
            return _("Which instance gets {msg} next?").format(msg=msg)
        if event.kind.value == "lock_acquired":
            queue = event.get("queue", _("the queue"))
            return _("Which instance takes the lock on {queue} next?").format(queue=queue)
        return _("Which instance acts next?")
    question = WHEN_QUESTIONS.get(event.kind)
    if question is None:
        kind = event.kind.value.replace("_", " ")
        return _("When does the next {kind} of {msg} happen? Pick the time.").format(kind=kind, msg=msg)
    return _(question).format(msg=msg, who=event.actor.split(":", 1)[-1])
