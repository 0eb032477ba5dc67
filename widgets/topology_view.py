"""TopologyView: where messages can go, and where they went — a layered graph drawn as a Scene.

Columns, left to right, in the order a message meets them: producers → each broker's business topics
(one node per topic and broker, with its queue count) → ``SCHEDULE_TOPIC_XXXX`` (ONE node for all
delay levels and brokers, with the number of messages waiting) → ``%RETRY%<group>`` → ``%DLQ%<group>``
→ consumer instances (with their group). Edges are the paths a message can take (a subscription) or
has taken (from the trace: a send, a delivery, a send-back into a delay level, a delay hop, a
dead-lettering); travelled edges are highlighted, the ones used in the last ``window`` events more so.
A send-back runs from a consumer back to the schedule node: right to left, so its arrow points left.

The graph is a networkx ``DiGraph``; the layout is the layered (Sugiyama) one networkx's
``multipartite_layout`` draws, computed without numpy (which rmqlab does not depend on): a layer per
column, an edge spanning several layers routed through invisible waypoints in the layers between (so it
never crosses a node box), nodes ordered within their layer by the barycentre of their neighbours (a
few sweeps, ties by name: fewer crossings, deterministic), columns spaced by the widest label. Labels
sit inside their boxes, so they never overlap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import networkx as nx

from rmqlab import EventKind, MessageQueue, TraceEvent
from rmqlab.common.message import DLQ_PREFIX, RETRY_PREFIX, SCHEDULE_TOPIC
from rmqlab.core.i18n import N_
from rmqlab.snapshot import LabSnapshot

from .palette import OKABE_ITO
from .scene import Mark, Scene, SceneView, legend_marks, text_width

__all__ = [
    "LAYERS",
    "TopoEdge",
    "TopoNode",
    "TopologyModel",
    "TopologyView",
    "topology_graph",
    "topology_model",
    "topology_scene",
    "topology_text",
]

LAYERS: tuple[str, ...] = ("producer", "topic", "schedule", "retry", "dlq", "consumer")
"""Node kinds in column order."""

SCHEDULE_NODE = "schedule"
"""The one node standing for every ``SCHEDULE_TOPIC_XXXX`` queue of every broker."""

_KIND_WORD = {
    "producer": "producer",
    "topic": "topic",
    "schedule": "delay levels",
    "retry": "retry topic",
    "dlq": "dead-letter topic",
    "consumer": "consumer",
}
_KIND_COLOUR = {
    "producer": OKABE_ITO["blue"],
    "topic": OKABE_ITO["sky_blue"],
    "schedule": OKABE_ITO["reddish_purple"],
    "retry": OKABE_ITO["orange"],
    "dlq": OKABE_ITO["vermillion"],
    "consumer": OKABE_ITO["bluish_green"],
}
"""A stripe colour per kind; the second line of every box names the kind in words as well."""


@dataclass(frozen=True, slots=True)
class TopoNode:
    """A box: ``title`` on top, ``detail`` (kind and counts) under it; ``x``, ``y`` its centre."""

    id: str
    kind: str
    title: str
    detail: str
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    alert: bool = False
    """Something is wrong here (a broker down, a crashed instance): drawn with an error outline."""


@dataclass(frozen=True, slots=True)
class TopoEdge:
    """An edge and the route it is drawn along (its end points and waypoints, in px)."""

    source: str
    target: str
    travelled: bool
    active: bool
    """Travelled by one of the last ``window`` events."""
    points: tuple[tuple[float, float], ...] = ()
    back: bool = False
    """Right to left (a consumer's send-back): drawn as straight runs through the gaps and under the boxes."""


@dataclass(frozen=True, slots=True)
class TopologyModel:
    nodes: tuple[TopoNode, ...]
    edges: tuple[TopoEdge, ...]
    width: float
    height: float
    scheduled: int
    """Messages waiting in SCHEDULE_TOPIC_XXXX, all levels and brokers (the schedule node's count)."""
    levels: tuple[tuple[int, int], ...] = field(default=())
    """(delay level, messages waiting) of the levels that hold any."""

    def node(self, node_id: str) -> TopoNode:
        """The node with this id (KeyError names the ids there are)."""
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(f"no node {node_id!r}; have {[n.id for n in self.nodes]}")


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


def topology_graph(snap: LabSnapshot) -> nx.DiGraph:
    """Nodes (with ``kind``, ``title``, ``detail``, ``layer``) and edges (``travelled``, ``seqs``) of the snapshot."""
    g = nx.DiGraph()
    down = {b.name for b in snap.brokers if not b.up}
    producers = dict(snap.producers)
    for name, group in snap.producers:
        g.add_node(f"producer:{name}", kind="producer", title=name, detail=f"producer · group {group}", alert=False)
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
    for node, (topic, broker, queues, stored, _) in sorted(business.items()):
        alert = broker in down
        detail = f"topic · {queues} queue{'s' * (queues != 1)} · {stored} stored" + (" · broker down" if alert else "")
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
            detail=f"delay levels · {waiting} waiting",
            alert=False,
        )
    for node, (topic, _broker, _queues, stored, brokers) in sorted(special.items()):
        kind = "retry" if topic.startswith(RETRY_PREFIX) else "dlq"
        where = ", ".join(sorted(brokers))
        g.add_node(node, kind=kind, title=topic, detail=f"{_KIND_WORD[kind]} · {stored} stored · {where}", alert=False)
    for c in snap.consumers:
        state = "" if c.running else (" · crashed" if c.crashed else " · stopped")
        mode = "orderly" if c.orderly else c.message_model.lower()
        g.add_node(
            c.actor, kind="consumer", title=c.client_id, detail=f"consumer · {c.group} · {mode}{state}", alert=c.crashed
        )
        for topic in c.subscriptions:
            for node in list(g.nodes):
                title = g.nodes[node]["title"]
                if g.nodes[node]["kind"] in ("topic", "retry") and title.split("@", 1)[0] == topic:
                    g.add_edge(node, c.actor, travelled=False, seqs=[])
    for seq, src, dst in _travelled(snap.events, producers):
        if src in g and dst in g:
            if not g.has_edge(src, dst):
                g.add_edge(src, dst, travelled=False, seqs=[])
            g.edges[src, dst]["travelled"] = True
            g.edges[src, dst]["seqs"].append(seq)
    present = sorted({LAYERS.index(kind) for _, kind in g.nodes(data="kind")})
    for node in g.nodes:  # columns only for the kinds there are: no empty column for a long edge to cross
        g.nodes[node]["layer"] = present.index(LAYERS.index(g.nodes[node]["kind"]))
    return g


