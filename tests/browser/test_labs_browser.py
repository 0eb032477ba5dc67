"""Every lab, opened in JupyterLab in headless Chromium and run as a student runs it (Run ▸ Run All Cells).

The labs are found by globbing ``labs/*.ipynb`` (new labs join without a list to edit). Per notebook, one
kernel, reused by the four tests below and shut down through the REST API afterwards:

1. Run All is clean: every code cell numbered, the kernel idle, no error or stderr output, no widget left
   "Loading widget…" or showing "Error displaying widget", no JavaScript error; the page shows as many
   dashboards as the notebook displays (each found by its caption's test id, never by a cell index).
2. Reset and each Step: the clock and the caption lines equal the in-process controller's; the FlowView's
   tokens (``g[data-role=token]`` not ``[data-leaving]``) carry exactly the kernel scene's keys and
   ``transform``s, and their count per place equals the engine's messages in that ProcessQueue, delay level
   or DLQ; tokens travel (or, in a producer-only lab, appear); after Reset every scene view draws exactly
   the kernel's marks — the main picture at once, each tab when it is opened, as a student opens it (a tab
   whose frames are not in the page yet shows the reset position too, not the picture it was first drawn
   with). Every dashboard steps in the page (its frames are there: ``run_ahead``). On a checkpoint's frame
   the page asks its question and Step does not move until it is answered; the test answers as a student
   does (a wrong choice: the hint; the right one: the explanation), then Steps on.
3. Play advances (the FlowView's position moves) and stops at the first checkpoint not yet answered; after
   the right answer it plays on (to the next question, or until Pause); after Pause, Reset and two Steps
   draw exactly three frames, the kernel's.
4. Where the engine's run has retries: scrubbed to the end, the retry timeline draws one delivery token per
   DELIVERED event of the engine's own run; a screenshot of the dashboard goes to artifacts/screenshots/.

Expectations come from ``expectations.py`` (the lab's own code, run here); nothing is hard-coded.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .conftest import LABS, VIEWPORT, JsErrors, Server, require_chromium
from .expectations import CheckpointStop, DashboardExpectation, lab_expectations, moved
from .pages import ROUND_TRIP_MS, DashboardOnPage, dashboards_on, exact

pytestmark = pytest.mark.browser

NOTEBOOKS = sorted(p.name for p in LABS.glob("*.ipynb"))

FIRST_KERNEL_MS = 120_000  # first kernel of the session on 2 busy cores
RUN_ALL_MS = 180_000

ERROR_OUTPUTS_JS = """() => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  const found = [];
  nb.widgets.forEach((cell) => {
    const outs = cell.model.outputs;
    if (!outs) return;
    const head = cell.model.sharedModel.getSource().split('\\n')[0];
    for (let j = 0; j < outs.length; j++) {
      const o = outs.get(j).toJSON();
      if (o.output_type === 'error') found.push(`${head} → ${o.ename}: ${o.evalue}`);
      if (o.output_type === 'stream' && o.name === 'stderr') found.push(`${head} → stderr: ${o.text}`);
    }
  });
  return found;
}"""
ALL_NUMBERED_JS = """() => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  const code = nb.widgets.filter(c => c.model.type === 'code');
  return code.length > 0 && code.every(c => c.model.executionCount !== null);
}"""
"""Every code cell has an execution count (read from the model: JupyterLab's windowing may not draw far cells)."""
KERNEL_IDLE_JS = "() => window.jupyterapp.shell.currentWidget.sessionContext.kernelDisplayStatus === 'idle'"
DELIVERIES_JS = "(root) => root.querySelectorAll('g[data-role=delivery]:not([data-leaving])').length"


@dataclass
class OpenLab:
    """One notebook open in its own browser context, after Run All."""

    name: str
    page: Any
    panel: Any
    errors: JsErrors
    expected: tuple[DashboardExpectation, ...]
    open_seconds: float
    """goto → kernel idle."""
    run_seconds: float
    """Run All → every cell numbered and the kernel idle."""
    answered: set[tuple[int, str]] = field(default_factory=set)
    """(dashboard index, checkpoint name) answered in this page: the page asks each checkpoint once."""

    def asked(self, dash: DashboardOnPage, frame: int) -> CheckpointStop | None:
        """The checkpoint the page asks on ``frame`` now (``None``: none there, or answered already)."""
        cp = dash.expected.checkpoint_at(frame)
        return None if cp is None or (dash.expected.index, cp.name) in self.answered else cp

    def answer(self, dash: DashboardOnPage, cp: CheckpointStop, *, wrong_first: bool = True) -> None:
        dash.answer_checkpoint(cp, wrong_first=wrong_first)
        self.answered.add((dash.expected.index, cp.name))

    def dashboards(self) -> list[DashboardOnPage]:
        return dashboards_on(self.page, self.panel, self.expected, self.name)

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


def open_and_run_all(server: Server, browser: Any, name: str, viewport: dict[str, int] = VIEWPORT) -> OpenLab:
    """Open ``name`` in a fresh context, wait for its kernel, Run All, wait for every execution count and idle."""
    from playwright.sync_api import expect

    expected = lab_expectations(LABS / name)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors = JsErrors(page)
    t_open = time.monotonic()
    page.goto(server.url(f"/lab/tree/{name}", "reset"), timeout=FIRST_KERNEL_MS)  # reset: no restored tabs
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    expect(panel.locator(".jp-Toolbar-kernelName")).not_to_have_text("No Kernel", timeout=FIRST_KERNEL_MS)
    expect(page.locator("#jp-main-statusbar")).to_contain_text("| Idle", timeout=FIRST_KERNEL_MS)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=FIRST_KERNEL_MS)
    t0 = time.monotonic()
    run_all(page)
    page.wait_for_function(ALL_NUMBERED_JS, timeout=RUN_ALL_MS)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=RUN_ALL_MS)
    return OpenLab(name, page, panel, errors, expected, t0 - t_open, time.monotonic() - t0)


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=[n.removesuffix(".ipynb") for n in NOTEBOOKS])
def lab(
    request: pytest.FixtureRequest, jupyter: Server, browser: Any, timings: dict[str, dict[str, float]]
) -> Iterator[OpenLab]:
    """One notebook after Run All (its kernel and browser context closed afterwards)."""
    require_chromium()
    name: str = request.param
    opened: OpenLab | None = None
    try:
        opened = open_and_run_all(jupyter, browser, name)
        timings[name] = {"open_s": round(opened.open_seconds, 2), "run_all_s": round(opened.run_seconds, 2)}
        yield opened
    finally:
        try:
            shutdown_session(jupyter, name)
        finally:
            if opened is not None:
                opened.page.context.close()


