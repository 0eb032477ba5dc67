"""Checkpoints: predictions made on the picture. The run pauses just before a named event and asks the student.

A lab declares them on its dashboard::

    Dashboard(failing_lab, horizon="2m", checkpoints=[
        Checkpoint(before="send_back", ask="where"),              # where does the failed message go next?
        Checkpoint(before="delay_delivered", ask="when"),         # when does it come back?
        Checkpoint(before="dead_lettered", nth=2, ask="where"),   # the 2nd DLQ write
        Checkpoint(before="lock_acquired", actor="consumer:c2", queue="TopicTest@broker-a:0", ask="who"),
    ])

``before`` is an :class:`~rmqlab.EventKind` (its value, e.g. ``"send_back"``, ``"dead_lettered"``,
``"delivered"``, ``"lock_acquired"``, ``"rebalanced"``); ``nth`` counts events of that kind (from 1), only those
about ``msg_id``, by ``actor`` and on ``queue`` (``"TopicTest@broker-a:0"``) when given. ``ask`` is ``"where"``
(click the place the message is next: a queue, a delay level, the DLQ, a ProcessQueue, a tray), ``"who"`` (which
consumer instance or broker acts) or ``"when"`` (at what virtual time). Playing or stepping onto the step that
holds the event stops on the step before it (for "when", on the last step whose clock is earlier than the event, so
that the paused clock does not read the answer), the question appears in the picture, and only the right answer (or
"show me") lets the run go on.

**The answers come from the run, never from the lab's text**: :func:`resolve` reads the engine's trace and the
message-flow view-model of the step after the event (where the message's token is then), so a checkpoint stays
right when the scenario or RocketMQ's rules change. ``question``, ``hint`` and ``explain`` have defaults from the
event kind and the run's numbers; a lab may give its own words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from rmqlab import EventKind, TraceEvent
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .checkpoint_choices import where_offers, who_hint
from .checkpoint_facts import HINTS, OTHER_HINT, answer_kind, default_hint, run_facts
from .checkpoint_facts import subject as _subject
from .checkpoint_when import when_offers
from .flow_view import FlowVM, Place

__all__ = ["ASKS", "AskedCheckpoint", "Checkpoint", "CheckpointError", "Choice", "cuts_of", "resolve", "run_facts"]

Ask = Literal["where", "who", "when"]
ASKS: tuple[str, ...] = ("where", "who", "when")

WHERE_KINDS = ("business", "retry", "delay", "dlq", "process_queue", "done", "dropped")
"""The flow view's place kinds a "where" checkpoint offers as answers."""


