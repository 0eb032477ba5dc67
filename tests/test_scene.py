"""The Scene vocabulary: static SVG text, the JSON the widget receives, lookups by key and role."""

from __future__ import annotations

import pytest
from rmqlab.widgets.legend import legend_marks
from rmqlab.widgets.scene import Mark, Scene, SceneView, SceneWidget, text_width


def small() -> Scene:
    return Scene(
        120,
        40,
        (
            Mark("rect", "box:a", x=1, y=2, w=30.04, h=20, cls="rq-box", role="place"),
            Mark("line", "edge", x=31, y=12, x2=90, y2=12, cls="rq-arrow", arrow=True),
            Mark("token", "msg:M1", x=100.25, y=12, r=7, text="1", fill="#E69F00", role="token", title="M1"),
            Mark("text", "label", x=5, y=35, text="a < b", anchor="middle"),
        ),
        label="tiny",
        testid="rq-tiny",
    )


def test_static_svg_is_exact_text() -> None:
    """Coordinates round to 0.1 px, ids derive from the test id, text is escaped."""
    svg = small().to_svg()
    assert '<rect class="rq-box" data-key="box:a" data-role="place" x="1" y="2" width="30" height="20"></rect>' in svg
    assert 'marker-end="url(#rq-rq-tiny-arrow)"' in svg and 'id="rq-rq-tiny-arrow"' in svg
    assert (
        '<g class="rq-token" data-key="msg:M1" data-role="token" transform="translate(100.3,12)">'
        '<title>M1</title><circle r="7" style="fill:#E69F00"/><text>1</text></g>'
    ) in svg
    assert 'text-anchor="middle">a &lt; b</text>' in svg
    assert svg == small().to_svg()


def test_json_drops_default_fields_but_keeps_kind_and_key() -> None:
    """The widget gets only what a mark sets: small comm messages, same content."""
    data = small().to_json()
    assert data["marks"][0] == {
        "kind": "rect", "key": "box:a", "x": 1, "y": 2, "w": 30.04, "h": 20, "cls": "rq-box", "role": "place",
    }
    assert data["marks"][1]["arrow"] is True
    assert data["testid"] == "rq-tiny" and data["width"] == 120


def test_lookup_by_key_and_role() -> None:
    scene = small()
    assert scene.keys("token") == ("msg:M1",)
    assert scene.mark("msg:M1").x == 100.25
    with pytest.raises(KeyError, match="no mark 'nope'"):
        scene.mark("nope")


def test_unknown_kind_is_refused_with_its_name() -> None:
    bad = Scene(10, 10, (Mark("blob", "x"),))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kind 'blob' is not one of"):
        bad.to_svg()


def test_legend_rows_are_glyph_plus_label() -> None:
    marks = legend_marks((("token", "#009E73", "acked"), ("rect", "rq-box", "queue")), x=0, y=10)
    assert [m.kind for m in marks] == ["token", "text", "rect", "text"]
    assert marks[0].fill == "#009E73" and marks[2].cls == "rq-box"
    assert marks[3].y == 28 and marks[3].text == "queue"


def test_scene_widget_sends_the_json() -> None:
    w = SceneWidget()
    w.show(small())
    assert w.scene == small().to_json()


class _Boxes(SceneView):
    title = "boxes"

    def model(self, snap: object) -> int:
        return 3

    def scene(self, vm: int) -> Scene:
        return Scene(50, 10, tuple(Mark("rect", f"b{i}", x=i * 10, w=8, h=8) for i in range(vm)), testid="rq-boxes")

    def to_text(self, vm: int) -> str:
        return "#" * vm


def test_scene_view_draws_and_offers_static_html() -> None:
    """A SceneView shows its scene in the widget and keeps the same picture as static SVG."""
    view = _Boxes()
    assert view.static_html() == ""
    view.update(object())  # type: ignore[arg-type]
    assert view.canvas.scene["marks"][2]["key"] == "b2"
    assert view.static_html().count("<rect") == 3
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and bundle["text/html"] == view.static_html()


def test_coordinates_round_half_up_like_scene_js() -> None:
    """Math.round in scene.js rounds .x5 up; the static SVG must print the same digits (not banker's rounding)."""
    svg = Scene(10, 10, (Mark("rect", "r", x=0.25, y=0.35, w=2.45, h=1.05),)).to_svg()
    assert 'x="0.3" y="0.4" width="2.5" height="1.1"' in svg


def test_a_cjk_character_is_reserved_about_two_latin_letters() -> None:
    """汉字 and full-width punctuation get 1.1 em each (one em in Noto CJK, plus the Latin classes' slack), about
    twice a lowercase Latin letter (0.65 em): a Chinese label is laid out as wide as it is drawn."""
    assert text_width("重试队列", 11) == pytest.approx(4 * 1.1 * 11)
    assert text_width("（：，）", 10) == pytest.approx(4 * 1.1 * 10)
    assert text_width("确认", 11) > 2 * text_width("ac", 11) * 0.8
    assert text_width("%RETRY% 重试队列", 11) == pytest.approx(text_width("%RETRY% ", 11) + 4 * 1.1 * 11)
