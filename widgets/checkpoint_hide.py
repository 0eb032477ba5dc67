"""What a checkpoint asks about, hidden in every view until it is answered: a value the picture would otherwise show.

A "when" mask (:mod:`widgets.checkpoint_mask`) hides the clock a question asks about on its paused frame. Some
questions are about a *value* that the views show all along: lab 05 asks when c1's committed offset moves past the
slow message, and its ProcessQueues tab read "committed 1 · broker 1" and bracketed "holes: done above the committed
offset" on every step up to the question — the mechanism's result, drawn before the student predicts it (and graded
exercise 05.1, "which offset does c1 hold as committed at 10 s?", read off the picture). A checkpoint declares what it
asks (``Checkpoint(hides=("committed_offset",))``, for its ``queue`` and its consumer ``actor`` when given) and every
frame from the run's start to its pause — the frames a student can see before answering, since the gate stops every
move past the question — shows "?" instead:

- the ProcessQueues tab: the ``committed`` / ``broker`` (or ``local file``) / orderly ``commit()`` and ``low-water``
  pointers read "committed ?" with no arrow (an arrow's place is the value), and no cell is marked a hole (a hole is
  "done above the committed offset": it would tell where the offset is);
- the Events tab: ``offset=`` and ``previous=`` of the queue's ``offset_updated`` / ``offset_persisted`` rows;
- both caption lines: the number in the sentences that state an offset ("c1 has finished … up to position ?").

The space-time diagram and the other tabs draw no offset (bookkeeping draws nothing there). One step past the
question the value shows again.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rmqlab.core.i18n import gettext as _

from .masked_words import HIDDEN_SHORT, hidden_short

if TYPE_CHECKING:  # the views import the checkpoints, which name what they hide
    from .event_log import EventLogModel, EventRowVM
    from .offset_model import OffsetStripModel, StripPointer, StripRow

__all__ = ["HIDEABLE", "SHOWN_IN", "Hidden", "hide_rows", "hide_strip", "hide_view", "offset_patterns"]

HIDEABLE = ("committed_offset", "kept_out_until")
"""What a checkpoint may declare it asks about (``Checkpoint.hides``)."""
SHOWN_IN = {"committed_offset": "ProcessQueues"}
"""The tab (a view's title) that shows each hideable value: the page opens it when the question is asked."""
HIDDEN = HIDDEN_SHORT
"""A hidden offset's words (:func:`widgets.masked_words.hidden_short`)."""
OFFSET_KINDS = ("offset_updated", "offset_persisted")
"""The events whose rows state a committed offset."""
OFFSET_POINTERS = ("committed", "broker", "commit()", "low-water")
"""The ProcessQueues tab's pointers that state (or would let one compute) the committed offset."""
OFFSET_SENTENCES = (
    "{who} has finished {queue} up to position {offset}.",
    "{who}'s progress on {queue} (position {offset}) is saved at {where}.",
    "{who}'s committed offset of {queue} is {since}: {why}",
    "{who} wrote offset {offset} of {queue} to its local offsets.json",
    "{broker} now holds offset {offset} of {queue} for {group} (persistAll every 5000 ms, or a pull's "
    "piggy-backed commitOffset): a restarted consumer resumes there",
)
"""The captions' sentences that state an offset (``rmqlab.narrate``), read in the language of the build."""


@dataclass(frozen=True, slots=True)
class Hidden:
    """One value hidden: ``what`` (one of :data:`HIDEABLE`) of ``queue`` (``TopicTest@broker-a:0``; None: every
    queue) as ``consumer`` (a client id; None: every instance) holds it."""

    what: str
    queue: str | None = None
    consumer: str | None = None

    def covers(self, queue: str, consumer: str | None = None) -> bool:
        """Whether this hides the value of ``queue`` as ``consumer`` holds it (None: any holder)."""
        return (self.queue is None or self.queue == queue) and (
            self.consumer is None or consumer is None or self.consumer == consumer
        )


def _hidden_pointer(p: StripPointer) -> StripPointer:
    """``p`` saying nothing of its offset: "committed ?" (the number gone from its label, its place -1: not drawn)."""
    hidden = hidden_short()
    label = f"commit() = {hidden}" if p.name == "commit()" else re.sub(r"(?<![\w.])\d+(?![\w.])", hidden, p.label)
    return dataclasses.replace(p, offset=-1, label=label, hidden=True)


def hide_strip(vm: OffsetStripModel, hidden: tuple[Hidden, ...]) -> OffsetStripModel:
    """``vm`` with the committed offset of every row ``hidden`` covers unsaid (see the module docstring)."""
    rows: list[StripRow] = []
    for r in vm.rows:
        if not any(h.what == "committed_offset" and h.covers(r.queue, r.consumer) for h in hidden):
            rows.append(r)
            continue
        pointers = tuple(_hidden_pointer(p) if p.name in OFFSET_POINTERS else p for p in r.pointers)
        cells = tuple(dataclasses.replace(c, hole=False) if c.hole else c for c in r.cells)
        rows.append(dataclasses.replace(r, pointers=pointers, cells=cells))
    return dataclasses.replace(vm, rows=tuple(rows))


def _row_hidden(r: EventRowVM, hidden: tuple[Hidden, ...]) -> EventRowVM:
    if r.kind not in OFFSET_KINDS:
        return r
    queue = re.search(r"\bqueue=(\S+)", r.details)
    consumer = r.actor.removeprefix("consumer:") if r.actor.startswith("consumer:") else None
    if queue is None or not any(h.covers(queue.group(1), consumer) for h in hidden):
        return r
    details = re.sub(r"\b(offset|previous)=-?\d+", lambda m: f"{m.group(1)}={hidden_short()}", r.details)
    return dataclasses.replace(r, details=details)


def hide_rows(vm: EventLogModel, hidden: tuple[Hidden, ...]) -> EventLogModel:
    """``vm`` with ``offset=?`` / ``previous=?`` in the rows that state a hidden committed offset."""
    rows = tuple(_row_hidden(r, hidden) for r in vm.rows)
    return vm if rows == vm.rows else dataclasses.replace(vm, rows=rows)


def _sentence(template: str) -> re.Pattern[str]:
    """``template`` (translated) as a pattern whose ``keep`` group is its text up to the offset's number: the other
    fields match anything, the number (or a ``0 → 1`` change) is what is replaced."""
    head = re.split(r"\{(?:offset|since)\}", template, maxsplit=1)[0]
    parts = re.split(r"\{\w+\}", head)
    prefix = ".*?".join(re.escape(p) for p in parts)
    return re.compile(rf"(?P<keep>{prefix})(?:-?\d+ → )?-?\d+")


def offset_patterns() -> tuple[re.Pattern[str], ...]:
    """The patterns that hide the offset a caption sentence states, in the language of now."""
    return tuple(_sentence(_(t)) for t in OFFSET_SENTENCES)


def hide_view(model: Any, hidden: tuple[Hidden, ...]) -> Any:
    """``model`` with what ``hidden`` names unsaid, when it is a view-model that shows it (else ``model``)."""
    from .event_log import EventLogModel  # imported here: the views' modules import the checkpoints'
    from .flow_kept_out import hide_kept_out, hide_kept_out_rows
    from .flow_model import FlowVM
    from .offset_model import OffsetStripModel

    if any(h.what == "kept_out_until" for h in hidden):  # lab 01b's "where does the 5 s send go"
        if isinstance(model, FlowVM):
            return hide_kept_out(model)
        if isinstance(model, EventLogModel):
            model = hide_kept_out_rows(model)
    if isinstance(model, OffsetStripModel):
        return hide_strip(model, hidden)
    if isinstance(model, EventLogModel):
        return hide_rows(model, hidden)
    return model
