"""The tour served by Voila, as a reader without JupyterLab sees it: text and live widgets, no code.

Voila executes the notebook in a fresh kernel on every page request, so the page shows the state after
the whole notebook ran; the expected clock readout comes from running the same cells in this process.
"""

from __future__ import annotations

import re
import secrets
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import LABS, VIEWPORT, JsErrors, Server, free_port, require_chromium, start_server, stop_server
from .expectations import clock_readout, code_cells, run_cells

pytestmark = pytest.mark.browser

TOUR = "00_tour.ipynb"
PAGE_MS = 120_000  # Voila runs all cells before the widgets can render
ROUND_TRIP_MS = 20_000
# Voila's page links Font Awesome from a CDN, which these machines cannot resolve. Only the button icons
# go missing (the labels stay), so failed loads from that host are noise, not a broken lab.
CDN_NOISE = ("cdn.jsdelivr.net",)
# JupyterLab extensions of the teacher tools (jupytext pairing, nbgrader, and the notebook package nbgrader
# brings) need JupyterLab's document manager, which Voila's page does not provide: loaded there they throw
# "shared module is not a function". A dashboard needs none of them.
NOT_FOR_VOILA = ("jupyterlab-jupytext", "@jupyter/nbgrader", "@jupyter-notebook/lab-extension")


@pytest.fixture(scope="module")
def voila(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``voila 00_tour.ipynb`` on 127.0.0.1:<free port> with a temp token, default (lab) template."""
    require_chromium()
    home = tmp_path_factory.mktemp("voila-home")
    root = tmp_path_factory.mktemp("voila-root")
    shutil.copy2(LABS / TOUR, root / TOUR)
    token, port = secrets.token_hex(16), free_port()
    argv = [
        sys.executable,
        "-m",
        "voila",
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--Voila.port_retries=0",
        f"--token={token}",
        f"--VoilaConfiguration.extension_denylist={list(NOT_FOR_VOILA)!r}",
        str(root / TOUR),
    ]
    # No status API in Voila: any HTTP answer from a static path means it is listening.
    server = start_server(
        argv, home=home, root=root, token=token, port=port, ready_path="/voila/static/", any_status=True
    )
    try:
        yield server
    finally:
        stop_server(server)


@pytest.fixture(scope="module")
def tour_page(voila: Server, browser: Any) -> Iterator[tuple[Any, JsErrors]]:
    """The rendered tour, once its Dashboard's Step button is on screen."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = JsErrors(page, ignore_hosts=CDN_NOISE)
    try:
        page.goto(voila.url("/"), timeout=PAGE_MS)
        step_button(page).wait_for(state="visible", timeout=PAGE_MS)
        yield page, errors
    finally:
        context.close()


def step_button(page: Any) -> Any:
    return page.locator("button.widget-button", has_text=re.compile(r"^\s*Step\s*$"))


def test_tour_renders_text_and_widgets_without_code(tour_page: tuple[Any, JsErrors]) -> None:
    """Headings, printed tables and the Dashboard render; no code cell shows its source."""
    from playwright.sync_api import expect

    page, errors = tour_page
    ns, _ = run_cells(LABS / TOUR)
    expect(page.get_by_role("heading", name=re.compile(r"00 · A tour of rmqlab"))).to_be_visible()
    expect(page.get_by_role("heading", name=re.compile(r"Watch it step by step"))).to_be_visible()
    clock = page.locator("span[role=status]")
    expect(clock).to_have_text(clock_readout(ns["dash"].controller), timeout=ROUND_TRIP_MS)
    # The cell after the Dashboard prints the same readout as text.
    expect(page.locator(".jp-OutputArea-output pre", has_text=ns["dash"].controller.clock_text).first).to_be_visible()
    expect(page.locator(".js-plotly-plot").first).to_be_attached()
    expect(page.get_by_text("Error displaying widget")).to_have_count(0)
    expect(page.get_by_text(re.compile(r"Loading widget"))).to_have_count(0)
    expect(page.locator(".jp-CodeCell .jp-InputArea")).to_have_count(0)
    expect(page.locator(".cm-editor")).to_have_count(0)
    body = page.locator("body").inner_text()
    shown = [src.splitlines()[0] for _, src in code_cells(LABS / TOUR) if len(src.splitlines()[0]) > 12]
    leaked = [line for line in shown if line in body]
    assert not leaked, f"code visible in Voila: {leaked}"
    errors.check()


def test_tour_dashboard_is_live(tour_page: tuple[Any, JsErrors]) -> None:
    """Step in Voila reaches the kernel: the clock moves to the in-process controller's next readout."""
    from playwright.sync_api import expect

    page, errors = tour_page
    ns, _ = run_cells(LABS / TOUR)
    ctrl = ns["dash"].controller
    assert ctrl.step_once(), "the tour's dashboard is already at its end"
    step_button(page).click()
    expect(page.locator("span[role=status]")).to_have_text(clock_readout(ctrl), timeout=ROUND_TRIP_MS)
    errors.check()
