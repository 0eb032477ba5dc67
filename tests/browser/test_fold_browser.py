"""The fold: at a checkpoint, a student sees the controls, the caption, the question, the picture and the tab the
question is about together, without scrolling (issue #30), in JupyterLab at 1300 × 1000 with its file browser open.

Per lab (03 and 05), after Run All: the first dashboard that asks a question is scrolled as a student scrolls to
it (its top at the top of the notebook), another tab is opened (as if the student had looked there), and the page is
stepped to the checkpoint's frame. Then the player's controls, the caption, the question's box, the message-flow
picture and, when the question names a tab, that tab's view (opened by the page when it asked) all lie inside the
part of the notebook the window shows (which is inside the 1300 × 1000 viewport). The checkpoints and their tabs
come from the lab's own code (``expectations.py``); nothing is hard-coded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import LABS, Server, require_chromium
from .expectations import CheckpointStop
from .pages import ROUND_TRIP_MS, DashboardOnPage, exact
from .test_labs_browser import OpenLab, open_and_run_all, shutdown_session

pytestmark = pytest.mark.browser

FOLD = {"width": 1300, "height": 1000}
NOTEBOOKS = sorted(p.name for p in LABS.glob("0[35]_*.ipynb"))
SCROLLER = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer"
"""The notebook's scrolled area: what of a cell the window shows."""


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=[n.removesuffix(".ipynb") for n in NOTEBOOKS])
def lab(request: pytest.FixtureRequest, jupyter: Server, browser: Any) -> Iterator[OpenLab]:
    """One notebook after Run All in a 1300 × 1000 window (its kernel and browser context closed afterwards)."""
    require_chromium()
    opened: OpenLab | None = None
    try:
        opened = open_and_run_all(jupyter, browser, request.param, viewport=FOLD)
        yield opened
    finally:
        try:
            shutdown_session(jupyter, request.param)
        finally:
            if opened is not None:
                opened.page.context.close()


def _first_question(lab: OpenLab) -> tuple[DashboardOnPage, CheckpointStop]:
    """The first dashboard that asks a question, and its first checkpoint."""
    for dash in lab.dashboards():
        if dash.expected.checkpoints:
            return dash, dash.expected.checkpoints[0]
    pytest.fail(f"{lab.name}: no dashboard asks a question")


def _box(loc: Any) -> dict[str, float]:
    box = loc.bounding_box(timeout=ROUND_TRIP_MS)
    assert box is not None, f"{loc} is not drawn"
    return dict(box)


def _outside(what: str, box: dict[str, float], area: dict[str, float]) -> str | None:
    """``what`` and how it sticks out of ``area`` (``None``: it lies inside)."""
    inside = (
        box["x"] >= area["x"] - 0.5
        and box["y"] >= area["y"] - 0.5
        and box["x"] + box["width"] <= area["x"] + area["width"] + 0.5
        and box["y"] + box["height"] <= area["y"] + area["height"] + 0.5
    )
    if inside:
        return None
    return f"{what}: y {box['y']:.0f}–{box['y'] + box['height']:.0f}, x {box['x']:.0f}–{box['x'] + box['width']:.0f}"


def test_controls_question_picture_and_its_tab_fit_one_screen(lab: OpenLab) -> None:
    """Paused at the first checkpoint, everything the question needs is on screen at 1300 × 1000."""
    from playwright.sync_api import expect

    dash, cp = _first_question(lab)
    dash.show()
    dash.button("Reset").click()
    dash.expect_frame(dash.expected.frames[0])
    titles = [t.strip() for t in dash.root.locator(".rq-view-tabs button").all_text_contents()]
    elsewhere = next(t for t in reversed(titles) if t != cp.tab)
    assert dash.open_tab(elsewhere)  # the student looked at another tab before the question came
    for n in range(1, cp.frame + 1):
        dash.button("Step").click()
        expect(dash.player).to_have_attribute("data-step", str(n), timeout=ROUND_TRIP_MS)
    expect(dash.question).to_contain_text(cp.question, timeout=ROUND_TRIP_MS)
    dash.root.evaluate("(e) => e.scrollIntoView({block: 'start'})")  # scrolled to, as a student reads it
    parts = {
        "player controls": dash.button("Step").locator("xpath=.."),
        "caption": dash.root.get_by_test_id("rmq-caption"),
        "question": dash.question,
        "picture": dash.flow,
    }
    if cp.tab:  # the page opened the tab the question is about
        tab = dash.root.locator(".rq-view-tabs button", has_text=exact(cp.tab))
        expect(tab).to_have_class(re.compile(r"\bmod-active\b"), timeout=ROUND_TRIP_MS)
        testid = next(s.testid for s in dash.expected.reset_scenes if s.title == cp.tab)
        parts[f"the {cp.tab} tab"] = dash.scene(testid)
        expect(dash.scene(testid)).to_be_visible(timeout=ROUND_TRIP_MS)
    area = _box(lab.page.locator(SCROLLER))
    assert area["y"] + area["height"] <= FOLD["height"] and area["x"] + area["width"] <= FOLD["width"]
    sticking_out = [s for what, loc in parts.items() if (s := _outside(what, _box(loc), area))]
    assert not sticking_out, (
        f"{lab.name} at {cp.name!r}: outside the notebook's visible area "
        f"(y {area['y']:.0f}–{area['y'] + area['height']:.0f}): {sticking_out}"
    )
    lab.check_clean()
