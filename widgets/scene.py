"""Scene: the one drawing vocabulary every picture speaks, in the kernel and in the browser alike.

A view turns an engine snapshot into a plain view-model, then the view-model into a :class:`Scene`: a
tuple of keyed :class:`Mark` s (rectangles, circles, lines, paths, text, and *tokens* — a message drawn
as a labelled disc). The same Scene is drawn two ways:

* live, by :class:`SceneWidget` (a small anywidget, ``scene.js``): marks are matched **by key** from one
  frame to the next, so a token whose place changed *travels* there with a CSS transition, instead of
  the picture being redrawn; a new mark fades in, a vanished one fades out;
* static, by :meth:`Scene.to_svg`: the identical SVG as text, for nbconvert, a docs site, Voila's first
  paint and tests that read positions without a browser.

Colours come from CSS classes that read JupyterLab's theme variables (with fallbacks for a page
outside JupyterLab), so light and dark themes both work; only token fills carry an explicit colour
(:mod:`widgets.palette`). Every mark carries ``data-key`` and ``data-role`` so browser tests find
things by what they are.
"""

from __future__ import annotations

import functools
import html
import math
import pathlib
import unicodedata
from dataclasses import asdict, dataclass, field, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal

import anywidget
import traitlets

from .framed import FramedView
from .scene_badge import badge_svg

if TYPE_CHECKING:
    from .frames import RunFrames

__all__ = ["BASE_CSS", "Mark", "MarkKind", "Scene", "SceneView", "SceneWidget", "mark_json", "text_width"]

MarkKind = Literal["rect", "circle", "line", "path", "text", "token"]

BASE_CSS = """
.rq-scene { font-family: var(--jp-ui-font-family, sans-serif); }
.rq-scene { overflow-x: auto; max-width: 100%; }
.rq-scene svg { overflow: visible; max-width: none; height: auto; }
.rq-scene text { fill: var(--jp-ui-font-color1, #1f1f1f); font-size: 11px; }
.rq-scene text.rq-muted { fill: var(--jp-ui-font-color1, #1f1f1f); fill-opacity: 0.8; }
.rq-scene text.rq-title { font-weight: 600; font-size: 12px; }
.rq-scene .rq-box { fill: var(--jp-layout-color2, #eeeeee); stroke: var(--jp-border-color1, #9e9e9e); }
.rq-scene .rq-lane { stroke: var(--jp-border-color2, #c7c7c7); }
.rq-scene .rq-axis { stroke: var(--jp-ui-font-color2, #616161); }
.rq-scene .rq-now { stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2; }
.rq-scene .rq-arrow { stroke: var(--jp-ui-font-color2, #616161); fill: none; }
.rq-scene .rq-marker { fill: var(--jp-ui-font-color2, #616161); }
.rq-scene .rq-token circle { stroke: var(--jp-layout-color0, #ffffff); stroke-width: 1.5; }
.rq-scene .rq-token text { fill: #000000; font-size: 11px; font-weight: 600; text-anchor: middle;
  dominant-baseline: central; pointer-events: none; }
.rq-scene .rq-token.rq-dropped circle { stroke: var(--jp-error-color1, #d32f2f); stroke-dasharray: 2 2; }
.rq-scene g.rq-token { transition: transform var(--rq-duration, 350ms) ease-in-out, opacity 200ms; }
@media (prefers-reduced-motion: reduce) { .rq-scene * { transition: none !important; } }
"""
"""The theme-aware classes every view may use; a view adds its own rules through ``Scene.css``."""


_NARROW = frozenset("ijl.,:;'!|")
_MEDIUM = frozenset("ftrI()[] -·")
_WIDE = frozenset("mwMW@%")


CJK_EM = 1.1
"""A 汉字 or full-width sign: one em in Noto Sans CJK (and the other CJK faces), plus the slack the Latin classes
carry (theirs are the widest of several faces), so a gap kept between estimated edges is a real gap in Chinese too."""


