"""Dashboard: the controller with its caption, the main picture, every other view in tabs, and knobs.

``Dashboard(make_lab, knobs={...})`` calls ``make_lab(**knob_values)`` for every rebuild. Knob
widgets follow the default's type (bool → checkbox, int → integer box, str → text) or, for names in
``knob_options``, a dropdown. "Rebuild" applies the knobs and starts the run again at t = 0;
a factory that raises shows its error in the controller and the old views stay as they were.

Layout, in DOM order (which is also the keyboard's tab order): the controller (buttons, scrubber,
clock, caption, a checkpoint's question), then the **main picture** — the view whose ``main``
is true, the message flow by default — right under the question it asks about, then the other views in tabs, then
the fault buttons beside the knobs (what changes the run). Controls, caption, question, picture and the tab a question
is about fit one 1300 × 1000 JupyterLab window together (tests/browser/test_fold_browser.py); a checkpoint that
names a tab (``Checkpoint(tab=…)``, or the tab of what it ``hides``) has the page open that tab when it asks.
A view's ``legend`` text, when it has one, is shown under it; the scene views draw their legend inside their
picture.

What every lab shows is :func:`default_views`: change the list there, in one place.

**Frames in the page.** With ``run_ahead`` (the default) the kernel computes the run's frames once per build
(:mod:`widgets.frames`) and the page steps, plays, scrubs and jumps through them with no kernel round trip; a
hidden tab's frames are computed when the tab is first opened. The kernel follows the page's position
asynchronously (``dash.controller.position``); the method twins (``dash.controller.step_once()`` …) still move
the run from a cell, and the page follows.

**Checkpoints** (predictions made on the picture)::

    Dashboard(failing_lab, horizon="2m", checkpoints=[
        Checkpoint(before="send_back", ask="where"),        # pause before the 1st send-back: where does it go?
        Checkpoint(before="dead_lettered", ask="where", hint="count the reconsumes"),
        Checkpoint(before="delivered", nth=17, ask="who"),  # which instance gets the 17th delivery?
        Checkpoint(before="delay_delivered", ask="when"),
    ])

Play and Step stop on the step just before each checkpoint's event and ask in the picture: the answer places
are highlighted and clickable (and listed as buttons, reachable by keyboard). Right: the explanation, and play
goes on. Wrong: a hint about the mechanism; try again, or "Show me" plays the step. The answers come from the
engine's next state (:func:`widgets.checkpoints.resolve`); ``dash.controller.checkpoints`` lists them resolved,
``dash.controller.answer(name, key)`` answers from a cell and ``dash.controller.score`` counts the page's answers.
A checkpoint the run cannot reach (no such event) is an error at build, naming it.
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
from rmqlab.core.i18n import gettext as _

from .base import SnapshotView, guarded
from .checkpoints import Checkpoint
from .controller import Controller
from .event_log import EventLog
from .flow_view import FlowView
from .knob_labels import knob_widget
from .lease_view import LeaseView
from .offset_strip import OffsetStripView
from .retry_timeline import RetryTimeline
from .scene import SceneView
from .spacetime_view import SpaceTimeView
from .static_player import static_player_html
from .topology_view import TopologyView

__all__ = ["Checkpoint", "Dashboard", "ViewTabs", "default_views", "knob_widget"]

LEGEND_STYLE = "color:var(--jp-ui-font-color2, #555);font-size:var(--jp-ui-font-size0, 11px);margin:2px 0 6px"


def _run_snapshots(controller: Controller) -> list[Any]:
    """The run's snapshots: its whole run when known ahead, else its first step."""
    frames = controller.frames
    return list(frames.snapshots) if frames is not None else ([controller.snapshot] if controller.snapshot else [])


def _has_orderly_consumer(controller: Controller) -> bool:
    """Whether the run has an orderly consumer at any step: only orderly consumption takes broker locks, so a run
    without one has nothing for the Locks tab."""
    return any(c.orderly for snap in _run_snapshots(controller) for c in snap.consumers)


def _has_consumer(controller: Controller) -> bool:
    """Whether the run has a consumer at any step: ProcessQueues and deliveries are a consumer's, so a run of
    producers only (lab 01a's, 06's) has nothing for the ProcessQueues tab or the Retry timeline."""
    return any(snap.consumers for snap in _run_snapshots(controller))


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


def _with_legend(view: SnapshotView) -> W.Widget:
    """The view, with its ``legend`` text under it when it has one."""
    if not view.legend:
        return view
    named = _("legend of {title}").format(title=_(view.title))
    note = W.HTML(
        f'<div data-testid="rmq-legend" role="note" aria-label="{html.escape(named)}" '
        f'style="{LEGEND_STYLE}">{html.escape(view.legend)}</div>'
    )
    return W.VBox([view, note])


