"""The first line of a caption: one plain sentence a beginner understands, with this run's numbers.

No Java identifier appears here (no ``Class.method``, no ``RECONSUME_LATER``, no ``SCHEDULE_TOPIC_XXXX``): those are
the second line's business ("in the source", :mod:`~rmqlab.narrate.narrator`). What a plain sentence may name are
the run's own things, the names the student sees in the picture: consumers (``c1``), producers (``pg``), brokers
(``broker-a``), message ids (``M0001``), topics (``TopicTest``) and the group's retry and dead-letter topics
(``%RETRY%cg``, ``%DLQ%cg``). Those last two are place names, not code: the flow view and the topology label the
queues with them, so a sentence that says "the dead-letter topic %DLQ%cg" points at a place the student can find.

Each function is called with the context *before* the event's own (second-line) caption function updates it, so a
send-back's sentence still sees what the broker just did with the message.

The sentences of the consume side are in :mod:`~rmqlab.narrate.plain_consuming`, the words both share in
:mod:`~rmqlab.narrate.plain_words`; here are the send and store side's, the lab's own events', and the table.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..core.i18n import gettext as _
from ..core.i18n import ngettext
from ..core.trace import EventKind, TraceEvent
from .context import CaptionContext, copy_number, dur, level_wait, name_of
from .plain_consuming import (
    broadcast_dropped,
    consume_request,
    consumed,
    dead_lettered,
    delivered,
    local_retry,
    lock_acquired,
    lock_batch,
    lock_expired,
    lock_refused,
    lock_renewed,
    offset_persisted,
    offset_updated,
    pull_deferred,
    pull_empty,
    pulled,
    rebalanced,
    send_back,
    send_back_fallback,
    suspended,
    unlocked,
)
from .plain_words import copy_words, error_words, ordinal, queue_words
from .sending import selector_failed

__all__ = ["PLAIN", "error_words", "fault_effects", "fault_sentence", "ordinal", "queue_words"]

K = EventKind


def _send_attempt(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who, msg = e.data, name_of(e.actor), e.msg_id or "?"
    attempt, mode = int(d.get("attempt", 1)), str(d.get("mode", "SYNC"))
    place = _("{topic} queue {queue_id} on {broker}").format(
        topic=d.get("topic"), queue_id=d.get("queue_id"), broker=d.get("broker")
    )
    inner = "/inner" in who
    if attempt > 1:
        return _("{who} tries {msg} again (try {attempt}), now on {place}.").format(
            who=who, msg=msg, attempt=attempt, place=place
        )
    if inner:
        return _("{who} puts {msg} into the retry topic {topic} itself, as a new message.").format(
            who=who.split("/")[0], msg=msg, topic=d.get("topic")
        )
    if d.get("entry") == "sendSelectImpl":
        tries = _("one try, no retry") if mode != "ASYNC" else _("one try, re-sent only if no answer comes")
        return _("{who} sends {msg} to {place}, the queue its selector picked: {tries}.").format(
            who=who, msg=msg, place=place, tries=tries
        )
    if mode == "ONEWAY":
        return _("{who} sends {msg} to {place} without waiting for an answer.").format(who=who, msg=msg, place=place)
    return _("{who} sends {msg} to {place}.").format(who=who, msg=msg, place=place)


def _send_result(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    outcome, broker, who = str(d.get("outcome")), d.get("broker"), name_of(e.actor)
    if outcome == "SUCCESS":
        return _("{broker} stored {msg} and told {who} so: the send is done.").format(broker=broker, msg=msg, who=who)
    if outcome == "ONEWAY_SENT":
        return _("{msg} is on the wire; {who} gets no answer.").format(msg=msg, who=who)
    if outcome in ("FLUSH_DISK_TIMEOUT", "SLAVE_NOT_AVAILABLE", "FLUSH_SLAVE_TIMEOUT"):
        return _("{broker} stored {msg} but could not make it safe in time; {who} is told, with no retry.").format(
            broker=broker, msg=msg, who=who
        )
    return _("{who}'s try {attempt} of {msg} on {broker} failed: {why}.").format(
        who=who, attempt=d.get("attempt", 1), msg=msg, broker=broker, why=error_words(outcome)
    )


def _send_failed(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    attempts = int(d.get("attempts") or 0)
    if selector_failed(e):  # sendSelectImpl threw before any attempt
        words = (
            _("{who}'s selector found no queue for {msg}: nothing was sent.")
            if "return null" in str(d.get("error"))
            else _("{who}'s selector failed for {msg}: nothing was sent.")
        )
        return words.format(who=name_of(e.actor), msg=msg)
    tries = ngettext("{count} try", "{count} tries", attempts).format(count=attempts)
    return _("{who} gives up on {msg} after {tries}: {why}.").format(
        who=name_of(e.actor), msg=msg, tries=tries, why=error_words(d.get("error"))
    )


def _stored(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    topic = str(d.get("topic"))
    if topic.startswith("%RETRY%"):
        return _("{broker} puts {msg} into the retry topic {topic}, where the group fetches it again.").format(
            broker=e.actor, msg=msg, topic=topic
        )
    if topic.startswith("%DLQ%"):
        return _("{broker} stores {msg} in {topic} queue {queue_id}.").format(
            broker=e.actor, msg=msg, topic=topic, queue_id=d.get("queue_id")
        )
    copy = copy_number(ctx, e)
    if copy > 1:  # the same id stored again: a duplicate (the picture's "#2" badge)
        return _("{broker} stores {copy} in {topic} queue {queue_id} at position {offset}.").format(
            broker=e.actor, copy=copy_words(msg, copy), topic=topic, queue_id=d.get("queue_id"),
            offset=d.get("queue_offset"),
        )  # fmt: skip
    return _("{broker} stores {msg} in {topic} queue {queue_id} at position {offset}.").format(
        broker=e.actor, msg=msg, topic=topic, queue_id=d.get("queue_id"), offset=d.get("queue_offset")
    )


def _scheduled(ctx: CaptionContext, e: TraceEvent) -> str:
    d, msg = e.data, e.msg_id or "?"
    level, due = int(d.get("level", 0)), int(d.get("due_ms", e.time_ms))
    real = str(d.get("real_topic"))
    then = _("the dead-letter topic") if real.startswith("%DLQ%") else real
    return _("{broker} holds {msg} for {wait} (delay level {level}), then puts it into {then}.").format(
        broker=e.actor, msg=msg, wait=dur(due - e.time_ms), level=level, then=then
    )


def _delay_delivered(ctx: CaptionContext, e: TraceEvent) -> str:
    """The level's delay, said as such; a delivery a broker restart made late (or made a second time) says so."""
    d, msg = e.data, e.msg_id or "?"
    broker, copy, level = name_of(e.actor), copy_number(ctx, e), d.get("level")
    delay, due, restart = level_wait(ctx, e)
    wait, topic = dur(delay), d.get("topic")
    if restart is not None and copy > 1:  # load() read back an offset from before this message left
        return _(
            "{msg}'s {wait} wait (level {level}) was over at {due}, but {broker}'s restart at {restart} read back an "
            "older offset: it moves {copy} into {topic}."
        ).format(msg=msg, wait=wait, level=level, due=dur(due), broker=broker, restart=dur(restart),
                 copy=copy_words(msg, copy), topic=topic)  # fmt: skip
    if restart is not None:
        return _(
            "{msg}'s {wait} wait (level {level}) was over at {due}; {broker} restarted at {restart}, so it moves it "
            "into {topic} only now, {late} late."
        ).format(msg=msg, wait=wait, level=level, due=dur(due), broker=broker, restart=dur(restart), topic=topic,
                 late=dur(e.time_ms - due))  # fmt: skip
    if copy > 1:  # the level delivers a message it delivered before (its offset was rolled back)
        return _("{msg}'s {wait} wait is over: {broker} moves {copy} into {topic}.").format(
            msg=msg, wait=wait, broker=broker, copy=copy_words(msg, copy), topic=topic
        )
    return _("{msg}'s {wait} wait is over: {broker} moves it into {topic}.").format(
        msg=msg, wait=wait, broker=broker, topic=topic
    )


