"""The message-flow view: every message is a token, drawn where the engine holds it right now.

The picture reads left to right, as a message travels::

    producers │ broker lanes, one column per broker        │ consumer instances │ outcome
              │   business topic queues   ── pull ──────►  │  ProcessQueues     │ consumed · cg
      send ──►│   SCHEDULE_TOPIC_XXXX     ◄── send back ── │  (one box per      │ dropped · cg
              │   %RETRY%<group> queues   ── pull ──────►  │   assigned queue)  │
              │   %DLQ%<group>            ◄── dead letter ─│                    │

**One token per message per consumer group** (per *instance* in BROADCASTING, where every instance
consumes every message on its own). Its key is ``msg:<owner>:<msg id>``. The msg id is the producer's
``UNIQ_KEY``, which RocketMQ keeps on every copy (the ``%RETRY%`` copy, the ``SCHEDULE_TOPIC_XXXX``
copy, the ``%DLQ%`` copy all carry it; the copies differ in topic and queue offset). So the *same*
key names the logical message wherever its live copy is, and the token travels queue → ProcessQueue →
delay slot → ``%RETRY%`` → ProcessQueue → … → ``%DLQ%`` instead of vanishing and reappearing. A
message no group subscribes to has owner ``""`` (key ``msg::<id>``).

Where a token is, for its owner, from the snapshot's *state* (first match wins, so a copy that is
briefly in two places — the broker stores the retry copy before the consumer hears the answer — is
drawn once, at the most advanced live place):

1. in a live ProcessQueue of an instance of the owner (``pulled``, or ``consuming`` while a listener runs);
2. stored in a business or ``%RETRY%`` ConsumeQueue offset not yet pulled (``stored``);
3. waiting in a ``SCHEDULE_TOPIC_XXXX`` level (``delayed``, with "due in …" from ``now`` and the due time);
4. in ``%DLQ%<group>`` (``dead``);
5. ``dropped``: a BROADCASTING failure, or a send-back the broker answered SUCCESS without storing a
   copy (``retryQueueNums`` 0) — drawn dashed and crossed in the owner's "dropped" tray, never as consumed;
6. ``done``: consumed (every copy acked), faded in the owner's "consumed" tray;
7. at its producer: ``sending`` (attempts under way, nothing stored yet) or ``send failed``.

Colours come from :func:`widgets.palette.token_colour` of the message id or, in an ordered lab (an
orderly consumer runs), of the message's sharding key, the ``KEYS`` its stored copy carries, so every
message of one order shares a colour. Views read only the snapshot and its trace, never engine objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from rmqlab import EventKind, TimerKind, TraceEvent, format_duration
from rmqlab.common.message import DLQ_PREFIX, RETRY_PREFIX
from rmqlab.snapshot import ConsumeQueueSnap, ConsumerSnap, LabSnapshot, OffsetState

from .palette import token_colour
from .scene import Mark, Scene, SceneView, legend_marks, text_width

__all__ = [
    "FlowVM",
    "FlowView",
    "Place",
    "PlaceKind",
    "TokenState",
    "TokenVM",
    "countdown",
    "flow_scene",
    "flow_text",
    "flow_view_model",
    "tokens_by_place",
]

PlaceKind = Literal["producer", "send_failed", "business", "delay", "retry", "dlq", "process_queue", "done", "dropped"]
TokenState = Literal["sending", "send_failed", "stored", "pulled", "consuming", "delayed", "dead", "done", "dropped"]

_SUCCESS = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})
_PRIORITY: dict[str, int] = {
    "pulled": 0,
    "consuming": 0,
    "stored": 1,
    "delayed": 2,
    "dead": 3,
    "dropped": 4,
    "done": 5,
    "sending": 6,
    "send_failed": 6,
}
"""Which place wins when a message's owner has several copies (lower first, see the module docstring)."""


@dataclass(frozen=True, slots=True)
class Place:
    """Somewhere a token can be: a queue, a delay level, a ProcessQueue, a tray.

    ``key`` is stable across frames (``queue:<TOPIC@BROKER:QID>``, ``delay:<broker>:<level>``,
    ``pq:<client>:<queue>``, ``done:<owner>``, ``dropped:<owner>``, ``producer:<name>``,
    ``failed:<name>``); ``column`` is ``producers`` / ``broker:<name>`` / ``consumers`` / ``outcome``.
    """

    key: str
    kind: PlaceKind
    label: str
    column: str
    owner: str = ""
    """The consumer instance of a ProcessQueue, the owner of a tray, the producer of a producer place."""
    note: str = ""
    """A short second line: ``not in route`` (a queue the route does not list), what a ProcessQueue waits for
    (``suspended · again in 0.8 s``, ``local retry in 4.2 s``), why a tray's messages were dropped."""


@dataclass(frozen=True, slots=True)
class TokenVM:
    """One logical message for one owner, and where it is now."""

    key: str
    msg_id: str
    owner: str
    place: str
    state: TokenState
    reconsume_times: int
    colour: str
    colour_by: str
    """What picked the colour: the sharding key (``KEYS``) in an ordered lab, else the msg id."""
    offset: int | None = None
    """Queue offset of the copy in its place (None in trays and at the producer)."""
    due_ms: int | None = None
    countdown: str = ""
    """``due in 7.3 s`` for a delayed token (from the snapshot's ``now`` and the due time), else ``""``."""
    why: str = ""
    """For a dropped token: why RocketMQ dropped it (BROADCASTING failure, or a send-back that stored nothing)."""


@dataclass(frozen=True, slots=True)
class ConsumerVM:
    """One consumer instance (client id) and what its box says."""

    client_id: str
    group: str
    running: bool
    detail: str
    """``CLUSTERING · concurrently`` / ``BROADCASTING`` / ``orderly`` …, or ``crashed`` / ``shut down``."""


