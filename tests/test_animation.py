"""widgets/animation.py: a run's steps saved as an animated GIF and WebP for slides, without a browser.

The files are decoded back (Pillow) and their frames counted: one per step asked. The frames are the
dashboard's own pictures and captions (compared with the live controller stepped the same number of times);
exporting does not move the dashboard. Bad arguments fail before anything is written, naming the parameter.
Files go to ``tmp_path`` only.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image
from rmqlab.widgets import Dashboard, animation, demo_lab
from rmqlab.widgets.animation import (
    ANIMATION_FORMATS,
    animation_frames,
    frame_svg,
    resolve_theme_variables,
    save_animation,
)
from rmqlab.widgets.export import LIGHT

from rmqlab import EventKind


@pytest.fixture(scope="module")
def dash() -> Dashboard:
    """The demo scenario with M0001 failing every time (17 deliveries, then the DLQ), left at step 3."""
    d = Dashboard(demo_lab, knobs={"listener": "fail_all", "messages": 2})
    d.controller.play(3)
    return d


@pytest.fixture(scope="module")
def whole_run(dash: Dashboard) -> list:  # type: ignore[type-arg]
    return animation_frames(dash)


def _decoded_frames(path: Path) -> int:
    with Image.open(path) as image:
        return int(getattr(image, "n_frames", 1))


def test_frames_are_the_dashboards_steps(dash: Dashboard, whole_run: list) -> None:  # type: ignore[type-arg]
    """Frame k is what the dashboard shows after k Steps: the same position, time, caption and picture."""
    assert [f.step for f in whole_run] == list(range(len(whole_run)))
    assert whole_run[0].time_ms == 0 and whole_run[0].position == dash.controller.replay.start  # type: ignore[union-attr]
    live = Dashboard(demo_lab, knobs={"listener": "fail_all", "messages": 2})
    for frame in whole_run[:12]:
        assert (frame.position, frame.time_ms) == (live.controller.position, live.controller.snapshot.now_ms)  # type: ignore[union-attr]
        assert frame.caption == live.controller.caption_lines
        assert frame.scene == live.main_view.current  # type: ignore[union-attr]
        live.controller.step_once()
    live.controller.seek(live.controller.end or 0)
    assert whole_run[-1].position == live.controller.end
    # the dead-letter step: its plain line says so (its source line is the consumer's send-back rule since stop 33)
    dead = [f for f in whole_run if any("%DLQ%" in line or "dead-letter topic" in line for line in f.caption)]
    first_dead = live.controller.replay.lab.trace.of_kind(EventKind.DEAD_LETTERED)[0]  # type: ignore[union-attr]
    assert dead[0].time_ms == first_dead.time_ms == 17_141_000  # M0001's 17th failure, sent back at 4 h 45 m 41 s
    assert dead[0].position > first_dead.seq


def test_export_leaves_the_dashboard_where_it_was(dash: Dashboard, whole_run: list) -> None:  # type: ignore[type-arg]
    before = (dash.controller.position, dash.controller.caption_lines, dash.main_view.current)  # type: ignore[union-attr]
    animation_frames(dash, start=2, stop=6)
    assert (dash.controller.position, dash.controller.caption_lines, dash.main_view.current) == before  # type: ignore[union-attr]


@pytest.mark.parametrize("fmt", ANIMATION_FORMATS)
def test_file_has_one_frame_per_step_asked(dash: Dashboard, whole_run: list, tmp_path: Path, fmt: str) -> None:  # type: ignore[type-arg]
    out = save_animation(dash, tmp_path / f"run.{fmt}", start=4, stop=11, scale=0.75)
    assert out == tmp_path / f"run.{fmt}"
    assert _decoded_frames(out) == 7
    with Image.open(out) as image:
        assert image.format == fmt.upper()
        assert image.info["loop"] == 0
        sizes, durations = set(), []
        for i in range(_decoded_frames(out)):
            image.seek(i)
            image.load()
            sizes.add(image.size)
            durations.append(image.info["duration"])
    assert len(sizes) == 1  # every frame one canvas
    assert durations == [1500] * 7


def test_whole_run_by_default_and_format_argument(tmp_path: Path) -> None:
    """Without start and stop: every step of the run (one message consumed at once: 4 steps, 0 … 3)."""
    small = Dashboard(demo_lab, knobs={"listener": "succeed", "messages": 1})
    out = save_animation(small, tmp_path / "no-suffix", format="gif", scale=0.5, seconds_per_step=0.25)
    assert _decoded_frames(out) == len(animation_frames(small)) == 5  # step 0 (event 0) + four
    with Image.open(out) as image:
        image.load()
        assert image.info["duration"] == 250


def test_one_step_of_another_view(dash: Dashboard, tmp_path: Path) -> None:
    out = save_animation(dash, tmp_path / "one.webp", start=0, stop=1, view="Retry timeline", theme="dark")
    assert _decoded_frames(out) == 1
    with Image.open(out) as image:
        r, g, b = image.convert("RGB").getpixel((2, 2))  # type: ignore[misc]
    assert (r, g, b) == (17, 17, 17)  # JupyterLab dark's --jp-layout-color0, lossy-encoded exactly here


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"start": 5, "stop": 5}, "stop=5: must be greater than start=5"),
        ({"start": -1}, "start=-1: must be a step number"),
        ({"stop": 150}, "stop=150: the run has 71 steps (0 … 70; step 0 is t = 0)"),
        ({"start": 9_999}, "start=9999: the run has"),
        ({"format": "mp3"}, "format='mp3': must be one of gif, webp"),
        ({"theme": "auto"}, "theme='auto': must be 'light' or 'dark'"),
        ({"scale": 0}, "scale=0: must be a number from 0.5 to 4"),
        ({"seconds_per_step": True}, "seconds_per_step=True: must be a number"),
        ({"view": "Nope"}, "view='Nope': must be the title of one of the dashboard's views"),
        ({"view": "Events"}, "view='Events': is a table, not a picture"),
    ],
)
def test_bad_arguments_name_the_parameter(dash: Dashboard, tmp_path: Path, kwargs: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        save_animation(dash, tmp_path / "x.gif", **kwargs)
    assert list(tmp_path.iterdir()) == []


def test_one_file_holds_at_most_max_frames(dash: Dashboard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run longer than the cap is refused before anything is drawn (the replay stops at the cap)."""
    monkeypatch.setattr(animation, "MAX_FRAMES", 5)
    with pytest.raises(ValueError, match=r"stop=None: the run has more than 7 steps, .* at most 5 frames; "
                                         r"pass stop= \(e\.g\. stop=7\)"):  # fmt: skip
        save_animation(dash, tmp_path / "long.gif", start=2)
    with pytest.raises(ValueError, match=r"stop=10: 8 frames from start=2; one file holds at most 5"):
        save_animation(dash, tmp_path / "long.gif", start=2, stop=10)
    assert list(tmp_path.iterdir()) == []
    assert _decoded_frames(save_animation(dash, tmp_path / "five.gif", start=2, stop=7, scale=0.5)) == 5


