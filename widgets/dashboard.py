"""Dashboard: the controller, every view, and knobs that rebuild the scenario.

``Dashboard(make_lab, knobs={...})`` calls ``make_lab(**knob_values)`` for every rebuild. Knob
widgets follow the default's type (bool → checkbox, int → integer box, str → text) or, for names in
``knob_options``, a dropdown. "Rebuild" applies the knobs and starts the run again from position 0;
a factory that raises shows its error in the controller and the old views stay as they were.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as W

from rmqlab import Lab

from .base import SnapshotView, guarded
from .controller import Controller
from .event_log import EventLog
from .lock_view import LockView
from .queue_view import QueueView
from .retry_timeline import RetryTimeline
from .topology_view import TopologyView
from .tree_map_view import TreeMapView

__all__ = ["Dashboard", "knob_widget"]


def knob_widget(name: str, default: Any, options: Sequence[Any] | None = None) -> W.ValueWidget:
    """The input widget for one knob (its ``description`` is the knob name, its tooltip says so)."""
    tip = f"scenario knob {name!r}: changes take effect on Rebuild"
    style = {"description_width": "initial"}
    if options is not None:
        return W.Dropdown(options=list(options), value=default, description=name, tooltip=tip, style=style)
    if isinstance(default, bool):
        return W.Checkbox(value=default, description=name, tooltip=tip, indent=False)
    if isinstance(default, int):
        return W.IntText(value=default, description=name, tooltip=tip, style=style)
    if isinstance(default, float):
        return W.FloatText(value=default, description=name, tooltip=tip, style=style)
    return W.Text(value=str(default), description=name, tooltip=tip, style=style)


class Dashboard(W.VBox):
    """Controller + QueueView, TreeMapView, RetryTimeline, TopologyView, LockView, EventLog, knobs."""

    def __init__(
        self,
        make_lab: Callable[..., Lab],
        *,
        knobs: Mapping[str, Any] | None = None,
        knob_options: Mapping[str, Sequence[Any]] | None = None,
        horizon: int | str = "6h",
        run_ahead: bool = True,
        views: Sequence[SnapshotView] | None = None,
    ) -> None:
        super().__init__()
        self.make_lab = make_lab
        self.debug = W.Output(layout=W.Layout(max_height="12em", overflow="auto"))
        self.errors: list[str] = []
        options = dict(knob_options or {})
        self.knobs = {name: knob_widget(name, value, options.get(name)) for name, value in (knobs or {}).items()}
        self.rebuild_button = W.Button(
            description="Rebuild",
            icon="refresh",
            tooltip="rebuild the scenario with these knobs and rerun from the start",
        )
        self.rebuild_button.on_click(guarded(self)(lambda _: self.rebuild()))
        if views is None:
            views = (QueueView(), TreeMapView(), RetryTimeline(), TopologyView(), LockView(), EventLog())
        self.views = list(views)
        self.controller = Controller(self._factory(), views=self.views, horizon=horizon, run_ahead=run_ahead)
        tabs = W.Tab(children=[v for v in self.views])
        for i, v in enumerate(self.views):
            tabs.set_title(i, v.title)
        self.tabs = tabs
        knob_box = W.VBox([W.HTML("<b>knobs</b>"), *self.knobs.values(), self.rebuild_button])
        self.children = (W.HBox([self.controller, knob_box]), tabs, self.debug)

    def knob_values(self) -> dict[str, Any]:
        """The knobs as the widgets show them now."""
        return {name: w.value for name, w in self.knobs.items()}

    def _factory(self) -> Callable[[], Lab]:
        return functools.partial(self.make_lab, **self.knob_values())

    def set_knobs(self, **values: Any) -> None:
        """Set knob widgets by name (the method twin of typing into them)."""
        for name, value in values.items():
            if name not in self.knobs:
                raise KeyError(f"knob {name!r}; have {sorted(self.knobs)}")
            self.knobs[name].value = value

    def rebuild(self, **values: Any) -> bool:
        """Apply ``values`` (if any) and the knobs, rebuild and rerun; ``False`` if the factory failed."""
        if values:
            self.set_knobs(**values)
        return self.controller.load(self._factory())
