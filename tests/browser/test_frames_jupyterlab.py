"""Frames in the page, live in JupyterLab: with the kernel's websocket blocked after the dashboard loaded, Step
still moves the picture and the Events table (to the kernel's own frames); a checkpoint asks and answers in the
picture; screenshots in the light and the dark theme (artifacts/screenshots/frames-*.png)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from rmqlab.widgets import Checkpoint, Dashboard, demo_lab
from rmqlab.widgets.scene import SceneView

from .conftest import KERNEL_IDLE_JS, VIEWPORT, JsErrors, Server, run_all_in_jupyterlab

pytestmark = pytest.mark.browser

NOTEBOOK = "frames_check.ipynb"
WAIT_MS = 20_000
SETUP = (
    "from rmqlab.widgets import Checkpoint, Dashboard, demo_lab\n"
    "dash = Dashboard(lambda: demo_lab(listener='fail_all', max_reconsume_times=1), horizon='2m',\n"
    "                 checkpoints=[Checkpoint(before='send_back', nth=2, ask='where')])\n"
    "dash"
)
TOKENS_JS = """(root) => Object.fromEntries([...root.querySelectorAll('g[data-role=token]:not([data-leaving])')]
  .map(g => [g.getAttribute('data-key'), g.getAttribute('transform')]))"""


def same_dashboard() -> Dashboard:
    """The notebook's dashboard, built here: the engine is deterministic, so its frames are the kernel's."""
    return Dashboard(
        lambda: demo_lab(listener="fail_all", max_reconsume_times=1),
        horizon="2m",
        checkpoints=[Checkpoint(before="send_back", nth=2, ask="where")],
    )


class Gate:
    """The kernel's websocket through Playwright: forwarded both ways until :meth:`block`."""

    def __init__(self) -> None:
        self.blocked = False
        self.dropped = 0

    def handle(self, ws: Any) -> None:
        server = ws.connect_to_server()

        def to_server(message: Any) -> None:
            if self.blocked:
                self.dropped += 1
            else:
                server.send(message)

        def to_page(message: Any) -> None:
            if not self.blocked:
                ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    def block(self) -> None:
        self.blocked = True


@pytest.fixture(scope="module")
def opened(jupyter: Server, browser: Any) -> Iterator[tuple[Any, Any, Gate, JsErrors]]:
    from playwright.sync_api import expect

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SETUP)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, jupyter.root / NOTEBOOK)
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    gate = Gate()
    page.route_web_socket("**/api/kernels/**", gate.handle)
    errors = JsErrors(page)
    try:
        panel = run_all_in_jupyterlab(page, jupyter, NOTEBOOK)
        player = panel.get_by_test_id("rq-player")
        player.scroll_into_view_if_needed(timeout=WAIT_MS)
        expect(player).to_have_attribute("data-step", "0", timeout=WAIT_MS)
        yield page, panel, gate, errors
    finally:
        for session in jupyter.api("GET", "/api/sessions"):
            if session.get("path") == NOTEBOOK:
                jupyter.api("DELETE", f"/api/sessions/{session['id']}")
        context.close()


def test_buttons_have_names_and_the_caption_is_live(opened: tuple[Any, Any, Gate, JsErrors]) -> None:
    _, panel, _, errors = opened
    texts = panel.evaluate("(p) => [...p.querySelectorAll('button')].map(b => b.textContent.trim())")
    for name in ("Reset", "Step back", "Step", "Play", "Jump", "Crash broker", "Clear faults"):
        assert panel.get_by_role("button", name=name, exact=True).count() >= 1, (name, texts)
    assert panel.get_by_role("button", name="Rebuild", exact=True).count() == 0, texts  # no knobs: nothing to rebuild
    nameless = panel.evaluate(
        "(p) => [...p.querySelectorAll('button')].filter(b => !(b.getAttribute('aria-label') || "
        "b.getAttribute('title') || b.textContent.trim())).map(b => b.outerHTML.slice(0, 80))"
    )
    assert nameless == []
    assert panel.get_by_test_id("rmq-caption").first.get_attribute("aria-live") == "polite"
    errors.check()


def test_svg_text_is_at_least_11_px_at_the_notebooks_width(opened: tuple[Any, Any, Gate, JsErrors]) -> None:
    from .test_static_player import TEXT_PX_JS

    page, _, _, errors = opened
    sizes = page.evaluate(TEXT_PX_JS)  # the shown pictures (a hidden tab's have no screen matrix)
    assert len(sizes) > 50
    assert [(key, round(px, 1)) for key, px in sizes if px < 10.95] == []
    errors.check()


