"""A dashboard saved with save_html, opened from disk (no server, no kernel): it steps, plays and asks its
checkpoints, and after each Step the SVG marks, the caption and the Events table's rows are the kernel's for that
step."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from rmqlab.widgets import Checkpoint, Dashboard, demo_lab
from rmqlab.widgets.event_log import EventLogModel
from rmqlab.widgets.export import save_html
from rmqlab.widgets.scene import SceneView

from rmqlab import Lab

from .conftest import JsErrors

pytestmark = pytest.mark.browser

MARKS_JS = """(testid) => [...document.querySelectorAll(`[data-testid="${testid}"] svg [data-key]`)]
  .filter((n) => !n.hasAttribute('data-leaving') && !n.parentElement.closest('[data-key]'))
  .map((n) => n.getAttribute('data-key') + '|'
    + (n.getAttribute('transform') || n.getAttribute('x') || n.getAttribute('d') || ''))"""


ROWS_JS = """() => [...document.querySelectorAll('[data-testid="rq-event-log"] table.rmq-events tbody tr')]
  .map((tr) => [tr.getAttribute('data-key'), tr.classList.contains('current'),
    ...[...tr.cells].map((c) => c.innerText)])"""


def _rows(vm: EventLogModel) -> list[list[Any]]:
    """What ROWS_JS reads for ``vm``: key, current, then the cells (repeats before the details)."""
    return [
        [f"row:{r.seq}", r.current, str(r.seq), r.when, r.kind, r.actor, r.msg_id,
         f"{r.repeats}: {r.details}" if r.repeats else r.details]
        for r in vm.rows
    ]  # fmt: skip


def failing() -> Lab:
    return demo_lab(listener="fail_all", max_reconsume_times=1)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Dashboard, Path]:
    dash = Dashboard(failing, horizon="2m", checkpoints=[Checkpoint(before="send_back", ask="where")])
    return dash, save_html(dash, tmp_path_factory.mktemp("static") / "dash.html")


@pytest.fixture()
def page(browser: Any, saved: tuple[Dashboard, Path]) -> Any:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors = JsErrors(page)
    page.goto(saved[1].as_uri())
    page.get_by_test_id("rq-player").wait_for()
    yield page
    errors.check()
    context.close()


def _expected(scene_json: dict[str, Any]) -> list[str]:
    out = []
    for m in scene_json["marks"]:

        def num(v: float) -> str:
            t = f"{int(v * 10 + 0.5 if v >= 0 else v * 10 - 0.5) / 10:.1f}"
            return t[:-2] if t.endswith(".0") else t

        if m["kind"] == "token":
            where = f"translate({num(m.get('x', 0))},{num(m.get('y', 0))})"
        elif m["kind"] in ("rect", "text"):
            where = num(m.get("x", 0))
        elif m["kind"] == "path":
            where = m.get("d", "")
        else:
            where = ""
        out.append(f"{m['key']}|{where}")
    return out


TEXT_PX_JS = """() => [...document.querySelectorAll('.rq-scene svg text')].filter((t) => t.getScreenCTM())
  .map((t) => [t.closest('[data-key]').getAttribute('data-key'),
    parseFloat(getComputedStyle(t).fontSize) * Math.hypot(t.getScreenCTM().a, t.getScreenCTM().b)])"""
"""Every drawn SVG text's size on screen (its font size times the SVG's scale), by mark key."""


def test_svg_text_is_at_least_11_px_on_screen(page: Any) -> None:
    """Issue 32: the docs site drew the pictures scaled down to the page (text about 5 px); a page as narrow as the
    docs' content (700 px) draws every text of every picture at 11 px or more (a wide picture scrolls instead)."""
    page.set_viewport_size({"width": 700, "height": 900})
    sizes = page.evaluate(TEXT_PX_JS)
    assert len(sizes) > 80  # every picture of the page (no Locks tab: the demo has no orderly consumer)
    assert [(key, round(px, 1)) for key, px in sizes if px < 10.95] == []


def test_every_button_has_an_accessible_name(page: Any) -> None:
    for name in ("Reset", "Step back", "Step", "Play", "Jump"):
        button = page.get_by_role("button", name=name, exact=True)
        assert button.count() == 1 and button.get_attribute("title")
    nameless = page.evaluate(
        "() => [...document.querySelectorAll('button')].filter(b => !(b.getAttribute('aria-label') || "
        "b.textContent.trim())).length"
    )
    assert nameless == 0
    assert page.get_by_test_id("rmq-caption").get_attribute("aria-live") == "polite"


