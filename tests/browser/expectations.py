"""What each lab's Dashboard must show, computed in this process from the same notebook code and the engine.

The browser tests never hard-code a clock string or a delivery count: they run the lab's own code cells
here (up to the cell that builds its ``Dashboard``), then ask the in-process controller for the readouts
after Reset and after each Step, and ask the *engine* — a fresh ``Lab`` from the dashboard's factory, run
to the dashboard's horizon — how many deliveries the retry timeline must draw.
"""

from __future__ import annotations

import contextlib
import functools
import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import nbformat

from rmqlab import EventKind
from widgets.base import SnapshotView
from widgets.controller import Controller

MAX_STEPS_FOR_TREE_MAP = 50
"""Step clicks we are willing to make while waiting for the ProcessQueues picture to change."""


def scene_text(view: SnapshotView) -> str:
    """The text a browser finds in a scene view's SVG (its ``textContent``): every text and title, in order.

    The live widget draws exactly ``Scene.to_svg()`` (scene.js), so this is what the ProcessQueues tab shows.
    """
    svg = view.static_html()
    return "".join(ET.fromstring(svg[svg.index("<svg") : svg.rindex("</svg>") + 6]).itertext())


@dataclass(frozen=True, slots=True)
class DashboardExpectation:
    """Readouts of one lab's Dashboard, as the kernel will produce them."""

    cell_index: int
    """Index (among all cells) of the cell whose output is the Dashboard."""
    start: int
    """Trace position after Reset (the factory's own events)."""
    end: int
    """Trace position at the horizon."""
    reset_clock: str
    reset_tree_map: str
    step_clocks: tuple[str, ...]
    """Clock readout after 1, 2, … Step clicks from Reset, until the TreeMap text changes."""
    step_tree_map: str
    """ProcessQueues picture text after the last of those clicks (equal to ``reset_tree_map`` if it never changes)."""
    step_captions: tuple[str, ...]
    """The caption line's text (``textContent``: lines joined) after each of those Step clicks."""
    end_clock: str
    deliveries: int
    """DELIVERED events of the timeline's lanes in the engine's full run."""
    lanes: int
    """Messages the timeline draws (stored or scheduled at least once, at most ``max_lanes``)."""

    @property
    def tree_map_changes(self) -> bool:
        return self.step_tree_map != self.reset_tree_map


def code_cells(path: Path) -> list[tuple[int, str]]:
    """(index among all cells, source) of every code cell."""
    nb = nbformat.read(path, as_version=4)
    return [(i, c.source) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def run_cells(path: Path, *, stop_after: str | None = None) -> tuple[dict, int | None]:
    """Execute the notebook's code cells here (stdout swallowed); stop after the first containing ``stop_after``."""
    ns: dict = {"__name__": "__rmqlab_lab__"}
    hit = None
    with contextlib.redirect_stdout(io.StringIO()):
        for index, source in code_cells(path):
            exec(compile(source, f"{path.name}[{index}]", "exec"), ns)
            if stop_after is not None and stop_after in source:
                hit = index
                break
    return ns, hit


def clock_readout(controller: Controller) -> str:
    """The clock span's text in the browser: ``clock_text`` plus the end marker the HTML adds."""
    return controller.clock_text + (" · end" if controller.replay.at_end else "")


@functools.cache
def dashboard_expectation(path: Path) -> DashboardExpectation | None:
    """The expectation for the notebook's first ``Dashboard(`` cell, or ``None`` if it has none."""
    ns, index = run_cells(path, stop_after="Dashboard(")
    if index is None:
        return None
    dash = ns["dash"]
    ctrl = dash.controller
    tree_map = next(v for v in dash.views if v.title == "ProcessQueues")
    timeline = next(v for v in dash.views if v.title == "Retry timeline")

    ctrl.reset()
    start, reset_clock, reset_tree_map = ctrl.position, clock_readout(ctrl), scene_text(tree_map)
    clocks, captions = [], []
    for _ in range(MAX_STEPS_FOR_TREE_MAP):
        if not ctrl.step_once():
            break
        clocks.append(clock_readout(ctrl))
        captions.append("".join(ctrl.caption_lines))
        if scene_text(tree_map) != reset_tree_map:
            break
    step_tree_map = scene_text(tree_map)
    if step_tree_map == reset_tree_map:  # never changes (no consumer): one click must still move the clock
        clocks, captions = clocks[:1], captions[:1]
    ctrl.reset()  # the browser test scrubs to the end from Reset; stepping past the end would move the clock on
    ctrl.seek(ctrl.end)
    end_clock = clock_readout(ctrl)

    # The engine's own answer: a fresh Lab from the same factory and knobs, run to the same horizon.
    lab = dash.make_lab(**dash.knob_values())
    lab.run(until=ctrl.horizon)
    stored = sorted({e.msg_id for e in lab.trace if e.msg_id and e.kind in (EventKind.STORED, EventKind.SCHEDULED)})[
        : timeline.max_lanes
    ]
    shown = set(stored)
    deliveries = sum(1 for e in lab.trace.of_kind(EventKind.DELIVERED) if e.msg_id in shown)
    return DashboardExpectation(
        cell_index=index,
        start=start,
        end=ctrl.end,
        reset_clock=reset_clock,
        reset_tree_map=reset_tree_map,
        step_clocks=tuple(clocks),
        step_tree_map=step_tree_map,
        step_captions=tuple(captions),
        end_clock=end_clock,
        deliveries=deliveries,
        lanes=len(stored),
    )
