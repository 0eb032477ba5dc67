"""Committed offsets: ``offset_monotonic``.

The committed offset of a group's queue at the broker never moves backwards, except (a) an
OFFSET_ILLEGAL fix-up by that consumer, (b) a *handover*: the previous value was written by another
instance (two owners during a rebalance, or an orderly consumer whose lock expired mid-listener), or (c) a
*fresh start*: the instance took the queue afresh (a REBALANCED that added it, after a restart or a rebalance)
since the previous commit, and its ``readOffset`` could not tell the broker's offset (a failed
QUERY_CONSUMER_OFFSET reads −1), so ``computePullFromWhere`` started it from its ``consumeFromWhere`` (0 for
CONSUME_FROM_FIRST_OFFSET and for ``%RETRY%``). Moving back only replays messages, as 4.9.7 does; it never loses
one (the accounting check would see a loss).
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import TYPE_CHECKING

from ..core.trace import EventKind, TraceEvent
from .findings import MAX_TRACE_EVENTS

if TYPE_CHECKING:
    from .context import CheckContext

__all__ = ["check_offsets"]


def check_offsets(ctx: CheckContext) -> None:
    """Flag an instance that moves its own committed offset back without an OFFSET_ILLEGAL fix-up."""
    last: dict[tuple[str, str], TraceEvent] = {}
    illegal: dict[tuple[str, str], int] = {}  # (actor, queue) → seq of its OFFSET_ILLEGAL warning
    history: dict[tuple[str, str], deque[TraceEvent]] = defaultdict(lambda: deque(maxlen=MAX_TRACE_EVENTS))
    taken: dict[tuple[str, str], int] = {}  # (actor, queue) → seq of the REBALANCED that last added it
    for e in ctx.events:
        if e.kind is EventKind.REBALANCED:
            for queue in e.data.get("added", ()):
                taken[(e.actor, str(queue))] = e.seq
            continue
        if e.kind is EventKind.WARNING and str(e.data.get("message", "")).startswith("OFFSET_ILLEGAL on "):
            queue = str(e.data["message"]).split()[2].rstrip(";")
            illegal[(e.actor, queue)] = e.seq
            continue
        if e.kind is not EventKind.OFFSET_PERSISTED or e.data.get("store") != "broker":
            continue
        key = (str(e.data["group"]), str(e.data["queue"]))
        history[key].append(e)
        ctx.report.counts["offset_commits"] += 1
        previous = last.get(key)
        last[key] = e
        if previous is None or int(e.data["offset"]) >= int(previous.data["offset"]):
            continue
        if previous.actor != e.actor:
            ctx.report.counts["offset_backward_allowed"] += 1  # handover between two instances
            continue
        fixed = illegal.get((e.actor, key[1]))
        if fixed is not None and fixed > previous.seq:
            ctx.report.counts["offset_backward_allowed"] += 1  # OFFSET_ILLEGAL fix-up
            continue
        fresh = taken.get((e.actor, key[1]))
        if fresh is not None and fresh > previous.seq:
            ctx.report.counts["offset_backward_allowed"] += 1  # a fresh start: replays, loses nothing
            continue
        ctx.violate(
            "offset_monotonic",
            None,
            e.time_ms,
            f"{e.actor} moved the committed offset of {key[0]} on {key[1]} back from "
            f"{previous.data['offset']} to {e.data['offset']}",
            history[key],
        )
