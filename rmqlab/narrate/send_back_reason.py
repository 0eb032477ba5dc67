"""Why a concurrently consuming client sent a message back, read from the events before the send-back.

A send-back is not always a failure (issue 30: every one read "c1 failed M0003 …"). In 4.9.7 three things send a
message back, and the trace tells them apart:

- ``ConsumeMessageConcurrentlyService.processConsumeResult`` after the listener returned ``RECONSUME_LATER``, or
  threw, or returned null (``ConsumeRequest.run`` counts both as ``RECONSUME_LATER``): the CONSUMED event's
  ``status`` and ``return_type`` (``EXCEPTION``, ``RETURNNULL``) say which;
- the same method after ``CONSUME_SUCCESS`` with ``ackIndex`` short of the batch (CLUSTERING sends back every
  message after ``ackIndex + 1``): the CONSUMED status is ``CONSUME_SUCCESS``, and the first message of the batch
  sent back sits at ``ackIndex + 1`` of the batch its DELIVERED events handed to the listener;
- ``ProcessQueue.cleanExpiredMsg`` for a message consuming longer than ``consumeTimeout`` (sent back at delay level
  3 and removed, the listener still running): a CLEAN_EXPIRED event came first. Slowness is not a failure.

:func:`note_delivered`, :func:`note_consumed` and :func:`note_sent_back` keep what :func:`send_back_reason` needs in
the :class:`~rmqlab.narrate.context.CaptionContext`; :func:`cause_words` and :func:`cause_rule` word the reason for
the plain line and the source line.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.i18n import gettext as _
from ..core.trace import TraceEvent
from .context import CaptionContext, dur, name_of
from .plain_words import ordinal

__all__ = [
    "SendBackReason",
    "cause_rule",
    "cause_words",
    "note_consumed",
    "note_delivered",
    "note_sent_back",
    "send_back_reason",
]

FAILED, THREW, RETURNED_NULL, ACK_INDEX, EXPIRED, UNKNOWN = "failed", "threw", "null", "ack", "expired", "unknown"


@dataclass(frozen=True, slots=True)
class SendBackReason:
    """What made the client send one message back."""

    kind: str
    """``failed`` (``RECONSUME_LATER``), ``threw``, ``null``, ``ack`` (``ackIndex``), ``expired`` (consume timeout),
    or ``unknown`` (narrated without the run before it)."""
    ack_index: int = -1
    last_acked: str | None = None
    """The batch's message at ``ack_index`` (the last one acknowledged), None when none was."""
    batch: int = 1
    consuming_ms: int = 0
    """``expired``: how long it had been consuming."""


def note_delivered(ctx: CaptionContext, e: TraceEvent) -> None:
    """A DELIVERED event: the batch it belongs to (a batch's events are recorded together, ``batch`` of them)."""
    msg, size = e.msg_id or "?", int(e.data.get("batch", 1))
    ids, open_size = ctx.open_batch.get(e.actor, ([], 0))
    if not ids or len(ids) >= open_size:
        ids, open_size = [], size
        ctx.open_batch[e.actor] = (ids, open_size)
    ids.append(msg)
    ctx.batch_of[msg] = ids


def note_consumed(ctx: CaptionContext, e: TraceEvent) -> None:
    """A CONSUMED event: its status and return type, the cause of a send-back that follows."""
    msg = e.msg_id or "?"
    ctx.consume_result[msg] = (str(e.data.get("status")), str(e.data.get("return_type")))
    ctx.sent_back.discard(msg)


def note_sent_back(ctx: CaptionContext, e: TraceEvent) -> None:
    ctx.sent_back.add(e.msg_id or "?")


def send_back_reason(ctx: CaptionContext, e: TraceEvent) -> SendBackReason:
    """Why the SEND_BACK ``e`` happened (call before :func:`note_sent_back` of it)."""
    msg = e.msg_id or "?"
    if msg in ctx.cleaned:
        return SendBackReason(EXPIRED, consuming_ms=ctx.cleaned[msg])
    status, how = ctx.consume_result.get(msg, ("", ""))
    if status == "CONSUME_SUCCESS":
        batch = ctx.batch_of.get(msg, [msg])
        first = min(i for i, m in enumerate(batch) if m == msg or m in ctx.sent_back)
        ack = first - 1
        return SendBackReason(ACK_INDEX, ack_index=ack, last_acked=batch[ack] if ack >= 0 else None, batch=len(batch))
    if how == "EXCEPTION":
        return SendBackReason(THREW)
    if how == "RETURNNULL":
        return SendBackReason(RETURNED_NULL)
    return SendBackReason(FAILED if status else UNKNOWN)


def cause_words(reason: SendBackReason, ctx: CaptionContext, e: TraceEvent) -> str:
    """The plain line's cause, a clause without a full stop ("c1 acknowledged only up to M0002 (ack index 1)");
    ``""`` for ``failed`` and ``unknown``, whose sentences say it whole."""
    msg, who = e.msg_id or "?", name_of(e.actor)
    nth = ordinal(int(e.data.get("reconsume_times", 0)) + 1)
    if reason.kind == THREW:
        return _("{who}'s listener threw an exception on {msg} (its {nth} failure)").format(who=who, msg=msg, nth=nth)
    if reason.kind == RETURNED_NULL:
        return _("{who}'s listener returned no result for {msg} (its {nth} failure)").format(who=who, msg=msg, nth=nth)
    if reason.kind == ACK_INDEX and reason.last_acked is None:
        return _("{who}'s listener succeeded but acknowledged none of its batch (ack index -1)").format(who=who)
    if reason.kind == ACK_INDEX:
        return _("{who} acknowledged only up to {last} (ack index {ack})").format(
            who=who, last=reason.last_acked, ack=reason.ack_index
        )
    if reason.kind == EXPIRED:
        return _("{msg} has been in {who}'s listener for {took}, longer than its 15 min consume timeout").format(
            msg=msg, who=who, took=dur(reason.consuming_ms)
        )
    return ""


def cause_rule(reason: SendBackReason, msg: str, level: object) -> str:
    """The source line's head: the rule that sent ``msg`` back, then the call."""
    call = f"sendMessageBack({msg}, delayLevel {level})"
    if reason.kind == THREW:
        return _("the listener threw, counted as RECONSUME_LATER → {call}").format(call=call)
    if reason.kind == RETURNED_NULL:
        return _("the listener returned null, counted as RECONSUME_LATER → {call}").format(call=call)
    if reason.kind == ACK_INDEX:  # only CONSUME_SUCCESS reads ackIndex; the messages after it go back
        return _("ackIndex {ack} of {size} → {call}").format(ack=reason.ack_index, size=reason.batch, call=call)
    if reason.kind == EXPIRED:
        return _("consuming for {took} > consumeTimeout 15 min → {call}").format(
            took=dur(reason.consuming_ms), call=call
        )
    return f"RECONSUME_LATER → {call}"
