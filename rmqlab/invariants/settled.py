"""The settled-run rule: once every fault has healed and the pipeline had time to drain, nothing is in flight.

At-least-once is a promise about the end of the story. While faults go on, a message may wait anywhere (a held
pull, a ProcessQueue, a delay level). But once every injected fault has healed and nothing else happened for
long enough, RocketMQ's own timers drain everything: a message still "in flight" then is stuck, not waiting.

A run is **settled** when, at its end,

* every broker is up with no injected fault left on (``response_delay_ms`` 0, no ``lose_responses``, no
  ``reject_send_back``, no ``send_error`` or ``query_offset_error``, ``put_status`` PUT_OK) and no network
  partition is left cut, all folded from the trace's FAULT events; and
* the last *disturbance* — an injected fault or its heal, a consumer start / crash / shutdown, an ``mqadmin``
  command, an application send — is at least :func:`drain_bound_ms` ago.

The drain bound is the sum of what RocketMQ's timers need, one after the other, in the worst case:

* :data:`MECHANICS_MS` (10 min), client machinery rounded up from 502 s: a crashed consumer's channel expires
  after 120 s (scanned every 10 s), then a heartbeat (30 s) and a rebalance (20 s) hand its queues over
  (180 s); a held pull the broker dropped times out 30 s + 1 s after it was sent and is re-pulled 1 s later
  (32 s); a queue whose pulls stopped is re-created after ``PULL_MAX_IDLE_TIME`` 120 s by the next rebalance
  (140 s); an orderly lock left by a crashed holder expires at the broker after 60 s, is taken by the next
  ``lockAll`` (20 s) or after a removal's 20 s delayed unlock (100 s); a route change is seen by the next route
  poll (30 s) and rebalance (20 s) (50 s);
* the whole retry schedule a message may still have: the delays of levels 3 … 18 of this lab's
  ``messageDelayLevel`` (several hours by default), since a copy that failed just before the quiet period
  may need every retry up to the DLQ;
* two ``consumeTimeout`` periods (30 min by default): ``cleanExpiredMsg`` sends back a message consuming too
  long between 15 and 30 min after it started.

With the defaults the bound is 5 h 25 min 40 s. Listener durations are not in it beyond the 10 min margin.

In a settled run, a copy still in flight for an audience is a ``settled`` violation carrying the message's
story, unless the audience cannot consume at all (no running consumer instance) or a listener of the
audience is still running on that queue (a ``HANG``, or a call longer than the run): both are faults that
never healed, so those copies keep their ``in_flight`` fate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.scheduler import TimerKind
from ..core.trace import EventKind, TraceEvent
from .findings import Settlement

if TYPE_CHECKING:
    from .audience import Audience
    from .context import CheckContext

__all__ = ["MECHANICS_MS", "Settlement", "drain_bound_ms", "settlement"]

MECHANICS_MS = 600_000
"""Client and broker machinery between a heal and a drained pipeline (502 s, rounded up; see the module doc)."""
FIRST_RETRY_LEVEL = 3
"""A send-back with delay level 0 is stored at level ``3 + reconsumeTimes``: the schedule starts at level 3."""
DEFAULT_CONSUME_TIMEOUT_MIN = 15

_FAULT_DEFAULTS: dict[str, object] = {
    "response_delay_ms": 0,
    "lose_responses": False,
    "reject_send_back": False,
    "send_error": None,
    "query_offset_error": None,
    "put_status": "PUT_OK",
}


def drain_bound_ms(delay_levels_ms: tuple[int, ...], consume_timeout_min: int) -> int:
    """The quiet time after which every message must have a final fate (see the module docstring)."""
    retries = sum(delay_levels_ms[FIRST_RETRY_LEVEL - 1 :])
    return MECHANICS_MS + retries + 2 * consume_timeout_min * 60_000


def settlement(ctx: CheckContext) -> Settlement:
    """Fold the trace's faults and disturbances into a :class:`Settlement` for this run."""
    consume_timeout = max(
        (c.consume_timeout for a in ctx.audiences.values() for c in a.consumers), default=DEFAULT_CONSUME_TIMEOUT_MIN
    )
    bound = drain_bound_ms(ctx.snap.delay_levels_ms, consume_timeout)
    down: set[str] = set()
    cut: set[tuple[str, str]] = set()
    faults: dict[tuple[str, str], object] = {}
    last = 0
    for e in ctx.events:
        if e.kind is EventKind.FAULT:
            last = e.time_ms
            fault = e.data.get("fault")
            if fault == "broker_down":
                down.add(e.actor)
            elif fault == "broker_up":
                down.discard(e.actor)
            elif fault == "partition":
                cut.add((str(e.data.get("client")), e.actor))
            elif fault == "heal":
                cut.discard((str(e.data.get("client")), e.actor))
            elif fault == "broker_fault":
                for name, value in e.data.items():
                    if name in _FAULT_DEFAULTS:
                        faults[(e.actor, name)] = value
        elif e.kind in (EventKind.LIFECYCLE, EventKind.ADMIN) or _is_application_send(e):
            last = e.time_ms
    left = sorted(f"{b} {name}={value}" for (b, name), value in faults.items() if value != _FAULT_DEFAULTS[name])
    left += [f"{broker} down" for broker in sorted(down)]
    left += [f"{client} cut from {broker}" for client, broker in sorted(cut)]
    now = ctx.lab.now
    if left:
        return Settlement(False, last, bound, "faults still on at the end: " + ", ".join(left))
    if now - last < bound:
        return Settlement(
            False, last, bound, f"quiet for {now - last} ms since {last} ms, less than the drain bound {bound} ms"
        )
    return Settlement(True, last, bound, f"quiet for {now - last} ms since {last} ms (drain bound {bound} ms)")


def _is_application_send(e: TraceEvent) -> bool:
    """A producer's first attempt at a business topic (not a client's send-back fallback to ``%RETRY%``)."""
    return (
        e.kind is EventKind.SEND_ATTEMPT
        and e.data.get("attempt") == 1
        and not str(e.data.get("topic", "")).startswith("%")
    )


def can_drain(ctx: CheckContext, audience: Audience) -> bool:
    """An audience drains only with at least one running instance (a BROADCASTING one: its own)."""
    running = {c.client_id for c in ctx.snap.consumers if c.running}
    return any(c.client_id in running for c in audience.consumers)


def queues_with_running_listener(ctx: CheckContext, audience: Audience) -> set[str]:
    """Queues (``str(mq)``) on which a listener of this audience is still running at the end (a LISTENER timer)."""
    actors = {c.actor for c in audience.consumers}
    return {
        str(t.queue)
        for t in ctx.snap.timers
        if t.kind is TimerKind.LISTENER and t.owner in actors and t.queue is not None
    }
