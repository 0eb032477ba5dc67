"""SpaceTimeView: the run as Maelstrom draws it — one vertical line per actor, time running down, arrows between.

Actors (lanes, left to right): each producer; then per broker its ``ScheduleMessageService`` (the
actor that holds ``SCHEDULE_TOPIC_XXXX`` and moves due messages back) and the broker itself; then each
consumer *instance* (a consumer's inner producer, ``producer:c1/inner``, is drawn on ``c1``'s line: it
lives in the same process). Arrows: send (producer → broker) and its response when it is not an
instant success, pull (broker → consumer: the PullMessage response that carries the messages),
send-back (consumer → broker, CONSUMER_SEND_MSG_BACK), the schedule hop (broker → schedule service)
and the due delivery back, the DLQ write (the send-back the broker answers by writing ``%DLQ%``), and
lock requests / renewals (light). What happens inside one process is a dot on its line: a listener
call and its result, a suspend, a local retry, a dropped BROADCASTING message. Failures are drawn
apart: a refused request stops short of its target with a ✗, a lost response (timeout) is a dashed
reply that never arrives, a broker error answers in vermillion, a listener exception is a red dot, and
a broker that is down has a dashed red line.

**Time axis: event-indexed.** One row per drawn event, in trace order, with the virtual time written
on the axis wherever it changes and a break (``≈``) where it jumps. A run that spans hours with
bursts inside the same millisecond stays readable; distances on the axis are *not* proportional to
time (the axis title says so). One exception to trace order keeps cause before effect: the broker
handles CONSUMER_SEND_MSG_BACK synchronously, so the trace records its effect (the schedule hop or
the DLQ write) before the client records the send-back; the send-back row is drawn first (the order
:func:`rmqlab.narrate.reading_order` gives the captions and the Events tab). Identical rows are folded into
one with their count ("lock ✗ 1 queue × 9, every 20 s, 20 s – 3 m"), as the captions fold repeats.

**The future is not drawn.** A snapshot holds the trace up to the controller's position and nothing
else, so the diagram ends at the "now" line (the snapshot's ``now_ms``); stepping adds rows below.
:func:`spacetime_scene` shows the last ``max_rows`` rows (the "now" line always on screen) and says
how many earlier rows are above.

The parts: :mod:`~widgets.spacetime_model` (the view-model and its text), :mod:`~widgets.spacetime_rows`
(the trace folded into rows), :mod:`~widgets.spacetime_axis` (the event-indexed time axis) and
:mod:`~widgets.spacetime_scene` (the drawing).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rmqlab.core.i18n import N_
from rmqlab.snapshot import LabSnapshot

from .scene import Scene, SceneView
from .spacetime_model import ArrowKind, Lane, Row, SpaceTimeModel, Span, spacetime_text
from .spacetime_rows import spacetime_view_model, spacetime_view_models
from .spacetime_scene import spacetime_scene

__all__ = [
    "ArrowKind",
    "Lane",
    "Row",
    "SpaceTimeModel",
    "SpaceTimeView",
    "Span",
    "spacetime_scene",
    "spacetime_text",
    "spacetime_view_model",
]


class SpaceTimeView(SceneView):
    """The space-time diagram of the run so far; ``max_rows`` keeps the "now" line on screen."""

    title = N_("Space-time")

    def __init__(self, *, max_rows: int | None = 36, locks: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_rows, self.locks = max_rows, locks

    def model(self, snap: LabSnapshot) -> SpaceTimeModel:
        return spacetime_view_model(snap, locks=self.locks)

    def models(self, snaps: Sequence[LabSnapshot]) -> list[SpaceTimeModel]:
        return spacetime_view_models(snaps, locks=self.locks)

    def scene(self, vm: SpaceTimeModel) -> Scene:
        return spacetime_scene(vm, max_rows=self.max_rows)

    def to_text(self, vm: SpaceTimeModel) -> str:
        return spacetime_text(vm)
