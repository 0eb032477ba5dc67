"""``check_invariants(lab)``: the reliability rules every run must keep, checked from the trace and state.

RocketMQ promises *at-least-once*: no message is lost, some may come twice. This module turns that
promise (and the orderly-lock rules) into checks that any test, fault storm or notebook can run
after ``lab.run(...)``. It is a pure function of ``lab.trace`` plus the state the engine exposes
(consume queues, committed offsets, the schedule service, ProcessQueues); it changes nothing.

The invariants (``Violation.invariant`` names):

``accounted``
    Every produced message — each SEND that stored something on a business topic — is, for every
    audience that should see it (a CLUSTERING group, or one BROADCASTING instance), in exactly one
    category: **consumed** (a listener succeeded), **dlq** (``%DLQ%<group>``), **broadcast_dropped**
    (BROADCASTING drops failures, and the trace says so), or **in flight** (still stored above the
    committed offset, parked in ``SCHEDULE_TOPIC_XXXX``, or in a live ProcessQueue — which includes
    a message waiting for its 5 s local retry). Anything else is *lost*.
``producer_duplicate``
    Extra stored copies of one message id are explained by an attempt that stored but did not get
    SEND_OK back (timeout, lost response, non-OK put status), or by the application sending again.
``redelivery``
    A stored copy (queue, offset) delivered again to the same audience is explained by a local
    retry (LOCAL_RETRY), an orderly suspend (SUSPENDED), or a *replay event* of the group in between:
    a consumer start/crash/shutdown, a REBALANCED, a lock take-over/refusal/unlock, an
    OFFSET_ILLEGAL fix-up or an injected fault. When a *different* instance delivers it again, the
    two owned the queue at once (a stale allocation): a replay event up to 60 s before the first
    delivery (one heartbeat + one rebalance period) also explains it.
``duplicate``
    A message consumed successfully more than once (or consumed *and* dead-lettered) has a cause in
    the trace: a producer duplicate, a replayed copy, a ``cleanExpiredMsg`` send-back, or a
    send-back whose request stored a retry copy although the client saw it fail.
``offset_monotonic``
    The committed offset of a group's queue at the broker never moves backwards, except
    (a) an OFFSET_ILLEGAL fix-up by that consumer (the pull said the offset was out of range) or
    (b) a *handover*: the previous value was written by another consumer instance. Two instances own
    one queue for a moment during a rebalance, and an orderly consumer whose broker lock expired
    mid-listener commits after the new holder; each writes its own in-memory offset, so the later
    write may be lower. Both are RocketMQ behaviour and only cause replays. The same instance moving
    its own committed offset back is a bug.
``orderly_queue_order``
    Within one queue of an orderly audience, a message is consumed successfully only when every
    earlier offset of that queue (that the audience subscribes to) has finished — succeeded or been
    dead-lettered through the orderly send-back.
``single_lock_holder``
    No two consumers hold the broker lock of one queue at once. Holders are derived from
    LOCK_ACQUIRED / LOCK_RENEWED / UNLOCKED / LOCK_EXPIRED and the broker's 60 s lease
    (expired ⇔ ``now − last renewal > 60000``); a LOCK_EXPIRED before that is also a violation.
``consume_under_lock``
    An orderly CLUSTERING consumer only *starts* a listener call (DELIVERED) while it holds a live
    broker lock on that queue. A listener that was already running when the lock expired or was
    taken over may still finish and succeed: the documented expiry race, counted as
    ``expiry_races`` in the report, not a violation.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import ConfigError
from .lock import BROKER_LOCK_MAX_LIVE_TIME_MS
from .message import PROPERTY_REAL_TOPIC, RETRY_PREFIX, SCHEDULE_TOPIC, dlq_topic, retry_topic
from .queue import MessageQueue
from .trace import EventKind, TraceEvent

if TYPE_CHECKING:
    from .consumer import DefaultMQPushConsumer
    from .lab import Lab

__all__ = ["INVARIANTS", "InvariantReport", "Violation", "check_invariants"]

INVARIANTS = (
    "accounted",
    "producer_duplicate",
    "redelivery",
    "duplicate",
    "offset_monotonic",
    "orderly_queue_order",
    "single_lock_holder",
    "consume_under_lock",
)
"""Every invariant name a :class:`Violation` can carry."""

OVERLAP_LOOKBACK_MS = 60_000
"""A stale owner keeps a queue until its next heartbeat (30 s) and rebalance (20 s): 60 s covers both."""

MAX_TRACE_EVENTS = 12
"""A violation keeps at most this many of the events leading to it (the most recent ones)."""

_REPLAY_KINDS = frozenset(
    {
        EventKind.LIFECYCLE,
        EventKind.REBALANCED,
        EventKind.LOCK_EXPIRED,
        EventKind.LOCK_REFUSED,
        EventKind.UNLOCKED,
        EventKind.FAULT,
    }
)
_SUCCESS_ORDERLY = frozenset({"SUCCESS", "COMMIT"})
_FAILED_AFTER_CONSUMED = frozenset({EventKind.SEND_BACK, EventKind.LOCAL_RETRY, EventKind.BROADCAST_DROPPED})


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant: which, about which message, when, and the events that led to it."""

    invariant: str
    msg_id: str | None
    time_ms: int
    detail: str
    trace: tuple[TraceEvent, ...] = ()

    def __str__(self) -> str:
        head = f"[{self.invariant}] t={self.time_ms} ms msg={self.msg_id or '-'}: {self.detail}"
        lines = [head]
        for e in self.trace:
            data = ", ".join(f"{k}={v}" for k, v in e.data.items())
            lines.append(f"    #{e.seq} {e.time_ms} ms {e.kind.value} {e.actor} {e.msg_id or ''} {data}".rstrip())
        return "\n".join(lines)


