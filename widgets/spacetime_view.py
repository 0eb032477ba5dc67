"""SpaceTimeView: the run as Maelstrom draws it — one vertical line per actor, time running down, arrows between.

Actors (lanes, left to right): each producer; then per broker its ``ScheduleMessageService`` (the
actor that holds ``SCHEDULE_TOPIC_XXXX`` and moves due messages back) and the broker itself; then each
consumer *instance* (a consumer's inner producer, ``producer:c1/inner``, is drawn on ``c1``'s line: it
lives in the same process). Arrows: send (producer → broker) and its response when it is not an
instant success, pull (broker → consumer: the PullMessage response that carries the messages),
send-back (consumer → broker, CONSUMER_SEND_MSG_BACK), the schedule hop (broker → schedule service)
and the due delivery back, the DLQ write (the send-back the broker answers by writing ``%DLQ%``), and
lock requests / renewals (light). What happens inside one process is a dot on its line: a listener
call and its result, a suspend, a local retry, a dropped BROADCASTING message. Failures are drawn
apart: a refused request stops short of its target with a ✗, a lost response (timeout) is a dashed
reply that never arrives, a broker error answers in vermillion, a listener exception is a red dot, and
a broker that is down has a dashed red line.

**Time axis: event-indexed.** One row per drawn event, in trace order, with the virtual time written
on the axis wherever it changes and a break (``≈``) where it jumps. A run that spans hours with
bursts inside the same millisecond stays readable; distances on the axis are *not* proportional to
time (the axis title says so). One exception to trace order keeps cause before effect: the broker
handles CONSUMER_SEND_MSG_BACK synchronously, so the trace records its effect (the schedule hop or
the DLQ write) before the client records the send-back; the send-back row is drawn first (the order
:func:`rmqlab.narrate.reading_order` gives the captions and the Events tab). Identical rows are folded into
one with their count ("lock ✗ 1 queue × 9, every 20 s, 20 s – 3 m"), as the captions fold repeats.

**The future is not drawn.** A snapshot holds the trace up to the controller's position and nothing
else, so the diagram ends at the "now" line (the snapshot's ``now_ms``); stepping adds rows below.
:func:`spacetime_scene` shows the last ``max_rows`` rows (the "now" line always on screen) and says
how many earlier rows are above.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from rmqlab import EventKind, TraceEvent, format_duration
from rmqlab.core.i18n import N_
from rmqlab.narrate import group_repeats
from rmqlab.snapshot import LabSnapshot

from .palette import OKABE_ITO
from .scene import Mark, Scene, SceneView, legend_marks, text_width

__all__ = [
    "ArrowKind",
    "Lane",
    "Row",
    "SpaceTimeModel",
    "SpaceTimeView",
    "Span",
    "spacetime_scene",
    "spacetime_text",
    "spacetime_view_model",
]


class ArrowKind(StrEnum):
    """What one row draws; the value is the mark's ``data-role`` and CSS class suffix."""

    SEND = "send"
    """SEND_ATTEMPT producer → broker (its label gains ✓ when the same millisecond answers SUCCESS)."""
    SEND_REFUSED = "send-refused"
    """The attempt never reached the broker (RemotingConnectException: down, partitioned)."""
    RESPONSE = "response"
    """A send response that came later than the request."""
    RESPONSE_LOST = "response-lost"
    """No response within the timeout (RemotingTimeoutException): the broker may have stored it."""
    RESPONSE_ERROR = "response-error"
    """The broker answered with an error code or a non-OK SendStatus."""
    PULL = "pull"
    """A PullMessage response broker → consumer carrying messages into a ProcessQueue."""
    SEND_BACK = "send-back"
    """CONSUMER_SEND_MSG_BACK consumer → broker, answered SUCCESS."""
    SEND_BACK_FAILED = "send-back-failed"
    """The send-back failed (the client then tries its inner producer, then a local retry)."""
    SCHEDULE = "schedule"
    """The broker parks a message in SCHEDULE_TOPIC_XXXX at a delay level (broker → schedule service)."""
    DUE = "due"
    """The ScheduleMessageService moves a due message back to its real topic (schedule service → broker)."""
    DLQ = "dlq"
    """A message written to ``%DLQ%<group>`` (the send-back that exceeded maxReconsumeTimes)."""
    LOCK = "lock"
    """lockBatchMQ: a consumer locks or renews orderly queues at a broker (light)."""
    LOCK_REFUSED = "lock-refused"
    """The broker refused the lock (another client holds it)."""
    LISTENER = "listener"
    """The consume thread calls the listener (a dot on the consumer's line)."""
    RESULT = "result"
    """The listener returned after a while (the bar between the call and this dot is the listener running)."""
    NOTE = "note"
    """Something local worth a word: start, rebalance, suspend, local retry, an admin command."""
    FAILURE = "failure"
    """Something local that failed: a send given up, a dropped message, a listener exception."""
    FAULT = "fault"
    """An injected fault: broker down / up, network partition / heal, a consumer crash."""


ARROWS = frozenset(
    {
        ArrowKind.SEND,
        ArrowKind.SEND_REFUSED,
        ArrowKind.RESPONSE,
        ArrowKind.RESPONSE_LOST,
        ArrowKind.RESPONSE_ERROR,
        ArrowKind.PULL,
        ArrowKind.SEND_BACK,
        ArrowKind.SEND_BACK_FAILED,
        ArrowKind.SCHEDULE,
        ArrowKind.DUE,
        ArrowKind.DLQ,
        ArrowKind.LOCK,
        ArrowKind.LOCK_REFUSED,
    }
)
"""Kinds drawn between two lanes; the others are dots on one lane."""
_BROKEN = frozenset({ArrowKind.SEND_REFUSED, ArrowKind.RESPONSE_LOST})
"""Arrows that never arrive: drawn to 60 % of the way, ending in ✗."""
_FAILED = frozenset(
    {
        ArrowKind.SEND_REFUSED,
        ArrowKind.RESPONSE_LOST,
        ArrowKind.RESPONSE_ERROR,
        ArrowKind.SEND_BACK_FAILED,
        ArrowKind.LOCK_REFUSED,
        ArrowKind.FAILURE,
    }
)
_SUCCESS = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})
_SEND_OK = frozenset({"SUCCESS", "ONEWAY_SENT"})


