"""What the message-flow view looks up before it places tokens: what the trace says that the snapshot's state does
not (:class:`TraceFacts`: who sent what, which copy has which reconsume count, what a BROADCASTING instance did with
its copy), and what several placing rules read from the state (:class:`SnapshotFacts`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from rmqlab import EventKind, TraceEvent
from rmqlab.lab.report import SUCCESS_STATUSES
from rmqlab.snapshot import ConsumeQueueSnap, ConsumerSnap, LabSnapshot

__all__ = ["SnapshotFacts", "TraceFacts", "owner_of", "trace_facts"]


@dataclass(slots=True)
class TraceFacts:
    """What the trace says that the state does not: who sent what, which copy has which reconsume count."""

    sent_topic: dict[str, tuple[str, str]] = field(default_factory=dict)
    """msg id → (producer name, topic) of its first send attempt."""
    stored: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    refused: dict[str, str] = field(default_factory=dict)
    """msg id → its producer, for a send that failed before any attempt (sendSelectImpl: the selector returned no
    queue, or threw): nothing was sent, so no send attempt names the message."""
    delivered_rt: dict[tuple[str, str], int] = field(default_factory=dict)
    """(client id, msg id) → reconsume times of the client's copy (last delivery, suspend or local retry)."""
    delivered_at: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)
    """(client id, msg id) → (queue, offset) of the last delivery."""
    broadcast_dropped: set[str] = field(default_factory=set)
    not_ok: dict[str, str] = field(default_factory=dict)
    """msg id → the status of its last send answer when that was not SEND_OK (``FLUSH_DISK_TIMEOUT``,
    ``FLUSH_SLAVE_TIMEOUT``, ``SLAVE_NOT_AVAILABLE``): stored, but the producer was told it may not be safe."""
    last_rt: dict[str, int] = field(default_factory=dict)
    """msg id → reconsume times of its last delivery (any client)."""
    outcome: dict[tuple[str, str], str] = field(default_factory=dict)
    """(client id, msg id) → ``done`` / ``dropped`` / ``failed`` after the last delivery (BROADCASTING)."""


def trace_facts(events: Iterable[TraceEvent]) -> TraceFacts:
    """The facts of ``events`` (the trace up to the controller's position), in one pass."""
    f = TraceFacts()
    for event in events:
        kind, msg, data = event.kind, event.msg_id, event.data
        if msg is None or kind not in _FACT_KINDS:
            continue
        if kind is EventKind.STORED or kind is EventKind.SCHEDULED:
            f.stored.add(msg)
            continue
        client = event.actor.split(":", 1)[-1]
        if kind is EventKind.DELIVERED:
            f.delivered_rt[(client, msg)] = f.last_rt[msg] = data.get("reconsume_times", 0)
            f.delivered_at[(client, msg)] = (data["queue"], data["queue_offset"])
            f.outcome.pop((client, msg), None)
        elif kind is EventKind.CONSUMED:
            f.outcome[(client, msg)] = "done" if data.get("status") in SUCCESS_STATUSES else "failed"
        elif kind is EventKind.SEND_ATTEMPT:
            if msg not in f.sent_topic:
                f.sent_topic[msg] = (client, data["topic"])
        elif kind is EventKind.SEND_RESULT:
            status = str(data.get("outcome", ""))
            if status in STORED_NOT_OK:
                f.not_ok[msg] = status
            elif status == "SUCCESS":
                f.not_ok.pop(msg, None)
        elif kind is EventKind.SEND_FAILED:
            f.failed.add(msg)
            if data.get("attempts") == 0 and msg not in f.sent_topic:
                f.refused[msg] = client
        elif kind is EventKind.BROADCAST_DROPPED:
            f.outcome[(client, msg)] = "dropped"
            f.broadcast_dropped.add(msg)
        else:  # SUSPENDED, LOCAL_RETRY: the client raised the copy's reconsumeTimes and keeps it in the ProcessQueue
            f.delivered_rt[(client, msg)] = data.get("reconsume_times", 0)
    return f


STORED_NOT_OK = frozenset({"FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE"})
"""The answers that mean "stored, but not SEND_OK" (MQClientAPIImpl.processSendResponse maps them to a SendStatus
other than SEND_OK; any other error stored nothing)."""
_FACT_KINDS = frozenset(
    {
        EventKind.SEND_ATTEMPT,
        EventKind.SEND_RESULT,
        EventKind.STORED,
        EventKind.SCHEDULED,
        EventKind.SEND_FAILED,
        EventKind.DELIVERED,
        EventKind.SUSPENDED,
        EventKind.LOCAL_RETRY,
        EventKind.CONSUMED,
        EventKind.BROADCAST_DROPPED,
    }
)
"""The event kinds :func:`trace_facts` reads; every other event is skipped with one set lookup."""


@dataclass(frozen=True, slots=True)
class SnapshotFacts:
    """What several placing rules look up in the snapshot's state: owners per topic, parked copies, colour keys."""

    many_brokers: bool
    ordered: bool
    colour_key: dict[str, str]
    """msg id → the sharding key (``KEYS``) its stored copy carries, in an ordered lab."""
    parked: dict[tuple[str, int, str], tuple[str, int]]
    """(broker, level, msg id) → (real topic, reconsume times) of the copy parked in SCHEDULE_TOPIC_XXXX."""
    broadcasting: set[str]
    owners_of_topic: dict[str, list[str]]
    client_offsets: dict[tuple[str, str], int]
    queues_by_name: dict[str, ConsumeQueueSnap]

    @classmethod
    def of(cls, snap: LabSnapshot) -> SnapshotFacts:
        """Read once from ``snap`` what the placing rules look up."""
        ordered = any(c.orderly for c in snap.consumers)
        colour_key: dict[str, str] = {}
        parked: dict[tuple[str, int, str], tuple[str, int]] = {}
        for q in snap.queues:
            if q.kind == "schedule":
                for cell in q.cells:
                    if cell.msg_id is not None:
                        parked[(q.broker, q.queue_id + 1, cell.msg_id)] = (cell.real_topic or "", cell.reconsume_times)
            if ordered:
                for cell in q.cells:
                    if cell.keys and cell.msg_id is not None and cell.msg_id not in colour_key:
                        colour_key[cell.msg_id] = cell.keys
        owners_of_topic: dict[str, list[str]] = {}
        for c in snap.consumers:
            for topic in c.subscriptions:
                owners = owners_of_topic.setdefault(topic, [])
                if owner_of(c) not in owners:
                    owners.append(owner_of(c))
        return cls(
            many_brokers=len(snap.brokers) > 1,
            ordered=ordered,
            colour_key=colour_key,
            parked=parked,
            broadcasting={c.client_id for c in snap.consumers if c.message_model == "BROADCASTING"},
            owners_of_topic=owners_of_topic,
            client_offsets={(c.client_id, queue): off for c in snap.consumers for queue, off in c.offset_store},
            queues_by_name={q.name: q for q in snap.queues},
        )


def owner_of(c: ConsumerSnap) -> str:
    """Who a token belongs to: the group (CLUSTERING), or the instance (BROADCASTING: each consumes on its own)."""
    return c.client_id if c.message_model == "BROADCASTING" else c.group
