"""Export for slides: a run, or a range of its steps, as an animated GIF or WebP, one frame per Step.

A teacher wants the message flow of a run on a slide, moving as it does under the dashboard's Step button,
with what each step did written under it. :func:`save_animation` draws exactly those pictures: it replays
the dashboard's run (its factory, its knobs, its injected faults) in a second, headless controller — the
dashboard on screen does not move — and at each step takes the main view's :class:`~widgets.scene.Scene`
(the same SVG the notebook, nbconvert and the docs show) and the step's caption, then rasterises every frame
without a browser (resvg, through ``resvg-py``) and writes them with Pillow::

    from rmqlab.widgets.animation import save_animation
    save_animation(dash, "lab03.gif")                       # every step of the run
    save_animation(dash, "retries.webp", start=5, stop=25)  # steps 5 … 24 (20 frames), as animated WebP

Step 0 is the picture before the first Step (t = 0, as the dashboard opens); step k is the picture after k
presses of Step (meaningful steps, or raw trace positions if the dashboard's "every event" toggle is on).
Frames carry the virtual clock and "step k of the run" above the picture, so no two frames are the same and a
GIF or WebP writer never merges two of them: a file of ``stop - start`` frames is what comes out.

Text is drawn with the system's fonts (DejaVu Sans on Debian, whatever ``fc-list`` shows); for CJK text in
message keys or captions, install a CJK font (Debian: ``apt-get install fonts-noto-cjk``): resvg falls back to
it for those characters, which otherwise show as empty boxes.
"""

from __future__ import annotations

import html
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rmqlab import format_duration

from .controller import Controller
from .dashboard import Dashboard
from .export_svg import svg_body
from .export_theme import DARK, FONT, LIGHT, ExportError, Theme
from .scene import BASE_CSS, Scene, SceneView, text_width

__all__ = [
    "ANIMATION_FORMATS",
    "MAX_FRAMES",
    "Frame",
    "animation_frames",
    "frame_svg",
    "resolve_theme_variables",
    "save_animation",
]

ANIMATION_FORMATS: tuple[str, ...] = ("gif", "webp")
"""What :func:`save_animation` writes: an animated GIF (every slide tool plays it) or an animated WebP (a
video-like file, smaller and in full colour, for browsers and recent PowerPoint and Keynote)."""

MAX_FRAMES = 200
"""Frames one file holds: 200 steps are 5 minutes at 1.5 s a step, already long for a slide; the frames are
kept in memory until the file is written (a WebP frame of the message flow at scale 1.5: about 4 MB)."""
CAPTION_PX = 13.0
CLOCK_PX = 14.0
PAD = 12.0
LINE_GAP = 5.0
BULLET_INDENT = 12.0


@dataclass(frozen=True)
class Frame:
    """One step of the run as it will be drawn: where the run was, what the step did, the main view's picture."""

    step: int
    """How many Steps from the start (0: the picture as the dashboard opens)."""
    position: int
    """The trace position the step reached."""
    time_ms: int
    """The virtual time at that position."""
    caption: tuple[str, ...]
    """The dashboard's caption for that step (one line per event it narrates)."""
    scene: Scene
    """The main view's picture at that step."""


# ------------------------------------------------------------------ the frames


def _check_range(start: Any, stop: Any) -> None:
    for name, value in (("start", start), ("stop", stop)):
        if value is None and name == "stop":
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name}={value!r}: must be a step number, an int >= 0 (step 0 is t = 0)")
    if stop is not None and stop <= start:
        raise ValueError(f"stop={stop!r}: must be greater than start={start!r} (the frames are steps start … stop - 1)")


