"""What a whole run showed, in one plain sentence: the caption of its last step.

A run's last Step often does only bookkeeping (the idle timers run to the horizon: an offset saved at the broker,
a lock renewed), and a caption that says "c1's progress … is saved at the broker" is a poor last word. The last
step says instead what became of the messages: how many were sent, consumed, retried (and how many deliveries the
most-tried one took), dead-lettered, dropped, stored twice, or are still waiting for another try — this run's
numbers, no Java identifier (the second line still names the code of the step's own events).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..core.duration import format_duration
from ..core.i18n import gettext as _
from ..core.i18n import ngettext
from ..core.trace import EventKind, TraceEvent
from .steps import StepCaption

__all__ = ["RunFates", "end_caption", "run_summary"]

K = EventKind
SUCCESS_STATUSES = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})
"""Consume results that acknowledge a message (concurrent, orderly, orderly with autoCommit off)."""
RETRY_KINDS = frozenset({K.SEND_BACK, K.SEND_BACK_FALLBACK, K.LOCAL_RETRY, K.SUSPENDED})
"""A message failed and will be tried again: sent back, re-sent by the client, retried locally, or suspended."""
SYSTEM_TOPICS = ("%RETRY%", "%DLQ%", "SCHEDULE_TOPIC", "RMQ_SYS")


@dataclass
class RunFates:
    """The messages of a run by what became of them (message ids, in the order first seen)."""

    sent: dict[str, None] = field(default_factory=dict)
    send_failed: dict[str, None] = field(default_factory=dict)
    copies: dict[str, int] = field(default_factory=dict)
    """Stored copies per message on its own (non-system) topic: two means a duplicate."""
    consumed: dict[str, None] = field(default_factory=dict)
    retried: dict[str, None] = field(default_factory=dict)
    deliveries: dict[str, int] = field(default_factory=dict)
    dead: dict[str, None] = field(default_factory=dict)
    dropped: dict[str, None] = field(default_factory=dict)
    end_ms: int = 0

    def feed(self, event: TraceEvent) -> None:
        """Count one event (events in trace order)."""
        self.end_ms = max(self.end_ms, event.time_ms)
        msg = event.msg_id
        if msg is None:
            return
        kind = event.kind
        if kind is K.SEND_ATTEMPT:
            self.sent[msg] = None
        elif kind is K.SEND_FAILED:
            self.send_failed[msg] = None
        elif kind is K.STORED and not str(event.get("topic", "")).startswith(SYSTEM_TOPICS):
            self.copies[msg] = self.copies.get(msg, 0) + 1
        elif kind is K.DELIVERED:
            self.deliveries[msg] = self.deliveries.get(msg, 0) + 1
        elif kind is K.CONSUMED and str(event.get("status")) in SUCCESS_STATUSES:
            self.consumed[msg] = None
        elif kind in RETRY_KINDS:
            self.retried[msg] = None
        elif kind is K.DEAD_LETTERED:
            self.dead[msg] = None
        elif kind is K.BROADCAST_DROPPED:
            self.dropped[msg] = None

    @property
    def waiting(self) -> list[str]:
        """Retried messages with no end yet: not consumed, not dead-lettered, not dropped."""
        return [m for m in self.retried if m not in self.consumed and m not in self.dead and m not in self.dropped]


def _join(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` (in Chinese ``a，b和c``)."""
    if len(parts) == 1:
        return parts[0]
    return _("{items} and {last}").format(items=_(", ").join(parts[:-1]), last=parts[-1])


def run_summary(events: Iterable[TraceEvent], *, now_ms: int | None = None) -> str:
    """One plain sentence: what the run showed, by message fate ("End of the run at 2 m: 3 messages sent, 2
    consumed, 1 retried (4 deliveries) and still waiting for another try."), in the current language."""
    fates = RunFates()
    for event in events:
        fates.feed(event)
    parts = []
    if fates.sent:
        parts.append(ngettext("{n} message sent", "{n} messages sent", len(fates.sent)).format(n=len(fates.sent)))
    # a failed send of a message stored by another send (a client's fallback re-send of a retry, a retry of its
    # own) did not lose it: lab 02b's one message, consumed, read "1 of them never stored"
    never_stored = [m for m in fates.send_failed if m not in fates.copies]
    if never_stored:
        parts.append(_("{n} of them never stored (the send failed)").format(n=len(never_stored)))
    twice = [m for m, n in fates.copies.items() if n > 1]
    if twice:
        parts.append(_("{n} stored more than once (a duplicate)").format(n=len(twice)))
    if fates.consumed:
        parts.append(_("{n} consumed").format(n=len(fates.consumed)))
    if fates.retried:
        most = max(fates.deliveries.get(m, 0) for m in fates.retried)
        retried = _("{n} retried").format(n=len(fates.retried))
        parts.append(retried + (_(" (up to {most} deliveries)").format(most=most) if most > 1 else ""))
    if fates.dead:
        parts.append(_("{n} dead-lettered").format(n=len(fates.dead)))
    if fates.dropped:
        parts.append(_("{n} dropped without a retry").format(n=len(fates.dropped)))
    if fates.waiting:
        parts.append(_("{n} still waiting for another try").format(n=len(fates.waiting)))
    when = _("End of the run at {time}").format(time=format_duration(fates.end_ms if now_ms is None else now_ms))
    if not parts:
        return _("{when}: no message moved.").format(when=when)
    return _("{when}: {what}.").format(when=when, what=_join(parts))


def end_caption(step: StepCaption, events: Iterable[TraceEvent], *, now_ms: int | None = None) -> StepCaption:
    """The last step's caption: what the run showed (:func:`run_summary`, at ``now_ms``) instead of the bookkeeping
    it did; the second line keeps the step's own source."""
    return StepCaption(run_summary(events, now_ms=now_ms), step.source)
