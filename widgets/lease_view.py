"""LeaseView: the orderly locks of each queue as a timeline of leases, trust windows and held locks.

The lesson it carries: orderly consumption is guarded by three locks with three different clocks.

* The **broker lease** (``RebalanceLockManager``): an entry is live for 60 s after its last lock or
  renewal (``rocketmq.broker.rebalance.lockMaxLiveTime``); once expired, the next client that asks
  takes it over — so a crashed holder blocks its queue for up to 60 s.
* The client's **trust window**: ``ProcessQueue`` trusts its copy (``locked``) for 30 s after the last
  successful lock (``REBALANCE_LOCK_MAX_LIVE_TIME``) and ``lockAll`` renews every 20 s (1 s after start,
  then every ``REBALANCE_LOCK_INTERVAL``), so a live client never lets its trust lapse.
* The local **MessageQueueLock** (one consume thread per queue, held for a whole ConsumeRequest loop)
  and the ProcessQueue **consume lock** (held around each listener call, so a rebalance never unlocks
  a queue mid-batch).

One horizontal band per orderly queue, over a shared time axis with a "now" cursor. Everything is a
pure function of the snapshot and its trace events: lock / renew / refuse / take-over / unlock events
for the leases, DELIVERED → CONSUMED of each instance for the consume lock, lifecycle events for
crashes; the snapshot's lock table and ProcessQueue flags say what holds *now*.

The parts: :mod:`~widgets.lease_model` (the view-model and its text), :mod:`~widgets.lease_fold` (the trace folded
into bands) and :mod:`~widgets.lease_scene` (the picture).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rmqlab.core.i18n import N_
from rmqlab.snapshot import LabSnapshot

from .lease_fold import lease_model
from .lease_model import (
    BROKER_LEASE_MS,
    CLIENT_TRUST_MS,
    LOCK_INTERVAL_MS,
    LeaseBand,
    LeaseLane,
    LeaseMarker,
    LeaseModel,
    LeaseSpan,
    lease_text,
)
from .lease_scene import lease_scene
from .scene import Scene, SceneView

__all__ = [
    "BROKER_LEASE_MS",
    "CLIENT_TRUST_MS",
    "LOCK_INTERVAL_MS",
    "LeaseBand",
    "LeaseLane",
    "LeaseMarker",
    "LeaseModel",
    "LeaseSpan",
    "LeaseView",
    "lease_model",
    "lease_scene",
    "lease_text",
]


class LeaseView(SceneView):
    """The orderly locks as a lease timeline (replaces LockView's tables); ``text`` is the plain rendering."""

    title = N_("Locks")

    def __init__(self, *, include_retry: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.include_retry = include_retry
        self.run_end_ms: int | None = None
        """Where the run of the frames last built ends (:meth:`run_ends_at`, :meth:`models`): the axis ends there."""

    def model(self, snap: LabSnapshot) -> LeaseModel:
        run_end = self.run_end_ms if self.run_end_ms is not None and snap.now_ms <= self.run_end_ms else None
        return lease_model(snap, include_retry=self.include_retry, run_end_ms=run_end)

    def run_ends_at(self, end_ms: int | None) -> None:
        self.run_end_ms = end_ms

    def models(self, snaps: Sequence[LabSnapshot]) -> list[LeaseModel]:
        """A run's frames: one axis for all of them, ending where the run ends (its last frame's clock)."""
        self.run_end_ms = snaps[-1].now_ms if snaps else None
        return [self.model(snap) for snap in snaps]

    def to_text(self, vm: LeaseModel) -> str:
        return lease_text(vm)

    def scene(self, vm: LeaseModel) -> Scene:
        return lease_scene(vm)
