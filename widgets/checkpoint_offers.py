"""What a checkpoint offers as answers, and which is right, read from the run's frames: places (``where``),
instances (``who``) and times (``when``). Split from :mod:`widgets.checkpoints`, which resolves a lab's checkpoints
against a run with them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rmqlab import EventKind, TraceEvent
from rmqlab.snapshot import LabSnapshot

from .checkpoint_choices import where_offers, who_hint
from .checkpoint_facts import subject
from .checkpoint_when import when_offers
from .flow_view import FlowVM, Place

__all__ = ["CheckpointError", "Choice", "when_choices", "where_choices", "who_choices"]


class CheckpointError(ValueError):
    """A checkpoint that does not fit the run (no such event, no message to follow)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer on offer: ``key`` identifies it, ``label`` is what the student reads, ``mark`` the key of the
    main picture's mark it stands for ("" when the picture does not draw it at the paused step)."""

    key: str
    label: str
    mark: str = ""
    hint: str = ""
    """The near-miss hint for this choice when it is wrong: what picking it means and the rule that rules it out
    (:mod:`rmqlab.widgets.checkpoint_choices`); "" falls back to the checkpoint's hint."""


def where_choices(
    event: TraceEvent, before: FlowVM, after: FlowVM, trace: Sequence[TraceEvent], step: Sequence[TraceEvent] = ()
) -> tuple[tuple[Choice, ...], str, tuple[Place, ...]]:
    if event.msg_id is None:
        raise CheckpointError(
            f"ask='where' needs an event about a message; {event.kind.value} at seq {event.seq} has none"
        )
    tokens = [t for t in after.tokens if t.msg_id == event.msg_id]
    if not tokens:
        raise CheckpointError(f"ask='where': message {event.msg_id} is not drawn after {event.kind.value}")
    was = {t.key: t.place for t in before.tokens}
    moved = [t for t in tokens if was.get(t.key) != t.place]
    answer = (moved or tokens)[0].place
    owner = (moved or tokens)[0].owner
    now_at = {t.place for t in before.tokens if t.msg_id == event.msg_id and t.owner == owner}
    offers = where_offers(event, before, after, answer, now_at, trace, step=step)
    drawn = {p.key for p in before.places}
    missing = tuple(o.place for o in offers if o.place is not None and o.key not in drawn)
    return tuple(Choice(o.key, o.label, o.mark, o.hint) for o in offers), answer, missing


def who_choices(event: TraceEvent, snap: LabSnapshot) -> tuple[tuple[Choice, ...], str]:
    sent = event.kind is EventKind.SEND_ATTEMPT  # a send attempt's "who" is the broker it goes to, not the producer
    answer = str(event.get("broker")) if sent else subject(event)
    consumers = sorted(c.client_id for c in snap.consumers)
    brokers = sorted(b.name for b in snap.brokers)
    if answer in consumers:
        return tuple(Choice(c, c, f"consumer:{c}", who_hint(c, snap, event)) for c in consumers), answer
    if answer in brokers:
        return tuple(Choice(b, b, f"broker:{b}", who_hint(b, snap, event)) for b in brokers), answer
    raise CheckpointError(f"ask='who': {event.kind.value} at seq {event.seq} is by {event.actor!r}, not an instance")


def when_choices(event: TraceEvent, snap: LabSnapshot, trace: Sequence[TraceEvent]) -> tuple[tuple[Choice, ...], str]:
    offers = when_offers(event, snap, trace)
    return tuple(Choice(o.key, o.label, o.mark, o.hint) for o in offers), str(event.time_ms)