@dataclass(slots=True)
class InvariantReport:
    """What :func:`check_invariants` found: violations, plus counts per category."""

    violations: list[Violation] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    fates: dict[tuple[str, str], str] = field(default_factory=dict)
    """(audience, msg id) → ``consumed`` / ``dlq`` / ``broadcast_dropped`` / ``in_flight:<where>`` / ``lost``."""

    @property
    def ok(self) -> bool:
        """True when no invariant is broken."""
        return not self.violations

    def by_invariant(self) -> Counter[str]:
        """How many violations of each invariant."""
        return Counter(v.invariant for v in self.violations)

    def __str__(self) -> str:
        c = self.counts
        head = "invariants OK" if self.ok else f"invariants BROKEN: {len(self.violations)} violation(s)"
        lines = [
            head,
            f"  produced: {c['produced']} messages, {c['produced_copies']} stored copies"
            f" ({c['producer_duplicates']} producer duplicates)",
            f"  fates: consumed {c['consumed']}, dlq {c['dlq']}, broadcast_dropped {c['broadcast_dropped']},"
            f" in_flight {c['in_flight']}, lost {c['lost']}, unsubscribed {c['unsubscribed']}",
            f"  duplicates: {c['duplicate_consumptions']} duplicate consumptions,"
            f" {c['redeliveries']} redeliveries, {c['expiry_races']} expiry races",
            f"  offsets: {c['offset_commits']} broker commits, {c['offset_backward_allowed']} allowed moves back",
        ]
        in_flight = sorted((k, v) for k, v in c.items() if k.startswith("in_flight:"))
        if in_flight:
            lines.append("  in flight: " + ", ".join(f"{k.split(':', 1)[1]} {v}" for k, v in in_flight))
        for violation in self.violations[:20]:
            lines.append(str(violation))
        if len(self.violations) > 20:
            lines.append(f"  … and {len(self.violations) - 20} more")
        return "\n".join(lines)


