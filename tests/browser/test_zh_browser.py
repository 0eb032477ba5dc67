"""A Chinese dashboard (``rmqlab.set_language("zh")``) in Chromium, saved as a static page (no server, no kernel):
its words are drawn with a Chinese font (Debian's Noto CJK, which ``.ci/browser-setup.sh`` installs), in the light
theme and in JupyterLab's dark colours, screenshots in artifacts/screenshots/zh-*.png. Skipped, with the reason,
where the machine has no Chinese font."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from rmqlab.widgets import Checkpoint, Dashboard, demo_lab
from rmqlab.widgets.export import save_html

import rmqlab
from rmqlab import Lab

from .conftest import JsErrors, require_cjk_font

pytestmark = pytest.mark.browser

DARK = {"--jp-layout-color0": "#111111", "--jp-layout-color1": "#212121", "--jp-layout-color2": "#424242",
        "--jp-layout-color3": "#616161", "--jp-ui-font-color0": "rgba(255, 255, 255, 1)",
        "--jp-ui-font-color1": "rgba(255, 255, 255, 0.87)", "--jp-ui-font-color2": "rgba(255, 255, 255, 0.54)",
        "--jp-ui-font-color3": "rgba(255, 255, 255, 0.38)", "--jp-border-color1": "#616161",
        "--jp-border-color2": "#424242", "--jp-brand-color1": "#42a5f5", "--jp-brand-color2": "#90caf9"}  # fmt: skip
"""JupyterLab Dark's values of the variables the scenes draw with (the static page has no theme of its own)."""
DARKEN = """(vars) => { for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(k, v);
  document.body.style.background = vars['--jp-layout-color0']; }"""


def failing() -> Lab:
    return demo_lab(listener="fail_all", max_reconsume_times=1)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    rmqlab.set_language("zh")
    try:
        dash = Dashboard(failing, horizon="2m", checkpoints=[Checkpoint(before="send_back", ask="where")])
        yield save_html(dash, tmp_path_factory.mktemp("zh-static") / "dash.html")
    finally:
        rmqlab.set_language(None)


@pytest.fixture()
def page(browser: Any, saved: Path) -> Iterator[Any]:
    require_cjk_font()
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors = JsErrors(page)
    page.goto(saved.as_uri())
    page.get_by_test_id("rq-player").wait_for()
    yield page
    errors.check()
    context.close()


def fonts_drawing(page: Any, selector: str) -> list[str]:
    """The fonts Chromium really drew ``selector``'s first element's text with (DevTools: getPlatformFontsForNode)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    assert node, selector
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    return [f["familyName"] for f in fonts if f["glyphCount"] > 0]


def test_chinese_words_are_drawn_with_a_chinese_font_light_and_dark(page: Any, screenshot_dir: Path) -> None:
    step = page.get_by_role("button", name="单步", exact=True)
    assert step.count() == 1
    step.click()
    caption = page.get_by_test_id("rmq-caption")
    assert "Broker" in caption.inner_text() or any("\u4e00" <= ch <= "\u9fff" for ch in caption.inner_text())
    drawn = fonts_drawing(page, '[data-testid="rmq-caption"]')
    assert any("CJK" in f or "WenQuanYi" in f or "Droid Sans Fallback" in f for f in drawn), drawn
    title = page.locator("svg text[data-key=title]").first
    assert any("\u4e00" <= ch <= "\u9fff" for ch in title.text_content())
    page.screenshot(path=str(screenshot_dir / "zh-light.png"), full_page=True)
    light_fill = title.evaluate("t => getComputedStyle(t).fill")
    page.evaluate(DARKEN, DARK)
    dark_fill = title.evaluate("t => getComputedStyle(t).fill")
    assert dark_fill != light_fill, "the title is still drawn in the light colours"
    page.screenshot(path=str(screenshot_dir / "zh-dark.png"), full_page=True)


def test_the_pages_jump_box_names_the_kinds_in_chinese(page: Any) -> None:
    """scene.js fills the Jump box in the page from the run's frames: each option is the kind's plain Chinese name the
    kernel sent (``kind:<kind>`` among the player's words) and how many are still to come; no trace name."""
    assert page.locator("html").get_attribute("lang") == "zh-CN"  # save_html's page: the browser's Chinese font
    options = page.get_by_test_id("rq-player").locator("select option")
    expect(options.first).to_have_text(re.compile(r"^[^a-z]*[\u4e00-\u9fff][^a-z]*（\d+）$"))
    texts = options.all_text_contents()
    # the demo's counts at t = 0, up to the checkpoint before the first send-back (beyond it the box would tell)
    assert {"一次发送尝试（1）", "消息被存储（1）"} <= set(texts), texts
    assert not any("死信" in t or "回传" in t for t in texts), texts
    assert all(re.fullmatch(r"[^a-z]*[\u4e00-\u9fff][^a-z]*（\d+）", t) for t in texts), texts
