"""The run's true start: the Lab as its factory built it, before the first trace event (issue 30).

A factory that adds a consumer with ``lab.add_consumer(...)`` starts it at once (``start=True``, the default), and
``DefaultMQPushConsumer.start()`` records what it does — its ``start`` and its first rebalance of every subscribed
topic, the retry topic included — while the Lab is being built: the run a student steps through used to begin at
"event 3", with c1 already owning its queues. The state *before* those events is the built Lab with those
consumers registered but not started, which is exactly what the engine gives for the same factory with
``start=False`` (``tests/test_origin.py`` compares the two): no ProcessQueues, no queues owned, no retry
subscription, no ``%RETRY%`` queue, no group membership on the brokers, no broker lock (orderly), none of the
consumer's timers.

:func:`origin_snapshot` derives that picture from the built Lab when everything the build recorded is such a
start, at t = 0; otherwise (a factory that sends or runs while building) there is no earlier state to show and the
run starts where the factory left it.

A factory that sets up its brokers while building records that too: ``lab.set_broker_fault(...)`` a ``fault`` event
(lab 01b's "broker-a answers FLUSH_DISK_TIMEOUT", 02b's "refuses every send-back") and
``lab.update_subscription_group(...)`` an ``admin`` one (lab 04's ``retry_queue_nums=0``). Those runs used to open on
"event 1" or "event 4" (revA item 14): Reset never reached event 0. Such a setting is part of the build as a
consumer's start is: the origin is the Lab before it too, its brokers with no fault yet (the first Step applies it,
and its caption says so); the started groups' subscription-group settings (``retryQueueNums``, drawn on an unused
retry queue) are the start's too, so the origin has none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from rmqlab import EventKind, TraceEvent
from rmqlab.snapshot import LabSnapshot
from rmqlab.snapshot.lab_snapshot import HEALTHY_BROKER

__all__ = ["origin_snapshot", "started_while_building"]

BY_START = frozenset({EventKind.REBALANCED, EventKind.LOCK_BATCH, EventKind.LOCK_ACQUIRED})
"""What a consumer's ``start()`` records after its ``start`` line: its first rebalance of each topic and, orderly,
the broker locks it takes for the queues it gets (``RebalanceImpl.updateProcessQueueTableInRebalance`` → ``lock``)."""
SETUP = frozenset({EventKind.FAULT, EventKind.ADMIN})
"""What a factory records when it sets its brokers up: ``set_broker_fault`` (``BrokerController``'s injected
faults, ``fault=broker_fault``) and the admin commands (``updateSubGroup``)."""
RETRY_PREFIX = "%RETRY%"
"""``MixAll.RETRY_GROUP_TOPIC_PREFIX``: the retry topic of group G is ``%RETRY%G``."""


def _setup(event: TraceEvent) -> bool:
    """Whether ``event`` sets a broker up while building: a broker fault set, or an admin command."""
    if event.kind is EventKind.FAULT:
        return event.data.get("fault") == "broker_fault"
    return event.kind in SETUP


def started_while_building(events: Sequence[TraceEvent]) -> frozenset[str] | None:
    """The client ids of the consumers whose ``start()`` recorded ``events`` (everything the build recorded, besides
    the brokers' setup), or ``None`` when something else happened while building (a send, a run, a crash): then
    there is no origin."""
    started = {e.actor for e in events if e.kind is EventKind.LIFECYCLE and e.data.get("event") == "start"}
    for e in events:
        by_start = e.kind in BY_START or (e.kind is EventKind.LIFECYCLE and e.data.get("event") == "start")
        if e.time_ms != 0 or not (_setup(e) or (by_start and e.actor in started)):
            return None
    return frozenset(actor.removeprefix("consumer:") for actor in started)


def origin_snapshot(built: LabSnapshot) -> LabSnapshot | None:
    """The state before the first event of ``built`` (the Lab just built, ``built.events`` = what the build
    recorded): its consumers registered but not started. ``None`` when the build recorded anything else."""
    if not built.events or built.now_ms != 0:
        return None
    ids = started_while_building(built.events)
    if ids is None:
        return None
    groups = {c.group for c in built.consumers if c.client_id in ids}
    # a retry queue belongs to the started group's start() unless another, not started, consumer of it exists
    kept_groups = {c.group for c in built.consumers if c.client_id not in ids}
    retry_topics = {f"{RETRY_PREFIX}{g}" for g in groups - kept_groups}
    consumers = tuple(
        dataclasses.replace(
            c,
            running=False,
            subscriptions=tuple(s for s in c.subscriptions if not s.startswith(RETRY_PREFIX)),
            process_queues=(),
            offset_store=(),
            assigned=(),
            busy_threads=0,
            waiting_requests=0,
        )
        if c.client_id in ids
        else c
        for c in built.consumers
    )
    unset = {e.actor for e in built.events if e.kind is EventKind.FAULT}  # their faults came with the build's events
    brokers = tuple(
        dataclasses.replace(
            b,
            faults=HEALTHY_BROKER if b.name in unset else b.faults,
            locks=tuple(lock for lock in b.locks if lock.client not in ids),
            members=tuple(
                (group, kept) for group, members in b.members if (kept := tuple(m for m in members if m not in ids))
            ),
            retry_queue_nums=tuple((g, n) for g, n in b.retry_queue_nums if g not in groups - kept_groups),
        )
        for b in built.brokers
    )
    owners = {f"consumer:{i}" for i in ids} | {f"producer:{i}/inner" for i in ids}
    return dataclasses.replace(
        built,
        trace_len=0,
        events=(),
        brokers=brokers,
        queues=tuple(q for q in built.queues if q.topic not in retry_topics),
        consumers=consumers,
        timers=tuple(t for t in built.timers if t.owner not in owners),
    )
