"""Captions of what the Lab does to a run rather than RocketMQ: consumer starts, crashes and shutdowns,
injected faults (:mod:`rmqlab.lab.faults`) and the warnings RocketMQ would only log.
"""

from __future__ import annotations

from ..core.trace import TraceEvent
from .context import CaptionContext, name_of

__all__ = ["on_fault", "on_lifecycle", "on_warning"]


def on_lifecycle(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    d, who = e.data, name_of(e.actor)
    what = str(d.get("event"))
    if what == "start":
        ctx.consume_mode[e.actor] = str(d.get("mode", "concurrently"))
        ctx.message_model[e.actor] = str(d.get("message_model", "CLUSTERING"))
        ctx.group_of[e.actor] = str(d.get("group"))
        retry = " and %RETRY%" + str(d.get("group")) if d.get("message_model") != "BROADCASTING" else ""
        return "DefaultMQPushConsumerImpl.start", (
            f"{who} joins {d.get('group')} ({d.get('message_model')}, consuming {d.get('mode')}): it subscribes "
            f"its topics{retry}, heartbeats, then rebalances at once and 20 s after each rebalance"
        )
    if what == "crash":
        return "Lab: consumer crash", (
            f"{who} of {d.get('group')} dies without persisting: its ProcessQueues are gone and what it had not "
            f"committed is redelivered from the last persisted offset after a rebalance"
        )
    if what == "shutting_down":
        return "DefaultMQPushConsumerImpl.shutdown", (
            f"{who} stops taking consume requests and waits up to {d.get('await_ms')} ms for those in flight "
            f"(awaitTerminationMillisWhenShutdown; as long again for the running ones if time runs out) before it "
            f"persists its offsets; pulls and rebalances go on meanwhile"
        )
    if what == "shutdown":
        return "DefaultMQPushConsumerImpl.shutdown", (
            f"{who} has persisted its offsets (an orderly consumer after releasing its queue locks) and now stops "
            f"and unregisters from {d.get('group')}"
        )
    return "Lab: lifecycle", f"{who}: {what}"


def on_fault(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
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


def on_warning(ctx: CaptionContext, e: TraceEvent) -> tuple[str, str]:
    about = f" ({e.msg_id})" if e.msg_id else ""
    return "WARNING", f"{name_of(e.actor)}{about}: {e.get('message')} — RocketMQ only logs this"