class ViewTabs(W.VBox):
    """The other views, one shown at a time, chosen by a row of toggle buttons.

    Not ``ipywidgets.Tab``: its Lumino TabBar listens for clicks only once Lumino tells it it was attached, and
    JupyterLab's windowed notebook attaches a cell rendered off screen (a dashboard deep in a long notebook, as in
    lab 07 after Run All) without that message, so its tabs ignored real clicks (no listener at all on the bar;
    labs 03 and 05, whose dashboards render on screen, worked). A ToggleButtons view listens from the moment it is
    rendered. Every page is drawn and the ones not chosen are hidden (``display: none``), as the Tab did, so each
    view keeps its picture up to date and a browser finds all of them (an ``ipywidgets.Stack`` draws only one).
    """

    def __init__(self, pages: Sequence[W.Widget], titles: Sequence[str]) -> None:
        self.titles = tuple(titles)
        self.buttons = W.ToggleButtons(
            options=[(_(title), i) for i, title in enumerate(self.titles)],
            value=0 if self.titles else None,
            tooltips=[_("show the {title} view").format(title=_(title)) for title in self.titles],
            style={"button_width": "auto"},
        )
        self.buttons.add_class("rq-view-tabs")
        self.stack = W.VBox(list(pages))
        self.buttons.observe(lambda change: self._show(change["new"]), names="index")
        self._show(self.buttons.index)
        super().__init__([self.buttons, self.stack])

    def _show(self, index: int | None) -> None:
        """Show page ``index``, hide the others.

        A shown page gets ``display: ""`` (the CSS default), never ``None``: the Pyodide kernel (JupyterLite) hands
        the page each message converted by ``PyProxy.toJs()``, which turns ``None`` into ``undefined`` rather than
        JSON's ``null``, and ipywidgets' LayoutView removes a style only for ``null`` (``undefined`` is ignored), so
        a tab set back to ``None`` stayed hidden there and its picture was never redrawn
        (tests/test_widget_messages.py).
        """
        for i, page in enumerate(self.stack.children):
            page.layout.display = "" if i == index else "none"

    @property
    def pages(self) -> tuple[W.Widget, ...]:
        """The views (with their legends), in button order."""
        return tuple(self.stack.children)

    def get_title(self, i: int) -> str:
        return self.titles[i]

    @property
    def selected_index(self) -> int | None:
        """The view shown (the method twin of clicking its button)."""
        return self.buttons.index  # type: ignore[no-any-return]

    @selected_index.setter
    def selected_index(self, i: int) -> None:
        self.buttons.index = i


