"""Captions of what the Lab does to a run rather than RocketMQ: consumer starts, crashes and shutdowns,
injected faults (:mod:`rmqlab.lab.faults`) and the warnings RocketMQ would only log.
"""

from __future__ import annotations

from ..core.i18n import gettext as _
from ..core.trace import TraceEvent
from .context import CaptionContext, dur, name_of

__all__ = ["PERSIST_EVERY_MS", "on_fault", "on_lifecycle", "on_warning"]


def on_lifecycle(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, who = e.data, name_of(e.actor)
    what = str(d.get("event"))
    if what == "start":
        ctx.consume_mode[e.actor] = str(d.get("mode", "concurrently"))
        ctx.message_model[e.actor] = str(d.get("message_model", "CLUSTERING"))
        ctx.group_of[e.actor] = str(d.get("group"))
        retry = (
            _(" and %RETRY%{group}").format(group=d.get("group")) if d.get("message_model") != "BROADCASTING" else ""
        )
        consuming = {"concurrently": _("consuming concurrently"), "orderly": _("consuming orderly")}.get(
            str(d.get("mode")), f"consuming {d.get('mode')}"
        )
        return "DefaultMQPushConsumerImpl.start", _(
            "{who} joins {group} ({model}, {consuming}): it subscribes its topics{retry}, heartbeats, then rebalances "
            "at once and 20 s after each rebalance"
        ).format(who=who, group=d.get("group"), model=d.get("message_model"), consuming=consuming, retry=retry)
    if what == "crash":
        return _("Lab: consumer crash"), _(
            "{who} of {group} dies without persisting: its ProcessQueues are gone and what it had not committed is "
            "redelivered from the last persisted offset after a rebalance"
        ).format(who=who, group=d.get("group"))
    if what == "shutting_down":
        return "DefaultMQPushConsumerImpl.shutdown", _(
            "{who} stops taking consume requests and waits up to {await_ms} ms for those in flight "
            "(awaitTerminationMillisWhenShutdown; as long again for the running ones if time runs out) before it "
            "persists its offsets; pulls and rebalances go on meanwhile"
        ).format(who=who, await_ms=d.get("await_ms"))
    if what == "shutdown":
        return "DefaultMQPushConsumerImpl.shutdown", _(
            "{who} has persisted its offsets (an orderly consumer after releasing its queue locks) and now stops and "
            "unregisters from {group}"
        ).format(who=who, group=d.get("group"))
    return _("Lab: lifecycle"), f"{who}: {what}"


def on_fault(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d = dict(e.data)
    fault = str(d.pop("fault", "?"))
    if fault == "broker_down":
        return "Lab.broker_down", _(
            "{broker} stops: connections are refused, held pulls break and the name server withdraws its routes; "
            "clients notice at their next request or route poll (30 s)"
        ).format(broker=e.actor)
    if fault == "broker_up":
        ctx.restarted_at[e.actor] = e.time_ms
        return "Lab.broker_up", _(
            "{broker} is back; clients see it again at their next route poll (30 s) and heartbeat"
        ).format(broker=e.actor)
    if fault in ("partition", "heal"):
        client = d.get("client")
        if fault == "partition":
            return "Lab.partition", _(
                "the link between {client} and {broker} is cut: every request fails with RemotingConnectException"
            ).format(client=client, broker=e.actor)
        return "Lab.partition(heal=True)", _("the link between {client} and {broker} works again").format(
            client=client, broker=e.actor
        )
    settings = ", ".join(f"{k} = {v}" for k, v in d.items())
    return "Lab.set_broker_fault", _("{broker}'s injected faults are now: {settings}").format(
        broker=e.actor, settings=settings
    )


PERSIST_EVERY_MS = 5_000
"""``MQClientInstance``'s ``persistConsumerOffsetInterval`` (``ClientConfig``, 5000 ms; the engine's
``PERSIST_CONSUMER_OFFSET_INTERVAL_MS``): how soon an offset whose update was lost is sent again."""


def on_warning(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    about, message = f" ({e.msg_id})" if e.msg_id else "", str(e.get("message"))
    rule = _("{who}{about}: {message} — RocketMQ only logs this").format(
        who=name_of(e.actor), about=about, message=message
    )
    if message.startswith("updateConsumeOffsetToBroker exception"):  # RemoteBrokerOffsetStore.persistAll's log
        rule += _("; it is sent again at the next persistAll ({every})").format(every=dur(PERSIST_EVERY_MS))
    return "WARNING", rule
