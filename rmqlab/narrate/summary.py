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
from dataclasses import dataclass, field
from typing import Protocol

from ..core.duration import format_duration
from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from ..core.trace import EventKind, TraceEvent
from .engine_state import EngineState
from .steps import StepCaption, fit_rule

__all__ = ["EngineState", "RunFates", "count_fates", "end_caption", "run_summary", "summary_of", "summary_source"]

K = EventKind
SUCCESS_STATUSES = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})
"""Consume results that acknowledge a message (concurrent, orderly, orderly with autoCommit off)."""
RETRY_KINDS = frozenset({K.SEND_BACK, K.SEND_BACK_FALLBACK, K.LOCAL_RETRY, K.SUSPENDED})
"""A message failed and will be tried again: sent back, re-sent by the client, retried locally, or suspended."""
SYSTEM_TOPICS = ("%RETRY%", "%DLQ%", "SCHEDULE_TOPIC", "RMQ_SYS")
STORED_NOT_OK = ("FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE")
"""Send statuses of a message the broker stored, but did not make safe as asked (4.9.7 ``SendStatus``)."""
UNSAFE_WORDS = {
    "FLUSH_DISK_TIMEOUT": N_("{n} stored but not flushed to disk in time"),
    "FLUSH_SLAVE_TIMEOUT": N_("{n} stored but not copied to the slave in time"),
    "SLAVE_NOT_AVAILABLE": N_("{n} stored with no slave to copy them to"),
}
"""How the summary's plain line says each of :data:`STORED_NOT_OK` (no status name: that is the source line's)."""


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
    to_dead: dict[str, None] = field(default_factory=dict)
    """Parked at a delay level whose real topic is ``%DLQ%``: an orderly consumer's last send-back, a dead letter when
    its delay is over (``sendMessageBack`` with a level, ``ConsumeMessageOrderlyService.checkReconsumeTimes``)."""
    dropped: dict[str, None] = field(default_factory=dict)
    lost: dict[str, None] = field(default_factory=dict)
    """Sent back, answered SUCCESS, and stored nowhere: the group has no retry queue (4.9.7
    ``SendMessageProcessor.asyncConsumerSendMsgBack`` returns SUCCESS at once when ``retryQueueNums`` is 0)."""
    unsafe: dict[str, dict[str, None]] = field(default_factory=dict)
    """Send status (other than SEND_OK) → the messages stored with it (``FLUSH_DISK_TIMEOUT`` …)."""
    reacted: set[str] = field(default_factory=set)
    """Messages the broker parked, stored or dead-lettered since their last consume result (before their send-back)."""
    committed: dict[str, int] = field(default_factory=dict)
    """Per queue, the last consumer offset saved (at the broker, or a broadcasting consumer's local file)."""
    held: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Pulled and not consumed yet, with no other fate: message → (the consumer, the queue) whose ProcessQueue holds
    it at the frame's clock (behind a message its orderly consumer retries, or waiting for a consume thread)."""
    at_broker: dict[str, None] = field(default_factory=dict)
    """Stored on its topic at the broker, with no other fate and in no running consumer's ProcessQueue."""
    consumers: int = 0
    """Running consumers at the frame's clock (none: the run only sends; its stored messages wait for nobody)."""
    end_ms: int = 0

    def feed(self, event: TraceEvent) -> None:
        """Count one event (events in trace order)."""
        self.end_ms = max(self.end_ms, event.time_ms)
        msg = event.msg_id
        if event.kind is K.OFFSET_PERSISTED:
            whose = event.actor if event.get("store") == "local" else event.get("group")  # a group shares one offset
            self.committed[f"{whose} {event.get('queue')}"] = int(event.get("offset") or 0)
        if msg is None:
            return
        kind = event.kind
        if kind is K.SEND_ATTEMPT:
            self.sent[msg] = None
        elif kind is K.SEND_FAILED:
            self.send_failed[msg] = None
        elif kind is K.SEND_RESULT and str(event.get("outcome")) in STORED_NOT_OK:
            self.unsafe.setdefault(str(event.get("outcome")), {})[msg] = None
        elif kind is K.STORED and not str(event.get("topic", "")).startswith(SYSTEM_TOPICS):
            self.copies[msg] = self.copies.get(msg, 0) + 1
        elif kind is K.DELIVERED:
            self.deliveries[msg] = self.deliveries.get(msg, 0) + 1
        elif kind is K.CONSUMED:
            self.reacted.discard(msg)
            if str(event.get("status")) in SUCCESS_STATUSES:
                self.consumed[msg] = None
        elif kind in (K.STORED, K.SCHEDULED, K.DEAD_LETTERED):
            self.reacted.add(msg)
            if kind is K.DEAD_LETTERED:
                self.dead[msg] = None
            elif kind is K.SCHEDULED and str(event.get("real_topic", "")).startswith("%DLQ%"):
                self.to_dead[msg] = None
        elif kind is K.SEND_BACK and event.get("ok") and event.get("path") != "orderly" and msg not in self.reacted:
            self.lost[msg] = None  # the broker answered SUCCESS and stored nothing
        elif kind in RETRY_KINDS:
            if kind is not K.SEND_BACK or not ({msg} & (self.dead.keys() | self.to_dead.keys())):
                self.retried[msg] = None  # a send-back straight to the DLQ is no retry
        elif kind is K.BROADCAST_DROPPED:
            self.dropped[msg] = None

    def see(self, state: EngineState) -> None:
        """Give the messages stored with no fate yet their place in the engine's ``state`` (after every event is
        fed): held in a running consumer's live ProcessQueue (4.9.7 ``ProcessQueue.msgTreeMap``, or
        ``consumingMsgOrderlyTreeMap`` while an orderly listener has it), else stored at the broker, not pulled."""
        ended = {*self.consumed, *self.dead, *self.to_dead, *self.lost, *self.dropped, *self.waiting}
        running = [c for c in state.consumers if c.running]
        self.consumers = len(running)
        for consumer in running:
            for pq in consumer.process_queues:
                if pq.dropped:  # a queue the consumer gave up: its messages are pulled again by the next owner
                    continue
                for msg in (*pq.consuming_ids, *pq.msg_tree_ids):
                    if msg not in ended:
                        self.held.setdefault(msg, (consumer.client_id, pq.queue))
        for queue in state.queues:
            if queue.topic.startswith(SYSTEM_TOPICS):
                continue
            for cell in queue.cells:
                stored = cell.msg_id
                if stored is not None and stored not in ended and stored not in self.held:
                    self.at_broker[stored] = None

    def counted(self) -> dict[str, list[str]]:
        """The messages the summary counts, under the fate it counts each by (a message both consumed and
        dead-lettered, a duplicate, under both)."""
        return {
            "consumed": list(self.consumed),
            "dead-lettered": list(self.dead),
            "on its way to the dead-letter topic": [m for m in self.to_dead if m not in self.dead],
            "lost": list(self.lost),
            "dropped": list(self.dropped),
            "still waiting for another try": self.waiting,
            "pulled, not consumed yet": list(self.held),
            "stored, not pulled": list(self.at_broker),
        }

    @property
    def queues_committed(self) -> int:
        """How many queues had a consumer offset past 0 saved (progress a restart resumes from)."""
        return sum(1 for offset in self.committed.values() if offset > 0)

    @property
    def waiting(self) -> list[str]:
        """Retried messages with no end yet: not consumed, not dead-lettered (nor on the way there), not dropped, not
        lost."""
        ended = (self.consumed, self.dead, self.dropped, self.to_dead, self.lost)
        return [m for m in self.retried if not any(m in fate for fate in ended)]

    def most_deliveries(self, messages: Iterable[str]) -> int:
        return max((self.deliveries.get(m, 0) for m in messages), default=0)


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

    def deliveries(messages: Iterable[str]) -> str:
        most = fates.most_deliveries(messages)
        return _(" (up to {most} deliveries)").format(most=most) if most > 1 else ""

    if fates.consumed:  # each message is counted once, by its fate: consumed (after a retry or not), dead …
        consumed = _("{n} consumed").format(n=len(fates.consumed))
        again = [m for m in fates.consumed if m in fates.retried]
        if again:
            consumed += _(" ({n} of them after a retry, up to {most} deliveries)").format(
                n=len(again), most=fates.most_deliveries(again)
            )
        parts.append(consumed)
    if fates.dead:
        parts.append(_("{n} dead-lettered").format(n=len(fates.dead)) + deliveries(fates.dead))
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
        parts.append(_("{n} dropped without a retry").format(n=len(fates.dropped)))
    if fates.waiting:
        parts.append(_("{n} still waiting for another try").format(n=len(fates.waiting)) + deliveries(fates.waiting))
    holders: dict[tuple[str, str], int] = {}
    for holder in fates.held.values():
        holders[holder] = holders.get(holder, 0) + 1
    for (consumer, queue), n in holders.items():
        parts.append(
            _("{n} pulled by {consumer} ({queue}), not consumed").format(n=n, consumer=consumer, queue=queue)
        )
    if fates.at_broker:
        stored = _("{n} stored at the broker, not pulled yet") if fates.consumers else _("{n} stored (no consumer)")
        parts.append(stored.format(n=len(fates.at_broker)))
    for status, messages in fates.unsafe.items():
        parts.append(_(UNSAFE_WORDS[status]).format(n=len(messages)))
    if parts and fates.queues_committed:
        n = fates.queues_committed
        parts.append(ngettext("the offset of {n} queue saved", "the offsets of {n} queues saved", n).format(n=n))
    when = _("End of the run at {time}").format(time=format_duration(fates.end_ms))
    if not parts:
        return _("{when}: no message moved.").format(when=when)
    return _("{when}: {what}.").format(when=when, what=_join(parts))


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
