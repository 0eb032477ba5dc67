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

The parts: :mod:`~widgets.topology_graph` (the graph from a snapshot), :mod:`~widgets.topology_layout` (layers,
order and edge routes), :mod:`~widgets.topology_model` (the laid-out view-model and its text) and
:mod:`~widgets.topology_scene` (the picture).
"""

from __future__ import annotations

from typing import Any

from rmqlab.core.i18n import N_
from rmqlab.snapshot import LabSnapshot

from .scene import Scene, SceneView
from .topology_graph import LAYERS, topology_graph
from .topology_model import TopoEdge, TopologyModel, TopoNode, topology_model, topology_text
from .topology_scene import topology_scene

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