def _with_dashboards(lab: OpenLab) -> list[DashboardOnPage]:
    if not lab.expected:
        pytest.skip(f"{lab.name} displays no controller")
    return lab.dashboards()


def test_all_cells_run_cleanly(lab: OpenLab) -> None:
    """Run All leaves no error output, no broken or pending widget, and no JavaScript error."""
    from playwright.sync_api import expect

    panel = lab.panel
    assert lab.page.evaluate(ERROR_OUTPUTS_JS) == [], f"{lab.name}: cells with error output"
    for dash in lab.dashboards():  # as many as the notebook displays, each found by its test id
        dash.show()
        expect(dash.button("Step")).to_be_visible(timeout=ROUND_TRIP_MS)
        expect(dash.clock).to_have_text(dash.expected.on_load.clock, timeout=ROUND_TRIP_MS)
        expect(dash.caption_lines).to_have_count(len(dash.expected.on_load.caption), timeout=ROUND_TRIP_MS)
    expect(panel.get_by_text(re.compile(r"Loading widget"))).to_have_count(0, timeout=ROUND_TRIP_MS)
    expect(panel.get_by_text("Error displaying widget")).to_have_count(0)
    lab.check_clean()


def _reset(dash: DashboardOnPage) -> None:
    dash.show()
    dash.button("Reset").click()
    dash.expect_frame(dash.expected.frames[0])


def _step(lab: OpenLab, dash: DashboardOnPage, frame: int, *, answered: bool = False) -> None:
    """From ``frame - 1``, Step to ``frame``: a checkpoint asked on ``frame - 1`` holds the Step until answered (the
    click made while it is asked must not move the picture: the frame reached after the answer proves it).
    ``answered``: every question was answered before, so a pause shows its answered picture."""
    cp = lab.asked(dash, frame - 1)
    if cp is not None:
        dash.button("Step").click()  # held: "answer first"
        lab.answer(dash, cp)
    dash.button("Step").click()
    expected = dash.expected.frames[frame]
    dash.expect_frame(expected.answered or expected if answered else expected)


def test_reset_and_steps_match_the_kernel(lab: OpenLab) -> None:
    """After Reset and each Step: clock, caption, every token where the kernel drew it, counts per place."""
    for dash in _with_dashboards(lab):
        exp = dash.expected
        assert exp.has_flow, f"{lab.name}: dashboard {exp.index} has no FlowView (the main picture)"
        _reset(dash)
        dash.expect_scenes_as_opened(dash.expected.reset_scenes)
        before = dash.drawn_tokens()
        travelled: set[str] = set()
        changed = False
        for n in range(1, len(exp.frames)):
            _step(lab, dash, n)
            after = dash.drawn_tokens()
            travelled |= {k for k, t in after.items() if k in before and before[k] != t}
            changed |= after != before
            before = after
        assert len(exp.frames) > 1, f"{lab.name}: nothing happens after Reset"
        assert changed, f"{lab.name}: {len(exp.frames) - 1} Steps and the flow picture never changed"
        if exp.consumers:
            assert travelled, f"{lab.name}: {len(exp.frames) - 1} Steps and no token travelled"
            assert travelled == set().union(*(moved(a, b) for a, b in zip(exp.frames, exp.frames[1:], strict=False)))
    lab.check_clean()


