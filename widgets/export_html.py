"""A view or a whole dashboard as one standalone HTML page: no script, no link, no network.

A reader without Jupyter opens it in any browser; it is the dashboard's static drawing (:meth:`Dashboard.static_html`)
or a view's picture, inside a page that carries its theme's colours (:mod:`widgets.export_theme`). Kept apart from
the SVG document, which lays the pictures out itself, and from PNG, which draws this page in a browser.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from rmqlab.core.i18n import current_language
from rmqlab.core.i18n import gettext as _

from .dashboard import Dashboard
from .event_log import EventLog, event_log_html
from .export_pictures import export_scenes, view_scene
from .export_theme import Theme, theme_css

__all__ = ["LANG_TAGS", "PAGE_CSS", "save_html", "standalone_html"]

PAGE_CSS = """
body { margin: 0; padding: 16px; background: var(--jp-layout-color0, #ffffff);
  color: var(--jp-ui-font-color1, #1f1f1f); font-family: var(--jp-ui-font-family, sans-serif);
  font-size: var(--jp-ui-font-size1, 13px); }
h1 { font-size: 16px; margin: 0 0 8px; }
h4 { margin: 14px 0 4px; }
pre { white-space: pre-wrap; }
table.rmq-events { border-collapse: collapse; }
table.rmq-events th, table.rmq-events td { padding: 1px 6px; text-align: left; vertical-align: top;
  border-bottom: 1px solid var(--jp-border-color2, #e0e0e0); }
table.rmq-events td:nth-child(-n+5) { white-space: nowrap; }
footer { margin-top: 12px; color: var(--jp-ui-font-color2, #616161); font-size: 11px; }
"""
"""The page around the pictures: theme background and text colour, the event table's rules."""
LANG_TAGS = {"en": "en", "zh": "zh-CN"}
"""The page's ``lang`` in each of rmqlab's languages: a browser picks its Chinese font (Noto Sans CJK SC, not a
Japanese one) by it."""


def standalone_html(view: Any, *, title: str | None = None, theme: Theme = "auto") -> str:
    """One self-contained HTML page (no script, no link, no network) showing ``view`` as the notebook does."""
    css = theme_css(theme, ":root")
    if isinstance(view, Dashboard):
        body = view.static_html()
        name = title or _("rmqlab dashboard")
    elif isinstance(view, EventLog):
        view_scene(view)  # the same "nothing drawn yet" error as the pictures
        body = event_log_html(view.vm)  # its own data-testid="rq-event-log"
        name = title or _(view.title)
    else:
        ((name, scene),) = export_scenes(view)
        name = title or name
        body = scene.to_svg()
    footer = _("exported from rmqlab (virtual time; the same seed gives the same picture)")
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{LANG_TAGS[current_language()]}"><head><meta charset="utf-8"><title>{html.escape(name)}</title>'
        '<meta name="color-scheme" content="light dark">'
        f"<style>{css}\n{PAGE_CSS}</style></head>\n"
        f'<body><main data-testid="rq-export" data-theme="{theme}">'
        f"<h1>{html.escape(name)}</h1>\n{body}\n"
        f"<footer>{html.escape(footer)}</footer>"
        "</main></body></html>\n"
    )


def save_html(view: Any, path: str | os.PathLike[str], *, title: str | None = None, theme: Theme = "auto") -> Path:
    """Write :func:`standalone_html` to ``path`` (UTF-8) and return the path."""
    out = Path(path)
    out.write_text(standalone_html(view, title=title, theme=theme), encoding="utf-8")
    return out