# ---------------------------------------------------------------------- audiences
@dataclass(slots=True)
class _Audience:
    """Who must see a message: a CLUSTERING group (``group:cg``) or one BROADCASTING instance (``client:c1``)."""

    key: str
    group: str
    clustering: bool
    orderly: bool
    consumers: list[DefaultMQPushConsumer]
    subscriptions: dict[str, frozenset[str] | None]
    first_start_seq: int | None = None

    def wants(self, topic: str, tags: str | None) -> bool:
        if topic not in self.subscriptions:
            return False
        wanted = self.subscriptions[topic]
        return wanted is None or tags in wanted

    def topics(self) -> set[str]:
        return {*self.subscriptions, retry_topic(self.group)} if self.clustering else set(self.subscriptions)


def _audiences(lab: Lab) -> tuple[dict[str, _Audience], dict[str, _Audience]]:
    """Audiences by key, and the audience of each consumer actor (``consumer:<client id>``)."""
    by_key: dict[str, _Audience] = {}
    by_actor: dict[str, _Audience] = {}
    for consumer in lab.consumers.values():
        clustering = consumer.is_clustering
        key = f"group:{consumer.consumer_group}" if clustering else f"client:{consumer.client_id}"
        audience = by_key.get(key)
        if audience is None:
            audience = by_key[key] = _Audience(key, consumer.consumer_group, clustering, consumer.orderly, [], {})
        audience.consumers.append(consumer)
        audience.orderly = audience.orderly or consumer.orderly
        for topic, tags in consumer.subscriptions.items():
            if topic.startswith(RETRY_PREFIX):
                continue
            if topic in audience.subscriptions:
                old = audience.subscriptions[topic]
                audience.subscriptions[topic] = None if old is None or tags is None else old | tags
            else:
                audience.subscriptions[topic] = tags
        by_actor[consumer.actor] = audience
    return by_key, by_actor