def _waiting(lab: OpenLab, dash: DashboardOnPage) -> list[CheckpointStop]:
    return [cp for cp in dash.expected.checkpoints if lab.asked(dash, cp.frame) is not None]


def test_play_advances_and_pause_stops(lab: OpenLab) -> None:
    """Play moves the picture on and stops at a checkpoint until it is answered, then plays on; after Pause,
    Reset + two Steps give exactly the kernel's three frames."""
    from playwright.sync_api import expect

    for dash in _with_dashboards(lab):
        exp = dash.expected
        _reset(dash)
        start = exp.frames[0].position
        player = dash.player
        expect(player).to_have_attribute("data-playing", "0", timeout=ROUND_TRIP_MS)
        dash.button("Play").click()
        waiting = _waiting(lab, dash)
        if waiting:  # Play stops on the question's frame, asks, and waits for the answer
            cp = waiting[0]
            expect(player).to_have_attribute("data-step", str(cp.frame), timeout=ROUND_TRIP_MS)
            expect(player).to_have_attribute("data-playing", "0", timeout=ROUND_TRIP_MS)
            expect(dash.question).to_contain_text(cp.question, timeout=ROUND_TRIP_MS)
            lab.answer(dash, cp, wrong_first=False)
            start = exp.positions[cp.frame]
            if len(waiting) > 1:  # the right answer plays on, up to the next question
                expect(player).to_have_attribute("data-step", str(waiting[1].frame), timeout=ROUND_TRIP_MS)
                expect(player).to_have_attribute("data-playing", "0", timeout=ROUND_TRIP_MS)
        if len(waiting) <= 1:
            lab.page.wait_for_function(
                "([el, p]) => +el.dataset.position > p", arg=[dash.flow.element_handle(), start], timeout=ROUND_TRIP_MS
            )
            dash.button("Pause").click()
        # The page's player stops ticking at once (Play and Pause run in the page, no kernel round trip).
        expect(player).to_have_attribute("data-playing", "0", timeout=ROUND_TRIP_MS)
        _reset(dash)
        first = dash.frame_number()
        for n in range(1, min(3, len(exp.frames))):
            _step(lab, dash, n, answered=True)  # Play stopped at each question up to here: all are answered
            assert dash.frame_number() == first + n, f"{lab.name}: frames drawn after Pause besides the Steps"
    lab.check_clean()


def test_retry_timeline_draws_every_delivery(lab: OpenLab, screenshot_dir: Path) -> None:
    """Scrubbed to the end, the retry timeline draws one numbered token per DELIVERED of the engine's run."""
    from playwright.sync_api import expect

    dashboards = _with_dashboards(lab)
    checked = 0
    for dash in dashboards:
        exp = dash.expected
        if not (exp.retry_timeline and exp.retried):
            continue
        assert exp.timeline_hidden == 0, f"{lab.name}: the timeline leaves {exp.timeline_hidden} rows out"
        _reset(dash)
        handle = dash.root.get_by_test_id("rq-player").get_by_role("slider", name="step", exact=True)
        for cp in exp.checkpoints:  # End stops at each question still to answer: answer it, then End again
            handle.focus()
            handle.press("End")
            if lab.asked(dash, cp.frame) is not None:
                lab.answer(dash, cp, wrong_first=False)
        handle.focus()
        handle.press("End")
        expect(dash.clock).to_have_text(exp.end_clock, timeout=ROUND_TRIP_MS)
        dash.root.locator(".rq-view-tabs button", has_text=exact("Retry timeline")).click()
        timeline = dash.scene("rq-retry-timeline")
        expect(timeline).to_be_visible(timeout=ROUND_TRIP_MS)
        try:
            lab.page.wait_for_function(
                f"([root, n]) => ({DELIVERIES_JS})(root) === n",
                arg=[timeline.element_handle(), exp.deliveries],
                timeout=ROUND_TRIP_MS,
            )
        except Exception:
            drawn = timeline.evaluate(DELIVERIES_JS)
            pytest.fail(
                f"{lab.name}: the timeline draws {drawn} delivery tokens, the engine delivered {exp.deliveries}"
            )
        dash.root.screenshot(path=str(screenshot_dir / f"{lab.name.removesuffix('.ipynb')}-{exp.index}.png"))
        checked += 1
    if not checked:
        pytest.skip(f"{lab.name}: the engine's run has no retry (no send-back, no suspend)")
    lab.check_clean()