def _clean_expired(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    took = dur(int(d.get("consuming_for_ms", 0)))
    return _("{msg} has been in {who}'s listener for {took}, over 15 min, so it is sent back.").format(
        msg=e.msg_id, who=name_of(e.actor), took=took
    )


def _retention_deleted(ctx: CaptionContext, e: TraceEvent) -> str:
    topics = e.get("topics") or {}
    dead = sum(n for topic, n in topics.items() if str(topic).startswith("%DLQ%"))
    if dead:
        return _("{broker} deletes {count} messages stored 72 h ago or more, {dead} of them dead letters; its newest "
                 "message stays.").format(broker=e.actor, count=e.get("count"), dead=dead)  # fmt: skip
    return _("{broker} deletes {count} messages stored 72 h ago or more; its newest message stays.").format(
        broker=e.actor, count=e.get("count")
    )


def _fault(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    fault = str(d.get("fault"))
    if fault == "broker_down":
        return _("{broker} crashes: nobody can reach it now.").format(broker=e.actor)
    if fault == "broker_up":
        return _("{broker} is back up.").format(broker=e.actor)
    if fault == "partition":
        return _("The network between {client} and {broker} is cut.").format(client=d.get("client"), broker=e.actor)
    if fault == "heal":
        return _("The network between {client} and {broker} works again.").format(
            client=d.get("client"), broker=e.actor
        )
    return _broker_fault(e)


def _fault_effect(key: str, value: object) -> tuple[bool, str]:
    """``(still faulty, what the student sees)`` for one ``set_broker_fault`` setting, worded by its effect.

    The status and code names stay in the source line: a first line names no constant."""
    n = len(value) if isinstance(value, list) else 0
    late = _("answers every request {wait} late").format(wait=dur(int(value))) if isinstance(value, int) else ""
    effects: dict[str, tuple[bool, str]] = {
        "response_delay_ms": (bool(value), late),
        "lose_responses": (bool(value), _("loses every answer on the way back")),
        "put_status": (value != "PUT_OK", _("reports a store problem for every message")),
        "reject_send_back": (bool(value), _("refuses every send-back")),
        "send_error": (value is not None, _("refuses every send")),
        "send_responses": (
            bool(n),
            ngettext("gives the next send a scripted answer", "gives the next {n} sends scripted answers", n).format(
                n=n
            ),
        ),
        "send_back_error": (value is not None, _("refuses every send-back")),
        "query_offset_error": (value is not None, _("fails every offset query")),
        "pull_error": (value is not None, _("fails every pull")),
    }
    return effects.get(key, (True, ""))


def fault_effects(e: TraceEvent) -> str:
    """A ``set_broker_fault`` event's effects, short ("answers every request 4 s late"); "" once none is left: what
    the space-time view writes beside the fault, instead of the raw ``fault broker_fault``."""
    said = [_fault_effect(k, v) for k, v in e.data.items() if k != "fault"]
    return _(", ").join(words for bad, words in said if bad and words)


def fault_sentence(e: TraceEvent) -> str:
    """A ``set_broker_fault`` event as the caption's first line says it (its tooltip in the space-time view)."""
    return _broker_fault(e)


def _broker_fault(e: TraceEvent) -> str:
    """A fault setting said by what it does: "answers 600 ms late", or, once every setting is back, "fast again"."""
    said = [_fault_effect(k, v) for k, v in e.data.items() if k != "fault"]
    faulty = [words for bad, words in said if bad and words]
    if not faulty and set(e.data) == {"fault", "response_delay_ms"}:
        return _("{broker} answers at once again.").format(broker=e.actor)
    if not faulty:
        return _("{broker} works normally again.").format(broker=e.actor)
    return _("{broker} starts to misbehave: it {effects}.").format(broker=e.actor, effects=_(", ").join(faulty))


def _admin(ctx: CaptionContext, e: TraceEvent) -> str:
    d = e.data
    what = d.get("group") or d.get("topic") or _("its settings")
    return _("An operator changes {broker}'s settings for {what}.").format(broker=e.actor, what=what)


def _lifecycle(ctx: CaptionContext, e: TraceEvent) -> str:
    d, who = e.data, name_of(e.actor)
    return {
        "start": _("{who} starts and joins the group {group}.").format(who=who, group=d.get("group")),
        "crash": _("{who} crashes without saving its progress.").format(who=who),
        "shutting_down": _("{who} begins a clean shutdown: it lets running work finish.").format(who=who),
        "shutdown": _("{who} has saved its progress and stops.").format(who=who),
    }.get(str(d.get("event")), f"{who}: {d.get('event')}.")


_QUEUE = re.compile(r"\S+@[\w.-]+:\d+")


def _warning(ctx: CaptionContext, e: TraceEvent) -> str:
    said = _orderly_warning(e)
    if said:
        return said
    queue = _QUEUE.search(str(e.get("message") or ""))
    about = (
        _(" with {msg}").format(msg=e.msg_id)
        if e.msg_id
        else _(" with {queue}").format(queue=queue_words(queue.group(0)))
        if queue
        else ""
    )
    return _("{who} runs into a problem{about} that RocketMQ only writes to its log.").format(
        who=name_of(e.actor), about=about
    )


def _orderly_warning(e: TraceEvent) -> str:
    """The warnings a cut link gives an orderly consumer, in plain words ("" for any other): a lock request that
    failed (RebalanceImpl.lockAll / lock: lockBatchMQ), an unlock that failed, an offset not saved
    (updateConsumeOffsetToBroker), a lease that ran out (ProcessQueue.isLockExpired: 30 s,
    REBALANCE_LOCK_MAX_LIVE_TIME) and a queue still being consumed when rebalance would give it up
    (RebalancePushImpl.removeUnnecessaryMessageQueue: "maybe hanged for a while")."""
    text, who = str(e.get("message") or ""), name_of(e.actor)
    queues = sorted(_QUEUE.findall(text), key=lambda q: (q.startswith("%RETRY%"), q))  # the business topic first
    if not queues:
        return ""
    queue = queue_words(queues[0])
    more = ngettext(" and {count} more queue", " and {count} more queues", len(queues) - 1).format(
        count=len(queues) - 1
    ) if len(queues) > 1 else ""  # fmt: skip
    why = error_words(text)
    if text.startswith("lockBatchMQ exception"):
        return _("{who} could not get or renew its lock on {queue}{more} ({why}).").format(
            who=who, queue=queue, more=more, why=why
        )
    if text.startswith("unlockBatchMQ exception"):
        return _(
            "{who} could not give back its lock on {queue}{more} ({why}): the broker keeps it until it expires."
        ).format(who=who, queue=queue, more=more, why=why)
    if text.startswith("updateConsumeOffsetToBroker exception"):
        offset = re.search(r" offset (\d+)", text)
        return _(
            "{who} could not save its position {offset} in {queue} ({why}); it sends it again at its next save."
        ).format(who=who, offset=offset.group(1) if offset else "?", queue=queue, why=why)
    if text.endswith("lock is expired; try to lock again later"):
        return _(
            "{who}'s lock on {queue} ran out (not renewed for 30 s), so it stops consuming it until it locks it again."
        ).format(who=who, queue=queue)
    if text.endswith("lock is lost; try to lock again later"):
        return _("{who} no longer holds the lock on {queue}, so it stops consuming it until it locks it again.").format(
            who=who, queue=queue
        )
    if "mq is consuming, so can not unlock it" in text:
        return _(
            "{who} is still consuming {queue}, so it cannot give it up yet: it keeps it until the next rebalance."
        ).format(who=who, queue=queue)
    return ""


PLAIN: dict[EventKind, Callable[[CaptionContext, TraceEvent], str]] = {
    K.SEND_ATTEMPT: _send_attempt,
    K.SEND_RESULT: _send_result,
    K.SEND_FAILED: _send_failed,
    K.STORED: _stored,
    K.SCHEDULED: _scheduled,
    K.DELAY_DELIVERED: _delay_delivered,
    K.PULLED: pulled,
    K.PULL_DEFERRED: pull_deferred,
    K.PULL_EMPTY: pull_empty,
    K.DELIVERED: delivered,
    K.CONSUMED: consumed,
    K.SEND_BACK: send_back,
    K.SEND_BACK_FALLBACK: send_back_fallback,
    K.LOCAL_RETRY: local_retry,
    K.DEAD_LETTERED: dead_lettered,
    K.BROADCAST_DROPPED: broadcast_dropped,
    K.OFFSET_UPDATED: offset_updated,
    K.OFFSET_PERSISTED: offset_persisted,
    K.REBALANCED: rebalanced,
    K.LOCK_BATCH: lock_batch,
    K.LOCK_ACQUIRED: lock_acquired,
    K.LOCK_RENEWED: lock_renewed,
    K.LOCK_REFUSED: lock_refused,
    K.LOCK_EXPIRED: lock_expired,
    K.UNLOCKED: unlocked,
    K.SUSPENDED: suspended,
    K.CONSUME_REQUEST: consume_request,
    K.CLEAN_EXPIRED: _clean_expired,
    K.RETENTION_DELETED: _retention_deleted,
    K.FAULT: _fault,
    K.ADMIN: _admin,
    K.LIFECYCLE: _lifecycle,
    K.WARNING: _warning,
}
"""Event kind → the plain sentence of its caption's first line."""
