"""TopologyView: name server, brokers, topics, queues, producer and consumer groups as a graph.

The graph is built with networkx from the snapshot and laid out in columns (:func:`column_layout`,
deterministic): producers → topics → queues → consumer groups, with retry, schedule and DLQ queues
among the queues. An edge *lights up* while messages flow over it: it carries one of the last
``window`` trace events (a send, a delivery, a send-back, a delay hop, a dead-lettering).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx
import plotly.graph_objects as go

from rmqlab.message import SCHEDULE_TOPIC

from .base import SnapshotView
from .palette import OKABE_ITO
from .snapshot import LabSnapshot, flow_edge

__all__ = [
    "NODE_STYLE",
    "TopologyModel",
    "TopologyView",
    "column_layout",
    "topology_graph",
    "topology_model",
    "topology_text",
]

NODE_STYLE: dict[str, tuple[int, str, str]] = {
    "producer": (0, "triangle-right", OKABE_ITO["blue"]),
    "namesrv": (0, "star", OKABE_ITO["black"]),
    "broker": (1, "square", OKABE_ITO["black"]),
    "topic": (2, "diamond", OKABE_ITO["sky_blue"]),
    "retry": (2, "diamond", OKABE_ITO["orange"]),
    "schedule": (2, "hourglass", OKABE_ITO["reddish_purple"]),
    "dlq": (2, "x", OKABE_ITO["vermillion"]),
    "queue": (3, "circle", OKABE_ITO["bluish_green"]),
    "consumer": (4, "triangle-left", OKABE_ITO["blue"]),
}
"""Node kind → (layout column, plotly symbol, colour)."""


@dataclass(frozen=True, slots=True)
class TopologyModel:
    nodes: tuple[tuple[str, str, float, float], ...]
    """(node id, kind, x, y)."""
    edges: tuple[tuple[str, str, bool], ...]
    """(from, to, active)."""


def _topic_kind(topic: str) -> str:
    if topic.startswith("%RETRY%"):
        return "retry"
    if topic.startswith("%DLQ%"):
        return "dlq"
    if topic == SCHEDULE_TOPIC:
        return "schedule"
    return "topic"


def topology_graph(snap: LabSnapshot) -> nx.DiGraph:
    """The static structure: who talks to whom, from the snapshot's brokers, queues and clients."""
    g = nx.DiGraph()
    g.add_node("namesrv", kind="namesrv")
    for b in snap.brokers:
        g.add_node(f"broker:{b.name}", kind="broker")
        g.add_edge("namesrv", f"broker:{b.name}")
    for q in snap.queues:
        topic = f"topic:{q.topic}"
        g.add_node(topic, kind=_topic_kind(q.topic))
        g.add_node(f"queue:{q.name}", kind="queue")
        g.add_edge(f"broker:{q.broker}", topic)
        g.add_edge(topic, f"queue:{q.name}")
        for group in q.groups:
            g.add_node(f"cg:{group}", kind="consumer")
            g.add_edge(f"queue:{q.name}", f"cg:{group}")
    for _, group in snap.producers:
        g.add_node(f"pg:{group}", kind="producer")
    for c in snap.consumers:
        g.add_node(f"cg:{c.group}", kind="consumer")
    for a, b in snap.flows:
        g.add_edge(a, b)
    for node in g.nodes:
        g.nodes[node]["layer"] = NODE_STYLE[g.nodes[node]["kind"]][0]
    return g


def column_layout(g: nx.DiGraph) -> dict[str, tuple[float, float]]:
    """Columns by ``layer``, nodes sorted by name top to bottom, spread over [0, 1].

    Like networkx's ``multipartite_layout`` but without numpy and with a fixed order, so the same
    graph always lands on the same coordinates.
    """
    columns: dict[int, list[str]] = {}
    for node in sorted(g.nodes):
        columns.setdefault(g.nodes[node]["layer"], []).append(node)
    width = max(columns) or 1 if columns else 1
    pos = {}
    for layer, names in columns.items():
        for i, node in enumerate(names):
            pos[node] = (layer / width, 1.0 - (i + 0.5) / len(names))
    return pos