class Dashboard(W.VBox):
    """Controller + caption + main picture + tabs of views + knobs (see :func:`default_views`).

    ``tab``: the tab open when the picture is shown (a view's title, e.g. ``"Topology"``), for a section whose text
    is about that view; default the first. A checkpoint still opens its own tab when it asks."""

    def __init__(
        self,
        make_lab: Callable[..., Lab],
        *,
        knobs: Mapping[str, Any] | None = None,
        knob_options: Mapping[str, Sequence[Any]] | None = None,
        horizon: int | str = "6h",
        run_ahead: bool = True,
        views: Sequence[SnapshotView] | None = None,
        checkpoints: Sequence[Checkpoint] = (),
        tab: str = "",
    ) -> None:
        super().__init__()
        self.make_lab = make_lab
        self.debug = W.Output(layout=W.Layout(max_height="12em", overflow="auto"))
        self.errors: list[str] = []
        options = dict(knob_options or {})
        self.knobs = {name: knob_widget(name, value, options.get(name)) for name, value in (knobs or {}).items()}
        self.rebuild_button = W.Button(
            description=_("Rebuild"),
            tooltip=_("rebuild the scenario with these knobs and rerun from t = 0"),
        )
        self.rebuild_button.on_click(guarded(self)(lambda _: self.rebuild()))
        self.controller = Controller(
            self._factory(), views=(), horizon=horizon, run_ahead=run_ahead, checkpoints=checkpoints
        )
        self.views = list(default_views() if views is None else views)
        if views is None and not _has_orderly_consumer(self.controller):  # no lock to show: no Locks tab
            self.views = [v for v in self.views if not isinstance(v, LeaseView)]
        if views is None and not _has_consumer(self.controller):  # no consumer: no ProcessQueues, no deliveries
            self.views = [v for v in self.views if not isinstance(v, OffsetStripView | RetryTimeline)]
        mains = [v for v in self.views if v.main]
        self.main_view: SnapshotView | None = mains[0] if mains else None
        self.tab_views = [v for v in self.views if v is not self.main_view]
        # only the main picture and the first tab get their frames at once; a hidden tab's come when it is opened
        self.controller.lazy_views = {id(v) for v in self.tab_views[1:]}
        for view in self.views:
            self.controller.attach(view)
            if id(view) not in self.controller.lazy_views:
                self.controller.send_frames(view)
        tabs = ViewTabs([_with_legend(v) for v in self.tab_views], [v.title for v in self.tab_views])
        tabs.buttons.observe(guarded(self)(self._on_tab), names="index")
        self.tabs = tabs
        if tab:  # the tab a section's text is about, open from the start (lab 00's cluster: Topology)
            if tab not in tabs.titles:
                raise ValueError(f"tab={tab!r} is not a tab of this dashboard; expected one of {list(tabs.titles)}")
            tabs.selected_index = tabs.titles.index(tab)
        knob_box = W.VBox(
            [W.HTML("<b>" + _("knobs") + "</b>"), *self.knobs.values(), self.rebuild_button],
            layout=W.Layout(min_width="18em", flex="0 1 auto"),
        )
        self.add_class("rq-dashboard")  # the page's player finds the tab a checkpoint asks about inside it
        self.children = (self.controller, *self._main(), tabs, self._below(knob_box), self.debug)

    def _main(self) -> tuple[W.Widget, ...]:
        """The main picture (with its legend), or nothing."""
        return () if self.main_view is None else (_with_legend(self.main_view),)

    def _below(self, knob_box: W.Widget) -> W.HBox:
        """What changes the run (fault buttons, the "every event" toggle, knobs), moved out of the controller to
        under the tabs: the player, the caption, a checkpoint's question, the picture and the tab the question is
        about must fit one screen together (a 1300 × 1000 JupyterLab window; issue #30's fold), and a question whose
        picture or tab is below the fold is answered blind. Wrapped: in a narrow output area the knobs go under the
        fault buttons instead of being cut off; a picture without knobs shows no "knobs" heading and no Rebuild."""
        faults, toggle = self.controller.fault_box, self.controller.every_event_box
        self.controller.children = tuple(c for c in self.controller.children if c is not faults and c is not toggle)
        shown = [faults, *([knob_box] if self.knobs else []), *([toggle] if toggle is not None else [])]
        return W.HBox(shown, layout=W.Layout(flex_flow="row wrap", align_items="flex-start"))

    def _on_tab(self, change: dict[str, Any]) -> None:
        """A tab opened: send its frames now (once per build)."""
        index = change["new"]
        if index is not None and 0 <= index < len(self.tab_views):
            self.controller.send_frames(self.tab_views[index])

    def static_html(self, *, tabs: bool = True) -> str:
        """The dashboard without a kernel, still playable: the player, the main picture, then every tab.

        This is what a notebook keeps when widget state is not stored (nbconvert, the docs site, a reader
        without a kernel) and what ``save_html`` writes: the run's frames are in the page
        (:func:`widgets.static_player.static_player_html`), so Step / Play / scrub / Jump and the checkpoints
        work from disk. JupyterLab and Voila draw the live widgets instead. Without frames (``run_ahead=False``):
        the current step's static SVG, text views as text. ``tabs=False``: the main picture and the Events table
        only (its frames are a few kB) — what a saved notebook keeps of each Dashboard, so a lab with a picture
        per section stays small.
        """
        kept = self.tab_views if tabs else [v for v in self.tab_views if isinstance(v, EventLog)]
        views = ([self.main_view] if self.main_view is not None else []) + kept
        frames = self.controller.frames
        if frames is not None:
            snap = self.controller.snapshot
            replay = self.controller.replay
            at = frames.index_of(
                self.controller.position, snap.now_ms if snap else None, ended=replay is not None and replay.at_end
            )
            fallback = f"<div>{self.controller.clock.value}</div>{self.controller.caption_html.value}"
            live = (self.controller.clock_text, self.controller.caption_lines)
            near = frames.near(self.controller.position)
            return static_player_html(frames, views, frame=at, fallback=fallback, near=near, live=live)
        parts = [
            '<div class="rq-static-dashboard" data-testid="rq-static-dashboard">',
            f"<div>{self.controller.clock.value}</div>",
            self.controller.caption_html.value,
        ]
        for v in views:
            parts.append(f"<h4>{html.escape(_(v.title))}</h4>")
            picture = v.static_html() if isinstance(v, SceneView) else ""
            parts.append(picture or f"<pre>{html.escape(v.text)}</pre>")
        parts.append("</div>")
        return "".join(parts)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle: dict[str, Any] = super()._repr_mimebundle_(**kwargs) or {}
        # the notebook keeps the player, the main picture and the Events table; the other tabs live in the kernel
        # (save_html keeps them all)
        bundle["text/html"] = self.static_html(tabs=False)
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
