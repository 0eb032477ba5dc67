"""Orderly locks: ``single_lock_holder`` and ``consume_under_lock``.

Holders are derived from LOCK_ACQUIRED / LOCK_RENEWED / UNLOCKED / LOCK_EXPIRED and the broker's 60 s
lease (expired ⇔ ``now − last renewal > 60000``). A listener already running when its lock expired may
still finish: that race is counted as ``expiry_races``, not a violation.

A renewal's lease starts at the broker, somewhere between the moment the client's request left
(``asked_ms``) and the moment the answer arrived (the event's time); with a slow answer the two are up to
the 1 s timeout apart. The checker counts from ``asked_ms``, the earliest possible grant, so a take-over
it reports happened inside the lease whatever the network did: counting from the answer would accuse a
broker of taking a lock that had in fact lived its 60 s.
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import TYPE_CHECKING

from ..broker.rebalance_lock_manager import BROKER_LOCK_MAX_LIVE_TIME_MS
from ..core.trace import EventKind, TraceEvent
from .findings import MAX_TRACE_EVENTS

if TYPE_CHECKING:
    from .context import CheckContext

__all__ = ["check_locks"]


def check_locks(ctx: CheckContext) -> None:
    """At most one live broker-lock holder per queue; an orderly listener starts only under a live lock."""
    holders: dict[tuple[str, str], tuple[str, int]] = {}  # (group, queue) → (client actor, last renewal asked)
    # the latest lock events per queue, as many as a violation keeps: memory bounded by the queues, not the run
    lock_events: dict[tuple[str, str], deque[TraceEvent]] = defaultdict(lambda: deque(maxlen=MAX_TRACE_EVENTS))
    delivered_under_lock: dict[tuple[str, str], bool] = {}
    for e in ctx.events:
        kind = e.kind
        if kind in (EventKind.LOCK_ACQUIRED, EventKind.LOCK_RENEWED, EventKind.UNLOCKED, EventKind.LOCK_EXPIRED):
            key = (str(e.data["group"]), str(e.data["queue"]))
            lock_events[key].append(e)
            held = holders.get(key)
            live = held is not None and e.time_ms - held[1] <= BROKER_LOCK_MAX_LIVE_TIME_MS
            if kind is EventKind.LOCK_EXPIRED:
                previous = "consumer:" + str(e.data["previous_holder"])
                if live and held is not None and held[0] == previous:
                    ctx.violate(
                        "single_lock_holder",
                        None,
                        e.time_ms,
                        f"broker took {key[1]} from {previous} only {e.time_ms - held[1]} ms after its last "
                        f"renewal (lease {BROKER_LOCK_MAX_LIVE_TIME_MS} ms)",
                        lock_events[key],
                    )
                holders.pop(key, None)
            elif kind is EventKind.UNLOCKED:
                if held is not None and held[0] == e.actor:
                    holders.pop(key, None)
            else:
                if live and held is not None and held[0] != e.actor:
                    ctx.violate(
                        "single_lock_holder",
                        None,
                        e.time_ms,
                        f"{e.actor} got the lock of {key[1]} while {held[0]} held it "
                        f"(renewed {e.time_ms - held[1]} ms ago)",
                        lock_events[key],
                    )
                holders[key] = (e.actor, int(e.data.get("asked_ms", e.time_ms)))
        elif kind in (EventKind.DELIVERED, EventKind.CONSUMED):
            audience = ctx.by_actor.get(e.actor)
            if audience is None or not audience.orderly or not audience.clustering:
                continue
            key = (audience.group, str(e.data["queue"]))
            held = holders.get(key)
            live = held is not None and held[0] == e.actor and e.time_ms - held[1] <= BROKER_LOCK_MAX_LIVE_TIME_MS
            if kind is EventKind.DELIVERED:
                delivered_under_lock[(e.actor, str(e.msg_id))] = live
                if not live:
                    ctx.violate(
                        "consume_under_lock",
                        e.msg_id,
                        e.time_ms,
                        f"{e.actor} started consuming {key[1]} without a live broker lock "
                        f"(holder: {held[0] if held else 'none'})",
                        [*lock_events[key], e],
                    )
            elif not live and delivered_under_lock.get((e.actor, str(e.msg_id))):
                ctx.report.counts["expiry_races"] += 1
