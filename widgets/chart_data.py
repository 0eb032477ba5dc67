"""What the whole-run charts show, as plain data computed from a run's trace (no plotly here).

A step view answers "what happens now"; some questions are about the whole run: how far behind a consumer group
fell and when it caught up, how many times each message was delivered, how long a poison message takes to reach
the DLQ as ``maxReconsumeTimes`` grows, what a storm of faults did to the flow. Each function below reads an
engine :class:`~rmqlab.Trace` (or runs the engine) and returns frozen dataclasses of exact virtual times and
counts, which tests assert on and :mod:`widgets.charts` draws.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from rmqlab import EventKind, Lab, MessageQueue, Trace, TraceEvent, parse_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

__all__ = [
    "SUCCESS_STATUSES",
    "DeliveryCount",
    "DlqPoint",
    "LagPoint",
    "LagSeries",
    "Marker",
    "SummarySeries",
    "consumer_groups",
    "consumer_lag",
    "deliveries_per_message",
    "run_markers",
    "run_summary",
    "time_to_dlq",
]

SUCCESS_STATUSES = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})
"""Listener results after which a message counts as consumed (concurrent; orderly; orderly's deprecated COMMIT)."""
CHUNK_MS = 600_000
""":func:`time_to_dlq` runs the engine 10 virtual minutes at a time and stops once the message is dead-lettered."""
SYSTEM_PREFIXES = ("%RETRY%", "%DLQ%", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_")


def _end_ms(trace: Trace, until_ms: int | None) -> int:
    last = trace[len(trace) - 1].time_ms if len(trace) else 0
    return last if until_ms is None else max(until_ms, last)


def consumer_groups(trace: Trace) -> dict[str, tuple[str, str]]:
    """Consumer actor (``consumer:c1``) → (group, message model), from their ``lifecycle`` start events."""
    found: dict[str, tuple[str, str]] = {}
    for e in trace.of_kind(EventKind.LIFECYCLE):
        if e.get("event") == "start" and e.get("group"):
            found[e.actor] = (str(e.get("group")), str(e.get("message_model", "CLUSTERING")))
    return found


# ------------------------------------------------------------------ consumer lag


@dataclass(frozen=True)
class LagPoint:
    """One queue at one virtual time: its max offset and the group's two copies of the committed offset."""

    time_ms: int
    max_offset: int
    """``getMaxOffsetInQueue``: the ConsumeQueue's next offset (messages stored so far)."""
    committed: int
    """The offset the broker holds for the group (``ConsumerOffsetManager``; 0 before any), or, in BROADCASTING,
    the one the instance persisted to its local offset file."""
    client: int
    """The client's in-memory committed offset (``OffsetStore.updateOffset``: the ProcessQueue low-water mark)."""

    @property
    def lag(self) -> int:
        """``ConsumeStats``: brokerOffset − consumerOffset, what ``mqadmin consumerProgress`` calls Diff."""
        return self.max_offset - self.committed

    @property
    def client_lag(self) -> int:
        """The same difference against the client's own copy: what a crash right now would not re-deliver."""
        return self.max_offset - self.client


@dataclass(frozen=True)
class LagSeries:
    """The lag of one group (one instance in BROADCASTING) on one queue, a point at each change."""

    owner: str
    queue: str
    points: tuple[LagPoint, ...]


def consumer_lag(trace: Trace, *, until_ms: int | None = None) -> list[LagSeries]:
    """Consumer lag per group and queue over the run, as ``AdminBrokerProcessor.getConsumeStats`` computes it:
    the queue's max offset minus the group's stored offset (``consumerOffset < 0`` counts as 0).

    Queues: every queue of every topic the group has committed an offset on (``whichTopicByConsumer``), as far
    as the trace knows them (stored into or committed). A point is added whenever the max offset or either copy
    of the offset changes, and one at ``until_ms`` (default: the last event) so each line reaches the run's end.
    """
    groups = consumer_groups(trace)

    def owner_of(e: TraceEvent) -> str:
        group, model = groups.get(e.actor, (str(e.get("group", e.actor)), "CLUSTERING"))
        return f"{group} / {e.actor.removeprefix('consumer:')}" if model == "BROADCASTING" else group

    topics_of: dict[str, set[str]] = {}
    for e in trace:
        if e.kind in (EventKind.OFFSET_UPDATED, EventKind.OFFSET_PERSISTED):
            topics_of.setdefault(owner_of(e), set()).add(str(e.get("queue")).split("@", 1)[0])
    max_offset: dict[str, int] = {}
    committed: dict[tuple[str, str], int] = {}
    client: dict[tuple[str, str], int] = {}
    queues: dict[str, set[str]] = {owner: set() for owner in topics_of}
    points: dict[tuple[str, str], list[LagPoint]] = {}

    def record(time_ms: int, owner: str, queue: str, *, end: bool = False) -> None:
        key = (owner, queue)
        point = LagPoint(time_ms, max_offset.get(queue, 0), committed.get(key, 0), client.get(key, 0))
        series = points.setdefault(key, [])
        if series and series[-1].time_ms == time_ms:
            series[-1] = point  # the last state at one millisecond
        elif end or not series or (series[-1].max_offset, series[-1].committed, series[-1].client) != (
            point.max_offset, point.committed, point.client
        ):  # fmt: skip
            series.append(point)

    for e in trace:
        if e.kind == EventKind.STORED:
            queue = str(MessageQueue(e.get("topic"), e.actor, int(e.get("queue_id"))))
            max_offset[queue] = max(max_offset.get(queue, 0), int(e.get("queue_offset")) + 1)
            for owner, topics in topics_of.items():
                if e.get("topic") in topics:
                    queues[owner].add(queue)
                    record(e.time_ms, owner, queue)
        elif e.kind in (EventKind.OFFSET_UPDATED, EventKind.OFFSET_PERSISTED):
            owner, queue = owner_of(e), str(e.get("queue"))
            queues[owner].add(queue)
            table = client if e.kind == EventKind.OFFSET_UPDATED else committed
            table[(owner, queue)] = int(e.get("offset"))
            record(e.time_ms, owner, queue)
    end = _end_ms(trace, until_ms)
    for owner in sorted(queues):
        for queue in queues[owner]:
            record(end, owner, queue, end=True)
    return [LagSeries(owner, queue, tuple(points[(owner, queue)])) for owner, queue in sorted(points)]


# ------------------------------------------------------------------ deliveries per message


@dataclass(frozen=True)
class DeliveryCount:
    """How often one group's listeners were handed one message, and how it ended for that group."""

    msg_id: str
    group: str
    deliveries: int
    outcome: str
    """``consumed``, ``dead-lettered``, ``dropped`` (BROADCASTING gives up on a failure), ``in flight`` (delivered,
    not finished) or ``waiting`` (never delivered)."""
    label: str
    """What to call it on a chart: the message id, or the caller's label for it (e.g. its body)."""


def deliveries_per_message(trace: Trace, *, labels: Mapping[str, str] | None = None) -> list[DeliveryCount]:
    """Deliveries per (message, group), in the order the messages were stored; ``labels`` names messages
    (id → text). A message stored into a topic a group consumes from but never handed to it counts 0, ``waiting``
    (stuck behind a blocked orderly queue, say)."""
    groups = consumer_groups(trace)
    count: Counter[tuple[str, str]] = Counter()
    outcome: dict[tuple[str, str], str] = {}
    topics_of: dict[str, set[str]] = {}
    for e in trace.of_kind(EventKind.DELIVERED):
        topics_of.setdefault(str(e.get("group")), set()).add(str(e.get("topic")))
    for e in trace:
        if e.kind == EventKind.STORED and e.msg_id is not None and int(e.get("reconsume_times", 0)) == 0:
            for group, topics in sorted(topics_of.items()):
                if e.get("topic") in topics:
                    count[(e.msg_id, group)] += 0
                    outcome.setdefault((e.msg_id, group), "waiting")
        if e.msg_id is None:
            continue
        group = str(e.get("group") or groups.get(e.actor, ("?", ""))[0])
        key = (e.msg_id, group)
        if e.kind == EventKind.DELIVERED:
            count[key] += 1
            if outcome.get(key, "waiting") == "waiting":
                outcome[key] = "in flight"
        elif e.kind == EventKind.CONSUMED and e.get("status") in SUCCESS_STATUSES and key in outcome:
            outcome[key] = "consumed"
        elif e.kind == EventKind.DEAD_LETTERED:
            outcome[key] = "dead-lettered"
        elif e.kind == EventKind.BROADCAST_DROPPED and key in outcome:
            outcome[key] = "dropped"
    names = labels or {}
    return [DeliveryCount(m, g, n, outcome[(m, g)], names.get(m, m)) for (m, g), n in count.items()]


# ------------------------------------------------------------------ time to DLQ


@dataclass(frozen=True)
class DlqPoint:
    """One run with one ``maxReconsumeTimes``: when the message reached ``%DLQ%`` and after how many deliveries."""

    max_reconsume_times: int
    deliveries: int
    """Deliveries of the message before it was dead-lettered (all of them if it never was)."""
    dlq_ms: int | None
    """Virtual time of its ``dead_lettered`` event; None if it was still retrying at the horizon."""
    reconsume_times: int | None
    """The ``reconsumeTimes`` the DLQ copy carries."""


def time_to_dlq(
    make_lab: Callable[..., Lab],
    values: Iterable[int],
    *,
    until: int | str = "1d",
    knob: str = "max_reconsume_times",
    msg_id: str | None = None,
) -> list[DlqPoint]:
    """Run ``make_lab(**{knob: v})`` to ``until`` for each ``v`` in ``values``, and report when the message
    (``msg_id``, default: the first one dead-lettered, else the first delivered) reached the DLQ."""
    chosen = list(values)
    if not chosen or not all(isinstance(v, int) and not isinstance(v, bool) for v in chosen):
        raise ValueError(f"values={chosen!r}: must be a non-empty list of ints (max reconsume times to try)")
    horizon = parse_duration(until, "until")
    out = []
    for value in chosen:
        lab = make_lab(**{knob: value})
        dead: list[TraceEvent] = []
        while not dead and lab.now < horizon:  # stop at the DLQ: the periodic timers cost time, not the retries
            lab.run(until=min(lab.now + CHUNK_MS, horizon))
            dead = [e for e in lab.trace.of_kind(EventKind.DEAD_LETTERED) if msg_id in (None, e.msg_id)]
        delivered = lab.trace.of_kind(EventKind.DELIVERED)
        target = msg_id or (dead[0].msg_id if dead else (delivered[0].msg_id if delivered else None))
        first = next((e for e in dead if e.msg_id == target), None)
        n = len([e for e in delivered if e.msg_id == target and (first is None or e.seq < first.seq)])
        rt = None if first is None else int(first.get("reconsume_times"))
        out.append(DlqPoint(value, n, None if first is None else first.time_ms, rt))
    return out


# ------------------------------------------------------------------ run summary (storms, capstone)


@dataclass(frozen=True)
class SummarySeries:
    """A cumulative count over the run: ``(time_ms, total so far)`` at each change, and at the run's end."""

    name: str
    points: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Marker:
    """Something that happened to the system (an injected fault, a consumer crash or restart), for a rule."""

    time_ms: int
    label: str


SUMMARY_KINDS: tuple[tuple[str, Callable[[TraceEvent], bool]], ...] = (
    (N_("new messages stored"), lambda e: e.kind == EventKind.STORED
        and not str(e.get("topic", "")).startswith(SYSTEM_PREFIXES) and int(e.get("reconsume_times", 0)) == 0),
    (N_("deliveries"), lambda e: e.kind == EventKind.DELIVERED),
    (N_("consumed"), lambda e: e.kind == EventKind.CONSUMED and e.get("status") in SUCCESS_STATUSES),
    (N_("failed deliveries"), lambda e: e.kind == EventKind.CONSUMED and e.get("status") not in SUCCESS_STATUSES),
    (N_("dead-lettered"), lambda e: e.kind == EventKind.DEAD_LETTERED),
    (N_("send failures"), lambda e: e.kind == EventKind.SEND_FAILED),
)  # fmt: skip
"""What :func:`run_summary` counts, by name: the flow in, through the listeners, and out to the DLQ (the names stay
English here, keys a test or a caller may use; :mod:`widgets.charts` shows them translated)."""


def run_summary(trace: Trace, *, until_ms: int | None = None, keep_empty: bool = False) -> list[SummarySeries]:
    """Cumulative counts of :data:`SUMMARY_KINDS` over the run (series that stay 0 left out unless
    ``keep_empty``)."""
    totals = {name: 0 for name, _ in SUMMARY_KINDS}
    points: dict[str, list[tuple[int, int]]] = {name: [(0, 0)] for name, _ in SUMMARY_KINDS}
    for e in trace:
        for name, matches in SUMMARY_KINDS:
            if matches(e):
                totals[name] += 1
                series = points[name]
                if series[-1][0] == e.time_ms:
                    series[-1] = (e.time_ms, totals[name])
                else:
                    series.append((e.time_ms, totals[name]))
    end = _end_ms(trace, until_ms)
    return [
        SummarySeries(name, tuple(points[name] if points[name][-1][0] == end else [*points[name], (end, totals[name])]))
        for name, _ in SUMMARY_KINDS
        if totals[name] or keep_empty
    ]


def run_markers(trace: Trace) -> list[Marker]:
    """Injected faults and consumer crashes, shutdowns and restarts, in time order. The labels are in the current
    language (:func:`rmqlab.set_language`); a fault's name and its target are identifiers, kept as they are."""
    out: list[Marker] = []
    started: set[str] = set()
    for e in trace.of_kind(EventKind.FAULT, EventKind.LIFECYCLE):
        who = e.actor.removeprefix("consumer:").removeprefix("producer:")
        if e.kind == EventKind.FAULT:
            target = e.get("target")
            out.append(Marker(e.time_ms, f"{e.get('fault')} {target or who}"))
        elif e.get("event") == "start":
            if e.actor in started:
                out.append(Marker(e.time_ms, _("{client} restarts").format(client=who)))
            started.add(e.actor)
        elif e.get("event") == "crash":
            out.append(Marker(e.time_ms, _("{client} crash").format(client=who)))
        elif e.get("event") == "shutdown":
            out.append(Marker(e.time_ms, _("{client} shutdown").format(client=who)))
    return out
