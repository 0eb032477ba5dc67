"""What a checkpoint offers, and what it says to each wrong answer: derived from the run, not from a fixed list.

A "where" question offers only the places the paused message could plausibly be after the next step — the queues of
its topic for a send, and for a consumer's failure the place it is now, the queue it came from, its group's retry
queue, delay levels around the right one, its group's DLQ and its "consumed" tray (none of the retry places when the
group is BROADCASTING, which drops a failure). A "when" question's choices are in
:mod:`.checkpoint_when`.

Every wrong choice carries its own **near-miss hint**: what the student's choice would mean, and the rule that rules
it out, with this run's numbers (``M0001 has been reconsumed 0 times; the DLQ comes at 1``), never the answer itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rmqlab import DEFAULT_MESSAGE_DELAY_LEVEL, DelayLevelTable, EventKind, TraceEvent, format_duration
from rmqlab.core.i18n import gettext as _
from rmqlab.core.i18n import ngettext
from rmqlab.snapshot import LabSnapshot

from .checkpoint_orderly import ORDERLY_KINDS, keeps_it_local, local_hint
from .checkpoint_sends import SENDS, SendFacts, broker_of, failed_hint, failed_place, send_facts, send_hint
from .flow_view import FlowVM, Place

__all__ = ["DELAYS", "Offer", "where_offers", "who_hint"]

DELAYS = DelayLevelTable(DEFAULT_MESSAGE_DELAY_LEVEL)
PLACE_ORDER = ("business", "retry", "delay", "dlq", "process_queue", "done", "dropped", "send_failed")
"""The kinds of place a "where" question offers, in the order of its buttons."""
RETRY_PATH = (EventKind.SEND_BACK, EventKind.SCHEDULED, EventKind.DEAD_LETTERED, EventKind.DELAY_DELIVERED)
"""Events on the send-back path: their questions offer delay levels, the retry queue and the DLQ."""



@dataclass(frozen=True, slots=True)
class Offer:
    """One plausible answer: ``key`` (a place key or a time in ms), its label, its mark, and the near-miss hint
    shown when a student picks it and it is wrong ("" for the right one)."""

    key: str
    label: str
    mark: str = ""
    hint: str = ""
    place: Place | None = None
    """The place as the picture draws it once it exists (its real name): the paused frame draws a placeholder of it
    when it is not there yet."""


# ---------------------------------------------------------------- where


def _topic(place_key: str) -> str:
    """``queue:TopicTest@broker-a:0`` → ``TopicTest``; "" for a place that is not a queue."""
    return place_key.removeprefix("queue:").split("@")[0] if place_key.startswith("queue:") else ""


def _plausible(p: Place, *, answer: str, now_at: set[str], came_from: str, group: str, retry_path: bool) -> bool:
    """Whether ``p`` is a place the paused message could be after the next step (see the module docstring)."""
    if p.key == answer or p.key in now_at:
        return True
    if p.kind in ("business", "retry", "dlq") and _topic(p.key) == _topic(answer) != "":
        return not retry_path or p.kind != "business"  # a send: every queue of its topic; a retry: not the others
    if p.key == came_from:
        return True
    if p.kind == "process_queue" and answer.startswith("pq:"):
        return _topic("queue:" + p.key.split(":", 2)[2]) == _topic("queue:" + answer.split(":", 2)[2])
    if not retry_path:
        return p.kind in ("done", "dropped", "delay") and (p.kind == "delay" or p.key.endswith(f":{group}"))
    return p.kind == "delay" or p.key in (
        f"queue:%RETRY%{group}@{p.key.split('@')[-1]}", f"done:{group}", f"dropped:{group}"
    ) or (
        p.kind == "dlq" and _topic(p.key) == f"%DLQ%{group}"
    )


def _failure(event: TraceEvent) -> bool:
    """A consume result that is not a success (RECONSUME_LATER, an exception, a null or a timeout)."""
    return str(event.get("status")) not in ("CONSUME_SUCCESS", "SUCCESS", "COMMIT", "None")


def _times(n: int) -> str:
    return ngettext("{n} time", "{n} times", n).format(n=n)


def _reconsumed(event: TraceEvent, trace: Sequence[TraceEvent]) -> int:
    """How many times ``event``'s message had been reconsumed when it failed: a send-back says so; a scheduled or
    dead-lettered copy carries that count + 1; else the last delivery's."""
    count = event.get("reconsume_times")
    if count is not None:
        return int(count) - (event.kind in (EventKind.SCHEDULED, EventKind.DEAD_LETTERED))
    delivered = [e for e in trace if e.msg_id == event.msg_id and e.kind is EventKind.DELIVERED]
    return int(delivered[-1].get("reconsume_times") or 0) if delivered else 0


