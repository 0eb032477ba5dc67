"""The space-time diagram's view-model: lanes (one per actor), rows (one per drawn event), spans, and "now".

:mod:`widgets.spacetime_view` tells the whole story of the diagram; :mod:`widgets.spacetime_rows` folds the
trace into this model and :mod:`widgets.spacetime_scene` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rmqlab import TraceEvent, format_duration

__all__ = [
    "ARROWS",
    "BROKEN",
    "FAILED",
    "ArrowKind",
    "Lane",
    "Row",
    "SpaceTimeModel",
    "Span",
    "spacetime_text",
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
BROKEN = frozenset({ArrowKind.SEND_REFUSED, ArrowKind.RESPONSE_LOST})
"""Arrows that never arrive: drawn to 60 % of the way, ending in ✗."""
FAILED = frozenset(
    {
        ArrowKind.SEND_REFUSED,
        ArrowKind.RESPONSE_LOST,
        ArrowKind.RESPONSE_ERROR,
        ArrowKind.SEND_BACK_FAILED,
        ArrowKind.LOCK_REFUSED,
        ArrowKind.FAILURE,
    }
)


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

    @classmethod
    def of_event(cls, e: TraceEvent, kind: ArrowKind, src: str, dst: str, label: str, detail: str) -> Row:
        """The row that draws event ``e`` (its seq, its time and its message, if any) from ``src`` to ``dst``: the one
        way every per-event row builder (:mod:`widgets.spacetime_client_rows`, :mod:`widgets.spacetime_broker_rows`)
        makes a row, so a handler says only what differs (the arrow kind, its ends and its words)."""
        return cls(e.seq, e.time_ms, kind, src, dst, label, detail, e.msg_id)

    @property
    def is_arrow(self) -> bool:
        return self.kind in ARROWS

    @property
    def failed(self) -> bool:
        return self.kind in FAILED or self.label.startswith("✗")


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


def spacetime_text(vm: SpaceTimeModel) -> str:
    """One line per row: ``10 s  c1 → broker-a  send-back M0001 r1`` (what the labs print)."""
    titles = {lane.id: lane.title for lane in vm.lanes}
    lines = []
    for r in vm.rows:
        who = f"{titles[r.src]} → {titles[r.dst]}" if r.is_arrow else titles[r.src]
        lines.append(f"{format_duration(r.time_ms):>12}  {who}  {r.label}")
    lines.append(f"{format_duration(vm.now_ms):>12}  now (position {vm.position})")
    return "\n".join(lines)