def test_steps_show_the_kernels_scene_and_caption(page: Any, saved: tuple[Dashboard, Path]) -> None:
    dash, _ = saved
    frames = dash.controller.frames
    assert frames is not None
    flow = dash.main_view
    assert isinstance(flow, SceneView)
    scenes = frames.scenes(flow)
    events = [dash.view("Events").model(snap) for snap in frames.snapshots]
    step = page.get_by_role("button", name="Step", exact=True)
    for k in range(1, 6):
        show_me = page.get_by_role("button", name="Show me")
        if show_me.is_visible():  # an open question (an answered one keeps its explanation, not its buttons)
            show_me.click()  # plays the step the checkpoint held
        else:
            step.click()
        expect_step = str(k)
        page.wait_for_function(
            f"() => document.querySelector('[data-testid=rq-player]').getAttribute('data-step') === '{expect_step}'"
        )
        caption = page.get_by_test_id("rmq-caption").first.inner_text()
        assert caption.split("\n") == list(frames.captions[k])
        assert page.get_by_test_id("rq-clock").inner_text() == frames.clock(k)
        testid = scenes[k].testid
        # past the question the pictures open their sealed frames themselves (a Web Crypto promise each)
        for drawn in (f"[data-testid={testid}]", ".rq-table-view"):
            expect(page.locator(drawn).first).to_have_attribute("data-step", expect_step)
        assert page.evaluate(MARKS_JS, testid) == _expected(scenes[k].to_json()), k
        # the Events table moved with it, with no kernel: the rows of the kernel's view-model at that step
        table = page.get_by_test_id("rq-event-log")
        assert table.locator(".rq-table-summary").inner_text() == f"{events[k].matched} of {events[k].total} events"
        assert page.evaluate(ROWS_JS) == _rows(events[k]), k


def test_play_runs_to_the_end_after_the_checkpoint(page: Any, saved: tuple[Dashboard, Path]) -> None:
    dash, _ = saved
    frames = dash.controller.frames
    assert frames is not None
    cp = frames.checkpoints[0]
    page.get_by_role("button", name="Play", exact=True).click()
    ask = page.get_by_test_id("rq-checkpoint")
    ask.wait_for(state="visible")
    player = page.get_by_test_id("rq-player")
    assert player.get_attribute("data-step") == str(cp.frame) and player.get_attribute("data-playing") == "0"
    wrong = next(c for c in cp.choices if c.key != cp.answer and c.mark)
    page.locator(f'.rq-scene [data-choice="{wrong.key}"]').first.click()
    feedback = page.get_by_test_id("rq-feedback")
    # its own hint (the page opens the choice's sealed box: a Web Crypto promise, so wait for it)
    expect(feedback).to_have_text(f"Not quite. Hint: {cp.check(wrong.key)[1]} Try again, or Show me.")
    assert player.get_attribute("data-step") == str(cp.frame)
    # every choice is a place in the picture; the answer (delay level 3, not used yet) is a dim dashed placeholder,
    # as are the other levels and the DLQ: a click on it answers
    offered = page.eval_on_selector_all(".rq-scene [data-choice]", "(ns) => ns.map((n) => n.dataset.choice)")
    assert sorted(set(offered)) == sorted(c.key for c in cp.choices)
    placeholders = page.eval_on_selector_all(
        ".rq-scene rect.rq-placeholder[data-choice]", "(ns) => ns.map((n) => n.dataset.choice)"
    )
    assert cp.answer in placeholders and len(placeholders) == len(cp.placeholders) >= 2
    page.locator(f'.rq-scene rect.rq-placeholder[data-choice="{cp.answer}"]').click()
    expect(feedback).to_have_text(cp.explain)
    page.wait_for_function(
        f"() => document.querySelector('[data-testid=rq-player]').getAttribute('data-step') === '{len(frames) - 1}'",
        timeout=30_000,
    )
    assert re.search(r"checkpoints: 1 of 1 answered · 0 right first time", page.get_by_test_id("rq-score").inner_text())


def test_keyboard_steps_and_plays(page: Any) -> None:
    page.get_by_role("button", name="Step", exact=True).focus()
    page.keyboard.press("ArrowRight")
    player = page.get_by_test_id("rq-player")
    page.wait_for_function("() => document.querySelector('[data-testid=rq-player]').getAttribute('data-step') === '1'")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => document.querySelector('[data-testid=rq-player]').getAttribute('data-step') === '0'")
    assert player.get_attribute("data-step") == "0"