def _headless_twin(dash: Dashboard, view: str | None) -> tuple[Controller, SceneView]:
    """A controller on the dashboard's run (same factory, faults and step mode) drawing one fresh copy of the
    view to export, so exporting never moves the picture the student is looking at."""
    if not isinstance(dash, Dashboard):
        raise TypeError(f"dash={type(dash).__name__}: must be a widgets.dashboard.Dashboard")
    if view is None:
        source = dash.main_view
        if source is None:
            raise ExportError("dash has no main view to animate: pass view=TITLE (one of its tabs)")
    else:
        titles = [v.title for v in dash.views]
        if view not in titles:
            raise ValueError(f"view={view!r}: must be the title of one of the dashboard's views: {', '.join(titles)}")
        source = dash.view(view)
    if not isinstance(source, SceneView):
        raise ValueError(f"view={source.title!r}: is a table, not a picture; choose a view drawn as a Scene")
    live = dash.controller
    if live.make_lab is None or live.replay is None:
        raise ExportError("dash has no run to export: its factory failed (see the message above its controller)")
    copy = type(source)()
    twin = Controller(live.make_lab, views=[copy], horizon=live.horizon, run_ahead=False)
    if live.faults:
        twin.load(live.make_lab, faults=live.faults)
    twin.every_event.value = live.raw_steps
    twin.frames = live.frames  # the page's captions (step 0 knows the run ahead, the last sums it up) and masks
    twin.answers = [{"name": cp.name, "right": True} for cp in twin.checkpoints]  # an export passes every question
    twin._show()
    return twin, copy


def animation_frames(
    dash: Dashboard,
    *,
    start: int = 0,
    stop: int | None = None,
    view: str | None = None,
    max_frames: int | None = None,
) -> list[Frame]:
    """The frames of steps ``start`` … ``stop - 1`` of ``dash``'s run (``stop=None``: to the run's last step).

    The run is replayed by a second controller, so ``dash`` stays where it is. A ``start`` or ``stop`` past
    the run's last step is a :class:`ValueError` that says how many steps the run has; so is a run with more
    than ``max_frames`` steps from ``start`` when ``stop`` is None (the replay stops there: bounded time).
    """
    _check_range(start, stop)
    if max_frames is not None and stop is not None and stop - start > max_frames:
        raise ValueError(
            f"stop={stop!r}: {stop - start} frames from start={start}; one file holds at most {max_frames} "
            f"(stop at most {start + max_frames})"
        )
    twin, copy = _headless_twin(dash, view)
    frames: list[Frame] = []
    step = 0
    while True:
        if max_frames is not None and len(frames) == max_frames:
            raise ValueError(
                f"stop=None: the run has more than {start + max_frames} steps, and one file holds at most "
                f"{max_frames} frames; pass stop= (e.g. stop={start + max_frames}), or a later start"
            )
        if step >= start:
            assert twin.snapshot is not None and copy.current is not None
            frames.append(Frame(step, twin.position, twin.snapshot.now_ms, twin.caption_lines, copy.current))
        if stop is not None and step + 1 >= stop:
            break
        if not twin.step_once():
            break
        step += 1
    last = step  # the run's last step when it ended before stop
    if step < start or (stop is not None and step + 1 < stop):
        wanted, value = ("start", start) if step < start else ("stop", stop)
        raise ValueError(
            f"{wanted}={value!r}: the run has {last + 1} steps (0 … {last}; step 0 is t = 0), "
            f"so start must be at most {last} and stop at most {last + 1}"
        )
    return frames


# ------------------------------------------------------------------ one frame as SVG


VAR = re.compile(r"var\(\s*(--[A-Za-z0-9_-]+)\s*(?:,\s*((?:[^()]|\([^()]*\))*?))?\s*\)")


def resolve_theme_variables(css: str, values: dict[str, str]) -> str:
    """``css`` with every ``var(--name, fallback)`` replaced by ``values[--name]`` or else its fallback.

    A rasteriser has no CSS custom properties; the views colour everything through JupyterLab's theme
    variables, so the frames carry the theme's colours written out."""
    previous = None
    while previous != css:
        previous = css
        css = VAR.sub(lambda m: values.get(m.group(1)) or (m.group(2) or "").strip() or "inherit", css)
    return css


def _wrap(line: str, width: float, px: float) -> list[str]:
    """``line`` broken at spaces into pieces no wider than ``width`` (by :func:`text_width`)."""
    out: list[str] = []
    current = ""
    for word in line.split(" "):
        candidate = f"{current} {word}" if current else word
        if current and text_width(candidate, px) > width:
            out.append(current)
            current = word
        else:
            current = candidate
    return [*out, current]