@dataclass(frozen=True, slots=True)
class FlowVM:
    """Everything the flow picture shows at one controller position (a pure function of the snapshot)."""

    now_ms: int
    position: int
    brokers: tuple[tuple[str, bool], ...]
    """(broker name, up)."""
    producers: tuple[str, ...]
    consumers: tuple[ConsumerVM, ...]
    places: tuple[Place, ...]
    tokens: tuple[TokenVM, ...]
    ordered: bool = False
    """An orderly consumer runs: tokens are coloured by sharding key (``KEYS``)."""
    colour_note: str = "colour = message id"
    owners: tuple[str, ...] = field(default=())
    focus: str = ""
    """The message the latest event is about (the controller's caption): its tokens get a halo."""
    retry_paths: bool = True
    """Draw the send-back, retry-pull and dead-letter arrows: False when every consumer is BROADCASTING, which
    drops a failed message instead (ConsumeMessageConcurrentlyService.processConsumeResult) and uses none of them."""

    def place(self, key: str) -> Place:
        """The place with this key (KeyError names a few known ones)."""
        for p in self.places:
            if p.key == key:
                return p
        raise KeyError(f"no place {key!r}; have {[p.key for p in self.places][:10]}")

    def token(self, msg_id: str, owner: str | None = None) -> TokenVM:
        """The token of ``msg_id`` (for ``owner``, when several groups see the message)."""
        found = [t for t in self.tokens if t.msg_id == msg_id and (owner is None or t.owner == owner)]
        if len(found) != 1:
            raise KeyError(f"{len(found)} tokens for {msg_id!r} owner={owner!r}; have {[t.key for t in self.tokens]}")
        return found[0]

    def tokens_at(self, place: str) -> tuple[TokenVM, ...]:
        """The tokens in one place, in drawing order."""
        return tuple(t for t in self.tokens if t.place == place)

    def counts(self) -> dict[str, int]:
        """Tokens per state (only states that have any)."""
        out: dict[str, int] = {}
        for t in self.tokens:
            out[t.state] = out.get(t.state, 0) + 1
        return dict(sorted(out.items()))


def countdown(ms: int) -> str:
    """``due in 10 s`` / ``due in 7.3 s`` / ``due in 2 m 5 s`` / ``due now``: what a delay slot shows."""
    if ms <= 0:
        return "due now"
    if ms < 60_000:
        text = f"{ms / 1000:.1f}"
        return f"due in {text[:-2] if text.endswith('.0') else text} s"
    return f"due in {format_duration(ms)}"


# --------------------------------------------------------------------------- facts from the trace
@dataclass(slots=True)
class _Facts:
    """What the trace says that the state does not: who sent what, which copy has which reconsume count."""

    sent_topic: dict[str, tuple[str, str]] = field(default_factory=dict)
    """msg id → (producer name, topic) of its first send attempt."""
    stored: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    delivered_rt: dict[tuple[str, str], int] = field(default_factory=dict)
    """(client id, msg id) → reconsume times of the client's copy (last delivery, suspend or local retry)."""
    delivered_at: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)
    """(client id, msg id) → (queue, offset) of the last delivery."""
    broadcast_dropped: set[str] = field(default_factory=set)
    last_rt: dict[str, int] = field(default_factory=dict)
    """msg id → reconsume times of its last delivery (any client)."""
    outcome: dict[tuple[str, str], str] = field(default_factory=dict)
    """(client id, msg id) → ``done`` / ``dropped`` / ``failed`` after the last delivery (BROADCASTING)."""


def _facts(events: Iterable[TraceEvent]) -> _Facts:
    """One pass over the trace. A TraceEvent is a tuple ``(seq, time, kind, actor, msg id, details)``;
    unpacking it (instead of the named properties) keeps this pass to a few ms at 6,000 events."""
    f = _Facts()
    sent_topic, stored, delivered_rt, delivered_at, outcome = (
        f.sent_topic,
        f.stored,
        f.delivered_rt,
        f.delivered_at,
        f.outcome,
    )
    for event in events:
        kind, actor, msg, data = event.kind, event.actor, event.msg_id, event.details
        if msg is None or kind not in _FACT_KINDS:
            continue
        if kind is EventKind.STORED or kind is EventKind.SCHEDULED:
            stored.add(msg)
            continue
        client = actor.split(":", 1)[-1]
        if kind is EventKind.DELIVERED:
            delivered_rt[(client, msg)] = f.last_rt[msg] = data.get("reconsume_times", 0)
            delivered_at[(client, msg)] = (data["queue"], data["queue_offset"])
            outcome.pop((client, msg), None)
        elif kind is EventKind.CONSUMED:
            outcome[(client, msg)] = "done" if data.get("status") in _SUCCESS else "failed"
        elif kind is EventKind.SEND_ATTEMPT:
            if msg not in sent_topic:
                sent_topic[msg] = (client, data["topic"])
        elif kind is EventKind.SEND_FAILED:
            f.failed.add(msg)
        elif kind is EventKind.BROADCAST_DROPPED:
            outcome[(client, msg)] = "dropped"
            f.broadcast_dropped.add(msg)
        else:  # SUSPENDED, LOCAL_RETRY: the client raised the copy's reconsumeTimes and keeps it in the ProcessQueue
            delivered_rt[(client, msg)] = data.get("reconsume_times", 0)
    return f


_FACT_KINDS = frozenset(
    {
        EventKind.SEND_ATTEMPT,
        EventKind.STORED,
        EventKind.SCHEDULED,
        EventKind.SEND_FAILED,
        EventKind.DELIVERED,
        EventKind.SUSPENDED,
        EventKind.LOCAL_RETRY,
        EventKind.CONSUMED,
        EventKind.BROADCAST_DROPPED,
    }
)
"""The event kinds :func:`_facts` reads; every other event is skipped with one set lookup."""


# --------------------------------------------------------------------------- the view-model
def _owner_of(c: ConsumerSnap) -> str:
    return c.client_id if c.message_model == "BROADCASTING" else c.group


def _queue_label(q: ConsumeQueueSnap, many_brokers: bool) -> str:
    label = f"{q.topic}:{q.queue_id}"
    return f"{label} · {q.broker}" if many_brokers else label


