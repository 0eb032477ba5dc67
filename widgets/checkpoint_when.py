"""What a "when" checkpoint offers, and what it says to each wrong time: the answer, the due times of the clocks that
tick for the paused actor (its timers in the snapshot) and the times of the usual misreadings of the mechanism (the
delay of a concurrent retry for an orderly one, the 20 s rebalance for a new member, the 30 s a client trusts its
lock …), each wrong one with its near-miss hint in this run's numbers.

Apart from :mod:`.checkpoint_choices` (the "where" and "who" questions) because it reads clocks, not places.
"""

from __future__ import annotations

from collections.abc import Sequence

from rmqlab import EventKind, TraceEvent, format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.core.timers import TimerKind
from rmqlab.snapshot import LabSnapshot
from rmqlab.store.clean_commit_log_service import DAY_MS, DELETE_WHEN_HOUR, FILE_RESERVED_TIME_MS

from .checkpoint_choices import DELAYS, Offer

__all__ = ["happens", "when_offers"]

HOUSEKEEPING = (TimerKind.HEARTBEAT, TimerKind.ROUTE_POLL, TimerKind.CLEAN_EXPIRED, TimerKind.PERSIST_OFFSET)
"""Timers that never decide when a message moves: not offered as a "when"."""
CLOSEST_MS = 1_000
"""A wrong time is at least this far from the answer."""
TIMER_WORDS = {
    TimerKind.REBALANCE: N_("its 20 s rebalance timer"),
    TimerKind.LOCK_RENEW: N_("its 20 s lock renewal (lockAll)"),
    TimerKind.SUSPEND: N_("the end of its queue's suspension"),
    TimerKind.LOCAL_RETRY: N_("its 5 s local retry"),
    TimerKind.PULL_LATER: N_("its next delayed pull"),
    TimerKind.LISTENER: N_("a running listener's return"),
    TimerKind.CONSUME_YIELD: N_("its return after giving the thread back (60 s in a row)"),
    TimerKind.TRY_LOCK_LATER: N_("its next try for the queue lock"),
    TimerKind.DELAY_LEVEL: N_("a delay level's next delivery"),
    TimerKind.HOLD_CHECK: N_("its 5 s check of held pulls"),
    TimerKind.CHANNEL_SCAN: N_("its 10 s scan for silent consumers"),
    TimerKind.RETENTION: N_("its 04:00 deletion of old files"),
    TimerKind.RESPONSE: N_("a response on its way back"),
    TimerKind.REQUEST_TIMEOUT: N_("a request's timeout"),
}
"""A timer of the paused actor, in the words a wrong "when" hint uses (translated where shown)."""
NOT_AT_ONCE = N_("Not at once: something has to finish or come due first. Which clock is this actor waiting on?")
"""The hint of the paused moment, offered when no other choice is earlier than the answer (translated where shown)."""


def happens(event: TraceEvent) -> str:
    """What ``event`` is, as a clause: ``M0002 is delivered``, ``c2 rebalances``, ``c2 gets the lock``."""
    msg = event.msg_id or _("the message")
    who = event.actor.split(":", 1)[-1]
    words = {
        EventKind.DELIVERED: N_("{msg} is delivered"),
        EventKind.DELAY_DELIVERED: N_("{msg} leaves its delay level"),
        EventKind.REBALANCED: N_("{who} rebalances"),
        EventKind.LOCK_ACQUIRED: N_("{who} gets the lock"),
        EventKind.CONSUMED: N_("{msg} is consumed"),
        EventKind.SEND_BACK: N_("{msg} is sent back"),
        EventKind.DEAD_LETTERED: N_("{msg} is dead-lettered"),
        EventKind.STORED: N_("{msg} is stored"),
        EventKind.SCHEDULED: N_("{msg} is parked at a delay level"),
        EventKind.OFFSET_UPDATED: N_("{who}'s committed offset moves"),
        EventKind.RETENTION_DELETED: N_("{who} deletes old CommitLog files"),
    }
    if event.kind in words:
        return _(words[event.kind]).format(msg=msg, who=who)
    return _("the next {kind} happens").format(kind=event.kind.value)



