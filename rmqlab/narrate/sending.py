"""Captions of a producer's send: each attempt, its answer, the send's failure (``DefaultMQProducerImpl``).

An attempt's caption says why it is made (a retry after which failure, avoiding which broker) and how much of
the one ``sendMsgTimeout`` budget is left; an answer's says whether ``sendDefaultImpl`` tries again.
"""

from __future__ import annotations

from ..core.i18n import gettext as _
from ..core.i18n import ngettext
from ..core.trace import TraceEvent
from .context import CaptionContext, name_of

__all__ = [
    "NOT_STORE_OK",
    "RETRIED_CODES",
    "SELECTOR_ERRORS",
    "SEND_TIMES_TOTAL",
    "on_send_attempt",
    "on_send_failed",
    "on_send_result",
    "selector_failed",
    "send_entry",
]

SEND_TIMES_TOTAL = {"SYNC": 3, "ASYNC": 3, "ONEWAY": 1}
"""Attempts a plain send may make: SYNC 1 + retryTimesWhenSendFailed 2, ASYNC 1 +
retryTimesWhenSendAsyncFailed 2 (no-response failures only), ONEWAY exactly one."""
RETRIED_CODES = frozenset(
    {"TOPIC_NOT_EXIST", "SERVICE_NOT_AVAILABLE", "SYSTEM_ERROR", "NO_PERMISSION", "NO_BUYER_ID", "NOT_IN_CURRENT_UNIT"}
)
"""``DefaultMQProducer.retryResponseCodes`` in 4.9.7 (SYSTEM_BUSY is not among them)."""
NOT_STORE_OK = frozenset({"FLUSH_DISK_TIMEOUT", "SLAVE_NOT_AVAILABLE", "FLUSH_SLAVE_TIMEOUT"})


