"""A view or a whole dashboard as one self-contained SVG document (a picture for a slide or a hand-in).

Each picture is nested as its own ``<svg>`` (its marks, its arrow marker, its data-testid for its CSS), a dashboard's
stacked under their titles below its clock and caption; the theme's variables sit on the root element, so the file
needs no browser and no page around it. :func:`svg_body` also draws each frame of :mod:`widgets.animation`.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import Any

from rmqlab.core.i18n import gettext as _

from .dashboard import Dashboard
from .export_pictures import export_scenes
from .export_theme import Theme, theme_css
from .scene import BASE_CSS, Scene, _mark_svg, _svg_id, text_width

__all__ = ["save_svg", "standalone_svg", "svg_body"]


def svg_body(scene: Scene, *, x: float, y: float) -> str:
    """``scene`` as a nested ``<svg>`` at (x, y): its marks, its arrow marker, its data-testid for its CSS."""
    sid = _svg_id(scene.testid)
    extra = "".join(f' data-{html.escape(k)}="{html.escape(v)}"' for k, v in scene.extra)
    return "".join(
        [
            f'<svg class="rq-scene" data-testid="{html.escape(scene.testid)}"{extra} role="img" '
            f'aria-label="{html.escape(scene.label)}" x="{x:g}" y="{y:g}" width="{scene.width}" '
            f'height="{scene.height}" viewBox="0 0 {scene.width} {scene.height}" overflow="visible">',
            f'<defs><marker id="{sid}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto-start-reverse"><path class="rq-marker" d="M0,0 L10,5 L0,10 z"/>'
            "</marker></defs>",
            *(_mark_svg(m, sid) for m in scene.marks),
            "</svg>",
        ]
    )


def _dashboard_header(dash: Dashboard) -> list[str]:
    clock = html.unescape(re.sub(r"<[^>]+>", "", dash.controller.clock.value))
    return [line for line in (clock, *dash.controller.caption_lines) if line]


def standalone_svg(view: Any, *, theme: Theme = "auto") -> str:
    """One self-contained SVG document: a view's picture, or a dashboard's clock, caption and every picture
    stacked under their titles. Valid XML (tests parse it); the theme variables sit on the root element."""
    scenes = export_scenes(view)
    header = _dashboard_header(view) if isinstance(view, Dashboard) else []
    pad = 8.0 if len(scenes) > 1 or header else 0.0
    parts: list[str] = []
    y = pad
    for i, line in enumerate(header):
        y += 15
        parts.append(f'<text class="{"rq-title" if i == 0 else "rq-muted"}" x="{pad:g}" y="{y:g}" '
                     f'data-role="dashboard-caption">{html.escape(line)}</text>')  # fmt: skip
    width = 0.0
    for name, scene in scenes:
        if len(scenes) > 1:
            y += 22
            parts.append(f'<text class="rq-title rq-export-title" x="{pad:g}" y="{y - 6:g}" '
                         f'data-role="view-title">{html.escape(name)}</text>')  # fmt: skip
        parts.append(svg_body(scene, x=pad, y=y))
        y += scene.height + (pad and 10)
        width = max(width, scene.width + 2 * pad)
    if header:
        width = max(width, *(text_width(line, 11) + 2 * pad for line in header))
    height = y + pad - (pad and 10)
    css = "\n".join(dict.fromkeys(s.css for _, s in scenes if s.css))  # each view's rules once, in order
    root_css = theme_css(theme, "svg.rq-export")
    style = (
        f"{root_css}\nsvg.rq-export {{ background: var(--jp-layout-color0, #ffffff); "
        f"font-family: var(--jp-ui-font-family, sans-serif); }}\n"
        "svg.rq-export > text { fill: var(--jp-ui-font-color1, #1f1f1f); font-size: 12px; }\n"
        "svg.rq-export > text.rq-muted { fill: var(--jp-ui-font-color2, #616161); font-size: 11px; }\n"
        "svg.rq-export > text.rq-title { font-weight: 600; }\n"
        f"{BASE_CSS}\n{css}"
    )
    label = scenes[0][1].label if len(scenes) == 1 else _("rmqlab dashboard")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rq-export" '
        f'role="img" aria-label="{html.escape(label)}" data-theme="{theme}" '
        f'width="{width:g}" height="{height:g}" viewBox="0 0 {width:g} {height:g}">'
        f"<style><![CDATA[{style}]]></style>{''.join(parts)}</svg>\n"
    )


def save_svg(view: Any, path: str | os.PathLike[str], *, theme: Theme = "auto") -> Path:
    """Write :func:`standalone_svg` to ``path`` (UTF-8) and return the path."""
    out = Path(path)
    out.write_text(standalone_svg(view, theme=theme), encoding="utf-8")
    return out
