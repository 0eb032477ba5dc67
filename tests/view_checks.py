"""Helpers for the view tests: an example scenario's snapshot, and layout checks on a Scene without a browser.

Text boxes come from the CSS font size and the width estimate:

``widgets.scene.text_width`` is calibrated against Chromium's measured boxes (DejaVu Sans, the
face headless Chromium falls back to here) and errs wide, so "no overlap" here means no overlap there.
"""

from __future__ import annotations

from pathlib import Path

from rmqlab.widgets import Replay
from rmqlab.widgets.scene import Mark, Scene, text_width

from rmqlab.lab.scenario import load_scenario
from rmqlab.snapshot import LabSnapshot

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example_snapshot(stem: str, position: int | None = None) -> LabSnapshot:
    """``examples/<stem>.json|yaml`` replayed to ``position`` (default: its end)."""
    path = EXAMPLES / f"{stem}.json"
    scenario = load_scenario(path if path.exists() else path.with_suffix(".yaml"))
    replay = Replay(scenario.build, horizon=scenario.run_until_ms)
    if position is None:
        replay.run_to_end()
    else:
        replay.seek(position)
    return replay.snapshot()


def font_px(m: Mark) -> int:
    """The font size the view's CSS gives a text mark (BASE_CSS: 11 px, titles 12 px; labels 10 px)."""
    classes = m.cls.split()
    if "rq-title" in classes:
        return 12
    if "rq-rt-dlq-text" in classes:
        return 9
    if any(c.endswith("-label") for c in classes):
        return 10
    return 11


def text_box(m: Mark) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of a text mark: anchor and baseline from the mark, width from the estimate."""
    px = font_px(m)
    bold = any(c in m.cls for c in ("rq-title", "now-text", "dlq-text"))
    w = text_width(m.text, px, bold=bold)
    x0 = {"start": m.x, "middle": m.x - w / 2, "end": m.x - w}[m.anchor]
    return x0, m.y - 0.8 * px, x0 + w, m.y + 0.25 * px


def overlapping_texts(scene: Scene) -> list[tuple[str, str]]:
    """Keys of every pair of text marks whose boxes intersect."""
    boxes = [(m.key, text_box(m)) for m in scene.marks if m.kind == "text" and m.text]
    found = []
    for i, (ka, a) in enumerate(boxes):
        for kb, b in boxes[i + 1 :]:
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                found.append((ka, kb))
    return found


def texts_outside(scene: Scene) -> list[str]:
    """Keys of text marks that stick out of the picture's left or right edge."""
    return [
        m.key
        for m in scene.marks
        if m.kind == "text" and m.text and (text_box(m)[0] < 0 or text_box(m)[2] > scene.width)
    ]
