"""What decided a send's queue, and the place of a send that fails: the send questions' part of
:mod:`.checkpoint_choices`.

A "where" question about a send (the run pauses before a message is stored, or before its send attempt) offers the
queues of its topic and, drawn next to the producer, **"send fails, not stored"**: lab 06 asks whether a send the
producer gives up on (a 3000 ms timeout against a broker that answers in 5 s) is stored anyway, and a picture that
offers only queues lets a student click nothing but where the message went. That place is right when the engine's
next state has the message at its producer, failed (:mod:`widgets.flow_places`' ``failed:<producer>``); when it
is wrong its hint says why the broker stored it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rmqlab import EventKind, TraceEvent, format_duration
from rmqlab.core.i18n import gettext as _

from .flow_view import Place

__all__ = ["SENDS", "SendFacts", "broker_of", "failed_hint", "failed_place", "send_end", "send_facts", "send_hint"]

SENDS = (EventKind.STORED, EventKind.SEND_ATTEMPT)
"""The events whose "where" question is about a send."""


def send_end(event: TraceEvent, trace: Sequence[TraceEvent]) -> int:
    """For a send attempt: the trace index of the event that ends it (its result, or the producer giving up), so
    that a "where" before a send is answered once the producer knows how it went (lab 06: stored, though the
    producer gave up 3000 ms later); for any other event its own index."""
    index = event.seq - 1
    if event.kind is not EventKind.SEND_ATTEMPT:
        return index
    attempt = event.get("attempt")
    ends = (EventKind.SEND_RESULT, EventKind.SEND_FAILED)
    return next((e.seq - 1 for e in trace[index + 1 :] if e.kind in ends and e.msg_id == event.msg_id
                 and e.actor == event.actor and e.get("attempt", attempt) == attempt), index)  # fmt: skip


def failed_place(event: TraceEvent, trace: Sequence[TraceEvent]) -> Place | None:
    """The "send fails, not stored" place of ``event``'s producer, for a send question (None otherwise)."""
    if event.kind not in SENDS or event.msg_id is None:
        return None
    actor = event.actor if event.kind is EventKind.SEND_ATTEMPT else next(
        (e.actor for e in reversed(trace) if e.kind is EventKind.SEND_ATTEMPT and e.msg_id == event.msg_id), "")
    if not actor.startswith("producer:"):
        return None
    producer = actor.removeprefix("producer:")
    return Place(f"failed:{producer}", "send_failed", _("send fails, not stored"), "producers", owner=producer)


def broker_of(key: str) -> str:
    """The broker of a queue's place key (``queue:TopicTest@broker-b:0`` → ``broker-b``)."""
    return key.split("@")[-1].split(":")[0]


def failed_hint(choice: Place, answer: Place) -> str:
    """The near-miss hint of a send question's wrong choice when the send fails or the message is stored."""
    if choice.kind == "send_failed":
        broker = broker_of(answer.key)
        return _("The request reaches {broker}, which is up, and the broker appends the message as the request "
                 "arrives. Whatever the producer hears back later, or gives up waiting for, does not undo the "
                 "store.").format(broker=broker)
    return _("Look at the broker this queue is on: a request that cannot reach a broker that can store it stores "
             "nothing, and the producer's send fails.")


@dataclass(frozen=True, slots=True)
class SendFacts:
    """What decided the queue of the send a "stored" checkpoint pauses before, read from the run: the try number,
    the broker and queue of the try before it and how that try ended (a retry skips that broker:
    ``TopicPublishInfo.selectOneMessageQueue(lastBrokerName)``), and the brokers the producer keeps out of its choice
    (``MQFaultStrategy`` with sendLatencyFaultEnable: broker → (latency ms, answered at, out until))."""

    attempt: int
    last_broker: str = ""
    last_queue: str = ""
    last_outcome: str = ""
    kept_out: tuple[tuple[str, int, int, int], ...] = ()
    previous: str = ""
    """The queue of the producer's send before this one (``TopicTest:1 · broker-a``)."""
    selector: bool = False
    """A MessageQueueSelector picks the queue (``sendSelectImpl``), not the round robin."""
    producer: str = ""


