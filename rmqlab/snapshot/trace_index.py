""":class:`TraceIndex`: the facts the engine does not keep as state, folded from the trace.

Which offset was acked, which was sent back to ``%RETRY%``, which message sits at which
``SCHEDULE_TOPIC_XXXX`` offset, which topology edges messages have travelled. The fold is incremental, so a
controller keeps one index per Lab and each step costs only the new events.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..common.message import DLQ_PREFIX, RETRY_PREFIX, SCHEDULE_TOPIC
from ..common.message_queue import MessageQueue
from ..core.trace import EventKind, TraceEvent
from .queues import OffsetState

if TYPE_CHECKING:
    from .lab_state import LabState

__all__ = ["TraceIndex", "client_groups", "copy_group", "flow_edge"]


_SUCCESS = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})


class TraceIndex:
    """Incremental fold of the trace into the per-offset facts the engine does not keep.

    Feed it the same events in the same order and it holds the same facts; :meth:`catch_up` reads
    only what was appended since the last call.
    """

    def __init__(self) -> None:
        self.seen = 0
        self.offset_msg: dict[tuple[str, int], str] = {}
        self.terminal: dict[tuple[str, str, int], OffsetState] = {}
        self.in_listener: set[tuple[str, str, int]] = set()
        self.last_delivery: dict[tuple[str, str], tuple[str, str, int]] = {}
        self.schedule_count: Counter[tuple[str, int]] = Counter()
        self.schedule_due: dict[tuple[str, int, int], tuple[str, int]] = {}
        self.renewals: Counter[tuple[str, str]] = Counter()
        self.flows: set[tuple[str, str]] = set()
        self.copy_stored: dict[tuple[str, str], bool] = {}
        """(group, msg id) → a %RETRY%/%DLQ% copy was stored since the group's last delivery of it."""
        self.broadcast_clients: dict[str, str] = {}
        """Actor → client id of the BROADCASTING instances (from their start events): each is its own audience."""

    def audience(self, actor: str, group: str) -> str:
        """Whose offsets ``actor`` works on: its group (CLUSTERING), or itself (a BROADCASTING instance)."""
        return self.broadcast_clients.get(actor, group)

    def catch_up(self, lab: LabState) -> None:
        """Fold every event appended since the last call."""
        trace = lab.trace
        groups = client_groups(lab)
        for i in range(self.seen, len(trace)):
            e = trace[i]
            self._fold(e, groups)
            edge = flow_edge(e, groups)
            if edge is not None:
                self.flows.add(edge)
        self.seen = len(trace)

    def _fold(self, e: TraceEvent, groups: Mapping[str, str]) -> None:
        kind, d = e.kind, e.data
        msg_id = e.msg_id or ""
        if kind is EventKind.LIFECYCLE and d.get("event") == "start":
            if d.get("message_model") == "BROADCASTING":
                self.broadcast_clients[e.actor] = e.actor.partition(":")[2]
            else:
                self.broadcast_clients.pop(e.actor, None)
        elif kind is EventKind.STORED:
            name = str(MessageQueue(d["topic"], e.actor, d["queue_id"]))
            self.offset_msg[(name, d["queue_offset"])] = msg_id
            self._note_copy(e)
        elif kind is EventKind.SCHEDULED:
            level = d["level"]
            offset = self.schedule_count[(e.actor, level)]
            self.schedule_count[(e.actor, level)] += 1
            name = str(MessageQueue(SCHEDULE_TOPIC, e.actor, level - 1))
            self.offset_msg[(name, offset)] = msg_id
            self.schedule_due[(e.actor, level, offset)] = (msg_id, d["due_ms"])
            self._note_copy(e)
        elif kind is EventKind.DELIVERED:
            key = (self.audience(e.actor, d["group"]), d["queue"], d["queue_offset"])
            self.in_listener.add(key)
            self.last_delivery[(e.actor, msg_id)] = key
            self.terminal.pop(key, None)
            self.copy_stored[(d["group"], msg_id)] = False
        elif kind is EventKind.CONSUMED:
            delivery = self.last_delivery.get((e.actor, msg_id))
            if delivery is not None:
                self.in_listener.discard(delivery)
                if d["status"] in _SUCCESS:
                    self.terminal[delivery] = OffsetState.ACKED
        elif kind in (EventKind.SEND_BACK, EventKind.SEND_BACK_FALLBACK):
            delivery = self.last_delivery.get((e.actor, msg_id))
            group = groups.get(e.actor)
            if delivery is not None and group is not None and d.get("ok"):
                # The broker stores the copy before it answers: no copy by now means retryQueueNums 0 dropped it.
                stored = self.copy_stored.get((group, msg_id), False)
                self.terminal[delivery] = OffsetState.SENT_BACK if stored else OffsetState.DROPPED
        elif kind is EventKind.BROADCAST_DROPPED:
            delivery = self.last_delivery.get((e.actor, msg_id))
            if delivery is not None:
                self.terminal[delivery] = OffsetState.DROPPED
        elif kind is EventKind.LOCK_RENEWED:
            self.renewals[(d["group"], d["queue"])] += 1

    def _note_copy(self, e: TraceEvent) -> None:
        """If ``e`` stored a retry or DLQ copy, remember it for the group the copy's topic names."""
        group = copy_group(e)
        if group is not None:
            key = (group, e.msg_id or "")
            if key in self.copy_stored:
                self.copy_stored[key] = True


