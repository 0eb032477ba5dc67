"""The topology's graph: nodes for producers, topics per broker, the schedule node, %RETRY% and %DLQ% topics and
consumer instances, in layers (columns); edges for subscriptions and for every hop the trace shows a message made.

:mod:`widgets.topology_view` tells how the picture reads; :mod:`widgets.topology_layout` places this graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import networkx as nx

from rmqlab import EventKind, MessageQueue, TraceEvent
from rmqlab.common.message import DLQ_PREFIX, RETRY_PREFIX, SCHEDULE_TOPIC
from rmqlab.core.i18n import N_, ngettext
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

__all__ = ["KIND_WORD", "LAYERS", "SCHEDULE_NODE", "topology_graph"]

LAYERS: tuple[str, ...] = ("producer", "topic", "schedule", "retry", "dlq", "consumer")
"""Node kinds in column order."""

_MODEL_WORD = {"CLUSTERING": N_("clustering"), "BROADCASTING": N_("broadcasting")}
"""A consumer's message model as its box says it (through ``_()``)."""

SCHEDULE_NODE = "schedule"
"""The one node standing for every ``SCHEDULE_TOPIC_XXXX`` queue of every broker."""

KIND_WORD = {
    "producer": N_("producer"),
    "topic": N_("topic"),
    "schedule": N_("delay levels"),
    "retry": N_("retry topic"),
    "dlq": N_("dead-letter topic"),
    "consumer": N_("consumer"),
}
"""A kind in words (the second line of every box, the legend), marked for the catalog: shown through ``_()``."""


def topology_graph(snap: LabSnapshot) -> nx.DiGraph:
    """Nodes (with ``kind``, ``title``, ``detail``, ``layer``) and edges (``travelled``, ``seqs``) of the snapshot."""
    g = nx.DiGraph()
    for name, group in snap.producers:
        g.add_node(
            f"producer:{name}",
            kind="producer",
            title=name,
            detail=_("producer · group {group}").format(group=group),
            alert=False,
        )
    _topic_nodes(g, snap)
    for c in snap.consumers:
        state = "" if c.running else " · " + (_("crashed") if c.crashed else _("stopped"))
        mode = _("orderly") if c.orderly else _(_MODEL_WORD.get(c.message_model, c.message_model.lower()))
        g.add_node(
            c.actor,
            kind="consumer",
            title=c.client_id,
            detail=_("consumer · {group} · {mode}").format(group=c.group, mode=mode) + state,
            alert=c.crashed,
        )
        for topic in c.subscriptions:
            for node in list(g.nodes):
                title = g.nodes[node]["title"]
                if g.nodes[node]["kind"] in ("topic", "retry") and title.split("@", 1)[0] == topic:
                    g.add_edge(node, c.actor, travelled=False, seqs=[])
    for seq, src, dst in _travelled(snap.events, dict(snap.producers)):
        if src in g and dst in g:
            if not g.has_edge(src, dst):
                g.add_edge(src, dst, travelled=False, seqs=[])
            g.edges[src, dst]["travelled"] = True
            g.edges[src, dst]["seqs"].append(seq)
    present = sorted({LAYERS.index(kind) for _, kind in g.nodes(data="kind")})
    for node in g.nodes:  # columns only for the kinds there are: no empty column for a long edge to cross
        g.nodes[node]["layer"] = present.index(LAYERS.index(g.nodes[node]["kind"]))
    return g


