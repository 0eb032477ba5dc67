"""The space-time diagram's "now" label clears what is above it in the axis column: on the first step (no row yet)
it touched the axis title "virtual time ↓ …" (revF: lab 06's Space-time tab)."""

from __future__ import annotations

from rmqlab.widgets import demo_lab
from rmqlab.widgets.frames import build_run
from rmqlab.widgets.spacetime_axis import AXIS_W
from rmqlab.widgets.spacetime_rows import spacetime_view_model
from rmqlab.widgets.spacetime_scene import spacetime_scene

ASCENT, DESCENT = 9.0, 3.0
"""How far 11 px text reaches above and below its baseline."""


def test_the_now_label_clears_the_texts_above_it_in_the_axis_column() -> None:
    run = build_run(lambda: demo_lab(messages=2), horizon="6s")
    for snap in run.snapshots[:4]:  # the first steps: no row, then one instant
        scene = spacetime_scene(spacetime_view_model(snap))
        now = next(m for m in scene.marks if m.key == "now:label")
        above = [m for m in scene.marks if m.kind == "text" and m.y < now.y and m.key != "now:label"
                 and ((m.anchor == "end" and m.x <= AXIS_W) or (m.anchor == "start" and m.x < AXIS_W))]  # fmt: skip
        lowest = max(m.y + DESCENT for m in above)
        assert now.y - ASCENT >= lowest, (snap.now_ms, now.y, [(m.key, m.y) for m in above][-2:])