@functools.lru_cache(maxsize=8192)
def text_width(text: str, px: float = 11.0, *, bold: bool = False) -> float:
    """A conservative estimate of ``text``'s rendered width at ``px`` pixels in JupyterLab's sans face.

    The kernel has no font metrics, yet every view lays its labels out so they never collide, in the
    browser and in the static SVG alike. The em widths per character class are the widest of DejaVu Sans
    and the other sans faces JupyterLab falls back to (Chromium's measured boxes stay within them), so one
    estimate serves every view: a label laid out with it has room in any of those fonts.

    Remembered (the last 8,192 labels): a run's frames lay the same lane names, legends and ticks out at every
    frame, and measuring them character by character again was a sixth of the time the frames took to build.
    """
    em = 0.0
    for ch in text:
        if ch in _NARROW:
            em += 0.34
        elif ch in _MEDIUM:
            em += 0.44
        elif ch in _WIDE:
            em += 0.96
        elif ch.isupper():
            em += 0.78
        elif ch.isdigit():
            em += 0.73
        elif unicodedata.east_asian_width(ch) in ("W", "F"):  # 汉字 and full-width punctuation
            em += CJK_EM
        elif ord(ch) > 0x2000:  # arrows, ellipsis, math signs
            em += 0.84
        else:
            em += 0.65
    return em * px * (1.15 if bold else 1.0)


@dataclass(frozen=True, slots=True)
class Mark:
    """One keyed drawing element. Only the fields its ``kind`` uses matter; the rest stay at defaults.

    ``rect``: x, y, w, h · ``circle``: x, y (centre), r · ``line``: x, y → x2, y2 · ``path``: d ·
    ``text``: x, y (baseline), text, anchor · ``token``: x, y (centre), r, text (the label inside the disc), badge.
    ``arrow`` puts an arrow head on a line or path; ``title`` becomes a hover tooltip.
    """

    kind: MarkKind
    key: str
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    r: float = 0.0
    x2: float = 0.0
    y2: float = 0.0
    d: str = ""
    text: str = ""
    cls: str = ""
    fill: str = ""
    stroke: str = ""
    title: str = ""
    anchor: Literal["start", "middle", "end"] = "start"
    role: str = ""
    arrow: bool = False
    dash: str = ""
    badge: str = ""  # token only: a small dark label on the disc, travelling with it (widgets.scene_badge)


@dataclass(frozen=True, slots=True)
class Scene:
    """A whole picture: size, marks in drawing order (later on top), and the view's own CSS.

    ``label`` is the accessible name of the picture (``aria-label``); ``testid`` names it for tests.
    """

    width: int
    height: int
    marks: tuple[Mark, ...]
    label: str = ""
    testid: str = "rq-scene"
    css: str = ""
    extra: tuple[tuple[str, str], ...] = field(default=())
    """Free-form facts a browser test may compare with (rendered as ``data-*`` attributes on the root)."""

    def to_json(self, known: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] | None = None) -> dict[str, Any]:
        """The scene as plain JSON for the widget's ``scene`` trait (empty fields dropped: smaller messages).

        ``known``: by key, the last mark converted and its JSON (a run's frames: most marks of a frame are the
        previous frame's, equal field for field), reused as it is, the same dict (read only, never changed)."""
        if known is None:
            return {**self._head_json(), "marks": [mark_json(m) for m in self.marks]}
        marks = []
        for m in self.marks:
            fields = _all_values(m)
            seen = known.get(m.key)
            if seen is None or seen[0] != fields:
                seen = known[m.key] = (fields, mark_json(m))
            marks.append(seen[1])
        return {**self._head_json(), "marks": marks}

    def _head_json(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "label": self.label,
            "testid": self.testid,
            "css": self.css,
            "extra": dict(self.extra),
        }

    def keys(self, role: str | None = None) -> tuple[str, ...]:
        """The keys of the marks (with ``role``, only those), in drawing order."""
        return tuple(m.key for m in self.marks if role is None or m.role == role)

    def mark(self, key: str) -> Mark:
        """The mark with this key (KeyError names a few known keys)."""
        for m in self.marks:
            if m.key == key:
                return m
        raise KeyError(f"no mark {key!r}; have {list(self.keys())[:8]}…")

    def description(self) -> str:
        """The SVG's ``<desc>``: its label and how many messages are drawn, as ``scene.js`` writes it live."""
        if not self.label:
            return ""
        return f"{self.label}: {sum(1 for m in self.marks if m.role == 'token')} messages drawn"

    def to_svg(self) -> str:
        """The static SVG (with its stylesheet), drawn exactly as ``scene.js`` draws the first frame."""
        sid = _svg_id(self.testid)
        extra = "".join(f' data-{html.escape(k)}="{html.escape(v)}"' for k, v in self.extra)
        parts = [
            f'<div class="rq-scene" data-testid="{html.escape(self.testid)}"{extra}>',
            f"<style>{BASE_CSS}{self.css}</style>",
            f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{html.escape(self.label)}" '
            f'width="{self.width}" height="{self.height}" viewBox="0 0 {self.width} {self.height}">',
            f"<title>{html.escape(self.label)}</title><desc>{html.escape(self.description())}</desc>",
            f'<defs><marker id="{sid}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path class="rq-marker" d="M0,0 L10,5 L0,10 z"/>'
            f"</marker></defs>",
        ]
        parts.extend(_mark_svg(m, sid) for m in self.marks)
        parts.append("</svg></div>")
        return "".join(parts)


