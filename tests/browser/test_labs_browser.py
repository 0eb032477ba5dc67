"""Every lab, opened in JupyterLab in headless Chromium and run as a student runs it (Run ▸ Run All Cells).

Per notebook (one kernel, reused by the four tests below, shut down through the REST API afterwards):

1. all cells run: every code cell gets an execution number, the kernel goes idle, no cell shows an error
   or stderr, no widget is left "Loading widget…" or shows "Error displaying widget", and the page logged no
   JavaScript error;
2. the Dashboard's Step button moves the clock readout and the ProcessQueue TreeMap text exactly as the
   in-process controller does (see ``expectations.py``);
3. Play advances the clock, Pause stops it, Reset returns to t = 0;
4. scrubbing to the end draws, in the plotly retry timeline, as many delivery marks as the engine recorded
   DELIVERED events for that scenario; a screenshot of the dashboard goes to artifacts/screenshots/.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from widgets.retry_timeline import message_count

from .conftest import LABS, ROOT, VIEWPORT, JsErrors, Server, require_chromium
from .expectations import DashboardExpectation, dashboard_expectation

pytestmark = pytest.mark.browser

NOTEBOOKS = sorted(p.name for p in LABS.glob("*.ipynb"))
README_SHOT = "03_delay_levels_schedule.ipynb"
"""The lab whose dashboard screenshot becomes docs/dashboard.png (one long retry lane: the clearest picture)."""
FIRST_KERNEL_MS = 90_000  # first kernel of the session on 2 busy cores
RUN_ALL_MS = 120_000
ROUND_TRIP_MS = 20_000  # click → kernel → widget update, with a kernel busy on another notebook's teardown

ERROR_OUTPUTS_JS = """() => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  const found = [];
  nb.widgets.forEach((cell, i) => {
    const outs = cell.model.outputs;
    if (!outs) return;
    for (let j = 0; j < outs.length; j++) {
      const o = outs.get(j).toJSON();
      if (o.output_type === 'error') found.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
      if (o.output_type === 'stream' && o.name === 'stderr') found.push(`cell ${i} stderr: ${o.text}`);
    }
  });
  return found;
}"""
ALL_NUMBERED_JS = """() => {
  const p = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')];
  return p.length > 0 && p.every(e => /\\[\\d+\\]/.test(e.textContent));
}"""
KERNEL_IDLE_JS = "() => window.jupyterapp.shell.currentWidget.sessionContext.kernelDisplayStatus === 'idle'"
DELIVERED_TOKENS_JS = """(root) => root.querySelectorAll('g[data-role="delivery"]:not([data-leaving])').length"""
"""Numbered delivery tokens the retry timeline's SVG draws (marks fading out do not count)."""


@dataclass
class OpenLab:
    """One notebook open in its own browser context, after Run All."""

    name: str
    page: Any
    panel: Any
    errors: JsErrors
    expected: DashboardExpectation | None
    open_seconds: float
    """goto → kernel idle."""
    run_seconds: float
    """Run All → every cell numbered and the kernel idle."""

    @property
    def dashboard(self) -> Any:
        """The output area of the Dashboard cell."""
        assert self.expected is not None
        return self.panel.locator(".jp-Cell").nth(self.expected.cell_index).locator(".jp-OutputArea-output")

    def button(self, label: str) -> Any:
        """A dashboard button by its exact label (not by role name: Font Awesome's ::before glyph is part of that)."""
        return self.dashboard.locator("button.widget-button", has_text=re.compile(rf"^\s*{re.escape(label)}\s*$"))

    @property
    def clock(self) -> Any:
        return self.dashboard.locator("span[role=status]")

    @property
    def tree_map(self) -> Any:
        """The ProcessQueues offset-strip picture (its SVG; its text is compared with the in-process scene)."""
        return self.dashboard.locator("[data-testid='rq-offset-strip'] svg")

    @property
    def caption(self) -> Any:
        return self.dashboard.locator("[data-testid='rmq-caption']")

    def widget_stderr(self) -> list[str]:
        """stderr shown inside widget Outputs: where ``guarded`` callbacks put their exceptions."""
        stderr = "[data-mime-type='application/vnd.jupyter.stderr']"
        loc = self.panel.locator(f".widget-output .jp-OutputArea-output{stderr}")
        return [t.strip() for t in loc.all_text_contents()]

    def check_clean(self) -> None:
        """No callback traceback in a widget, no JavaScript error."""
        assert self.widget_stderr() == [], f"{self.name}: a widget callback raised:\n" + "\n".join(self.widget_stderr())
        self.errors.check()


