"""The caption of step 0: what the picture shows and what is about to happen, before anything has.

Before the first Step a student sees brokers, queues and clients and nothing moving; the caption tells them, in one
plain sentence with this run's numbers, what they are looking at and what the run will do ("2 brokers (broker-a,
broker-b), TopicTest with 4 queues on each; producer pg will send 6 messages and c1 consumes them; broker-a goes down
at 2 s."), and on the second line which RocketMQ objects the Lab built. Everything is read from the run itself —
the first frame's snapshot (brokers, queues) and the run's whole trace (who sends how many messages, which consumers
start, which faults the script injects, and when) — so no lab words its own; a run not known ahead (a dashboard that
is not run ahead) says what the trace so far shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from rmqlab.core.duration import format_duration
from rmqlab.core.i18n import gettext as _
from rmqlab.core.i18n import ngettext
from rmqlab.core.trace import EventKind, TraceEvent
from rmqlab.narrate.steps import StepCaption, fit_rule
from rmqlab.snapshot import LabSnapshot

__all__ = ["intro_caption"]

K = EventKind
SYSTEM_TOPICS = ("%", "SCHEDULE_TOPIC", "RMQ_SYS", "TBW102")


def _name(actor: str) -> str:
    """``producer:pg`` → ``pg``; ``consumer:c1`` → ``c1``; a broker's name as it is."""
    return actor.split(":", 1)[-1]


def _listed(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` (in Chinese ``a、b 和 c``)."""
    if len(names) <= 1:
        return "".join(names)
    return _("{items} and {last}").format(items=_(", ").join(names[:-1]), last=names[-1])


def _topics(snap: LabSnapshot) -> list[str]:
    """Each user topic with its queues: "TopicTest with 4 queues on each" (of several brokers), "… with 4 queues"."""
    per: dict[str, dict[str, int]] = {}
    for q in snap.queues:
        if q.topic.startswith(SYSTEM_TOPICS):
            continue
        per.setdefault(q.topic, {}).setdefault(q.broker, 0)
        per[q.topic][q.broker] += 1
    said = []
    for topic, brokers in per.items():
        counts = set(brokers.values())
        n = sum(brokers.values())
        if len(brokers) > 1 and len(counts) == 1:
            each = counts.pop()
            said.append(ngettext("{topic} with {n} queue on each", "{topic} with {n} queues on each", each).format(
                topic=topic, n=each))  # fmt: skip
        elif len(brokers) > 1:
            many = _("{topic} with {n} queues on {brokers} brokers")
            said.append(many.format(topic=topic, n=n, brokers=len(brokers)))
        else:
            said.append(ngettext("{topic} with {n} queue", "{topic} with {n} queues", n).format(topic=topic, n=n))
    return said


def _fault(event: TraceEvent) -> str:
    """A scripted fault ahead, plainly: "broker-a goes down at 2 s"."""
    fault, at = event.get("fault"), format_duration(event.time_ms)
    if fault == "broker_down":
        return _("{broker} goes down at {time}").format(broker=event.actor, time=at)
    if fault == "broker_up":
        return _("{broker} comes back at {time}").format(broker=event.actor, time=at)
    if fault == "partition":
        return _("the link between {client} and {broker} is cut at {time}").format(
            client=event.get("client"), broker=event.actor, time=at
        )
    if fault == "heal":
        return _("the link between {client} and {broker} works again at {time}").format(
            client=event.get("client"), broker=event.actor, time=at
        )
    return _("{broker} misbehaves from {time}").format(broker=event.actor, time=at)


def intro_caption(snap: LabSnapshot, events: Sequence[TraceEvent]) -> StepCaption:
    """Step 0's two lines from the first frame's ``snap`` and the run's ``events`` (the whole trace when known)."""
    brokers = [b.name for b in snap.brokers]
    senders: dict[str, dict[str, None]] = {}
    consumers: dict[str, TraceEvent] = {}
    faults: list[TraceEvent] = []
    for e in events:
        if e.kind in (K.SEND_ATTEMPT, K.SEND_FAILED) and e.msg_id and e.actor.startswith("producer:"):
            # a send the selector refused makes no attempt, and the application sent it all the same (lab 06)
            if not str(e.get("topic", "")).startswith(SYSTEM_TOPICS):
                senders.setdefault(_name(e.actor), {})[e.msg_id] = None
        elif e.kind is K.LIFECYCLE and e.get("event") == "start":
            consumers.setdefault(_name(e.actor), e)
        elif e.kind is K.FAULT and e.seq > snap.trace_len:
            faults.append(e)
    where = ngettext("{n} broker ({names})", "{n} brokers ({names})", len(brokers)).format(
        n=len(brokers), names=_(", ").join(brokers)
    )
    shows = _("{brokers}, {topics}").format(brokers=where, topics=_listed(_topics(snap))) if _topics(snap) else where
    sent = sorted({m for msgs in senders.values() for m in msgs})
    who = _listed(sorted(consumers))
    if sent:
        producers = ngettext("producer {names}", "producers {names}", len(senders)).format(names=_listed(list(senders)))
        will = ngettext("{producers} will send {n} message", "{producers} will send {n} messages", len(sent)).format(
            producers=producers, n=len(sent)
        )
        happens = (
            (
                ngettext("{will} and {who} consumes it", "{will} and {who} consume it", len(consumers))
                if len(sent) == 1
                else ngettext("{will} and {who} consumes them", "{will} and {who} consume them", len(consumers))
            ).format(will=will, who=who)
            if consumers
            else _("{will}; no consumer reads them").format(will=will)
        )
    elif consumers:
        happens = ngettext("{who} starts consuming", "{who} start consuming", len(consumers)).format(who=who)
    else:
        happens = _("nothing is sent yet")
    ahead = [_fault(f) for f in faults[:1]]
    plain = _("{shows}; {happens}.").format(shows=shows, happens=_("; ").join([happens, *ahead]))
    return StepCaption(plain, fit_rule(_("in the source: {rule}").format(rule=_built(snap, consumers))))


def _built(snap: LabSnapshot, consumers: dict[str, TraceEvent]) -> str:
    """What the Lab built, by RocketMQ's class names: brokers, producers with their group, consumers with theirs."""
    parts = [_("BrokerController {names}").format(names=_(", ").join(b.name for b in snap.brokers))]
    parts += [_("DefaultMQProducer {name} (group {group})").format(name=n, group=g) for n, g in snap.producers]
    alike: dict[tuple[str, str, str], list[str]] = {}  # consumers of one group set up alike, said once
    for name, start in consumers.items():
        mode = {"orderly": _("orderly"), "concurrently": _("concurrently")}.get(str(start.get("mode")), "")
        model = str(start.get("message_model", "CLUSTERING"))
        alike.setdefault((str(start.get("group")), model, mode), []).append(name)
    for (group, model, mode), names in alike.items():
        parts.append(
            _("DefaultMQPushConsumer {names} of {group} ({model}, {mode})").format(
                names=_(", ").join(names), group=group, model=model, mode=mode
            )
        )
    return _("the Lab builds {parts}").format(parts=_("; ").join(parts))
