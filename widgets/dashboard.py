"""Dashboard: the controller with its caption, the main picture, every other view in tabs, and knobs.

``Dashboard(make_lab, knobs={...})`` calls ``make_lab(**knob_values)`` for every rebuild. Knob
widgets follow the default's type (bool → checkbox, int → integer box, str → text) or, for names in
``knob_options``, a dropdown. "Rebuild" applies the knobs and starts the run again at t = 0;
a factory that raises shows its error in the controller and the old views stay as they were.

Layout, in DOM order (which is also the keyboard's tab order): the controller (buttons, scrubber,
clock, caption, fault buttons) beside the knobs, then the **main picture** — the view whose ``main``
is true, the message flow by default — then the other views in tabs. A view's ``legend`` text, when
it has one, is shown under it; the scene views draw their legend inside their picture.

What every lab shows is :func:`default_views`: change the list there, in one place.
"""

from __future__ import annotations

import functools
import html
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import ipywidgets as W

from rmqlab import Lab

from .base import SnapshotView, guarded
from .controller import Controller
from .event_log import EventLog
from .flow_view import FlowView
from .lease_view import LeaseView
from .offset_strip import OffsetStripView
from .retry_timeline import RetryTimeline
from .scene import SceneView
from .spacetime_view import SpaceTimeView
from .topology_view import TopologyView

__all__ = ["Dashboard", "default_views", "knob_widget"]

LEGEND_STYLE = "color:var(--jp-ui-font-color2, #555);font-size:var(--jp-ui-font-size0, 11px);margin:2px 0 6px"


def default_views() -> list[SnapshotView]:
    """The views of every lab's dashboard, the main picture first — the one place to change them.

    FlowView is the main picture (drawn above the tabs). OffsetStripView replaced TreeMapView and LeaseView
    replaced LockView; the message flow and the offset strip replaced QueueView's text cells.
    """
    flow = FlowView()
    flow.main = True
    return [
        flow,
        OffsetStripView(),
        SpaceTimeView(),
        RetryTimeline(),
        TopologyView(),
        LeaseView(),
        EventLog(),
    ]


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


def _with_legend(view: SnapshotView) -> W.Widget:
    """The view, with its ``legend`` text under it when it has one."""
    if not view.legend:
        return view
    note = W.HTML(
        f'<div data-testid="rmq-legend" role="note" aria-label="legend of {html.escape(view.title)}" '
        f'style="{LEGEND_STYLE}">{html.escape(view.legend)}</div>'
    )
    return W.VBox([view, note])


class Dashboard(W.VBox):
    """Controller + caption + main picture + tabs of views + knobs (see :func:`default_views`)."""

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
            tooltip="rebuild the scenario with these knobs and rerun from t = 0",
        )
        self.rebuild_button.on_click(guarded(self)(lambda _: self.rebuild()))
        self.views = list(default_views() if views is None else views)
        mains = [v for v in self.views if v.main]
        self.main_view: SnapshotView | None = mains[0] if mains else None
        self.tab_views = [v for v in self.views if v is not self.main_view]
        self.controller = Controller(self._factory(), views=self.views, horizon=horizon, run_ahead=run_ahead)
        tabs = W.Tab(children=[_with_legend(v) for v in self.tab_views])
        for i, v in enumerate(self.tab_views):
            tabs.set_title(i, v.title)
        self.tabs = tabs
        knob_box = W.VBox(
            [W.HTML("<b>knobs</b>"), *self.knobs.values(), self.rebuild_button],
            layout=W.Layout(min_width="18em", flex="0 1 auto"),
        )
        # wrap: in a narrow output area the knobs go under the controller instead of being cut off
        top = W.HBox([self.controller, knob_box], layout=W.Layout(flex_flow="row wrap"))
        main = () if self.main_view is None else (_with_legend(self.main_view),)
        self.children = (top, *main, tabs, self.debug)

    def static_html(self) -> str:
        """The dashboard as it stands, without a kernel: clock, caption, the main picture, then every tab.

        This is what a notebook keeps when widget state is not stored (nbconvert, a docs site, a reader
        without a kernel); JupyterLab and Voila draw the live widgets instead. Picture views give their
        static SVG, text views their text.
        """
        parts = [
            '<div class="rq-static-dashboard" data-testid="rq-static-dashboard">',
            f"<div>{self.controller.clock.value}</div>",
            self.controller.caption_html.value,
        ]
        for v in ([self.main_view] if self.main_view is not None else []) + self.tab_views:
            parts.append(f"<h4>{html.escape(v.title)}</h4>")
            picture = v.static_html() if isinstance(v, SceneView) else ""
            parts.append(picture or f"<pre>{html.escape(v.text)}</pre>")
        parts.append("</div>")
        return "".join(parts)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle: dict[str, Any] = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/html"] = self.static_html()
        return bundle

    def view(self, title: str) -> SnapshotView:
        """The view called ``title`` (KeyError names the titles there are)."""
        for v in self.views:
            if v.title == title:
                return v
        raise KeyError(f"{title!r}; have {[v.title for v in self.views]}")

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
        """Apply ``values`` (if any) and the knobs, rebuild and rerun from t = 0; ``False`` if the factory failed."""
        if values:
            self.set_knobs(**values)
        return self.controller.load(self._factory())

    def save_animation(self, path: str | os.PathLike[str], **options: Any) -> Path:
        """The run on screen, or steps ``start`` … ``stop - 1`` of it, as an animated GIF or WebP for a slide
        (the main picture and each step's caption; the dashboard does not move): see
        :func:`widgets.animation.save_animation` for the options."""
        from .animation import save_animation  # animation imports this module

        return save_animation(self, path, **options)
