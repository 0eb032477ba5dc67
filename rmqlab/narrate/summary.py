"""What a whole run showed, in one plain sentence: the caption of its last step.

A run's last Step often does only bookkeeping (the idle timers run to the horizon: an offset saved at the broker,
a lock renewed), and a caption that says "c1's progress … is saved at the broker" is a poor last word. The last
step says instead what became of the messages: how many were sent, consumed, retried (and how many deliveries the
most-tried one took), dead-lettered, dropped, stored twice, still waiting for another try, pulled by a consumer
and not consumed yet, or stored at the broker and not pulled — this run's numbers, no Java identifier — and, when
the run committed consumer offsets, how many queues' offsets were saved. Each message stored is counted once, by
one fate: the last two are read from the engine's state at the frame's clock (:meth:`RunFates.see`), as the trace
does not say which ProcessQueue still holds a message after a crash or a rebalance.
The second line names the code behind each of those fates (:func:`summary_source`), so both lines are about the
same thing: the run as a whole, never one unrelated last event (an offset commit under a sentence about retries).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from ..core.duration import format_duration
from ..core.i18n import N_, columns, ngettext, pgettext
from ..core.i18n import gettext as _
from ..core.trace import EventKind, TraceEvent
from .engine_state import EngineState
from .fates import RETRY_KINDS, STORED_NOT_OK, SUCCESS_STATUSES, SYSTEM_TOPICS, RunFates
from .plain_words import ids_words
from .steps import PLAIN_WIDTH, StepCaption, fit_rule

__all__ = [
    "RETRY_KINDS", "STORED_NOT_OK", "SUCCESS_STATUSES", "SYSTEM_TOPICS", "EngineState", "RunFates", "count_fates",
    "end_caption", "run_summary", "summary_of", "summary_source",
]  # fmt: skip

K = EventKind
UNSAFE_WORDS = {
    "FLUSH_DISK_TIMEOUT": N_("{n} stored but not flushed to disk in time"),
    "FLUSH_SLAVE_TIMEOUT": N_("{n} stored but not copied to the slave in time"),
    "SLAVE_NOT_AVAILABLE": N_("{n} stored with no slave to copy them to"),
}
"""How the summary's plain line says each of :data:`STORED_NOT_OK` (no status name: that is the source line's)."""


def _join(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` (in Chinese ``a，b和c``)."""
    if len(parts) == 1:
        return parts[0]
    return _("{items} and {last}").format(items=_(", ").join(parts[:-1]), last=parts[-1])


def run_summary(events: Iterable[TraceEvent], *, now_ms: int | None = None, state: EngineState | None = None) -> str:
    """One plain sentence: what the run showed, by message fate ("End of the run at 2 m: 3 messages sent, 2
    consumed, 1 retried (4 deliveries) and still waiting for another try."), in the current language; with the
    engine's ``state`` at ``now_ms`` (a snapshot), the messages pulled and not consumed yet, or stored and not
    pulled, too (:meth:`RunFates.see`)."""
    return summary_of(count_fates(events, now_ms=now_ms, state=state))


def count_fates(
    events: Iterable[TraceEvent], *, now_ms: int | None = None, state: EngineState | None = None
) -> RunFates:
    """The fates of ``events`` (in trace order), at ``now_ms``, placed in ``state`` when given."""
    fates = RunFates()
    for event in events:
        fates.feed(event)
    if now_ms is not None:
        fates.end_ms = now_ms
    if state is not None:
        fates.see(state)
    return fates