def test_a_hidden_tab_skips_the_steps_and_draws_the_current_one_when_shown(
    opened: tuple[Any, Any, Gate, JsErrors],
) -> None:
    """A picture in a hidden tab does not draw the Steps it misses (no style or layout work for it); opened again it
    draws the frame the run is at, the kernel's scene of that step."""
    page, panel, _, errors = opened
    dash = same_dashboard()
    frames = dash.controller.frames
    spacetime = dash.view("Space-time")
    assert frames is not None and isinstance(spacetime, SceneView)
    scenes = frames.scenes(spacetime)
    tabs = panel.locator(".rq-view-tabs button")
    picture = panel.locator(".rq-scene[data-testid=rq-spacetime]")
    player = panel.get_by_test_id("rq-player")
    tabs.filter(has_text="Space-time").click()  # its frames come from the kernel now
    page.wait_for_function("(p) => p.getAttribute('data-step') === '0'", arg=picture.element_handle(), timeout=WAIT_MS)
    tabs.filter(has_text="Events").click()
    page.wait_for_function("(p) => !p.checkVisibility()", arg=picture.element_handle(), timeout=WAIT_MS)
    drawn = picture.get_attribute("data-frame")
    for k in (1, 2):
        panel.get_by_role("button", name="Step", exact=True).click()
        page.wait_for_function(
            f"(p) => p.getAttribute('data-step') === '{k}'", arg=player.element_handle(), timeout=WAIT_MS
        )
    assert (picture.get_attribute("data-step"), picture.get_attribute("data-frame")) == ("0", drawn)
    tabs.filter(has_text="Space-time").click()
    page.wait_for_function("(p) => p.getAttribute('data-step') === '2'", arg=picture.element_handle(), timeout=WAIT_MS)
    keys = picture.evaluate(
        "(p) => [...p.querySelectorAll('svg [data-key]:not([data-leaving])')]"
        ".filter(n => !n.parentElement.closest('[data-key]')).map(n => n.getAttribute('data-key'))"
    )
    assert keys == list(scenes[2].keys())
    panel.get_by_role("button", name="Reset", exact=True).click()  # the next test starts at the run's start
    page.wait_for_function("(p) => p.getAttribute('data-step') === '0'", arg=player.element_handle(), timeout=WAIT_MS)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=WAIT_MS)
    errors.check()


def test_with_the_kernel_cut_off_step_still_moves_the_picture(
    opened: tuple[Any, Any, Gate, JsErrors], screenshot_dir: Path
) -> None:
    page, panel, gate, errors = opened
    dash = same_dashboard()
    frames = dash.controller.frames
    assert frames is not None and isinstance(dash.main_view, SceneView)
    scenes = frames.scenes(dash.main_view)
    page.screenshot(path=str(screenshot_dir / "frames-first-light.png"))
    # the Events tab opened while the kernel answers: its frames come then; after that it steps without the kernel
    events = [dash.view("Events").model(snap) for snap in frames.snapshots]
    panel.locator(".rq-view-tabs button", has_text="Events").click()
    table = panel.locator(".rq-table-view")
    page.wait_for_function(
        f"(t) => t.getAttribute('data-frames') === '{len(frames)}'", arg=table.element_handle(), timeout=WAIT_MS
    )
    gate.block()
    player = panel.get_by_test_id("rq-player")
    root = panel.locator(".rq-scene[data-testid=rq-flow]")
    for k in (1, 2, 3):
        panel.get_by_role("button", name="Step", exact=True).click()
        page.wait_for_function(
            f"(p) => p.getAttribute('data-step') === '{k}'", arg=player.element_handle(), timeout=WAIT_MS
        )
        expected = {m.key: f"translate({_num(m.x)},{_num(m.y)})" for m in scenes[k].marks if m.role == "token"}
        assert root.evaluate(TOKENS_JS) == expected, k
        assert panel.get_by_test_id("rq-clock").inner_text() == frames.clock(k)
        assert table.get_attribute("data-step") == str(k)
        keys = table.evaluate("(t) => [...t.querySelectorAll('tbody tr')].map(r => r.getAttribute('data-key'))")
        assert keys == [f"row:{r.seq}" for r in events[k].rows], k
        summary = table.locator(".rq-table-summary").inner_text()
        assert summary == f"{events[k].matched} of {events[k].total} events"
    # the page tells the kernel its position once the burst of Steps has settled; the message goes nowhere
    for _ in range(WAIT_MS // 50):
        if gate.dropped:
            break
        page.wait_for_timeout(50)  # lets Playwright dispatch the websocket's messages to the gate
    assert gate.dropped >= 1
    errors.check()


def _num(v: float) -> str:
    from rmqlab.widgets.scene import _num as num

    return num(v)


def test_a_checkpoint_asks_and_answers_in_the_picture(
    opened: tuple[Any, Any, Gate, JsErrors], screenshot_dir: Path
) -> None:
    from playwright.sync_api import expect

    page, panel, _, errors = opened
    dash = same_dashboard()
    (cp,) = dash.controller.checkpoints
    panel.get_by_role("button", name="Play", exact=True).click()
    ask = panel.get_by_test_id("rq-checkpoint")
    ask.wait_for(state="visible", timeout=WAIT_MS)
    assert panel.get_by_test_id("rq-player").get_attribute("data-step") == str(cp.frame)
    ask.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "frames-checkpoint-asked-light.png"))
    wrong = next(c for c in cp.choices if c.key != cp.answer)
    ask.get_by_role("button", name=wrong.label, exact=True).click()
    expect(panel.get_by_test_id("rq-feedback")).to_contain_text("Not quite. Hint:")
    right = next(c for c in cp.choices if c.key == cp.answer)
    place = panel.locator(f'.rq-scene [data-choice="{right.key}"]')
    assert place.count() >= 1, f"{right.key} is no place in the picture"  # a placeholder until its first write
    place.first.click()
    expect(panel.get_by_test_id("rq-feedback")).to_have_text(cp.explain)
    page.screenshot(path=str(screenshot_dir / "frames-checkpoint-answered-light.png"))
    page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Dark'})")
    page.wait_for_timeout(1500)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=WAIT_MS)
    last = str(len(dash.controller.frames or []) - 1)
    page.wait_for_function(
        f"(p) => p.getAttribute('data-step') === '{last}'",
        arg=panel.get_by_test_id("rq-player").element_handle(),
        timeout=60_000,
    )
    panel.get_by_test_id("rq-player").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "frames-late-dark.png"))
    panel.get_by_role("button", name="Reset", exact=True).click()
    page.screenshot(path=str(screenshot_dir / "frames-first-dark.png"))
    page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Light'})")
    errors.check()
