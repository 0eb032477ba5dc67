"""Drawing the topology: edges as smooth arrows (travelled ones highlighted, on top), boxes with a kind stripe and
two text lines, and the legend under the graph."""

from __future__ import annotations

from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

from .legend import legend_marks
from .palette import OKABE_ITO
from .scene import Mark, Scene
from .topology_graph import KIND_WORD, LAYERS
from .topology_layout import PAD
from .topology_model import TopoEdge, TopologyModel, TopoNode

__all__ = ["TOPOLOGY_CSS", "topology_scene"]

_KIND_COLOUR = {
    "producer": OKABE_ITO["blue"],
    "topic": OKABE_ITO["sky_blue"],
    "schedule": OKABE_ITO["reddish_purple"],
    "retry": OKABE_ITO["orange"],
    "dlq": OKABE_ITO["vermillion"],
    "consumer": OKABE_ITO["bluish_green"],
}
"""A stripe colour per kind; the second line of every box names the kind in words as well."""
_LEGEND_W = 230.0
_KIND_COL_W = 150.0
"""Width of one column of the node-kind legend."""
_PATHS = (
    ("line", "rq-edge", N_("a path a message can take")),
    ("line", "rq-edge rq-travelled", N_("a path a message has taken")),
    ("line", "rq-edge rq-active", N_("taken in the last steps")),
)


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
        marks.append(_edge_mark(e))
    for n in vm.nodes:
        marks.extend(_node_marks(n))
    # the legend goes under the graph (beside it, it made the picture wider and so drawn smaller): the paths in
    # one column, the node kinds in columns of three beside it
    lx, ly = PAD, vm.height + 18
    marks.extend(_legend(lx, ly))
    kind_columns = -(-len(LAYERS) // len(_PATHS))
    width = max(vm.width, lx + _LEGEND_W + kind_columns * _KIND_COL_W)
    return Scene(
        int(width),
        int(ly + len(_PATHS) * 14 + 4),
        tuple(marks),
        label="topology: producers, topics, delay levels, retry and dead-letter topics, consumers",
        testid="rq-topology",
        css=TOPOLOGY_CSS,
        extra=(("scheduled", str(vm.scheduled)), ("nodes", str(len(vm.nodes)))),
    )


def _edge_mark(e: TopoEdge) -> Mark:
    cls = "rq-edge" + (" rq-travelled" if e.travelled else "") + (" rq-active" if e.active else "")
    what = "travelled" if e.travelled else "possible"
    return Mark(
        "path",
        f"edge:{e.source}>{e.target}",
        d=_route(e.points, e.back),
        cls=cls,
        arrow=True,
        title=f"{e.source} → {e.target} ({what})",
        role="topology-edge",
    )


def _node_marks(n: TopoNode) -> list[Mark]:
    """A box (outlined in red when something is wrong there), its kind stripe, its title and detail lines."""
    left, top = n.x - n.w / 2, n.y - n.h / 2
    cls = "rq-box rq-node" + (" rq-alert" if n.alert else "")
    return [
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
        ),
        Mark("rect", f"node:{n.id}:stripe", x=left, y=top, w=5, h=n.h, fill=_KIND_COLOUR[n.kind]),
        *(
            Mark("text", f"node:{n.id}:{part}", x=left + 10, y=top + dy, text=text, cls=text_cls, role="topology-label")
            for part, dy, text, text_cls in (
                ("title", 14, n.title, "rq-node-title"),
                *(
                    ("detail" if k == 0 else f"detail{k + 1}", 27 + 13 * k, line, "rq-muted rq-node-detail")
                    for k, line in enumerate(n.lines or (n.detail,))
                ),
            )
        ),
    ]


def _legend(lx: float, ly: float) -> list[Mark]:
    """The edge styles in one column, the node kinds (stripe colour and word) in columns of three beside it."""
    marks = list(legend_marks(_PATHS, x=lx, y=ly))
    for i, kind in enumerate(LAYERS):
        x = lx + _LEGEND_W + (i // len(_PATHS)) * _KIND_COL_W
        y = ly + (i % len(_PATHS)) * 14
        marks.append(
            Mark("rect", f"legend:kind:{kind}", x=x, y=y - 5, w=5, h=10, fill=_KIND_COLOUR[kind], role="legend")
        )
        marks.append(
            Mark(
                "text",
                f"legend:kind:{kind}:t",
                x=x + 18,
                y=y + 4,
                text=_(KIND_WORD[kind]),
                cls="rq-muted",
                role="legend",
            )
        )
    return marks