def _at_step(page: Any, step: int) -> None:
    page.wait_for_function(
        f"() => document.querySelector('[data-testid=rq-player]').getAttribute('data-step') === '{step}'"
    )


def test_home_and_end_go_to_the_first_and_last_step(page: Any, saved: tuple[Dashboard, Path]) -> None:
    """End shows the run's last frame (its clock and caption), Home the first, from any control of the player; a
    checkpoint not answered yet stops End at its question (issue 30), as it stops Step."""
    frames = saved[0].controller.frames
    assert frames is not None
    last, cp = len(frames) - 1, frames.checkpoints[0]
    player = page.get_by_test_id("rq-player")
    assert "Home and End go to the first and last step, J jumps" in (player.get_attribute("aria-label") or "")
    page.get_by_role("button", name="Step", exact=True).focus()
    page.keyboard.press("End")
    _at_step(page, cp.frame)
    assert page.get_by_test_id("rq-checkpoint").is_visible()
    page.get_by_role("button", name="Show me", exact=True).click()  # answered (shown): End goes on
    expect(page.get_by_test_id("rq-feedback")).to_have_text(cp.explain)  # once the page found the right box
    page.get_by_role("button", name="Step", exact=True).focus()
    page.keyboard.press("End")
    page.wait_for_function(
        f"() => document.querySelector('[data-testid=rq-player]').getAttribute('data-step') === '{last}'"
    )
    assert page.get_by_test_id("rq-clock").inner_text() == frames.clock(last)
    assert page.get_by_test_id("rmq-caption").first.inner_text().split("\n") == list(frames.captions[last])
    assert page.get_by_role("button", name="Step", exact=True).is_disabled()  # nothing after the last step
    page.get_by_role("button", name="Step back", exact=True).focus()
    page.keyboard.press("Home")
    page.wait_for_function("() => document.querySelector('[data-testid=rq-player]').getAttribute('data-step') === '0'")
    assert page.get_by_test_id("rq-clock").inner_text() == frames.clock(0)
    assert page.get_by_role("button", name="Step back", exact=True).is_disabled()


def test_j_jumps_to_the_next_step_with_an_event_of_the_chosen_kind(page: Any, saved: tuple[Dashboard, Path]) -> None:
    frames = saved[0].controller.frames
    assert frames is not None
    jump = page.get_by_role("button", name="Jump", exact=True)
    assert jump.get_attribute("aria-keyshortcuts") == "J" and "(key: J)" in (jump.get_attribute("title") or "")
    box = page.get_by_role("combobox", name="event kind to jump to")
    offered = box.locator("option").evaluate_all("(os) => os.map((o) => o.value)")

    def first(kind: str) -> int:
        return next(j for j in range(1, len(frames)) if frames.kinds[j].get(kind))

    kind = max(offered, key=first)  # the kind whose next step is furthest: a Jump, not a Step
    box.select_option(kind)
    stop = first(kind)
    assert stop <= frames.checkpoints[0].frame  # the box offers only what is before the question still to answer
    page.get_by_role("button", name="Step", exact=True).focus()
    page.keyboard.press("j")
    _at_step(page, stop)
    assert stop > 1 and page.get_by_test_id("rq-clock").inner_text() == frames.clock(stop)


def test_a_scrub_past_an_unanswered_checkpoint_stops_at_its_question(page: Any, saved: tuple[Dashboard, Path]) -> None:
    """Dragging the scrubber to the end lands on the checkpoint's question while it waits (before stop 33 it showed
    the outcome); once answered, the same scrub reaches the end."""
    frames = saved[0].controller.frames
    assert frames is not None
    last, cp = len(frames) - 1, frames.checkpoints[0]
    scrub = page.get_by_role("slider", name="step", exact=True)
    scrub.fill(str(last))
    _at_step(page, cp.frame)
    assert scrub.input_value() == str(cp.frame) and page.get_by_test_id("rq-checkpoint").is_visible()
    page.locator(f'.rq-scene [data-choice="{cp.answer}"]').first.click()
    expect(page.get_by_test_id("rq-feedback")).to_have_text(cp.explain)
    scrub.fill(str(last))
    _at_step(page, last)


