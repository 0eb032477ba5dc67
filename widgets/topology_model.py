"""The topology's view-model: the graph laid out (node boxes and edge routes in px), which edges were travelled
and which in the last ``window`` events, and the plain text the labs print."""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from rmqlab.snapshot import LabSnapshot

from .scene import text_width
from .topology_graph import LAYERS, topology_graph
from .topology_layout import BOX_H, BOX_H_TWO_LINES, COL_GAP, COL_GAP_NARROW, PAD, EdgeRouter, column_widths, layout

__all__ = ["TopoEdge", "TopoNode", "TopologyModel", "topology_model", "topology_text"]


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
    lines: tuple[str, ...] = ()
    """The detail as drawn: one line, or two (its first part, then the rest) when one-line boxes were too wide."""


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


FIT_W = 860
"""JupyterLab's output area (868 px with the file browser open), less a margin: wider, the boxes' details wrap."""


Layout = tuple[dict[str, tuple[float, float]], dict[tuple[str, str], list[str]], list[float], float, float, float]


def _fit_layout(g: nx.DiGraph) -> Layout:
    """Box widths and the layout (positions, waypoints, column widths, total width, box height, column gap): one-line
    details, or, when their columns are wider than :data:`FIT_W`, each detail on two lines and narrower gaps (never
    smaller text). The widths decide which, before the one layout."""
    box_h, col_gap = BOX_H, COL_GAP
    for _, data in g.nodes(data=True):
        data["lines"] = (data["detail"],)
        data["w"] = max(text_width(data["title"], 12, bold=True), text_width(data["detail"], 11)) + 20
    widths = column_widths(g) if len(g) else [0.0]
    if PAD * 2 + sum(widths) + (len(widths) - 1) * col_gap > FIT_W:
        box_h, col_gap = BOX_H_TWO_LINES, COL_GAP_NARROW
        for _, data in g.nodes(data=True):
            first, sep, rest = data["detail"].partition(" · ")
            data["lines"] = (first, rest) if sep else (first,)
            texts = [text_width(data["title"], 12, bold=True)] + [text_width(line, 11) for line in data["lines"]]
            data["w"] = max(texts) + 16  # the text starts 10 px in: 6 px to spare on the right
    pos, chains, widths = layout(g, box_h, col_gap) if len(g) else ({}, {}, [0.0])
    width = PAD * 2 + sum(widths) + (len(widths) - 1) * col_gap
    return pos, chains, widths, width, box_h, col_gap


def topology_model(snap: LabSnapshot, *, window: int = 12) -> TopologyModel:
    """The laid-out graph: node boxes and edge routes in px, edges travelled so far and in the last ``window``."""
    g = topology_graph(snap)
    pos, chains, widths, width, box_h, col_gap = _fit_layout(g)
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
            box_h,
            bool(d["alert"]),
            d["lines"],
        )
        for n, d in sorted(g.nodes(data=True), key=lambda item: (item[1]["layer"], pos[item[0]][1]))
    )
    router = EdgeRouter(g, pos, chains, widths, box_h, col_gap)
    edges = []
    back = 0
    for a, b in sorted(g.edges):
        is_back = router.layer[b] <= router.layer[a]
        points = router.backward(a, b, back) if is_back else router.forward(a, b)
        back += 1 if is_back else 0
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
    height = max([router.bottom + PAD] + [y + PAD for e in edges for _, y in e.points])
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
