"""Knobs read plain words with their keyword under them (revA item 18), in English and Chinese."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest
from rmqlab.widgets import Dashboard, demo_lab
from rmqlab.widgets.knob_labels import KNOB_LABELS, knob_description, knob_label

from rmqlab.core.i18n import speaking

pytestmark = pytest.mark.usefixtures("no_running_loop")
ROOT = pathlib.Path(__file__).resolve().parents[1]


def lab_knobs() -> set[str]:
    """Every knob a lab's Dashboard declares (``knobs={...}``), English and Chinese labs."""
    names: set[str] = set()
    for path in [*ROOT.glob("labs/*.py"), *ROOT.glob("labs/zh/*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == "knobs" and isinstance(kw.value, ast.Dict):
                        names |= {k.value for k in kw.value.keys if isinstance(k, ast.Constant)}
    return names


def test_every_lab_knob_has_a_plain_label() -> None:
    names = lab_knobs()
    assert "retry_another_broker_when_not_store_ok" in names
    assert names <= set(KNOB_LABELS), sorted(names - set(KNOB_LABELS))
    assert all("_" not in knob_label(n) for n in names)


@pytest.mark.parametrize(("language", "label"), [("en", "max reconsume times"), ("zh", "最大重试次数")])
def test_the_knob_shows_its_label_and_its_keyword(language: str, label: str) -> None:
    with speaking(language):
        dash = Dashboard(lambda max_reconsume_times=1: demo_lab(max_reconsume_times=max_reconsume_times),
                         knobs={"max_reconsume_times": 1}, horizon="5s")  # fmt: skip
    knob = dash.knobs["max_reconsume_times"]  # the knob keeps its keyword as its name
    assert knob.description_allow_html
    if language == "en":  # the label is the keyword in words: said once
        assert knob.description == label
    else:
        assert knob.description.startswith(label + " <span")
        assert knob.description.endswith(">max_reconsume_times</span>")
    assert "max_reconsume_times" in knob.tooltip and label in knob.tooltip
    dash.set_knobs(max_reconsume_times=2)
    assert dash.knob_values() == {"max_reconsume_times": 2}


def test_a_label_in_other_words_shows_the_keyword_after_it() -> None:
    said = knob_description("retry_another_broker_when_not_store_ok")
    assert said.startswith("retry another broker when not stored OK <span")
    assert said.endswith(">retry_another_broker_when_not_store_ok</span>")


def test_an_unknown_knob_reads_its_keyword_with_spaces_and_a_plain_one_once() -> None:
    assert knob_label("hand_over_at") == "hand over at"
    assert knob_description("messages") == "messages" and knob_description("hand_over_at") == "hand over at"


def test_a_knob_row_is_as_wide_as_label_and_input_and_its_input_keeps_7_digits() -> None:
    """revD 1: ipywidgets' fixed 300 px row left "listener time per message (s) listener_seconds" a 10 px IntText.
    Every text or dropdown knob is ``width: auto`` with the ``rq-knob`` class, and the page's CSS keeps its input at
    least 6.5 em (the browser test measures it: tests/browser/test_knobs_browser.py)."""
    from rmqlab.widgets.knob_labels import knob_widget

    knobs = [knob_widget("listener_seconds", 25), knob_widget("response_delay_s", 2.5), knob_widget("selector", "a"),
             knob_widget("mode", "SYNC", options=["SYNC", "ASYNC"])]  # fmt: skip
    for knob in knobs:
        assert knob.layout.width == "auto" and "rq-knob" in knob._dom_classes, knob
    css = (ROOT / "widgets" / "scene.js").read_text().split("const PLAYER_CSS = `", 1)[1].split("`", 1)[0]
    rule = re.search(r"\.rq-knob\.widget-inline-hbox > input,[^{]*\{([^}]*)\}", css)
    assert rule is not None and "min-width: 6.5em" in rule.group(1), css
    assert re.search(r"\.rq-knob\.widget-inline-hbox > label \{[^}]*white-space: normal", css)  # the label wraps