def test_an_executed_notebook_exported_to_html_plays_from_disk(browser: Any, tmp_path: Path) -> None:
    """nbclient runs a dashboard cell (the kernel imports this worktree), save_notebook_html exports it; opened
    from disk with every network request refused, Step moves it (the picture, the clock, the Events table) to the
    kernel's next frame."""
    import nbclient
    import nbformat
    from rmqlab.widgets.notebook_html import save_notebook_html

    source = (
        "from rmqlab.widgets import Dashboard, demo_lab\n"
        "Dashboard(lambda: demo_lab(listener='fail_all', max_reconsume_times=1), horizon='2m')"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbclient.NotebookClient(nb, timeout=180, resources={"metadata": {"path": str(tmp_path)}}).execute()
    nbformat.write(nb, tmp_path / "run.ipynb")
    page_path = save_notebook_html(tmp_path / "run.ipynb", tmp_path / "run.html")
    frames = Dashboard(failing, horizon="2m").controller.frames
    assert frames is not None
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.route("http*://**", lambda route: route.abort())  # offline: nbconvert's own CDN scripts fail, we do not
    page.goto(page_path.as_uri())
    clock = page.get_by_test_id("rq-clock")
    clock.wait_for()
    assert clock.inner_text() == frames.clock(0)
    page.get_by_role("button", name="Step", exact=True).click()
    page.wait_for_function("() => document.querySelector('[data-testid=rq-player]').getAttribute('data-step') === '1'")
    assert clock.inner_text() == frames.clock(1)
    # the saved output keeps the Events table beside the main picture, and it steps too
    events = Dashboard(failing, horizon="2m").view("Events")
    assert page.evaluate(ROWS_JS) == _rows(events.model(frames.snapshots[1]))
    context.close()


def test_the_jump_box_lists_only_what_it_can_reach_before_an_unanswered_question(
    page: Any, saved: tuple[Dashboard, Path]
) -> None:
    """The kinds still to come beyond a question would tell its answer ("dead_lettered (1)" before "where does it
    go?"): the box counts only the steps up to the question, reads "answer the question first" there, and offers the
    rest once it is answered."""
    frames = saved[0].controller.frames
    assert frames is not None
    last, cp = len(frames) - 1, frames.checkpoints[0]
    box = page.get_by_role("combobox", name="event kind to jump to")
    offered = set(box.locator("option").evaluate_all("(os) => os.map((o) => o.value)"))
    reachable = {kind for j in range(1, cp.frame + 1) for kind, n in frames.kinds[j].items() if n}
    assert offered == reachable and "dead_lettered" not in offered
    page.get_by_role("slider", name="step", exact=True).fill(str(last))
    _at_step(page, cp.frame)
    assert box.locator("option").all_inner_texts() == ["answer the question first"] and box.is_disabled()
    page.locator(f'.rq-scene [data-choice="{cp.answer}"]').first.click()
    expect(page.get_by_test_id("rq-feedback")).to_have_text(cp.explain)
    assert "dead_lettered" in box.locator("option").evaluate_all("(os) => os.map((o) => o.value)")


def test_a_page_without_web_crypto_says_it_cannot_check_and_tells_nothing(
    browser: Any, saved: tuple[Dashboard, Path]
) -> None:
    """The answers are sealed (widgets/page_seal.py): a browser with no SubtleCrypto cannot open them, and says
    so plainly on a click and on Show me, instead of failing silently or playing on."""
    frames = saved[0].controller.frames
    assert frames is not None
    cp = frames.checkpoints[0]
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.add_init_script("Object.defineProperty(globalThis.crypto, 'subtle', { value: undefined })")
    page.goto(saved[1].as_uri())
    page.get_by_role("slider", name="step", exact=True).fill(str(len(frames) - 1))
    _at_step(page, cp.frame)
    said = ("This page cannot check answers or play past a question: the browser offers no Web Crypto here (open "
            "the page from disk, over https or on localhost).")  # fmt: skip
    feedback = page.get_by_test_id("rq-feedback")
    page.locator(f'.rq-scene [data-choice="{cp.answer}"]').first.click()
    expect(feedback).to_have_text(said)
    page.get_by_role("button", name="Show me", exact=True).click()
    expect(feedback).to_have_text(said)
    page.get_by_role("button", name="Step", exact=True).click()
    assert page.get_by_test_id("rq-player").get_attribute("data-step") == str(cp.frame)
    assert page.get_by_test_id("rq-clock").inner_text() == frames.clock(cp.frame)
    context.close()