@dataclass(frozen=True, slots=True)
class Lane:
    """One actor's vertical line."""

    id: str
    """``producer:<name>``, ``broker:<name>``, ``schedule:<broker>`` or ``consumer:<client id>``."""
    kind: str
    title: str
    subtitle: str


@dataclass(frozen=True, slots=True)
class Row:
    """One drawn event: an arrow ``src`` → ``dst`` or, when they are equal, a dot on that lane."""

    seq: int
    """The trace seq of the event this row draws (the first one when several are merged)."""
    time_ms: int
    kind: ArrowKind
    src: str
    dst: str
    label: str
    detail: str
    """The full story (hover tooltip, text rendering)."""
    msg_id: str | None = None
    repeats: int = 1
    """How many identical rows this one stands for (a lock refused every 20 s for minutes is one row)."""

    @property
    def is_arrow(self) -> bool:
        return self.kind in ARROWS

    @property
    def failed(self) -> bool:
        return self.kind in _FAILED or self.label.startswith("✗")


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch of one lane between two rows: a listener running, a broker down, a consumer crashed."""

    lane: str
    kind: str
    """``listener``, ``down`` or ``crashed``."""
    start_seq: int
    end_seq: int | None
    """The row that ends it (None: still open at "now")."""


@dataclass(frozen=True, slots=True)
class SpaceTimeModel:
    """Lanes, rows in drawing order, spans, and where "now" is."""

    lanes: tuple[Lane, ...]
    rows: tuple[Row, ...]
    spans: tuple[Span, ...]
    now_ms: int
    position: int
    """The controller's position (trace length) this model was computed at."""

    def count(self, kind: ArrowKind | str) -> int:
        """How many rows of this kind."""
        return sum(1 for r in self.rows if r.kind == kind)


# ---------------------------------------------------------------------------------------------- the model
@dataclass(slots=True)
class _Call:
    """One listener call being folded: its messages and, when it returned at once, the results."""

    ids: list[str]
    queue: str
    reconsume_times: int
    results: list[str] = field(default_factory=list)
    failed: bool = False

    def label(self) -> str:
        more = f" +{len(self.ids) - 1}" if len(self.ids) > 1 else ""
        results = " ".join(dict.fromkeys(self.results))  # a batch that all succeeded says ✓ once
        return f"{self.ids[0]}{more} r{self.reconsume_times} {results}".rstrip()

    def detail(self) -> str:
        return f"listener called with {', '.join(self.ids)} (reconsume_times={self.reconsume_times}) from {self.queue}"


