"""What the kernel sends the page: no widget update sets a trait to ``None``.

The Pyodide kernel of the zero-install site (JupyterLite) turns each message into JavaScript with
``PyProxy.toJs()``, which makes ``None`` ``undefined``, not JSON's ``null`` as a real kernel's wire does. The page
cannot tell ``undefined`` from "no value": ipywidgets' LayoutView removes a style only for ``null``, so a tab page
shown by setting ``layout.display = None`` stayed ``display: none`` under Pyodide, and its picture kept the frame it
was first drawn with (the tour's Space-time tab after ``goto_checkpoint``; tests/browser/test_lite.py). JupyterLab
and Voila, with a real kernel, showed it. Every route a student takes through a dashboard is driven here, without a
browser, and every update message is read as it leaves the kernel.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import ipywidgets as W
import pytest
from rmqlab.widgets.dashboard import Dashboard
from rmqlab.widgets.demo import DEMO_KNOB_OPTIONS, DEMO_KNOBS, demo_lab


def nones(value: Any, path: str) -> Iterator[str]:
    """The paths inside ``value`` (a message's state) that hold ``None``."""
    if value is None:
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from nones(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from nones(item, f"{path}[{i}]")


@pytest.fixture
def updates(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Every ``update`` message a widget sends from now on: (widget class, state)."""
    sent: list[tuple[str, dict[str, Any]]] = []
    send = W.Widget._send

    def recording(self: W.Widget, msg: dict[str, Any], buffers: Any = None) -> None:
        if msg.get("method") == "update":
            sent.append((type(self).__name__, msg["state"]))
        send(self, msg, buffers)

    monkeypatch.setattr(W.Widget, "_send", recording)
    return sent


def test_no_update_sets_a_trait_to_none(updates: list[tuple[str, dict[str, Any]]], no_running_loop: None) -> None:
    """Build, move (a Step, a seek between frames, a raw step), open every tab, rebuild with a knob, inject and
    clear a fault: the page is told every change, and none of them as ``None``."""
    knobs = {**DEMO_KNOBS, "messages": 1}  # a short run: what is sent matters here, not how much
    dash = Dashboard(demo_lab, knobs=knobs, knob_options=DEMO_KNOB_OPTIONS, horizon="20s")
    ctl = dash.controller
    ctl.step_once()
    assert ctl.frames is not None
    ctl.seek(ctl.frames.positions[3])  # as goto_checkpoint does
    for i in range(len(dash.tab_views)):
        dash.tabs.selected_index = i
    dash.tabs.selected_index = 0
    dash.rebuild(messages=2)
    ctl.every_event.value = True
    ctl.step_once()
    ctl.every_event.value = False
    ctl.inject("broker_down", "broker-a")
    ctl.clear_faults()

    kinds = {cls for cls, _ in updates}
    assert {"Layout", "SceneWidget", "PlayerWidget"} <= kinds  # tabs shown and hidden, frames, the player moved
    shown = [state["display"] for cls, state in updates if cls == "Layout" and "display" in state]
    assert "" in shown and "none" in shown
    frames = [state["frames"] for cls, state in updates if cls == "SceneWidget" and state.get("frames")]
    assert len(frames) >= len(dash.tab_views)  # every tab's frames, once opened
    found = [f"{cls}{path}" for cls, state in updates for path in nones(state, "")]
    assert found == []


def test_a_tab_shown_again_is_shown_with_the_css_default() -> None:
    """Show, hide, show: the page's display goes "" → "none" → "" (each a change the page is sent)."""
    dash = Dashboard(demo_lab, horizon="5s")
    tabs = dash.tabs
    assert [page.layout.display for page in tabs.pages] == ["", *["none"] * (len(tabs.pages) - 1)]
    tabs.selected_index = 1
    assert [page.layout.display for page in tabs.pages][:2] == ["none", ""]
    tabs.selected_index = 0
    assert [page.layout.display for page in tabs.pages][:2] == ["", "none"]
