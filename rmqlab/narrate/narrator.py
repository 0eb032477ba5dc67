""":class:`Narrator`: trace events, fed in order, become :class:`Caption` values, one sentence each.

Each event kind has one caption function, in the module of its family (:mod:`~rmqlab.narrate.sending`,
:mod:`~rmqlab.narrate.storing`, :mod:`~rmqlab.narrate.consuming`, :mod:`~rmqlab.narrate.rebalancing`,
:mod:`~rmqlab.narrate.lab_events`); the narrator owns the one :class:`~rmqlab.narrate.context.CaptionContext`
they all read and update, and the table that picks the function for an event's kind.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from ..core.i18n import gettext as _
from ..core.reasons import translated
from ..core.trace import EventKind, TraceEvent
from . import consuming, lab_events, rebalancing, sending, storing
from .context import CaptionContext, copy_number, remember_copy
from .plain import PLAIN
from .steps import burst, close_other_bursts, signature

__all__ = [
    "BOOKKEEPING_KINDS", "MEANINGFUL_KINDS", "Caption", "Narrator", "caption", "is_meaningful", "is_offset_jump",
    "narrate",
]  # fmt: skip

K = EventKind

BOOKKEEPING_KINDS: frozenset[EventKind] = frozenset(
    {
        K.OFFSET_UPDATED,
        K.OFFSET_PERSISTED,
        K.LOCK_RENEWED,
        K.PULL_DEFERRED,
        K.PULL_EMPTY,
        K.LOCK_BATCH,
        K.CONSUME_REQUEST,
    }
)
"""Kinds that only keep books: they repeat every few seconds (a deferred pull every 50 ms) and move no message
(a PULLED that brings no message is bookkeeping too, see :func:`is_meaningful`)."""
MEANINGFUL_KINDS: frozenset[EventKind] = frozenset(EventKind) - BOOKKEEPING_KINDS
"""Every other kind: something a student should see happen (step targets of the controller)."""


def is_meaningful(event: TraceEvent) -> bool:
    """Whether ``event`` is a step worth stopping at (not offset/lock bookkeeping, not an empty pull). Two kinds of
    bookkeeping tell a mechanism when they do something unusual, and are meaningful then: a consumer offset that
    jumps past more than one message (the slow message that held it back is done: lab 05 at 62 s, 1 → 5), and an
    orderly ConsumeRequest that gives its thread back after 60 s of one queue (``MAX_TIME_CONSUME_CONTINUOUSLY``)."""
    if event.kind is K.PULLED:
        return bool(event.get("offsets"))
    if event.kind is K.OFFSET_UPDATED:
        return is_offset_jump(event)
    if event.kind is K.CONSUME_REQUEST:
        return bool(event.get("reason") == "continuous_60s")
    return event.kind in MEANINGFUL_KINDS


def is_offset_jump(event: TraceEvent) -> bool:
    """An OFFSET_UPDATED that moves the offset on by more than one message (``ProcessQueue.removeMessage`` returns
    the smallest key still in flight: when the slowest message finishes, the offset jumps past the others)."""
    previous, offset = event.get("previous"), event.get("offset")
    return isinstance(previous, int) and isinstance(offset, int) and previous >= 0 and offset - previous > 1


@dataclass(frozen=True, slots=True)
class Caption:
    """The caption of one trace event, in two parts.

    ``plain`` is the first line: one sentence a beginner understands, with the run's numbers and no Java
    identifier (:mod:`~rmqlab.narrate.plain`). ``text`` (also :attr:`source`) is the second: the RocketMQ
    ``Class.method`` (or the Lab operation) behind it, ``where``, then the rule and the numbers it used.
    ``meaningful`` is :func:`is_meaningful` of the event. ``group`` is the seq of the first event this one
    repeats (its own seq when it repeats nothing), and ``fresh`` says it starts its group: a step lands only
    on a meaningful *fresh* event, so a run of identical events is one step (:mod:`~rmqlab.narrate.steps`).
    """

    seq: int
    time_ms: int
    kind: EventKind
    where: str
    text: str
    meaningful: bool
    plain: str = ""
    actor: str = ""
    msg_id: str | None = None
    group: int = -1
    fresh: bool = True
    outcome: str = ""
    """A consume result's status (``CONSUME_SUCCESS``, ``RECONSUME_LATER`` …), a send try's outcome (``SUCCESS``,
    ``FLUSH_DISK_TIMEOUT``, an exception); else ``""``."""
    topic: str = ""
    """The topic a rebalance or lock result is about (a step leads with a business topic's, not ``%RETRY%``'s: c2
    taking over TopicTest is the story, its retry queue goes with it); else ``""``."""
    copy: int = 1
    """Which stored copy of its message a STORED / DELAY_DELIVERED / DELIVERED is about (2: a duplicate under the same
    id; :func:`~rmqlab.narrate.context.copy_number`): a step that hides it among "and 2 more" still names it."""

    @property
    def source(self) -> str:
        """The second line's content: ``Class.method: the rule, with this run's numbers``."""
        return self.text

    @property
    def lines(self) -> tuple[str, str]:
        """The caption as shown: the plain sentence, then ``in the source: …``."""
        return self.plain, _("in the source: {rule}").format(rule=self.text)

    def __str__(self) -> str:
        return self.text


_CAPTIONS: dict[EventKind, Callable[[CaptionContext, TraceEvent], tuple[str, str]]] = {
    K.SEND_ATTEMPT: sending.on_send_attempt,
    K.SEND_RESULT: sending.on_send_result,
    K.SEND_FAILED: sending.on_send_failed,
    K.STORED: storing.on_stored,
    K.SCHEDULED: storing.on_scheduled,
    K.DELAY_DELIVERED: storing.on_delay_delivered,
    K.PULLED: consuming.on_pulled,
    K.PULL_DEFERRED: consuming.on_pull_deferred,
    K.PULL_EMPTY: consuming.on_pull_empty,
    K.DELIVERED: consuming.on_delivered,
    K.CONSUMED: consuming.on_consumed,
    K.SEND_BACK: consuming.on_send_back,
    K.SEND_BACK_FALLBACK: consuming.on_send_back_fallback,
    K.LOCAL_RETRY: consuming.on_local_retry,
    K.DEAD_LETTERED: storing.on_dead_lettered,
    K.BROADCAST_DROPPED: consuming.on_broadcast_dropped,
    K.OFFSET_UPDATED: rebalancing.on_offset_updated,
    K.OFFSET_PERSISTED: rebalancing.on_offset_persisted,
    K.REBALANCED: rebalancing.on_rebalanced,
    K.LOCK_BATCH: rebalancing.on_lock_batch,
    K.LOCK_ACQUIRED: rebalancing.on_lock_acquired,
    K.LOCK_RENEWED: rebalancing.on_lock_renewed,
    K.LOCK_REFUSED: rebalancing.on_lock_refused,
    K.LOCK_EXPIRED: rebalancing.on_lock_expired,
    K.UNLOCKED: rebalancing.on_unlocked,
    K.SUSPENDED: consuming.on_suspended,
    K.CONSUME_REQUEST: consuming.on_consume_request,
    K.CLEAN_EXPIRED: consuming.on_clean_expired,
    K.RETENTION_DELETED: storing.on_retention_deleted,
    K.FAULT: lab_events.on_fault,
    K.ADMIN: storing.on_admin,
    K.LIFECYCLE: lab_events.on_lifecycle,
    K.WARNING: lab_events.on_warning,
}
"""Event kind → the function that captions it (and updates the context)."""


class Narrator:
    """Turns trace events, fed in trace order, into :class:`Caption` values.

    ``feed`` must see every event of a trace from its first one (it keeps the context that explains
    later events). Two narrators fed the same events give equal captions.
    """

    def __init__(self) -> None:
        self._context = CaptionContext()
        self._open: dict[Hashable, int] = {}
        """Signature → group (seq of its first event) of the groups a repeat may still join."""
        self._bursts: dict[int, Hashable] = {}
        """Group → the :func:`~rmqlab.narrate.steps.burst` of its first event (while it is open)."""

    def feed(self, event: TraceEvent) -> Caption:
        """The caption of ``event`` (the next event of the trace); updates the context.

        The plain sentence is made first, from the context as it was before this event (a send-back's
        sentence needs what the broker just did, which its source caption then forgets).
        """
        copy = copy_number(self._context, event)
        plain = PLAIN[event.kind](self._context, event)
        where, text = _CAPTIONS[event.kind](self._context, event)
        remember_copy(self._context, event)
        text = translated(text)  # the failures rmqlab words itself, which the rule quotes from the trace
        meaningful = is_meaningful(event)
        key = signature(event)
        group = self._open.get(key)
        fresh = group is None
        if group is None:
            if meaningful:  # something new happened: an identical event after it is news again
                close_other_bursts(self._open, burst(event), self._bursts.__getitem__)
                self._bursts = {g: b for g, b in self._bursts.items() if g in self._open.values()}
            group = self._open[key] = event.seq
            self._bursts[group] = burst(event)
        return Caption(
            event.seq,
            event.time_ms,
            event.kind,
            where,
            _("{where}: {rule}").format(where=where, rule=text),
            meaningful,
            plain,
            event.actor,
            event.msg_id,
            group,
            fresh,
            outcome=_outcome_of(event),
            topic=_topic_of(event),
            copy=copy,
        )


def _outcome_of(event: TraceEvent) -> str:
    """What :attr:`Caption.outcome` holds: a consume result's status, or a send try's outcome."""
    if event.kind is K.CONSUMED:
        return str(event.get("status") or "")
    if event.kind is K.SEND_RESULT:
        return str(event.get("outcome") or "")
    return ""


LOCK_KINDS = frozenset({K.LOCK_ACQUIRED, K.LOCK_EXPIRED, K.LOCK_REFUSED, K.UNLOCKED})
"""Lock results, each about one queue (``TopicTest@broker-a:0``)."""


def _topic_of(event: TraceEvent) -> str:
    """The topic a REBALANCED event or a lock result is about (:attr:`Caption.topic`)."""
    if event.kind is K.REBALANCED:
        return str(event.get("topic") or "")
    if event.kind in LOCK_KINDS:
        return str(event.get("queue") or "").partition("@")[0]
    return ""


def narrate(events: Iterable[TraceEvent]) -> list[Caption]:
    """Captions of a whole trace (or a prefix of one), in order."""
    narrator = Narrator()
    return [narrator.feed(e) for e in events]


def caption(event: TraceEvent, earlier: Iterable[TraceEvent] = ()) -> str:
    """The caption text of ``event``; ``earlier`` are the trace's events before it (the context)."""
    narrator = Narrator()
    for e in earlier:
        narrator.feed(e)
    return narrator.feed(event).text
