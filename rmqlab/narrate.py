"""Captions: one sentence per trace event saying what happened, why, and where in RocketMQ 4.9.7.

A student stepping through a run should not have to decode ``send_back ok=True delay_level=0``; the
caption says "ConsumeMessageConcurrentlyService.processConsumeResult: RECONSUME_LATER →
sendMessageBack(delayLevel 0) …; the broker uses 3 + reconsumeTimes 0 = level 3, due in 10 s".
Every caption starts with the Java ``Class.method`` that does the step and carries the event's real
numbers.

Why a :class:`Narrator` that is *fed* events in order instead of a function of one event: the "why"
often lives in earlier events. A retry attempt avoids the broker the previous attempt failed on; a
send-back is judged by what the broker just did with it (parked at a level, written to the DLQ, or —
with ``retryQueueNums`` 0 — nothing at all); a DLQ write is explained by the consumer's
``maxReconsumeTimes`` carried on its earlier send-backs. The narrator keeps exactly that context and
nothing else, so captions are a pure, deterministic function of the trace prefix. It never looks
ahead: the caption of event *k* is the same whether the trace stops at *k* or runs on.

:func:`is_meaningful` separates the steps a student wants to see (a delivery, a consume result, a
send-back, a schedule hop, a DLQ write, a lock change, a send attempt or result, a fault, a
rebalance) from bookkeeping (offset updates and persists, lock renewals, pulls that bring nothing),
so a controller can step from one meaningful event to the next.

Pure engine code: imports nothing from Jupyter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .duration import format_duration
from .trace import EventKind, TraceEvent

__all__ = ["BOOKKEEPING_KINDS", "MEANINGFUL_KINDS", "Caption", "Narrator", "caption", "is_meaningful", "narrate"]

K = EventKind

BOOKKEEPING_KINDS: frozenset[EventKind] = frozenset({K.OFFSET_UPDATED, K.OFFSET_PERSISTED, K.LOCK_RENEWED})
"""Kinds that only keep books: they repeat every few seconds and move no message (a PULLED that brings
no message is bookkeeping too, see :func:`is_meaningful`)."""
MEANINGFUL_KINDS: frozenset[EventKind] = frozenset(EventKind) - BOOKKEEPING_KINDS
"""Every other kind: something a student should see happen (step targets of the controller)."""

MAX_DELAY_LEVEL = 18
"""``maxDelayLevel`` of the default ``messageDelayLevel`` (1s … 2h); the CommitLog caps a level at it."""
LOCAL_RETRY_MS = 5000
BROKER_LOCK_MS = 60_000
CLIENT_LOCK_MS = 30_000
LOCK_INTERVAL_MS = 20_000
UNLOCK_DELAY_MS = 20_000
SEND_TIMES_TOTAL = {"SYNC": 3, "ASYNC": 3, "ONEWAY": 1}
"""Attempts a plain send may make: SYNC 1 + retryTimesWhenSendFailed 2, ASYNC 1 +
retryTimesWhenSendAsyncFailed 2 (no-response failures only), ONEWAY exactly one."""
RETRIED_CODES = frozenset(
    {"TOPIC_NOT_EXIST", "SERVICE_NOT_AVAILABLE", "SYSTEM_ERROR", "NO_PERMISSION", "NO_BUYER_ID", "NOT_IN_CURRENT_UNIT"}
)
"""``DefaultMQProducer.retryResponseCodes`` in 4.9.7 (SYSTEM_BUSY is not among them)."""
NOT_STORE_OK = frozenset({"FLUSH_DISK_TIMEOUT", "SLAVE_NOT_AVAILABLE", "FLUSH_SLAVE_TIMEOUT"})


def is_meaningful(event: TraceEvent) -> bool:
    """Whether ``event`` is a step worth stopping at (not offset/lock bookkeeping, not an empty pull)."""
    if event.kind is K.PULLED:
        return bool(event.get("offsets"))
    return event.kind in MEANINGFUL_KINDS


@dataclass(frozen=True, slots=True)
class Caption:
    """The caption of one trace event.

    ``where`` is the RocketMQ ``Class.method`` (or the Lab operation) behind the step, ``text`` the whole
    sentence, which starts with ``where``. ``meaningful`` is :func:`is_meaningful` of the event.
    """

    seq: int
    time_ms: int
    kind: EventKind
    where: str
    text: str
    meaningful: bool

    def __str__(self) -> str:
        return self.text


def _name(actor: str) -> str:
    """``consumer:c1`` → ``c1``; ``producer:pg`` → ``pg``; brokers stay as they are."""
    return actor.split(":", 1)[1] if ":" in actor else actor


def _dur(ms: int) -> str:
    return format_duration(int(ms))


def _offsets(offsets: Sequence[int]) -> str:
    if not offsets:
        return "nothing"
    if len(offsets) == 1:
        return f"offset {offsets[0]}"
    if list(offsets) == list(range(offsets[0], offsets[0] + len(offsets))):
        return f"offsets {offsets[0]}–{offsets[-1]}"
    return "offsets " + ", ".join(str(o) for o in offsets)


def _queues(queues: Sequence[str]) -> str:
    return ", ".join(queues) if queues else "none"


class Narrator:
    """Turns trace events, fed in trace order, into :class:`Caption` values.

    ``feed`` must see every event of a trace from its first one (it keeps the context that explains
    later events). Two narrators fed the same events give equal captions.
    """

    def __init__(self) -> None:
        self._mode: dict[str, str] = {}  # consumer actor → "orderly" | "concurrently"
        self._model: dict[str, str] = {}  # consumer actor → "CLUSTERING" | "BROADCASTING"
        self._group: dict[str, str] = {}  # consumer actor → group
        self._max: dict[str, int] = {}  # group → maxReconsumeTimes seen on its send-backs
        self._attempt: dict[tuple[str, str], Mapping[str, Any]] = {}  # (producer, msg) → last attempt
        self._result: dict[tuple[str, str], str] = {}  # (producer, msg) → last attempt's outcome
        self._broker_did: dict[str, list[TraceEvent]] = {}  # msg → SCHEDULED / DEAD_LETTERED since it was consumed
        self._inner_send: set[str] = set()  # msgs the client itself re-sent to %RETRY% since they were consumed
        self._cleaned: set[str] = set()  # msgs cleanExpiredMsg is sending back
        self._hop: dict[str, tuple[int, int, str]] = {}  # msg → (time, level, topic) of its last DELAY_DELIVERED
        self._removed: dict[tuple[str, str], int] = {}  # (consumer, queue) → time a rebalance removed it
        self._expired: dict[str, tuple[int, str]] = {}  # queue → (time, previous holder) of a lock takeover
        self._handlers = {
            K.SEND_ATTEMPT: self._send_attempt,
            K.SEND_RESULT: self._send_result,
            K.SEND_FAILED: self._send_failed,
            K.STORED: self._stored,
            K.SCHEDULED: self._scheduled,
            K.DELAY_DELIVERED: self._delay_delivered,
            K.PULLED: self._pulled,
            K.DELIVERED: self._delivered,
            K.CONSUMED: self._consumed,
            K.SEND_BACK: self._send_back,
            K.SEND_BACK_FALLBACK: self._send_back_fallback,
            K.LOCAL_RETRY: self._local_retry,
            K.DEAD_LETTERED: self._dead_lettered,
            K.BROADCAST_DROPPED: self._broadcast_dropped,
            K.OFFSET_UPDATED: self._offset_updated,
            K.OFFSET_PERSISTED: self._offset_persisted,
            K.REBALANCED: self._rebalanced,
            K.LOCK_ACQUIRED: self._lock_acquired,
            K.LOCK_RENEWED: self._lock_renewed,
            K.LOCK_REFUSED: self._lock_refused,
            K.LOCK_EXPIRED: self._lock_expired,
            K.UNLOCKED: self._unlocked,
            K.SUSPENDED: self._suspended,
            K.CLEAN_EXPIRED: self._clean_expired,
            K.RETENTION_DELETED: self._retention_deleted,
            K.FAULT: self._fault,
            K.ADMIN: self._admin,
            K.LIFECYCLE: self._lifecycle,
            K.WARNING: self._warning,
        }

    def feed(self, event: TraceEvent) -> Caption:
        """The caption of ``event`` (the next event of the trace); updates the context."""
        where, text = self._handlers[event.kind](event)
        return Caption(event.seq, event.time_ms, event.kind, where, f"{where}: {text}", is_meaningful(event))

    # ------------------------------------------------------------------ producer
    def _send_attempt(self, e: TraceEvent) -> tuple[str, str]:
        d, who, msg = e.data, _name(e.actor), e.msg_id or "?"
        key = (e.actor, msg)
        mode, attempt = str(d.get("mode", "SYNC")), int(d.get("attempt", 1))
        target = f"{d.get('topic')}@{d.get('broker')}:{d.get('queue_id')}"
        previous, outcome = self._attempt.get(key), self._result.get(key, "no answer")
        self._attempt[key] = d
        inner = "/inner" in who
        if inner and str(d.get("topic", "")).startswith("%RETRY%"):
            self._inner_send.add(msg)
        total = SEND_TIMES_TOTAL.get(mode, 1)
        if attempt == 1 or previous is None:
            by = " (CLIENT_INNER_PRODUCER, producing a retry message for its consumer)" if inner else ""
            timeout = d.get("timeout_ms", 3000)
            named = "sendMsgTimeout" if timeout == 3000 else "its timeout"
            budget = (
                "fire-and-forget, never retried"
                if mode == "ONEWAY"
                else f"{named} {timeout} ms is one budget for all attempts"
            )
            return (
                "DefaultMQProducerImpl.sendDefaultImpl",
                f"{who}{by} sends {msg} {mode}, attempt 1 of up to {total}, to {target}; {budget}",
            )
        last = str(previous.get("broker"))
        if mode == "ASYNC":
            where = "MQClientAPIImpl.onExceptionImpl"
            why = f"ASYNC attempt {attempt - 1} to {last} got no response ({outcome}), so the same request is re-sent"
        else:
            where = "DefaultMQProducerImpl.sendDefaultImpl"
            why = f"attempt {attempt - 1} to {last} failed ({outcome}); resent at once, no backoff"
        left = d.get("timeout_ms")
        if left is not None:
            why += f", with {left} ms of the budget left" if int(left) > 0 else ", but no time is left in the budget"
        if d.get("broker") != last:
            pick = f"selectOneMessageQueue(lastBrokerName={last}) avoids {last} and picks {target}"
        else:
            pick = f"no other broker is eligible, so round robin picks {target} on {last} again"
        return where, f"{who} retries {msg}, attempt {attempt} of up to {total}: {why}; {pick}"

    def _send_result(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        outcome, attempt = str(d.get("outcome")), int(d.get("attempt", 1))
        self._result[(e.actor, msg)] = outcome
        previous = self._attempt.get((e.actor, msg), {})
        mode = str(previous.get("mode", "SYNC"))
        where = "MQClientAPIImpl.processSendResponse"
        broker = d.get("broker")
        if outcome == "SUCCESS":
            stored = f", offsetMsgId {d.get('offset_msg_id')}" if d.get("offset_msg_id") else ""
            return (
                where,
                f"{broker} answered SUCCESS → SEND_OK for {msg} (queue {d.get('queue_id')}{stored}); the send is done",
            )
        if outcome == "ONEWAY_SENT":
            return "MQClientAPIImpl.sendMessage", f"{msg} written to the wire ONEWAY; no response, no result, no retry"
        if outcome in NOT_STORE_OK:
            return where, (
                f"{broker} answered {outcome}: the caller gets SendStatus {outcome}, not an exception "
                "(retried only with retryAnotherBrokerWhenNotStoreOK)"
            )
        name = outcome.split(":", 1)[0]
        if name in RETRIED_CODES or name in ("SYSTEM_BUSY", "MESSAGE_ILLEGAL", "SUBSCRIPTION_GROUP_NOT_EXIST"):
            retried = name in RETRIED_CODES and mode == "SYNC" and attempt < SEND_TIMES_TOTAL["SYNC"]
            then = (
                "it is in retryResponseCodes, so sendDefaultImpl tries again"
                if retried
                else ("not in retryResponseCodes in 4.9.x, so it is not retried" if mode == "SYNC" else "no retry")
            )
            if mode == "ASYNC":
                then = "an ASYNC error response is never retried"
            return where, f"{broker} answered {name} for {msg} (MQBrokerException); {then}"
        left = SEND_TIMES_TOTAL.get(mode, 1) - attempt
        if mode == "ONEWAY" or left <= 0:
            then = "no attempt left"
        else:
            then = f"up to {left} more attempt{'s' if left > 1 else ''} if the 3000 ms budget allows"
        return (
            "DefaultMQProducerImpl.sendDefaultImpl",
            f"attempt {attempt} of {msg} to {broker} failed with {outcome}; {then}",
        )

    def _send_failed(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        error, attempts = str(d.get("error")), d.get("attempts")
        why = " — the 3000 ms sendMsgTimeout budget was spent before another attempt" if "call timeout" in error else ""
        return (
            "DefaultMQProducerImpl.sendDefaultImpl",
            f"the {d.get('mode', 'SYNC')} send of {msg} failed after {attempts} attempt"
            f"{'' if attempts == 1 else 's'}; the application gets {error}{why}",
        )

    # ------------------------------------------------------------------ broker
    def _stored(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        topic = str(d.get("topic"))
        where = f"{topic}@{e.actor}:{d.get('queue_id')} offset {d.get('queue_offset')}"
        rt = d.get("reconsume_times", 0)
        hop = self._hop.get(msg)
        if hop is not None and hop[0] == e.time_ms:
            origin = "the ScheduleMessageService's put"
        elif topic.startswith("%RETRY%"):
            origin = "a retry copy"
        else:
            origin = "the message"
        kind = ""
        if topic.startswith("%RETRY%"):
            kind = f" (reconsumeTimes {rt}); the group's consumers pull it from there"
        elif topic.startswith("%DLQ%"):
            kind = f" (reconsumeTimes {rt})"
        else:
            kind = "; any pull held on that queue (PullRequestHoldService) is answered at once"
        return "CommitLog.asyncPutMessage", f"{e.actor} appended {msg} ({origin}) to {where}{kind}"

    def _level_reason(self, e: TraceEvent) -> str:
        """Why a message sent back to ``%RETRY%`` got this level (from the stored reconsumeTimes)."""
        d, msg = e.data, e.msg_id or "?"
        level, stored_rt = int(d.get("level", 0)), int(d.get("reconsume_times", 0))
        real = str(d.get("real_topic"))
        if real.startswith("%DLQ%"):
            return (
                f"4.9.x quirk: handleRetryAndDLQ routed it to {real} but the request's DELAY property survives, "
                f"so the DLQ copy first waits level {level}"
            )
        if not real.startswith("%RETRY%"):
            return f"the producer set the DELAY property to level {level}"
        if msg in self._cleaned:
            return "cleanExpiredMsg sends back with the fixed delay level 3"
        rt = stored_rt - 1
        default = 3 + rt
        if msg in self._inner_send:
            formula = f"the client's fallback set DELAY = 3 + reconsumeTimes {rt} = {default}"
        else:
            formula = f"delayLevel 0 → asyncConsumerSendMsgBack uses 3 + reconsumeTimes {rt} = {default}"
        if level == default:
            return formula
        if level == MAX_DELAY_LEVEL and default > MAX_DELAY_LEVEL:
            return f"{formula}, capped at maxDelayLevel {MAX_DELAY_LEVEL}"
        return f"the listener's delayLevelWhenNextConsume asked for level {level}"

    def _scheduled(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        level, due = int(d.get("level", 0)), int(d.get("due_ms", e.time_ms))
        self._broker_did.setdefault(msg, []).append(e)
        return "CommitLog.asyncPutMessage", (
            f"{msg} (reconsumeTimes {d.get('reconsume_times')}) for {d.get('real_topic')} is parked in "
            f"SCHEDULE_TOPIC_XXXX queue {level - 1} at delay level {level}, due in {_dur(due - e.time_ms)} "
            f"(t = {_dur(due)}); why: {self._level_reason(e)}"
        )

    def _delay_delivered(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        level = int(d.get("level", 0))
        self._hop[msg] = (e.time_ms, level, str(d.get("topic")))
        return (
            "ScheduleMessageService.DeliverDelayedMessageTimerTask",
            f"level {level}'s timer (it polls every 100 ms) finds {msg} due after {_dur(int(d.get('waited_ms', 0)))} "
            f"in SCHEDULE_TOPIC_XXXX queue {level - 1}; messageTimeup restores REAL_TOPIC {d.get('topic')} "
            f"queue {d.get('queue_id')} and puts it back",
        )

    def _dead_lettered(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        group, topic = str(d.get("group")), str(d.get("topic"))
        stored = int(d.get("reconsume_times", 0))
        self._broker_did.setdefault(msg, []).append(e)
        known = self._max.get(group)
        tail = f"; nobody consumes {topic} unless you subscribe to it (original topic {d.get('original_topic')})"
        hop = self._hop.get(msg)
        if hop is not None and not (hop[0] == e.time_ms and hop[2] == topic):
            hop = None
        if hop is not None or msg in self._inner_send:
            # the client re-sent it to %RETRY% itself (fallback or orderly path): handleRetryAndDLQ, no +1
            where = "SendMessageProcessor.handleRetryAndDLQ"
            limit = f"maxReconsumeTimes {known}" if known is not None else "maxReconsumeTimes"
            why = f"header reconsumeTimes {stored} ≥ {limit}"
            if hop is not None:
                why += f", delivered only now after delay level {hop[1]} (4.9.x quirk)"
            return where, f"{msg} written to {topic} with reconsumeTimes {stored}: {why}{tail}"
        rt = stored - 1
        where = "SendMessageProcessor.asyncConsumerSendMsgBack"
        if known is not None and rt >= known:
            why = f"reconsumeTimes {rt} ≥ maxReconsumeTimes {known}"
        elif known is not None:
            why = f"delayLevel < 0 (the listener set delayLevelWhenNextConsume −1); reconsumeTimes {rt} < {known}"
        else:
            why = f"reconsumeTimes {rt} ≥ the consumer's maxReconsumeTimes, or delayLevel < 0"
        return where, f"{why}, so {msg} goes to {topic} (stored with reconsumeTimes {stored}){tail}"

    def _retention_deleted(self, e: TraceEvent) -> tuple[str, str]:
        d = e.data
        topics = d.get("topics") or {}
        per = ", ".join(f"{t}: {n}" for t, n in topics.items())
        return (
            "DefaultMessageStore.CleanCommitLogService",
            f"in the deleteWhen 04:00 window {e.actor} deleted {d.get('count')} messages older than fileReservedTime "
            f"72 h ({per}); DLQ messages expire like any other",
        )

    def _admin(self, e: TraceEvent) -> tuple[str, str]:
        d = dict(e.data)
        command = str(d.pop("command", "admin"))
        if command == "updateSubGroup":
            group = d.pop("group", "?")
            settings = ", ".join(f"{k} {v}" for k, v in d.items())
            note = (
                "; retryQueueNums 0: every send-back answers SUCCESS and stores nothing"
                if d.get("retry_queue_nums") == 0
                else ""
            )
            return f"mqadmin {command}", f"{e.actor}'s SubscriptionGroupConfig of {group} is now {settings}{note}"
        if command == "updateTopic":
            topic = d.pop("topic", "?")
            settings = ", ".join(f"{k} {v}" for k, v in d.items())
            return f"mqadmin {command}", f"{e.actor}'s TopicConfig of {topic} is now {settings}"
        return f"mqadmin {command}", f"{e.actor}: " + ", ".join(f"{k} {v}" for k, v in d.items())

    # ------------------------------------------------------------------ consumer
    def _service(self, actor: str) -> str:
        if self._mode.get(actor) == "orderly":
            return "ConsumeMessageOrderlyService"
        return "ConsumeMessageConcurrentlyService"

    def _pulled(self, e: TraceEvent) -> tuple[str, str]:
        d = e.data
        offsets, ids = list(d.get("offsets") or ()), list(d.get("msg_ids") or ())
        which = ", ".join(ids[:3]) + (" …" if len(ids) > 3 else "")
        return (
            "DefaultMQPushConsumerImpl.pullMessage",
            f"{_name(e.actor)} pulled {_offsets(offsets)} of {d.get('queue')} ({which}) into its ProcessQueue "
            f"msgTreeMap; the next pull starts at offset {d.get('next_offset')}",
        )

    def _delivered(self, e: TraceEvent) -> tuple[str, str]:
        d, msg, who = e.data, e.msg_id or "?", _name(e.actor)
        rt, queue = int(d.get("reconsume_times", 0)), str(d.get("queue"))
        service = self._service(e.actor)
        batch = f" (batch of {d.get('batch')})" if int(d.get("batch", 1)) > 1 else ""
        if queue.startswith("%RETRY%"):
            what = f"retry {rt} of {msg} from {queue}, shown under its original topic {d.get('topic')}"
        elif rt:
            what = f"{msg} again (reconsumeTimes {rt}, local retry) from {queue}"
        else:
            what = f"{msg} (offset {d.get('queue_offset')} of {queue}, reconsumeTimes 0)"
        lock = (
            " while holding the MessageQueueLock and the ProcessQueue consume lock"
            if service == "ConsumeMessageOrderlyService"
            else ""
        )
        return f"{service}.ConsumeRequest.run", f"{who}'s listener is called with {what}{batch}{lock}"

    def _consumed(self, e: TraceEvent) -> tuple[str, str]:
        d, msg, who = e.data, e.msg_id or "?", _name(e.actor)
        status, how, took = str(d.get("status")), str(d.get("return_type")), int(d.get("took_ms", 0))
        self._broker_did.pop(msg, None)
        self._inner_send.discard(msg)
        self._cleaned.discard(msg)
        self._hop.pop(msg, None)
        took_text = f" after {_dur(took)}" if took else ""
        if status in ("CONSUME_SUCCESS", "RECONSUME_LATER"):
            where = "ConsumeMessageConcurrentlyService.ConsumeRequest.run"
            cause = {
                "EXCEPTION": "the listener threw, which counts as RECONSUME_LATER",
                "RETURNNULL": "the listener returned null, which counts as RECONSUME_LATER",
                "TIME_OUT": f"the listener returned {status}",
            }.get(how, f"the listener returned {status}")
            if status == "CONSUME_SUCCESS":
                then = "processConsumeResult removes it from the ProcessQueue"
            elif self._model.get(e.actor) == "BROADCASTING":
                then = "BROADCASTING: processConsumeResult will drop it"
            else:
                then = "processConsumeResult will send it back to the broker"
            slow = " (slow, but TIME_OUT is only a stats label: the status stands)" if how == "TIME_OUT" else ""
            return where, f"{cause} for {msg} in {who}{took_text}{slow}; {then}"
        where = "ConsumeMessageOrderlyService.processConsumeResult"
        if status == "SUSPEND_CURRENT_QUEUE_A_MOMENT":
            cause = {
                "EXCEPTION": "the listener threw, which counts as SUSPEND_CURRENT_QUEUE_A_MOMENT",
                "RETURNNULL": "the listener returned null, which counts as SUSPEND_CURRENT_QUEUE_A_MOMENT",
            }.get(how, "the listener returned SUSPEND_CURRENT_QUEUE_A_MOMENT")
            return where, f"{cause} for {msg} in {who}{took_text}; checkReconsumeTimes decides: retry here, or DLQ"
        if status in ("COMMIT", "ROLLBACK"):
            return where, f"the listener returned deprecated {status} for {msg}{took_text}"
        return where, f"the listener returned {status} for {msg}{took_text}; commit() makes the offset lastKey + 1"

    def _send_back(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        group = self._group.get(e.actor, "?")
        rt, max_times = int(d.get("reconsume_times", 0)), d.get("max_reconsume_times")
        if max_times is not None:
            self._max[group] = int(max_times)
        did = self._broker_did.pop(msg, [])
        level = d.get("delay_level")
        if d.get("path") == "orderly":
            where = "ConsumeMessageOrderlyService.checkReconsumeTimes"
            if not d.get("ok"):
                return where, (
                    f"reconsumeTimes {rt} ≥ maxReconsumeTimes {max_times}, but sending {msg} to %RETRY%{group} failed "
                    f"({d.get('error')}); the queue suspends and retries locally"
                )
            return where, (
                f"reconsumeTimes {rt} ≥ maxReconsumeTimes {max_times} → sendMessageBack produces {msg} to "
                f"%RETRY%{group} with RECONSUME_TIME {rt}; the broker's handleRetryAndDLQ routes it to %DLQ%{group} "
                f"and the queue moves on"
            )
        cleaned = msg in self._cleaned
        self._cleaned.discard(msg)
        where = (
            "ConsumeMessageConcurrentlyService.cleanExpiredMsg"
            if cleaned
            else "ConsumeMessageConcurrentlyService.processConsumeResult"
        )
        head = (
            f"sendMessageBack({msg}, delayLevel {level})"
            if cleaned
            else f"RECONSUME_LATER → sendMessageBack({msg}, delayLevel {level})"
        )
        call = f"{head} via MQClientAPIImpl.consumerSendMessageBack to {d.get('broker')}"
        if not d.get("ok"):
            return where, (
                f"{call} failed ({d.get('error')}); the client falls back to producing a new %RETRY%{group} "
                f"message itself (CLIENT_INNER_PRODUCER)"
            )
        broker = "the broker (SendMessageProcessor.asyncConsumerSendMsgBack)"
        for done in did:
            if done.kind is K.SCHEDULED:
                lvl, due = int(done.get("level", 0)), int(done.get("due_ms", e.time_ms))
                if level == 0 and not cleaned:
                    how = f"uses 3 + reconsumeTimes {rt} = level {lvl}"
                    if 3 + rt > lvl:
                        how = f"uses 3 + reconsumeTimes {rt} = {3 + rt}, capped at level {lvl}"
                else:
                    how = f"keeps delay level {lvl}"
                return where, f"{call}; {broker} {how}, due in {_dur(due - done.time_ms)}"
            if done.kind is K.DEAD_LETTERED:
                if isinstance(level, int) and level < 0:
                    why = f"delayLevel {level} < 0"
                else:
                    why = f"reconsumeTimes {rt} ≥ maxReconsumeTimes {max_times}"
                return where, f"{call}; {broker}: {why}, so it goes to {done.get('topic')}"
        if group == "?":  # narrated without the run before it: what the broker stored is not known here
            return where, f"{call}; {broker} answered SUCCESS"
        return where, (
            f"{call}; {broker} answered SUCCESS but stored nothing — retryQueueNums is 0 for {group}, "
            f"so {msg} is silently dropped"
        )

    def _send_back_fallback(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        group = self._group.get(e.actor, "?")
        where = "DefaultMQPushConsumerImpl.sendMessageBack"
        if d.get("ok"):
            return where, (
                f"fallback: CLIENT_INNER_PRODUCER produced a new %RETRY%{group} message for {msg} with "
                f"RECONSUME_TIME {d.get('reconsume_times')} and DELAY {d.get('delay_level')} (3 + reconsumeTimes; "
                f"the listener's delayLevelWhenNextConsume is ignored here)"
            )
        return where, (
            f"fallback: producing {msg} to %RETRY%{group} failed too ({d.get('error')}), so sendMessageBack returns "
            f"false and the message is re-consumed locally"
        )

    def _local_retry(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        return (
            "ConsumeMessageConcurrentlyService.submitConsumeRequestLater",
            f"send-back and fallback both failed: {msg} stays in the ProcessQueue of {d.get('queue')} (pinning the "
            f"committed offset) and is consumed again in {d.get('retry_in_ms', LOCAL_RETRY_MS)} ms with "
            f"reconsumeTimes {d.get('reconsume_times')} (in memory only)",
        )

    def _broadcast_dropped(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        return (
            "ConsumeMessageConcurrentlyService.processConsumeResult",
            f"BROADCASTING, the message consume failed, drop it: {msg} from {d.get('queue')} is dropped — never "
            f"retried and never acked; the offset moves past it anyway",
        )

    def _clean_expired(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        self._cleaned.add(msg)
        self._broker_did.pop(msg, None)
        return (
            "ConsumeMessageConcurrentlyService.cleanExpiredMsg",
            f"{msg} at offset {d.get('queue_offset')} of {d.get('queue')} has been consuming for "
            f"{_dur(int(d.get('consuming_for_ms', 0)))} > consumeTimeout 15 min, so it is sent back with delay "
            f"level 3 and removed; the listener thread is not interrupted",
        )

    def _suspended(self, e: TraceEvent) -> tuple[str, str]:
        d, msg = e.data, e.msg_id or "?"
        return (
            "ConsumeMessageOrderlyService.processConsumeResult",
            f"SUSPEND_CURRENT_QUEUE_A_MOMENT: reconsumeTimes of {msg} is now {d.get('reconsume_times')}, still below "
            f"maxReconsumeTimes, so makeMessageToConsumeAgain puts it back and {d.get('queue')} waits "
            f"{d.get('retry_in_ms')} ms (suspendCurrentQueueTimeMillis, submitConsumeRequestLater); "
            f"no broker round trip, nothing behind it is consumed",
        )

    def _offset_updated(self, e: TraceEvent) -> tuple[str, str]:
        d, who = e.data, _name(e.actor)
        previous = d.get("previous")
        since = f"{previous} → {d.get('offset')}" if previous is not None and previous >= 0 else f"{d.get('offset')}"
        store = "LocalFileOffsetStore" if self._model.get(e.actor) == "BROADCASTING" else "RemoteBrokerOffsetStore"
        if self._mode.get(e.actor) == "orderly":
            why = "ProcessQueue.commit() returns lastKey + 1 of consumingMsgOrderlyTreeMap (overwrite)"
        else:
            why = "ProcessQueue.removeMessage returns the smallest key of msgTreeMap, or queueOffsetMax + 1 when empty"
        return f"{store}.updateOffset", f"{who}'s committed offset of {d.get('queue')} is {since}: {why}"

    def _offset_persisted(self, e: TraceEvent) -> tuple[str, str]:
        d = e.data
        if d.get("store") == "local":
            return "LocalFileOffsetStore.persistAll", (
                f"{_name(e.actor)} wrote offset {d.get('offset')} of {d.get('queue')} to its local offsets.json"
            )
        broker = str(d.get("queue", "")).split("@")[-1].split(":")[0]
        return "ConsumerOffsetManager.commitOffset", (
            f"{broker} now holds offset {d.get('offset')} of {d.get('queue')} for {d.get('group')} (persistAll every "
            f"5000 ms, or a pull's piggy-backed commitOffset): a restarted consumer resumes there"
        )

    def _rebalanced(self, e: TraceEvent) -> tuple[str, str]:
        d, who = e.data, _name(e.actor)
        added, removed = list(d.get("added") or ()), list(d.get("removed") or ())
        for queue in removed:
            self._removed[(e.actor, queue)] = e.time_ms
        if self._model.get(e.actor) == "BROADCASTING":
            how = "BROADCASTING: every instance takes every queue"
        else:
            how = "AllocateMessageQueueAveragely over the sorted queues and client ids"
        change = []
        if added:
            change.append(f"added {_queues(added)}")
        if removed:
            change.append(f"removed {_queues(removed)} (offset persisted, ProcessQueue dropped)")
        return "RebalanceImpl.rebalanceByTopic", (
            f"{who} now owns {_queues(list(d.get('queues') or ()))} of {d.get('topic')} ({how}); {'; '.join(change)}"
        )

    def _lock_acquired(self, e: TraceEvent) -> tuple[str, str]:
        who, queue = _name(e.actor), str(e.get("queue"))
        taken = self._expired.pop(queue, None)
        over = f" (taking over {taken[1]}'s expired lease)" if taken is not None and taken[0] == e.time_ms else ""
        return "RebalanceImpl.lock", (
            f"RebalanceLockManager.tryLockBatch grants {who} the broker lock on {queue}{over}: the broker keeps it "
            f"{BROKER_LOCK_MS // 1000} s, the client trusts it for {CLIENT_LOCK_MS // 1000} s and renews every "
            f"{LOCK_INTERVAL_MS // 1000} s, and only the holder consumes the queue in order"
        )

    def _lock_renewed(self, e: TraceEvent) -> tuple[str, str]:
        return "RebalanceImpl.lockAll", (
            f"{_name(e.actor)} renewed its broker lock on {e.get('queue')} (every {LOCK_INTERVAL_MS // 1000} s; "
            f"lastLockTimestamp = now)"
        )

    def _lock_refused(self, e: TraceEvent) -> tuple[str, str]:
        who, holder = _name(e.actor), e.get("holder")
        if holder and holder != who:
            why = f"{holder} holds it and its {BROKER_LOCK_MS // 1000} s lease has not expired"
        else:
            why = "the broker could not grant it"
        return "RebalanceLockManager.tryLockBatch", (
            f"refused {who} the lock on {e.get('queue')}: {why}; {who} does not consume that queue until it "
            f"gets the lock"
        )

    def _lock_expired(self, e: TraceEvent) -> tuple[str, str]:
        queue, previous, new = str(e.get("queue")), e.get("previous_holder"), e.get("new_holder")
        self._expired[queue] = (e.time_ms, str(previous))
        return "RebalanceLockManager.tryLockBatch", (
            f"{previous}'s lock on {queue} was not renewed for more than {BROKER_LOCK_MS // 1000} s "
            f"(REBALANCE_LOCK_MAX_LIVE_TIME), so {e.actor} hands it to {new}"
        )

    def _unlocked(self, e: TraceEvent) -> tuple[str, str]:
        who, queue = _name(e.actor), str(e.get("queue"))
        removed = self._removed.get((e.actor, queue))
        if removed is not None and e.time_ms - removed >= UNLOCK_DELAY_MS:
            why = (
                f"{_dur(e.time_ms - removed)} after the rebalance removed it, because it still held messages "
                f"(UNLOCK_DELAY_TIME_MILLS {UNLOCK_DELAY_MS} ms)"
            )
        elif removed is not None:
            why = "right after the rebalance removed it (the consume lock was free and nothing was held)"
        else:
            why = "on shutdown (unlockAll)"
        return "RebalancePushImpl.removeUnnecessaryMessageQueue", (
            f"{who} released its broker lock on {queue} (unlockBatchMQ) {why}"
        )

    def _lifecycle(self, e: TraceEvent) -> tuple[str, str]:
        d, who = e.data, _name(e.actor)
        what = str(d.get("event"))
        if what == "start":
            self._mode[e.actor] = str(d.get("mode", "concurrently"))
            self._model[e.actor] = str(d.get("message_model", "CLUSTERING"))
            self._group[e.actor] = str(d.get("group"))
            retry = " and %RETRY%" + str(d.get("group")) if d.get("message_model") != "BROADCASTING" else ""
            return "DefaultMQPushConsumerImpl.start", (
                f"{who} joins {d.get('group')} ({d.get('message_model')}, consuming {d.get('mode')}): it subscribes "
                f"its topics{retry}, heartbeats, then rebalances at once and every 20 s"
            )
        if what == "crash":
            return "Lab: consumer crash", (
                f"{who} of {d.get('group')} dies without persisting: its ProcessQueues are gone and what it had not "
                f"committed is redelivered from the last persisted offset after a rebalance"
            )
        if what == "shutdown":
            return "DefaultMQPushConsumerImpl.shutdown", (
                f"{who} persists its offsets, unlocks its queues and unregisters from {d.get('group')}"
            )
        return "Lab: lifecycle", f"{who}: {what}"

    # ------------------------------------------------------------------ faults and warnings
    def _fault(self, e: TraceEvent) -> tuple[str, str]:
        d = dict(e.data)
        fault = str(d.pop("fault", "?"))
        if fault == "broker_down":
            return "Lab.broker_down", (
                f"{e.actor} stops: connections are refused, held pulls break and the name server withdraws its "
                f"routes; clients notice at their next request or route poll (30 s)"
            )
        if fault == "broker_up":
            return "Lab.broker_up", (
                f"{e.actor} is back; clients see it again at their next route poll (30 s) and heartbeat"
            )
        if fault in ("partition", "heal"):
            client = d.get("client")
            if fault == "partition":
                return "Lab.partition", (
                    f"the link between {client} and {e.actor} is cut: every request fails with RemotingConnectException"
                )
            return "Lab.partition(heal=True)", f"the link between {client} and {e.actor} works again"
        settings = ", ".join(f"{k} = {v}" for k, v in d.items())
        return "Lab.set_broker_fault", f"{e.actor} now misbehaves: {settings}"

    def _warning(self, e: TraceEvent) -> tuple[str, str]:
        about = f" ({e.msg_id})" if e.msg_id else ""
        return "WARNING", f"{_name(e.actor)}{about}: {e.get('message')} — RocketMQ only logs this"


def narrate(events: Iterable[TraceEvent]) -> list[Caption]:
    """Captions of a whole trace (or a prefix of one), in order."""
    narrator = Narrator()
    return [narrator.feed(e) for e in events]


def caption(event: TraceEvent, earlier: Iterable[TraceEvent] = ()) -> str:
    """The caption text of ``event``; ``earlier`` are the trace's events before it (the context)."""
    narrator = Narrator()
    for e in earlier:
        narrator.feed(e)
    return narrator.feed(event).text