def test_bad_paths_name_the_path(dash: Dashboard, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"path='.*run\.mp4': its suffix '\.mp4' names no format"):
        save_animation(dash, tmp_path / "run.mp4")
    with pytest.raises(ValueError, match=r"its folder .* does not exist"):
        save_animation(dash, tmp_path / "missing" / "run.gif")
    with pytest.raises(ValueError, match="is a directory"):
        save_animation(dash, tmp_path, format="gif")
    with pytest.raises(ValueError, match=r"path='/proc/rmqlab-run\.gif': cannot be written"):
        save_animation(dash, "/proc/rmqlab-run.gif")  # refused even to root
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(TypeError, match=r"dash=str: must be a widgets\.dashboard\.Dashboard"):
        save_animation("lab03", tmp_path / "run.gif")  # type: ignore[arg-type]


def test_frame_svg_is_self_contained_and_themed(whole_run: list) -> None:  # type: ignore[type-arg]
    """No CSS variable survives (a rasteriser has none); the clock, the step and the caption are drawn."""
    frame = whole_run[5]
    svg = frame_svg(frame, last_step=len(whole_run) - 1)
    assert "var(" not in svg
    root = ET.fromstring(svg)
    texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[0].endswith(f"step 5 of {len(whole_run) - 1} · event {frame.position}")
    assert texts[0].startswith("t = ") and f"({frame.time_ms} ms)" in texts[0]
    assert any(t.startswith("• ") for t in texts)
    assert LIGHT["--jp-layout-color0"] in svg


def test_resolve_theme_variables() -> None:
    css = ".a { fill: var(--x, #111); stroke: var(--y, rgba(0, 0, 0, 0.5)); color: var(--z); }"
    assert resolve_theme_variables(css, {"--x": "red"}) == (
        ".a { fill: red; stroke: rgba(0, 0, 0, 0.5); color: inherit; }"
    )
