"""Labs served by Voila, as a reader without JupyterLab sees them: text and live widgets, no code.

One Voila server serves a temp copy of the tour and of the orderly-locks lab (the one whose dashboard
draws the most kinds of mark: leases, locks, retries). Voila executes the notebook in a fresh kernel on
every page request, so the page shows the state after the whole notebook ran; ``expectations.py`` runs
the same cells in this process and gives that state: the clock, the caption, and every scene view's
marks (FlowView tokens with their positions, arrows, lanes, leases …), which must all be *drawn* on load,
not just their containers.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import LABS, VIEWPORT, VOILA_CDN_NOISE, JsErrors, Server, require_chromium, start_voila, stop_server
from .expectations import code_cells, lab_expectations
from .pages import DashboardOnPage, dashboards_on, exact

pytestmark = pytest.mark.browser


def _one(pattern: str) -> Path:
    found = sorted(LABS.glob(pattern))
    assert len(found) == 1, f"labs/{pattern} matches {[p.name for p in found]}; expected one notebook"
    return found[0]


TOUR = _one("00_*.ipynb")
SERVED = (TOUR, _one("07a_*.ipynb"))
PAGE_MS = 180_000  # Voila runs all cells before the widgets can render


@pytest.fixture(scope="module")
def voila(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``voila <dir>`` on 127.0.0.1:<free port> with a temp token, serving copies of the SERVED labs."""
    require_chromium()
    home = tmp_path_factory.mktemp("voila-home")
    root = tmp_path_factory.mktemp("voila-root")
    for nb in SERVED:
        shutil.copy2(nb, root / nb.name)
    server = start_voila(root, home=home, root=root)
    try:
        yield server
    finally:
        stop_server(server)


class VoilaPage:
    """One rendered notebook and its JavaScript errors."""

    def __init__(self, page: Any, errors: JsErrors, path: Path) -> None:
        self.page, self.errors, self.path = page, errors, path

    def dashboards(self) -> list[DashboardOnPage]:
        return dashboards_on(self.page, self.page, lab_expectations(self.path), self.path.name)


@pytest.fixture(scope="module", params=SERVED, ids=[p.stem for p in SERVED])
def rendered(request: pytest.FixtureRequest, voila: Server, browser: Any) -> Iterator[VoilaPage]:
    """The notebook rendered by Voila, once its first dashboard's Step button is on screen."""
    path: Path = request.param
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = JsErrors(page, ignore_hosts=VOILA_CDN_NOISE)
    try:
        page.goto(voila.url(f"/voila/render/{path.name}"), timeout=PAGE_MS)
        page.locator("button", has_text=exact("Step")).first.wait_for(state="visible", timeout=PAGE_MS)
        yield VoilaPage(page, errors, path)
    finally:
        context.close()


def test_every_view_is_drawn_on_load(rendered: VoilaPage) -> None:
    """Each dashboard shows the kernel's clock and caption, and every scene view draws the kernel's marks."""
    from playwright.sync_api import expect

    page = rendered.page
    dashboards = rendered.dashboards()
    assert dashboards, f"{rendered.path.name} displays no dashboard"
    for dash in dashboards:
        exp = dash.expected
        dash.show()
        dash.expect_frame(exp.on_load)  # clock, caption, FlowView tokens at the kernel's positions, counts
        dash.expect_scenes_as_opened(exp.on_load_scenes)  # every view, each tab once opened: same keys, same roles
        for scene in exp.on_load_scenes:  # the comparison above is not vacuous: each view draws something
            assert len(scene.roles) > 0, f"{scene.testid} draws nothing on load"
        flow = next(s for s in exp.on_load_scenes if s.testid == "rq-flow").role_counts()
        assert flow.get("arrow", 0) > 0, f"the on-load flow draws no arrow: {flow}"
    expect(page.get_by_text("Error displaying widget")).to_have_count(0)
    expect(page.get_by_text(re.compile(r"Loading widget"))).to_have_count(0)
    rendered.errors.check()


def test_no_code_is_shown(rendered: VoilaPage) -> None:
    """Voila shows text and outputs only: no input area, no editor, no line of any code cell."""
    from playwright.sync_api import expect

    page = rendered.page
    expect(page.locator(".jp-CodeCell .jp-InputArea")).to_have_count(0)
    expect(page.locator(".cm-editor")).to_have_count(0)
    body = page.locator("body").inner_text()
    shown = [src.splitlines()[0] for _, src in code_cells(rendered.path) if src and len(src.splitlines()[0]) > 12]
    leaked = [line for line in shown if line in body]
    assert not leaked, f"code visible in Voila: {leaked}"
    if rendered.path == TOUR:
        expect(page.get_by_role("heading", name=re.compile(r"00 · A tour of rmqlab"))).to_be_visible()
    rendered.errors.check()


def test_dashboard_is_live(rendered: VoilaPage) -> None:
    """Step in Voila reaches the kernel: the next frame (clock, caption, tokens) is the in-process controller's."""
    dash = rendered.dashboards()[0]
    step = dash.expected.after_load_step
    assert step is not None, f"{rendered.path.name}: the dashboard is already at its end on load"
    dash.show()
    cp = dash.expected.checkpoint_at(int(dash.flow.get_attribute("data-step") or -1))  # the step shown on load
    if cp is not None:  # the lab left its picture on a checkpoint: Step is held until the student answers it
        dash.button("Step").click()
        dash.answer_checkpoint(cp)
    dash.button("Step").click()
    dash.expect_frame(step)
    rendered.errors.check()
