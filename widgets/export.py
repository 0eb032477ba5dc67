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
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

from rmqlab import EventKind, Lab, Trace, format_duration

from .dashboard import Dashboard
from .event_log import CURRENT_STYLE, EventLog, EventLogModel, event_log_html
from .scene import BASE_CSS, Mark, Scene, SceneView, _mark_svg, _svg_id, text_width

__all__ = [
    "BROWSER_CANDIDATES",
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

Theme = Literal["auto", "light", "dark"]
THEMES: tuple[str, ...] = ("auto", "light", "dark")

BROWSER_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
"""Where :func:`find_browser` looks after ``$RMQLAB_BROWSER`` and ``$BROWSER_PATH`` (Debian's binary first)."""

LIGHT = {
    "--jp-layout-color0": "#ffffff",
    "--jp-layout-color1": "#ffffff",
    "--jp-layout-color2": "#eeeeee",
    "--jp-layout-color3": "#bdbdbd",
    "--jp-ui-font-color1": "rgba(0, 0, 0, 0.87)",
    "--jp-ui-font-color2": "rgba(0, 0, 0, 0.54)",
    "--jp-ui-font-color3": "rgba(0, 0, 0, 0.38)",
    "--jp-border-color1": "#bdbdbd",
    "--jp-border-color2": "#e0e0e0",
    "--jp-brand-color1": "#1976d2",
    "--jp-brand-color2": "#64b5f6",
    "--jp-error-color1": "#d32f2f",
    "--jp-warn-color0": "#e65100",
    "--jp-success-color1": "#388e3c",
}
"""JupyterLab 4's light theme, for the variables the views read (``grep -o 'var(--jp-[a-z0-9-]*' widgets``)."""
DARK = {
    "--jp-layout-color0": "#111111",
    "--jp-layout-color1": "#212121",
    "--jp-layout-color2": "#424242",
    "--jp-layout-color3": "#616161",
    "--jp-ui-font-color1": "rgba(255, 255, 255, 0.87)",
    "--jp-ui-font-color2": "rgba(255, 255, 255, 0.54)",
    "--jp-ui-font-color3": "rgba(255, 255, 255, 0.38)",
    "--jp-border-color1": "#616161",
    "--jp-border-color2": "#424242",
    "--jp-brand-color1": "#42a5f5",
    "--jp-brand-color2": "#1565c0",
    "--jp-error-color1": "#ef5350",
    "--jp-warn-color0": "#ffa726",
    "--jp-success-color1": "#66bb6a",
}
"""JupyterLab 4's dark theme, for the same variables."""

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"

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
footer { margin-top: 12px; color: var(--jp-ui-font-color2, #616161); font-size: 11px; }
"""
"""The page around the pictures: theme background and text colour, the event table's rules."""


class ExportError(RuntimeError):
    """An export that cannot be made as asked (nothing drawn yet, no browser for PNG, a trace that kept nothing)."""


def _theme_css(theme: str, root: str) -> str:
    """The ``--jp-*`` variables on ``root`` for ``theme`` (``auto``: light, dark under prefers-color-scheme)."""
    if theme not in THEMES:
        raise ValueError(f"theme={theme!r}: must be one of {', '.join(THEMES)}")

    def block(values: dict[str, str]) -> str:
        body = " ".join(f"{k}: {v};" for k, v in values.items())
        return (
            f"{root} {{ {body} --jp-ui-font-family: {FONT}; color-scheme: {'dark' if values is DARK else 'light'}; }}"
        )

    if theme == "light":
        return block(LIGHT)
    if theme == "dark":
        return block(DARK)
    return f"{block(LIGHT)}\n@media (prefers-color-scheme: dark) {{ {block(DARK)} }}"


# ------------------------------------------------------------------ what an export draws


def export_scenes(view: Any) -> list[tuple[str, Scene]]:
    """The pictures of ``view`` as ``(title, Scene)``: one for a view, every view in dashboard order for a
    Dashboard (the main picture, then the tabs). The event log, which is a table, is drawn as one
    (:func:`event_log_scene`) so it can be an SVG too.
    """
    if isinstance(view, Scene):
        return [(view.label or view.testid, view)]
    if isinstance(view, Dashboard):
        views = ([view.main_view] if view.main_view is not None else []) + view.tab_views
        return [(v.title, _view_scene(v)) for v in views]
    if isinstance(view, SceneView | EventLog):
        return [(view.title, _view_scene(view))]
    raise TypeError(_wrong_type(view))


def _wrong_type(view: Any) -> str:
    return (
        f"view={type(view).__name__}: must be a Dashboard, one of its views (FlowView, SpaceTimeView, "
        f"OffsetStripView, LeaseView, RetryTimeline, TopologyView, EventLog) or a Scene"
    )


def _view_scene(view: Any) -> Scene:
    if view.vm is None:
        raise ExportError(
            f"{type(view).__name__} ({view.title!r}) has drawn nothing yet: show it on a lab first "
            "(a Dashboard does; alone: view.update(take_snapshot(lab)))"
        )
    if isinstance(view, EventLog):
        return event_log_scene(view.vm)
    assert isinstance(view, SceneView) and view.current is not None
    return view.current


EVENT_COLUMNS = ("#", "time", "kind", "actor", "msg", "details")


def event_log_scene(vm: EventLogModel, *, px: float = 11.0) -> Scene:
    """The event table as a Scene: one text mark per cell (key ``row:<seq>:<column>``, role ``event-row``),
    the current row bold with an outline, as the live table draws it. Columns are as wide as their widest cell
    (:func:`text_width`), so the SVG needs no browser to lay itself out."""
    header = tuple(EVENT_COLUMNS)
    cells = [(r, (str(r.seq), format_duration(r.time_ms), r.kind, r.actor, r.msg_id, r.details)) for r in vm.rows]
    widths = [
        max([text_width(h, px, bold=True)] + [text_width(c[i], px, bold=r.current) for r, c in cells]) + 12
        for i, h in enumerate(header)
    ]
    xs = [8.0]
    for w in widths[:-1]:
        xs.append(xs[-1] + w)
    row_h, top = 16.0, 18.0
    marks: list[Mark] = [
        Mark("text", "summary", x=8, y=top - 4, text=f"{vm.matched} of {vm.total} events", cls="rq-muted")
    ]
    y = top + row_h
    for i, h in enumerate(header):
        marks.append(Mark("text", f"head:{i}", x=xs[i], y=y - 4, text=h, cls="rq-title", role="event-head"))
    for r, c in cells:
        y += row_h
        if r.current:
            outline = "rq-current-row"
            marks.append(Mark("rect", f"row:{r.seq}:outline", x=4, y=y - row_h + 2, w=sum(widths) + 8, h=row_h,
                              cls=outline, role="event-current"))  # fmt: skip
        for i, text in enumerate(c):
            marks.append(Mark("text", f"row:{r.seq}:{EVENT_COLUMNS[i]}", x=xs[i], y=y - 4, text=text,
                              cls="rq-title" if r.current else "", role="event-row"))  # fmt: skip
    outline_colour = re.search(r"outline:\S+ \S+ (#[0-9A-Fa-f]{6})", CURRENT_STYLE)
    css = (
        '[data-testid="rq-event-log"] .rq-current-row { fill: none; stroke-width: 2; '
        f"stroke: {outline_colour.group(1) if outline_colour else 'currentColor'}; }}"
    )
    width = int(sum(widths) + 16)
    return Scene(width, int(y + 8), tuple(marks), label=f"event log: {vm.matched} of {vm.total} events",
                 testid="rq-event-log", css=css)  # fmt: skip


# ------------------------------------------------------------------ HTML


def standalone_html(view: Any, *, title: str | None = None, theme: Theme = "auto") -> str:
    """One self-contained HTML page (no script, no link, no network) showing ``view`` as the notebook does."""
    css = _theme_css(theme, ":root")
    if isinstance(view, Dashboard):
        body = view.static_html()
        name = title or "rmqlab dashboard"
    elif isinstance(view, EventLog):
        _view_scene(view)  # the same "nothing drawn yet" error as the pictures
        body = f'<div data-testid="rq-event-log">{event_log_html(view.vm)}</div>'
        name = title or view.title
    else:
        ((name, scene),) = export_scenes(view)
        name = title or name
        body = scene.to_svg()
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{html.escape(name)}</title>'
        '<meta name="color-scheme" content="light dark">'
        f"<style>{css}\n{PAGE_CSS}</style></head>\n"
        f'<body><main data-testid="rq-export" data-theme="{theme}">'
        f"<h1>{html.escape(name)}</h1>\n{body}\n"
        "<footer>exported from rmqlab (virtual time; the same seed gives the same picture)</footer>"
        "</main></body></html>\n"
    )


def save_html(view: Any, path: str | os.PathLike[str], *, title: str | None = None, theme: Theme = "auto") -> Path:
    """Write :func:`standalone_html` to ``path`` (UTF-8) and return the path."""
    out = Path(path)
    out.write_text(standalone_html(view, title=title, theme=theme), encoding="utf-8")
    return out


# ------------------------------------------------------------------ SVG


def _svg_body(scene: Scene, *, x: float, y: float) -> str:
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
        parts.append(_svg_body(scene, x=pad, y=y))
        y += scene.height + (pad and 10)
        width = max(width, scene.width + 2 * pad)
    if header:
        width = max(width, *(text_width(line, 11) + 2 * pad for line in header))
    height = y + pad - (pad and 10)
    css = "\n".join(dict.fromkeys(s.css for _, s in scenes if s.css))  # each view's rules once, in order
    root_css = _theme_css(theme, "svg.rq-export")
    style = (
        f"{root_css}\nsvg.rq-export {{ background: var(--jp-layout-color0, #ffffff); "
        f"font-family: var(--jp-ui-font-family, sans-serif); }}\n"
        "svg.rq-export > text { fill: var(--jp-ui-font-color1, #1f1f1f); font-size: 12px; }\n"
        "svg.rq-export > text.rq-muted { fill: var(--jp-ui-font-color2, #616161); font-size: 11px; }\n"
        "svg.rq-export > text.rq-title { font-weight: 600; }\n"
        f"{BASE_CSS}\n{css}"
    )
    label = scenes[0][1].label if len(scenes) == 1 else "rmqlab dashboard"
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


# ------------------------------------------------------------------ PNG


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


# ------------------------------------------------------------------ the trace as JSON Lines


def _trace_of(source: Any) -> Trace:
    if isinstance(source, Trace):
        trace = source
    elif isinstance(source, Lab):
        trace = source.trace
    elif isinstance(source, Dashboard):
        replay = source.controller.replay
        if replay is None:
            raise ExportError("the dashboard has no run (its factory failed): nothing to save")
        trace = Trace()  # the run up to where the dashboard stands: what its views show
        for e in list(replay.lab.trace)[: source.controller.position]:
            trace.record(e.time_ms, e.kind, e.actor, e.msg_id, **e.data)
        return trace
    else:
        raise TypeError(f"source={type(source).__name__}: must be a Lab, its trace, or a Dashboard")
    if not trace.enabled:
        raise ExportError("this trace keeps no events (Lab(trace=False) only counts them): run with trace=True")
    return trace


def save_jsonl(source: Any, path: str | os.PathLike[str]) -> Path:
    """Write the run's trace as JSON Lines (one event per line, ``Trace.to_jsonl``): the same bytes as
    ``rmqlab run FILE --jsonl PATH``. A dashboard saves its run up to where it stands (its scrubber), which is
    what its views show."""
    out = Path(path)
    out.write_text(_trace_of(source).to_jsonl(), encoding="utf-8")
    return out


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ExportError(f"{path}:{number}: not a JSON line ({exc.msg})") from None
            if not isinstance(event, dict) or not {"seq", "time_ms", "kind", "actor", "msg_id"} <= event.keys():
                raise ExportError(f"{path}:{number}: not a trace event (needs seq, time_ms, kind, actor, msg_id)")
            yield number, event


def load_jsonl(path: str | os.PathLike[str]) -> Trace:
    """A :class:`Trace` read back from JSON Lines (:func:`save_jsonl`, ``rmqlab run --jsonl``): the same events,
    so ``load_jsonl(p).to_jsonl()`` is the file again, byte for byte, and every trace reader works on it."""
    source = Path(path)
    trace = Trace()
    for number, event in _lines(source):
        seq, time_ms, kind = event.pop("seq"), event.pop("time_ms"), event.pop("kind")
        actor, msg_id = event.pop("actor"), event.pop("msg_id")
        if seq != len(trace) + 1:
            raise ExportError(f"{source}:{number}: seq={seq!r}, expected {len(trace) + 1} (a trace has every event)")
        try:
            trace.record(time_ms, EventKind(kind), actor, msg_id, **event)
        except ValueError:
            raise ExportError(f"{source}:{number}: kind={kind!r} is not an EventKind") from None
    return trace