# ---------------------------------------------------------------------- the checker
class _Checker:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self.events: tuple[TraceEvent, ...] = lab.trace.events
        self.report = InvariantReport()
        self.audiences, self.by_actor = _audiences(lab)
        self.by_msg: dict[str, list[TraceEvent]] = defaultdict(list)
        for e in self.events:
            if e.msg_id is not None:
                self.by_msg[e.msg_id].append(e)
        self.tags = self._tags_by_msg()
        self.seq_index = {e.seq: e for e in self.events}
        # replay events per group (seq numbers, sorted) — broker faults count for every group
        self.replay_seqs: dict[str, list[int]] = defaultdict(list)
        self.global_replay_seqs: list[int] = []
        self._index_replays()

    # ------------------------------------------------------------------ helpers
    def violate(self, invariant: str, msg_id: str | None, time_ms: int, detail: str, trace: Iterable[TraceEvent]):
        events = tuple(trace)[-MAX_TRACE_EVENTS:]
        self.report.violations.append(Violation(invariant, msg_id, time_ms, detail, events))

    def _tags_by_msg(self) -> dict[str, str | None]:
        tags: dict[str, str | None] = {}
        for broker in self.lab.brokers.values():
            for msg in broker.commit_log.live():
                tags.setdefault(msg.msg_id, msg.tags)
        return tags

    def _group_of(self, e: TraceEvent) -> str | None:
        group = e.data.get("group")
        if group is not None:
            return str(group)
        audience = self.by_actor.get(e.actor)
        return audience.group if audience else None

    def _index_replays(self) -> None:
        for e in self.events:
            if e.kind in _REPLAY_KINDS:
                if e.kind is EventKind.FAULT:
                    self.global_replay_seqs.append(e.seq)
                    continue
                group = self._group_of(e)
                if group is not None:
                    self.replay_seqs[group].append(e.seq)
            elif e.kind is EventKind.WARNING and "OFFSET_ILLEGAL" in str(e.data.get("message", "")):
                group = self._group_of(e)
                if group is not None:
                    self.replay_seqs[group].append(e.seq)

    def replay_since(self, group: str, time_ms: int, before_seq: int) -> bool:
        """Did a replay event of ``group`` (or a broker fault) happen at or after ``time_ms``, before a seq?"""
        for seqs in (self.replay_seqs.get(group, []), self.global_replay_seqs):
            for seq in reversed(seqs[: bisect.bisect_left(seqs, before_seq)]):
                if self.seq_index[seq].time_ms >= time_ms:
                    return True
                break
        return False

    def replay_between(self, group: str, after_seq: int, before_seq: int) -> bool:
        """Did a replay event of ``group`` (or a broker fault) happen strictly between two seqs?"""
        for seqs in (self.replay_seqs.get(group, []), self.global_replay_seqs):
            i = bisect.bisect_right(seqs, after_seq)
            if i < len(seqs) and seqs[i] < before_seq:
                return True
        return False

    # ------------------------------------------------------------------ 1. produced copies
    def produced(self) -> dict[str, list[TraceEvent]]:
        """Msg id → the STORED/SCHEDULED events that put a producer's copy on a business topic."""
        copies: dict[str, list[TraceEvent]] = {}
        for msg_id, events in self.by_msg.items():
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
                    self.violate(
                        "producer_duplicate",
                        msg_id,
                        found[-1].time_ms,
                        f"{len(found)} stored copies but only {unanswered} stored attempt(s) without SEND_OK "
                        f"and {app_sends} application send(s)",
                        events,
                    )
                self.report.counts["producer_duplicates"] += len(found) - 1
        return copies

    # ------------------------------------------------------------------ 2. deliveries and outcomes
    def outcomes(self) -> tuple[dict[tuple[str, str], list[TraceEvent]], dict[tuple[str, str], list[TraceEvent]]]:
        """(audience, msg) → successful CONSUMED events; and → explanations for extra copies."""
        successes: dict[tuple[str, str], list[TraceEvent]] = defaultdict(list)
        dup_sources: dict[tuple[str, str], list[TraceEvent]] = defaultdict(list)
        for msg_id, events in self.by_msg.items():
            last_delivery: dict[tuple[str, str, int], TraceEvent] = {}
            since: dict[tuple[str, str, int], list[TraceEvent]] = defaultdict(list)
            consumed_at: dict[str, int] = {}  # actor → index of its last CONSUMED
            for i, e in enumerate(events):
                audience = self.by_actor.get(e.actor)
                if e.kind in (EventKind.LOCAL_RETRY, EventKind.SUSPENDED) and audience is not None:
                    for key, seen in since.items():
                        if key[0] == audience.key:
                            seen.append(e)
                if e.kind is EventKind.DELIVERED and audience is not None:
                    key = (audience.key, str(e.data["queue"]), int(e.data["queue_offset"]))
                    previous = last_delivery.get(key)
                    if previous is not None:
                        self.report.counts["redeliveries"] += 1
                        explained = bool(since[key]) or self.replay_between(audience.group, previous.seq, e.seq)
                        if not explained and previous.actor != e.actor:
                            # two instances owned the queue at once: the overlap began with a membership
                            # change or fault up to one heartbeat + rebalance period before the first delivery
                            explained = self.replay_since(audience.group, previous.time_ms - OVERLAP_LOOKBACK_MS, e.seq)
                        if not explained:
                            self.violate(
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
                    if self._is_success(e, events, i, audience):
                        successes[(audience.key, msg_id)].append(e)
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

    def _is_success(self, e: TraceEvent, events: list[TraceEvent], i: int, audience: _Audience) -> bool:
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

    # ------------------------------------------------------------------ 3. accounting
    def where_in_flight(self, audience: _Audience) -> dict[str, str]:
        """Msg id → where a copy still waits for this audience (state, not trace)."""
        found: dict[str, str] = {}
        topics = audience.topics()
        for consumer in audience.consumers:
            if not consumer.running:
                continue
            for pq in consumer.process_queue_table.values():
                if pq.dropped:
                    continue
                for msg in (*pq.msg_tree_map.values(), *pq.consuming_msg_orderly_tree_map.values()):
                    found.setdefault(msg.msg_id, "process_queue")
        for name, broker in sorted(self.lab.brokers.items()):
            for (topic, qid), queue in sorted(broker.consume_queues.items()):
                if topic == SCHEDULE_TOPIC:
                    start = broker.schedule_service.offset_table.get(qid + 1, 0)
                    where = "scheduled"
                elif topic in topics:
                    start = self._committed(audience, MessageQueue(topic, name, qid))
                    where = "stored"
                else:
                    continue
                for entry in queue.entries[start:]:
                    msg = broker.commit_log.get(entry.commit_log_offset)
                    if msg is None:
                        continue
                    if where == "scheduled":
                        real = msg.properties.get(PROPERTY_REAL_TOPIC, "")
                        if real not in topics and real != dlq_topic(audience.group):
                            continue
                    found.setdefault(msg.msg_id, where)
        return found

    def _committed(self, audience: _Audience, mq: MessageQueue) -> int:
        if audience.clustering:
            return self.lab.brokers[mq.broker_name].consumer_offsets.get((audience.group, mq.topic, mq.queue_id), 0)
        client = audience.consumers[0].client_id
        return self.lab.local_offset_files.get((client, audience.group), {}).get(mq, 0)

    def account(self, copies: Mapping[str, list[TraceEvent]]) -> None:
        counts = self.report.counts
        self._outcomes = self.outcomes()
        successes, dup_sources = self._outcomes
        dlq: set[tuple[str, str]] = set()
        dropped: set[tuple[str, str]] = set()
        for e in self.events:
            if e.kind is EventKind.DEAD_LETTERED and e.msg_id is not None:
                dlq.add((f"group:{e.data['group']}", e.msg_id))
            elif e.kind is EventKind.BROADCAST_DROPPED and e.msg_id is not None:
                audience = self.by_actor.get(e.actor)
                if audience is not None:
                    dropped.add((audience.key, e.msg_id))
        delivered_to: set[tuple[str, str]] = set()
        for e in self.events:
            if e.kind is EventKind.DELIVERED and e.msg_id is not None and e.actor in self.by_actor:
                delivered_to.add((self.by_actor[e.actor].key, e.msg_id))
        starts = self._first_starts()
        in_flight = {key: self.where_in_flight(a) for key, a in sorted(self.audiences.items())}
        counts["produced"] = len(copies)
        counts["produced_copies"] = sum(len(v) for v in copies.values())
        for msg_id, stored in sorted(copies.items()):
            first = stored[0]
            topic = str(first.data.get("topic") if first.kind is EventKind.STORED else first.data["real_topic"])
            tags = self.tags.get(msg_id)
            audiences = [
                a
                for a in self.audiences.values()
                if a.wants(topic, tags)
                and (
                    a.clustering  # a young queue's new group starts at offset 0 (queryConsumerOffset)
                    or (a.key in starts and first.seq > starts[a.key])
                    or (a.key, msg_id) in delivered_to
                )
            ]
            if not audiences:
                counts["unsubscribed"] += 1
            for audience in sorted(audiences, key=lambda a: a.key):
                key = (audience.key, msg_id)
                wins = successes.get(key, [])
                if wins:
                    fate = "consumed"
                elif key in dlq:
                    fate = "dlq"
                elif key in dropped:
                    fate = "broadcast_dropped"
                elif msg_id in in_flight[audience.key]:
                    fate = "in_flight:" + in_flight[audience.key][msg_id]
                    counts["in_flight"] += 1
                else:
                    fate = "lost"
                    self.violate(
                        "accounted",
                        msg_id,
                        self.lab.now,
                        f"produced to {topic} but neither consumed, dead-lettered, dropped nor in flight "
                        f"for {audience.key}",
                        self.by_msg[msg_id],
                    )
                self.report.fates[key] = fate
                counts[fate] += 1
                extra = len(wins) - 1 + (1 if wins and key in dlq else 0)
                if extra > 0:
                    counts["duplicate_consumptions"] += extra
                    explained = len(stored) > 1 or bool(dup_sources.get(key))
                    if not explained:
                        self.violate(
                            "duplicate",
                            msg_id,
                            wins[-1].time_ms,
                            f"consumed {len(wins)} time(s){' and dead-lettered' if key in dlq else ''} by "
                            f"{audience.key} with no producer duplicate, replay, cleanExpiredMsg or lost "
                            "send-back response to explain it",
                            self.by_msg[msg_id],
                        )

    def _first_starts(self) -> dict[str, int]:
        starts: dict[str, int] = {}
        for e in self.events:
            if e.kind is EventKind.LIFECYCLE and e.data.get("event") == "start":
                audience = self.by_actor.get(e.actor)
                if audience is not None:
                    starts.setdefault(audience.key, e.seq)
        return starts

    # ------------------------------------------------------------------ 4. offsets
    def offsets(self) -> None:
        last: dict[tuple[str, str], TraceEvent] = {}
        illegal: dict[tuple[str, str], int] = {}  # (actor, queue) → seq of its OFFSET_ILLEGAL warning
        history: dict[tuple[str, str], list[TraceEvent]] = defaultdict(list)
        for e in self.events:
            if e.kind is EventKind.WARNING and str(e.data.get("message", "")).startswith("OFFSET_ILLEGAL on "):
                queue = str(e.data["message"]).split()[2].rstrip(";")
                illegal[(e.actor, queue)] = e.seq
                continue
            if e.kind is not EventKind.OFFSET_PERSISTED or e.data.get("store") != "broker":
                continue
            key = (str(e.data["group"]), str(e.data["queue"]))
            history[key].append(e)
            self.report.counts["offset_commits"] += 1
            previous = last.get(key)
            last[key] = e
            if previous is None or int(e.data["offset"]) >= int(previous.data["offset"]):
                continue
            if previous.actor != e.actor:
                self.report.counts["offset_backward_allowed"] += 1  # handover between two instances
                continue
            fixed = illegal.get((e.actor, key[1]))
            if fixed is not None and fixed > previous.seq:
                self.report.counts["offset_backward_allowed"] += 1  # OFFSET_ILLEGAL fix-up
                continue
            self.violate(
                "offset_monotonic",
                None,
                e.time_ms,
                f"{e.actor} moved the committed offset of {key[0]} on {key[1]} back from "
                f"{previous.data['offset']} to {e.data['offset']}",
                history[key],
            )

    # ------------------------------------------------------------------ 5. locks and orderly order
    def locks_and_order(self) -> None:
        holders: dict[tuple[str, str], tuple[str, int]] = {}  # (group, queue) → (client actor, last renewal)
        lock_events: dict[tuple[str, str], list[TraceEvent]] = defaultdict(list)
        delivered_under_lock: dict[tuple[str, str], bool] = {}
        for e in self.events:
            kind = e.kind
            if kind in (EventKind.LOCK_ACQUIRED, EventKind.LOCK_RENEWED, EventKind.UNLOCKED, EventKind.LOCK_EXPIRED):
                key = (str(e.data["group"]), str(e.data["queue"]))
                lock_events[key].append(e)
                held = holders.get(key)
                live = held is not None and e.time_ms - held[1] <= BROKER_LOCK_MAX_LIVE_TIME_MS
                if kind is EventKind.LOCK_EXPIRED:
                    previous = "consumer:" + str(e.data["previous_holder"])
                    if live and held is not None and held[0] == previous:
                        self.violate(
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
                        self.violate(
                            "single_lock_holder",
                            None,
                            e.time_ms,
                            f"{e.actor} got the lock of {key[1]} while {held[0]} held it "
                            f"(renewed {e.time_ms - held[1]} ms ago)",
                            lock_events[key],
                        )
                    holders[key] = (e.actor, e.time_ms)
            elif kind in (EventKind.DELIVERED, EventKind.CONSUMED):
                audience = self.by_actor.get(e.actor)
                if audience is None or not audience.orderly or not audience.clustering:
                    continue
                key = (audience.group, str(e.data["queue"]))
                held = holders.get(key)
                live = held is not None and held[0] == e.actor and e.time_ms - held[1] <= BROKER_LOCK_MAX_LIVE_TIME_MS
                if kind is EventKind.DELIVERED:
                    delivered_under_lock[(e.actor, str(e.msg_id))] = live
                    if not live:
                        self.violate(
                            "consume_under_lock",
                            e.msg_id,
                            e.time_ms,
                            f"{e.actor} started consuming {key[1]} without a live broker lock "
                            f"(holder: {held[0] if held else 'none'})",
                            [*lock_events[key], e],
                        )
                elif not live and delivered_under_lock.get((e.actor, str(e.msg_id))):
                    self.report.counts["expiry_races"] += 1

    def orderly_order(self, successes: Mapping[tuple[str, str], list[TraceEvent]]) -> None:
        """Within an orderly audience's queue, success at offset k needs every earlier wanted offset finished."""
        finished_at: dict[tuple[str, str, int], int] = {}  # (audience, queue, offset) → seq it finished
        for (audience_key, _), wins in successes.items():
            for e in wins:
                k = (audience_key, str(e.data["queue"]), int(e.data["queue_offset"]))
                finished_at[k] = min(finished_at.get(k, e.seq), e.seq)
        deliveries: dict[tuple[str, str], int] = {}
        for e in self.events:
            audience = self.by_actor.get(e.actor)
            if audience is None or not audience.orderly:
                continue
            if e.kind is EventKind.DELIVERED:
                q = (audience.key, str(e.data["queue"]))
                deliveries[q] = min(deliveries.get(q, int(e.data["queue_offset"])), int(e.data["queue_offset"]))
            elif e.kind is EventKind.SEND_BACK and e.data.get("ok") and e.msg_id is not None:
                for x in reversed(self.by_msg[e.msg_id][: self.by_msg[e.msg_id].index(e)]):
                    if x.kind is EventKind.CONSUMED and x.actor == e.actor:
                        k = (audience.key, str(x.data["queue"]), int(x.data["queue_offset"]))
                        finished_at[k] = min(finished_at.get(k, e.seq), e.seq)
                        break
        for (audience_key, queue), first in sorted(deliveries.items()):
            audience = self.audiences[audience_key]
            mq = MessageQueue.parse(queue)
            broker = self.lab.brokers.get(mq.broker_name)
            cq = broker.consume_queues.get((mq.topic, mq.queue_id)) if broker else None
            if broker is None or cq is None:
                continue
            wanted: list[int] = []
            for offset in range(first, cq.max_offset):
                msg = broker.commit_log.get(cq.entries[offset].commit_log_offset)
                if msg is None:
                    continue
                if mq.topic.startswith("%") or audience.wants(mq.topic, msg.tags):
                    wanted.append(offset)
            latest = 0  # the latest finish among earlier offsets; None once one of them never finished
            blocker: int | None = None
            for offset in wanted:
                done = finished_at.get((audience_key, queue, offset))
                if done is not None and (blocker is not None or done < latest):
                    event = self.seq_index[done]
                    self.violate(
                        "orderly_queue_order",
                        event.msg_id,
                        event.time_ms,
                        f"{audience_key} finished {queue} offset {offset} before an earlier offset"
                        + (f" ({blocker}, never finished)" if blocker is not None else ""),
                        self.by_msg.get(str(event.msg_id), []),
                    )
                    break
                if done is None:
                    blocker = offset if blocker is None else blocker
                else:
                    latest = max(latest, done)

    def run(self) -> InvariantReport:
        copies = self.produced()
        self.account(copies)
        self.offsets()
        self.locks_and_order()
        self.orderly_order(self._outcomes[0])
        return self.report


def check_invariants(lab: Lab) -> InvariantReport:
    """Check every invariant of this module against ``lab``'s trace and state; changes nothing.

    Needs a lab built with ``trace=True`` (the default): with counters only there is nothing to read.
    """
    if not lab.trace.enabled:
        raise ConfigError("trace", False, "a Lab(trace=True): the invariant checker reads the trace")
    return _Checker(lab).run()
