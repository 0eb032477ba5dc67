"""What became of each message of a run: the facts the end-of-run summary (:mod:`~rmqlab.narrate.summary`) says.

:class:`RunFates` is fed the trace in order (:meth:`RunFates.feed`), then placed in the engine's state at the
frame's clock (:meth:`RunFates.see`): the trace does not say which ProcessQueue still holds a message after a crash
or a rebalance, nor whether the retry queue a message waits in is one the topic's route lists. Each message stored
is counted once, by one fate (:meth:`RunFates.counted`); the rest are details of those fates: messages delivered
again with no retry (after a consumer's restart), each BROADCASTING instance's dropped copy, the message a
ProcessQueue's others wait behind.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..core.trace import EventKind, TraceEvent
from .engine_state import EngineState

__all__ = ["RETRY_KINDS", "STORED_NOT_OK", "SUCCESS_STATUSES", "SYSTEM_TOPICS", "RunFates"]

K = EventKind
SUCCESS_STATUSES = frozenset({"CONSUME_SUCCESS", "SUCCESS", "COMMIT"})
"""Consume results that acknowledge a message (concurrent, orderly, orderly with autoCommit off)."""
RETRY_KINDS = frozenset({K.SEND_BACK, K.SEND_BACK_FALLBACK, K.LOCAL_RETRY, K.SUSPENDED})
"""A message failed and will be tried again: sent back, re-sent by the client, retried locally, or suspended."""
SYSTEM_TOPICS = ("%RETRY%", "%DLQ%", "SCHEDULE_TOPIC", "RMQ_SYS")
STORED_NOT_OK = ("FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE")
"""Send statuses of a message the broker stored, but did not make safe as asked (4.9.7 ``SendStatus``)."""


@dataclass
class RunFates:
    """The messages of a run by what became of them (message ids, in the order first seen)."""

    sent: dict[str, None] = field(default_factory=dict)
    send_failed: dict[str, None] = field(default_factory=dict)
    refused: dict[str, None] = field(default_factory=dict)
    """Failed before any attempt, so never sent: ``sendSelectImpl``'s selector returned null or threw (4.9.7
    ``DefaultMQProducerImpl.sendSelectImpl`` throws MQClientException before it calls ``sendKernelImpl``)."""
    copies: dict[str, int] = field(default_factory=dict)
    """Stored copies per message on its own (non-system) topic: two means a duplicate."""
    consumed: dict[str, None] = field(default_factory=dict)
    retried: dict[str, None] = field(default_factory=dict)
    deliveries: dict[str, int] = field(default_factory=dict)
    dead: dict[str, None] = field(default_factory=dict)
    read_from_dlq: dict[str, dict[str, None]] = field(default_factory=dict)
    """Consumer → the dead letters it consumed from a ``%DLQ%`` topic (lab 04's operator ops1): still dead letters of
    their group, and read by another one; the end caption counts them apart."""
    to_dead: dict[str, None] = field(default_factory=dict)
    """Parked at a delay level whose real topic is ``%DLQ%``: an orderly consumer's last send-back, a dead letter when
    its delay is over (``sendMessageBack`` with a level, ``ConsumeMessageOrderlyService.checkReconsumeTimes``)."""
    consumed_by: dict[str, dict[str, None]] = field(default_factory=dict)
    """BROADCASTING: consumer → the messages it consumed (each instance consumes its own copy: 4.9.7
    ``RebalancePushImpl`` gives every instance every queue, and ``LocalFileOffsetStore`` keeps its own offset)."""
    dropped: dict[str, None] = field(default_factory=dict)
    dropped_by: dict[str, dict[str, None]] = field(default_factory=dict)
    """BROADCASTING: consumer → the messages it dropped (each instance consumes, and drops, its own copy)."""
    lost: dict[str, None] = field(default_factory=dict)
    """Sent back, answered SUCCESS, and stored nowhere: the group has no retry queue (4.9.7
    ``SendMessageProcessor.asyncConsumerSendMsgBack`` returns SUCCESS at once when ``retryQueueNums`` is 0)."""
    unsafe: dict[str, dict[str, None]] = field(default_factory=dict)
    """Send status (other than SEND_OK) → the messages stored with it (``FLUSH_DISK_TIMEOUT`` …)."""
    reacted: set[str] = field(default_factory=set)
    """Messages the broker parked, stored or dead-lettered since their last consume result (before their send-back)."""
    committed: dict[str, int] = field(default_factory=dict)
    """Per queue, the last consumer offset saved (at the broker, or a broadcasting consumer's local file)."""
    redelivered: dict[str, int] = field(default_factory=dict)
    """Delivered again to the same group (a BROADCASTING instance: to the same instance) with no retry in between:
    message → its deliveries (a consumer that crashed before committing gets its messages again at restart, 4.9.7
    ``RebalanceImpl.computePullFromWhere`` reads the last offset the broker has)."""
    after_restart: set[str] = field(default_factory=set)
    """Of :attr:`redelivered`, those delivered again to the consumer that had them, after it restarted."""
    taken_over: set[str] = field(default_factory=set)
    """Of :attr:`redelivered`, those delivered again to another consumer of the group (it took their queue over)."""
    held: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Pulled and not consumed yet, with no other fate: message → (the consumer, the queue) whose ProcessQueue holds
    it at the frame's clock (behind a message its orderly consumer retries, or waiting for a consume thread)."""
    behind: dict[tuple[str, str], str] = field(default_factory=dict)
    """(consumer, queue) → the message still being retried that the held messages of that ProcessQueue wait behind
    (an orderly queue consumes in order: 4.9.7 ``ProcessQueue.takeMessages`` hands out the first key again)."""
    stranded: dict[str, None] = field(default_factory=dict)
    """Retried messages stored in a ``%RETRY%`` queue the route does not list (a queue id at or above the topic's
    ``readQueueNums``): no consumer pulls it until the topic is updated (4.9.7 ``TopicConfig.readQueueNums``)."""
    at_broker: dict[str, None] = field(default_factory=dict)
    """Stored on its topic at the broker, with no other fate and in no running consumer's ProcessQueue."""
    expired: dict[str, None] = field(default_factory=dict)
    """Stored, and in no queue any more: retention deleted every copy (4.9.7 ``CleanCommitLogService`` deletes
    CommitLog files 72 h old, dead letters too; the consume queues are trimmed to match). Counted under their fate
    too (consumed, dead-lettered …): this says what the broker still holds."""
    consumers: int = 0
    """Running consumers at the frame's clock (none: the run only sends; its stored messages wait for nobody)."""
    end_ms: int = 0
    _first_delivery: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)
    _since_retry: dict[tuple[str, str], int] = field(default_factory=dict)
    _broadcasting: set[str] = field(default_factory=set)
    _starts: dict[str, list[int]] = field(default_factory=dict)
    _retention: bool = False

    def feed(self, event: TraceEvent) -> None:
        """Count one event (events in trace order)."""
        self.end_ms = max(self.end_ms, event.time_ms)
        msg = event.msg_id
        if event.kind is K.OFFSET_PERSISTED:
            whose = event.actor if event.get("store") == "local" else event.get("group")  # a group shares one offset
            self.committed[f"{whose} {event.get('queue')}"] = int(event.get("offset") or 0)
        elif event.kind is K.RETENTION_DELETED:
            self._retention = True
        elif event.kind is K.LIFECYCLE and event.get("event") == "start":
            if event.get("message_model") == "BROADCASTING":
                self._broadcasting.add(event.actor)
            self._starts.setdefault(event.actor, []).append(event.time_ms)
        if msg is None:
            return
        kind = event.kind
        if kind is K.SEND_ATTEMPT:
            self.sent[msg] = None
        elif kind is K.SEND_FAILED:
            self.send_failed[msg] = None
            if event.get("attempts") == 0 and msg not in self.sent:
                self.refused[msg] = None
        elif kind is K.SEND_RESULT and str(event.get("outcome")) in STORED_NOT_OK:
            self.unsafe.setdefault(str(event.get("outcome")), {})[msg] = None
        elif kind is K.STORED and not str(event.get("topic", "")).startswith(SYSTEM_TOPICS):
            self.copies[msg] = self.copies.get(msg, 0) + 1
        elif kind is K.DELIVERED:
            self.deliveries[msg] = self.deliveries.get(msg, 0) + 1
            self._delivered(event, msg)
        elif kind is K.CONSUMED:
            self.reacted.discard(msg)
            read_from_dlq = str(event.get("queue", "")).startswith("%DLQ%")  # lab 04's operator: still a dead letter
            if str(event.get("status")) in SUCCESS_STATUSES and not read_from_dlq:
                self.consumed[msg] = None
                if event.actor in self._broadcasting:
                    self.consumed_by.setdefault(event.actor.partition(":")[2], {})[msg] = None
            elif str(event.get("status")) in SUCCESS_STATUSES:
                self.read_from_dlq.setdefault(event.actor.partition(":")[2], {})[msg] = None
        elif kind in (K.STORED, K.SCHEDULED, K.DEAD_LETTERED):
            self.reacted.add(msg)
            if kind is K.DEAD_LETTERED:
                self.dead[msg] = None
            elif kind is K.SCHEDULED and str(event.get("real_topic", "")).startswith("%DLQ%"):
                self.to_dead[msg] = None
        elif kind is K.SEND_BACK and event.get("ok") and event.get("path") != "orderly" and msg not in self.reacted:
            self.lost[msg] = None  # the broker answered SUCCESS and stored nothing
        elif kind in RETRY_KINDS:
            if kind is not K.SEND_BACK or not ({msg} & (self.dead.keys() | self.to_dead.keys())):
                self.retried[msg] = None  # a send-back straight to the DLQ is no retry
            self._since_retry = {k: n for k, n in self._since_retry.items() if k[1] != msg}
        elif kind is K.BROADCAST_DROPPED:
            self.dropped[msg] = None
            self.dropped_by.setdefault(event.actor.partition(":")[2], {})[msg] = None

    def _delivered(self, event: TraceEvent, msg: str) -> None:
        """A delivery of ``msg``: a second one of the same stored copy (queue and offset) to the same group (instance,
        in BROADCASTING) with no retry of it in between is a re-delivery (a duplicate's other copy is not: the summary
        counts it as stored more than once)."""
        group = str(event.get("group"))
        owner = event.actor if event.actor in self._broadcasting else group
        whose = (f"{owner} {event.get('queue')} {event.get('queue_offset')}", msg)
        first, to = self._first_delivery.setdefault(whose, (event.time_ms, event.actor))
        count = self._since_retry[whose] = self._since_retry.get(whose, 0) + 1
        if count > 1:
            self.redelivered[msg] = max(count, self.redelivered.get(msg, 0))
            if to != event.actor:
                self.taken_over.add(msg)
            elif any(first < start <= event.time_ms for start in self._starts.get(to, ())):
                self.after_restart.add(msg)

    def see(self, state: EngineState) -> None:
        """Give the messages stored with no fate yet their place in the engine's ``state`` (after every event is
        fed): held in a running consumer's live ProcessQueue (4.9.7 ``ProcessQueue.msgTreeMap``, or
        ``consumingMsgOrderlyTreeMap`` while an orderly listener has it), else stored at the broker, not pulled; and
        the retried messages waiting in a retry queue no route lists, stranded."""
        waiting = set(self.waiting)
        for queue in state.queues:
            if queue.topic.startswith("%RETRY%") and not queue.listed:
                for cell in queue.cells:
                    if cell.msg_id in waiting:
                        self.stranded[cell.msg_id] = None
        ended = {*self.consumed, *self.dead, *self.to_dead, *self.lost, *self.dropped, *self.retried}
        running = [c for c in state.consumers if c.running]
        self.consumers = len(running)
        for consumer in running:
            for pq in consumer.process_queues:
                if pq.dropped:  # a queue the consumer gave up: its messages are pulled again by the next owner
                    continue
                ids = (*pq.consuming_ids, *pq.msg_tree_ids)
                head = next((m for m in ids if m in waiting), None)
                for msg in ids:
                    if msg not in ended and msg not in self.held:
                        self.held[msg] = (consumer.client_id, pq.queue)
                        if head is not None and ids.index(head) < ids.index(msg):
                            self.behind[(consumer.client_id, pq.queue)] = head
        for queue in state.queues:
            if queue.topic.startswith(SYSTEM_TOPICS):
                continue
            for cell in queue.cells:
                stored = cell.msg_id
                if stored is not None and stored not in ended and stored not in self.held:
                    self.at_broker[stored] = None
        if self._retention:
            kept = {cell.msg_id for queue in state.queues for cell in queue.cells}
            self.expired = {m: None for m in self.copies if m not in kept}

    def counted(self) -> dict[str, list[str]]:
        """The messages the summary counts, under the fate it counts each by (a message both consumed and
        dead-lettered, a duplicate, under both)."""
        return {
            "consumed": list(self.consumed),
            "dead-lettered": list(self.dead),
            "on its way to the dead-letter topic": [m for m in self.to_dead if m not in self.dead],
            "lost": list(self.lost),
            "dropped": list(self.dropped),
            "still waiting for another try": [m for m in self.waiting if m not in self.stranded],
            "stranded in a retry queue no route lists": list(self.stranded),
            "pulled, not consumed yet": list(self.held),
            "stored, not pulled": list(self.at_broker),
        }

    @property
    def queues_committed(self) -> int:
        """How many queues had a consumer offset past 0 saved (progress a restart resumes from)."""
        return sum(1 for offset in self.committed.values() if offset > 0)

    @property
    def waiting(self) -> list[str]:
        """Retried messages with no end yet: not consumed, not dead-lettered (nor on the way there), not dropped, not
        lost (stranded ones too: :attr:`stranded` says which of them no consumer will pull)."""
        ended = (self.consumed, self.dead, self.dropped, self.to_dead, self.lost)
        return [m for m in self.retried if not any(m in fate for fate in ended)]

    def most_deliveries(self, messages: Iterable[str]) -> int:
        return max((self.deliveries.get(m, 0) for m in messages), default=0)