class _Builder:
    """Folds the trace into rows, merging what one picture shows once (a result into its call, …)."""

    def __init__(self, snap: LabSnapshot, locks: bool) -> None:
        self.locks = locks
        self.consumer_ids = {c.client_id for c in snap.consumers}
        self.brokers = {b.name for b in snap.brokers}
        self.queue_broker = {q.name: q.broker for q in snap.queues}
        self.lanes: dict[str, Lane] = {}
        for name, group in snap.producers:
            self._lane("producer:" + name, "producer", name, f"producer · {group}")
        for b in snap.brokers:
            self._lane("schedule:" + b.name, "schedule", f"{b.name} schedule", "ScheduleMessageService")
            self._lane("broker:" + b.name, "broker", b.name, "broker")
        for c in snap.consumers:
            self._lane("consumer:" + c.client_id, "consumer", c.client_id, f"consumer · {c.group}")
        self.rows: list[Row] = []
        self.spans: list[Span] = []
        self.attempts: dict[tuple[str, str | None, int], int] = {}
        """(actor, msg id, attempt) → index of its SEND row."""
        self.calls: dict[tuple[str, str | None], int] = {}
        """(consumer lane, msg id) → index of its open LISTENER row."""
        self.batches: dict[int, _Call] = {}
        """Row index → the listener call it draws (a consumeMessageBatchMaxSize batch is one call)."""
        self.lock_queues: dict[tuple[str, str, int, str], tuple[int, list[str]]] = {}
        """(client lane, broker lane, ms, verb) → (row index, queues) of the lock arrow being grown."""
        self.open: dict[tuple[str, str], int] = {}
        """(lane, span kind) → index in ``spans`` of an open span."""

    def _lane(self, lane_id: str, kind: str, title: str, subtitle: str) -> str:
        if lane_id not in self.lanes:
            self.lanes[lane_id] = Lane(lane_id, kind, title, subtitle)
        return lane_id

    def lane_of(self, actor: str) -> str | None:
        """The lane an event's actor is drawn on (None: the lab itself, e.g. a WARNING)."""
        kind, _, name = actor.partition(":")
        if kind == "producer":
            client = name.split("/", 1)[0]
            if "/" in name and client in self.consumer_ids:
                return "consumer:" + client
            return self._lane(actor, "producer", name, "producer")
        if kind == "consumer":
            return self._lane(actor, "consumer", name, "consumer")
        if kind == "schedule":
            return self._lane(actor, "schedule", f"{name} schedule", "ScheduleMessageService")
        if actor in self.brokers or (not name and actor != "lab"):
            return self._lane("broker:" + actor, "broker", actor, "broker")
        return None

    def broker_lane(self, broker: str) -> str:
        return self._lane("broker:" + broker, "broker", broker, "broker")

    def add(self, row: Row) -> int:
        self.rows.append(row)
        return len(self.rows) - 1

    def span_open(self, lane: str, kind: str, seq: int) -> None:
        if (lane, kind) not in self.open:
            self.open[(lane, kind)] = len(self.spans)
            self.spans.append(Span(lane, kind, seq, None))

    def span_close(self, lane: str, kind: str, seq: int) -> None:
        i = self.open.pop((lane, kind), None)
        if i is not None:
            self.spans[i] = replace(self.spans[i], end_seq=seq)

    # ------------------------------------------------------------------ one event
    def fold(self, e: TraceEvent) -> None:
        lane = self.lane_of(e.actor)
        if lane is None:
            return
        handler = _HANDLERS.get(e.kind)
        if handler is not None:
            handler(self, e, lane)

    def send_attempt(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        attempt = d["attempt"]
        topic = d["topic"]
        where = f" → {topic}" if lane.startswith("consumer:") else f" q{d['queue_id']}"
        label = f"{e.msg_id} #{attempt}{where}"
        detail = f"{d['mode']} send attempt {attempt} of {e.msg_id} to {topic} queue {d['queue_id']} on {d['broker']}"
        i = self.add(
            Row(e.seq, e.time_ms, ArrowKind.SEND, lane, self.broker_lane(d["broker"]), label, detail, e.msg_id)
        )
        self.attempts[(e.actor, e.msg_id, attempt)] = i

    def send_result(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        outcome: str = d["outcome"]
        name = outcome.split(":", 1)[0]
        i = self.attempts.get((e.actor, e.msg_id, d["attempt"]))
        detail = f"attempt {d['attempt']} of {e.msg_id}: {outcome}"
        if i is not None:
            sent = self.rows[i]
            if name == "RemotingConnectException":  # the request never reached the broker: the arrow stops short
                self.rows[i] = replace(
                    sent,
                    kind=ArrowKind.SEND_REFUSED,
                    label=f"{sent.label} ✗ {name}",
                    detail=f"{sent.detail} — {outcome}",
                )
                return
            if name in _SEND_OK and e.time_ms == sent.time_ms:  # an instant success: one arrow says both
                self.rows[i] = replace(sent, label=f"{sent.label} ✓", detail=f"{sent.detail} — {outcome}")
                return
        if name == "RemotingTimeoutException":
            kind, label = ArrowKind.RESPONSE_LOST, f"{e.msg_id} #{d['attempt']} ✗ timeout"
        elif name in _SEND_OK:
            kind, label = ArrowKind.RESPONSE, f"{e.msg_id} #{d['attempt']} {name}"
        else:
            status = name if name != "MQBrokerException" else outcome.split("(", 1)[-1].split(")", 1)[0]
            kind, label = ArrowKind.RESPONSE_ERROR, f"{e.msg_id} #{d['attempt']} ✗ {status}"
        self.add(Row(e.seq, e.time_ms, kind, self.broker_lane(d["broker"]), lane, label, detail, e.msg_id))

    def send_failed(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        label = f"✗ {e.msg_id} send failed ({d['mode']}, {d['attempts']} attempt{'s' if d['attempts'] != 1 else ''})"
        self.add(Row(e.seq, e.time_ms, ArrowKind.FAILURE, lane, lane, label, d["error"], e.msg_id))

    def pulled(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        ids = d["msg_ids"]
        broker = self.queue_broker.get(d["queue"])
        label = f"pull {ids[0]}" + (f" +{len(ids) - 1}" if len(ids) > 1 else "")
        detail = (
            f"pull from {d['queue']}: offsets {list(d['offsets'])} ({', '.join(ids)}), next offset {d['next_offset']}"
        )
        src = self.broker_lane(broker) if broker is not None else lane
        kind = ArrowKind.PULL if broker is not None else ArrowKind.NOTE
        self.add(Row(e.seq, e.time_ms, kind, src, lane, label, detail, ids[0] if ids else None))

    def delivered(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        last = len(self.rows) - 1
        batch = self.batches.get(last)
        if (
            batch is not None
            and len(batch.ids) < d.get("batch", 1)
            and batch.queue == d["queue"]
            and self.rows[last].time_ms == e.time_ms
            and self.rows[last].src == lane
        ):
            batch.ids.append(e.msg_id or "")
            self.calls[(lane, e.msg_id)] = last
            self.rows[last] = replace(self.rows[last], label=batch.label(), detail=batch.detail())
            return
        batch = _Call([e.msg_id or ""], d["queue"], d["reconsume_times"])
        i = self.add(Row(e.seq, e.time_ms, ArrowKind.LISTENER, lane, lane, batch.label(), batch.detail(), e.msg_id))
        self.batches[i] = batch
        self.calls[(lane, e.msg_id)] = i

    def consumed(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        status, return_type = d["status"], d["return_type"]
        ok = status in _SUCCESS
        result = f"✗ exception → {status}" if return_type == "EXCEPTION" else ("✓ " if ok else "✗ ") + str(status)
        took = f" after {format_duration(d['took_ms'])}" if d["took_ms"] else ""
        detail = f"listener returned {status} ({return_type}){took}"
        i = self.calls.pop((lane, e.msg_id), None)
        failed = return_type == "EXCEPTION"
        if i is not None and i == len(self.rows) - 1 and self.rows[i].time_ms == e.time_ms:
            # returned in the same millisecond it was called: one dot says both
            call = self.batches[i]
            call.results.append(result)
            call.failed = call.failed or failed
            kind = ArrowKind.FAILURE if call.failed else ArrowKind.LISTENER
            self.rows[i] = replace(self.rows[i], kind=kind, label=call.label(), detail=f"{call.detail()}; {detail}")
            return
        kind = ArrowKind.FAILURE if failed else ArrowKind.RESULT
        self.add(Row(e.seq, e.time_ms, kind, lane, lane, f"{e.msg_id} {result}{took}", detail, e.msg_id))
        if i is not None:
            self.spans.append(Span(lane, "listener", self.rows[i].seq, e.seq))

    def send_back(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        broker = self.broker_lane(d["broker"]) if "broker" in d else None
        if broker is None:
            return
        # the broker's effect (schedule hop / DLQ write) was recorded first: draw the request before it
        at = len(self.rows)
        while at > 0:
            prev = self.rows[at - 1]
            same = (prev.time_ms, prev.msg_id, prev.src) == (e.time_ms, e.msg_id, broker)
            if not same or prev.kind not in (ArrowKind.SCHEDULE, ArrowKind.DLQ):
                break
            at -= 1
        asked = f"delayLevel {d['delay_level']}"
        detail = (
            f"CONSUMER_SEND_MSG_BACK {e.msg_id} (reconsume_times={d['reconsume_times']}, {asked}, "
            f"maxReconsumeTimes={d['max_reconsume_times']})"
        )
        if not d["ok"]:
            row = Row(
                e.seq,
                e.time_ms,
                ArrowKind.SEND_BACK_FAILED,
                lane,
                broker,
                f"send-back {e.msg_id} ✗ {d.get('error', 'failed')}",
                f"{detail} failed: {d.get('error', '')}",
                e.msg_id,
            )
            self.rows.insert(at, row)
            return
        dlq = next((i for i in range(at, len(self.rows)) if self.rows[i].kind is ArrowKind.DLQ), None)
        if dlq is not None:
            note = self.rows[dlq]
            self.rows[dlq] = replace(note, src=lane, dst=broker, detail=f"{detail} → {note.detail}")
            return
        label = f"send-back {e.msg_id} r{d['reconsume_times']}"
        self.rows.insert(at, Row(e.seq, e.time_ms, ArrowKind.SEND_BACK, lane, broker, label, detail, e.msg_id))

    def send_back_fallback(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        ok = d["ok"]
        label = f"{'' if ok else '✗ '}fallback: {e.msg_id} via inner producer (L{d['delay_level']})"
        detail = "sendMessageBack failed; the client sent a new %RETRY% message itself" + (
            "" if ok else f", which failed too: {d.get('error', '')}"
        )
        kind = ArrowKind.NOTE if ok else ArrowKind.FAILURE
        self.add(Row(e.seq, e.time_ms, kind, lane, lane, label, detail, e.msg_id))

    def local_retry(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        label = f"{e.msg_id} local retry in {format_duration(d['retry_in_ms'])}"
        detail = f"send-back and fallback failed: {e.msg_id} is consumed again locally (submitConsumeRequestLater)"
        self.add(Row(e.seq, e.time_ms, ArrowKind.NOTE, lane, lane, label, detail, e.msg_id))

    def scheduled(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        broker = lane.partition(":")[2]
        target = self._lane("schedule:" + broker, "schedule", f"{broker} schedule", "ScheduleMessageService")
        level = d["level"]
        wait = d["due_ms"] - e.time_ms
        label = f"{e.msg_id} L{level} · {format_duration(wait)}"
        detail = (
            f"{e.msg_id} parked in SCHEDULE_TOPIC_XXXX queue {level - 1} (delay level {level}), "
            f"due at {format_duration(d['due_ms'])}, then to {d['real_topic']}"
        )
        self.add(Row(e.seq, e.time_ms, ArrowKind.SCHEDULE, lane, target, label, detail, e.msg_id))

    def delay_delivered(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        broker = self.broker_lane(e.actor.partition(":")[2])
        label = f"{e.msg_id} due → {d['topic']}"
        detail = (
            f"ScheduleMessageService: delay level {d['level']} due after {format_duration(d['waited_ms'])}; "
            f"{e.msg_id} stored in {d['topic']} queue {d['queue_id']}"
        )
        self.add(Row(e.seq, e.time_ms, ArrowKind.DUE, lane, broker, label, detail, e.msg_id))

    def dead_lettered(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        label = f"{e.msg_id} → {d['topic']} (r{d['reconsume_times'] - 1})"
        detail = (
            f"{e.msg_id} written to {d['topic']} after {d['reconsume_times']} deliveries "
            f"(original topic {d['original_topic']})"
        )
        self.add(Row(e.seq, e.time_ms, ArrowKind.DLQ, lane, lane, label, detail, e.msg_id))

    def note(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        kind: ArrowKind = ArrowKind.NOTE
        if e.kind is EventKind.SUSPENDED:
            label = f"{e.msg_id} SUSPEND {format_duration(d['retry_in_ms'])} (r{d['reconsume_times']})"
            detail = f"SUSPEND_CURRENT_QUEUE_A_MOMENT: {d['queue']} waits, {e.msg_id} is retried locally"
        elif e.kind is EventKind.BROADCAST_DROPPED:
            kind = ArrowKind.FAILURE
            label = f"✗ {e.msg_id} dropped (BROADCASTING)"
            detail = d["message"]
        elif e.kind is EventKind.CLEAN_EXPIRED:
            label = f"{e.msg_id} cleanExpiredMsg"
            detail = f"cleanExpiredMsg: {e.msg_id} consumed longer than consumeTimeout, sent back"
        elif e.kind is EventKind.REBALANCED:
            added, removed = len(d["added"]), len(d["removed"])
            label = f"rebalance {d['topic']} +{added} −{removed}"
            detail = f"{d['topic']}: now {', '.join(d['queues']) or 'no queues'}"
        elif e.kind is EventKind.ADMIN:
            label = f"mqadmin {d['command']}"
            detail = ", ".join(f"{k}={v}" for k, v in d.items())
        elif e.kind is EventKind.RETENTION_DELETED:
            label = "retention: commit log cleaned"
            detail = ", ".join(f"{k}={v}" for k, v in d.items())
        else:
            return
        self.add(Row(e.seq, e.time_ms, kind, lane, lane, label, detail, e.msg_id))

    def lifecycle(self, e: TraceEvent, lane: str) -> None:
        how = e.data["event"]
        if how == "crash":
            row = Row(e.seq, e.time_ms, ArrowKind.FAULT, lane, lane, "✗ crash", "the consumer process died")
            self.add(row)
            self.span_open(lane, "crashed", e.seq)
            return
        self.span_close(lane, "crashed", e.seq)
        self.add(Row(e.seq, e.time_ms, ArrowKind.NOTE, lane, lane, how, f"consumer {how} ({e.data.get('group', '')})"))

    def fault(self, e: TraceEvent, lane: str) -> None:
        d = e.data
        fault = d["fault"]
        if fault == "broker_down":
            self.add(Row(e.seq, e.time_ms, ArrowKind.FAULT, lane, lane, "✗ broker down", "injected fault: broker down"))
            self.span_open(lane, "down", e.seq)
        elif fault == "broker_up":
            self.add(Row(e.seq, e.time_ms, ArrowKind.FAULT, lane, lane, "broker up", "the broker is back"))
            self.span_close(lane, "down", e.seq)
        elif fault in ("partition", "heal"):
            sign = "✗ partition" if fault == "partition" else "heal"
            label = f"{sign} {d.get('client', '')} ↮ {lane.partition(':')[2]}"
            self.add(Row(e.seq, e.time_ms, ArrowKind.FAULT, lane, lane, label, f"network {fault}: {d}"))
        else:
            self.add(Row(e.seq, e.time_ms, ArrowKind.FAULT, lane, lane, f"fault {fault}", str(dict(d))))

    def lock(self, e: TraceEvent, lane: str) -> None:
        if not self.locks:
            return
        d = e.data
        broker = self.queue_broker.get(d["queue"])
        if broker is None:
            return
        target = self.broker_lane(broker)
        refused = e.kind is EventKind.LOCK_REFUSED
        verb = {
            EventKind.LOCK_ACQUIRED: "lock",
            EventKind.LOCK_RENEWED: "renew",
            EventKind.LOCK_REFUSED: "lock ✗",
            EventKind.UNLOCKED: "unlock",
        }[e.kind]
        kind = ArrowKind.LOCK_REFUSED if refused else ArrowKind.LOCK
        # one lockBatchMQ request covers every queue of that broker: one arrow per (client, broker, ms, verb)
        group_key = (lane, target, e.time_ms, verb)
        queues = self.lock_queues.get(group_key)
        last = len(self.rows) - 1
        if queues is not None and queues[0] == last:
            queues[1].append(d["queue"])
            n = len(queues[1])
            self.rows[last] = replace(
                self.rows[last], label=f"{verb} {n} queues", detail=f"{verb}: {', '.join(queues[1])}"
            )
            return
        self.lock_queues[group_key] = (last + 1, [d["queue"]])
        self.add(Row(e.seq, e.time_ms, kind, lane, target, f"{verb} 1 queue", f"{verb}: {d['queue']}"))

    def lock_expired(self, e: TraceEvent, lane: str) -> None:
        if self.locks:
            d = e.data
            self.add(Row(e.seq, e.time_ms, ArrowKind.NOTE, lane, lane, "lock expired", f"{d['queue']}: trust expired"))


_HANDLERS: dict[EventKind, Any] = {
    EventKind.SEND_ATTEMPT: _Builder.send_attempt,
    EventKind.SEND_RESULT: _Builder.send_result,
    EventKind.SEND_FAILED: _Builder.send_failed,
    EventKind.PULLED: _Builder.pulled,
    EventKind.DELIVERED: _Builder.delivered,
    EventKind.CONSUMED: _Builder.consumed,
    EventKind.SEND_BACK: _Builder.send_back,
    EventKind.SEND_BACK_FALLBACK: _Builder.send_back_fallback,
    EventKind.LOCAL_RETRY: _Builder.local_retry,
    EventKind.SCHEDULED: _Builder.scheduled,
    EventKind.DELAY_DELIVERED: _Builder.delay_delivered,
    EventKind.DEAD_LETTERED: _Builder.dead_lettered,
    EventKind.SUSPENDED: _Builder.note,
    EventKind.BROADCAST_DROPPED: _Builder.note,
    EventKind.CLEAN_EXPIRED: _Builder.note,
    EventKind.REBALANCED: _Builder.note,
    EventKind.ADMIN: _Builder.note,
    EventKind.RETENTION_DELETED: _Builder.note,
    EventKind.LIFECYCLE: _Builder.lifecycle,
    EventKind.FAULT: _Builder.fault,
    EventKind.LOCK_ACQUIRED: _Builder.lock,
    EventKind.LOCK_RENEWED: _Builder.lock,
    EventKind.LOCK_REFUSED: _Builder.lock,
    EventKind.UNLOCKED: _Builder.lock,
    EventKind.LOCK_EXPIRED: _Builder.lock_expired,
}
"""Event kind → the builder method that draws it. Bookkeeping (offsets, STORED, warnings) draws nothing."""


def spacetime_view_model(snap: LabSnapshot, *, locks: bool = True) -> SpaceTimeModel:
    """The space-time diagram of everything in ``snap.events`` (the trace up to the controller's position).

    ``locks=False`` leaves out lock requests and renewals (an orderly run renews every 20 s).
    """
    b = _Builder(snap, locks)
    for e in snap.events:
        b.fold(e)
    rows = _fold_repeats(b.rows, b.spans)
    return SpaceTimeModel(tuple(b.lanes.values()), rows, tuple(b.spans), snap.now_ms, snap.trace_len)


def _fold_repeats(rows: list[Row], spans: list[Span]) -> tuple[Row, ...]:
    """Identical rows (same kind, lanes and label; only the time differs) become one row labelled ``× 12, every
    20 s, 20 s – 4 m``, as the captions and the Events tab fold them (:func:`rmqlab.narrate.group_repeats`). Rows
    that start or end a span stay apart (the span is drawn between them)."""
    ends = {s.start_seq for s in spans} | {s.end_seq for s in spans if s.end_seq is not None}

    def key(r: Row) -> object:
        return r.seq if r.seq in ends else (r.kind, r.src, r.dst, r.label)

    out = []
    for g in group_repeats(rows, key=key, closes=lambda r: True):
        first: Row = g.first
        if g.count == 1:
            out.append(first)
        else:
            label, detail = f"{first.label} {g.summary}", f"{first.detail} ({g.summary})"
            out.append(replace(first, label=label, detail=detail, repeats=g.count))
    return tuple(out)


def spacetime_text(vm: SpaceTimeModel) -> str:
    """One line per row: ``10 s  c1 → broker-a  send-back M0001 r1`` (what the labs print)."""
    titles = {lane.id: lane.title for lane in vm.lanes}
    lines = []
    for r in vm.rows:
        who = f"{titles[r.src]} → {titles[r.dst]}" if r.is_arrow else titles[r.src]
        lines.append(f"{format_duration(r.time_ms):>12}  {who}  {r.label}")
    lines.append(f"{format_duration(vm.now_ms):>12}  now (position {vm.position})")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- the drawing
AXIS_W = 104
"""Width of the time axis column (labels right-aligned against the axis line)."""
LANE_W = 172
ROW_H = 22
GAP_H = 10
"""Extra space where virtual time jumps between two rows (the axis break)."""
LEGEND_H = 52
HEADER_H = 40
FONT_PX = 11
LABEL_PX = 11


def _fit(text: str, max_px: float, px: float) -> str:
    """``text`` cut to ``max_px`` with an ellipsis (the tooltip keeps the whole)."""
    if text_width(text, px) <= max_px:
        return text
    while text and text_width(text + "…", px) > max_px:
        text = text[:-1]
    return text.rstrip() + "…"


SCOPE = '[data-testid="rq-spacetime"]'
"""The CSS scope: the scene's root carries this test id, so the rules touch this picture only."""


def _css() -> str:
    o = OKABE_ITO
    dark = f'body[data-jp-theme-light="false"] {SCOPE}'
    return f"""
{SCOPE} .rq-st-label {{ font-size: {LABEL_PX}px; }}
{SCOPE} text.rq-st-fail-text {{ fill: var(--jp-error-color1, #c62828); }}
{SCOPE} .rq-st-lifeline {{ stroke: var(--jp-border-color1, #9e9e9e); stroke-width: 1; }}
{SCOPE} .rq-st-down {{ stroke: {o["vermillion"]}; stroke-width: 3; stroke-dasharray: 4 3; }}
{SCOPE} .rq-st-crashed {{ stroke: {o["vermillion"]}; stroke-width: 3; stroke-dasharray: 1 3; }}
{SCOPE} .rq-st-active {{ fill: var(--jp-layout-color3, #bdbdbd); stroke: var(--jp-border-color1, #9e9e9e); }}
{SCOPE} .rq-st-band {{ fill: var(--jp-layout-color2, #eeeeee); }}
{SCOPE} .rq-st-send {{ stroke: {o["blue"]}; stroke-width: 1.6; }}
{dark} .rq-st-send {{ stroke: {o["sky_blue"]}; }}
{SCOPE} .rq-st-response {{ stroke: {o["blue"]}; stroke-width: 1.2; stroke-dasharray: 6 3; }}
{dark} .rq-st-response {{ stroke: {o["sky_blue"]}; }}
{SCOPE} .rq-st-pull {{ stroke: {o["bluish_green"]}; stroke-width: 1.6; }}
{SCOPE} .rq-st-send-back {{ stroke: {o["orange"]}; stroke-width: 1.6; stroke-dasharray: 7 3; }}
{SCOPE} .rq-st-schedule, {SCOPE} .rq-st-due {{ stroke: {o["reddish_purple"]}; stroke-width: 1.6;
  stroke-dasharray: 2 3; }}
{SCOPE} .rq-st-dlq {{ stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-width: 2.6; }}
{SCOPE} .rq-st-lock {{ stroke: var(--jp-ui-font-color3, #9e9e9e); stroke-width: 1; stroke-dasharray: 1 3; }}
{SCOPE} .rq-st-send-refused, {SCOPE} .rq-st-response-lost, {SCOPE} .rq-st-response-error,
{SCOPE} .rq-st-send-back-failed, {SCOPE} .rq-st-lock-refused {{ stroke: {o["vermillion"]}; stroke-width: 1.6;
  stroke-dasharray: 4 2; }}
{SCOPE} .rq-st-cross {{ stroke: {o["vermillion"]}; stroke-width: 2; fill: none; }}
{SCOPE} circle.rq-st-dot {{ fill: var(--jp-ui-font-color2, #616161); stroke: none; }}
{SCOPE} circle.rq-st-dot-ok {{ fill: {o["bluish_green"]}; stroke: none; }}
{SCOPE} circle.rq-st-dot-fail {{ fill: {o["vermillion"]}; stroke: none; }}
{SCOPE} circle.rq-st-dot-dlq {{ fill: var(--jp-ui-font-color1, #1f1f1f); stroke: none; }}
{SCOPE} .rq-st-now {{ stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2; }}
{SCOPE} text.rq-st-now-text {{ fill: var(--jp-brand-color1, #1976d2); font-weight: 600; }}
"""


CSS = _css()
LEGEND: tuple[tuple[str, str, str], ...] = (
    ("line", "rq-st-send", N_("send (✓ SEND_OK)")),
    ("line", "rq-st-pull", N_("pull → listener")),
    ("line", "rq-st-send-back", N_("send-back")),
    ("line", "rq-st-schedule", N_("schedule hop / due")),
    ("line", "rq-st-dlq", N_("DLQ write")),
    ("line", "rq-st-lock", N_("lock / renew")),
    ("line", "rq-st-send-refused", N_("failed (✗ refused, lost)")),
    ("line", "rq-st-response", N_("late response")),
    ("line", "rq-st-down", N_("broker down")),
    ("line", "rq-st-now", N_("now")),
)
"""Every glyph the diagram uses, in two rows of the legend strip."""


def _dot_class(r: Row) -> str:
    if r.failed or (r.kind is ArrowKind.FAULT and r.label.startswith("✗")):
        return "rq-st-dot-fail"
    if r.kind is ArrowKind.DLQ:
        return "rq-st-dot-dlq"
    if "✓" in r.label:
        return "rq-st-dot-ok"
    return "rq-st-dot"


def spacetime_scene(vm: SpaceTimeModel, *, max_rows: int | None = None) -> Scene:
    """The diagram as a Scene: the last ``max_rows`` rows (all when None) above the "now" line."""
    xs = {lane.id: AXIS_W + LANE_W * (i + 0.5) for i, lane in enumerate(vm.lanes)}
    lanes_right = AXIS_W + LANE_W * len(vm.lanes)
    legend_cols = (len(LEGEND) + 1) // 2
    width = int(max(lanes_right + 24, AXIS_W + legend_cols * 168))
    rows = vm.rows if max_rows is None or len(vm.rows) <= max_rows else vm.rows[-max_rows:]
    hidden = len(vm.rows) - len(rows)
    top = LEGEND_H + HEADER_H + 10
    marks = _header(vm, xs, legend_cols=legend_cols, top=top, hidden=hidden)
    ys, breaks, now_y = _row_ys(vm, rows, top)
    bottom = now_y + 18
    height = int(bottom + 8)
    marks.extend(_lifelines_and_spans(vm, xs, ys, top=top, bottom=bottom, now_y=now_y))
    marks.extend(_time_axis(rows, ys, breaks, top=top, bottom=bottom))
    for r in rows:
        marks.extend(_row_marks(r, xs, ys[r.seq], width))
    marks.extend(_now_marks(vm, now_y=now_y, lanes_right=lanes_right))
    label = (
        f"Space-time diagram: {len(vm.lanes)} actors, {len(vm.rows)} events up to "
        f"{format_duration(vm.now_ms)} (position {vm.position})"
    )
    extra = (
        ("now-ms", str(vm.now_ms)),
        ("position", str(vm.position)),
        ("rows", str(len(rows))),
        ("hidden-rows", str(hidden)),
        ("axis", "event-indexed"),
    )
    return Scene(width, height, tuple(marks), label=label, testid="rq-spacetime", css=CSS, extra=extra)


def _header(vm: SpaceTimeModel, xs: dict[str, float], *, legend_cols: int, top: float, hidden: int) -> list[Mark]:
    """The legend strip, a title and subtitle over each lane, and the time axis' title."""
    marks: list[Mark] = []
    for col in range(legend_cols):
        items = LEGEND[2 * col : 2 * col + 2]
        marks.extend(legend_marks(items, x=AXIS_W + 168 * col, y=12, key=f"legend{col}", gap=18))
    head_y = LEGEND_H + 14
    for lane in vm.lanes:
        x = xs[lane.id]
        title = _fit(lane.title, LANE_W - 8, 12)
        marks.append(
            Mark(
                "text",
                f"lane:{lane.id}:title",
                x=x,
                y=head_y,
                text=title,
                anchor="middle",
                cls="rq-title",
                role="lane",
                title=lane.id,
            )
        )
        marks.append(
            Mark(
                "text",
                f"lane:{lane.id}:sub",
                x=x,
                y=head_y + 14,
                text=_fit(lane.subtitle, LANE_W - 8, LABEL_PX),
                anchor="middle",
                cls="rq-muted rq-st-label",
                role="lane-subtitle",
            )
        )
    axis_title = "virtual time ↓ · event-indexed: one row per event, not to scale"
    marks.append(
        Mark(
            "text",
            "axis:title",
            x=4,
            y=top - 4,
            text=axis_title if not hidden else f"{axis_title} · ⋮ {hidden} earlier rows",
            cls="rq-muted rq-st-label",
            role="axis-title",
        )
    )
    return marks


def _row_ys(
    vm: SpaceTimeModel, rows: tuple[Row, ...], top: float
) -> tuple[dict[int, float], list[tuple[int, float]], float]:
    """Each row's y (one row per event, a gap where virtual time jumps), the gaps' axis breaks, and the now
    line's y (a gap above it too when time moved on since the last row)."""
    ys: dict[int, float] = {}
    y = top + ROW_H * 0.5
    prev_t: int | None = None
    breaks: list[tuple[int, float]] = []
    for r in rows:
        if prev_t is not None:
            y += ROW_H
            if r.time_ms != prev_t:
                y += GAP_H
                breaks.append((r.seq, y - ROW_H / 2 - GAP_H / 2))
        ys[r.seq] = y
        prev_t = r.time_ms
    last_y = y if rows else top
    now_gap = GAP_H if rows and vm.now_ms != prev_t else 0
    return ys, breaks, last_y + (ROW_H if rows else ROW_H * 0.5) + now_gap


def _lifelines_and_spans(
    vm: SpaceTimeModel, xs: dict[str, float], ys: dict[int, float], *, top: float, bottom: float, now_y: float
) -> list[Mark]:
    """A lifeline per lane, then the spans on them (a listener's run as a bar, waits and locks as lines)."""
    marks = [
        Mark(
            "line",
            f"life:{lane.id}",
            x=xs[lane.id],
            y=top,
            x2=xs[lane.id],
            y2=bottom,
            cls="rq-st-lifeline",
            role="lifeline",
        )
        for lane in vm.lanes
    ]
    for s in vm.spans:
        if s.lane not in xs:
            continue
        y1 = ys.get(s.start_seq, top)
        y2 = ys.get(s.end_seq, now_y) if s.end_seq is not None else now_y
        if s.end_seq is not None and s.end_seq not in ys and s.start_seq not in ys:
            continue  # entirely above the window
        x = xs[s.lane]
        key = f"span:{s.start_seq}:{s.lane}"
        if s.kind == "listener":
            h = max(y2 - y1, 1)
            marks.append(Mark("rect", key, x=x - 3, y=y1, w=6, h=h, cls="rq-st-active", role="listener-span"))
        else:
            marks.append(Mark("line", key, x=x, y=y1, x2=x, y2=y2, cls=f"rq-st-{s.kind}", role=f"{s.kind}-span"))
    return marks


def _time_axis(
    rows: tuple[Row, ...], ys: dict[int, float], breaks: list[tuple[int, float]], *, top: float, bottom: float
) -> list[Mark]:
    """The event-indexed time axis: a tick and time at the first row of each instant, a break mark at each jump."""
    marks = [Mark("line", "axis", x=AXIS_W - 6, y=top, x2=AXIS_W - 6, y2=bottom, cls="rq-axis", role="axis")]
    shown_t: int | None = None
    for r in rows:
        if r.time_ms != shown_t:
            ty = ys[r.seq]
            marks.append(Mark("line", f"tick:{r.seq}", x=AXIS_W - 10, y=ty, x2=AXIS_W - 6, y2=ty, cls="rq-axis"))
            marks.append(
                Mark(
                    "text",
                    f"tick:{r.seq}:t",
                    x=AXIS_W - 13,
                    y=ty + 4,
                    text=format_duration(r.time_ms),
                    anchor="end",
                    role="time-tick",
                    title=f"{r.time_ms} ms",
                )
            )
            shown_t = r.time_ms
    for seq, by in breaks:
        x = AXIS_W - 6
        d = f"M{x - 4},{by + 1} l8,-3 M{x - 4},{by + 4} l8,-3"
        marks.append(Mark("path", f"break:{seq}", d=d, cls="rq-axis", role="axis-break"))
    return marks


def _now_marks(vm: SpaceTimeModel, *, now_y: float, lanes_right: float) -> list[Mark]:
    """The now line across every lane, "now" over it and the time under it (one line would not fit the axis)."""
    title = f"now: {format_duration(vm.now_ms)} (position {vm.position})"
    return [
        Mark("line", "now", x=AXIS_W - 6, y=now_y, x2=lanes_right, y2=now_y, cls="rq-st-now", role="now", title=title),
        Mark("text", "now:label", x=AXIS_W - 13, y=now_y - 4, text="now", anchor="end", cls="rq-st-now-text"),
        Mark(
            "text",
            "now:t",
            x=AXIS_W - 13,
            y=now_y + 13,
            text=format_duration(vm.now_ms),
            anchor="end",
            cls="rq-st-now-text",
            role="now-label",
            title=f"{vm.now_ms} ms",
        ),
    ]


def _row_marks(r: Row, xs: dict[str, float], y: float, width: float) -> list[Mark]:
    key = f"row:{r.seq}"
    text_cls = "rq-st-label" + (" rq-st-fail-text" if r.failed else "")
    if r.is_arrow and r.src != r.dst:
        x1, x2 = xs[r.src], xs[r.dst]
        sign = 1 if x2 > x1 else -1
        x1 += 4 * sign
        end = x1 + (x2 - x1) * 0.6 if r.kind in _BROKEN else x2 - 4 * sign
        marks = [
            Mark(
                "line",
                key,
                x=x1,
                y=y,
                x2=end,
                y2=y,
                cls=f"rq-st-{r.kind.value}",
                arrow=r.kind not in _BROKEN,
                role=r.kind.value,
                title=r.detail,
            )
        ]
        if r.kind in _BROKEN:  # a cross where the request / response stopped (a path: no text to collide)
            cross = f"M{end - 4:.1f},{y - 4:.1f} l8,8 M{end - 4:.1f},{y + 4:.1f} l8,-8"
            marks.append(Mark("path", f"{key}:x", d=cross, cls="rq-st-cross", role="broken"))
        lo, hi = min(x1, x2), max(x1, x2)
        room = max(hi - lo - 8, 2 * LANE_W - 24)  # the row holds nothing else: a label may outgrow a short arrow
        text = _fit(r.label, room, LABEL_PX)
        w = text_width(text, LABEL_PX)
        mid = min(max((lo + hi) / 2, AXIS_W + w / 2 + 2), width - w / 2 - 2)
        marks.append(
            Mark(
                "text",
                f"{key}:label",
                x=mid,
                y=y - 5,
                text=text,
                anchor="middle",
                cls=text_cls,
                role="arrow-label",
                title=r.detail,
            )
        )
        return marks
    x = xs[r.src]
    marks = [Mark("circle", key, x=x, y=y, r=4, cls=f"rq-st-dot {_dot_class(r)}", role=r.kind.value, title=r.detail)]
    # local labels go right of the line, or left for the last lane (room in the picture either way)
    room = LANE_W * 2 - 24
    text = _fit(r.label, room, LABEL_PX)
    w = text_width(text, LABEL_PX)
    if x + 9 + w <= width - 2:
        marks.append(
            Mark("text", f"{key}:label", x=x + 9, y=y + 4, text=text, cls=text_cls, role="dot-label", title=r.detail)
        )
    else:
        marks.append(
            Mark(
                "text",
                f"{key}:label",
                x=x - 9,
                y=y + 4,
                text=text,
                anchor="end",
                cls=text_cls,
                role="dot-label",
                title=r.detail,
            )
        )
    return marks


class SpaceTimeView(SceneView):
    """The space-time diagram of the run so far; ``max_rows`` keeps the "now" line on screen."""

    title = N_("Space-time")

    def __init__(self, *, max_rows: int | None = 36, locks: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_rows, self.locks = max_rows, locks

    def model(self, snap: LabSnapshot) -> SpaceTimeModel:
        return spacetime_view_model(snap, locks=self.locks)

    def scene(self, vm: SpaceTimeModel) -> Scene:
        return spacetime_scene(vm, max_rows=self.max_rows)

    def to_text(self, vm: SpaceTimeModel) -> str:
        return spacetime_text(vm)
