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
consumer instance or broker acts), ``"when"`` (at what virtual time) or ``"whether"`` (yes or no, answered by the
run through the lab's predicate ``holds``: :mod:`widgets.checkpoint_whether`). ``hides`` names a value the question
asks about that the views would show (the committed offset): "?" up to the pause (:mod:`widgets.checkpoint_hide`).
Playing or stepping onto the step that holds the event stops on the step before it (for "when", on the last step
whose clock is earlier than the event, so that the paused clock does not read the answer), the question appears in
the picture, and only the right answer (or "show me") lets the run go on.

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
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .checkpoint_facts import HINTS, OTHER_HINT, default_hint, default_question, first_before, run_facts
from .checkpoint_facts import subject as _subject
from .checkpoint_hide import HIDEABLE, SHOWN_IN, Hidden
from .checkpoint_offers import CheckpointError, Choice, when_choices, where_choices, who_choices
from .checkpoint_sealed import SealedWhy, own_explanation, sealed_explanation
from .checkpoint_sends import send_end
from .checkpoint_whether import Holds, whether_answer, whether_offers
from .flow_view import FlowVM, Place

__all__ = ["ASKS", "AskedCheckpoint", "Checkpoint", "CheckpointError", "Choice", "cuts_of", "resolve", "run_facts",
           "sealed_explanation"]

Ask = Literal["where", "who", "when", "whether"]
ASKS: tuple[str, ...] = ("where", "who", "when", "whether")

WHERE_KINDS = ("business", "retry", "delay", "dlq", "process_queue", "done", "dropped")
"""The flow view's place kinds a "where" checkpoint offers as answers."""


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
    explain: str | Mapping[str, str] | SealedWhy = ""
    """Said after the right answer: the mechanism and its rule. It tells the answer, so a lab's lives in the teacher's
    sources, sealed under the answer: ``explain=sealed_explanation("03.level")`` (:mod:`widgets.checkpoint_sealed`).
    Question, hint and explanation may name the run's values, filled in when the checkpoint resolves (an unknown name
    is an error listing the known ones): ``{answer}`` (the right button's words), ``{time}``, ``{since}``, ``{msg}``,
    the event's fields and more (:func:`widgets.checkpoint_facts.run_facts`). Or a text per answer key (or kind of
    place: ``"dlq"``, ``"delay"`` …) for the answers a knob can lead to (others get the default)."""
    name: str = ""
    """What the score summary calls it (default: ``"send_back #1"``)."""
    optional: bool = False
    """Ask nothing, rather than fail, on a run without this event: for a picture whose knobs can change the
    mechanism (e.g. ``max_reconsume_times=0`` leaves no second send-back to pause before)."""
    inside_step: bool = False
    """Pause right before the event even inside one scheduler step (a SYNC send's try 2 after try 1 failed at once):
    the replay cuts the step there, with the engine's state then (:mod:`widgets.replay_cuts`)."""
    hides: tuple[str, ...] = ()
    """What the question asks about that the views would show before it is answered (:data:`HIDEABLE`:
    ``"committed_offset"``, of ``queue`` or every queue, as consumer ``actor`` or every instance holds it): "?" in
    every view from the run's start to the pause (:mod:`widgets.checkpoint_hide`)."""
    tab: str = ""
    """The tab (a view's title, ``"ProcessQueues"``) the question is about: the page opens it when it asks. Default:
    the tab that shows what it ``hides``."""
    holds: Holds | None = None
    """``ask="whether"``: the predicate the run answers, ``(trace, snapshot) -> bool``
    (:mod:`widgets.checkpoint_whether`)."""
    pause_before: EventKind | str | None = None
    """Pause before the step of the first such event by the same actor (``checkpoint_facts.first_before``) when a step
    in between draws the answer: ``"delivered"`` (the suspension's "again in 30 s"), ``"pulled"`` (the new owner's)."""

    def __post_init__(self) -> None:
        kinds = sorted(k.value for k in EventKind)
        named = self.before.value if isinstance(self.before, EventKind) else str(self.before)
        if named not in kinds:
            raise ValueError(f"before={self.before!r} is not an event kind; expected one of {kinds}")
        object.__setattr__(self, "before", EventKind(self.before))
        if not isinstance(self.explain, str | SealedWhy):
            object.__setattr__(self, "explain", MappingProxyType(dict(self.explain)))
        if self.ask not in ASKS:
            raise ValueError(f"ask={self.ask!r}; expected one of {ASKS}")
        if not isinstance(self.nth, int) or isinstance(self.nth, bool) or self.nth < 1:
            raise ValueError(f"nth={self.nth!r}; expected an int >= 1")
        if not isinstance(self.inside_step, bool):
            raise ValueError(f"inside_step={self.inside_step!r}; expected True or False")
        hides = (self.hides,) if isinstance(self.hides, str) else tuple(self.hides)
        if any(h not in HIDEABLE for h in hides):
            raise ValueError(f"hides={self.hides!r}; expected some of {HIDEABLE}")
        object.__setattr__(self, "hides", hides)
        if (self.ask == "whether") != (self.holds is not None) or (self.ask == "whether" and not self.question):
            raise ValueError(f"checkpoint {self.label!r}: ask='whether' goes with holds= (a predicate) and its own "
                             f"question=, and only it; got ask={self.ask!r}, holds={self.holds!r}")
        if self.pause_before is not None:
            pause_kind = self.pause_before.value if isinstance(self.pause_before, EventKind) else str(self.pause_before)
            if pause_kind not in kinds:
                raise ValueError(f"pause_before={self.pause_before!r} is not an event kind; expected one of {kinds}")
            object.__setattr__(self, "pause_before", EventKind(pause_kind))

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
    hidden: tuple[Hidden, ...] = ()
    """The values the question asks about, hidden up to the pause (:mod:`widgets.checkpoint_hide`)."""
    sealed: str = ""
    """The bank's explanation id the lab named (``sealed_explanation(id)``), or ""."""
    opened: bool = True
    """False when the knobs led to another answer than the sealed one (``explain`` is then the short form)."""
    tab: str = ""
    """The view's title the question is about (:attr:`Checkpoint.tab`), or ""."""

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
        """Plain JSON, answer and texts included: the kernel's record. The page never gets it: it gets
        :func:`widgets.page_seal.sealed_checkpoint` (the answer and the texts sealed under the right choice)."""
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
            **({"tab": _(self.tab)} if self.tab else {}),  # as the tab's button reads it
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


def _filled(text: str, facts: Mapping[str, str]) -> str:
    """A lab's own ``text`` with the run's values (see :attr:`Checkpoint.explain`); an unknown name is an error."""
    if "{" not in text:
        return text
    try:
        return text.format_map(facts)
    except (KeyError, IndexError, ValueError) as exc:
        raise CheckpointError(f"checkpoint text {text[:60]!r}: {exc!r}; it may name {sorted(facts)}") from exc


def _asked(
    cp: Checkpoint,
    event: TraceEvent,
    at: tuple[int, int],
    trace: Sequence[TraceEvent],
    positions: Sequence[int],
    snapshots: Sequence[LabSnapshot],
    flows: Sequence[FlowVM],
) -> tuple[tuple[Choice, ...], str, tuple[Place, ...]]:
    """What ``cp`` offers, its answer from the run, and the places the paused frame draws as placeholders; ``at`` is
    (the paused frame, the frame that shows the outcome)."""
    frame, after = at
    if cp.ask == "where":
        return where_choices(
            event, flows[frame], flows[after], trace[: event.seq - 1], trace[event.seq - 1 : positions[after]]
        )
    if cp.ask == "who":
        return (*who_choices(event, snapshots[frame]), ())
    if cp.ask == "whether":
        answer = whether_answer(cp.holds, trace[: positions[after]], snapshots[after], cp.label)
        return tuple(Choice(o.key, o.label) for o in whether_offers()), answer, ()
    return (*when_choices(event, snapshots[frame], trace[: positions[frame]]), ())


def _paused_frame(
    cp: Checkpoint,
    event: TraceEvent,
    trace: Sequence[TraceEvent],
    positions: Sequence[int],
    snapshots: Sequence[LabSnapshot],
) -> int:
    """The frame ``cp`` pauses at: the last one before its event (or before the earlier ``pause_before`` event whose
    step would draw the answer), and for a "when" question one whose clock does not read the answer yet."""
    frames = [i for i, p in enumerate(positions) if p <= event.seq - 1]
    if not frames:
        raise CheckpointError(
            f"checkpoint {cp.label!r}: its event (seq {event.seq}) happens before the run's first step"
        )
    if cp.pause_before is not None:  # a step in between would draw the answer: pause before it
        earlier = first_before(EventKind(cp.pause_before), event, trace)
        frames = [i for i in frames if earlier is not None and positions[i] < earlier.seq]
        if not frames:
            raise CheckpointError(f"checkpoint {cp.label!r}: no {EventKind(cp.pause_before).value} by {event.actor} "
                                  "after the run's first step and before its event")
    if cp.ask == "when":  # a clock that already reads the answer tells it: pause before that moment
        frames = [i for i in frames if snapshots[i].now_ms < event.time_ms] or frames
    return frames[-1]


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
            frame = _paused_frame(cp, event, trace, positions, snapshots)
            ends = send_end(event, trace) if cp.ask == "where" else index  # a send: once it is over
            after = next((i for i, p in enumerate(positions) if p > ends), len(positions) - 1)
            snap = snapshots[frame]
            choices, answer, missing = _asked(cp, event, (frame, after), trace, positions, snapshots, flows)
        except CheckpointError:
            if cp.optional:
                continue
            raise
        right = next(c.label for c in choices if c.key == answer)
        facts = run_facts(event, trace[: event.seq - 1], now_ms=snap.now_ms, answer=right)
        plain = next(iter(captions[after]), "")
        own, is_open = own_explanation(cp.explain, answer, right)
        explain = _filled(own, facts) or _("Right: {answer}. ").format(answer=right) + plain
        out.append(
            AskedCheckpoint(
                cp.label,
                frame,
                event,
                cp.ask,
                _filled(cp.question, facts) or default_question(cp.ask, event),
                choices,
                answer,
                _filled(cp.hint, facts) or _(default_hint(event, answer, trace[: event.seq - 1], HINTS, OTHER_HINT)),
                explain,
                lab_hint=bool(cp.hint),
                placeholders=missing,
                hidden=tuple(Hidden(h, cp.queue, _subject(event) if cp.actor else None) for h in cp.hides),
                sealed=cp.explain.id if isinstance(cp.explain, SealedWhy) else "",
                opened=is_open,
                tab=cp.tab or next((SHOWN_IN[h] for h in cp.hides if h in SHOWN_IN), ""),
            )
        )
    return tuple(out)
