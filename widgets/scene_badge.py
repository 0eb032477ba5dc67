"""A token's badge: a small dark label on its disc's lower right (the flow picture's reconsume times), inside the
token's group so that it travels with it. :mod:`widgets.scene` writes it into the static SVG; ``scene.js`` draws the
same box in the page."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .scene import Mark

__all__ = ["badge_box", "badge_svg"]


def badge_box(m: Mark) -> tuple[float, float, float, float]:
    """A token's badge rectangle (x, y, w, h), relative to the token's centre: on the disc's lower right edge, as wide
    as its text at 11 px (scene.js draws the same box)."""
    w = max(13.0, len(m.badge) * 7.0 + 5.0)
    return m.r * 0.35, m.r * 0.3, w, 13.0


def badge_svg(m: Mark) -> str:
    """The badge of a token as SVG (nothing when it has none)."""
    from .scene import _num  # scene imports this module: its rounding, the one scene.js matches

    if not m.badge:
        return ""
    x, y, w, h = badge_box(m)
    return (
        f'<g class="rq-badge"><rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" rx="3"/>'
        f'<text x="{_num(x + w / 2)}" y="{_num(y + h / 2)}">{html.escape(m.badge)}</text></g>'
    )
