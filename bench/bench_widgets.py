"""Widget benchmarks in the kernel, no browser: building each lab's dashboard, and step-to-render latency.

``build`` (issue 12's "building a lab's dashboard ≤ 0.5 s of kernel time"): for every ``labs/*.ipynb``,
in a fresh interpreter (so first-use costs count, as in a student's new kernel), run the lab's code cells
up to the one that builds its ``Dashboard``, and time

* ``import``: ``import widgets.dashboard`` in the fresh interpreter (ipywidgets, anywidget, every view),
  paid once per kernel by whichever cell imports it first,
* ``cell``: the cell that builds the dashboard, as the kernel runs it (its import is then a cache hit),
* ``build``: the ``Dashboard(...)`` call alone, wall and CPU (the first one in the process),
* ``again``: a second ``Dashboard`` with the same arguments in the same process (warm imports and caches).

``step``: ``Controller.step_once()`` with every default view attached, over ``demo_lab(messages=1000,
listener="fail_twice")`` (every message fails twice, so the retry and schedule queues fill up too).
Step → frame in the browser is measured by ``bench.browser_step_latency``.

    python -m bench.bench_widgets                       # both
    python -m bench.bench_widgets build [--profile LAB]  # per-lab build times (cProfile one lab's build)
    python -m bench.bench_widgets step [--steps 300] [--warmup 0] [--messages 1000]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import cProfile
import functools
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
LABS = REPO / "labs"
TARGET_BUILD_S = 0.5


# --------------------------------------------------------------------------- step latency
def measure(steps: int = 300, warmup: int = 0, messages: int = 1000) -> list[float]:
    """Wall-clock ms of each step_once() (advance + snapshot + every view updated)."""
    from rmqlab.widgets import Dashboard, demo_lab

    factory = functools.partial(demo_lab, messages=messages, listener="fail_twice")
    dashboard = Dashboard(factory, run_ahead=False)
    controller = dashboard.controller
    if warmup:
        controller.seek(warmup)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        moved = controller.step_once()
        times.append((time.perf_counter() - start) * 1000)
        if not moved:
            break
    assert not controller.errors and not any(v.errors for v in dashboard.views)
    return times


def main_step(args: argparse.Namespace) -> None:
    times = measure(args.steps, args.warmup, args.messages)
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(f"step: messages={args.messages} warmup={args.warmup} steps={len(times)}, views: the Dashboard's defaults")
    print(f"  median {statistics.median(times):.2f} ms  p95 {p95:.2f} ms  max {ordered[-1]:.2f} ms  (target < 30 ms)")


# --------------------------------------------------------------------------- dashboard build, one lab
def _cells(path: Path) -> list[str]:
    import nbformat

    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def _run_cell(source: str, ns: dict[str, Any], name: str) -> None:
    """Run a cell as a kernel would (its last expression evaluated; nothing displayed: no frontend here)."""
    tree = ast.parse(source, name)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    if last is not None:
        tree.body.pop()
    exec(compile(tree, name, "exec"), ns)
    if last is not None:
        eval(compile(ast.Expression(last.value), name, "eval"), ns)


def build_one(path: Path, profile: bool = False) -> dict[str, Any]:
    """Time the cell that builds ``path``'s first Dashboard (fresh process: call once per interpreter)."""
    t0 = time.perf_counter()
    import rmqlab.widgets.dashboard as dashboard_module

    import_s = time.perf_counter() - t0

    cls = dashboard_module.Dashboard
    calls: list[dict[str, Any]] = []
    original = cls.__init__
    profiler = cProfile.Profile() if profile else None

    def timed_init(self: Any, *args: Any, **kwargs: Any) -> None:
        w0, c0 = time.perf_counter(), time.process_time()
        if profiler is not None and not calls:
            profiler.enable()
        try:
            original(self, *args, **kwargs)
        finally:
            if profiler is not None and not calls:
                profiler.disable()
            calls.append(
                {"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0, "args": args, "kwargs": kwargs,
                 "built": self}
            )

    cls.__init__ = timed_init  # type: ignore[method-assign]
    ns: dict[str, Any] = {"__name__": "__main__"}
    before = 0.0
    result: dict[str, Any] = {"lab": path.name, "import_s": import_s}
    with contextlib.redirect_stdout(io.StringIO()):
        for i, source in enumerate(_cells(path)):
            t0 = time.perf_counter()
            _run_cell(source, ns, f"{path.name}[{i}]")
            spent = time.perf_counter() - t0
            if calls:
                first = calls[0]
                result.update(cells_before_s=before, cell_s=spent, build_s=first["wall"], build_cpu_s=first["cpu"])
                break
            before += spent
    if not calls:
        return {"lab": path.name, "dashboard": False}
    cls.__init__ = original  # type: ignore[method-assign]
    t0 = time.perf_counter()
    cls(*calls[0]["args"], **calls[0]["kwargs"])
    result["again_s"] = time.perf_counter() - t0
    result["views"] = [type(v).__name__ for v in calls[0]["built"].views]  # the first Dashboard, whatever its name
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
        result["profile"] = out.getvalue()
    return result