# ---------------------------------------------------------------- layered layout

_BOX_H = 34.0
_ROW_GAP = 16.0
_COL_GAP = 56.0
_PAD = 12.0
_LEGEND_W = 230.0
_KIND_COL_W = 150.0
"""Width of one column of the node-kind legend."""


def _order_layers(g: nx.DiGraph, chains: Mapping[tuple[str, str], list[str]]) -> dict[int, list[str]]:
    """Each layer's nodes and waypoints in top-to-bottom order: by name, then barycentre sweeps."""
    h = nx.Graph()
    layer_of: dict[str, int] = {}
    for node, data in g.nodes(data=True):
        layer_of[node] = data["layer"]
        h.add_node(node)
    for (a, b), path in chains.items():
        full = [a, *path, b]
        step = 1 if layer_of[b] > layer_of[a] else -1
        for i, p in enumerate(path):
            layer_of[p] = layer_of[a] + step * (i + 1)
        nx.add_path(h, full)
    layers: dict[int, list[str]] = {}
    for node in sorted(layer_of):
        layers.setdefault(layer_of[node], []).append(node)
    keys = sorted(layers)
    for sweep in range(4):
        order = keys[1:] if sweep % 2 == 0 else keys[-2::-1]
        for layer in order:
            ref = layer - 1 if sweep % 2 == 0 else layer + 1
            if ref not in layers:
                continue
            rank = {n: i for i, n in enumerate(layers[ref])}
            current = {n: i for i, n in enumerate(layers[layer])}

            def centre(n: str, rank: Mapping[str, int] = rank, current: Mapping[str, int] = current) -> float:
                near = [rank[m] for m in h.neighbors(n) if m in rank]
                return sum(near) / len(near) if near else float(current[n])

            layers[layer].sort(key=lambda n: (centre(n), n))
    return layers


