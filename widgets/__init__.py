"""Views for rmqlab: a step-through controller and animated views, built from immutable snapshots.

Layers: :func:`take_snapshot` copies a Lab into frozen plain data; each view is a pure function
snapshot → view-model plus a thin renderer (a Scene drawn by an anywidget, ipywidgets or plotly)
and a plain-text rendering; the
:class:`Controller` moves through a run by deterministic replay of a Lab factory; the
:class:`Dashboard` puts them together with scenario knobs. ``rmqlab`` never imports this package.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

from . import site_packages

# what the [lab] extra installs: without it, say so instead of a bare "No module named 'ipywidgets'" (found, not
# imported: importing them is left to the views that use them)
for _needed in ("anywidget", "ipywidgets", "networkx"):
    if importlib.util.find_spec(_needed) is None:
        raise ModuleNotFoundError(
            f"rmqlab.widgets (the labs' views) needs {_needed}, which rmqlab's [lab] extra installs: "
            "pip install 'rmqlab[lab]'",
            name=_needed,
        )
del _needed

site_packages.start()  # in JupyterLite only: the site's packages not loaded at start (plotly) begin loading

if TYPE_CHECKING:
    from rmqlab.snapshot import LabSnapshot, OffsetState, TraceIndex, take_snapshot

    from .animation import save_animation
    from .checkpoints import Checkpoint, sealed_explanation
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

_EXPORTS = {
    "rmqlab.snapshot": ("LabSnapshot", "OffsetState", "TraceIndex", "take_snapshot"),
    ".animation": ("save_animation",),
    ".checkpoints": ("Checkpoint", "sealed_explanation"),
    ".controller": ("Controller",),
    ".dashboard": ("Dashboard",),
    ".demo": ("DEMO_KNOB_OPTIONS", "DEMO_KNOBS", "demo_lab"),
    ".event_log": ("EventLog",),
    ".flow_view": ("FlowView",),
    ".lease_view": ("LeaseView",),
    ".offset_strip": ("OffsetStripView",),
    ".replay": ("Replay", "ReplayError"),
    ".retry_timeline": ("RetryTimeline",),
    ".spacetime_view": ("SpaceTimeView",),
    ".topology_view": ("TopologyView",),
}
"""Each public name's module, imported the first time the name is asked for (PEP 562), as ``rmqlab`` does: a lab's
``from rmqlab.widgets.dashboard import Dashboard`` loads the dashboard's modules, not the GIF export's (Pillow,
resvg) or every view's. In JupyterLite each module imported costs the student's browser; bench/README.md."""

_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> object:
    """Import a public name's module the first time the name is asked for, and keep the name."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names (loaded or not) and the module's own dunders."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})


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
    "sealed_explanation",
    "take_snapshot",
]
