"""Committed offsets: ``offset_monotonic``.

The committed offset of a group's queue at the broker never moves backwards, except (a) an
OFFSET_ILLEGAL fix-up by that consumer or (b) a *handover*: the previous value was written by another
instance (two owners during a rebalance, or an orderly consumer whose lock expired mid-listener).
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
    for e in ctx.events:
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
        ctx.violate(
            "offset_monotonic",
            None,
            e.time_ms,
            f"{e.actor} moved the committed offset of {key[0]} on {key[1]} back from "
            f"{previous.data['offset']} to {e.data['offset']}",
            history[key],
        )
