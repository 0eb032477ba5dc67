"""OffsetStripView: each ProcessQueue as a strip of offsets, with the committed offset as a pointer.

The lesson it carries: a concurrent consumer commits the **smallest key** still in ``msgTreeMap``
(``ProcessQueue.removeMessage``), so one slow message pins the committed offset while the offsets
above it are already done — *holes* that a crash consumes again. The strip shows, per consumer
instance and ProcessQueue, one cell per offset of the queue (min to max offset), each in one state:

* ``S`` stored — in the ConsumeQueue, not pulled by this instance;
* ``P`` pulled — in ``msgTreeMap``, waiting for a consume thread (in flight);
* ``C`` consuming — a listener is running on it (orderly: it sits in ``consumingMsgOrderlyTreeMap``);
* ``A`` done — consumed successfully (or below the committed offset);
* ``R`` sent back — failed and handed to ``%RETRY%`` (the offset is done, a copy lives on);
* ``X`` dropped — a BROADCASTING failure, or a send-back under ``retryQueueNums`` 0: the offset moves on
  and the message is gone.

Under the strip, labelled arrows point at offset boundaries: the instance's committed offset (its
in-memory offset store, what ``updateOffset`` last stored), the persisted offset (the broker's
``consumerOffsetTable``; BROADCASTING: the instance's local file), and for an orderly consumer
``commit() = lastKey + 1`` of ``consumingMsgOrderlyTreeMap`` next to the concurrent low-water mark
(the smallest key), which is what a concurrent consumer would commit. States carry a letter, so they
differ without colour.

The view-model is a pure function of the snapshot and its trace events (which offset this instance
delivered, acked, sent back or dropped); nothing here reads engine objects.

The parts: :mod:`~widgets.offset_model` (the view-model and its text), :mod:`~widgets.offset_fold` (the trace and
the snapshot folded into rows) and :mod:`~widgets.offset_scene` (the picture).
"""

from __future__ import annotations

from typing import Any

from rmqlab.core.i18n import N_
from rmqlab.snapshot import LabSnapshot

from .offset_fold import offset_strip_model
from .offset_model import FINISHED, OffsetStripModel, StripCell, StripPointer, StripRow, offset_strip_text
from .offset_scene import CELL_PX, offset_strip_scene
from .scene import Scene, SceneView

__all__ = [
    "CELL_PX",
    "FINISHED",
    "OffsetStripModel",
    "OffsetStripView",
    "StripCell",
    "StripPointer",
    "StripRow",
    "offset_strip_model",
    "offset_strip_scene",
    "offset_strip_text",
]


class OffsetStripView(SceneView):
    """The ProcessQueues as offset strips (replaces the TreeMap text rows); ``text`` is the plain rendering."""

    title = N_("ProcessQueues")

    def __init__(self, *, include_empty: bool = True, max_cells: int = 48, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.include_empty = include_empty
        self.max_cells = max_cells

    def model(self, snap: LabSnapshot) -> OffsetStripModel:
        return offset_strip_model(snap, include_empty=self.include_empty, max_cells=self.max_cells)

    def to_text(self, vm: OffsetStripModel) -> str:
        return offset_strip_text(vm)

    def scene(self, vm: OffsetStripModel) -> Scene:
        return offset_strip_scene(vm)
