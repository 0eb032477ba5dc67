"""The message-flow view live in JupyterLab and in Voila: tokens travel on Step, exactly where the kernel says.

One small notebook (written into the server's temp root, never into labs/) shows a Controller and a
FlowView over ``demo_lab(messages=3)``. The engine is deterministic, so this process replays the same
factory to the position the widget reports (its root's ``data-position``) and computes the view-model
and scene the kernel computed; the drawn tokens (``g[data-role=token]`` not ``[data-leaving]``) must carry
exactly those keys and ``transform`` attributes. Each Step is awaited on the root's ``data-frame``
counter, never on a sleep.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from rmqlab.widgets.demo import demo_lab
from rmqlab.widgets.flow_view import FlowVM, flow_scene, flow_view_model
from rmqlab.widgets.replay import Replay
from rmqlab.widgets.scene import _num
from test_flow_view import engine_places, vm_places  # tests/ is on sys.path (pytest prepend import mode)

from .conftest import (
    VIEWPORT,
    VOILA_CDN_NOISE,
    JsErrors,
    Server,
    require_chromium,
    run_all_in_jupyterlab,
    start_voila,
    stop_server,
)

pytestmark = pytest.mark.browser

NOTEBOOK = "flow_view_check.ipynb"
START = 12
"""Where the notebook's controller starts: M0001 is in a ProcessQueue, about to fail and travel."""
VOILA_AT = 33
"""Where the Voila copy starts: three tokens (one just back from level 3, two consumed)."""
STEPS = 8
ROUND_TRIP_MS = 20_000
PAGE_MS = 120_000
LABEXTENSION_NOISE = re.compile(r"#RUNTIME-012|Shared module @jupyterlab/\S+ doesn't exist in shared scope")
"""Voila cannot host some JupyterLab-only extensions installed next to it (jupytext, nbgrader, notebook's
lab-extension): module federation logs these while loading them. They are not this page's widgets."""

TOKENS_JS = """(root) => Object.fromEntries([...root.querySelectorAll('g[data-role=token]:not([data-leaving])')]
  .map(g => [g.getAttribute('data-key'), g.getAttribute('transform')]))"""