def send_facts(event: TraceEvent, trace: Sequence[TraceEvent]) -> SendFacts | None:
    """The :class:`SendFacts` of ``event`` (a store) from the sends before it; None when no send led to it."""
    tries = [e for e in trace if e.kind is EventKind.SEND_ATTEMPT and e.msg_id == event.msg_id]
    if not tries:
        return None
    attempt = int(tries[-1].get("attempt") or 1)
    results = [e for e in trace if e.kind is EventKind.SEND_RESULT and e.actor == tries[-1].actor]
    last = [e for e in results if e.msg_id == event.msg_id and int(e.get("attempt") or 0) == attempt - 1]
    began = {(e.msg_id, e.get("attempt")): e.time_ms for e in trace
             if e.kind is EventKind.SEND_ATTEMPT and e.actor == tries[-1].actor}  # fmt: skip
    kept: dict[str, tuple[int, int, int]] = {}
    for r in results:  # the last answer of each broker decides whether it is kept out now
        broker, until = str(r.get("broker")), int(r.get("not_available_until") or 0)
        kept.pop(broker, None)
        if until > event.time_ms:
            kept[broker] = (r.time_ms - began.get((r.msg_id, r.get("attempt")), r.time_ms), r.time_ms, until)
    picked = [e for e in trace if e.kind is EventKind.SEND_ATTEMPT and e.actor == tries[-1].actor
              and e.msg_id != event.msg_id]  # fmt: skip
    previous = f"{picked[-1].get('topic')}:{picked[-1].get('queue_id')} · {picked[-1].get('broker')}" if picked else ""
    selector = "Select" in str(tries[-1].get("entry") or "")
    if not last:
        return SendFacts(attempt, kept_out=tuple((b, *v) for b, v in sorted(kept.items())), previous=previous,
                         selector=selector, producer=tries[-1].actor.removeprefix("producer:"))  # fmt: skip
    prev = last[-1]
    return SendFacts(
        attempt, str(prev.get("broker")), f"{tries[-2].get('topic')}:{prev.get('queue_id')} · {prev.get('broker')}"
        if len(tries) >= 2 else str(prev.get("broker")),
        str(prev.get("outcome")).split(":")[0], tuple((b, *v) for b, v in sorted(kept.items())),
    )


def send_hint(choice: Place, answer: Place, sent: SendFacts | None) -> str:
    """The near-miss hint of a queue for a send, from what decided it in this run ("" when nothing special did: a
    plain round robin, or a selector)."""
    if sent is None:
        return ""
    broker = broker_of(choice.key)
    right = broker_of(answer.key)
    if sent.last_broker:
        if broker == sent.last_broker:
            return _("Try {n} comes after try {m} on {broker} ended in {outcome}: a retry calls "
                     "selectOneMessageQueue(lastBrokerName), which skips {broker}'s queues.").format(
                n=sent.attempt, m=sent.attempt - 1, broker=broker, outcome=sent.last_outcome)
        return _("Not that queue: the round robin moves on one queue at a time from the last try's queue ({queue}) "
                 "and takes the first one not on {broker}.").format(queue=sent.last_queue, broker=sent.last_broker)
    out = {b: (lat, at, until) for b, lat, at, until in sent.kept_out}
    if broker in out and broker != right:
        lat, at, _until = out[broker]
        return _("{broker} took {latency} to answer at {at}: with sendLatencyFaultEnable, MQFaultStrategy keeps a "
                 "slow broker out of the producer's choice for a while, however fast it is again.").format(
            broker=broker, latency=format_duration(lat), at=format_duration(at))
    if out and broker == right:
        return _("Not that queue: the round robin moves on one queue per send, past the queues of a broker the "
                 "producer keeps out.")
    if not out and sent.previous and not sent.selector:
        if broker != right:
            return _("Nothing keeps a broker out of {producer}'s choice here, whatever it answered last: a new send "
                     "just takes the round robin's next queue.").format(producer=sent.producer)
        return _("Not that queue: a new send takes the round robin's next queue, one on from the last send's.")
    return ""