def topology_model(snap: LabSnapshot, *, window: int = 12) -> TopologyModel:
    """Nodes with fixed positions and edges, the recently used ones marked active."""
    g = topology_graph(snap)
    pos = column_layout(g)
    groups = dict(snap.groups)
    active = set()
    for e in snap.events[-window:] if window else ():
        edge = flow_edge(e, groups)
        if edge is not None:
            active.add(edge)
    nodes = tuple(
        (n, g.nodes[n]["kind"], round(float(pos[n][0]), 6), round(float(pos[n][1]), 6)) for n in sorted(g.nodes)
    )
    edges = tuple((a, b, (a, b) in active) for a, b in sorted(g.edges))
    return TopologyModel(nodes, edges)


def topology_text(vm: TopologyModel) -> str:
    """Nodes by kind, then edges; active edges drawn ``==>``."""
    lines = [
        f"{kind}: {', '.join(n for n, k, _, _ in vm.nodes if k == kind)}"
        for kind in NODE_STYLE
        if any(k == kind for _, k, _, _ in vm.nodes)
    ]
    lines += [f"{a} {'==>' if on else '-->'} {b}" for a, b, on in vm.edges]
    return "\n".join(lines)


class TopologyView(SnapshotView):
    """The cluster graph drawn with plotly: idle edges grey, active edges thick vermillion."""

    title = "Topology"

    def __init__(self, *, window: int = 12, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.window = window
        self.figure = go.FigureWidget(
            data=[
                go.Scatter(
                    x=[], y=[], mode="lines", name="idle", line={"color": "#BBBBBB", "width": 1}, hoverinfo="skip"
                ),
                go.Scatter(
                    x=[],
                    y=[],
                    mode="lines",
                    name="message flow",
                    line={"color": OKABE_ITO["vermillion"], "width": 4, "dash": "dot"},
                    hoverinfo="skip",
                ),
                go.Scatter(
                    x=[],
                    y=[],
                    mode="markers+text",
                    name="nodes",
                    textposition="top center",
                    hoverinfo="text",
                    marker={"size": 14},
                ),
            ],
            layout=go.Layout(
                height=420,
                showlegend=True,
                margin={"l": 10, "r": 10, "t": 30, "b": 10},
                xaxis={"visible": False},
                yaxis={"visible": False},
                title={"text": "topology"},
            ),
        )
        self._nodes: tuple[Any, ...] = ()
        self.children = (self.figure, self.debug)

    def model(self, snap: LabSnapshot) -> TopologyModel:
        return topology_model(snap, window=self.window)

    def to_text(self, vm: TopologyModel) -> str:
        return topology_text(vm)

    def render(self, vm: TopologyModel) -> None:
        where = {n: (x, y) for n, _, x, y in vm.nodes}

        def segments(active: bool) -> tuple[list[float | None], list[float | None]]:
            xs: list[float | None] = []
            ys: list[float | None] = []
            for a, b, on in vm.edges:
                if on == active:
                    xs += [where[a][0], where[b][0], None]
                    ys += [where[a][1], where[b][1], None]
            return xs, ys

        with self.figure.batch_update():
            ix, iy = segments(False)
            ax, ay = segments(True)
            self.figure.data[0].update(x=ix, y=iy)
            self.figure.data[1].update(x=ax, y=ay)
            if vm.nodes != self._nodes:
                self._nodes = vm.nodes
                self.figure.data[2].update(
                    x=[x for _, _, x, _ in vm.nodes],
                    y=[y for _, _, _, y in vm.nodes],
                    text=[n.split(":", 1)[-1] for n, _, _, _ in vm.nodes],
                    hovertext=[f"{k}: {n}" for n, k, _, _ in vm.nodes],
                    marker={
                        "symbol": [NODE_STYLE[k][1] for _, k, _, _ in vm.nodes],
                        "color": [NODE_STYLE[k][2] for _, k, _, _ in vm.nodes],
                    },
                )
