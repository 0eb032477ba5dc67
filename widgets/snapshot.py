"""The views' snapshot is the engine's: this module re-exports :mod:`rmqlab.snapshot`.

Views never touch live engine objects: a snapshot (``lab.snapshot()``) is taken once per controller
position and every view is a pure function of it. Kept so ``from widgets.snapshot import …`` works.
"""

from __future__ import annotations

from rmqlab.snapshot import (
    BROKER_LEASE_MS,
    CLIENT_TRUST_MS,
    SCHEDULE_GROUP,
    BrokerSnap,
    ConsumeQueueSnap,
    ConsumerSnap,
    LabSnapshot,
    LockSnap,
    OffsetState,
    ProcessQueueSnap,
    QueueCell,
    ScheduleLevelSnap,
    TraceIndex,
    client_groups,
    copy_group,
    flow_edge,
    queue_kind,
    take_snapshot,
)

__all__ = [
    "BROKER_LEASE_MS",
    "CLIENT_TRUST_MS",
    "SCHEDULE_GROUP",
    "BrokerSnap",
    "ConsumeQueueSnap",
    "ConsumerSnap",
    "LabSnapshot",
    "LockSnap",
    "OffsetState",
    "ProcessQueueSnap",
    "QueueCell",
    "ScheduleLevelSnap",
    "TraceIndex",
    "client_groups",
    "copy_group",
    "flow_edge",
    "queue_kind",
    "take_snapshot",
]
