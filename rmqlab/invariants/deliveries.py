"""Deliveries and their outcomes: which listener calls succeeded, and what explains a second delivery.

``redelivery``: a stored copy (queue, offset) delivered again to the same audience needs a local
retry, an orderly suspend, or a replay event of the group in between (for a *different* instance:
both owned the queue at that moment by their own rebalances, or a replay event up to ``OVERLAP_LOOKBACK_MS``
before the first delivery).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from ..message import dlq_topic, retry_topic
from ..trace import EventKind, TraceEvent
from .context import OVERLAP_LOOKBACK_MS

if TYPE_CHECKING:
    from .audience import Audience
    from .context import CheckContext

__all__ = ["outcomes"]

_SUCCESS_ORDERLY = frozenset({"SUCCESS", "COMMIT"})
_FAILED_AFTER_CONSUMED = frozenset({EventKind.SEND_BACK, EventKind.LOCAL_RETRY, EventKind.BROADCAST_DROPPED})


def outcomes(
    ctx: CheckContext,
) -> tuple[dict[tuple[str, str], list[TraceEvent]], dict[tuple[str, str], list[TraceEvent]]]:
    """(audience, msg) → successful CONSUMED events; and → explanations for extra copies."""
    successes: dict[tuple[str, str], list[TraceEvent]] = defaultdict(list)
    dup_sources: dict[tuple[str, str], list[TraceEvent]] = defaultdict(list)
    for msg_id, events in ctx.by_msg.items():
        last_delivery: dict[tuple[str, str, int], TraceEvent] = {}
        since: dict[tuple[str, str, int], list[TraceEvent]] = defaultdict(list)
        consumed_at: dict[str, int] = {}  # actor → index of its last CONSUMED
        attempt_at: dict[str, int] = {}  # producer actor → index of its last SEND_ATTEMPT
        for i, e in enumerate(events):
            audience = ctx.by_actor.get(e.actor)
            if e.kind in (EventKind.LOCAL_RETRY, EventKind.SUSPENDED) and audience is not None:
                for key, seen in since.items():
                    if key[0] == audience.key:
                        seen.append(e)
            if e.kind is EventKind.DELIVERED and audience is not None:
                key = (audience.key, str(e.data["queue"]), int(e.data["queue_offset"]))
                previous = last_delivery.get(key)
                if previous is not None:
                    ctx.report.counts["redeliveries"] += 1
                    explained = bool(since[key]) or ctx.replay_between(audience.group, previous.seq, e.seq)
                    if not explained and previous.actor != e.actor:
                        # two instances owned the queue at once: both allocations were granted (brokers that
                        # disagree on the group's members, as under a partition, keep it so for as long as they
                        # disagree), or the overlap began with a membership change or fault up to one heartbeat +
                        # rebalance period before the first delivery
                        explained = (
                            ctx.owned(previous.actor, key[1], e.seq) and ctx.owned(e.actor, key[1], e.seq)
                        ) or ctx.replay_since(audience.group, previous.time_ms - OVERLAP_LOOKBACK_MS, e.seq)
                    if not explained:
                        ctx.violate(
                            "redelivery",
                            msg_id,
                            e.time_ms,
                            f"{key[1]} offset {key[2]} delivered again to {audience.key} with no local retry,"
                            " suspend, rebalance, crash, lock change or fault in between",
                            events[: i + 1],
                        )
                    else:  # an explained replay explains the duplicate it causes
                        dup_sources[(audience.key, msg_id)].append(e)
                last_delivery[key] = e
                since[key] = []
            elif e.kind is EventKind.CONSUMED and audience is not None:
                consumed_at[e.actor] = i
                if _is_success(e, events, i, audience):
                    successes[(audience.key, msg_id)].append(e)
            elif e.kind is EventKind.SEND_ATTEMPT:
                attempt_at[e.actor] = i
            elif e.kind is EventKind.SEND_RESULT and e.data.get("outcome") not in ("SUCCESS", "ONEWAY_SENT"):
                # a send-back fallback (the consumer's inner producer) whose attempt stored a retry copy but
                # got no SEND_OK retries: a second retry copy, consumed too
                owner = ctx.by_actor.get("consumer:" + e.actor.removeprefix("producer:").removesuffix("/inner"))
                stored = any(
                    x.kind in (EventKind.STORED, EventKind.SCHEDULED) for x in events[attempt_at.get(e.actor, i) : i]
                )
                if owner is not None and e.actor.endswith("/inner") and stored:
                    dup_sources[(owner.key, msg_id)].append(e)
            elif e.kind is EventKind.CLEAN_EXPIRED and audience is not None:
                dup_sources[(audience.key, msg_id)].append(e)
            elif e.kind is EventKind.SEND_BACK and audience is not None and e.data.get("ok") is False:
                start = consumed_at.get(e.actor, 0)
                targets = (retry_topic(audience.group), dlq_topic(audience.group))
                copies = [
                    x
                    for x in events[start:i]
                    if (x.kind is EventKind.STORED and x.data["topic"] in targets)
                    or (x.kind is EventKind.SCHEDULED and x.data["real_topic"] in targets)
                ]
                if copies:  # the request stored a copy, but the client saw a failure and will try again
                    dup_sources[(audience.key, msg_id)].append(e)
    return successes, dup_sources


def _is_success(e: TraceEvent, events: list[TraceEvent], i: int, audience: Audience) -> bool:
    status = str(e.data["status"])
    if status == "ROLLBACK":  # deprecated: auto_commit=True treats it as SUCCESS and says so
        return any(
            x.kind is EventKind.WARNING and x.actor == e.actor and "treated as SUCCESS" in str(x.data["message"])
            for x in events[i + 1 : i + 3]
        )
    if status not in _SUCCESS_ORDERLY and status != "CONSUME_SUCCESS":
        return False
    if status == "CONSUME_SUCCESS":
        # a partial ack_index marks some messages of a "successful" batch as failed: they are sent back
        for x in events[i + 1 :]:
            if x.actor != e.actor:
                continue
            if x.kind in _FAILED_AFTER_CONSUMED:
                return False
            if x.kind in (EventKind.DELIVERED, EventKind.CLEAN_EXPIRED, EventKind.CONSUMED):
                break
    return True
