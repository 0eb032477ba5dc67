"""TreeMapView: each consumer's ProcessQueues, i.e. RocketMQ's ``msg_tree_map`` TreeMaps.

The lesson it carries: a concurrent consumer commits the **smallest key** still in the map, so one
slow message pins the offset. The key that will be committed is starred: ``[*12, 13, 15, 18]``.
Orderly consumers also show ``consuming_msg_orderly_tree_map``; their commit is its last key + 1.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import ipywidgets as W

from .base import SnapshotView
from .snapshot import LabSnapshot

__all__ = ["TreeMapRowVM", "TreeMapView", "format_keys", "tree_map_view_model", "tree_map_view_text"]


@dataclass(frozen=True, slots=True)
class TreeMapRowVM:
    consumer: str
    queue: str
    orderly: bool
    keys: tuple[int, ...]
    consuming: tuple[int, ...]
    commit_offset: int | None
    locked: bool
    dropped: bool


def tree_map_view_model(snap: LabSnapshot, *, include_empty: bool = True) -> tuple[TreeMapRowVM, ...]:
    """One row per (running consumer, ProcessQueue)."""
    rows = []
    for c in snap.consumers:
        for pq in c.process_queues:
            if not include_empty and not pq.msg_tree_keys and not pq.consuming_keys:
                continue
            rows.append(
                TreeMapRowVM(
                    c.client_id,
                    pq.queue,
                    c.orderly,
                    pq.msg_tree_keys,
                    pq.consuming_keys,
                    pq.commit_offset,
                    pq.locked,
                    pq.dropped,
                )
            )
    return tuple(rows)


def format_keys(keys: tuple[int, ...], mark: int | None) -> str:
    """``[12, 13, *15, 18]`` — the key equal to ``mark`` gets a star."""
    return "[" + ", ".join(f"*{k}" if k == mark else str(k) for k in keys) + "]"


def tree_map_view_text(rows: tuple[TreeMapRowVM, ...]) -> str:
    """``c1 TopicTest@broker-a:0 msg_tree_map=[*12, 13] commit→12`` per ProcessQueue."""
    lines = []
    for r in rows:
        line = f"{r.consumer} {r.queue} msg_tree_map={format_keys(r.keys, r.commit_offset)}"
        if r.orderly:
            line += f" consuming={format_keys(r.consuming, None)} locked={'yes' if r.locked else 'no'}"
        line += f" commit→{'-' if r.commit_offset is None else r.commit_offset}"
        if r.dropped:
            line += " (dropped)"
        lines.append(line)
    return "\n".join(lines) or "(no ProcessQueues)"


class TreeMapView(SnapshotView):
    """The ProcessQueue TreeMaps as text lines in a monospace block (same text as :func:`tree_map_view_text`)."""

    title = "ProcessQueues"

    def __init__(self, *, include_empty: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.include_empty = include_empty
        self.html = W.HTML()
        self.children = (self.html, self.debug)

    def model(self, snap: LabSnapshot) -> tuple[TreeMapRowVM, ...]:
        return tree_map_view_model(snap, include_empty=self.include_empty)

    def to_text(self, vm: tuple[TreeMapRowVM, ...]) -> str:
        return tree_map_view_text(vm)

    def render(self, vm: tuple[TreeMapRowVM, ...]) -> None:
        self.html.value = f'<pre aria-label="ProcessQueue tree maps" style="margin:0">{html.escape(self.text)}</pre>'
