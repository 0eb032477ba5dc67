"""The dashboard's view tabs switch on a real mouse click in JupyterLab, under its default windowing (issue 30).

Lab 07's dashboard sits 76 cells down: after Run All it is rendered off screen, and JupyterLab's windowed notebook
attached it without Lumino's attach message, so ``ipywidgets.Tab``'s bar had no listener and ignored every click
(labs 03 and 05, whose dashboards render on screen, worked). The dashboard now uses toggle buttons
(:class:`rmqlab.widgets.dashboard.ViewTabs`, every page drawn, the others hidden). Here a student's clicks: scroll
to the dashboard, click each view's button with the mouse, and the view shown must change to that one (its picture
visible, every other page hidden).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import LABS, Server, require_chromium
from .pages import DASHBOARD, ROUND_TRIP_MS, exact
from .test_labs_browser import open_and_run_all, shutdown_session

pytestmark = pytest.mark.browser

SHOWN = {
    "ProcessQueues": ".rq-scene[data-testid='rq-offset-strip']",
    "Space-time": ".rq-scene[data-testid='rq-spacetime']",
    "Retry timeline": ".rq-scene[data-testid='rq-retry-timeline']",
    "Topology": ".rq-scene[data-testid='rq-topology']",
    "Locks": ".rq-scene[data-testid='rq-lease-view']",
    "Events": "table.rmq-events",
}
"""What each view draws (the picture a student looks for after the click)."""
ACTIVE = re.compile(r"\bmod-active\b")
"""The class ipywidgets gives the selected toggle button."""


@pytest.mark.parametrize("name", ["07a_orderly_locks.ipynb", "05_offsets_process_queue.ipynb"])
def test_each_view_button_switches_the_view_on_a_real_click(jupyter: Server, browser: Any, name: str) -> None:
    from playwright.sync_api import expect

    require_chromium()
    assert (LABS / name).exists(), f"{name} is not a lab any more: name the labs whose dashboards have view tabs"
    lab = open_and_run_all(jupyter, browser, name)
    try:
        dash = lab.panel.locator(DASHBOARD).last
        dash.scroll_into_view_if_needed(timeout=ROUND_TRIP_MS)
        # lab 05 has no orderly consumer: no lock to show, no Locks tab (widgets.dashboard._has_orderly_consumer)
        shown = {title: sel for title, sel in SHOWN.items() if title != "Locks" or name.startswith("07a")}
        buttons = dash.locator(".rq-view-tabs button")
        expect(buttons).to_have_count(len(shown), timeout=ROUND_TRIP_MS)
        # wait on the labels: JupyterLab's windowing may not have laid the row out yet (inner texts then read "")
        expect(buttons).to_have_text(list(shown), timeout=ROUND_TRIP_MS)
        for title in reversed(shown):  # from the last: the first is shown on load, so every click must change it
            button = dash.locator(".rq-view-tabs button", has_text=exact(title))
            button.scroll_into_view_if_needed(timeout=ROUND_TRIP_MS)
            button.click()  # Playwright's mouse: move, press, release over the button, as a student's click
            expect(button).to_have_class(ACTIVE, timeout=ROUND_TRIP_MS)
            expect(dash.locator(shown[title]).first).to_be_visible(timeout=ROUND_TRIP_MS)
            for other, selector in shown.items():
                if other != title:
                    expect(dash.locator(selector).first).to_be_hidden(timeout=ROUND_TRIP_MS)
        lab.check_clean()
    finally:
        shutdown_session(jupyter, name)
        lab.page.context.close()
