"""The offset strip's view-model: per running consumer instance and ProcessQueue, one cell per offset with its
state, the pointers under the strip (committed, persisted, orderly commit() and low-water), and the plain text the
labs print.

:mod:`widgets.offset_strip` tells the lesson; :mod:`widgets.offset_fold` computes this model and
:mod:`widgets.offset_scene` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import OffsetState

from .palette import STATE_GLYPH

__all__ = ["FINISHED", "OffsetStripModel", "StripCell", "StripPointer", "StripRow", "offset_strip_text"]

FINISHED = frozenset({OffsetState.ACKED, OffsetState.SENT_BACK, OffsetState.DROPPED})
"""Done, sent back or dropped: nothing more happens to this offset in this ProcessQueue."""


@dataclass(frozen=True, slots=True)
class StripCell:
    """One offset of the queue as this instance sees it."""

    offset: int
    msg_id: str | None
    state: OffsetState
    hole: bool = False
    """Finished, yet above an unfinished offset at or above the committed one: consumed again after a crash."""
    in_consuming_map: bool = False
    """Orderly: the offset sits in ``consumingMsgOrderlyTreeMap`` (taken by ``takeMessages``)."""


@dataclass(frozen=True, slots=True)
class StripPointer:
    """A labelled arrow at the boundary *before* ``offset`` (offsets are "the next one to consume")."""

    name: str
    """``committed`` / ``broker`` / ``commit()`` / ``low-water``."""
    offset: int
    label: str
    why: str
    """The Java behind the pointer (the arrow's tooltip)."""
    hidden: bool = False
    """A checkpoint asks about this offset: its label reads "?" and no arrow shows its place
    (:mod:`widgets.checkpoint_hide`)."""


@dataclass(frozen=True, slots=True)
class StripRow:
    """One (consumer instance, ProcessQueue)."""

    consumer: str
    group: str
    queue: str
    orderly: bool
    dropped: bool
    locked: bool
    min_offset: int
    max_offset: int
    cells: tuple[StripCell, ...]
    """The cells drawn (a window of at most ``max_cells``; see ``hidden_before`` / ``hidden_after``)."""
    pointers: tuple[StripPointer, ...]
    msg_tree_keys: tuple[int, ...]
    consuming_keys: tuple[int, ...]
    hidden_before: int = 0
    hidden_after: int = 0

    @property
    def holes(self) -> tuple[int, ...]:
        """Offsets already finished above the committed offset (re-consumed if the instance crashed now)."""
        return tuple(c.offset for c in self.cells if c.hole)

    def pointer(self, name: str) -> StripPointer | None:
        """The pointer called ``name`` (None when it is not drawn)."""
        for p in self.pointers:
            if p.name == name:
                return p
        return None


@dataclass(frozen=True, slots=True)
class OffsetStripModel:
    """Every strip at one controller position, plus instances whose ProcessQueues are gone."""

    now_ms: int
    rows: tuple[StripRow, ...]
    gone: tuple[tuple[str, str], ...] = ()
    """(client id, why) of consumers that are not running: ``crash`` / ``shutdown`` / ``not started``."""
    quiet: tuple[tuple[str, str], ...] = ()
    """(client id, queue) of ``%RETRY%`` ProcessQueues whose queue never held a message: not a strip each (the
    first strip listed was an empty retry queue, above the business queue a question asked about), one note line
    after the strips."""


def quiet_note(quiet: tuple[tuple[str, str], ...]) -> str:
    """The note for the empty ``%RETRY%`` ProcessQueues: ``c1 %RETRY%cg@broker-a:0; c2 %RETRY%cg@broker-a:0``."""
    listed = "; ".join(f"{client} {queue}" for client, queue in quiet)
    return _("empty %RETRY% ProcessQueues (no retry copy has reached them yet): {queues}").format(queues=listed)


def _fmt_keys(keys: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(k) for k in keys) + "]"


def offset_strip_text(vm: OffsetStripModel) -> str:
    """One line per ProcessQueue: ``c1 TopicTest@broker-a:0 0:A 1:C 2:A | committed=1 broker=1 | holes 2 3``."""
    lines = []
    for r in vm.rows:
        cells = " ".join(f"{c.offset}:{STATE_GLYPH[c.state]}" for c in r.cells) or _("(empty)")
        if r.hidden_before:
            cells = f"…{r.hidden_before} " + cells
        if r.hidden_after:
            cells += f" …{r.hidden_after}"
        line = f"{r.consumer} {r.queue} {cells}"
        facts = [f"msg_tree_map={_fmt_keys(r.msg_tree_keys)}"]
        if r.orderly:
            facts.append(f"consuming={_fmt_keys(r.consuming_keys)}")
        for p in r.pointers:
            facts.append(f"{p.name}=?" if p.hidden else f"{p.name}={p.offset}")
        line += " | " + " ".join(facts)
        if r.holes:
            line += " | " + _("holes") + " " + " ".join(str(o) for o in r.holes)
        if r.dropped:
            line += " (" + _("dropped") + ")"
        lines.append(line)
    if vm.quiet:
        lines.append(quiet_note(vm.quiet))
    for client, why in vm.gone:
        lines.append(_("{client}: no ProcessQueues ({why})").format(client=client, why=why))
    return "\n".join(lines) or _("(no ProcessQueues)")