def write_notebook(path: Path, start: int) -> None:
    """Controller + FlowView over the demo lab, moved to position ``start``."""
    cells = [
        nbformat.v4.new_code_cell(
            "import ipywidgets as W\n"
            "from rmqlab.widgets.controller import Controller\n"
            "from rmqlab.widgets.demo import demo_lab\n"
            "from rmqlab.widgets.flow_view import FlowView"
        ),
        nbformat.v4.new_code_cell(
            "view = FlowView()\n"
            "ctl = Controller(lambda: demo_lab(messages=3), views=[view], run_ahead=False)\n"
            f"ctl.seek({start})\n"
            "W.VBox([ctl, view])"
        ),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def expected_at(position: int) -> tuple[FlowVM, dict[str, str], Replay]:
    """The view-model and token transforms the kernel computed at ``position`` (same factory, same steps)."""
    replay = Replay(lambda: demo_lab(messages=3))
    replay.seek(position)
    assert replay.position == position
    vm = flow_view_model(replay.snapshot())
    scene = flow_scene(vm)
    tokens = {m.key: f"translate({_num(m.x)},{_num(m.y)})" for m in scene.marks if m.role == "token"}
    return vm, tokens, replay


def drawn(root: Any) -> tuple[int, int, dict[str, str]]:
    """(frame, position, token key → transform) as the browser shows them now."""
    frame = int(root.get_attribute("data-frame") or 0)
    position = int(root.get_attribute("data-position") or -1)
    return frame, position, root.evaluate(TOKENS_JS)


def assert_matches_kernel(root: Any) -> dict[str, str]:
    """Drawn tokens equal the kernel's scene at the drawn position, and the engine's messages per place."""
    _, position, tokens = drawn(root)
    vm, expected, replay = expected_at(position)
    assert tokens == expected
    assert vm_places(vm) == engine_places(replay.lab)
    return tokens


@pytest.fixture(scope="module")
def flow_page(jupyter: Server, browser: Any) -> Iterator[tuple[Any, Any, JsErrors]]:
    """The notebook open in JupyterLab after Run All: (page, the flow view's root, JS errors)."""
    from playwright.sync_api import expect

    write_notebook(jupyter.root / NOTEBOOK, START)
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = JsErrors(page)
    try:
        panel = run_all_in_jupyterlab(page, jupyter, NOTEBOOK)
        root = panel.locator(".rq-scene[data-testid=rq-flow]")
        root.scroll_into_view_if_needed(timeout=ROUND_TRIP_MS)
        expect(root).to_have_attribute("data-position", str(START), timeout=ROUND_TRIP_MS)
        yield page, root, errors
    finally:
        for session in jupyter.api("GET", "/api/sessions"):
            if session.get("path") == NOTEBOOK:
                jupyter.api("DELETE", f"/api/sessions/{session['id']}")
        context.close()


def step_button(scope: Any) -> Any:
    return scope.locator("button.widget-button", has_text=re.compile(r"^\s*Step\s*$"))


def test_first_frame_matches_the_kernel(flow_page: tuple[Any, Any, JsErrors]) -> None:
    _, root, errors = flow_page
    tokens = assert_matches_kernel(root)
    assert tokens, "the start position has a message in flight"
    errors.check()


def test_step_moves_tokens_to_where_the_kernel_put_them(flow_page: tuple[Any, Any, JsErrors]) -> None:
    """Each Step draws a new frame; tokens that moved carry the kernel's new transform; counts match the engine."""
    page, root, errors = flow_page
    moved: set[str] = set()
    before = assert_matches_kernel(root)
    for _ in range(STEPS):
        frame, position, _ = drawn(root)
        step_button(page).click()
        page.wait_for_function(
            "([el, f, p]) => +el.dataset.frame > f && +el.dataset.position > p",
            arg=[root.element_handle(), frame, position],
            timeout=ROUND_TRIP_MS,
        )
        after = assert_matches_kernel(root)
        moved |= {k for k in after if k in before and before[k] != after[k]}
        before = after
    assert moved, "no token travelled in eight steps"
    errors.check()


def test_screenshots_light_and_dark(flow_page: tuple[Any, Any, JsErrors], screenshot_dir: Path) -> None:
    """The live view in both themes (artifacts/screenshots/flow-*.png); the dark theme really applies."""
    page, root, errors = flow_page
    root.screenshot(path=str(screenshot_dir / "flow-light.png"))
    page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Dark'})")
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=ROUND_TRIP_MS)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=ROUND_TRIP_MS)  # the theme-change splash
    text_fill = root.locator("text[data-key=title]").evaluate("t => getComputedStyle(t).fill")
    assert text_fill != "rgb(31, 31, 31)", "title still drawn in the light theme's colour"
    root.screenshot(path=str(screenshot_dir / "flow-dark.png"))
    page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Light'})")
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'", timeout=ROUND_TRIP_MS)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=ROUND_TRIP_MS)
    errors.check()


# --------------------------------------------------------------------------- Voila
@pytest.fixture(scope="module")
def voila_flow(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[tuple[Any, JsErrors]]:
    """Voila serving the same notebook (moved to VOILA_AT), rendered in a fresh page."""
    require_chromium()
    home = tmp_path_factory.mktemp("voila-flow-home")
    root = tmp_path_factory.mktemp("voila-flow-root")
    write_notebook(root / NOTEBOOK, VOILA_AT)
    server = start_voila(root / NOTEBOOK, home=home, root=root)
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = JsErrors(page, ignore_hosts=VOILA_CDN_NOISE)
    try:
        page.goto(server.url("/"), timeout=PAGE_MS)
        yield page, errors
    finally:
        context.close()
        stop_server(server)


def test_voila_draws_the_flow_on_load(voila_flow: tuple[Any, JsErrors]) -> None:
    """Without JupyterLab the view is drawn at once: as many tokens as the engine has messages, at their places."""
    from playwright.sync_api import expect

    page, errors = voila_flow
    root = page.locator(".rq-scene[data-testid=rq-flow]")
    expect(root).to_have_attribute("data-position", str(VOILA_AT), timeout=PAGE_MS)
    vm, expected, _ = expected_at(VOILA_AT)
    tokens = root.locator("g[data-role=token]:not([data-leaving])")
    expect(tokens).to_have_count(len(vm.tokens), timeout=ROUND_TRIP_MS)
    assert len(vm.tokens) == 3
    assert root.evaluate(TOKENS_JS) == expected
    assert root.locator("[data-role=label]").count() > 20
    errors.messages = [m for m in errors.messages if not LABEXTENSION_NOISE.search(m)]
    errors.check()