def _caption_lines(frame: Frame, width: float) -> list[tuple[float, str]]:
    """The caption as (indent, text) lines: one bullet per narrated event, its wrapped rest indented."""
    lines = [
        (0.0 if i == 0 else BULLET_INDENT, ("• " if i == 0 else "") + piece)
        for line in frame.caption
        for i, piece in enumerate(_wrap(line, width - BULLET_INDENT, CAPTION_PX))
    ]
    return lines or [(0.0, "(the run at t = 0, before the first Step)" if frame.step == 0 else "")]


def frame_svg(frame: Frame, *, last_step: int | None = None, theme: Theme = "light",
              width: float | None = None, height: float | None = None) -> str:  # fmt: skip
    """One frame as a self-contained SVG document a rasteriser can draw: the clock and step number, the
    picture, the caption wrapped under it; theme colours written out (no CSS variables, no script).
    ``width``/``height`` enlarge the canvas (every frame of a file must have one size)."""
    if theme not in ("light", "dark"):
        raise ValueError(f"theme={theme!r}: must be 'light' or 'dark' (a file has no reader's preference to follow)")
    values = {**(LIGHT if theme == "light" else DARK), "--jp-ui-font-family": FONT}
    scene = frame.scene
    inner = max(scene.width, 640.0)
    of = "" if last_step is None else f" of {last_step}"
    clock = (
        f"t = {format_duration(frame.time_ms)} ({frame.time_ms} ms) · step {frame.step}{of} · event {frame.position}"
    )
    captions = _caption_lines(frame, inner)
    parts = [f'<text class="rq-clock" x="{PAD:g}" y="{PAD + CLOCK_PX:g}">{html.escape(clock)}</text>']
    y = PAD + CLOCK_PX + 10
    parts.append(svg_body(scene, x=PAD, y=y))
    y += scene.height + 14
    for indent, line in captions:
        y += CAPTION_PX + LINE_GAP
        parts.append(f'<text class="rq-caption" x="{PAD + indent:g}" y="{y:g}">{html.escape(line)}</text>')
    w = max(width or 0.0, inner + 2 * PAD)
    h = max(height or 0.0, y + PAD + LINE_GAP)
    style = resolve_theme_variables(
        f"svg.rq-frame {{ font-family: {FONT}; }}\n"
        f"text.rq-clock {{ fill: var(--jp-ui-font-color1); font-size: {CLOCK_PX:g}px; font-weight: 600; }}\n"
        f"text.rq-caption {{ fill: var(--jp-ui-font-color1); font-size: {CAPTION_PX:g}px; }}\n"
        f"{BASE_CSS}\n{scene.css}",
        values,
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rq-frame" width="{w:g}" height="{h:g}" '
        f'viewBox="0 0 {w:g} {h:g}"><style><![CDATA[{style}]]></style>'
        f'<rect width="100%" height="100%" fill="{values["--jp-layout-color0"]}"/>{"".join(parts)}</svg>'
    )


def _frame_size(frame: Frame) -> tuple[float, float]:
    """The canvas one frame needs (read back from its SVG's root)."""
    found = re.search(r'width="([\d.]+)" height="([\d.]+)"', frame_svg(frame))
    assert found is not None
    return float(found.group(1)), float(found.group(2))


# ------------------------------------------------------------------ the file


def _format_of(path: Path, format: str | None) -> str:
    if format is None:
        suffix = path.suffix.lower().lstrip(".")
        if suffix not in ANIMATION_FORMATS:
            raise ValueError(
                f"path={os.fspath(path)!r}: its suffix {path.suffix or '(none)'!r} names no format; "
                f"end it in .gif or .webp, or pass format= one of {', '.join(ANIMATION_FORMATS)}"
            )
        return suffix
    if format not in ANIMATION_FORMATS:
        raise ValueError(f"format={format!r}: must be one of {', '.join(ANIMATION_FORMATS)}")
    return format