def flow_view_model(snap: LabSnapshot) -> FlowVM:
    """Where every message is for every owner at ``snap`` (see the module docstring for the rules)."""
    facts = _facts(snap.events)
    now = snap.now_ms
    many_brokers = len(snap.brokers) > 1
    ordered = any(c.orderly for c in snap.consumers)
    colour_key: dict[str, str] = {}
    parked: dict[tuple[str, int, str], tuple[str, int]] = {}
    """(broker, level, msg id) → (real topic, reconsume times) of the copy parked in SCHEDULE_TOPIC_XXXX."""
    for q in snap.queues:
        if q.kind == "schedule":
            for cell in q.cells:
                if cell.msg_id is not None:
                    parked[(q.broker, q.queue_id + 1, cell.msg_id)] = (cell.real_topic or "", cell.reconsume_times)
        if ordered:
            for cell in q.cells:
                if cell.keys and cell.msg_id is not None and cell.msg_id not in colour_key:
                    colour_key[cell.msg_id] = cell.keys
    broadcasting = {c.client_id for c in snap.consumers if c.message_model == "BROADCASTING"}

    owners_of_topic: dict[str, list[str]] = {}
    for c in snap.consumers:
        for topic in c.subscriptions:
            owners = owners_of_topic.setdefault(topic, [])
            if _owner_of(c) not in owners:
                owners.append(_owner_of(c))
    client_offsets = {(c.client_id, queue): off for c in snap.consumers for queue, off in c.offset_store}
    queues_by_name = {q.name: q for q in snap.queues}

    places: list[Place] = [
        Place(f"producer:{name}", "producer", name, "producers", owner=name) for name, _ in snap.producers
    ]
    for q in snap.queues:
        if q.kind in ("business", "retry", "dlq"):
            note = "" if q.listed else "not in route"
            kind: PlaceKind = "retry" if q.kind == "retry" else "dlq" if q.kind == "dlq" else "business"
            places.append(Place("queue:" + q.name, kind, _queue_label(q, False), f"broker:{q.broker}", note=note))
    for b in snap.brokers:
        for level in b.schedule:
            if level.pending:
                label = f"level {level.level} · {format_duration(level.delay_ms)}"
                places.append(Place(f"delay:{b.name}:{level.level}", "delay", label, f"broker:{b.name}"))
    waits: dict[tuple[str, str], str] = {}
    """(consumer actor, queue) → what its ProcessQueue waits for (orderly suspend, local retry) and how long."""
    for timer in snap.timers:
        if timer.queue is not None and timer.kind in _PQ_WAITS:
            waits.setdefault((timer.owner, str(timer.queue)), f"{_PQ_WAITS[timer.kind]} {_until(timer.remaining_ms)}")
    consumers: list[ConsumerVM] = []
    started = {
        e.actor.split(":", 1)[-1]
        for e in snap.events
        if e.kind is EventKind.LIFECYCLE and e.data.get("event") == "start"
    }
    for c in snap.consumers:
        how = "orderly" if c.orderly else "concurrently"
        stopped = "crashed" if c.crashed else "shut down" if c.client_id in started else NOT_STARTED
        detail = f"{c.message_model} · {how}" if c.running else stopped
        consumers.append(ConsumerVM(c.client_id, c.group, c.running, detail))
        for pq in c.process_queues:
            if pq.dropped:
                continue
            listed = queues_by_name.get(pq.queue)
            label = pq.queue if listed is None else _queue_label(listed, many_brokers)
            note = waits.get((c.actor, pq.queue), "")
            places.append(
                Place(f"pq:{c.client_id}:{pq.queue}", "process_queue", label, "consumers", owner=c.client_id, note=note)
            )

    best: dict[tuple[str, str], tuple[int, str, TokenState, int, int | None, int | None, str]] = {}
    """(owner, msg id) → (priority, place, state, reconsume times, offset, due, why) of the winning copy so far."""

    def offer(
        owner: str,
        msg: str,
        place: str,
        state: TokenState,
        rt: int,
        offset: int | None = None,
        due: int | None = None,
        why: str = "",
    ) -> None:
        rank = _PRIORITY[state]
        old = best.get((owner, msg))
        if old is None or rank < old[0]:
            best[(owner, msg)] = (rank, place, state, rt, offset, due, why)

    # 1. live ProcessQueues
    for c in snap.consumers:
        if not c.running:
            continue
        owner = _owner_of(c)
        for pq in c.process_queues:
            pq_queue = queues_by_name.get(pq.queue)
            if pq.dropped or pq_queue is None:
                continue
            ids = {one.offset: one for one in pq_queue.cells}
            consuming = set(pq.consuming_keys)
            for off in sorted(set(pq.msg_tree_keys) | consuming):
                pq_cell = ids.get(off)
                if pq_cell is None or pq_cell.msg_id is None:
                    continue
                state: TokenState = "pulled"
                if off in consuming or pq_cell.state_for(c.group) is OffsetState.CONSUMING:
                    state = "consuming"
                rt = pq_cell.reconsume_times
                if facts.delivered_at.get((c.client_id, pq_cell.msg_id)) == (pq.queue, off):
                    # the client's own count: an orderly suspend or a local retry raises it without a new copy
                    rt = max(rt, facts.delivered_rt[(c.client_id, pq_cell.msg_id)])
                offer(owner, pq_cell.msg_id, f"pq:{c.client_id}:{pq.queue}", state, rt, off)

    # 2., 4., 5., 6. ConsumeQueue offsets
    sent_back: set[tuple[str, str]] = set()
    for q in snap.queues:
        if q.kind == "schedule":
            continue
        place = "queue:" + q.name
        if q.kind == "dlq":
            owner = q.topic[len(DLQ_PREFIX) :]
            for cell in q.cells:
                if cell.msg_id is not None:
                    rt = cell.reconsume_times
                    offer(owner, cell.msg_id, place, "dead", rt, cell.offset)
            continue
        owners = list(owners_of_topic.get(q.topic, ()))
        if q.kind == "retry" and q.topic[len(RETRY_PREFIX) :] not in owners:
            owners.append(q.topic[len(RETRY_PREFIX) :])
        for cell in q.cells:
            msg = cell.msg_id
            if msg is None:
                continue
            rt = cell.reconsume_times
            if not owners:
                offer("", msg, place, "stored", rt, cell.offset)
            for owner in owners:
                if owner in broadcasting:
                    outcome = facts.outcome.get((owner, msg))
                    if outcome == "dropped":
                        rt = facts.delivered_rt.get((owner, msg), rt)
                        offer(owner, msg, f"dropped:{owner}", "dropped", rt, why=BROADCAST_WHY)
                    elif outcome == "done" or cell.offset < client_offsets.get((owner, q.name), 0):
                        offer(owner, msg, f"done:{owner}", "done", facts.delivered_rt.get((owner, msg), rt))
                    else:
                        offer(owner, msg, place, "stored", rt, cell.offset)
                    continue
                st = cell.state_for(owner)
                if st is OffsetState.ACKED:
                    offer(owner, msg, f"done:{owner}", "done", rt)
                elif st is OffsetState.DROPPED:
                    offer(owner, msg, f"dropped:{owner}", "dropped", rt, why=_why_dropped(facts, msg))
                elif st is OffsetState.SENT_BACK:
                    sent_back.add((owner, msg))
                else:  # STORED, or PULLED/CONSUMING by a ProcessQueue drawn above (that offer wins)
                    offer(owner, msg, place, "stored", rt, cell.offset)

    # 3. delay levels
    for b in snap.brokers:
        for level in b.schedule:
            for msg, due in level.dues:
                real, rt = parked.get((b.name, level.level, msg), ("", 0))
                if real.startswith(RETRY_PREFIX):
                    owners = [real[len(RETRY_PREFIX) :]]
                else:
                    owners = list(owners_of_topic.get(real, ())) or [""]
                for owner in owners:
                    offer(owner, msg, f"delay:{b.name}:{level.level}", "delayed", rt, due=due)

    # 5. sent back, and no copy anywhere (the snapshot says DROPPED for a retryQueueNums 0 send-back; this
    #    also catches a copy gone by retention)
    for owner, msg in sorted(sent_back):
        if (owner, msg) not in best:
            offer(owner, msg, f"dropped:{owner}", "dropped", facts.last_rt.get(msg, 0), why=NO_COPY_WHY)

    # 7. at the producer: nothing stored (yet)
    for msg, (producer, topic) in facts.sent_topic.items():
        if msg in facts.stored:
            continue
        state: TokenState = "send_failed" if msg in facts.failed else "sending"  # type: ignore[no-redef]
        place = f"failed:{producer}" if state == "send_failed" else f"producer:{producer}"
        for owner in owners_of_topic.get(topic, ()) or [""]:
            offer(owner, msg, place, state, 0)

    tokens = tuple(
        sorted(
            (
                TokenVM(
                    key=f"msg:{owner}:{msg}",
                    msg_id=msg,
                    owner=owner,
                    place=place,
                    state=state,
                    reconsume_times=rt,
                    colour=token_colour(colour_key.get(msg, msg)),
                    colour_by=colour_key.get(msg, msg),
                    offset=offset,
                    due_ms=due,
                    countdown="" if due is None else countdown(due - now),
                    why=why,
                )
                for (owner, msg), (_, place, state, rt, offset, due, why) in best.items()
            ),
            key=_token_order,
        )
    )
    owners_seen = sorted({_owner_of(c) for c in snap.consumers} | {t.owner for t in tokens if t.owner})
    for owner in owners_seen:
        places.append(Place(f"done:{owner}", "done", f"consumed · {owner}", "outcome", owner=owner))
    for owner in owners_seen:
        whys = sorted({t.why for t in tokens if t.place == f"dropped:{owner}"})
        if whys:
            label = f"dropped · {owner}"
            places.append(Place(f"dropped:{owner}", "dropped", label, "outcome", owner=owner, note=" / ".join(whys)))
    for name, _ in snap.producers:
        if any(t.place == f"failed:{name}" for t in tokens):
            places.append(Place(f"failed:{name}", "send_failed", "send failed", "producers", owner=name))
    known = {p.key for p in places}
    for t in tokens:  # a token in a place the snapshot lists nowhere would be drawn nowhere: say so loudly
        if t.place not in known:
            raise ValueError(f"token {t.key} is in place {t.place!r}, which the view-model does not draw")
    note = "colour = sharding key (else message id)" if ordered else "colour = message id"
    return FlowVM(
        now_ms=now,
        position=snap.trace_len,
        brokers=tuple((b.name, b.up) for b in snap.brokers),
        producers=tuple(name for name, _ in snap.producers),
        consumers=tuple(consumers),
        places=tuple(places),
        tokens=tokens,
        ordered=ordered,
        colour_note=note,
        owners=tuple(owners_seen),
        focus=next((e.msg_id for e in reversed(snap.events) if e.msg_id is not None), ""),
        retry_paths=not snap.consumers or any(c.message_model != "BROADCASTING" for c in snap.consumers),
    )