def shutdown_session(server: Server, path: str) -> None:
    """Delete the notebook's session (which shuts its kernel down): kernels outlive the browser."""
    for session in server.api("GET", "/api/sessions"):
        if session.get("path") == path:
            server.api("DELETE", f"/api/sessions/{session['id']}")


def run_all(page: Any) -> None:
    """Run ▸ Run All Cells, through the menu as a student does."""
    page.locator("#jp-menu-panel .lm-MenuBar-itemLabel", has_text=re.compile("^Run$")).click()
    page.locator(".lm-Menu-content li[data-command='runmenu:run-all']").click()


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=[n.removesuffix(".ipynb") for n in NOTEBOOKS])
def lab(
    request: pytest.FixtureRequest, jupyter: Server, browser: Any, timings: dict[str, dict[str, float]]
) -> Iterator[OpenLab]:
    """Open one notebook, wait for its kernel, Run All, wait for every execution number and idle."""
    require_chromium()
    from playwright.sync_api import expect

    name: str = request.param
    expected = dashboard_expectation(LABS / name)
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = JsErrors(page)
    t_open = time.monotonic()
    try:
        page.goto(jupyter.url(f"/lab/tree/{name}", "reset"))  # reset: do not restore another test's tabs
        panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
        expect(panel.locator(".jp-Toolbar-kernelName")).not_to_have_text("No Kernel", timeout=FIRST_KERNEL_MS)
        expect(page.locator("#jp-main-statusbar")).to_contain_text("| Idle", timeout=FIRST_KERNEL_MS)
        t0 = time.monotonic()
        run_all(page)
        page.wait_for_function(ALL_NUMBERED_JS, timeout=RUN_ALL_MS)
        page.wait_for_function(KERNEL_IDLE_JS, timeout=RUN_ALL_MS)
        opened = OpenLab(name, page, panel, errors, expected, t0 - t_open, time.monotonic() - t0)
        timings[name] = {"open_s": round(opened.open_seconds, 1), "run_all_s": round(opened.run_seconds, 1)}
        yield opened
    finally:
        try:
            shutdown_session(jupyter, name)
        finally:
            context.close()


def test_all_cells_run_cleanly(lab: OpenLab) -> None:
    """Run All leaves no error output, no broken or pending widget, and no JavaScript error."""
    from playwright.sync_api import expect

    page, panel = lab.page, lab.panel
    expect(panel.get_by_text("Loading widget...")).to_have_count(0, timeout=ROUND_TRIP_MS)
    expect(panel.get_by_text("Loading widget…")).to_have_count(0)
    expect(panel.get_by_text("Error displaying widget")).to_have_count(0)
    assert page.evaluate(ERROR_OUTPUTS_JS) == [], f"{lab.name}: cells with error output"
    code_cells = panel.locator(".jp-CodeCell")
    assert code_cells.count() > 0
    for prompt in code_cells.locator(".jp-InputPrompt").all_text_contents():
        assert re.fullmatch(r"\[\d+\]:", prompt.strip()), f"{lab.name}: unexecuted cell prompt {prompt!r}"
    if lab.expected is not None:
        expect(lab.button("Step")).to_be_visible()
        expect(lab.clock).to_have_text(re.compile(r"^t = .+ · event \d+ / \d+"))
    lab.check_clean()


def _needs_dashboard(lab: OpenLab) -> DashboardExpectation:
    if lab.expected is None:
        pytest.skip(f"{lab.name} has no Dashboard cell")
    return lab.expected


def _reset(lab: OpenLab, exp: DashboardExpectation) -> None:
    from playwright.sync_api import expect

    lab.button("Reset").click()
    expect(lab.clock).to_have_text(exp.reset_clock, timeout=ROUND_TRIP_MS)
    expect(lab.tree_map).to_have_text(exp.reset_tree_map, timeout=ROUND_TRIP_MS)