def build_all(labs: list[Path], profile: str | None) -> list[dict[str, Any]]:
    """``build_one`` for each lab, each in a fresh interpreter with this checkout on ``PYTHONPATH``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    rows = []
    for path in labs:
        argv = [sys.executable, "-m", "bench.bench_widgets", "build-one", str(path)]
        if profile and profile in path.name:
            argv.append("--profile")
        done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{path.name}: build-one failed:\n{done.stderr[-3000:]}")
        rows.append(json.loads(done.stdout.splitlines()[-1]))
    return rows


def main_build(args: argparse.Namespace) -> None:
    labs = sorted(LABS.glob("*.ipynb"))
    rows = build_all(labs, args.profile)
    print(f"build: a lab's Dashboard in a fresh interpreter (target ≤ {TARGET_BUILD_S} s of kernel time)")
    print(f"  {'lab':40} {'import':>7} {'cells before':>12} {'cell':>7} {'build':>7} {'build CPU':>9} {'again':>7}")
    for r in rows:
        if not r.get("dashboard", True):
            print(f"  {r['lab']:40} (no Dashboard)")
            continue
        print(
            f"  {r['lab']:40} {r['import_s']:>6.2f}s {r['cells_before_s']:>11.2f}s {r['cell_s']:>6.2f}s "
            f"{r['build_s']:>6.2f}s {r['build_cpu_s']:>8.2f}s {r['again_s']:>6.2f}s"
        )
    built = [r for r in rows if "build_s" in r]
    if built:
        cells = sorted(r["cell_s"] for r in built)
        print(f"  cell: median {statistics.median(cells):.2f} s, max {cells[-1]:.2f} s")
    for r in rows:
        if "profile" in r:
            print(f"\ncProfile of {r['lab']}'s first Dashboard(...), by cumulative time:\n{r['profile']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what")
    step = sub.add_parser("step", help="step-to-render latency")
    step.add_argument("--steps", type=int, default=300)
    step.add_argument("--warmup", type=int, default=0, help="seek to this trace position first")
    step.add_argument("--messages", type=int, default=1000)
    build = sub.add_parser("build", help="build every lab's dashboard, each in a fresh interpreter")
    build.add_argument("--profile", metavar="LAB", help="cProfile the build of the lab whose name contains LAB")
    one = sub.add_parser("build-one", help=argparse.SUPPRESS)
    one.add_argument("path", type=Path)
    one.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if args.what == "build-one":
        print(json.dumps(build_one(args.path, args.profile)))
        return
    if args.what in (None, "build"):
        main_build(args if args.what == "build" else argparse.Namespace(profile=None))
    if args.what in (None, "step"):
        main_step(args if args.what == "step" else argparse.Namespace(steps=300, warmup=0, messages=1000))


if __name__ == "__main__":
    main()