class CheckpointError(ValueError):
    """A checkpoint that does not fit the run (no such event, no message to follow)."""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Pause before the ``nth`` ``before`` event (about ``msg_id``, by ``actor``, on ``queue`` when given) and ask
    ``ask``."""

    before: EventKind | str
    ask: Ask = "where"
    nth: int = 1
    msg_id: str | None = None
    actor: str | None = None
    queue: str | None = None
    """Only events on this queue (an orderly consumer also locks its group's ``%RETRY%`` queue, first)."""
    question: str = ""
    hint: str = ""
    explain: str | Mapping[str, str] = ""
    """Said after the right answer: the mechanism and its rule. A lab's own question, hint and explanation may name the
    run's values, filled in when the checkpoint resolves (so that the lab's source never states the answer; an
    unknown name is an error listing the known ones): ``{answer}`` (the right choice as its button reads),
    ``{time}``, ``{since}`` (since the message's event before), ``{msg}`` and the event's fields, and more
    (:func:`widgets.checkpoint_facts.run_facts`). Or, per answer key (or kind of place: ``"dlq"``, ``"delay"`` …),
    the words of each answer a knob can lead to (an answer not in it gets the default)."""
    name: str = ""
    """What the score summary calls it (default: ``"send_back #1"``)."""
    optional: bool = False
    """Ask nothing, rather than fail, on a run without this event: for a picture whose knobs can change the
    mechanism (e.g. ``max_reconsume_times=0`` leaves no second send-back to pause before)."""
    inside_step: bool = False
    """Pause right before the event even when the engine appends it in the same scheduler step as the events before
    it (a SYNC send's try 2, right after try 1 failed at once): the replay cuts that step there, with the engine's
    state at that point (:mod:`widgets.replay_cuts`). Off, the pause is before the whole step."""

    def __post_init__(self) -> None:
        kinds = sorted(k.value for k in EventKind)
        named = self.before.value if isinstance(self.before, EventKind) else str(self.before)
        if named not in kinds:
            raise ValueError(f"before={self.before!r} is not an event kind; expected one of {kinds}")
        object.__setattr__(self, "before", EventKind(self.before))
        if not isinstance(self.explain, str):
            object.__setattr__(self, "explain", MappingProxyType(dict(self.explain)))
        if self.ask not in ASKS:
            raise ValueError(f"ask={self.ask!r}; expected one of {ASKS}")
        if not isinstance(self.nth, int) or isinstance(self.nth, bool) or self.nth < 1:
            raise ValueError(f"nth={self.nth!r}; expected an int >= 1")
        if not isinstance(self.inside_step, bool):
            raise ValueError(f"inside_step={self.inside_step!r}; expected True or False")

    @property
    def label(self) -> str:
        return self.name or f"{EventKind(self.before).value} #{self.nth}"

    def matches(self, event: TraceEvent) -> bool:
        """Whether ``event`` counts towards ``nth``."""
        return (
            event.kind is self.before
            and (self.msg_id is None or event.msg_id == self.msg_id)
            and (self.actor is None or event.actor == self.actor)
            and (self.queue is None or event.get("queue") == self.queue)
        )


def cuts_of(checkpoints: Sequence[Checkpoint]) -> tuple[Checkpoint, ...]:
    """The checkpoints that pause inside a scheduler step (:attr:`Checkpoint.inside_step`): the replay's cuts."""
    return tuple(cp for cp in checkpoints if cp.inside_step)


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


@dataclass(frozen=True, slots=True)
class AskedCheckpoint:
    """A checkpoint resolved against one run: where it pauses, what it asks, and the engine's answer."""

    name: str
    frame: int
    """The frame the run pauses on (the step just before the event)."""
    event: TraceEvent
    ask: Ask
    question: str
    choices: tuple[Choice, ...]
    answer: str
    """The key of the right choice (from the engine's next state)."""
    hint: str
    explain: str
    lab_hint: bool = False
    """The lab gave its own ``hint``: it is shown for every wrong choice."""
    placeholders: tuple[Place, ...] = ()
    """A "where" question's places that the paused picture does not draw yet (the ``%DLQ%`` queue before its first
    dead letter, a delay level not in use), right and wrong alike: the paused frame draws each as a placeholder, so
    that every answer is a click in the picture (:mod:`widgets.checkpoint_mask`)."""

    def check(self, key: str) -> tuple[bool, str]:
        """``(True, explanation)`` for the right choice, ``(False, hint)`` otherwise — the hint for that very choice
        when there is one; an unknown key is an error."""
        keys = [c.key for c in self.choices]
        if key not in keys:
            raise ValueError(f"choice={key!r} for checkpoint {self.name!r}; expected one of {keys}")
        if key == self.answer:
            return True, self.explain
        return False, self.hint_for(key)

    def hint_for(self, key: str) -> str:
        """The hint a wrong ``key`` gets: the checkpoint's own ``hint`` when the lab gave one, else the choice's
        near-miss hint, else the mechanism's hint for the event kind."""
        own = next((c.hint for c in self.choices if c.key == key), "")
        return self.hint if self.lab_hint else (own or self.hint)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for the page (the browser checks answers itself, with no kernel)."""
        return {
            "name": self.name,
            "frame": self.frame,
            "ask": self.ask,
            "question": self.question,
            "choices": [
                {
                    "key": c.key,
                    "label": c.label,
                    "mark": c.mark,
                    "hint": self.hint_for(c.key) if c.key != self.answer else "",
                }
                for c in self.choices
            ],
            "answer": self.answer,
            "hint": self.hint,
            "explain": self.explain,
        }


def _find(cp: Checkpoint, trace: Sequence[TraceEvent]) -> TraceEvent:
    found = [e for e in trace if cp.matches(e)]
    if len(found) < cp.nth:
        raise CheckpointError(
            f"checkpoint {cp.label!r}: before={EventKind(cp.before).value!r} nth={cp.nth} but this run has "
            f"{len(found)} such event(s)"
            + (f" about {cp.msg_id}" if cp.msg_id else "")
            + (f" on {cp.queue}" if cp.queue else "")
        )
    return found[cp.nth - 1]


def _where(
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


def _who(event: TraceEvent, snap: LabSnapshot) -> tuple[tuple[Choice, ...], str]:
    sent = event.kind is EventKind.SEND_ATTEMPT  # a send attempt's "who" is the broker it goes to, not the producer
    answer = str(event.get("broker")) if sent else _subject(event)
    consumers = sorted(c.client_id for c in snap.consumers)
    brokers = sorted(b.name for b in snap.brokers)
    if answer in consumers:
        return tuple(Choice(c, c, f"consumer:{c}", who_hint(c, snap, event)) for c in consumers), answer
    if answer in brokers:
        return tuple(Choice(b, b, f"broker:{b}", who_hint(b, snap, event)) for b in brokers), answer
    raise CheckpointError(f"ask='who': {event.kind.value} at seq {event.seq} is by {event.actor!r}, not an instance")


def _when(event: TraceEvent, snap: LabSnapshot, trace: Sequence[TraceEvent]) -> tuple[tuple[Choice, ...], str]:
    offers = when_offers(event, snap, trace)
    return tuple(Choice(o.key, o.label, o.mark, o.hint) for o in offers), str(event.time_ms)


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


def _question(cp: Checkpoint, event: TraceEvent) -> str:
    msg = event.msg_id or _("it")
    if cp.ask == "where":
        return _("Where is {msg} after the next step? Click the place in the picture (or a button).").format(msg=msg)
    if cp.ask == "who":
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


def _filled(text: str, facts: Mapping[str, str]) -> str:
    """A lab's own ``text`` with the run's values (see :attr:`Checkpoint.explain`); an unknown name is an error."""
    if "{" not in text:
        return text
    try:
        return text.format_map(facts)
    except (KeyError, IndexError, ValueError) as exc:
        raise CheckpointError(f"checkpoint text {text[:60]!r}: {exc!r}; it may name {sorted(facts)}") from exc


def _own_explain(cp: Checkpoint, answer: str) -> str:
    """The lab's own explanation of the right answer: one for every answer, or the one given for this answer's key
    (or its kind of place); empty for the default."""
    if isinstance(cp.explain, str):
        return cp.explain
    return cp.explain.get(answer, cp.explain.get(answer_kind(answer), ""))


def resolve(
    checkpoints: Sequence[Checkpoint],
    *,
    trace: Sequence[TraceEvent],
    positions: Sequence[int],
    snapshots: Sequence[LabSnapshot],
    flows: Sequence[FlowVM],
    captions: Sequence[Sequence[str]],
) -> tuple[AskedCheckpoint, ...]:
    """Each checkpoint against one run's frames: ``positions[i]`` is frame ``i``'s trace length, ``snapshots``,
    ``flows`` (message-flow view-models) and ``captions`` are the frames' own. Raises :class:`CheckpointError`
    naming the checkpoint when the run has no such event (an ``optional`` checkpoint is then left out)."""
    out = []
    for cp in checkpoints:
        try:
            event = _find(cp, trace)
            index = event.seq - 1  # events 0 … position − 1 have happened at a position
            frames = [i for i, p in enumerate(positions) if p <= index]
            if not frames:
                raise CheckpointError(
                    f"checkpoint {cp.label!r}: its event (seq {event.seq}) happens before the run's first step"
                )
            if cp.ask == "when":  # a clock that already reads the answer tells it: pause before that moment
                frames = [i for i in frames if snapshots[i].now_ms < event.time_ms] or frames
            frame = frames[-1]
            after = next((i for i, p in enumerate(positions) if p > index), len(positions) - 1)
            snap = snapshots[frame]
            missing: tuple[Place, ...] = ()
            if cp.ask == "where":
                choices, answer, missing = _where(
                    event, flows[frame], flows[after], trace[: event.seq - 1], trace[event.seq - 1 : positions[after]]
                )
            elif cp.ask == "who":
                choices, answer = _who(event, snap)
            else:
                choices, answer = _when(event, snap, trace[: positions[frame]])
        except CheckpointError:
            if cp.optional:
                continue
            raise
        right = next(c.label for c in choices if c.key == answer)
        facts = run_facts(event, trace[: event.seq - 1], now_ms=snap.now_ms, answer=right)
        plain = next(iter(captions[after]), "")
        explain = _filled(_own_explain(cp, answer), facts) or _("Right: {answer}. ").format(answer=right) + plain
        out.append(
            AskedCheckpoint(
                cp.label,
                frame,
                event,
                cp.ask,
                _filled(cp.question, facts) or _question(cp, event),
                choices,
                answer,
                _filled(cp.hint, facts) or _(default_hint(event, answer, trace[: event.seq - 1], HINTS, OTHER_HINT)),
                explain,
                lab_hint=bool(cp.hint),
                placeholders=missing,
            )
        )
    return tuple(out)