_PQ_WAITS = {TimerKind.SUSPEND: "suspended · again", TimerKind.LOCAL_RETRY: "local retry"}
"""Timers that hold a ProcessQueue's messages, and how its box says so."""


def _until(ms: int) -> str:
    return countdown(ms).replace("due ", "", 1)


BROADCAST_WHY = "BROADCASTING: failed, never retried"
NOT_STARTED = "not started yet"
"""What a consumer box says before the consumer's first start (not "shut down": it never ran)."""
"""``ConsumeMessageConcurrentlyService.processConsumeResult`` logs and drops a failed broadcast message."""
NO_COPY_WHY = "send-back stored no copy (retryQueueNums 0)"
"""The broker answered SUCCESS to CONSUMER_SEND_MSG_BACK and stored nothing."""


def _why_dropped(facts: _Facts, msg: str) -> str:
    return BROADCAST_WHY if msg in facts.broadcast_dropped else NO_COPY_WHY


def _token_order(t: TokenVM) -> tuple[Any, ...]:
    """Tokens in a place: by due time (delay), by offset (queues), else by msg id; then by owner."""
    return (
        t.place,
        t.due_ms if t.due_ms is not None else -1,
        t.offset if t.offset is not None else -1,
        t.msg_id,
        t.owner,
    )


