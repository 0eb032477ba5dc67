"""Deliveries and their outcomes: which listener calls succeeded, and what explains a second delivery.

``redelivery``: a stored copy (queue, offset) delivered again to the same audience needs a local retry, an
orderly suspend, or a replay event of the group in between. For a delivery by a *different* instance with none
of those in between, the rule follows from what RocketMQ guarantees about ownership, and from nothing else:

* RocketMQ does **not** promise that one queue has one owner. Each instance allocates queues itself
  (``RebalanceImpl.rebalanceByTopic``) from the member list *one* broker returns (``findConsumerIdList`` asks a
  broker of the topic's route). Brokers that disagree on a group's members — a client cut from one broker
  has its channel expired there after 120 s but keeps heartbeating to the others — make two instances own
  one queue, each by its own rebalance, for as long as they disagree (a whole partition, hours if need be).
* Each owner pulls from its own offset (read from the broker when its ProcessQueue was created) and commits
  its own progress, so both deliver the same copies: at-least-once, not a bug.
* An instance only delivers from a queue it owns: ``ConsumeRequest.run`` returns at once when its
  ProcessQueue was dropped, and every change of what an instance owns is a REBALANCED, or a start, crash or
  shutdown (LIFECYCLE), each a replay event.

So a redelivery by another instance is explained exactly when **both instances owned the queue by their own
rebalances** when the first one delivered it (or, equivalently with no replay event in between, when the second
did): read from each instance's REBALANCED events (:meth:`.CheckContext.owned`), with no look-back window. (Until
issue 15 a replay event up to 60 s before the first delivery also explained it: a window that hid a delivery by
an instance that owned nothing, and that a partition outlives.)

A ``duplicate`` also has a cause when the ScheduleMessageService delivers a parked copy a second time: it
persists its progress (``delayOffset.json``) every 10 s, so a broker crash loses what it delivered since and the
restarted broker delivers it again (4.9.7 ``ScheduleMessageService``; ``examples/delay_offset_lost_in_crash``).
The checker counts SCHEDULED copies per (level, real topic) and takes a DELAY_DELIVERED beyond them as that
replay.

Every check here is one pass over each message's events with O(1) work per event (the seq of the latest local
retry, store and attempt kept as running values, a CONSUME_SUCCESS kept pending until that actor's next event
says whether a partial ``ackIndex`` sent it back), so the checker stays linear however many times one message is
retried or redelivered.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from ..common.message import dlq_topic, retry_topic
from ..core.trace import EventKind, TraceEvent
from .findings import MAX_TRACE_EVENTS

if TYPE_CHECKING:
    from .context import CheckContext

__all__ = ["outcomes"]

_SUCCESS_ORDERLY = frozenset({"SUCCESS", "COMMIT"})
_FAILED_AFTER_CONSUMED = frozenset({EventKind.SEND_BACK, EventKind.LOCAL_RETRY, EventKind.BROADCAST_DROPPED})
"""After a CONSUME_SUCCESS, one of these by the same actor means a partial ack_index failed the message."""
_ENDS_CONSUMPTION = frozenset({EventKind.DELIVERED, EventKind.CLEAN_EXPIRED, EventKind.CONSUMED})
"""After a CONSUME_SUCCESS, one of these by the same actor (first) means the success stood."""
_HOLDS = frozenset({EventKind.LOCAL_RETRY, EventKind.SUSPENDED})


def outcomes(
    ctx: CheckContext,
) -> tuple[dict[tuple[str, str], list[TraceEvent]], dict[tuple[str, str], list[TraceEvent]]]:
    """(audience, msg) → successful CONSUMED events (in trace order); and → explanations for extra copies."""
    successes: dict[tuple[str, str], list[TraceEvent]] = defaultdict(list)
    dup_sources: dict[tuple[str, str], list[TraceEvent]] = defaultdict(list)
    failed: set[int] = set()  # seqs of CONSUME_SUCCESS events a partial ack_index turned into failures
    for msg_id, events in ctx.by_msg.items():
        last_delivery: dict[tuple[str, str, int], TraceEvent] = {}
        last_hold: dict[str, int] = {}  # audience → seq of its latest LOCAL_RETRY / SUSPENDED of this message
        consumed_at: dict[str, int] = {}  # actor → index of its last CONSUMED
        attempt_at: dict[str, int] = {}  # producer actor → index of its last SEND_ATTEMPT
        last_store = -1  # index of the latest STORED / SCHEDULED of this message
        stored_to: dict[str, int] = {}  # topic (a SCHEDULED's real topic) → index of its latest copy
        pending: dict[str, TraceEvent] = {}  # actor → its CONSUME_SUCCESS whose fate its next event decides
        parked: dict[tuple[object, str], int] = {}  # (level, real topic) → copies parked in SCHEDULE_TOPIC_XXXX
        for i, e in enumerate(events):
            waiting = pending.get(e.actor)
            if waiting is not None:
                if e.kind in _FAILED_AFTER_CONSUMED:
                    failed.add(waiting.seq)
                    del pending[e.actor]
                elif e.kind in _ENDS_CONSUMPTION:
                    del pending[e.actor]
            audience = ctx.by_actor.get(e.actor)
            kind = e.kind
            if kind in _HOLDS and audience is not None:
                last_hold[audience.key] = e.seq
            elif kind is EventKind.DELIVERED and audience is not None:
                key = (audience.key, str(e.data["queue"]), int(e.data["queue_offset"]))
                previous = last_delivery.get(key)
                if previous is not None:
                    ctx.report.counts["redeliveries"] += 1
                    explained = last_hold.get(audience.key, -1) > previous.seq or ctx.replay_between(
                        audience.group, previous.seq, e.seq
                    )
                    if not explained and previous.actor != e.actor:
                        explained = _both_owned(ctx, previous.actor, e.actor, key[1], previous.seq + 1) or _both_owned(
                            ctx, previous.actor, e.actor, key[1], e.seq
                        )
                    if not explained:
                        ctx.violate(
                            "redelivery",
                            msg_id,
                            e.time_ms,
                            f"{key[1]} offset {key[2]} delivered again to {audience.key} with no local retry,"
                            " suspend, rebalance, crash, lock change or fault in between"
                            + _owners(previous.actor, e.actor),
                            events[max(0, i + 1 - MAX_TRACE_EVENTS) : i + 1],
                        )
                    else:  # an explained replay explains the duplicate it causes
                        dup_sources[(audience.key, msg_id)].append(e)
                last_delivery[key] = e
            elif kind is EventKind.CONSUMED and audience is not None:
                consumed_at[e.actor] = i
                status = str(e.data["status"])
                if status == "CONSUME_SUCCESS":
                    successes[(audience.key, msg_id)].append(e)
                    pending[e.actor] = e
                elif status in _SUCCESS_ORDERLY or (status == "ROLLBACK" and _rollback_committed(e, events, i)):
                    successes[(audience.key, msg_id)].append(e)
            elif kind is EventKind.SEND_ATTEMPT:
                attempt_at[e.actor] = i
            elif kind in (EventKind.STORED, EventKind.SCHEDULED):
                last_store = i
                topic = str(e.data["topic"] if kind is EventKind.STORED else e.data["real_topic"])
                stored_to[topic] = i
                if kind is EventKind.SCHEDULED:
                    parked[(e.data["level"], topic)] = parked.get((e.data["level"], topic), 0) + 1
            elif kind is EventKind.DELAY_DELIVERED:
                slot = (e.data["level"], str(e.data["topic"]))
                if parked.get(slot, 0) > 0:
                    parked[slot] -= 1
                else:  # delivered again: the schedule service lost its delayOffset in a broker crash
                    for replayed in _audiences_of_topic(ctx, slot[1], msg_id):
                        dup_sources[(replayed, msg_id)].append(e)
            elif kind is EventKind.SEND_RESULT and e.data.get("outcome") not in ("SUCCESS", "ONEWAY_SENT"):
                # a send-back fallback (the consumer's inner producer) whose attempt stored a retry copy but
                # got no SEND_OK retries: a second retry copy, consumed too
                owner = ctx.by_actor.get("consumer:" + e.actor.removeprefix("producer:").removesuffix("/inner"))
                attempt = attempt_at.get(e.actor)
                stored = attempt is not None and last_store >= attempt
                if owner is not None and e.actor.endswith("/inner") and stored:
                    dup_sources[(owner.key, msg_id)].append(e)
            elif kind is EventKind.CLEAN_EXPIRED and audience is not None:
                dup_sources[(audience.key, msg_id)].append(e)
            elif kind is EventKind.SEND_BACK and audience is not None and e.data.get("ok") is False:
                start = consumed_at.get(e.actor, 0)
                targets = (retry_topic(audience.group), dlq_topic(audience.group))
                if max(stored_to.get(t, -1) for t in targets) >= start:
                    # the request stored a copy, but the client saw a failure and will try again
                    dup_sources[(audience.key, msg_id)].append(e)
    if failed:
        for audience_msg, wins in successes.items():
            successes[audience_msg] = [w for w in wins if w.seq not in failed]
    return successes, dup_sources


def _audiences_of_topic(ctx: CheckContext, topic: str, msg_id: str) -> list[str]:
    """The audiences that consume ``topic`` (a business topic, or ``%RETRY%<group>``) for this message."""
    return sorted(
        a.key
        for a in ctx.audiences.values()
        if a.wants(topic, ctx.tags.get(msg_id)) or (a.clustering and topic == retry_topic(a.group))
    )


def _owners(first: str, second: str) -> str:
    return "" if first == second else f", and {first} and {second} did not both own the queue by their rebalances"


def _both_owned(ctx: CheckContext, first: str, second: str, queue: str, before_seq: int) -> bool:
    return ctx.owned(first, queue, before_seq) and ctx.owned(second, queue, before_seq)


def _rollback_committed(e: TraceEvent, events: list[TraceEvent], i: int) -> bool:
    """ROLLBACK is deprecated: with auto_commit=True it is treated as SUCCESS, and the next events say so."""
    return any(
        x.kind is EventKind.WARNING and x.actor == e.actor and "treated as SUCCESS" in str(x.data["message"])
        for x in events[i + 1 : i + 3]
    )
