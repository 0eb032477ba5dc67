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
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import ConsumeQueueSnap, ConsumerSnap, LabSnapshot, OffsetState

from .flow_layout import NOT_STARTED, flow_scene
from .palette import token_colour
from .scene import Scene, SceneView

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
        places.append(
            Place(f"done:{owner}", "done", _("consumed · {owner}").format(owner=owner), "outcome", owner=owner)
        )
    for owner in owners_seen:
        whys = sorted({t.why for t in tokens if t.place == f"dropped:{owner}"})
        if whys:
            label = _("dropped · {owner}").format(owner=owner)
            places.append(Place(f"dropped:{owner}", "dropped", label, "outcome", owner=owner, note=" / ".join(whys)))
    for name, _sent in snap.producers:
        if any(t.place == f"failed:{name}" for t in tokens):
            places.append(Place(f"failed:{name}", "send_failed", _("send failed"), "producers", owner=name))
    known = {p.key for p in places}
    for t in tokens:  # a token in a place the snapshot lists nowhere would be drawn nowhere: say so loudly
        if t.place not in known:
            raise ValueError(f"token {t.key} is in place {t.place!r}, which the view-model does not draw")
    note = _("colour = sharding key (else message id)") if ordered else _("colour = message id")
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

    title = N_("Message flow")

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
