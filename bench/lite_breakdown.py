"""Where the zero-install site's start-up time goes (issue 35, item 2), as fractions of the tour's "kernel idle".

    python -m bench.lite_breakdown build/lite --rounds 3

The machine these figures come from is shared: wall times swing with the load, so this prints each phase's share
of the start and the kernel's own timings, which say what to cut even when the totals are not those of a quiet
machine. Each round serves a copy of the site whose kernel worker records when each of its start-up steps ends
(``performance.now()`` in the worker: the copy's only change), opens the tour in a fresh browser context (empty
cache; every request not to the site aborted), waits for the kernel, then runs one probe in the kernel (not a cell
of the notebook) that reads those marks and the worker's resource timings and times, in Pyodide, the imports a lab
makes and the build of a dashboard:

- **page**: navigation → the kernel's worker exists (JupyterLab's own JavaScript and the contents);
- **Pyodide + packages**: ``loadPyodide`` with every preloaded wheel (download, unpack into the in-memory file
  system); the largest wheels' downloads end late because the worker is busy unpacking the others;
- **package manager**: micropip and piplite imported; **kernel**: ``import pyodide_kernel`` (IPython, jedi,
  prompt_toolkit, pygments: the pyodide-kernel's own start);
- then, in the probe: ``from rmqlab import …`` and the course helpers (the tour's first cell), ``rmqlab.widgets``'
  checkpoints and dashboard (a lab's dashboard cell), a ``Dashboard(demo_lab)`` built, ``rmqlab.widgets.charts``
  (plotly); with the number of requests each made to the site's contents drive (one synchronous round trip each).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.lite_ready import ARGS, CHROMIUM, KERNEL_IDLE_JS, TIMEOUT_MS, TOUR, serve

STEPS = ("initRuntime", "initFilesystem", "initPackageManager", "initKernel", "initGlobals")
WORKER_INIT = ",".join(f"await this.{step}(e)" for step in STEPS)
"""The kernel worker's start (``PyodideRemoteKernel.initialize`` of jupyterlite-pyodide-kernel 0.8, minified)."""
MARKED_INIT = "self.__rmqlabMarks=[['start',performance.now()]]," + ",".join(
    f"await this.{step}(e),self.__rmqlabMarks.push(['{step}',performance.now()])" for step in STEPS
)
PROBE = r"""
import js, json, sys, time
perf = js.performance
def drive_requests():
    return sum(1 for e in perf.getEntriesByType("resource") if "/drive" in e.name)
out = {"origin": perf.timeOrigin, "marks": [list(m) for m in js.self.__rmqlabMarks.to_py()], "steps": []}
out["downloads"] = [[e.name.rsplit("/", 1)[-1], e.startTime, e.responseEnd] for e in perf.getEntriesByType("resource")
                    if e.name.endswith((".whl", ".wasm", ".zip"))]
def timed(label, code, scope):
    before, started = drive_requests(), time.perf_counter()
    exec(code, scope)
    out["steps"].append([label, (time.perf_counter() - started) * 1000, drive_requests() - before])
scope = {}
timed("from rmqlab import Lab, …", "from rmqlab import ConsumeConcurrentlyStatus, Lab, Message, format_duration", scope)
timed("rmqlab.course.exercises", "from rmqlab.course.exercises import check, show_trace, table", scope)
timed("rmqlab.widgets checkpoints + dashboard", "from rmqlab.widgets.checkpoints import Checkpoint\n"
      "from rmqlab.widgets.dashboard import Dashboard", scope)
timed("Dashboard(demo_lab) built", "from rmqlab.widgets.demo import demo_lab\ndash = Dashboard(demo_lab)", scope)
timed("rmqlab.widgets.charts (plotly)", "import rmqlab.widgets.charts", scope)
out["modules"] = len(sys.modules)
print("RMQLAB-PROBE" + json.dumps(out))
"""
EXECUTE_JS = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({code}); let out = '';
  future.onIOPub = (m) => { if (m.header.msg_type === 'stream') out += m.content.text;
    if (m.header.msg_type === 'error') out += 'ERROR ' + m.content.ename + ': ' + m.content.evalue; };
  await future.done; return out; }"""


def marked_copy(site: Path, dest: Path) -> Path:
    """A copy of ``site`` whose kernel worker records its start-up marks (:data:`MARKED_INIT`)."""
    shutil.copytree(site, dest)
    static = dest / "extensions" / "@jupyterlite" / "pyodide-kernel-extension" / "static"
    patched = 0
    for script in static.glob("*.js"):
        text = script.read_text()
        if WORKER_INIT in text:
            script.write_text(text.replace(WORKER_INIT, MARKED_INIT))
            patched += 1
    if not patched:
        raise SystemExit(f"{static}: no kernel worker with {WORKER_INIT!r} (another pyodide-kernel version?)")
    return dest


def one_round(context: Any, base: str) -> dict[str, Any]:
    page = context.new_page()
    start = time.monotonic()
    page.goto(f"{base}/lab/index.html?path={TOUR}", timeout=TIMEOUT_MS)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=TIMEOUT_MS, polling=50)
    idle_ms = (time.monotonic() - start) * 1000
    origin = page.evaluate("performance.timeOrigin")
    text = page.evaluate(EXECUTE_JS, PROBE)
    page.close()
    line = next((x for x in text.splitlines() if x.startswith("RMQLAB-PROBE")), None)
    if line is None:
        raise SystemExit(f"the probe printed no figures: {text[-500:]}")
    probe = json.loads(line.removeprefix("RMQLAB-PROBE"))
    shift = probe["origin"] - origin  # worker time + shift = page time
    marks = {name: at + shift for name, at in probe["marks"]}
    phases = {
        "page (JupyterLab until the kernel's worker)": marks["start"],
        "Pyodide + preloaded packages": marks["initRuntime"] - marks["start"],
        "package manager (micropip, piplite)": marks["initPackageManager"] - marks["initFilesystem"],
        "kernel (import pyodide_kernel: IPython …)": marks["initKernel"] - marks["initPackageManager"],
        "rest (file system, globals, idle seen)": idle_ms
        - marks["initKernel"]
        + (marks["initFilesystem"] - marks["initRuntime"]),
    }
    ends = sorted(end + shift for _, _, end in probe["downloads"])
    return {"kernel_idle_ms": idle_ms, "phases": phases, "steps": probe["steps"], "modules": probe["modules"],
            "downloads_median_end_ms": ends[len(ends) // 2], "downloads_last_end_ms": ends[-1]}  # fmt: skip


def median_share(rounds: list[dict[str, Any]], phase: str) -> float:
    return statistics.median(100 * r["phases"][phase] / r["kernel_idle_ms"] for r in rounds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site (make lite: build/lite)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each with a fresh browser context")
    parser.add_argument("--json", metavar="OUT", help="also write every round's figures as JSON")
    args = parser.parse_args(argv)
    if not (args.site / "jupyter-lite.json").is_file():
        parser.error(f"{args.site}: not a built JupyterLite site (no jupyter-lite.json); run make lite")
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: must be at least 1")
    from playwright.sync_api import sync_playwright

    rounds = []
    with tempfile.TemporaryDirectory(prefix="rmqlab-lite-breakdown-") as tmp:
        server, base = serve(marked_copy(args.site, Path(tmp) / "site"))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
                for number in range(args.rounds):
                    load = os.getloadavg()[0]
                    context = browser.new_context(viewport={"width": 1400, "height": 1000})
                    context.route(
                        "**/*", lambda r: r.continue_() if r.request.url.startswith(base + "/") else r.abort()
                    )
                    found = one_round(context, base) | {"load_before": load, "load_after": os.getloadavg()[0]}
                    context.close()
                    rounds.append(found)
                    idle = found["kernel_idle_ms"]
                    print(f"round {number + 1} (load {load:.1f} → {found['load_after']:.1f}): kernel idle "
                          f"{idle / 1000:.2f} s")  # fmt: skip
                    for name, ms in found["phases"].items():
                        print(f"  {name:48s} {ms / 1000:7.2f} s  {100 * ms / idle:5.1f} %")
                    for label, ms, drive in found["steps"]:
                        print(f"  then {label:43s} {ms / 1000:7.2f} s  ({drive} contents-drive requests)")
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=20)
    if len(rounds) > 1:
        shares = [f"{name.split(' (')[0]} {median_share(rounds, name):.0f} %" for name in rounds[0]["phases"]]
        print("median share of kernel idle: " + "; ".join(shares))
    if args.json:
        Path(args.json).write_text(json.dumps(rounds, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
