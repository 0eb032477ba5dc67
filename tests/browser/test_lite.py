"""The zero-install site (``make lite``) works from a plain static server with no other network.

The session builds the site from fresh student copies (``lite/build_lite.py``, downloads cached in
build/lite-cache), serves it with ``python -m http.server`` on loopback, and opens it in a browser context that
aborts every request not addressed to that server (Playwright routing). For the tour and lab 03 it runs all
cells as a student does and checks what JupyterLab shows too: every code cell ran with no error output, each
cell printed exactly what the same student notebook prints when run here in CPython (the engine is
deterministic), each dashboard shows the clock and scenes the in-process controller has after the notebook
ran, and one Step click moves it as the kernel says. Slow (Pyodide starts in the browser): marked ``slow``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from built_once import rmqlab_wheel

from .conftest import ROOT, VIEWPORT, JsErrors, free_port, require_chromium
from .expectations import lab_expectations, run_cells
from .pages import ROUND_TRIP_MS, dashboards_on

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LITE_LABS = ("00_tour.ipynb", "03_delay_levels_schedule.ipynb")
KERNEL_MS = 240_000
"""Pyodide boots and loads IPython, rmqlab and the widgets from the site: slow on 2 busy cores."""
RUN_ALL_MS = 240_000
OUTPUTS_JS = """() => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  return nb.widgets.filter(c => c.model.type === 'code').map(c => {
    const outs = c.model.outputs, found = {source: c.model.sharedModel.getSource(), stdout: '', errors: []};
    for (let j = 0; j < outs.length; j++) {
      const o = outs.get(j).toJSON();
      if (o.output_type === 'stream' && o.name === 'stdout') found.stdout += o.text;
      if (o.output_type === 'error') found.errors.push(`${o.ename}: ${o.evalue}`);
    }
    found.count = c.model.executionCount;
    return found;
  });
}"""
KERNEL_IDLE_JS = """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return !!(w && w.sessionContext && w.sessionContext.session && w.sessionContext.kernelDisplayStatus === 'idle'); }"""
ALL_NUMBERED_JS = """() => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  const code = nb.widgets.filter(c => c.model.type === 'code');
  return code.length > 0 && code.every(c => c.model.executionCount !== null);
}"""
"""Every code cell has an execution count, read from the model: a folded cell (``source_hidden``, where a lab keeps a
checkpoint's words) draws no "[n]" prompt, and JupyterLab's windowing may not draw far cells."""


@dataclass
class Site:
    root: Path
    student_labs: Path
    base: str
    build: dict[str, Any]


@dataclass
class Build:
    root: Path
    student_labs: Path
    summary: dict[str, Any]


@pytest.fixture(scope="session")
def lite_build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The site, built from fresh student copies (downloads cached in build/lite-cache)."""
    work = tmp_path_factory.mktemp("lite")
    student = work / "student-labs"
    for labs, copies in ((ROOT / "labs", student), (ROOT / "labs" / "zh", student / "zh")):
        subprocess.run([sys.executable, str(ROOT / "labs" / "make_student.py"), str(labs), str(copies)],
                       check=True, capture_output=True)  # fmt: skip
    site = work / "site"
    cache = ROOT / "build" / "lite-cache"
    wheel = rmqlab_wheel(tmp_path_factory)  # the run's one build of it, shared with tests/test_leaks.py
    subprocess.run([sys.executable, str(ROOT / "lite" / "build_lite.py"), str(student), str(site), "--cache",
                    str(cache), "--wheel", str(wheel)], check=True, capture_output=True)  # fmt: skip
    return Build(site, student, json.loads((site / "rmqlab-lite.json").read_text()))


@pytest.fixture(scope="session")
def lite_site(lite_build: Build, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The built site served on a free loopback port by ``python -m http.server``."""
    require_chromium()
    port = free_port()
    log = (tmp_path_factory.mktemp("lite-http") / "http.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory",
                             str(lite_build.root)], stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{base}/jupyter-lite.json", timeout=5) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        yield Site(lite_build.root, lite_build.student_labs, base, lite_build.summary)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


NODE_RUNNER = """
import { loadPyodide } from "%(pyodide)s/pyodide.mjs";
const py = await loadPyodide({ indexURL: "%(pyodide)s/" });
await py.loadPackage("micropip");
py.mountNodeFS("/wheels", "%(wheels)s");
py.mountNodeFS("/examples", "%(examples)s");
py.globals.set("CODE", process.argv[2]);
await py.runPythonAsync(`
import micropip, os
NEEDED = ("rmqlab", "sortedcontainers", "jsonschema", "attrs", "pyrsistent")  # what rmqlab needs under Pyodide
await micropip.install(["emfs:/wheels/" + n for n in sorted(os.listdir("/wheels"))
                        if n.split("-")[0].lower() in NEEDED], deps=False)
exec(CODE, {})
`);
"""
REPORTS = """
import json, sys, rmqlab
from rmqlab.lab.report import build_report
out = {"python": sys.platform}
for name in sorted(n for n in __import__("os").listdir(EXAMPLES) if n.endswith(".json") and ".expected." not in n):
    with open(EXAMPLES + "/" + name, encoding="utf-8") as f:  # a mapping: _read imports PyYAML even for JSON
        out[name] = build_report(rmqlab.load_scenario(json.load(f)).run())
bad = {"name": "x", "brokers": ["broker-a"], "topics": [{"name": "T", "queues": 0}], "run_until": "1s"}
try:
    rmqlab.load_scenario(bad)
except rmqlab.ConfigError as exc:
    out["error"] = str(exc)
print(json.dumps(out, sort_keys=True))
"""


def course_content(where: str) -> bool:
    """Whether a file of the site (``path`` or ``wheel:member``) is the course's own: the notebooks, the site's
    settings, the rmqlab wheel (but its RECORD of file sizes); not JupyterLite's build, the lab extensions, Pyodide or
    another package's wheel, where an answer's bare digits occur by chance (45940 in plotly's bundle, 1810 in a
    Windows error table) but a teacher's sentence could not."""
    path, _, member = where.partition(":")
    if Path(path).name.startswith("rmqlab-") and path.endswith(".whl"):
        return not member.endswith(".dist-info/RECORD")
    return path.split("/", 1)[0] not in ("build", "extensions", "static", "pypi")


def test_the_site_states_no_answer_and_no_explanation(lite_build: Build) -> None:
    """Every file a student's browser can fetch from the site (each wheel and zip unpacked, the notebooks, every JSON
    and script): no sentence of an explanation or hint and no solution region anywhere, no telling spelling of an
    answer in the course's own files (tests/leak_search.py)."""
    from leak_search import files_as_text, search

    files = list(files_as_text(lite_build.root))
    ours = [where for where, _ in files if course_content(where)]
    assert any(where.startswith("pypi/rmqlab-") and where.endswith(".whl:rmqlab/course/bank.json") for where in ours)
    assert sorted(where for where in ours if where.endswith(".ipynb") and where.startswith("files/")) == sorted(
        f"files/{name}" for name in lite_build.summary["labs"])  # fmt: skip
    assert len(files) > 10 * len(ours)  # the rest: JupyterLite, Pyodide, the other wheels, searched for sentences
    assert search(iter(files), answers_in=course_content) == []


def test_the_engine_under_pyodide_runs_json_scenarios_as_cpython_does(lite_build: Build, tmp_path: Path) -> None:
    """The site's own Pyodide and wheels (run by node, no browser): every JSON example, loaded as a mapping,
    gives CPython's report, and a bad scenario the same located error (jsonschema 4.17 there, 4.2x here)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    runner = tmp_path / "run.mjs"
    runner.write_text(NODE_RUNNER % {"pyodide": lite_build.root / "static" / "pyodide",
                                     "wheels": lite_build.root / "pypi", "examples": ROOT / "examples"})  # fmt: skip
    proc = subprocess.run([node, str(runner), "EXAMPLES = '/examples'\n" + REPORTS], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[:1500] + "\n…\n" + proc.stderr[-1500:]
    pyodide = json.loads(proc.stdout.strip().splitlines()[-1])
    here: dict[str, Any] = {}
    exec(f"EXAMPLES = {str(ROOT / 'examples')!r}\n" + REPORTS.replace("print(", "RESULT = ("), here)
    cpython = json.loads(here["RESULT"])
    assert pyodide.pop("python") == "emscripten" and cpython.pop("python") != "emscripten"
    assert len(cpython) >= 4 and "error" in cpython
    assert pyodide == cpython


def test_the_site_carries_its_runtime_and_wheels(lite_site: Site) -> None:
    """Pyodide and every wheel are files of the site; the settings point the kernel at them, not at a CDN."""
    config = json.loads((lite_site.root / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = config["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["pyodideUrl"] == "./static/pyodide/pyodide.mjs" and kernel["disablePyPIFallback"] is True
    # everything the kernel and the labs import is loaded from the lock file while Pyodide starts (issue 35 item 2)
    preloaded = kernel["loadPyodideOptions"]["packages"]
    assert {"ipykernel", "comm", "pyodide-kernel", "jedi", "ipython", "micropip", "piplite", "rmqlab"} <= set(preloaded)
    pyodide = lite_site.root / "static" / "pyodide"
    for name in ("pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        assert (pyodide / name).is_file(), name
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())["packages"]
    assert all((pyodide / entry["file_name"]).is_file() for entry in lock.values())
    # plotly (the charts) is in the lock file but loaded after the start, on import (rmqlab.widgets.site_packages)
    assert sorted(lock) == sorted([*preloaded, "narwhals", "nbformat", "plotly"])
    assert (lock["plotly"]["imports"], lock["rmqlab"]["imports"]) == (["_plotly_utils", "plotly"], [])
    # the other wheels are imported from the standard library's zip, never unpacked (lite/lite_zip.py): modules,
    # bytecode and metadata (importlib.metadata finds them: micropip sees them installed)
    with zipfile.ZipFile(pyodide / "python_stdlib.zip") as stdlib:
        in_zip = set(stdlib.namelist())
    for top, dist in (("networkx", "networkx-"), ("traitlets", "traitlets-"), ("ipywidgets", "ipywidgets-")):
        assert {f"{top}/__init__.py", f"{top}/__init__.pyc"} <= in_zip and top not in lock, top
        assert any(n.startswith(dist) and n.endswith(".dist-info/METADATA") for n in in_zip), dist
    assert not any(n.startswith(("rmqlab/", "IPython/", "jedi/", "plotly/", "jsonschema/")) for n in in_zip)  # unpacked
    assert "jsonschema" in preloaded  # importlib.resources reads its metaschemas: from the zip, slowly (lite_zip)
    # bytecode compiled by this Pyodide beside every module (lite/lite_bytecode.py): the magic number of the
    # standard library's, and unchecked-hash pycs (flags 0b01), so the browser compiles nothing
    with zipfile.ZipFile(pyodide / "python_stdlib.zip") as stdlib:
        magic = stdlib.read("json/__init__.pyc")[:4]
        assert {n for n in stdlib.namelist() if n.endswith(".pyc")} == {
            n + "c" for n in stdlib.namelist() if n.endswith(".py")}  # fmt: skip
    with zipfile.ZipFile(pyodide / lock["rmqlab"]["file_name"]) as wheel:
        modules = [n for n in wheel.namelist() if n.endswith(".py")]
        assert "rmqlab/widgets/dashboard.py" in modules and len(modules) > 200
        for module in modules:
            folder, _, name = module.rpartition("/")
            header = wheel.read(f"{folder}/__pycache__/{name[:-3]}.cpython-314.pyc")[:8]
            assert header == magic + bytes([1, 0, 0, 0]), module
    with zipfile.ZipFile(pyodide / lock["jedi"]["file_name"]) as wheel:  # lite/lite_slim.py: the site's stubs only
        stubs = {n.split("/")[4] for n in wheel.namelist() if n.startswith("jedi/third_party/typeshed/stubs/")}
        assert {"networkx", "Pygments"} <= stubs and "requests" not in stubs
        assert not any(n.startswith("jedi/third_party/django-stubs/") for n in wheel.namelist())
    wheels = {w.split("-")[0].lower() for w in lite_site.build["wheels"]}
    assert {"rmqlab", "sortedcontainers", "ipywidgets", "anywidget", "networkx", "ipython", "jsonschema", "plotly",
            "narwhals", "nbformat"} <= wheels  # fmt: skip
    names = {e["name"] for e in config["federated_extensions"]}
    assert names == {"@jupyterlite/pyodide-kernel-extension", "@jupyter-widgets/jupyterlab-manager", "anywidget",
                     "jupyterlab-plotly"}  # fmt: skip
    released = lite_site.student_labs.rglob("*.ipynb")  # the English labs and, in zh/, the Chinese ones
    assert sorted(lite_site.build["labs"]) == sorted(p.relative_to(lite_site.student_labs).as_posix() for p in released)


LITE_CASES = [pytest.param(name, id=name.removesuffix(".ipynb")) for name in LITE_LABS]
"""``LITE_LABS`` as test cases (ids without ``.ipynb``)."""


@pytest.mark.parametrize("name", LITE_CASES)
def test_lab_runs_offline_in_the_browser(
    lite_site: Site, browser: Any, name: str, timings: dict[str, dict[str, float]]
) -> None:
    from playwright.sync_api import expect

    # the notebook run here (CPython) for what the page must show, meanwhile Pyodide starts in the browser: this
    # process only waits on the page until Run All is done (lab 03: ~40 s of CPython on a busy machine, overlapped)
    here = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lite-expectations")
    expecting = here.submit(lab_expectations, lite_site.student_labs / name)
    here.shutdown(wait=False)
    context = browser.new_context(viewport=VIEWPORT)
    blocked: list[str] = []

    def only_the_site(route: Any) -> None:
        url = route.request.url
        if url.startswith(lite_site.base + "/"):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    context.route("**/*", only_the_site)
    try:
        page = context.new_page()
        errors = JsErrors(page)
        t_open = time.monotonic()
        page.goto(f"{lite_site.base}/lab/index.html?path={name}", timeout=KERNEL_MS)
        panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
        expect(panel.locator(".jp-Toolbar-kernelName")).to_have_text("Python (Pyodide)", timeout=KERNEL_MS)
        page.wait_for_function(KERNEL_IDLE_JS, timeout=KERNEL_MS)
        t_run = time.monotonic()
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function(ALL_NUMBERED_JS, timeout=RUN_ALL_MS)
        page.wait_for_function(KERNEL_IDLE_JS, timeout=RUN_ALL_MS)
        timings[f"lite:{name}"] = {"open_s": round(t_run - t_open, 2), "run_all_s": round(time.monotonic() - t_run, 2)}

        cells = page.evaluate(OUTPUTS_JS)
        assert [c["errors"] for c in cells if c["errors"]] == [], f"{name}: error outputs in the browser"
        assert "%pip" not in cells[0]["source"]  # no install cell: rmqlab is loaded with Pyodide
        expected = expecting.result()
        want = run_cells(lite_site.student_labs / name).stdout  # that same run's stdout (cached)
        got = {c["source"]: c["stdout"] for c in cells}
        assert got.keys() == want.keys()
        differ = [src.splitlines()[0] for src in want if got[src] != want[src]]
        assert differ == [], f"{name}: cells whose printed text differs from CPython's: {differ}"

        assert expected, f"{name} displays no dashboard"
        for dash in dashboards_on(page, panel, expected, name):
            dash.show()
            expect(dash.clock).to_have_text(dash.expected.on_load.clock, timeout=ROUND_TRIP_MS)
            dash.expect_scenes_as_opened(dash.expected.on_load_scenes)  # each tab once opened, as a student does
        first = dashboards_on(page, panel, expected, name)[0]
        if first.expected.after_load_step is not None:
            first.show()
            cp = first.expected.checkpoint_at(int(first.flow.get_attribute("data-step") or -1))  # the step on load
            if cp is not None:  # the lab left its picture on a checkpoint: Step is held until the student answers
                first.button("Step").click()
                first.answer_checkpoint(cp)
            first.button("Step").click()
            first.expect_frame(first.expected.after_load_step)
        expect(panel.get_by_text("Error displaying widget")).to_have_count(0)
        errors.check()
        assert blocked == [], f"{name}: the site asked for something that is not on it: {blocked}"
    finally:
        context.close()
        if not expecting.cancel():  # started: wait for it, so a failure above does not leave it running
            expecting.exception()