DEFAULT_MAX_RECONSUME_TIMES = 16
"""What a concurrent consumer that leaves ``maxReconsumeTimes`` unset (-1) sends with its send-back (4.9.7
``DefaultMQPushConsumerImpl.getMaxReconsumeTimes``: -1 means 16), and the broker's own default
(``SubscriptionGroupConfig.retryMaxTimes``)."""


def _max_reconsume_times(event: TraceEvent, trace: Sequence[TraceEvent], step: Sequence[TraceEvent]) -> int:
    """The group's maxReconsumeTimes as a send-back carried it: ``event``'s own; else the send-back of its message
    in the paused ``step`` (the broker parks or dead-letters the copy before the client records its send-back);
    else the last one of the same consumer before, else any; with none, or an unset one (-1), the 4.9.7 default."""
    most = event.get("max_reconsume_times")
    if most is None:
        answered = [e for e in step if e.kind is EventKind.SEND_BACK and e.msg_id == event.msg_id]
        carried = answered + [e for e in reversed(trace) if e.kind is EventKind.SEND_BACK]
        sends = [e for e in carried if e.get("max_reconsume_times") is not None]
        mine = [e for e in sends if e.actor == event.actor or e in answered]
        most = (mine or sends)[0].get("max_reconsume_times") if sends else None
    return DEFAULT_MAX_RECONSUME_TIMES if most is None or int(most) < 0 else int(most)


def _sender(event: TraceEvent, trace: Sequence[TraceEvent], step: Sequence[TraceEvent]) -> str:
    """The consumer instance whose send-back carries the max (its own setting, not the group's: lab 02b)."""
    backs = [e for e in (event, *step, *reversed(trace)) if e.kind is EventKind.SEND_BACK and e.msg_id == event.msg_id]
    return backs[0].actor.split(":", 1)[-1] if backs else _("the consumer")


def _where_hint(
    choice: Place, answer: Place, event: TraceEvent, rt: int, most: int, sent: SendFacts | None = None, who: str = "",
    retry_path: bool = False,
) -> str:
    """Why ``choice`` is not where ``event``'s message goes, with the run's numbers (never the answer itself);
    ``retry_path``: the failure is sent back (CLUSTERING), so a drop means the group has no retry queue."""
    msg = event.msg_id or _("the message")
    if choice.kind == "dropped" and answer.kind in ("delay", "dlq", "retry"):
        return _("Nothing is dropped here: the group has a retry queue, so the broker stores the send-back "
                 "(at a delay level, in the retry topic or in the dead-letter topic).")
    if answer.kind == "dropped" and retry_path:
        return _("Look at the group's retryQueueNums: the broker stores a send-back only in a retry queue the group "
                 "has, and answers the client either way.")
    if answer.kind == "delay":
        if choice.kind == "delay":
            return _("The broker picks the level as 3 + reconsumeTimes; {msg} has been reconsumed {times} so far."
                     ).format(msg=msg, times=_times(rt))
        if choice.kind == "retry":
            return _("Not yet: the copy first waits in SCHEDULE_TOPIC_XXXX at a delay level; it reaches {place} "
                     "only when that delay is over.").format(place=choice.label)
        if choice.kind == "dlq":
            return _("Not yet: {msg} has been reconsumed {times} and {who}'s own maxReconsumeTimes is {most}; the "
                     "broker dead-letters only when reconsumeTimes reaches it, and parks the copy in "
                     "SCHEDULE_TOPIC_XXXX first.").format(msg=msg, times=_times(rt), who=who, most=most)
        if choice.kind == "done":
            return _("RECONSUME_LATER is not an acknowledgement: the consumer sends the message back to the broker.")
        return _("A concurrent consumer does not retry in place: sendMessageBack hands the message back to the "
                 "broker, which stores a new copy to be delivered later.")
    if answer.kind == "dlq":
        if choice.kind in ("delay", "retry"):
            return _("{msg} has already been reconsumed {times}, and {who}'s own maxReconsumeTimes is {most}: the "
                     "broker stops scheduling retries once reconsumeTimes reaches the max the sender gives.").format(
                msg=msg, times=_times(rt), who=who, most=most)
        if choice.kind == "done":
            return _("A failure is never an acknowledgement in CLUSTERING: the message goes back to the broker.")
        return _("The consumer does not keep a failed message: it sends it back, and the broker decides its fate.")
    if answer.kind == "dropped":
        if choice.kind == "done":
            return _("The offset moves past it as if it were consumed, but the listener failed it: in BROADCASTING "
                     "processConsumeResult drops a failure.")
        return _("In BROADCASTING a failure is not sent back: processConsumeResult drops it (no retry queue, no "
                 "delay level, no DLQ).")
    if event.kind in SENDS and "send_failed" in (choice.kind, answer.kind):
        return failed_hint(choice, answer)
    if answer.kind in ("business", "retry") and event.kind in SENDS:
        said = send_hint(choice, answer, sent)
        if said:
            return said
        if broker_of(choice.key) != broker_of(answer.key):
            return _("Look at the broker: the producer picks among the queues of the route it may use now — a "
                     "broker sidelined by sendLatencyFaultEnable, or a selector's rule, can rule one out.")
        return _("Look at the queue number: the round robin moves one queue on from the producer's last send, and "
                 "a MessageQueueSelector returns the queue its rule computes.")
    if answer.kind == "retry" and event.kind is EventKind.DELAY_DELIVERED:
        return _("When its delay is over, ScheduleMessageService moves the copy to the topic in its REAL_TOPIC "
                 "property.")
    if answer.kind == "process_queue":
        return _("A message goes to the instance the rebalance gave its queue; look at who holds the queue now.")
    return ""