def copy_group(e: TraceEvent) -> str | None:
    """The consumer group whose ``%RETRY%``/``%DLQ%`` copy event ``e`` stores, or ``None``.

    A send-back's copy is stored either straight into its topic (STORED: the DLQ, or a retry with
    delay level 0 after a broker-side reset) or parked in ``SCHEDULE_TOPIC_XXXX`` with ``REAL_TOPIC``
    set (SCHEDULED: every ordinary retry). Both count: the broker stored the copy before it answered.
    """
    if e.kind is EventKind.STORED:
        topic = str(e.data["topic"])
    elif e.kind is EventKind.SCHEDULED:
        topic = str(e.data["real_topic"])
    else:
        return None
    for prefix in (RETRY_PREFIX, DLQ_PREFIX):
        if topic.startswith(prefix):
            return topic[len(prefix) :]
    return None


def client_groups(lab: LabState) -> dict[str, str]:
    """Trace actor (``producer:pg``, ``consumer:c1``) → its group, for :func:`flow_edge`."""
    groups = {f"producer:{name}": p.producer_group for name, p in lab.producers.items()}
    groups.update({c.actor: c.consumer_group for c in lab.consumers.values()})
    return groups


def flow_edge(e: TraceEvent, groups: Mapping[str, str]) -> tuple[str, str] | None:
    """The topology edge a message travels over in event ``e`` (None for bookkeeping events).

    Node names: ``pg:<group>``, ``cg:<group>``, ``topic:<topic>``, ``queue:<TOPIC@BROKER:QID>``.
    """
    d = e.data
    kind = e.kind
    if kind is EventKind.SEND_ATTEMPT:
        group = groups.get(e.actor)
        if group is None:
            return None
        return f"pg:{group}", "queue:" + str(MessageQueue(d["topic"], d["broker"], d["queue_id"]))
    if kind is EventKind.DELIVERED:
        return f"queue:{d['queue']}", f"cg:{d['group']}"
    if kind is EventKind.SCHEDULED:
        return f"topic:{d['real_topic']}", "queue:" + str(MessageQueue(SCHEDULE_TOPIC, e.actor, d["level"] - 1))
    if kind is EventKind.DELAY_DELIVERED:
        broker = e.actor.split(":", 1)[1]
        source = MessageQueue(SCHEDULE_TOPIC, broker, d["level"] - 1)
        return f"queue:{source}", "queue:" + str(MessageQueue(d["topic"], broker, d["queue_id"]))
    if kind is EventKind.DEAD_LETTERED:
        return f"cg:{d['group']}", "queue:" + str(MessageQueue(d["topic"], e.actor, 0))
    if kind is EventKind.SEND_BACK or kind is EventKind.SEND_BACK_FALLBACK:
        group = groups.get(e.actor)
        if group is not None and e.actor.startswith("consumer:"):
            return f"cg:{group}", f"topic:{RETRY_PREFIX}{group}"
    return None
