"""``lab.snapshot()``: an immutable, plain-data copy of everything a view may show.

The engine owns this copy because only the engine knows its own internals: which ProcessQueue a
consumer holds, what the broker's ``RebalanceLockManager`` says, which timers are armed. Views,
:func:`~rmqlab.check_invariants` and the report read the snapshot and never the live objects, so
an engine refactoring changes this module and nothing outside ``rmqlab/``.

A snapshot holds no live engine object: only ints, strings, enums, :class:`MessageQueue` values and
frozen dataclasses, sorted by names and queues (never by ``id()``), so equal positions of a run give
equal snapshots — that is what makes "position k reached twice shows the same state" testable.

Some facts the engine does not keep as state (which offset was acked, which was sent back to
``%RETRY%``, which message sits at which ``SCHEDULE_TOPIC_XXXX`` offset) are folded from the trace by
:class:`TraceIndex`. The fold is incremental, so a controller keeps one index per Lab and each step
costs only the new events.

The package, one module per view-model family: :mod:`~rmqlab.snapshot.queues` (ConsumeQueue cells and their
states), :mod:`~rmqlab.snapshot.brokers` (locks, schedule levels), :mod:`~rmqlab.snapshot.clients`
(ProcessQueues, consumers, timers), :mod:`~rmqlab.snapshot.trace_index` (the fold of the trace),
:mod:`~rmqlab.snapshot.cells` (each cell's state per audience) and :mod:`~rmqlab.snapshot.lab_snapshot`
(:class:`LabSnapshot` and :func:`take_snapshot`).
"""

from __future__ import annotations

from .brokers import BROKER_LEASE_MS, BrokerSnap, DelayOffsetSnap, LockSnap, ScheduleLevelSnap
from .clients import CLIENT_TRUST_MS, ConsumerSnap, FaultItemSnap, ProcessQueueSnap, RequestSnap, TimerSnap
from .lab_snapshot import LabSnapshot, take_snapshot
from .queues import BROADCAST_SUMMARY_ORDER, SCHEDULE_GROUP, ConsumeQueueSnap, OffsetState, QueueCell, queue_kind
from .trace_index import TraceIndex, client_groups, copy_group, flow_edge

__all__ = [
    "BROADCAST_SUMMARY_ORDER",
    "BROKER_LEASE_MS",
    "CLIENT_TRUST_MS",
    "SCHEDULE_GROUP",
    "BrokerSnap",
    "ConsumeQueueSnap",
    "ConsumerSnap",
    "DelayOffsetSnap",
    "FaultItemSnap",
    "LabSnapshot",
    "LockSnap",
    "OffsetState",
    "ProcessQueueSnap",
    "QueueCell",
    "RequestSnap",
    "ScheduleLevelSnap",
    "TimerSnap",
    "TraceIndex",
    "client_groups",
    "copy_group",
    "flow_edge",
    "queue_kind",
    "take_snapshot",
]