# --------------------------------------------------------------------------- the scene
R = 8.0
STEP = 19.0
PAD = 8.0
ROW = 22.0
GAP = 84.0
HOP_W = 14.0
"""Right margin of a broker column, where the schedule service's hop arrow (SCHEDULE → %RETRY%) runs."""
TOKENS_PER_ROW = 8

FLOW_CSS = """
$ .rq-col { fill: var(--jp-layout-color1, #fafafa); stroke: var(--jp-border-color2, #c7c7c7); }
$ .rq-broker { fill: var(--jp-layout-color1, #fafafa); stroke: var(--jp-border-color1, #9e9e9e); }
$ .rq-broker.rq-down { stroke: var(--jp-error-color1, #d32f2f); stroke-dasharray: 6 4;
  fill: var(--jp-layout-color3, #bdbdbd); fill-opacity: 0.35; }
$ text.rq-down-label { fill: var(--jp-error-color1, #d32f2f); font-weight: 600; }
$ .rq-slot { fill: var(--jp-layout-color2, #eeeeee); stroke: var(--jp-border-color2, #c7c7c7); }
$ .rq-slot.rq-stranded { stroke-dasharray: 3 2; }
$ .rq-tray { fill: none; stroke: var(--jp-border-color1, #9e9e9e); stroke-dasharray: 4 3; }
$ .rq-pq { fill: var(--jp-layout-color0, #ffffff); stroke: var(--jp-brand-color2, #64b5f6); }
$ .rq-lane-sep { stroke: var(--jp-border-color2, #c7c7c7); stroke-dasharray: 2 3; }
$ text.rq-small { font-size: 10px; }
$ .rq-token.rq-consuming circle { stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-width: 2.5; }
$ .rq-token.rq-delayed circle { stroke: var(--jp-ui-font-color2, #616161); stroke-dasharray: 2 1.5; }
$ .rq-token.rq-dead circle { stroke: var(--jp-error-color1, #d32f2f); stroke-width: 3; }
$ .rq-token.rq-done circle { stroke: var(--jp-success-color1, #388e3c); stroke-width: 2; }
$ .rq-token.rq-sending circle { stroke: var(--jp-ui-font-color2, #616161); stroke-dasharray: 3 2; }
$ .rq-token.rq-send_failed circle, $ .rq-token.rq-dropped circle {
  stroke: var(--jp-error-color1, #d32f2f); stroke-width: 1.5; stroke-dasharray: 2 2; fill-opacity: 0.55; }
$ .rq-focus { fill: none; stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2.5; opacity: 0.8;
  transition: cx var(--rq-duration, 350ms) ease-in-out, cy var(--rq-duration, 350ms) ease-in-out; }
$ .rq-cross { stroke: var(--jp-error-color1, #d32f2f); stroke-width: 2; }
$ .rq-token.rq-long text { font-size: 6px; }
""".replace("$", '[data-testid="rq-flow"]')
"""The view's own classes, scoped to its root (``$`` stands for the root selector)."""


@dataclass(slots=True)
class _Canvas:
    marks: list[Mark] = field(default_factory=list)
    token_at: dict[str, tuple[float, float]] = field(default_factory=dict)

    def text(
        self, key: str, x: float, y: float, text: str, cls: str = "", anchor: Any = "start", title: str = ""
    ) -> None:
        self.marks.append(Mark("text", key, x=x, y=y, text=text, cls=cls, anchor=anchor, title=title, role="label"))

    def rect(
        self,
        key: str,
        x: float,
        y: float,
        w: float,
        h: float,
        cls: str,
        role: str = "place",
        title: str = "",
        dash: str = "",
    ) -> None:
        self.marks.append(Mark("rect", key, x=x, y=y, w=w, h=h, cls=cls, role=role, title=title, dash=dash))


def _pq_height(p: Place, n: int) -> float:
    """A ProcessQueue row: its tokens, plus a line for what it waits for (suspend, local retry)."""
    return max(ROW, _grid_height(n)) + (12 if p.note else 0)


