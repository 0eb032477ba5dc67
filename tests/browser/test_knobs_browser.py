"""Knobs and the player's row, live in JupyterLab (revD 1 and its lesser layout jump).

- Every knob's input can show its number: ipywidgets' fixed 300 px row gave "listener time per message (s)
  listener_seconds" 302 px of label and its IntText 10 px (labs 07a and 07b); now the input keeps at least 60 px.
- The player's row keeps its height when a checkpoint is answered: the Jump box took its longest option's width,
  so it wrapped to a second row once the kinds past the question were listed, and the picture moved ~30 px under
  the cursor (04b, 07a)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import nbformat
import pytest

from .conftest import VIEWPORT, JsErrors, Server, run_all_in_jupyterlab

pytestmark = pytest.mark.browser

NOTEBOOK = "knobs_check.ipynb"
WAIT_MS = 20_000
SETUP = (
    "from rmqlab.widgets import Checkpoint, Dashboard, demo_lab\n"
    "def make(listener_seconds=25, consume_thread_min=1, response_delay_s=2.5, max_reconsume_times=1):\n"
    "    return demo_lab(listener='fail_all', max_reconsume_times=max_reconsume_times)\n"
    "dash = Dashboard(make, horizon='2m', checkpoints=[Checkpoint(before='send_back', nth=2, ask='where')],\n"
    "                 knobs={'listener_seconds': 25, 'consume_thread_min': 1, 'response_delay_s': 2.5,\n"
    "                        'max_reconsume_times': 1})\n"
    "dash"
)
KNOBS_JS = """(rebuild) => [...rebuild.parentElement.querySelectorAll('.widget-inline-hbox')]
  .filter(h => h.querySelector('label') && h.querySelector('input[type=number],input[type=text],select'))
  .map(h => [h.querySelector('label').textContent,
             Math.round(h.querySelector('input,select').getBoundingClientRect().width)])"""


@pytest.fixture(scope="module")
def opened(jupyter: Server, browser: Any) -> Iterator[tuple[Any, Any, JsErrors]]:
    from playwright.sync_api import expect

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SETUP)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, jupyter.root / NOTEBOOK)
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = JsErrors(page)
    try:
        panel = run_all_in_jupyterlab(page, jupyter, NOTEBOOK)
        player = panel.get_by_test_id("rq-player")
        expect(player).to_have_attribute("data-step", "0", timeout=WAIT_MS)
        yield page, panel, errors
    finally:
        for session in jupyter.api("GET", "/api/sessions"):
            if session.get("path") == NOTEBOOK:
                jupyter.api("DELETE", f"/api/sessions/{session['id']}")
        context.close()


def test_every_knob_input_is_at_least_60_px_wide(opened: tuple[Any, Any, JsErrors]) -> None:
    _, panel, errors = opened
    rebuild = panel.locator(".rq-dashboard").get_by_role("button", name="Rebuild")  # the knobs are its siblings
    rebuild.scroll_into_view_if_needed(timeout=WAIT_MS)
    knobs = dict(rebuild.evaluate(KNOBS_JS))
    labels = {label.split(" ")[0] for label in knobs}
    assert {"listener", "consume", "response", "max"} <= labels, knobs  # the four knobs, found by their labels
    narrow = {label: width for label, width in knobs.items() if width < 60}
    assert not narrow, f"knob inputs narrower than 60 px: {narrow}"
    errors.check()


def test_the_player_row_keeps_its_height_when_a_checkpoint_is_answered(opened: tuple[Any, Any, JsErrors]) -> None:
    from playwright.sync_api import expect

    _, panel, errors = opened
    player = panel.get_by_test_id("rq-player")
    row, jump_kind = player.locator(".rq-row").first, player.locator(".rq-row select").first
    player.scroll_into_view_if_needed()
    before = (row.bounding_box() or {})["height"], (jump_kind.bounding_box() or {})["width"]
    panel.get_by_role("button", name="Play", exact=True).click()
    ask = panel.get_by_test_id("rq-checkpoint")
    ask.wait_for(state="visible", timeout=WAIT_MS)
    expect(jump_kind).to_contain_text("answer the question first")
    asked = (row.bounding_box() or {})["height"], (jump_kind.bounding_box() or {})["width"]
    ask.get_by_role("button", name=re.compile(r"^\s*Show me\s*$")).click()
    expect(jump_kind).not_to_contain_text("answer the question first", timeout=WAIT_MS)
    # the longest kind a Jump box can list, as if it were ahead: the box does not grow with its words
    jump_kind.evaluate("s => s.append(new Option('an orderly queue handed to a consume thread (12)', 'x'))")
    answered = (row.bounding_box() or {})["height"], (jump_kind.bounding_box() or {})["width"]
    assert before == asked == answered, (before, asked, answered)
    errors.check()