def _answer_broker(answer: str, came_from: str) -> str:
    """The broker of a "where" answer: a delay level's or a queue's, and for "dropped:cg" / "done:cg" the broker of
    the queue the message was delivered from (``came_from``)."""
    if answer.startswith("delay:"):
        return answer.split(":")[1]
    if "@" in answer:
        return broker_of(answer)
    return broker_of(came_from) or answer.split(":")[0]


def where_offers(
    event: TraceEvent,
    before: FlowVM,
    after: FlowVM,
    answer: str,
    now_at: set[str],
    trace: Sequence[TraceEvent],
    *,
    step: Sequence[TraceEvent] = (),
) -> tuple[Offer, ...]:
    """The plausible places for ``event``'s message, each with its near-miss hint; ``answer`` among them. ``trace``
    is what happened before ``event``; ``step`` the paused step's events (only read for the group's max)."""
    local = keeps_it_local(event, step)  # an orderly consumer keeps what it fails, short of its max
    failed = not local and (event.kind in RETRY_PATH or (event.kind is EventKind.CONSUMED and _failure(event)))
    retry_path = failed and (before.retry_paths or after.retry_paths)
    places = {p.key: p for p in (*before.places, *after.places)}
    tokens = [t for t in before.tokens if t.msg_id == event.msg_id]
    group = next((t.owner for t in tokens if t.owner), "") or next(
        (str(e.get("group")) for e in reversed(trace) if e.msg_id == event.msg_id and e.get("group")), ""
    )
    came_from = next((f"queue:{e.get('queue')}" for e in reversed(trace)
                      if e.msg_id == event.msg_id and e.kind is EventKind.DELIVERED), "")  # fmt: skip
    rt = _reconsumed(event, trace)
    most, who = _max_reconsume_times(event, trace, step), _sender(event, trace, step)
    sent = send_facts(event, trace) if event.kind is EventKind.STORED else None
    drawn = {p.key for p in before.places}
    broker = _answer_broker(answer, came_from)
    if retry_path:
        places = _retry_path_places(places, answer, rt, broker, group, event.kind is not EventKind.DELAY_DELIVERED)
    elif failed:  # BROADCASTING drops it: still offer the retry it does not make (the lab's misconception)
        broker = broker_of(came_from) or broker
        key = f"delay:{broker}:{3 + rt}"
        places.setdefault(key, Place(key, "delay", _("level {level}").format(level=3 + rt), f"broker:{broker}"))
    if local and group:
        places.setdefault(f"dropped:{group}", _dropped_tray(group))
    fails = failed_place(event, trace)  # a send: "send fails, not stored" next to its producer, and its topic's queues
    places.update({fails.key: fails} if fails is not None else {})
    offers = []
    order = {k: i for i, k in enumerate(PLACE_ORDER)}
    right = places[answer]
    for p in sorted(places.values(), key=lambda p: (order.get(p.kind, 9), p.key)):
        ours = fails is not None and (p.key == fails.key or (p.kind, _topic(p.key)) == ("business", event.get("topic")))
        if not ours and ((p.key != answer and p.kind not in order) or not _plausible(
            p, answer=answer, now_at=now_at, came_from=came_from, group=group, retry_path=retry_path
        ) or (local and p.kind not in ORDERLY_KINDS)):
            continue
        hint = "" if p.key == answer else (
            local and local_hint(p, right, event)) or _where_hint(p, right, event, rt, most, sent, who, retry_path)
        offers.append(Offer(p.key, _button(p), f"place:{p.key}", hint, p if p.key in drawn else _as_drawn(p)))
    return _told_apart(_stored_or_pulled(offers))


def _button(p: Place) -> str:
    """What a place's button reads: a delay level with its delay, a ProcessQueue with its owner ("c1's ProcessQueue
    TopicTest:0"), any other place its name in the picture."""
    if p.kind == "delay":
        lv = int(p.key.rsplit(":", 1)[1])
        return _("delay level {level} · {delay}").format(level=lv, delay=format_duration(DELAYS.delay_ms(lv)))
    if p.kind == "process_queue":
        return _("{who}'s ProcessQueue {queue}").format(who=p.owner, queue=p.label)
    return p.label


