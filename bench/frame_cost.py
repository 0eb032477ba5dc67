"""Frames in the page: CPU to build every lab dashboard's frames, and their size (issue 32: ≤ 0.5 s, ≤ 2 MB).

Runs each ``labs/NN_*.py`` (the jupytext source) with :class:`widgets.Dashboard` recording every dashboard it
builds, then for each dashboard measures, in process CPU time, the run walk (:func:`widgets.frames.build_run`)
and the scenes of every picture and the Events tab's tables (all tabs, as a static page embeds them), and the size
of the JSON the page gets (player data + every view's delta-encoded frames).

    python -m bench.frame_cost [--json out.json] [LAB ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import runpy
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def dashboards_of(lab: Path) -> list[Any]:
    """Every Dashboard the lab's script builds, in order (the script runs with its prints swallowed)."""
    import rmqlab.widgets.dashboard as dashboard_module

    built: list[Any] = []
    original = dashboard_module.Dashboard.__init__

    def record(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        built.append(self)

    dashboard_module.Dashboard.__init__ = record  # type: ignore[method-assign]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(str(lab), run_name="__main__")
    finally:
        dashboard_module.Dashboard.__init__ = original  # type: ignore[method-assign]
    return built


def measure(lab: Path) -> list[dict[str, Any]]:
    """One row per dashboard the lab builds."""
    from rmqlab.widgets.framed import FramedView
    from rmqlab.widgets.frames import build_run

    built = dashboards_of(lab)
    rows = []
    for dash in built:
        ctl = dash.controller
        if ctl.replay is None:
            continue
        started = time.process_time()
        frames = build_run(
            ctl.replay.make_lab, horizon=ctl.horizon, faults=ctl.faults, checkpoints=ctl.checkpoint_specs
        )
        walk = time.process_time() - started
        payload: dict[str, Any] = {"player": frames.player_json()}
        shown = time.process_time()
        for view in dash.views:
            if isinstance(view, FramedView):  # the pictures and the Events table
                payload[view.title] = view.page_frames(frames)
                if view is dash.main_view:
                    shown = time.process_time()
        total = time.process_time() - started
        rows.append({
            "lab": lab.stem, "frames": len(frames), "events": frames.end, "walk_s": round(walk, 3),
            "walk_and_main_s": round(shown - started, 3), "all_views_s": round(total, 3),
            "bytes": len(json.dumps(payload, separators=(",", ":"))),
            "bytes_per_view": {k: len(json.dumps(v, separators=(",", ":"))) for k, v in payload.items()},
        })  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labs", nargs="*", help="lab stems (default: every lab)")
    parser.add_argument("--json", type=Path, help="write the rows here too")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "labs"))
    labs = sorted((ROOT / "labs").glob("[0-9]*.py"))
    rows = []
    for lab in labs:
        if args.labs and lab.stem not in args.labs and lab.stem[:3].rstrip("_") not in args.labs:
            continue
        for row in measure(lab):
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
