"""Where the engine's time goes on the retry storm: cProfile by function and by module, plus GC time.

cProfile roughly doubles the cost of every Python call, so read its figures as shares, not as
absolute times. Garbage-collector pauses would land in whatever function happened to allocate (the
publishing loop looks 10x slower than it is), so the profiled run has the cyclic GC switched off
and GC time is measured separately, with ``gc.callbacks``, in an unprofiled run.

Run ``python -m bench.profile_storm --n 20000 [--trace off] [--top 25]``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

from bench.engine_storm import run_engine

__all__ = ["gc_share", "profile_by_module"]


def gc_share(n: int, *, trace: bool) -> tuple[float, float, int]:
    """Run the storm unprofiled; return (wall s, seconds inside the cyclic GC, collections)."""
    spent = [0.0]
    count = [0]
    started_at = [0.0]

    def on_gc(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            started_at[0] = time.perf_counter()
        else:
            spent[0] += time.perf_counter() - started_at[0]
            count[0] += 1

    gc.collect()
    gc.callbacks.append(on_gc)
    try:
        run = run_engine(n, trace=trace)
    finally:
        gc.callbacks.remove(on_gc)
    return run.wall_s, spent[0], count[0]


def profile_by_module(stats: pstats.Stats) -> dict[str, float]:
    """Own time (tottime) summed per source file, the coarse "which layer" view."""
    per_file: dict[str, float] = defaultdict(float)
    for (filename, _line, _name), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        path = Path(filename)
        if "rmqlab" in path.parts:
            key = f"rmqlab/{path.name}"
        elif "bench" in path.parts:
            key = f"bench/{path.name}"
        elif "sortedcontainers" in path.parts:
            key = "sortedcontainers"
        elif filename.startswith("~") or filename == "<string>":
            key = "builtins / generated"
        else:
            key = f"stdlib/{path.name}"
        per_file[key] += tottime
    return dict(sorted(per_file.items(), key=lambda kv: kv[1], reverse=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--trace", choices=("on", "off"), default="on")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    trace = args.trace == "on"

    wall, in_gc, collections = gc_share(args.n, trace=trace)
    print(f"unprofiled: {wall:.2f} s wall, {in_gc:.2f} s in the cyclic GC ({in_gc / wall:.0%}, {collections} runs)")

    profiler = cProfile.Profile()
    gc.collect()
    gc.disable()
    try:
        profiler.enable()
        run_engine(args.n, trace=trace)
        profiler.disable()
    finally:
        gc.enable()
    stats = pstats.Stats(profiler)
    total = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
    print(f"\nprofiled (GC off) own time by module (total {total:.2f} s):")
    for module, seconds in list(profile_by_module(stats).items())[:15]:
        print(f"  {seconds / total:6.1%}  {seconds:6.2f} s  {module}")
    print()
    stats.sort_stats("tottime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
