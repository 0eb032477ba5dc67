"""The space-time rows the clients draw: send attempts and their answers, pulls, listener calls and their
results, send-backs and what a client does when a send-back fails (each ``fn(builder, event, lane)``, see
:data:`widgets.spacetime_rows.HANDLERS`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from rmqlab import TraceEvent, format_duration
from rmqlab.core.i18n import gettext as _
from rmqlab.core.i18n import ngettext
from rmqlab.lab.report import SUCCESS_STATUSES

from .spacetime_model import ArrowKind, Row, Span

if TYPE_CHECKING:
    from .spacetime_rows import RowBuilder

__all__ = [
    "ListenerCall",
    "consumed",
    "delivered",
    "local_retry",
    "pulled",
    "send_attempt",
    "send_back",
    "send_back_fallback",
    "send_failed",
    "send_result",
]

_SEND_OK = frozenset({"SUCCESS", "ONEWAY_SENT"})
_STORED_NOT_OK = frozenset({"FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE"})
"""Send statuses of a message the broker *stored* (4.9.7 ``SendStatus``): drawn as stored, with the status, not as a
failure (lab 01b drew FLUSH_DISK_TIMEOUT in the failed style, ✗)."""


@dataclass(slots=True)
class ListenerCall:
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
        return _("listener called with {msgs} (reconsume_times={times}) from {queue}").format(
            msgs=", ".join(self.ids), times=self.reconsume_times, queue=self.queue
        )


def send_attempt(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    d = e.data
    attempt = d["attempt"]
    topic = d["topic"]
    where = f" → {topic}" if lane.startswith("consumer:") else f" q{d['queue_id']}"
    label = f"{e.msg_id} #{attempt}{where}"
    detail = _("{mode} send attempt {attempt} of {msg} to {topic} queue {queue} on {broker}").format(
        mode=d["mode"], attempt=attempt, msg=e.msg_id, topic=topic, queue=d["queue_id"], broker=d["broker"]
    )
    i = builder.add(Row.of_event(e, ArrowKind.SEND, lane, builder.broker_lane(d["broker"]), label, detail))
    builder.attempts[(e.actor, e.msg_id, attempt)] = i


def send_result(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    d = e.data
    outcome: str = d["outcome"]
    name = outcome.split(":", 1)[0]
    i = builder.attempts.get((e.actor, e.msg_id, d["attempt"]))
    detail = _("attempt {attempt} of {msg}: {outcome}").format(attempt=d["attempt"], msg=e.msg_id, outcome=outcome)
    if i is not None:
        sent = builder.rows[i]
        if name == "RemotingConnectException":  # the request never reached the broker: the arrow stops short
            builder.rows[i] = replace(
                sent,
                kind=ArrowKind.SEND_REFUSED,
                label=f"{sent.label} ✗ {name}",
                detail=f"{sent.detail} — {outcome}",
            )
            return
        if name in _SEND_OK and e.time_ms == sent.time_ms:  # an instant success: one arrow says both
            builder.rows[i] = replace(sent, label=f"{sent.label} ✓", detail=f"{sent.detail} — {outcome}")
            return
        if name in _STORED_NOT_OK and e.time_ms == sent.time_ms:  # stored, though not as safe as asked
            builder.rows[i] = replace(sent, label=f"{sent.label} ✓ {name}", detail=f"{sent.detail} — {_stored(name)}")
            return
    if name == "RemotingTimeoutException":
        label = _("{msg} #{attempt} ✗ timeout").format(msg=e.msg_id, attempt=d["attempt"])
        kind = ArrowKind.RESPONSE_LOST
    elif name in _SEND_OK:
        kind, label = ArrowKind.RESPONSE, f"{e.msg_id} #{d['attempt']} {name}"
    elif name in _STORED_NOT_OK:
        kind, label, detail = ArrowKind.RESPONSE, f"{e.msg_id} #{d['attempt']} ✓ {name}", f"{detail} — {_stored(name)}"
    else:
        status = name if name != "MQBrokerException" else outcome.split("(", 1)[-1].split(")", 1)[0]
        kind, label = ArrowKind.RESPONSE_ERROR, f"{e.msg_id} #{d['attempt']} ✗ {status}"
    builder.add(Row.of_event(e, kind, builder.broker_lane(d["broker"]), lane, label, detail))


def _stored(status: str) -> str:
    """The tooltip's words: the message is in the broker's CommitLog; only the flush or the copy to a slave was late."""
    return _("stored; {status}: the broker could not make it as safe as asked in time").format(status=status)


def send_failed(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    d = e.data
    label = "✗ " + ngettext("{msg} send failed ({mode}, {n} attempt)", "{msg} send failed ({mode}, {n} attempts)",
                            d["attempts"]).format(msg=e.msg_id, mode=d["mode"], n=d["attempts"])  # fmt: skip
    builder.add(Row.of_event(e, ArrowKind.FAILURE, lane, lane, label, d["error"]))


def pulled(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    d = e.data
    ids = d["msg_ids"]
    broker = builder.broker_of(d["queue"])
    label = _("pull {msg}").format(msg=ids[0]) + (f" +{len(ids) - 1}" if len(ids) > 1 else "")
    detail = _("pull from {queue}: offsets {offsets} ({msgs}), next offset {next}").format(
        queue=d["queue"], offsets=list(d["offsets"]), msgs=", ".join(ids), next=d["next_offset"]
    )
    src = builder.broker_lane(broker) if broker is not None else lane
    kind = ArrowKind.PULL if broker is not None else ArrowKind.NOTE
    builder.add(Row(e.seq, e.time_ms, kind, src, lane, label, detail, ids[0] if ids else None))


def delivered(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    d = e.data
    last = len(builder.rows) - 1
    batch = builder.batches.get(last)
    if (
        batch is not None
        and len(batch.ids) < d.get("batch", 1)
        and batch.queue == d["queue"]
        and builder.rows[last].time_ms == e.time_ms
        and builder.rows[last].src == lane
    ):
        batch.ids.append(e.msg_id or "")
        builder.calls[(lane, e.msg_id)] = last
        builder.rows[last] = replace(builder.rows[last], label=batch.label(), detail=batch.detail())
        return
    batch = ListenerCall([e.msg_id or ""], d["queue"], d["reconsume_times"])
    i = builder.add(Row.of_event(e, ArrowKind.LISTENER, lane, lane, batch.label(), batch.detail()))
    builder.batches[i] = batch
    builder.calls[(lane, e.msg_id)] = i


def consumed(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    d = e.data
    status, return_type = d["status"], d["return_type"]
    ok = status in SUCCESS_STATUSES
    result = (
        _("✗ exception → {status}").format(status=status)
        if return_type == "EXCEPTION"
        else ("✓ " if ok else "✗ ") + str(status)
    )
    took = _(" after {time}").format(time=format_duration(d["took_ms"])) if d["took_ms"] else ""
    detail = _("listener returned {status} ({kind})").format(status=status, kind=return_type) + took
    i = builder.calls.pop((lane, e.msg_id), None)
    failed = return_type == "EXCEPTION"
    if i is not None and i == len(builder.rows) - 1 and builder.rows[i].time_ms == e.time_ms:
        # returned in the same millisecond it was called: one dot says both
        call = builder.batches[i]
        call.results.append(result)
        call.failed = call.failed or failed
        kind = ArrowKind.FAILURE if call.failed else ArrowKind.LISTENER
        builder.rows[i] = replace(builder.rows[i], kind=kind, label=call.label(), detail=f"{call.detail()}; {detail}")
        return
    kind = ArrowKind.FAILURE if failed else ArrowKind.RESULT
    builder.add(Row.of_event(e, kind, lane, lane, f"{e.msg_id} {result}{took}", detail))
    if i is not None:
        builder.spans.append(Span(lane, "listener", builder.rows[i].seq, e.seq))


def send_back(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    d = e.data
    broker = builder.broker_lane(d["broker"]) if "broker" in d else None
    if broker is None:
        return
    # the broker's effect (schedule hop / DLQ write) was recorded first: draw the request before it
    at = len(builder.rows)
    while at > 0:
        prev = builder.rows[at - 1]
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
        label = _("send-back {msg} ✗ {error}").format(msg=e.msg_id, error=d.get("error", "failed"))
        failed = Row.of_event(
            e, ArrowKind.SEND_BACK_FAILED, lane, broker, label,
            _("{request} failed: {error}").format(request=detail, error=d.get("error", "")),
        )  # fmt: skip
        builder.rows.insert(at, failed)
        return
    dlq = next((i for i in range(at, len(builder.rows)) if builder.rows[i].kind is ArrowKind.DLQ), None)
    if dlq is not None:
        note = builder.rows[dlq]
        builder.rows[dlq] = replace(note, src=lane, dst=broker, detail=f"{detail} → {note.detail}")
        return
    label = _("send-back {msg} r{times}").format(msg=e.msg_id, times=d["reconsume_times"])
    builder.rows.insert(at, Row.of_event(e, ArrowKind.SEND_BACK, lane, broker, label, detail))


def send_back_fallback(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    d = e.data
    ok = d["ok"]
    label = ("" if ok else "✗ ") + _("fallback: {msg} via inner producer (L{level})").format(
        msg=e.msg_id, level=d["delay_level"]
    )
    if ok:
        detail = _("sendMessageBack failed; the client sent a new %RETRY% message itself")
    else:
        detail = _(
            "sendMessageBack failed; the client sent a new %RETRY% message itself, which failed too: {error}"
        ).format(error=d.get("error", ""))
    kind = ArrowKind.NOTE if ok else ArrowKind.FAILURE
    builder.add(Row.of_event(e, kind, lane, lane, label, detail))


def local_retry(builder: RowBuilder, e: TraceEvent, lane: str) -> None:
    d = e.data
    label = _("{msg} local retry in {time}").format(msg=e.msg_id, time=format_duration(d["retry_in_ms"]))
    detail = _("send-back and fallback failed: {msg} is consumed again locally (submitConsumeRequestLater)").format(
        msg=e.msg_id
    )
    builder.add(Row.of_event(e, ArrowKind.NOTE, lane, lane, label, detail))