def _topic_nodes(g: nx.DiGraph, snap: LabSnapshot) -> None:
    """A node per business topic and broker, the one schedule node, a node per %RETRY% / %DLQ% topic (all brokers)."""
    down = {b.name for b in snap.brokers if not b.up}
    business: dict[str, list[Any]] = {}
    special: dict[str, list[Any]] = {}
    for q in snap.queues:
        if q.kind == "schedule":
            continue
        node = _topic_node(q.mq)
        bucket = business if q.kind == "business" else special
        entry = bucket.setdefault(node, [q.topic, q.broker, 0, 0, set()])
        entry[2] += 1
        entry[3] += q.max_offset - q.min_offset
        entry[4].add(q.broker)
    for node, (topic, broker, queues, stored, _brokers) in sorted(business.items()):
        alert = broker in down
        detail = ngettext("topic · {n} queue · {stored} stored", "topic · {n} queues · {stored} stored", queues).format(
            n=queues, stored=stored
        ) + (" · " + _("broker down") if alert else "")
        g.add_node(node, kind="topic", title=f"{topic}@{broker}", detail=detail, alert=alert)
    levels: dict[int, int] = {}
    for b in snap.brokers:
        for level in b.schedule:
            if level.pending:
                levels[level.level] = levels.get(level.level, 0) + level.pending
    if any(q.kind == "schedule" for q in snap.queues) or levels:
        waiting = sum(levels.values())
        g.add_node(
            SCHEDULE_NODE,
            kind="schedule",
            title=SCHEDULE_TOPIC,
            detail=_("delay levels · {n} waiting").format(n=waiting),
            alert=False,
        )
    for node, (topic, _broker, _queues, stored, brokers) in sorted(special.items()):
        kind = "retry" if topic.startswith(RETRY_PREFIX) else "dlq"
        where = ", ".join(sorted(brokers))
        g.add_node(
            node,
            kind=kind,
            title=topic,
            detail=_("{kind} · {stored} stored · {where}").format(kind=_(KIND_WORD[kind]), stored=stored, where=where),
            alert=False,
        )


def _topic_node(mq: MessageQueue) -> str:
    """The node a queue belongs to: its (topic, broker) for business topics, else the topic (all brokers)."""
    if mq.topic == SCHEDULE_TOPIC:
        return SCHEDULE_NODE
    if mq.topic.startswith((RETRY_PREFIX, DLQ_PREFIX)):
        return f"topic:{mq.topic}"
    return f"topic:{mq.topic}@{mq.broker_name}"


def _travelled(events: Iterable[TraceEvent], producers: Mapping[str, str]) -> list[tuple[int, str, str]]:
    """(event seq, source node, target node) of every hop a message made, in trace order."""
    hops: list[tuple[int, str, str]] = []
    holder: dict[str, str] = {}  # msg id → the client that last had it: its producer, then each consumer
    delivered_to_dlq: set[tuple[str, int]] = set()
    for e in events:
        kind, d = e.kind, e.data
        msg = e.msg_id or ""
        if kind is EventKind.SEND_ATTEMPT and e.actor.startswith("producer:"):
            name = e.actor[len("producer:") :]
            if name in producers:
                node = f"producer:{name}"
                holder[msg] = node
                hops.append((e.seq, node, _topic_node(MessageQueue(d["topic"], d["broker"], d["queue_id"]))))
        elif kind is EventKind.DELIVERED and e.actor.startswith("consumer:"):
            holder[msg] = e.actor
            hops.append((e.seq, _topic_node(MessageQueue.parse(d["queue"])), e.actor))
        elif kind is EventKind.SCHEDULED:
            # the broker parks a send-back (or a producer's delayed message) before the client hears back
            source = holder.get(msg)
            if source is not None:
                hops.append((e.seq, source, SCHEDULE_NODE))
        elif kind is EventKind.DELAY_DELIVERED:
            target = _topic_node(MessageQueue(d["topic"], e.actor.split(":", 1)[-1], d["queue_id"]))
            hops.append((e.seq, SCHEDULE_NODE, target))
            if target.startswith(f"topic:{DLQ_PREFIX}"):
                delivered_to_dlq.add((msg, e.time_ms))
        elif kind is EventKind.DEAD_LETTERED and (msg, e.time_ms) not in delivered_to_dlq:
            source = holder.get(msg)
            if source is not None:
                hops.append((e.seq, source, f"topic:{d['topic']}"))
    return hops