_OPTIONAL = tuple(f.name for f in fields(Mark) if f.name not in ("kind", "key"))
_OPTIONAL_DEFAULTS = tuple(asdict(Mark("rect", ""))[name] for name in _OPTIONAL)
"""A mark's default field values: ``to_json`` sends only the fields that differ from these."""
_optional_values = attrgetter(*_OPTIONAL)
_all_values = attrgetter("kind", *_OPTIONAL)
"""All optional fields of a mark in one C call (``asdict`` deep-copies and was most of a frame's kernel time)."""


def mark_json(m: Mark) -> dict[str, Any]:
    """One mark as JSON: its kind, key and the fields not at their defaults."""
    d: dict[str, Any] = {"kind": m.kind, "key": m.key}
    for name, default, value in zip(_OPTIONAL, _OPTIONAL_DEFAULTS, _optional_values(m), strict=True):
        if value != default:
            d[name] = value
    return d


def _svg_id(testid: str) -> str:
    """A marker id derived from the test id (no counters, no randomness: the static SVG is deterministic)."""
    return "rq-" + "".join(ch if ch.isalnum() else "-" for ch in testid)


def _num(v: float) -> str:
    """Coordinates rounded to 0.1 px, printed without trailing zeros (stable text for nbval).

    Rounded half up, as ``scene.js`` does with ``Math.round``: Python's ``round`` rounds half to even, and
    the static SVG and the live drawing would then differ by 0.1 px at every coordinate ending in ``.x5``.
    """
    text = f"{math.floor(v * 10 + 0.5) / 10:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _mark_svg(m: Mark, sid: str) -> str:
    esc = html.escape
    common = f'data-key="{esc(m.key)}"'
    if m.role:
        common += f' data-role="{esc(m.role)}"'
    style = ""
    if m.fill:
        style += f"fill:{m.fill};"
    if m.stroke:
        style += f"stroke:{m.stroke};"
    if m.dash:
        style += f"stroke-dasharray:{m.dash};"
    title = f"<title>{esc(m.title)}</title>" if m.title else ""
    if m.kind == "token":
        cls = f"rq-token {m.cls}".strip()
        fill = f' style="fill:{m.fill}"' if m.fill else ""
        label = f"<text>{esc(m.text)}</text>" if m.text else ""
        return (
            f'<g class="{esc(cls)}" {common} transform="translate({_num(m.x)},{_num(m.y)})">{title}'
            f'<circle r="{_num(m.r)}"{fill}/>{label}{badge_svg(m)}</g>'
        )
    attrs = f'class="{esc(m.cls)}" {common}' if m.cls else common
    if style:
        attrs += f' style="{style}"'
    head = f' marker-end="url(#{sid}-arrow)"' if m.arrow else ""
    if m.kind == "rect":
        geo = f'x="{_num(m.x)}" y="{_num(m.y)}" width="{_num(m.w)}" height="{_num(m.h)}"'
        return f"<rect {attrs} {geo}>{title}</rect>"
    if m.kind == "circle":
        return f'<circle {attrs} cx="{_num(m.x)}" cy="{_num(m.y)}" r="{_num(m.r)}">{title}</circle>'
    if m.kind == "line":
        geo = f'x1="{_num(m.x)}" y1="{_num(m.y)}" x2="{_num(m.x2)}" y2="{_num(m.y2)}"'
        return f"<line {attrs} {geo}{head}>{title}</line>"
    if m.kind == "path":
        return f'<path {attrs} d="{esc(m.d)}"{head}>{title}</path>'
    if m.kind == "text":
        return f'<text {attrs} x="{_num(m.x)}" y="{_num(m.y)}" text-anchor="{m.anchor}">{title}{esc(m.text)}</text>'
    raise ValueError(f"mark {m.key!r}: kind {m.kind!r} is not one of rect, circle, line, path, text, token")