def _layout(g: nx.DiGraph) -> tuple[dict[str, tuple[float, float]], dict[tuple[str, str], list[str]], list[float]]:
    """Centres of nodes and waypoints, the waypoints of each forward edge, and each column's width.

    Columns are as wide as their widest box (a grid with uneven columns); rows are centred per column.
    A backward edge (a send-back, right to left) gets no waypoints: it is routed below, in the gaps.
    """
    chains: dict[tuple[str, str], list[str]] = {}
    for a, b in sorted(g.edges):
        la, lb = g.nodes[a]["layer"], g.nodes[b]["layer"]
        chains[(a, b)] = [f"~{a}>{b}#{k}" for k in range(la + 1, lb)]
    layers = _order_layers(g, chains)
    widths = [max(g.nodes[n]["w"] for n in g.nodes if g.nodes[n]["layer"] == layer) for layer in sorted(layers)]
    lefts = [_PAD + sum(widths[:i]) + i * _COL_GAP for i in range(len(widths))]
    pitch_y = _BOX_H + _ROW_GAP
    tallest = max((len(v) for v in layers.values()), default=1)
    pos: dict[str, tuple[float, float]] = {}
    for layer, names in layers.items():
        top = (tallest - len(names)) / 2
        for i, n in enumerate(names):
            pos[n] = (lefts[layer] + widths[layer] / 2, _PAD + _BOX_H / 2 + (top + i) * pitch_y)
    return pos, chains, widths


def topology_model(snap: LabSnapshot, *, window: int = 12) -> TopologyModel:
    """The laid-out graph: node boxes and edge routes in px, edges travelled so far and in the last ``window``."""
    g = topology_graph(snap)
    for _, data in g.nodes(data=True):
        data["w"] = max(text_width(data["title"], 12), text_width(data["detail"], 11)) + 20
    pos, chains, widths = _layout(g) if len(g) else ({}, {}, [0.0])
    layer = {n: g.nodes[n]["layer"] for n in g.nodes}
    width = _PAD * 2 + sum(widths) + (len(widths) - 1) * _COL_GAP
    bottom = max((y + _BOX_H / 2 for _, y in pos.values()), default=_PAD)
    lowest_box: dict[int, float] = {}
    """layer → the y of its lowest box: a send-back into a target with nothing under it enters from below."""
    for n in g.nodes:
        lowest_box[layer[n]] = max(lowest_box.get(layer[n], 0.0), pos[n][1])
    recent = {e.seq for e in snap.events[-window:]} if window else set()
    nodes = tuple(
        TopoNode(
            n,
            d["kind"],
            d["title"],
            d["detail"],
            round(pos[n][0], 1),
            round(pos[n][1], 1),
            round(d["w"], 1),
            _BOX_H,
            bool(d["alert"]),
        )
        for n, d in sorted(g.nodes(data=True), key=lambda item: (item[1]["layer"], pos[item[0]][1]))
    )
    half = {n: g.nodes[n]["w"] / 2 for n in g.nodes}

    def col_edge(p: str, side: int) -> float:
        """The x of a column's right (side 1) or left (side −1) edge, for the node or waypoint ``p``."""
        lay = layer[p] if p in layer else int(p.rsplit("#", 1)[1])
        return pos[p][0] + side * widths[lay] / 2

    edges = []
    back = 0
    for a, b in sorted(g.edges):
        (ax, ay), (bx, by) = pos[a], pos[b]
        if layer[b] > layer[a]:
            # straight along a row inside a column (box edge ↔ column edge, through each waypoint's slot),
            # curved only in the gaps between columns, where there are no boxes
            stops = [a, *chains[(a, b)], b]
            points = [(ax + half[a], ay)]
            for p, q in pairwise(stops):
                points.append((col_edge(p, 1), pos[p][1]))
                points.append((col_edge(q, -1), pos[q][1]))
            points.append((bx - half[b], by))
            is_back = False
        else:
            # a send-back: out of the source's left side, down its gap, along a lane under every box when
            # it spans more than one gap, up the gap right of the target, into the target's right side
            off = 6.0 * back
            gx_src = col_edge(a, -1) - _COL_GAP / 2 + off
            gx_tgt = col_edge(b, 1) + _COL_GAP / 2 - off
            sy, ty = ay + 7, by + 7
            points = [(ax - half[a], sy), (gx_src, sy)]
            if layer[a] - layer[b] > 1:
                lane = bottom + 14 + 8 * back
                points += [(gx_src, lane), (gx_tgt, lane)]
            if layer[a] - layer[b] > 1 and by >= lowest_box[layer[b]]:
                entry = bx + half[b] - 14 - off
                points[-1] = (entry, lane)
                points.append((entry, by + _BOX_H / 2))
            else:
                points += [(gx_tgt if layer[a] - layer[b] > 1 else gx_src, ty), (bx + half[b], ty)]
            back += 1
            is_back = True
        seqs = g.edges[a, b]["seqs"]
        edges.append(
            TopoEdge(
                a,
                b,
                bool(g.edges[a, b]["travelled"]),
                any(s in recent for s in seqs),
                tuple((round(x, 1), round(y, 1)) for x, y in points),
                is_back,
            )
        )
    height = max([bottom + _PAD] + [y + _PAD for e in edges for _, y in e.points])
    levels: dict[int, int] = {}
    for br in snap.brokers:
        for level in br.schedule:
            if level.pending:
                levels[level.level] = levels.get(level.level, 0) + level.pending
    return TopologyModel(
        nodes, tuple(edges), round(width, 1), round(height, 1), sum(levels.values()), tuple(sorted(levels.items()))
    )


