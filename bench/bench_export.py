"""Export for slides, timed: each lab's dashboard saved as an animated GIF and WebP of its whole run.

For every ``labs/*.ipynb`` with a Dashboard (or the ones named), run its cells up to the one that builds its
first Dashboard (as :mod:`bench.bench_widgets` does), then time, for the run as the dashboard opens it:

* ``replay``: :func:`widgets.animation.animation_frames` — the whole run replayed by a headless controller, the
  main view's scene and the caption at each Step;
* ``gif`` and ``webp``: :func:`widgets.animation.save_animation` of the whole run, or of its first
  :data:`~widgets.animation.MAX_FRAMES` steps when it has more (the frames again, each one rasterised by resvg
  at scale 1.5, then written by Pillow), with the file's size.

The largest export is the figure bench/README.md reports::

    python -m bench.bench_export                 # every lab
    python -m bench.bench_export 03 09           # the labs whose file name starts with these
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bench_widgets import LABS, _cells, _run_cell


def first_dashboard(path: Path) -> Any:
    """Run ``path``'s code cells up to the one that builds its first Dashboard; that Dashboard (or None)."""
    from rmqlab.widgets.dashboard import Dashboard

    ns: dict[str, Any] = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for i, source in enumerate(_cells(path)):
            _run_cell(source, ns, f"{path.name}[{i}]")
            found = [v for v in ns.values() if isinstance(v, Dashboard)]
            if found:
                return found[0]
    return None


def time_export(path: Path) -> dict[str, Any] | None:
    """Frames, GIF and WebP times for the first dashboard of ``path`` (None: the lab has no dashboard)."""
    from rmqlab.widgets.animation import MAX_FRAMES, animation_frames, save_animation

    dash = first_dashboard(path)
    if dash is None:
        return None
    row: dict[str, Any] = {"lab": path.name}
    t0, c0 = time.perf_counter(), time.process_time()
    frames = animation_frames(dash)
    row.update(steps=len(frames), frames_s=time.perf_counter() - t0, frames_cpu_s=time.process_time() - c0)
    row["exported"] = min(len(frames), MAX_FRAMES)  # a longer run is exported as its first MAX_FRAMES steps
    with tempfile.TemporaryDirectory(prefix="rmqlab-bench-export-") as tmp:
        for fmt in ("gif", "webp"):
            out = Path(tmp) / f"run.{fmt}"
            t0, c0 = time.perf_counter(), time.process_time()
            save_animation(dash, out, stop=row["exported"])
            row[f"{fmt}_s"] = time.perf_counter() - t0
            row[f"{fmt}_cpu_s"] = time.process_time() - c0
            row[f"{fmt}_bytes"] = out.stat().st_size
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labs", nargs="*", help="lab number prefixes (default: every lab)")
    args = parser.parse_args()
    labs = [p for p in sorted(LABS.glob("*.ipynb")) if not args.labs or p.name.startswith(tuple(args.labs))]
    print(f"export: each lab's dashboard, whole run, scale 1.5, on {os.cpu_count()} CPUs "
          f"(load average {os.getloadavg()[0]:.1f})")  # fmt: skip
    print(f"  {'lab':36} {'steps':>5} {'replay':>7} {'frames':>6} {'GIF':>7} {'GIF CPU':>7} {'size':>8} {'WebP':>7} "
          f"{'WebP CPU':>8} {'size':>8}")  # fmt: skip
    rows = []
    for path in labs:
        row = time_export(path)
        if row is None:
            print(f"  {path.name:36} (no Dashboard)")
            continue
        rows.append(row)
        print(f"  {row['lab']:36} {row['steps']:>5} {row['frames_s']:>6.2f}s {row['exported']:>6} "
              f"{row['gif_s']:>6.1f}s {row['gif_cpu_s']:>6.1f}s {row['gif_bytes'] / 2**20:>6.2f}MB "
              f"{row['webp_s']:>6.1f}s {row['webp_cpu_s']:>7.1f}s {row['webp_bytes'] / 2**20:>6.2f}MB")  # fmt: skip
    if rows:
        big = max(rows, key=lambda r: r["exported"])
        print(f"  largest export: {big['lab']} ({big['exported']} frames): GIF {big['gif_s']:.1f} s "
              f"({big['gif_cpu_s'] / big['exported'] * 1000:.0f} ms CPU a frame), WebP {big['webp_s']:.1f} s "
              f"({big['webp_cpu_s'] / big['exported'] * 1000:.0f} ms CPU a frame)")  # fmt: skip


if __name__ == "__main__":
    main()