def on_send_attempt(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, who, msg = e.data, name_of(e.actor), e.msg_id or "?"
    key = (e.actor, msg)
    mode, attempt = str(d.get("mode", "SYNC")), int(d.get("attempt", 1))
    target = f"{d.get('topic')}@{d.get('broker')}:{d.get('queue_id')}"
    previous, outcome = ctx.last_attempt.get(key), ctx.last_outcome.get(key, "no answer")
    ctx.last_attempt[key] = d
    inner = "/inner" in who
    if inner and str(d.get("topic", "")).startswith("%RETRY%"):
        ctx.inner_send.add(msg)
    entry = str(d.get("entry", "sendDefaultImpl"))
    total = _times_total(mode, entry)
    if entry != "sendDefaultImpl" and (attempt == 1 or previous is None):
        how = _("the queue the selector returned") if entry == "sendSelectImpl" else _("the queue the caller gave")
        once = (
            _("a re-send only if no response comes (onExceptionImpl, retryTimesWhenSendAsyncFailed)")
            if mode == "ASYNC"
            else _(
                "one attempt: it calls sendKernelImpl once, with no retry loop (retryTimesWhenSendFailed does not "
                "apply)"
            )
        )
        return f"DefaultMQProducerImpl.{entry}", _("{who} sends {msg} {mode} to {target}, {how}; {once}").format(
            who=who, msg=msg, mode=mode, target=target, how=how, once=once
        )
    if attempt == 1 or previous is None:
        by = _(" (CLIENT_INNER_PRODUCER, producing a retry message for its consumer)") if inner else ""
        timeout = d.get("timeout_ms", 3000)
        named = "sendMsgTimeout" if timeout == 3000 else _("its timeout")
        budget = (
            _("fire-and-forget, never retried")
            if mode == "ONEWAY"
            else _("{named} {timeout} ms is one budget for all attempts").format(named=named, timeout=timeout)
        )
        return (
            "DefaultMQProducerImpl.sendDefaultImpl",
            _("{who}{by} sends {msg} {mode}, attempt 1 of up to {total}, to {target}; {budget}").format(
                who=who, by=by, msg=msg, mode=mode, total=total, target=target, budget=budget
            ),
        )
    last = str(previous.get("broker"))
    if mode == "ASYNC":
        where = "MQClientAPIImpl.onExceptionImpl"
        why = _("ASYNC attempt {n} to {broker} got no response ({outcome}), so the same request is re-sent").format(
            n=attempt - 1, broker=last, outcome=outcome
        )
    else:
        where = "DefaultMQProducerImpl.sendDefaultImpl"
        why = _("attempt {n} to {broker} failed ({outcome}); resent at once, no backoff").format(
            n=attempt - 1, broker=last, outcome=outcome
        )
    left = d.get("timeout_ms")
    if left is not None:
        why += (
            _(", with {left} ms of the budget left").format(left=left)
            if int(left) > 0
            else _(", but no time is left in the budget")
        )
    if d.get("broker") != last:
        pick = _("selectOneMessageQueue(lastBrokerName={last}) avoids {last} and picks {target}").format(
            last=last, target=target
        )
    else:
        pick = _("no other broker is eligible, so round robin picks {target} on {last} again").format(
            target=target, last=last
        )
    return where, _("{who} retries {msg}, attempt {attempt} of up to {total}: {why}; {pick}").format(
        who=who, msg=msg, attempt=attempt, total=total, why=why, pick=pick
    )


def _times_total(mode: str, entry: str) -> int:
    """Attempts a send may make: :data:`SEND_TIMES_TOTAL`, but one for SYNC and ONEWAY sends that are not driven
    by sendDefaultImpl's loop (sendSelectImpl, send(msg, mq))."""
    if entry != "sendDefaultImpl" and mode != "ASYNC":
        return 1
    return SEND_TIMES_TOTAL.get(mode, 1)


def on_send_result(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    outcome, attempt = str(d.get("outcome")), int(d.get("attempt", 1))
    ctx.last_outcome[(e.actor, msg)] = outcome
    previous = ctx.last_attempt.get((e.actor, msg), {})
    mode = str(previous.get("mode", "SYNC"))
    entry = str(previous.get("entry", "sendDefaultImpl"))
    where = "MQClientAPIImpl.processSendResponse"
    broker = d.get("broker")
    if outcome == "SUCCESS":
        stored = f", offsetMsgId {d.get('offset_msg_id')}" if d.get("offset_msg_id") else ""
        return (
            where,
            _("{broker} answered SUCCESS → SEND_OK for {msg} (queue {queue}{stored}); the send is done").format(
                broker=broker, msg=msg, queue=d.get("queue_id"), stored=stored
            ),
        )
    if outcome == "ONEWAY_SENT":
        return "MQClientAPIImpl.sendMessage", _(
            "{msg} written to the wire ONEWAY; no response, no result, no retry"
        ).format(msg=msg)
    if outcome in NOT_STORE_OK:
        return where, _(
            "{broker} answered {outcome}: the caller gets SendStatus {outcome}, not an exception (retried only with "
            "retryAnotherBrokerWhenNotStoreOK)"
        ).format(broker=broker, outcome=outcome)
    name = outcome.split(":", 1)[0]
    if name in RETRIED_CODES or name in ("SYSTEM_BUSY", "MESSAGE_ILLEGAL", "SUBSCRIPTION_GROUP_NOT_EXIST"):
        retried = name in RETRIED_CODES and mode == "SYNC" and attempt < _times_total(mode, entry)
        then = (
            _("it is in retryResponseCodes, so sendDefaultImpl tries again")
            if retried
            else (
                _("{entry} makes one attempt, so it is not retried").format(entry=entry)
                if entry != "sendDefaultImpl" and mode == "SYNC"
                else _("not in retryResponseCodes in 4.9.x, so it is not retried")
                if mode == "SYNC"
                else _("no retry")
            )
        )
        if mode == "ASYNC":
            then = _("an ASYNC error response is never retried")
        return where, _("{broker} answered {name} for {msg} (MQBrokerException); {then}").format(
            broker=broker, name=name, msg=msg, then=then
        )
    left = _times_total(mode, entry) - attempt
    if mode == "ASYNC":  # no response: the callback path, not sendDefaultImpl's loop
        return "MQClientAPIImpl.sendMessageAsync → onExceptionImpl", _async_failed(attempt, msg, broker, outcome, left)
    if entry != "sendDefaultImpl" and mode != "ASYNC":
        then = _("{entry} makes one attempt, so the send fails with it").format(entry=entry)
    elif mode == "ONEWAY" or left <= 0:
        then = _("no attempt left")
    else:
        then = ngettext(
            "up to {left} more attempt if the 3000 ms budget allows",
            "up to {left} more attempts if the 3000 ms budget allows",
            left,
        ).format(left=left)
    return (
        f"DefaultMQProducerImpl.{entry}",
        _("attempt {attempt} of {msg} to {broker} failed with {outcome}; {then}").format(
            attempt=attempt, msg=msg, broker=broker, outcome=outcome, then=then
        ),
    )


def _async_failed(attempt: int, msg: str, broker: object, outcome: str, left: int) -> str:
    """An ASYNC try that got no response: ``onExceptionImpl`` re-sends it (``retryTimesWhenSendAsyncFailed``, 2) to
    the queue ``selectOneMessageQueue(lastBrokerName)`` picks, or hands the error to the SendCallback."""
    if left <= 0:
        then = _("no re-send left: the SendCallback's onException gets the error")
    else:
        then = ngettext(
            "onExceptionImpl re-sends it up to {left} more time (retryTimesWhenSendAsyncFailed), to another broker "
            "if one is eligible",
            "onExceptionImpl re-sends it up to {left} more times (retryTimesWhenSendAsyncFailed), to another broker "
            "if one is eligible",
            left,
        ).format(left=left)
    return _("ASYNC attempt {attempt} of {msg} to {broker} got no response ({outcome}); {then}").format(
        attempt=attempt, msg=msg, broker=broker, outcome=outcome, then=then
    )


SELECTOR_ERRORS = ("select message queue return null", "select message queue threw exception", "selector returned")
"""sendSelectImpl's own failures, thrown before any attempt (DefaultMQProducerImpl 4.9.7: "select message queue
return null." / "… threw exception."; rmqlab's check that the queue is one of the route's)."""


def send_entry(ctx: CaptionContext, e: TraceEvent) -> str:
    """The DefaultMQProducerImpl method that failed ``e`` (a SEND_FAILED): its attempt's entry, else
    sendSelectImpl when the selector's own check failed (no attempt was made), else sendDefaultImpl."""
    entry = ctx.last_attempt.get((e.actor, e.msg_id or "?"), {}).get("entry")
    if entry is not None:
        return str(entry)
    return "sendSelectImpl" if selector_failed(e) else "sendDefaultImpl"


def selector_failed(e: TraceEvent) -> bool:
    """Whether the send failed in the selector (sendSelectImpl), before any attempt."""
    return any(needle in str(e.data.get("error")) for needle in SELECTOR_ERRORS)


def on_send_failed(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, msg = e.data, e.msg_id or "?"
    error, attempts = str(d.get("error")), d.get("attempts")
    why = _(" — the 3000 ms sendMsgTimeout budget was spent before another attempt") if "call timeout" in error else ""
    entry = send_entry(ctx, e)
    if selector_failed(e):
        what = _("the selector returned no queue") if "return null" in error else _("the selector failed")
        return (
            f"DefaultMQProducerImpl.{entry}",
            _("the {mode} send of {msg} failed before any attempt: {what}; the application gets {error}").format(
                mode=d.get("mode", "SYNC"), msg=msg, what=what, error=error
            ),
        )
    if entry != "sendDefaultImpl":
        why = _(" ({entry} makes one attempt)").format(entry=entry)
    return (
        f"DefaultMQProducerImpl.{entry}",
        ngettext(
            "the {mode} send of {msg} failed after {attempts} attempt; the application gets {error}{why}",
            "the {mode} send of {msg} failed after {attempts} attempts; the application gets {error}{why}",
            attempts if isinstance(attempts, int) else 2,
        ).format(mode=d.get("mode", "SYNC"), msg=msg, attempts=attempts, error=error, why=why),
    )