def topology_text(vm: TopologyModel) -> str:
    """Nodes column by column, then edges (``==>`` travelled, ``-->`` possible, ``*`` in the last events)."""
    lines = []
    for kind in LAYERS:
        names = [f"{n.title} ({n.detail})" for n in vm.nodes if n.kind == kind]
        if names:
            lines.append(f"{kind}: " + "; ".join(names))
    if vm.levels:
        lines.append("waiting by delay level: " + ", ".join(f"L{level} ×{n}" for level, n in vm.levels))
    titles = {n.id: n.title for n in vm.nodes}
    for e in vm.edges:
        arrow = "==>" if e.travelled else "-->"
        lines.append(f"{titles[e.source]} {arrow} {titles[e.target]}{' *' if e.active else ''}")
    return "\n".join(lines)


# ---------------------------------------------------------------- drawing

TOPOLOGY_CSS = """
.rq-scene .rq-edge { stroke: var(--jp-border-color1, #9e9e9e); stroke-width: 1.2; fill: none;
  stroke-dasharray: 4 3; }
.rq-scene .rq-edge.rq-travelled { stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-width: 2; stroke-dasharray: none; }
.rq-scene .rq-edge.rq-active { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2.6; stroke-dasharray: none; }
.rq-scene .rq-node.rq-alert { stroke: var(--jp-error-color1, #d32f2f); stroke-width: 2.5; stroke-dasharray: 4 2; }
.rq-scene text.rq-node-title { font-weight: 600; font-size: 12px; }
.rq-scene text.rq-node-detail { font-size: 11px; }
.rq-scene[data-testid="rq-topology"] { overflow-x: auto; }
.rq-scene[data-testid="rq-topology"] svg { max-width: none; }
"""
"""The last two rules: a wide topology scrolls sideways instead of shrinking to the output's width (at 1,400 px
of graph in a 900 px output, 12 px labels were drawn 7 px high)."""


def _route(points: tuple[tuple[float, float], ...], back: bool) -> str:
    """The edge's path: straight runs inside columns (even segments), S-curves across the gaps (odd ones);
    a backward edge is straight runs only.

    A zero-length straight run is left out, so the arrow head takes the curve's (horizontal) end tangent.
    """
    (x, y), rest = points[0], points[1:]
    d = f"M{x:.1f},{y:.1f}"
    if back:
        return d + "".join(f" L{px:.1f},{py:.1f}" for px, py in rest)
    for k, (nx_, ny) in enumerate(rest):
        if k % 2 == 0:
            if (nx_, ny) != (x, y):
                d += f" L{nx_:.1f},{ny:.1f}"
        else:
            mid = (x + nx_) / 2
            d += f" C{mid:.1f},{y:.1f} {mid:.1f},{ny:.1f} {nx_:.1f},{ny:.1f}"
        x, y = nx_, ny
    return d


