"""The message-flow picture fits its output area in JupyterLab at 1300 × 1000 with the file browser open: lab 06's
tiny run (two brokers, a producer, a consumer column) drew its consumer column past the output's right edge (revF 8).
The picture scales down to the output's width (``max-width: 100%`` over its viewBox), but no further than
:data:`widgets.scene` 's floor, which keeps its 11 px text readable."""

from __future__ import annotations

import pytest

from .conftest import require_chromium
from .pages import ROUND_TRIP_MS
from .test_fold_browser import FOLD
from .test_labs_browser import open_and_run_all, shutdown_session

pytestmark = pytest.mark.browser

NOTEBOOK = "06_ordered_send.ipynb"


def test_a_two_broker_picture_lies_inside_its_output(jupyter: object, browser: object) -> None:
    from playwright.sync_api import expect

    require_chromium()
    lab = open_and_run_all(jupyter, browser, NOTEBOOK, viewport=FOLD)  # type: ignore[arg-type]
    try:
        dash = lab.dashboards()[0]
        dash.show()
        dash.button("Reset").click()
        dash.expect_frame(dash.expected.frames[0])
        dash.button("Step").click()  # its question's frame: the picture draws the places it offers, and widens
        expect(dash.question).to_be_visible(timeout=ROUND_TRIP_MS)
        svg = dash.flow.locator(":scope > svg")
        output = dash.flow.locator("xpath=ancestor::div[contains(@class, 'jp-OutputArea-output')][1]")
        picture, area = svg.bounding_box(), output.bounding_box()
        assert picture is not None and area is not None
        drawn = float(svg.get_attribute("width") or 0)
        assert drawn > area["width"], (drawn, area)  # the run is wider than the output: the case this pins
        right, edge = picture["x"] + picture["width"], area["x"] + area["width"]
        assert right <= edge + 0.5, f"the picture ends at x {right:.0f}, its output at {edge:.0f}"
        assert picture["width"] >= 0.85 * drawn - 0.5  # scaled, not shrunk past readable text
        lab.check_clean()
    finally:
        try:
            shutdown_session(jupyter, NOTEBOOK)  # type: ignore[arg-type]
        finally:
            lab.page.context.close()
