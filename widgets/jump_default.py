"""Which kind the Jump box offers first: the lesson's, never the machinery's housekeeping.

Lab 03's Jump box read "offsets persisted (17)" (revA item 15): the page kept the last kind it had offered, and at
the run's end only the consumer's 5 s ``persistAll`` was left; back at the start it stayed there, so a student's
first Jump went to bookkeeping instead of the next send-back. The box now opens on the *lesson's kind*: the kind of
the event the run's first checkpoint pauses before, when the run already showed that kind (lab 04 pauses before
refund 17's 2nd ``send_back``), or, in a run with no checkpoint, the rarest kind of the run that is not
housekeeping (the outcome: ``dead_lettered`` rather than ``delivered``). When that kind is not ahead any more, the
rarest non-housekeeping kind ahead; housekeeping (offsets, rebalances, lifecycle, empty pulls) only when nothing
else is ahead. A kind the student picks is kept while it is ahead (the page tracks that; the kernel's box keeps
any offered kind that is not housekeeping).

Mirrors no 4.9.7 class: it chooses among the trace's kinds (``rmqlab.core.trace_event.EventKind``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .checkpoints import AskedCheckpoint

__all__ = ["HOUSEKEEPING", "default_kind", "lesson_kind"]

HOUSEKEEPING = (
    "offset_updated",
    "offset_persisted",
    "rebalanced",
    "lifecycle",
    "pull_empty",
    "pull_deferred",
    "pulled",
    "lock_batch",
    "lock_renewed",
    "consume_request",
    "retention_deleted",
    "admin",
)
"""Kinds that keep the clients' and brokers' books: every run has them, no lesson is about them (the page gets this
list with its data, :meth:`widgets.frames.RunFrames.player_json`)."""


def lesson_kind(checkpoints: Sequence[AskedCheckpoint], kinds: Sequence[Mapping[str, int]]) -> str:
    """The kind the run is about (``kinds``: per frame, how many events of each kind its step appended).

    With checkpoints: the first one's event's kind, when the frames up to its pause show that kind already (lab 03
    and 04 pause before a 2nd ``send_back``); else "" — the page gets this before the question is answered, and a
    kind still to come would tell what happens next (a "where" paused before ``dead_lettered``). With none: the
    rarest kind of the run that is not housekeeping."""
    if checkpoints:
        first = min(checkpoints, key=lambda c: (c.frame, c.name))
        kind = first.event.kind.value
        return kind if any(per.get(kind) for per in kinds[: first.frame + 1]) else ""
    counts: dict[str, int] = {}
    for per in kinds:
        for k, n in per.items():
            counts[k] = counts.get(k, 0) + n
    return _rarest({k: n for k, n in counts.items() if n and k not in HOUSEKEEPING})


def _rarest(counts: Mapping[str, int]) -> str:
    """The kind with the fewest events (ties: by name, so a run is offered the same box every time)."""
    return min(counts, key=lambda k: (counts[k], k)) if counts else ""


def default_kind(ahead: Mapping[str, int], lesson: str) -> str:
    """The kind the Jump box shows first among ``ahead`` (kind → how many ahead; a kind with 0 is not offered):
    ``lesson`` if it is ahead, else the rarest non-housekeeping kind ahead, else the rarest kind ahead."""
    offered = {k: n for k, n in ahead.items() if n}
    if offered.get(lesson):
        return lesson
    return _rarest({k: n for k, n in offered.items() if k not in HOUSEKEEPING}) or _rarest(offered)
