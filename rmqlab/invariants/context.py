"""The view every check shares: the trace indexed by message and seq, the audiences, the replay events, and
one :meth:`Lab.snapshot` for every fact about the engine's state (stored copies, ProcessQueues, offsets).

A *replay event* is one after which RocketMQ may deliver a stored message again: a consumer
start/crash/shutdown, a REBALANCED, a lock expiry/refusal/unlock, an OFFSET_ILLEGAL fix-up, or an
injected fault (which counts for every group).
"""

from __future__ import annotations

import bisect
from collections import defaultdict, deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..common.message_queue import MessageQueue
from ..core.trace import EventKind, TraceEvent
from .audience import audiences_of
from .findings import MAX_TRACE_EVENTS, InvariantReport, Violation

if TYPE_CHECKING:
    from ..lab.lab import Lab

__all__ = ["CheckContext"]

_REPLAY_KINDS = frozenset(
    {
        EventKind.LIFECYCLE,
        EventKind.REBALANCED,
        EventKind.LOCK_EXPIRED,
        EventKind.LOCK_REFUSED,
        EventKind.UNLOCKED,
        EventKind.FAULT,
    }
)


class CheckContext:
    """One run's trace, indexed once; every check reads it and appends to ``report``."""

    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self.snap = lab.snapshot()
        """The engine's state at the end of the run; checks read it, never the live brokers and consumers."""
        self.events: tuple[TraceEvent, ...] = lab.trace.events
        self.report = InvariantReport()
        self.audiences, self.by_actor = audiences_of(lab)
        self.by_msg: dict[str, list[TraceEvent]] = defaultdict(list)
        for e in self.events:
            if e.msg_id is not None:
                self.by_msg[e.msg_id].append(e)
        self.tags = self._tags_by_msg()
        self.admin_events = [e for e in self.events if e.kind is EventKind.ADMIN]
        """The mqadmin commands of the run, in trace order."""
        self.seq_index = {e.seq: e for e in self.events}
        # replay events per group (seq numbers, sorted) — broker faults count for every group
        self.replay_seqs: dict[str, list[int]] = defaultdict(list)
        self.global_replay_seqs: list[int] = []
        self._index_replays()
        self.ownership: dict[tuple[str, str], list[tuple[int, frozenset[str]]]] = defaultdict(list)
        """(consumer actor, topic) → (seq, the queues it owns from then on), from its REBALANCED and LIFECYCLE."""
        self._index_ownership()

    def violate(
        self, invariant: str, msg_id: str | None, time_ms: int, detail: str, trace: Iterable[TraceEvent]
    ) -> None:
        """Record a violation with (at most MAX_TRACE_EVENTS of) the events that led to it.

        A sequence is sliced, any other iterable streamed through a bounded deque: never a copy of a whole
        history per violation (a storm can have thousands of both)."""
        if isinstance(trace, list | tuple):
            events = tuple(trace[-MAX_TRACE_EVENTS:])
        else:
            events = tuple(deque(trace, maxlen=MAX_TRACE_EVENTS))
        self.report.violations.append(Violation(invariant, msg_id, time_ms, detail, events))

    def _tags_by_msg(self) -> dict[str, str | None]:
        """Msg id → tags of its stored copies (every copy of one message has the same tags)."""
        tags: dict[str, str | None] = {}
        for queue in self.snap.queues:
            for cell in queue.cells:
                if cell.msg_id is not None:
                    tags.setdefault(cell.msg_id, cell.tags)
        return tags

    def group_of(self, e: TraceEvent) -> str | None:
        group = e.data.get("group")
        if group is not None:
            return str(group)
        audience = self.by_actor.get(e.actor)
        return audience.group if audience else None

    def _index_replays(self) -> None:
        for e in self.events:
            if e.kind in _REPLAY_KINDS:
                if e.kind is EventKind.FAULT:
                    self.global_replay_seqs.append(e.seq)
                    continue
                group = self.group_of(e)
                if group is not None:
                    self.replay_seqs[group].append(e.seq)
            elif e.kind is EventKind.WARNING and "OFFSET_ILLEGAL" in str(e.data.get("message", "")):
                group = self.group_of(e)
                if group is not None:
                    self.replay_seqs[group].append(e.seq)

    def _index_ownership(self) -> None:
        """What each instance's own rebalance granted it: a REBALANCED lists every queue it owns for the topic;
        a start, crash or shutdown leaves it owning nothing until its next rebalance."""
        topics: dict[str, set[str]] = defaultdict(set)
        for e in self.events:
            if e.kind is EventKind.REBALANCED:
                topic = str(e.data["topic"])
                topics[e.actor].add(topic)
                self.ownership[(e.actor, topic)].append((e.seq, frozenset(str(q) for q in e.data["queues"])))
            elif e.kind is EventKind.LIFECYCLE:
                for topic in sorted(topics[e.actor]):
                    self.ownership[(e.actor, topic)].append((e.seq, frozenset()))

    def owned(self, actor: str, queue: str, before_seq: int) -> bool:
        """Did ``actor`` own ``queue`` (``TOPIC@BROKER:QID``) just before ``before_seq``, by its own rebalances?"""
        topic = MessageQueue.parse(queue).topic
        history = self.ownership.get((actor, topic), [])
        i = bisect.bisect_left(history, (before_seq,)) - 1
        return i >= 0 and queue in history[i][1]

    def replay_between(self, group: str, after_seq: int, before_seq: int) -> bool:
        """Did a replay event of ``group`` (or a broker fault) happen strictly between two seqs?"""
        for seqs in (self.replay_seqs.get(group, []), self.global_replay_seqs):
            i = bisect.bisect_right(seqs, after_seq)
            if i < len(seqs) and seqs[i] < before_seq:
                return True
        return False