def topology_scene(vm: TopologyModel) -> Scene:
    """Boxes with their two text lines, edges as smooth arrows (travelled ones highlighted), then the legend."""
    marks: list[Mark] = []
    for e in sorted(vm.edges, key=lambda e: (e.travelled, e.active)):  # highlighted edges on top
        cls = "rq-edge" + (" rq-travelled" if e.travelled else "") + (" rq-active" if e.active else "")
        what = "travelled" if e.travelled else "possible"
        marks.append(
            Mark(
                "path",
                f"edge:{e.source}>{e.target}",
                d=_route(e.points, e.back),
                cls=cls,
                arrow=True,
                title=f"{e.source} → {e.target} ({what})",
                role="topology-edge",
            )
        )
    for n in vm.nodes:
        left, top = n.x - n.w / 2, n.y - n.h / 2
        cls = "rq-box rq-node" + (" rq-alert" if n.alert else "")
        marks.append(
            Mark(
                "rect",
                f"node:{n.id}",
                x=left,
                y=top,
                w=n.w,
                h=n.h,
                cls=cls,
                title=f"{n.title}: {n.detail}",
                role="topology-node",
            )
        )
        marks.append(Mark("rect", f"node:{n.id}:stripe", x=left, y=top, w=5, h=n.h, fill=_KIND_COLOUR[n.kind]))
        marks.append(
            Mark(
                "text",
                f"node:{n.id}:title",
                x=left + 10,
                y=top + 14,
                text=n.title,
                cls="rq-node-title",
                role="topology-label",
            )
        )
        marks.append(
            Mark(
                "text",
                f"node:{n.id}:detail",
                x=left + 10,
                y=top + 27,
                text=n.detail,
                cls="rq-muted rq-node-detail",
                role="topology-label",
            )
        )
    items = (
        ("line", "rq-edge", "a path a message can take"),
        ("line", "rq-edge rq-travelled", "a path a message has taken"),
        ("line", "rq-edge rq-active", "taken in the last steps"),
    )
    # the legend goes under the graph (beside it, it made the picture wider and so drawn smaller): the paths in
    # one column, the node kinds in columns of three beside it
    lx, ly = _PAD, vm.height + 18
    marks.extend(legend_marks(items, x=lx, y=ly))
    for i, kind in enumerate(LAYERS):
        x = lx + _LEGEND_W + (i // len(items)) * _KIND_COL_W
        y = ly + (i % len(items)) * 14
        marks.append(
            Mark("rect", f"legend:kind:{kind}", x=x, y=y - 5, w=5, h=10, fill=_KIND_COLOUR[kind], role="legend")
        )
        marks.append(
            Mark(
                "text",
                f"legend:kind:{kind}:t",
                x=x + 18,
                y=y + 4,
                text=_KIND_WORD[kind],
                cls="rq-muted",
                role="legend",
            )
        )
    kind_columns = -(-len(LAYERS) // len(items))
    width = max(vm.width, lx + _LEGEND_W + kind_columns * _KIND_COL_W)
    return Scene(
        int(width),
        int(ly + len(items) * 14 + 4),
        tuple(marks),
        label="topology: producers, topics, delay levels, retry and dead-letter topics, consumers",
        testid="rq-topology",
        css=TOPOLOGY_CSS,
        extra=(("scheduled", str(vm.scheduled)), ("nodes", str(len(vm.nodes)))),
    )


class TopologyView(SceneView):
    """The layered topology as a Scene (no plotly); ``text`` is the plain rendering."""

    title = N_("Topology")

    def __init__(self, *, window: int = 12, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.window = window

    def model(self, snap: LabSnapshot) -> TopologyModel:
        return topology_model(snap, window=self.window)

    def to_text(self, vm: TopologyModel) -> str:
        return topology_text(vm)

    def scene(self, vm: TopologyModel) -> Scene:
        return topology_scene(vm)