def _not_yet(event: TraceEvent, snap: LabSnapshot) -> str:
    """The hint of the paused moment: a consumer that has not started yet cannot act (lab 00's c2, which rebalances
    at once when it starts: "not at once" was false there); else :data:`NOT_AT_ONCE`."""
    who = event.actor.removeprefix("consumer:")
    if event.actor.startswith("consumer:") and not any(c.client_id == who and c.running for c in snap.consumers):
        return _("{who} is not running yet at {now}: an instance owns no queue and takes no message before it "
                 "starts.").format(who=who, now=format_duration(snap.now_ms))
    return _(NOT_AT_ONCE)


def _mistakes(event: TraceEvent, now: int, trace: Sequence[TraceEvent]) -> list[tuple[int, str]]:
    """(time, hint) for the usual misreadings of when ``event`` comes, from the run so far."""
    msg = event.msg_id
    kind = event.kind
    out: list[tuple[int, str]] = []
    if kind is EventKind.DELIVERED and msg is not None:
        before = [e for e in trace if e.msg_id == msg and e.kind is EventKind.DELIVERED]
        if before:
            failed = max(e.time_ms for e in trace if e.msg_id == msg)
            rt = int(before[-1].get("reconsume_times") or 0)
            orderly = any(e.kind is EventKind.SUSPENDED and e.msg_id == msg for e in trace)
            if orderly:
                out.append((failed + DELAYS.delay_ms(min(3 + rt, DELAYS.max_level)),
                            _("That is a concurrent consumer's retry delay (level 3 + reconsumeTimes). An orderly "
                              "consumer does not send back: it suspends the queue and retries locally.")))  # fmt: skip
                out.append((failed + 30_000, _("30 s is the longest suspension a listener may ask for "
                            "(submitConsumeRequestLater clamps to 10 … 30000 ms); this queue uses the consumer's own "
                            "suspendCurrentQueueTimeMillis.")))  # fmt: skip
            else:
                reached = any(e.kind in (EventKind.SEND_BACK, EventKind.SEND_BACK_FALLBACK) and e.msg_id == msg
                              and e.get("ok") for e in trace
                              if e.time_ms >= before[-1].time_ms)  # fmt: skip
                out.append((failed + 1_000, _("1 s is an orderly consumer's local pause. A concurrent consumer sends "
                            "the message back, and the broker holds it for its delay level.") if reached else _(
                            "1 s is an orderly consumer's local pause. This send-back failed, so the concurrent "
                            "consumer keeps the message and resubmits it itself (submitConsumeRequestLater), after "
                            "its own fixed wait.")))  # fmt: skip
                out.append((failed + DELAYS.delay_ms(min(3 + rt, DELAYS.max_level)), _("That is the broker's delay "
                            "(level 3 + reconsumeTimes) for a send-back that reaches it. Did this one reach the "
                            "broker?") if not reached else _("That is the delay of the level the broker chose: count "
                            "the reconsumes again.")))  # fmt: skip
                if reached:
                    out.append((failed + 5_000, _("5 s is the local retry after a send-back that failed; this "
                                "send-back reached the broker.")))  # fmt: skip
    elif kind is EventKind.REBALANCED:
        done = [e.time_ms for e in trace if e.kind is EventKind.REBALANCED and e.actor == event.actor]
        out.append((done[-1] + 20_000 * -(-(event.time_ms - done[-1]) // 20_000), _(  # lab 00: 22 s → 42 s → 62 s
            "That is {who}'s next periodic rebalance (every 20 s). A consumer that hears that the group changed "
            "rebalances at once, without waiting for it.").format(who=event.actor.split(":", 1)[-1])) if done else (
            now + 20_000, _("A consumer that starts, or hears that the group changed, rebalances at once; the 20 s "
                            "wait is only between rebalances.")))  # fmt: skip
    elif kind is EventKind.DELAY_DELIVERED and msg is not None:
        sched = [e for e in trace if e.msg_id == msg and e.kind is EventKind.SCHEDULED]
        if sched:
            level = int(sched[-1].get("level") or 3)
            for lv in (level - 2, level - 1, level + 1, level + 2):
                if 1 <= lv <= DELAYS.max_level:
                    out.append((sched[-1].time_ms + DELAYS.delay_ms(lv), _("That is delay level {level}. The broker "
                                "parked this copy at level 3 + its reconsumeTimes at the send-back.").format(
                                level=lv)))  # fmt: skip
    elif kind is EventKind.LOCK_ACQUIRED:
        renewals = [e for e in trace if e.kind in (EventKind.LOCK_ACQUIRED, EventKind.LOCK_RENEWED)
                    and e.actor != event.actor]  # fmt: skip
        if renewals:
            last = renewals[-1].time_ms
            out.append((last + 30_000, _("30 s is how long a client trusts its own copy of a lock "
                        "(ProcessQueue.isLockExpired); the broker keeps its entry 60 s after the last renewal.")))
    return out


