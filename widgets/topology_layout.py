"""The topology's layered layout, computed without numpy: layers as columns, long edges through waypoints,
nodes ordered by barycentre sweeps, and the routes edges are drawn along (forward edges through the columns,
send-backs right to left under the boxes)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise

import networkx as nx

__all__ = ["BOX_H", "BOX_H_TWO_LINES", "COL_GAP", "COL_GAP_NARROW", "PAD", "EdgeRouter", "column_widths", "layout"]

BOX_H = 34.0
ROW_GAP = 16.0
COL_GAP = 56.0
BOX_H_TWO_LINES = 46.0
"""A box whose detail is on two lines (a graph too wide for the output area with one-line details)."""
COL_GAP_NARROW = 36.0
PAD = 12.0


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


def column_widths(g: nx.DiGraph) -> list[float]:
    """Each column's width, left to right: its widest box (a waypoint's column always holds a box too)."""
    layers = sorted({layer for _, layer in g.nodes(data="layer")})
    return [max(g.nodes[n]["w"] for n in g.nodes if g.nodes[n]["layer"] == layer) for layer in layers]


def layout(
    g: nx.DiGraph, box_h: float = BOX_H, col_gap: float = COL_GAP
) -> tuple[dict[str, tuple[float, float]], dict[tuple[str, str], list[str]], list[float]]:
    """Centres of nodes and waypoints, the waypoints of each forward edge, and each column's width.

    Columns are as wide as their widest box (a grid with uneven columns); rows are centred per column.
    A backward edge (a send-back, right to left) gets no waypoints: it is routed below, in the gaps.
    """
    chains: dict[tuple[str, str], list[str]] = {}
    for a, b in sorted(g.edges):
        la, lb = g.nodes[a]["layer"], g.nodes[b]["layer"]
        chains[(a, b)] = [f"~{a}>{b}#{k}" for k in range(la + 1, lb)]
    layers = _order_layers(g, chains)
    widths = column_widths(g)
    lefts = [PAD + sum(widths[:i]) + i * col_gap for i in range(len(widths))]
    pitch_y = box_h + ROW_GAP
    tallest = max((len(v) for v in layers.values()), default=1)
    pos: dict[str, tuple[float, float]] = {}
    for layer, names in layers.items():
        top = (tallest - len(names)) / 2
        for i, n in enumerate(names):
            pos[n] = (lefts[layer] + widths[layer] / 2, PAD + box_h / 2 + (top + i) * pitch_y)
    return pos, chains, widths


class EdgeRouter:
    """Where an edge runs, in px: straight along rows inside columns, curved only in the gaps between them."""

    def __init__(
        self,
        g: nx.DiGraph,
        pos: dict[str, tuple[float, float]],
        chains: dict[tuple[str, str], list[str]],
        widths: list[float],
        box_h: float = BOX_H,
        col_gap: float = COL_GAP,
    ) -> None:
        self.pos, self.chains, self.widths = pos, chains, widths
        self.box_h, self.col_gap = box_h, col_gap
        self.layer = {n: g.nodes[n]["layer"] for n in g.nodes}
        self.half = {n: g.nodes[n]["w"] / 2 for n in g.nodes}
        self.bottom = max((y + box_h / 2 for _, y in pos.values()), default=PAD)
        self.lowest_box: dict[int, float] = {}
        """layer → the y of its lowest box: a send-back into a target with nothing under it enters from below."""
        for n in g.nodes:
            self.lowest_box[self.layer[n]] = max(self.lowest_box.get(self.layer[n], 0.0), pos[n][1])

    def col_edge(self, p: str, side: int) -> float:
        """The x of a column's right (side 1) or left (side −1) edge, for the node or waypoint ``p``."""
        lay = self.layer[p] if p in self.layer else int(p.rsplit("#", 1)[1])
        return self.pos[p][0] + side * self.widths[lay] / 2

    def forward(self, a: str, b: str) -> list[tuple[float, float]]:
        """Left to right: straight along a row inside a column (box edge ↔ column edge, through each waypoint's
        slot), curved only in the gaps between columns, where there are no boxes."""
        (ax, ay), (bx, by) = self.pos[a], self.pos[b]
        stops = [a, *self.chains[(a, b)], b]
        points = [(ax + self.half[a], ay)]
        for p, q in pairwise(stops):
            points.append((self.col_edge(p, 1), self.pos[p][1]))
            points.append((self.col_edge(q, -1), self.pos[q][1]))
        points.append((bx - self.half[b], by))
        return points

    def backward(self, a: str, b: str, back: int) -> list[tuple[float, float]]:
        """The ``back``-th send-back: out of the source's left side, down its gap, along a lane under every box when
        it spans more than one gap, up the gap right of the target, into the target's right side."""
        (ax, ay), (bx, by) = self.pos[a], self.pos[b]
        off = 6.0 * back
        gx_src = self.col_edge(a, -1) - self.col_gap / 2 + off
        gx_tgt = self.col_edge(b, 1) + self.col_gap / 2 - off
        sy, ty = ay + 7, by + 7
        points = [(ax - self.half[a], sy), (gx_src, sy)]
        spans_gaps = self.layer[a] - self.layer[b] > 1
        if spans_gaps:
            lane = self.bottom + 14 + 8 * back
            points += [(gx_src, lane), (gx_tgt, lane)]
        if spans_gaps and by >= self.lowest_box[self.layer[b]]:
            entry = bx + self.half[b] - 14 - off
            points[-1] = (entry, lane)
            points.append((entry, by + self.box_h / 2))
        else:
            points += [(gx_tgt if spans_gaps else gx_src, ty), (bx + self.half[b], ty)]
        return points
