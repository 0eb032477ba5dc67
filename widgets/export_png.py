"""A view or a whole dashboard as a PNG image, drawn by headless Chromium from its standalone HTML page.

Only a browser draws the SVG exactly as the notebook does, so PNG is the one export that needs something installed:
Chromium driven by Playwright (``pip install playwright``; never ``playwright install``: :func:`find_browser` uses
the system's Chromium). Without one :func:`save_png` raises :class:`ExportError` saying what is missing. Kept apart
because it is the only export that starts a process and talks to it.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .dashboard import Dashboard
from .event_log import EventLog
from .export_html import standalone_html
from .export_pictures import export_scenes
from .export_theme import ExportError, Theme

__all__ = ["BROWSER_CANDIDATES", "find_browser", "save_png"]

BROWSER_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
"""Where :func:`find_browser` looks after ``$RMQLAB_BROWSER`` and ``$BROWSER_PATH`` (Debian's binary first)."""


def find_browser(browser: str | os.PathLike[str] | None = None) -> str:
    """The Chromium executable :func:`save_png` drives: ``browser`` if given, else ``$RMQLAB_BROWSER``, else
    ``$BROWSER_PATH``, else the first of :data:`BROWSER_CANDIDATES` that exists. :class:`ExportError` names
    what was tried when none does."""
    tried: list[str] = []
    for candidate in (browser, os.environ.get("RMQLAB_BROWSER"), os.environ.get("BROWSER_PATH"), *BROWSER_CANDIDATES):
        if not candidate:
            continue
        name = os.fspath(candidate)
        found = name if os.path.isfile(name) and os.access(name, os.X_OK) else shutil.which(name)
        if found:
            return found
        tried.append(name)
        if browser is not None and candidate is browser:
            raise ExportError(f"browser={name!r}: no executable there; pass the path of a Chromium or Chrome binary")
    raise ExportError(
        f"save_png needs Chromium to draw the picture and found none (tried {', '.join(tried)}). Install it "
        "(Debian/Ubuntu: apt-get install chromium), or pass browser=PATH or set RMQLAB_BROWSER; "
        "save_svg and save_html need no browser."
    )


def save_png(
    view: Any,
    path: str | os.PathLike[str],
    *,
    theme: Theme = "light",
    scale: float = 2.0,
    browser: str | os.PathLike[str] | None = None,
) -> Path:
    """Draw :func:`standalone_html` in headless Chromium and save the picture (a view's SVG exactly, a
    dashboard's whole page) as PNG, ``scale`` device pixels per CSS pixel. No request leaves the page."""
    if not isinstance(scale, int | float) or isinstance(scale, bool) or not 0.5 <= scale <= 4:
        raise ValueError(f"scale={scale!r}: must be a number from 0.5 to 4 (device pixels per CSS pixel)")
    page_html = standalone_html(view, theme=theme)  # bad views and themes fail before any browser starts
    scenes = export_scenes(view)
    executable = find_browser(browser)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise ExportError(
            "save_png needs Playwright for Python to drive Chromium: pip install playwright "
            "(never `playwright install`: it uses the system's Chromium)"
        ) from exc
    out = Path(path)
    width = int(max(s.width for _, s in scenes)) + 64
    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", "--disable-quic"]  # fmt: skip

    def shoot() -> None:
        with tempfile.TemporaryDirectory(prefix="rmqlab-png-") as tmp:
            page_file = Path(tmp) / "view.html"
            page_file.write_text(page_html, encoding="utf-8")
            with sync_playwright() as p:
                chromium = p.chromium.launch(executable_path=executable, args=args, headless=True)
                try:
                    scheme = "no-preference" if theme == "auto" else theme
                    context = chromium.new_context(viewport={"width": max(width, 480), "height": 600},
                                                   device_scale_factor=scale, color_scheme=scheme)  # fmt: skip
                    context.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
                    page = context.new_page()
                    page.goto(page_file.as_uri())
                    target = "main" if isinstance(view, Dashboard | EventLog) else "main .rq-scene svg"
                    page.locator(target).first.screenshot(path=str(out))
                finally:
                    chromium.close()

    # Playwright's sync API refuses to run in a thread with a running asyncio loop, and a Jupyter kernel's main
    # thread always has one: the browser is driven from a worker thread of its own, wherever save_png is called.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rmqlab-png") as worker:
        worker.submit(shoot).result()
    return out
