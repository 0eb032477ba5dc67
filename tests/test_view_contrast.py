"""Text in every view meets WCAG AA (4.5:1) in JupyterLab's light and dark themes, computed from palette.py."""

from __future__ import annotations

import re

import pytest
from rmqlab.widgets.lease_scene import HOLDER_COLOURS
from rmqlab.widgets.palette import JUPYTERLAB_THEMES, OKABE_ITO, STATE_STYLE, TOKEN_COLOURS, contrast_ratio
from rmqlab.widgets.scene import BASE_CSS

AA = 4.5
BACKGROUNDS = ("layout-color0", "layout-color1", "layout-color2")
"""The page, a column (``rq-col``, ``rq-broker``) and a box or slot (``rq-box``, ``rq-slot``): where labels sit."""


def muted_opacity() -> float:
    """The fill-opacity the shared stylesheet gives muted text (over ``--jp-ui-font-color1``)."""
    rule = re.search(r"text\.rq-muted \{([^}]*)\}", BASE_CSS)
    assert rule is not None and "--jp-ui-font-color1" in rule.group(1)
    found = re.search(r"fill-opacity: ([0-9.]+)", rule.group(1))
    return float(found.group(1)) if found else 1.0


def test_contrast_ratio_matches_wcag_reference_values() -> None:
    """Black on white is 21:1, a colour on itself 1:1, #767676 on white the well-known 4.54:1."""
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#336699", "#336699") == pytest.approx(1.0)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize("theme", sorted(JUPYTERLAB_THEMES))
@pytest.mark.parametrize("background", BACKGROUNDS)
def test_plain_and_muted_text_read_on_every_background(theme: str, background: str) -> None:
    colours = JUPYTERLAB_THEMES[theme]
    bg = colours[background]
    assert contrast_ratio(colours["ui-font-color1"], bg) >= AA
    assert contrast_ratio(colours["ui-font-color1"], bg, opacity=muted_opacity()) >= AA


@pytest.mark.parametrize("theme", sorted(JUPYTERLAB_THEMES))
def test_coloured_text_reads_on_the_page(theme: str) -> None:
    """The now label (brand blue) and crash / refused marks (error red) sit on the page background."""
    colours = JUPYTERLAB_THEMES[theme]
    for key in ("brand-color1", "error-color1"):
        assert contrast_ratio(colours[key], colours["layout-color0"]) >= AA, key


def test_black_labels_read_on_every_fill() -> None:
    """Token numbers, offset-strip letters and lease holder names are black on their fills, in both themes."""
    fills = {*TOKEN_COLOURS, *STATE_STYLE.values(), *HOLDER_COLOURS, OKABE_ITO["yellow"]}
    low = {f: round(contrast_ratio("#000000", f), 2) for f in fills if contrast_ratio("#000000", f) < AA}
    assert low == {}


@pytest.mark.parametrize("theme", sorted(JUPYTERLAB_THEMES))
def test_the_not_send_ok_badge_reads_in_both_themes(theme: str) -> None:
    """A stored message answered FLUSH_DISK_TIMEOUT & co. carries a black "!" on a warn-orange badge: legible on
    the badge in both themes (the orange alone is too pale on a light grey slot)."""
    from rmqlab.widgets.flow_layout import FLOW_CSS

    assert "text.rq-not-ok-mark { fill: #000000" in FLOW_CSS and "--jp-warn-color1" in FLOW_CSS
    assert contrast_ratio("#000000", JUPYTERLAB_THEMES[theme]["warn-color1"]) >= AA