def summary_of(fates: RunFates) -> str:
    """:func:`run_summary` of fates already counted (its time: ``fates.end_ms``)."""
    parts = []
    # a failed send of a message stored by another send (a client's fallback re-send of a retry, a retry of its
    # own) did not lose it: lab 02b's one message, consumed, read "1 of them never stored"
    never_stored = [m for m in fates.send_failed if m not in fates.copies and m not in fates.refused]
    if fates.refused:  # lab 06's strict run read "11 messages sent, 2 of them never stored": one was never sent
        n = len(fates.sent) + len(fates.refused)
        parts.append(ngettext("{n} message", "{n} messages", n).format(n=n))
        parts.append(_("{n} refused before sending (the selector gave no queue)").format(n=len(fates.refused)))
        if never_stored:
            parts.append(_("{n} sent and never stored (the send failed)").format(n=len(never_stored)))
    elif fates.sent:
        parts.append(ngettext("{n} message sent", "{n} messages sent", len(fates.sent)).format(n=len(fates.sent)))
        if never_stored:
            parts.append(_("{n} of them never stored (the send failed)").format(n=len(never_stored)))
    twice = [m for m, n in fates.copies.items() if n > 1]
    if twice:
        parts.append(_("{n} stored more than once (a duplicate)").format(n=len(twice)))

    def deliveries(messages: Iterable[str]) -> str:
        most = fates.most_deliveries(messages)
        return _(" (up to {most} deliveries)").format(most=most) if most > 1 else ""

    if fates.consumed:  # each message is counted once, by its fate: consumed (after a retry or not), dead …
        parts.append(_consumed_words(fates) + _consumed_details(fates))
    if fates.dead:
        parts.append(_("{n} dead-lettered").format(n=len(fates.dead)) + deliveries(fates.dead))
    for reader, letters in fates.read_from_dlq.items():  # lab 04's operator: "1 read from the DLQ by ops1"
        parts.append(_("{n} read from the dead-letter topic by {who}").format(n=len(letters), who=reader))
    on_the_way = [m for m in fates.to_dead if m not in fates.dead]
    if on_the_way:
        n = len(on_the_way)
        parts.append(
            ngettext("{n} on its way to the dead-letter topic", "{n} on their way to the dead-letter topic", n).format(
                n=n
            )
            + deliveries(on_the_way)
        )
    if fates.lost:
        parts.append(_("{n} lost (sent back to a group with no retry queue)").format(n=len(fates.lost)))
    if fates.dropped:
        parts.append(_dropped_words(fates))
    waiting = [m for m in fates.waiting if m not in fates.stranded]
    if waiting:
        parts.append(_("{n} still waiting for another try").format(n=len(waiting)) + deliveries(waiting))
    if fates.stranded:
        n = len(fates.stranded)
        parts.append(
            ngettext(
                "{n} never pulled, stranded in a retry queue that no route lists",
                "{n} never pulled, stranded in retry queues that no route lists",
                n,
            ).format(n=n)
        )
    if fates.expired:  # lab 04's retention picture: its dead letters are gone at the end, still dead-lettered
        parts.append(_("{n} since deleted by retention (stored 72 h before or more)").format(n=len(fates.expired)))
    parts.extend(_held_words(fates))
    if fates.at_broker:
        stored = _("{n} stored at the broker, not pulled yet") if fates.consumers else _("{n} stored (no consumer)")
        parts.append(stored.format(n=len(fates.at_broker)))
    for status, messages in fates.unsafe.items():
        parts.append(_(UNSAFE_WORDS[status]).format(n=len(messages)))
    when = _("End of the run at {time}").format(time=format_duration(fates.end_ms))
    if not parts:
        return _("{when}: no message moved.").format(when=when)
    said = _("{when}: {what}.").format(when=when, what=_join(parts))
    if fates.queues_committed:  # the offsets saved, when the line has room for them (the fates come first)
        n = fates.queues_committed
        saved = ngettext("the offset of {n} queue was saved", "the offsets of {n} queues were saved", n).format(n=n)
        longer = _("{when}: {what}; {saved}.").format(when=when, what=_join(parts), saved=saved)
        if columns(longer) <= PLAIN_WIDTH or columns(said) > PLAIN_WIDTH:
            said = longer
    return said


def _consumed_words(fates: RunFates) -> str:
    """BROADCASTING consumes each instance's own copy: "6 copies consumed (3 by c1 and 3 by c2)" when more than one
    instance consumed a message (lab 08's end caption read "3 consumed" beside 6 tokens), else "3 consumed"."""
    copies = sum(len(messages) for messages in fates.consumed_by.values())
    if copies <= len(fates.consumed):
        return _("{n} consumed").format(n=len(fates.consumed))
    by = [pgettext("copies consumed", "{n} by {consumer}").format(n=len(ms), consumer=who)
          for who, ms in sorted(fates.consumed_by.items())]  # fmt: skip
    return _("{n} copies consumed ({by})").format(n=copies, by=_join(by))


def _consumed_details(fates: RunFates) -> str:
    """What the consumed count leaves out: how many were consumed after a retry, how many were delivered again with
    no retry (a consumer that restarted before its offset was saved: lab 05's "5 consumed" hid 4 delivered twice)."""
    said = ""
    again = [m for m in fates.consumed if m in fates.retried]
    if again:
        said += _(" ({n} of them after a retry, up to {most} deliveries)").format(
            n=len(again), most=fates.most_deliveries(again)
        )
    twice = [m for m in fates.consumed if m in fates.redelivered]
    if twice:
        most = max(fates.redelivered[m] for m in twice)
        if most > 2:
            words = _(" ({n} of them delivered more than once, up to {most} times)")
        elif all(m in fates.after_restart for m in twice):
            words = _(" ({n} of them delivered twice: again after a restart)")
        elif all(m in fates.taken_over for m in twice):
            words = _(" ({n} of them delivered twice: again to the consumer that took the queue over)")
        else:
            words = _(" ({n} of them delivered twice)")
        said += words.format(n=len(twice), most=most)
    return said


def _dropped_words(fates: RunFates) -> str:
    """BROADCASTING drops each instance's own copy: "6 copies dropped without a retry (3 by c1 and 3 by c2)" when
    more than one instance dropped a message, else how many messages were dropped."""
    copies = sum(len(messages) for messages in fates.dropped_by.values())
    if copies <= len(fates.dropped):
        return _("{n} dropped without a retry").format(n=len(fates.dropped))
    by = [_("{n} by {consumer}").format(n=len(ms), consumer=who) for who, ms in sorted(fates.dropped_by.items())]
    return _("{n} copies dropped without a retry ({by})").format(n=copies, by=_join(by))