def _stored_or_pulled(offers: list[Offer]) -> list[Offer]:
    """A broker's queue offered beside a consumer's ProcessQueue of it says whose it is: "broker-a's queue
    TopicTest:0" and "c1's ProcessQueue TopicTest:0" (both were "TopicTest:0", one with " (c1)": revD 6, a student
    clicked the broker's, thinking "it is still in the queue")."""
    pulled = {o.key.split(":", 2)[2] for o in offers if o.key.startswith("pq:")}
    out = []
    for o in offers:
        queue = o.key.removeprefix("queue:")
        if o.key.startswith("queue:") and queue in pulled:
            o = replace(o, label=_("{broker}'s queue {queue}").format(broker=broker_of(o.key), queue=o.label))
        out.append(o)
    return out


def _retry_path_places(
    places: dict[str, Place], answer: str, rt: int, broker: str, group: str, may_drop: bool
) -> dict[str, Place]:
    """``places`` with a failed message's retry path: delay levels 3 + reconsumeTimes ± 2 (the others left out), the
    group's DLQ, and, when the step may drop it (a send-back; not a delay level's move), its "dropped" tray, always
    on offer (a group with no retry queue loses the message): offered only in the run that drops it, the new button
    gave the answer away (lab 04's retryQueueNums = 0)."""
    level = int(answer.rsplit(":", 1)[1]) if answer.startswith("delay:") else 3 + rt
    window = range(max(1, level - 2), min(DELAYS.max_level, level + 2) + 1)
    places = {k: p for k, p in places.items() if p.kind != "delay" or int(k.rsplit(":", 1)[1]) in window}
    for lv in window:
        key = f"delay:{broker}:{lv}"
        places.setdefault(key, Place(key, "delay", _("level {level}").format(level=lv), f"broker:{broker}"))
    if group:
        dlq = f"queue:%DLQ%{group}@{broker}:0"
        label = _("%DLQ%{group}:0 (dead letters)").format(group=group)
        places.setdefault(dlq, Place(dlq, "dlq", label, f"broker:{broker}"))
    if group and may_drop:
        places.setdefault(f"dropped:{group}", _dropped_tray(group))
    return places


def _dropped_tray(group: str) -> Place:
    """The group's "dropped" tray as a place to offer, drawn or not (the picture draws it only once it holds one)."""
    return Place(f"dropped:{group}", "dropped", _("dropped · {owner}").format(owner=group), "outcome", owner=group)


def _as_drawn(p: Place) -> Place:
    """``p`` under the name the picture gives it once it exists: ``level 4 · 30 s`` in the SCHEDULE_TOPIC_XXXX lane,
    ``%DLQ%cg:0`` in the %DLQ% lane (a button may say more, e.g. "(dead letters)")."""
    if p.kind == "delay":
        lv = int(p.key.rsplit(":", 1)[1])
        delay = format_duration(DELAYS.delay_ms(lv))
        return replace(p, label=_("level {level} · {delay}").format(level=lv, delay=delay))
    if p.kind == "dlq":
        topic, _at, where = p.key.removeprefix("queue:").partition("@")
        return replace(p, label=f"{topic}:{where.rsplit(':', 1)[-1]}")
    return p


def _told_apart(offers: list[Offer]) -> tuple[Offer, ...]:
    """Two buttons never read the same: a queue label shared by two brokers gets its broker ("TopicTest:0 ·
    broker-b"), as the picture shows it."""
    seen: dict[str, int] = {}
    for o in offers:
        seen[o.label] = seen.get(o.label, 0) + 1
    out = []
    for o in offers:
        if seen[o.label] > 1 and "@" in o.key and " · " not in o.label:
            broker = broker_of(o.key)
            o = replace(o, label=f"{o.label} · {broker}")
        out.append(o)
    return tuple(out)


# ---------------------------------------------------------------- who


def who_hint(choice: str, snap: LabSnapshot, event: TraceEvent) -> str:
    """Why instance ``choice`` is not the one that acts: it is stopped, or what the rule says."""
    for c in snap.consumers:
        if c.client_id == choice and (c.crashed or not c.running):
            said = _("{who} is crashed: a stopped instance takes nothing.") if c.crashed else _(
                "{who} is not running: a stopped instance takes nothing.")
            return said.format(who=choice)
    if event.kind is EventKind.LOCK_ACQUIRED:
        return _("A lock stays with its holder until it expires at the broker (60 s after its last renewal); a "
                 "running holder keeps renewing it every 20 s.")
    if event.kind is EventKind.DELIVERED:
        return _("A message is delivered only to the instance the rebalance gave its queue to.")
    return ""