def _check_writable(path: Path) -> None:
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise ValueError(f"path={os.fspath(path)!r}: is a directory; give a file name ending in .gif or .webp")
    if not parent.is_dir():
        raise ValueError(f"path={os.fspath(path)!r}: its folder {os.fspath(parent)!r} does not exist")
    existed = path.exists()
    try:  # the one sure test (root ignores permission bits; /proc and read-only mounts refuse anyway)
        with open(path, "ab"):
            pass
    except OSError as exc:
        raise ValueError(f"path={os.fspath(path)!r}: cannot be written ({exc.strerror})") from None
    if not existed:
        path.unlink()


def _raster_tools() -> tuple[Any, Any]:
    try:
        import resvg_py
        from PIL import Image
    except ImportError as exc:
        raise ExportError(
            f"save_animation needs resvg-py (to draw the SVG frames) and Pillow (to write the file): "
            f"pip install resvg-py pillow (both are in rmqlab's `lab` extra); missing: {exc.name}"
        ) from exc
    return resvg_py, Image


def save_animation(
    dash: Dashboard,
    path: str | os.PathLike[str],
    *,
    start: int = 0,
    stop: int | None = None,
    format: str | None = None,
    seconds_per_step: float = 1.5,
    theme: Theme = "light",
    scale: float = 1.5,
    view: str | None = None,
) -> Path:
    """Write steps ``start`` … ``stop - 1`` of ``dash``'s run (default: all of it) as an animated GIF or WebP.

    ``format`` is ``"gif"`` or ``"webp"`` (default: from ``path``'s suffix); each frame shows for
    ``seconds_per_step`` and the animation loops; ``theme`` ``"light"`` or ``"dark"``; ``scale`` pixels per
    CSS pixel (1.5: sharp on a 1080p slide). ``view`` names another of the dashboard's pictures (default:
    the main one, the message flow). At most :data:`MAX_FRAMES` frames a file. Every argument is checked
    before anything is drawn or written.
    """
    out = Path(path)
    fmt = _format_of(out, format)
    _check_writable(out)
    _check_range(start, stop)
    if theme not in ("light", "dark"):
        raise ValueError(f"theme={theme!r}: must be 'light' or 'dark' (a file has no reader's preference to follow)")
    for name, value, low, high in (("seconds_per_step", seconds_per_step, 0.02, 60), ("scale", scale, 0.5, 4)):
        if not isinstance(value, int | float) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"{name}={value!r}: must be a number from {low:g} to {high:g}")
    resvg_py, image = _raster_tools()
    frames = animation_frames(dash, start=start, stop=stop, view=view, max_frames=MAX_FRAMES)
    last = frames[-1].step if stop is None else None
    sizes = [_frame_size(f) for f in frames]
    width, height = max(w for w, _ in sizes), max(h for _, h in sizes)
    pictures: list[Any] = []
    for frame in frames:
        svg = frame_svg(frame, last_step=last, theme=theme, width=width, height=height)
        png = resvg_py.svg_to_bytes(svg_string=svg, zoom=scale)
        picture = image.open(io.BytesIO(bytes(png))).convert("RGB")
        if fmt == "gif":  # 256 colours a frame, at once (a byte a pixel): the fast octree, no dithering
            picture = picture.quantize(colors=256, method=image.Quantize.FASTOCTREE, dither=image.Dither.NONE)
        pictures.append(picture)
    _write(out, fmt, pictures, duration_ms=round(seconds_per_step * 1000))
    return out


def _write(out: Path, fmt: str, pictures: Sequence[Any], *, duration_ms: int) -> None:
    first, rest = pictures[0], list(pictures[1:])
    if fmt == "gif":
        first.save(out, format="GIF", save_all=True, append_images=rest, duration=duration_ms, loop=0,
                   optimize=False, disposal=1)  # fmt: skip
    else:
        first.save(out, format="WEBP", save_all=True, append_images=rest, duration=duration_ms, loop=0,
                   quality=90, method=4)  # fmt: skip