class SceneWidget(anywidget.AnyWidget):
    """The live drawing of a :class:`Scene`: set :attr:`scene` (via :meth:`show`) and the browser morphs to it."""

    _esm = pathlib.Path(__file__).with_name("scene.js")
    _css = BASE_CSS
    kind = traitlets.Unicode("scene").tag(sync=True)
    scene = traitlets.Dict().tag(sync=True)
    run = traitlets.Unicode("").tag(sync=True)
    """The run whose player moves this picture in the page ("" : the kernel draws every frame)."""
    frames = traitlets.Dict().tag(sync=True)
    """The run's scenes for this view, delta-encoded (:func:`widgets.frames.encode`); ``{}`` until shown."""
    duration_ms = traitlets.Int(350).tag(sync=True)
    """How long a token takes to travel to its new place (0: jump)."""

    def show(self, scene: Scene) -> None:
        """Draw ``scene`` (the browser keeps marks with the same key and moves them)."""
        self.scene = scene.to_json()


class SceneView(FramedView):
    """A view drawn as a :class:`Scene`: subclasses give ``model(snap)`` and ``scene(vm)``; this draws it.

    ``to_text`` defaults to nothing view-specific (a subclass gives the plain-text rendering the labs
    print); ``static_html()`` is the SVG a notebook keeps when no kernel runs (nbconvert, docs, Voila's
    first paint), and it is also what ``_repr_mimebundle_`` offers next to the live widget.
    """

    _current: Scene | None = None  # see :attr:`current`

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.canvas = SceneWidget()
        self.children = (self.canvas, self.debug)

    @property
    def current(self) -> Scene | None:
        """The picture of the last snapshot (drawn now if the page was drawing it: :meth:`FramedView.catch_up`)."""
        self.catch_up()
        return self._current

    @current.setter
    def current(self, scene: Scene | None) -> None:
        self._current = scene

    def page_frames(self, frames: RunFrames) -> dict[str, Any]:
        from .frames import encode, one_build  # frames imports this module

        with one_build():
            return encode(frames.scenes(self))

    def draw_live(self) -> None:
        if self.current is not None:
            self.canvas.show(self.current)

    def scene(self, vm: Any) -> Scene:
        raise NotImplementedError

    def render(self, vm: Any) -> None:
        self.current = self.scene(vm)
        if self.live:
            self.canvas.show(self.current)

    def static_html(self) -> str:
        """The current picture as static SVG ("" before the first snapshot)."""
        return "" if self.current is None else self.current.to_svg()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle: dict[str, Any] = super()._repr_mimebundle_(**kwargs) or {}
        if self.current is not None:
            bundle["text/html"] = self.static_html()
        return bundle
