"""Exports: save a view, or a whole dashboard, as a standalone HTML page, an SVG picture or a PNG image, and a
run's trace as JSON Lines.

A student hands in a picture, a teacher puts one on a slide, a reader without Jupyter opens a page: all three
are the *static* drawing the views already make for nbconvert and the docs site (:meth:`Scene.to_svg`,
:meth:`Dashboard.static_html`), so an export shows exactly what the notebook shows, without a kernel::

    from rmqlab.widgets.export import save_html, save_png, save_svg, save_jsonl
    save_html(dash, "lab03.html")                       # the whole dashboard, one file, no network
    save_svg(dash.view("Retry timeline"), "retries.svg")
    save_png(dash.view("Message flow"), "flow.png")     # needs Chromium (Debian: apt-get install chromium)
    save_jsonl(dash, "lab03.jsonl")                     # the same bytes as `rmqlab run FILE --jsonl OUT`

Themes: the views colour everything through JupyterLab's CSS variables with fallbacks. An exported file
defines those variables itself, for JupyterLab's light theme and its dark one; ``theme="auto"`` (the
default) follows the reader's system setting (``prefers-color-scheme``), ``"light"``/``"dark"`` fix one.

PNG needs a browser to draw the SVG: Chromium driven by Playwright (``pip install playwright``; never
``playwright install``: :func:`find_browser` uses the system's Chromium). Without one :func:`save_png` raises
:class:`ExportError` saying what is missing; HTML and SVG need nothing.

This module is where those names are imported from; each format lives in its own module: what an export draws
(:mod:`widgets.export_pictures`), the theme colours (:mod:`widgets.export_theme`), the HTML page
(:mod:`widgets.export_html`), the SVG document (:mod:`widgets.export_svg`), PNG through Chromium
(:mod:`widgets.export_png`) and the trace as JSON Lines (:mod:`widgets.export_trace`).
"""

from __future__ import annotations

from .export_html import PAGE_CSS, save_html, standalone_html
from .export_pictures import EVENT_COLUMNS, event_log_scene, export_scenes
from .export_png import BROWSER_CANDIDATES, find_browser, save_png
from .export_svg import save_svg, standalone_svg
from .export_theme import DARK, FONT, LIGHT, THEMES, ExportError, Theme
from .export_trace import load_jsonl, save_jsonl

__all__ = [
    "BROWSER_CANDIDATES",
    "DARK",
    "EVENT_COLUMNS",
    "FONT",
    "LIGHT",
    "PAGE_CSS",
    "THEMES",
    "ExportError",
    "Theme",
    "event_log_scene",
    "export_scenes",
    "find_browser",
    "load_jsonl",
    "save_html",
    "save_jsonl",
    "save_png",
    "save_svg",
    "standalone_html",
    "standalone_svg",
]