def test_step_moves_clock_and_tree_map(lab: OpenLab) -> None:
    """Each Step click shows the controller's next clock readout and caption; the ProcessQueues picture follows."""
    from playwright.sync_api import expect

    exp = _needs_dashboard(lab)
    _reset(lab, exp)
    assert exp.step_clocks, f"{lab.name}: the scenario has no event after Reset"
    for clock, caption in zip(exp.step_clocks, exp.step_captions, strict=True):
        lab.button("Step").click()
        expect(lab.clock).to_have_text(clock, timeout=ROUND_TRIP_MS)
        expect(lab.caption).to_have_text(caption, timeout=ROUND_TRIP_MS)
    assert exp.step_clocks[-1] != exp.reset_clock
    expect(lab.tree_map).to_have_text(exp.step_tree_map, timeout=ROUND_TRIP_MS)
    if not exp.tree_map_changes:
        # No consumer in this scenario (e.g. producer-only labs): the strips honestly stay empty.
        assert "(no ProcessQueues)" in exp.reset_tree_map, f"{lab.name}: strips never change: {exp.reset_tree_map!r}"
    lab.check_clean()


def _position(clock_text: str) -> int:
    m = re.search(r"event (\d+) / (\d+)", clock_text)
    assert m, f"clock readout without a position: {clock_text!r}"
    return int(m.group(1))


def test_play_advances_pause_stops_reset_returns_to_zero(lab: OpenLab) -> None:
    """Play ticks the controller forward, Pause stops it, Reset goes back to t = 0 and the first position."""
    from playwright.sync_api import expect

    exp = _needs_dashboard(lab)
    _reset(lab, exp)
    play = lab.dashboard.locator(".widget-play button").first
    expect(play.locator("i.fa-play")).to_have_count(1)
    play.click()
    expect(lab.clock).not_to_have_text(exp.reset_clock, timeout=ROUND_TRIP_MS)
    lab.button("Pause").click()
    # Ticks already on the wire still land; wait until the readout holds still for a whole second
    # (Play ticks every 200 ms at the default 5 events/s, so a running Play cannot look still that long).
    deadline, last = time.monotonic() + ROUND_TRIP_MS / 1000, None
    while True:
        now = lab.clock.text_content()
        if now == last:
            break
        assert time.monotonic() < deadline, f"{lab.name}: clock still moving after Pause: {now!r}"
        last = now
        lab.page.wait_for_timeout(1000)
    assert last is not None
    assert exp.start < _position(last) <= exp.end, f"{lab.name}: Play did not advance: {last!r}"
    assert last.startswith("t = "), last
    _reset(lab, exp)
    assert exp.reset_clock.startswith("t = 0 ms (0 ms) · event "), exp.reset_clock
    lab.check_clean()


def _expect_delivery_marks(lab: OpenLab, timeline: Any, expected: int) -> None:
    """Wait until the timeline draws ``expected`` delivery tokens; fail with the number it does draw."""
    try:
        lab.page.wait_for_function(
            f"(root) => ({DELIVERED_TOKENS_JS})(root) === {expected}",
            arg=timeline.element_handle(),
            timeout=ROUND_TRIP_MS,
        )
    except Exception:
        drawn = timeline.evaluate(DELIVERED_TOKENS_JS)
        pytest.fail(f"{lab.name}: timeline draws {drawn} delivery tokens, the engine recorded {expected}")


def test_timeline_draws_every_delivery(lab: OpenLab, screenshot_dir: Path) -> None:
    """Scrubbed to the end, the retry timeline draws one numbered token per DELIVERED event of the engine's run."""
    from playwright.sync_api import expect

    exp = _needs_dashboard(lab)
    _reset(lab, exp)
    position = lab.dashboard.locator(".widget-slider", has=lab.page.locator(".widget-label", has_text="position"))
    handle = position.locator(".noUi-handle")
    handle.focus()
    handle.press("End")
    expect(lab.clock).to_have_text(exp.end_clock, timeout=ROUND_TRIP_MS)
    lab.dashboard.locator(".lm-TabBar-tab", has_text="Retry timeline").click()
    timeline = lab.dashboard.locator('[data-testid="rq-retry-timeline"]')
    expect(timeline).to_have_count(1)
    label = re.compile(rf"^Retry timeline: {message_count(exp.lanes)}, now ")
    expect(timeline.locator("svg")).to_have_attribute("aria-label", label, timeout=ROUND_TRIP_MS)
    _expect_delivery_marks(lab, timeline, exp.deliveries)
    shot = screenshot_dir / f"{lab.name.removesuffix('.ipynb')}.png"
    lab.dashboard.screenshot(path=str(shot))
    if lab.name == README_SHOT:
        (ROOT / "docs").mkdir(exist_ok=True)
        lab.dashboard.screenshot(path=str(ROOT / "docs" / "dashboard.png"))
    lab.check_clean()
