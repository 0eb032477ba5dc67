"""RetryTimeline: one row per message — its deliveries, the delay level and duration of every wait, the DLQ.

The default schedule spans hours with the first retries 10 s apart, so no linear or log axis
keeps 17 deliveries both to scale and apart. The row is therefore **ordinal**: one column per
delivery, numbered in its token, so markers never overlap; each wait between two deliveries is
labelled with what RocketMQ chose — its delay level and duration (``L3 · 10 s`` … ``L18 · 2 h``; an
orderly suspend reads ``suspend · 1 s``, a client-side retry ``local · 5 s``) — and each delivery with
its time **since first stored** (the schedule as the spec writes it: 0, 10, 40, 100 … s).
Under every row a thin **proportional bar** on the shared absolute virtual-time axis (bottom) shows the
same deliveries to scale, and the row's label says when the message was first stored, so absolute =
first stored + since. The **now** line crosses the bars at the snapshot's time; a wait still pending is
dashed up to a hollow "due" circle with its countdown and a now tick on it. A ``%DLQ%`` write ends
the row with a DLQ box; a dropped BROADCASTING message ends with a crossed one.

Only what happened up to the controller's position is drawn (the snapshot holds nothing else); a
pending wait's due time is shown because the broker already holds it (``SCHEDULE_TOPIC_XXXX``).

The parts: :mod:`~widgets.retry_model` (the view-model and its text), :mod:`~widgets.retry_grid` (the geometry),
:mod:`~widgets.retry_rows` (one message's row) and :mod:`~widgets.retry_scene` (the picture).
"""

from __future__ import annotations

from typing import Any

from rmqlab.core.i18n import N_
from rmqlab.snapshot import LabSnapshot

from .retry_model import (
    MARKS,
    Mark,
    TimelineModel,
    Wait,
    message_count,
    retry_timeline_model,
    retry_timeline_text,
)
from .retry_scene import retry_timeline_scene
from .scene import Scene, SceneView

__all__ = [
    "MARKS",
    "Mark",
    "RetryTimeline",
    "TimelineModel",
    "Wait",
    "message_count",
    "retry_timeline_model",
    "retry_timeline_scene",
    "retry_timeline_text",
]


class RetryTimeline(SceneView):
    """The retry timeline drawn as a Scene (see the module docstring); ``to_text`` is what the labs print."""

    title = N_("Retry timeline")

    def __init__(
        self,
        *,
        only_retried: bool = False,
        max_lanes: int = 30,
        msg_ids: tuple[str, ...] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.only_retried, self.max_lanes, self.msg_ids = only_retried, max_lanes, msg_ids

    def model(self, snap: LabSnapshot) -> TimelineModel:
        return retry_timeline_model(
            snap, msg_ids=self.msg_ids, only_retried=self.only_retried, max_lanes=self.max_lanes
        )

    def scene(self, vm: TimelineModel) -> Scene:
        return retry_timeline_scene(vm)

    def to_text(self, vm: TimelineModel) -> str:
        return retry_timeline_text(vm)
