"""Views for rmqlab: a step-through controller and animated views, built from immutable snapshots.

Layers: :func:`take_snapshot` copies a Lab into frozen plain data; each view is a pure function
snapshot → view-model plus a thin renderer (a Scene drawn by an anywidget, ipywidgets or plotly)
and a plain-text rendering; the
:class:`Controller` moves through a run by deterministic replay of a Lab factory; the
:class:`Dashboard` puts them together with scenario knobs. ``rmqlab`` never imports this package.
"""

from __future__ import annotations

try:  # what the [lab] extra installs: without it, say so instead of a bare "No module named 'ipywidgets'"
    import anywidget  # noqa: F401
    import ipywidgets  # noqa: F401
    import networkx  # noqa: F401
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(
        f"rmqlab.widgets (the labs' views) needs {missing.name}, which rmqlab's [lab] extra installs: "
        "pip install 'rmqlab[lab]'",
        name=missing.name,
    ) from missing

from rmqlab.snapshot import LabSnapshot, OffsetState, TraceIndex, take_snapshot

from .animation import save_animation
from .checkpoints import Checkpoint
from .controller import Controller
from .dashboard import Dashboard
from .demo import DEMO_KNOB_OPTIONS, DEMO_KNOBS, demo_lab
from .event_log import EventLog
from .flow_view import FlowView
from .lease_view import LeaseView
from .offset_strip import OffsetStripView
from .replay import Replay, ReplayError
from .retry_timeline import RetryTimeline
from .spacetime_view import SpaceTimeView
from .topology_view import TopologyView

__all__ = [
    "DEMO_KNOBS",
    "DEMO_KNOB_OPTIONS",
    "Checkpoint",
    "Controller",
    "Dashboard",
    "EventLog",
    "FlowView",
    "LabSnapshot",
    "LeaseView",
    "OffsetState",
    "OffsetStripView",
    "Replay",
    "ReplayError",
    "RetryTimeline",
    "SpaceTimeView",
    "TopologyView",
    "TraceIndex",
    "demo_lab",
    "save_animation",
    "take_snapshot",
]