def _held_words(fates: RunFates) -> list[str]:
    """The messages pulled and not consumed, per ProcessQueue: those waiting behind a message being retried named
    ("M0004 and M0005 wait behind M0003 in pay-1": an orderly queue hands out nothing past it), the others counted."""
    holders: dict[tuple[str, str], list[str]] = {}
    for msg, holder in fates.held.items():
        holders.setdefault(holder, []).append(msg)
    parts = []
    for (consumer, queue), messages in holders.items():
        head = fates.behind.get((consumer, queue))
        n = len(messages)
        if head is not None:
            words = ngettext("{ids} waits behind {head} in {consumer}", "{ids} wait behind {head} in {consumer}", n)
            parts.append(words.format(ids=_join_ids(messages), head=head, consumer=consumer))
        else:
            words = _("{n} pulled by {consumer} from {queue} but not consumed")
            parts.append(words.format(n=n, consumer=consumer, queue=queue))
    return parts


def _join_ids(ids: list[str]) -> str:
    """``M0004``, ``M0004 and M0005``, else :func:`ids_words` (three, then how many more)."""
    return _join(ids) if len(ids) <= 3 else ids_words(ids)


class _Sourced(Protocol):
    """What :func:`summary_source` needs of a caption (:class:`~rmqlab.narrate.narrator.Caption` is one)."""

    @property
    def kind(self) -> EventKind: ...
    @property
    def where(self) -> str: ...
    @property
    def msg_id(self) -> str | None: ...


def summary_source(captions: Sequence[_Sourced], fates: RunFates) -> str:
    """The summary's second line: for each fate :func:`run_summary` counts, the RocketMQ method that decided it, as
    this run's captions name it ("in the source: sent: DefaultMQProducerImpl.sendDefaultImpl; retried: …"); a
    consumed message's is that of its last consume result (its success)."""
    wanted: tuple[tuple[str, frozenset[EventKind], dict[str, None] | None, bool], ...] = (
        (_("sent"), frozenset({K.SEND_ATTEMPT}), fates.sent, False),
        (_("refused"), frozenset({K.SEND_FAILED}), fates.refused, False),
        (_("consumed"), frozenset({K.CONSUMED}), fates.consumed, True),
        (
            _("retried"),
            RETRY_KINDS,
            {m: None for m in fates.retried if m in fates.consumed or m in fates.waiting},
            False,
        ),
        (_("dead-lettered"), frozenset({K.DEAD_LETTERED}), fates.dead, False),
        (
            _("to the dead-letter topic"),
            frozenset({K.SEND_BACK}),
            {m: None for m in fates.to_dead if m not in fates.dead},
            True,
        ),
        (_("lost"), frozenset({K.SEND_BACK}), fates.lost, True),
        (_("dropped"), frozenset({K.BROADCAST_DROPPED}), fates.dropped, False),
        (_("pulled"), frozenset({K.PULLED}), {m: None for m in fates.held}, True),
        (_("stored"), frozenset({K.STORED}), fates.at_broker, False),
        (_("not SEND_OK"), frozenset({K.SEND_RESULT}), {m: None for ms in fates.unsafe.values() for m in ms}, False),
        (_("offsets saved"), frozenset({K.OFFSET_PERSISTED}), None, False),
    )
    parts = []
    for fate, kinds, messages, last in wanted:
        if not (fates.queues_committed if messages is None else messages):
            continue
        found = [
            c
            for c in captions
            if c.kind in kinds
            and (messages is None or c.msg_id in messages or (c.msg_id is None and c.kind is K.PULLED))
        ]  # a pull brings several messages: its event names none
        if not found:
            continue
        where = found[-1 if last else 0].where
        if messages is fates.lost:  # the broker decided it, answering the send-back
            where = "SendMessageProcessor.asyncConsumerSendMsgBack (retryQueueNums 0)"
        elif kinds == {K.SEND_RESULT}:
            where += " (" + ", ".join(f"{status} × {len(ms)}" for status, ms in fates.unsafe.items()) + ")"
        parts.append(_("{fate}: {where}").format(fate=fate, where=where))
    rule = _("; ").join(parts) if parts else _("nothing was sent or consumed")
    return fit_rule(_("in the source: {rule}").format(rule=rule))


def end_caption(
    step: StepCaption,
    events: Iterable[TraceEvent],
    *,
    now_ms: int | None = None,
    captions: Sequence[_Sourced] | None = None,
    state: EngineState | None = None,
) -> StepCaption:
    """The last step's caption: what the run showed (:func:`run_summary`, at ``now_ms``, in the engine's ``state``
    there) instead of what its step did; the second line the code behind those fates (:func:`summary_source` of the
    run's ``captions``), or without them the step's own source."""
    fates = count_fates(events, now_ms=now_ms, state=state)
    source = step.source if captions is None else summary_source(captions, fates)
    return StepCaption(summary_of(fates), source)