def _dead_letter_mistakes(event: TraceEvent, now: int, trace: Sequence[TraceEvent]) -> list[tuple[int, str]]:
    """(time, hint) for the usual misreadings of when a failing message reaches the DLQ, from its last send-back
    (``SendMessageProcessor.asyncConsumerSendMsgBack``: ``reconsumeTimes >= maxReconsumeTimes`` → %DLQ%, else level
    3 + reconsumeTimes): one retry fewer (now), the previous level's wait, one retry more, and 18 retries for 16."""
    msg = event.msg_id
    if event.kind is not EventKind.DEAD_LETTERED or msg is None:
        return []
    sched = [e for e in trace if e.msg_id == msg and e.kind is EventKind.SCHEDULED and e.time_ms <= now]
    backs = [e for e in trace if e.msg_id == msg and e.kind is EventKind.SEND_BACK and e.get("ok")
             and e.time_ms <= now]  # fmt: skip
    if not sched or not backs:
        return []
    level, due = int(sched[-1].get("level") or 3), int(sched[-1].get("due_ms") or now)
    rt, most = int(backs[-1].get("reconsume_times") or 0), int(backs[-1].get("max_reconsume_times") or 16)
    who = backs[-1].actor.split(":", 1)[-1]
    after = DELAYS.delay_ms(min(level + 1, DELAYS.max_level))
    out = [(now, _("Not yet: at this send-back {msg}'s reconsumeTimes was {rt}, below maxReconsumeTimes {most}, "
                   "so the broker parked it for one more retry at level {level}.").format(
                       rt=rt, most=most, msg=msg, level=level))]  # fmt: skip
    if level > 1:
        out.append((sched[-1].time_ms + DELAYS.delay_ms(level - 1), _("That is delay level {lv}, the previous wait. "
                    "The broker parked this copy at level 3 + reconsumeTimes = {level} (at most 18).").format(
                        lv=level - 1, level=level)))  # fmt: skip
    out.append((due + after, _("One retry too many: the next failure is sent back with reconsumeTimes {most}, "
                "which reaches maxReconsumeTimes {most}, so the broker writes it to the DLQ at once instead of "
                "scheduling it again.").format(most=most)))  # fmt: skip
    out.append((due + after + DELAYS.delay_ms(min(level + 2, DELAYS.max_level)), _("That counts two retries more "
                "than {who} allows: its maxReconsumeTimes is {most} (−1 means 16). The 18 of the delay table is the "
                "number of levels, not of retries.").format(who=who, most=most)))  # fmt: skip
    return out


DELETE_WHEN_MS = DELETE_WHEN_HOUR * 3_600_000
"""``deleteWhen`` "04": the hour the engine's ``CleanCommitLogService`` deletes in (virtual time 0 is midnight of day
0); ``fileReservedTime`` (72 h) is the engine's too."""