def _grid_height(n: int, per_row: int = TOKENS_PER_ROW) -> float:
    rows = max(1, -(-n // per_row))
    return rows * STEP + 4


def token_text(reconsume_times: int) -> str:
    """What a token says: its reconsume times, fitted into the circle (``7``, ``42``; 3 digits in a smaller font,
    the ``rq-long`` class; ``1k``, ``12k`` beyond 999). The tooltip keeps the exact number."""
    if reconsume_times < 1000:
        return str(reconsume_times)
    return f"{reconsume_times // 1000}k"


def _place_tokens(cv: _Canvas, tokens: Iterable[TokenVM], x: float, y: float, per_row: int = TOKENS_PER_ROW) -> None:
    """Token centres in a grid from (x, y) = the first centre."""
    for i, t in enumerate(tokens):
        cv.token_at[t.key] = (x + (i % per_row) * STEP, y + (i // per_row) * STEP)


def flow_scene(vm: FlowVM) -> Scene:
    """Lay the view-model out as a :class:`Scene` (deterministic: same view-model, same marks)."""
    cv = _Canvas()
    by_place: dict[str, list[TokenVM]] = {}
    for t in vm.tokens:
        by_place.setdefault(t.place, []).append(t)
    places_in: dict[str, list[Place]] = {}
    for p in vm.places:
        places_in.setdefault(p.column, []).append(p)

    title_y = 16.0
    top = 44.0
    count = f"{len(vm.tokens)} {'token' if len(vm.tokens) == 1 else 'tokens'}"
    cv.text(
        "title",
        PAD,
        title_y,
        f"Message flow at t = {format_duration(vm.now_ms)} · {count}",
        cls="rq-title",
    )
    cv.text(
        "subtitle",
        PAD,
        title_y + 15,
        "one token per message per consumer group (per instance in BROADCASTING); "
        f"{vm.colour_note}; number = reconsume times",
        cls="rq-muted rq-small",
    )

    tok_w = TOKENS_PER_ROW * STEP
    # ---- producers column
    x = PAD
    prod_labels = [p.label for p in places_in.get("producers", [])] + ["producers"]
    prod_w = max(tok_w * 0.5 + 2 * PAD, max(text_width(s) for s in prod_labels) + 2 * PAD)
    y = top
    cv.text("col:producers", x, y + 12, "producers", cls="rq-title")
    y += 22
    for p in places_in.get("producers", []):
        toks = by_place.get(p.key, [])
        per = max(1, int((prod_w - 2 * PAD) // STEP))
        h = 18 + _grid_height(len(toks), per)
        cls = "rq-tray" if p.kind == "send_failed" else "rq-box"
        cv.rect(f"place:{p.key}", x, y, prod_w, h, cls, title=p.label)
        cv.text(f"label:{p.key}", x + 6, y + 13, p.label, cls="rq-muted" if p.kind == "send_failed" else "")
        _place_tokens(cv, toks, x + 6 + R, y + 18 + R + 2, per)
        y += h + 8
    prod_bottom = y
    prod_right = x + prod_w

    # ---- broker columns: lanes are rows shared by all brokers
    brokers = [name for name, _ in vm.brokers]
    up = dict(vm.brokers)
    lanes: list[tuple[str, str, tuple[str, ...]]] = [
        ("business", "topic queues", ("business",)),
        ("schedule", "SCHEDULE_TOPIC_XXXX", ("delay",)),
        ("retry", "%RETRY% topics", ("retry",)),
        ("dlq", "%DLQ% topics", ("dlq",)),
    ]
    label_w = 0.0
    for b in brokers:
        for p in places_in.get(f"broker:{b}", []):
            label_w = max(label_w, text_width(p.label))
    # a crowded delay slot writes "next due in …" (10 px) under its label, left of its token grid
    next_w = max((text_width("next " + t.countdown, 10) + 5 for t in vm.tokens if t.countdown), default=0.0)
    label_w = max(label_w, next_w, text_width("level 18 · 2 h"), 70.0) + 14
    delay_text_w = text_width("due in 59.9 s") + 8
    col_w = label_w + max(tok_w, R * 2 + 4 + delay_text_w) + 2 * PAD + HOP_W
    col_w = max(
        col_w,
        max((text_width(f"{b} · down") for b in brokers), default=0) + 2 * PAD,
        text_width("SCHEDULE_TOPIC_XXXX") + 2 * PAD,
    )
    bx0 = prod_right + GAP

    def slot_height(p: Place) -> float:
        n = len(by_place.get(p.key, []))
        note = 12 if p.note else 0  # "not in route" gets a line of its own under the queue's name
        if p.kind == "delay" and n <= 4:
            return max(ROW, n * STEP + 4) + note
        return max(ROW, _grid_height(n)) + note

    lane_y: dict[str, tuple[float, float]] = {}
    y = top + 22
    for lane, _, kinds in lanes:
        h = 16.0
        for b in brokers:
            ps = [p for p in places_in.get(f"broker:{b}", []) if p.kind in kinds]
            hb = 16.0 + (sum(slot_height(p) + 4 for p in ps) if ps else ROW)
            h = max(h, hb)
        lane_y[lane] = (y, y + h)
        y += h + 10
    broker_bottom = y

    for i, b in enumerate(brokers):
        bx = bx0 + i * (col_w + 16)
        cls = "rq-broker" if up[b] else "rq-broker rq-down"
        cv.rect(
            f"broker:{b}",
            bx,
            top,
            col_w,
            broker_bottom - top,
            cls,
            role="broker",
            title=f"{b} is {'up' if up[b] else 'down'}",
        )
        cv.text(
            f"broker-label:{b}",
            bx + PAD,
            top + 15,
            b if up[b] else f"{b} · down",
            cls="rq-title" if up[b] else "rq-title rq-down-label",
        )
        for lane, header, kinds in lanes:
            y0 = lane_y[lane][0]
            if lane != "business":
                cv.marks.append(
                    Mark("line", f"sep:{b}:{lane}", x=bx + 4, y=y0 - 5, x2=bx + col_w - 4, y2=y0 - 5, cls="rq-lane-sep")
                )
            cv.text(f"lane:{b}:{lane}", bx + PAD, y0 + 11, header, cls="rq-muted")
            ps = [p for p in places_in.get(f"broker:{b}", []) if p.kind in kinds]
            sy = y0 + 16
            if not ps:
                empty = "no delayed message" if lane == "schedule" else "none yet"
                cv.text(f"empty:{b}:{lane}", bx + PAD + 8, sy + 15, empty, cls="rq-muted rq-small")
            for p in ps:
                h = slot_height(p)
                cls = "rq-slot rq-stranded" if p.note else "rq-slot"
                tip = p.label + (f" ({p.note})" if p.note else "")
                cv.rect(f"place:{p.key}", bx + PAD, sy, col_w - 2 * PAD - HOP_W, h, cls, title=tip)
                cv.text(f"label:{p.key}", bx + PAD + 5, sy + 15, p.label, title=tip)
                toks = by_place.get(p.key, [])
                tx = bx + PAD + label_w + R
                if p.kind == "delay" and len(toks) <= 4:
                    for j, t in enumerate(toks):
                        cy = sy + 2 + R + 1 + j * STEP
                        cv.token_at[t.key] = (tx, cy)
                        cv.text(f"due:{t.key}", tx + R + 5, cy + 4, t.countdown, cls="rq-muted rq-small")
                else:
                    _place_tokens(cv, toks, tx, sy + 2 + R + 1)
                    if p.kind == "delay" and toks:
                        cv.text(
                            f"due:{p.key}", bx + PAD + 5, sy + 28, "next " + toks[0].countdown, cls="rq-muted rq-small"
                        )
                if p.note:
                    cv.text(f"note:{p.key}", bx + PAD + 5, sy + h - 3, p.note, cls="rq-muted rq-small")
                sy += h + 4
    brokers_right = bx0 + len(brokers) * (col_w + 16) - 16 if brokers else bx0

    # ---- consumer instances
    cx0 = brokers_right + GAP
    pq_places = places_in.get("consumers", [])
    pq_label_w = max([text_width(p.label) for p in pq_places] + [60.0]) + 14
    cons_w = max(
        pq_label_w + tok_w + 2 * PAD + 8 if vm.consumers else text_width("consumer instances", 12),
        max((text_width(f"{c.client_id} · {c.group}", 12) + 2 * PAD for c in vm.consumers), default=0),
        max((text_width(c.detail, 10) + 2 * PAD for c in vm.consumers), default=0),
    )
    y = top
    cv.text("col:consumers", cx0, y + 12, "consumer instances", cls="rq-title")
    y += 22
    if not vm.consumers:
        cv.text("empty:consumers", cx0 + 4, y + 14, "no consumer", cls="rq-muted rq-small")
        y += ROW
    for c in vm.consumers:
        pqs = [p for p in pq_places if p.owner == c.client_id]
        inner = sum(_pq_height(p, len(by_place.get(p.key, []))) + 4 for p in pqs) if pqs else ROW
        h = 34 + inner + 4
        cv.rect(
            f"consumer:{c.client_id}",
            cx0,
            y,
            cons_w,
            h,
            "rq-box",
            role="consumer",
            title=f"{c.client_id} ({c.group}): {c.detail}",
        )
        cv.text(f"consumer-label:{c.client_id}", cx0 + PAD, y + 14, f"{c.client_id} · {c.group}", cls="rq-title")
        cv.text(f"consumer-detail:{c.client_id}", cx0 + PAD, y + 27, c.detail, cls="rq-muted rq-small")
        sy = y + 34
        if not pqs:
            cv.text(
                f"empty:{c.client_id}",
                cx0 + PAD + 4,
                sy + 14,
                "no ProcessQueue" if c.running else NOT_STARTED if c.detail == NOT_STARTED else "not running",
                cls="rq-muted rq-small",
            )
        for p in pqs:
            toks = by_place.get(p.key, [])
            ph = _pq_height(p, len(toks))
            tip = f"ProcessQueue of {p.label}" + (f": {p.note}" if p.note else "")
            cv.rect(f"place:{p.key}", cx0 + PAD, sy, cons_w - 2 * PAD, ph, "rq-pq", title=tip)
            cv.text(f"label:{p.key}", cx0 + PAD + 5, sy + 15, p.label)
            if p.note:
                cv.text(f"note:{p.key}", cx0 + PAD + 5, sy + ph - 5, p.note, cls="rq-muted rq-small")
            _place_tokens(cv, toks, cx0 + PAD + pq_label_w + R, sy + 2 + R + 1)
            sy += ph + 4
        y += h + 8
    cons_bottom = y

    # ---- outcome trays, under the consumer instances (a column of their own made two-broker labs too wide)
    ox0 = cx0
    out_places = places_in.get("outcome", [])
    out_w = max([cons_w] + [text_width(p.label) + 2 * PAD for p in out_places])
    out_w = max([out_w] + [text_width(p.note, 10) + 2 * PAD for p in out_places])
    y = cons_bottom + 14
    ack_top = cons_bottom - 6
    if out_places:
        cv.text("col:outcome", ox0 + 44, y + 12, "outcome", cls="rq-title")
    y += 22
    for p in out_places:
        toks = by_place.get(p.key, [])
        head = 32.0 if p.note else 20.0
        h = head + _grid_height(len(toks))
        cv.rect(f"place:{p.key}", ox0, y, out_w, h, "rq-tray", title=p.label + (f": {p.note}" if p.note else ""))
        cv.text(f"label:{p.key}", ox0 + 6, y + 14, p.label, cls="rq-muted")
        if p.note:
            cv.text(f"note:{p.key}", ox0 + 6, y + 27, p.note, cls="rq-muted rq-small")
        _place_tokens(cv, toks, ox0 + 6 + R, y + head + R + 1)
        y += h + 8
    out_bottom = y
    right = ox0 + out_w if out_places else cx0 + cons_w
    ack_bottom = cons_bottom + 36

    # ---- arrows between the columns, one per lane, with the direction a message takes
    mid = {lane: (a + b) / 2 for lane, (a, b) in lane_y.items()}
    ax0, ax1 = brokers_right + 6, cx0 - 6
    first_producer = top + 22 + 20  # the middle of the first producer box, if it sits beside the business lane
    send_y = min(max(first_producer, lane_y["business"][0] + 12), lane_y["business"][1] - 8)
    arrows = [
        ("send", prod_right + 6, bx0 - 6, send_y, "send"),
        ("pull-business", ax0, ax1, mid["business"], "pull"),
        ("send-back", ax1, ax0, mid["schedule"], "send back"),
        ("pull-retry", ax0, ax1, mid["retry"], "pull"),
        ("dead-letter", ax1, ax0, mid["dlq"], "dead letter"),
    ]
    if not vm.retry_paths:  # BROADCASTING only: a failure is dropped, no message goes back or to the DLQ
        arrows = arrows[:2]
    for key, x1, x2, ay, label in arrows:
        cv.marks.append(
            Mark("line", f"arrow:{key}", x=x1, y=ay, x2=x2, y2=ay, cls="rq-arrow", arrow=True, role="arrow")
        )
        cv.text(f"arrow-label:{key}", (x1 + x2) / 2, ay - 5, label, cls="rq-muted rq-small", anchor="middle")
    if vm.consumers and out_places:  # down from the instances to the trays
        ax = cx0 + 14
        cv.marks.append(
            Mark("line", "arrow:ack", x=ax, y=ack_top, x2=ax, y2=ack_bottom, cls="rq-arrow", arrow=True, role="arrow")
        )
        cv.text("arrow-label:ack", ax + 5, ack_bottom - 20, "ack", cls="rq-muted rq-small")
    for i, b in enumerate(brokers):  # the schedule service moves a due message into %RETRY%, inside the broker
        bx = bx0 + i * (col_w + 16)
        hx = bx + col_w - PAD - HOP_W / 2 + 3
        cv.marks.append(
            Mark(
                "line",
                f"arrow:hop:{b}",
                x=hx,
                y=lane_y["schedule"][0] + 4,
                x2=hx,
                y2=lane_y["retry"][0] + 2,
                cls="rq-arrow",
                arrow=True,
                role="arrow",
                title="ScheduleMessageService: a due message goes back to its real topic",
            )
        )

    # ---- a halo on the message the latest event is about, then the tokens on top, crosses on dropped ones
    for t in vm.tokens:
        if t.msg_id == vm.focus:
            fx, fy = cv.token_at[t.key]
            cv.marks.append(Mark("circle", f"focus:{t.key}", x=fx, y=fy, r=R + 4, cls="rq-focus", role="focus"))
    for t in vm.tokens:
        tx, ty = cv.token_at[t.key]
        tip = (
            f"{t.msg_id} · {t.state}" + (f" · {t.owner}" if t.owner else "") + f" · reconsume times {t.reconsume_times}"
        )
        if t.countdown:
            tip += f" · {t.countdown}"
        if t.why:
            tip += f" · {t.why}"
        cv.marks.append(
            Mark(
                "token",
                t.key,
                x=tx,
                y=ty,
                r=R,
                text=token_text(t.reconsume_times),
                fill=t.colour,
                cls=f"rq-{t.state}" + (" rq-long" if len(token_text(t.reconsume_times)) > 2 else ""),
                role="token",
                title=tip,
            )
        )
        if t.state in ("dropped", "send_failed"):
            d = R * 0.8
            cv.marks.append(
                Mark(
                    "path",
                    f"cross:{t.key}",
                    d=f"M{tx - d:.1f},{ty - d:.1f} L{tx + d:.1f},{ty + d:.1f} "
                    f"M{tx - d:.1f},{ty + d:.1f} L{tx + d:.1f},{ty - d:.1f}",
                    cls="rq-cross",
                    role="cross",
                )
            )

    # ---- legend
    bottom = max(prod_bottom, broker_bottom, cons_bottom, out_bottom) + 10
    sample = token_colour("M0001")
    items_a = (
        ("token", sample, "a message, stored in a queue or pulled into a ProcessQueue"),
        ("token", f"{sample} rq-consuming", "being consumed (a listener runs on it)"),
        ("token", f"{sample} rq-delayed", "waiting in a delay level (due in …)"),
        ("token", f"{sample} rq-sending", "at its producer: sending (crossed: send failed)"),
    )
    items_b = (
        ("token", f"{sample} rq-dead", "in %DLQ% (dead letter)"),
        ("token", f"{sample} rq-done", "consumed (green ring, in its group's tray)"),
        ("token", f"{sample} rq-dropped", "dropped, never consumed (crossed)"),
        ("line", "rq-arrow", "direction a message travels"),
        ("line", "rq-focus", "ring: the message the latest event is about"),
    )
    lx2 = PAD + max(text_width(label) for _, _, label in items_a) + 40
    cv.marks.extend(legend_marks(items_a, x=PAD, y=bottom + 8, key="legend-a"))
    cv.marks.extend(legend_marks(items_b, x=lx2, y=bottom + 8, key="legend-b"))
    for i, (_, style, _) in enumerate(items_b):
        if "rq-dropped" in style:
            lx, ly, d = lx2 + 5, bottom + 8 + i * 14, 4.0
            cv.marks.append(
                Mark(
                    "path",
                    "legend-b:cross",
                    d=f"M{lx - d},{ly - d} L{lx + d},{ly + d} M{lx - d},{ly + d} L{lx + d},{ly - d}",
                    cls="rq-cross",
                    role="legend",
                )
            )
    height = bottom + 8 + max(len(items_a), len(items_b)) * 14 + 4
    width = max(right, lx2 + max(text_width(label) for _, _, label in items_b) + 30) + PAD
    counts = vm.counts()
    extra = (
        ("position", str(vm.position)),
        ("now-ms", str(vm.now_ms)),
        ("tokens", str(len(vm.tokens))),
        ("counts", " ".join(f"{k}={v}" for k, v in counts.items())),
    )
    return Scene(
        width=int(width + 0.5),
        height=int(height + 0.5),
        marks=tuple(cv.marks),
        label=f"message flow at t = {format_duration(vm.now_ms)}: {len(vm.tokens)} messages",
        testid="rq-flow",
        css=FLOW_CSS,
        extra=extra,
    )


def flow_text(vm: FlowVM) -> str:
    """Plain text: one line per place that holds tokens, in drawing order (for nbconvert and a quick look).

    ``M0001×2`` is message M0001 with reconsume times 2; ``/cg`` names the owner when several groups or
    BROADCASTING instances see the message.
    """
    many_owners = len({t.owner for t in vm.tokens}) > 1
    lines = [f"message flow at t = {format_duration(vm.now_ms)} ({len(vm.tokens)} tokens)"]
    for p in vm.places:
        toks = vm.tokens_at(p.key)
        if not toks:
            continue
        items = ", ".join(
            t.msg_id
            + (f"/{t.owner}" if many_owners and t.owner else "")
            + f"×{t.reconsume_times}"
            + (f" ({t.countdown})" if t.countdown else "")
            for t in toks
        )
        where = p.column.removeprefix("broker:") + " " if p.column.startswith("broker:") else ""
        lines.append(f"  {where}{p.label} [{p.kind}]: {items}")
    return "\n".join(lines)


class FlowView(SceneView):
    """The message-flow picture of a dashboard: ``FlowView()``, then give it to a Controller's ``views``."""

    title = "Message flow"

    def model(self, snap: LabSnapshot) -> FlowVM:
        return flow_view_model(snap)

    def scene(self, vm: FlowVM) -> Scene:
        return flow_scene(vm)

    def to_text(self, vm: FlowVM) -> str:
        return flow_text(vm)


def tokens_by_place(vm: FlowVM) -> Mapping[str, int]:
    """How many tokens each place holds (places without tokens are left out)."""
    out: dict[str, int] = {}
    for t in vm.tokens:
        out[t.place] = out.get(t.place, 0) + 1
    return out
