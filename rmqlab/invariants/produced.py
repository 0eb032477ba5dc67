"""Produced copies: what producers stored on business topics, and whether extra copies have a cause.

``producer_duplicate``: extra stored copies of one message id need an attempt that stored but did
not get SEND_OK back, or another application send.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..common.message import SCHEDULE_TOPIC
from ..core.trace import EventKind, TraceEvent

if TYPE_CHECKING:
    from .context import CheckContext

__all__ = ["produced_copies"]


def produced_copies(ctx: CheckContext) -> dict[str, list[TraceEvent]]:
    """Msg id → the STORED/SCHEDULED events that put a producer's copy on a business topic."""
    copies: dict[str, list[TraceEvent]] = {}
    for msg_id, events in ctx.by_msg.items():
        previous: TraceEvent | None = None
        stored_attempts: dict[tuple[str, int], TraceEvent] = {}
        app_sends = 0
        found: list[TraceEvent] = []
        for e in events:
            first_attempt = e.kind is EventKind.SEND_ATTEMPT and e.data.get("attempt") == 1
            if first_attempt and not str(e.data.get("topic", "")).startswith("%"):
                app_sends += 1
            business = (e.kind is EventKind.STORED and not str(e.data["topic"]).startswith("%")) or (
                e.kind is EventKind.SCHEDULED and not str(e.data["real_topic"]).startswith("%")
            )
            if e.kind is EventKind.STORED and str(e.data["topic"]) == SCHEDULE_TOPIC:
                business = False
            if business and not (previous is not None and previous.kind is EventKind.DELAY_DELIVERED):
                found.append(e)
                if previous is not None and previous.kind is EventKind.SEND_ATTEMPT:
                    stored_attempts[(previous.actor, int(previous.data["attempt"]))] = e
            previous = e
        if not found:
            continue
        copies[msg_id] = found
        if len(found) > 1:
            # each extra copy needs a stored attempt whose answer was not SEND_OK, or an app resend
            unanswered = sum(
                1
                for e in events
                if e.kind is EventKind.SEND_RESULT
                and (e.actor, int(e.data["attempt"])) in stored_attempts
                and e.data.get("outcome") not in ("SUCCESS", "ONEWAY_SENT")
            )
            answered = {(e.actor, int(e.data["attempt"])) for e in events if e.kind is EventKind.SEND_RESULT}
            # an attempt that stored and never got any answer (e.g. the run ended) also explains one
            silent = sum(1 for key in stored_attempts if key not in answered)
            if len(found) - 1 > unanswered + silent + max(app_sends - 1, 0):
                ctx.violate(
                    "producer_duplicate",
                    msg_id,
                    found[-1].time_ms,
                    f"{len(found)} stored copies but only {unanswered} stored attempt(s) without SEND_OK "
                    f"and {app_sends} application send(s)",
                    events,
                )
            ctx.report.counts["producer_duplicates"] += len(found) - 1
    return copies
