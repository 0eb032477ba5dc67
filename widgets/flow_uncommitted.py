"""Consumed, but the broker's offset is not past it: a message its queue's next owner will deliver again.

A CLUSTERING consumer's offset lives in its memory (``RemoteBrokerOffsetStore.offsetTable``); the broker learns it
only from ``persistAll`` (every ``persistConsumerOffsetInterval``), a shutdown's last persist, a dropped queue's
``persist`` and the ``commitOffset`` a pull carries (``updateConsumerOffset``). When the instance that consumed a
message crashes, restarts, or loses the queue before that, the queue's next owner asks the broker
(``QUERY_CONSUMER_OFFSET``) and starts from the older offset: the message is delivered again. Lab 05's crash kept
ok2–ok4 in the "consumed · cg" tray while the picture sent only slow back to its queue (revD 3), and lab 07b's
take-over kept M0001 there although its commit was dropped: the picture taught "only slow comes back".

A token in its group's tray is marked "consumed, not committed" (a dashed green ring, a legend line, its tooltip
naming both offsets) while both hold:

- the offset the queue's next owner starts from is at or below the message's queue offset: the broker's committed
  offset of the group for that queue, or, with none stored, 0 while the queue still keeps offset 0
  (``ConsumerManageProcessor.queryConsumerOffset``; with offset 0 gone the new owner starts at the end, and nothing
  comes back);
- the instance that consumed it no longer holds that ProcessQueue from then on: it is stopped, the queue is not
  among its queues now, or it has started again since (a new ProcessQueue, pulling from the broker's offset).

While the consumer that did the work still holds the queue it pulls on from its own offset, so nothing is marked
then, even though the broker lags by up to 5 s. BROADCASTING is left out: its offsets never leave the instance.

Mirrors: client/src/main/java/org/apache/rocketmq/client/consumer/store/RemoteBrokerOffsetStore.java (persistAll,
updateConsumeOffsetToBroker), client/.../impl/consumer/RebalancePushImpl.java (computePullFromWhereWithException),
broker/src/main/java/org/apache/rocketmq/broker/processor/ConsumerManageProcessor.java (queryConsumerOffset).
"""

from __future__ import annotations

import dataclasses

from rmqlab import EventKind, TraceEvent
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.lab.report import SUCCESS_STATUSES
from rmqlab.snapshot import LabSnapshot

from .flow_copies import copy_numbers
from .flow_model import FlowVM

__all__ = ["UNCOMMITTED_CSS", "UNCOMMITTED_LEGEND", "UNCOMMITTED_TIP", "not_committed", "with_uncommitted"]

UNCOMMITTED_TIP = N_(
    "consumed, not committed: {group}'s offset at the broker for {queue} is {committed}, not past its offset "
    "{offset}, and {who} no longer holds the queue, so its next owner delivers it again"
)
UNCOMMITTED_LEGEND = N_("consumed, its offset not committed at the broker (dashed ring)")
UNCOMMITTED_CSS = """
$ .rq-token.rq-done.rq-uncommitted circle { stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-dasharray: 3 2;
  stroke-width: 2.5; }
""".replace("$", '[data-testid="rq-flow"]')
"""Added to the flow's stylesheet only on a picture that has such a token (the others keep their bytes)."""


def _resume_offset(snap: LabSnapshot, group: str, queue: str) -> int | None:
    """Where the queue's next owner in ``group`` starts: the broker's stored offset; with none, 0 while the queue
    still keeps offset 0 (the broker answers 0), else None (it answers -1 and the consumer starts at the end)."""
    committed = snap.committed_offset(group, queue)
    if committed is not None:
        return committed
    q = next((q for q in snap.queues if q.name == queue), None)
    return 0 if q is None or q.min_offset <= 0 else None


def _succeeded(e: TraceEvent) -> bool:
    """A listener's return that consumed the message (its offset may move past it), at a known queue offset."""
    return e.get("status") in SUCCESS_STATUSES and e.get("queue_offset") is not None


def not_committed(snap: LabSnapshot) -> dict[tuple[str, str, int], str]:
    """(group, msg id, copy) → the tooltip words of each consumed message its queue's next owner delivers again."""
    groups = {c.client_id: c.group for c in snap.consumers if c.message_model != "BROADCASTING"}
    consumers = {c.client_id: c for c in snap.consumers}
    last_lifecycle: dict[str, int] = {}  # a crash, a stop, a start since the consumption: not the same ProcessQueue
    done: dict[tuple[str, str, int], tuple[str, str, int]] = {}  # (group, queue, offset) → (client, msg, seq)
    for e in snap.events:
        client = e.actor.split(":", 1)[-1]
        if e.kind is EventKind.LIFECYCLE and e.actor.startswith("consumer:"):
            last_lifecycle[client] = e.seq
        elif e.kind is EventKind.CONSUMED and client in groups and e.msg_id is not None and _succeeded(e):
            done[(groups[client], str(e.get("queue")), int(e.get("queue_offset")))] = (client, e.msg_id, e.seq)
    copies = copy_numbers(snap)
    marked: dict[tuple[str, str, int], str] = {}
    for (group, queue, offset), (client, msg, seq) in sorted(done.items()):
        resume = _resume_offset(snap, group, queue)
        c = consumers[client]
        holds = c.running and queue in {str(mq) for mq in c.assigned} and last_lifecycle.get(client, -1) < seq
        if resume is None or resume > offset or holds:
            continue
        words = _(UNCOMMITTED_TIP).format(group=group, queue=queue, committed=resume, offset=offset, who=client)
        marked[(group, msg, copies.get((queue, offset), 1))] = words
    return marked


def with_uncommitted(vm: FlowVM, snap: LabSnapshot) -> FlowVM:
    """``vm`` with each such token in its group's tray marked (:attr:`TokenVM.uncommitted`, its tooltip words)."""
    marked = not_committed(snap)
    if not marked:
        return vm
    tokens = tuple(
        dataclasses.replace(t, uncommitted=marked[(t.owner, t.msg_id, t.copy)])
        if t.state == "done" and (t.owner, t.msg_id, t.copy) in marked
        else t
        for t in vm.tokens
    )
    return dataclasses.replace(vm, tokens=tokens)