def _retention_mistakes(event: TraceEvent, now: int, trace: Sequence[TraceEvent]) -> list[tuple[int, str]]:
    """(time, hint) for the usual misreadings of when ``CleanCommitLogService`` deletes the first dead letter (a
    file goes once its last write is ``fileReservedTime`` old, and only in the ``deleteWhen`` hour 04:xx): 72 h after
    it was stored, at any hour; the first 04:00 (``deleteWhen`` read as a deadline); the last 04:00 while it was
    younger than 72 h; a day later ("the DLQ keeps it longer")."""
    dead = [e for e in trace if e.kind is EventKind.DEAD_LETTERED and e.time_ms <= now]
    if event.kind is not EventKind.RETENTION_DELETED or not dead:
        return []
    stored, msg = dead[0].time_ms, dead[0].msg_id
    out = [(stored + FILE_RESERVED_TIME_MS, _("That is when {msg}'s dead letter turns fileReservedTime 72 h old, "
            "but CleanCommitLogService deletes only in the deleteWhen hour (04:00 to 04:59): an old file waits for "
            "the next 04:00.").format(msg=msg))]  # fmt: skip
    windows = [day * DAY_MS + DELETE_WHEN_MS for day in range(event.time_ms // DAY_MS + 2)]
    younger = [w for w in windows if now <= w < stored + FILE_RESERVED_TIME_MS]
    if younger and younger[0] == windows[0]:
        out.append((younger[0], _("deleteWhen 04 is the hour the deletion runs, not a deadline: at this 04:00 the dead "
                    "letter is {age} old, and a file goes only once its last write is 72 h old.").format(
                        age=format_duration(younger[0] - stored))))  # fmt: skip
    if younger[1:]:
        out.append((younger[-1], _("At this 04:00 the dead letter is {age} old, younger than fileReservedTime 72 h: "
                    "the window passes it by, and the next is 24 h later.").format(
                        age=format_duration(younger[-1] - stored))))  # fmt: skip
    out.append((windows[-1], _("A dead letter is not kept longer than other messages: a 04:00 window a day earlier "
                "already finds it past fileReservedTime 72 h, and deletes it like any other entry.")))  # fmt: skip
    return out


PERSIST_CONSUMER_OFFSET_INTERVAL_MS = 5_000
"""``persistConsumerOffsetInterval``'s 4.9.7 default: how often ``persistAllConsumerOffset`` reports offsets."""


def _offset_mistakes(event: TraceEvent, snap: LabSnapshot, trace: Sequence[TraceEvent]) -> list[tuple[int, str]]:
    """(time, hint) for the usual misreadings of when a committed offset moves (``ProcessQueue.removeMessage``
    returns ``msgTreeMap.firstKey()``): "when the last message finished" and "when the broker is told"."""
    if event.kind is not EventKind.OFFSET_UPDATED:
        return []
    queue, held = event.get("queue"), event.get("previous")
    done = [e for e in trace if e.kind is EventKind.CONSUMED and e.get("queue") == queue
            and int(e.get("queue_offset") or 0) > int(held or 0)]  # fmt: skip
    out: list[tuple[int, str]] = []
    if done:
        out.append((done[-1].time_ms, _("Offset {last} finished then, but the committed offset is not the highest "
                    "offset done: removeMessage returns the smallest key still in the ProcessQueue's TreeMap, and "
                    "offset {held} is still in it.").format(last=done[-1].get("queue_offset"), held=held)))  # fmt: skip
    persist = [t.due_ms for t in snap.timers if t.kind is TimerKind.PERSIST_OFFSET and t.owner == event.actor]
    if persist:
        ticks = -(-(event.time_ms - persist[0]) // PERSIST_CONSUMER_OFFSET_INTERVAL_MS)
        out.append((persist[0] + max(ticks, 0) * PERSIST_CONSUMER_OFFSET_INTERVAL_MS, _("That is when the broker "
                    "hears of it (persistAllConsumerOffset, every 5 s); the client's own copy moves first, the moment "
                    "removeMessage returns a new smallest key.")))  # fmt: skip
    return out


def when_offers(event: TraceEvent, snap: LabSnapshot, trace: Sequence[TraceEvent], most: int = 5) -> tuple[Offer, ...]:
    """The answer (``event``'s time) and at most ``most`` − 1 wrong times, each with its hint: the usual misreadings
    of the mechanism first, then the due times of the paused actor's clocks, the nearest to the answer first. When
    none of those is earlier than the answer, the paused moment is one ("not at once"), so that the earliest button
    is not always the right one. The buttons are in time order, a rule that does not know the answer."""
    now = snap.now_ms
    answer = event.time_ms
    what = happens(event)
    retention = [(due, hint) for due, hint in _retention_mistakes(event, now, trace) if due >= now and due != answer]
    candidates: dict[int, str] = dict(retention)  # the broker's own 04:00 clock: the retention hint, not the clock's
    for t in sorted(snap.timers, key=lambda t: (t.due_ms, t.seq)):
        if t.due_ms <= now or t.kind in HOUSEKEEPING or t.due_ms == answer:
            continue
        if t.owner == event.actor or (event.kind is EventKind.REBALANCED and t.kind is TimerKind.REBALANCE):
            words = _(TIMER_WORDS[t.kind]) if t.kind in TIMER_WORDS else _("its {kind} timer").format(
                kind=t.kind.value)
            who = t.owner.split(":", 1)[-1]
            candidates.setdefault(t.due_ms, _("That is when {who}'s clock is due ({timer}), not when {what}.").format(
                who=who, timer=words, what=what))
    misreadings = set()
    mistakes = _mistakes(event, now, trace) + _offset_mistakes(event, snap, trace)
    for due, hint in mistakes + _dead_letter_mistakes(event, now, trace) + retention:
        if due >= now and due != answer:
            misreadings.add(due)
            candidates.setdefault(due, hint)
    if len(candidates) < 2:  # a run with no other clock: a second either side of the answer's distance
        for due in (now + (answer - now) // 2, answer + max(answer - now, 1_000)):
            if due >= now and due != answer:
                candidates.setdefault(due, _("Step again and watch which clock this actor is waiting on."))
    apart = [due for due in candidates if abs(due - answer) >= CLOSEST_MS]  # "4 s" beside "4.02 s" only confuses
    ranked = sorted(apart, key=lambda due: (due not in misreadings, abs(due - answer), due))
    chosen = ranked[: most - 1]
    if answer - now >= CLOSEST_MS and not any(due < answer for due in chosen):
        candidates[now] = _not_yet(event, snap)
        chosen = [now, *ranked[: most - 2]]
    direction = {True: _("Too early. "), False: _("Too late. ")}
    offered = sorted([answer, *chosen])
    precise = any(due % 1000 for due in offered)  # one needs milliseconds: all read so (revF 10)
    return tuple(
        Offer(str(due), _("t = {time}").format(time=to_the_ms(due) if precise else format_duration(due)), "",
              "" if due == answer else direction[due < answer] + candidates[due])
        for due in offered
    )


def to_the_ms(ms: int) -> str:
    """``ms`` to the millisecond, as :func:`rmqlab.format_duration` writes a time that needs it: ``8.000 s``,
    ``1 m 5.000 s``. When one choice is ``9.001 s``, the others read ``8.000 s`` and ``20.000 s``, not ``8 s`` and
    ``20 s``: the only non-round button was the right one (07b's shutdown question)."""
    if ms < 60_000:
        return f"{ms // 1000}.{ms % 1000:03d} s"
    minutes = format_duration(ms - ms % 60_000)
    return f"{minutes} {ms % 60_000 // 1000}.{ms % 1000:03d} s"
