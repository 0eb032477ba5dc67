"""The legend every picture draws under itself, built from the same marks as the picture, so they all look alike."""

from __future__ import annotations

from rmqlab.core.i18n import gettext as _

from .scene import Mark

__all__ = ["legend_marks"]


def legend_marks(
    items: tuple[tuple[str, str, str], ...], *, x: float, y: float, key: str = "legend", gap: float = 14.0
) -> tuple[Mark, ...]:
    """A vertical legend: one row per ``(glyph kind, css class or fill, label)``.

    ``glyph kind`` is ``token`` (a small disc in that fill colour), ``rect`` (a swatch of that class) or
    ``line`` (a stroke of that class). ``style`` may combine a fill and classes (``"#E69F00 rq-done"``:
    the token as the view draws a consumed message). Every view draws its legend with this, so they all
    look alike. ``label`` is shown in the current language (a constant marked with ``N_`` is translated here).
    """
    marks: list[Mark] = []
    for i, (glyph, style, label) in enumerate(items):
        cy = y + i * gap
        k = f"{key}:{i}"
        words = style.split()
        fill = next((w for w in words if w.startswith("#")), "")
        cls = " ".join(w for w in words if not w.startswith("#"))
        if glyph == "token":
            marks.append(Mark("token", f"{k}:g", x=x + 5, y=cy, r=5, fill=fill, cls=cls, role="legend"))
        elif glyph == "none":  # the caller draws it (the flow picture's padlock: widgets.flow_lock_legend)
            pass
        elif glyph == "line":
            marks.append(Mark("line", f"{k}:g", x=x, y=cy, x2=x + 12, y2=cy, cls=cls, stroke=fill, role="legend"))
        else:
            marks.append(Mark("rect", f"{k}:g", x=x, y=cy - 5, w=12, h=10, cls=cls, fill=fill, role="legend"))
        marks.append(Mark("text", f"{k}:t", x=x + 18, y=cy + 4, text=_(label), cls="rq-muted", role="legend"))
    return tuple(marks)
