"""Step → SVG updated in the browser: what a student waits for after clicking Step (Playwright).

A notebook shows a Controller with a :class:`widgets.flow_view.FlowView` over
``demo_lab(messages=12, listener="fail_twice")`` (every message fails twice: tokens travel through
ProcessQueues, delay levels and ``%RETRY%``). For each of ``--steps`` clicks we time, in the page,
``performance.now()`` at the click and when the flow view's root ``data-frame`` attribute changes (the
step is drawn: ``scene.js`` has morphed the SVG), and at the next animation frame after that (the browser is
ready to paint it). The CSS travel of a token (350 ms) runs after this and is not counted: it is animation, not
waiting. At the run's last frame the harness presses Reset (not timed) and goes on.

    python -m bench.browser_step_latency [--steps 40] [--json out.json] [--only MODE ...]

Modes (issue 32): ``plain`` JupyterLab as shipped (the run's frames in the page: no kernel round trip), ``lab``
the same with a lab's dashboard (lab 03's ``past_dash``, every default view, its Events tab open),
``voila`` the same notebook in Voila, ``static`` the dashboard's ``save_html`` page opened from disk (no
server), and for comparison ``kernel`` (JupyterLab, ``run_ahead=False``: every Step a kernel round trip, as
before frames) and ``nodelay`` (that, with :mod:`widgets.nodelay`'s ``TCP_NODELAY`` on the kernel websocket).
The ping column is a bare ipywidgets Button → Label round trip through the same kernel (none in ``static``).

Needs Debian's /usr/bin/chromium and Playwright, like the browser tests (never downloads a browser).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = ["StepTimes", "measure", "summarise"]

NOTEBOOK = "step_latency.ipynb"
MODES = ("plain", "lab", "voila", "static", "kernel", "nodelay")
SETUP = (
    "import ipywidgets as W\n"
    "from rmqlab.widgets.controller import Controller\n"
    "from rmqlab.widgets.demo import demo_lab\n"
    "from rmqlab.widgets.flow_view import FlowView\n"
    "view = FlowView()\n"
    "ctl = Controller(lambda: demo_lab(messages=12, listener='fail_twice'), views=[view], run_ahead={ahead})\n"
    "W.VBox([ctl, view])"
)
LAB_SETUP = (
    "from rmqlab import ConsumeConcurrentlyStatus, Lab, Message\n"
    "from rmqlab.widgets.dashboard import Dashboard\n"
    "def always_fails(msgs, ctx):\n"
    "    return ConsumeConcurrentlyStatus.RECONSUME_LATER\n"
    "def failing_lab(**consumer_options):\n"
    "    lab = Lab(seed=7)\n"
    "    lab.add_broker('broker-a')\n"
    "    lab.create_topic('TopicTest', queues=1)\n"
    "    p = lab.add_producer('pg')\n"
    "    lab.add_consumer('cg', subscribe={'TopicTest': '*'}, listener=always_fails, name='c1', **consumer_options)\n"
    "    lab.at(0, p.send, Message('TopicTest', 'poison'))\n"
    "    return lab\n"
    "past_dash = Dashboard(failing_lab, knobs={'max_reconsume_times': 20}, horizon='7h')\n"
    "past_dash"
)
"""Mode ``lab``: lab 03's ``past_dash`` as the lab builds it (its factory copied; 39 frames over 7 h, every
default view), with its Events tab open, so each Step redraws the main picture and the Events table from the
frames in the page."""
PING = (
    "ping, pong = W.Button(description='ping'), W.Label('0')\n"
    "ping.on_click(lambda _: setattr(pong, 'value', str(int(pong.value) + 1)))\n"
    "W.HBox([ping, pong])"
)
"""The floor: a bare ipywidgets Button → Label round trip through the same kernel and page."""
PING_JS = """async (n) => {
  const ping = [...document.querySelectorAll('button.widget-button')].find(b => b.textContent.trim() === 'ping');
  const pong = ping.parentElement.querySelector('.widget-label');
  const out = [];
  for (let i = 0; i < n; i++) {
    const before = pong.textContent;
    const t0 = performance.now();
    const done = new Promise(resolve => {
      const obs = new MutationObserver(() => {
        if (pong.textContent !== before) { obs.disconnect(); resolve(performance.now()); }
      });
      obs.observe(pong, {childList: true, characterData: true, subtree: true});
    });
    ping.click();
    out.push((await done) - t0);
    await new Promise(r => setTimeout(r, 30));
  }
  return out;
}"""
CLICK_JS = """async (n) => {
  const root = document.querySelector('.rq-scene[data-testid=rq-flow]');
  const button = (label) => [...document.querySelectorAll('button')].find(b => b.textContent.trim() === label);
  const step = button('Step');
  const out = [];
  for (let i = 0; i < n; i++) {
    if (step.disabled) {  // the run's last frame: back to the start, untimed
      const was = root.dataset.frame;
      button('Reset').click();
      for (let k = 0; k < 200 && root.dataset.frame === was; k++) await new Promise(r => setTimeout(r, 10));
      await new Promise(r => setTimeout(r, 50));
    }
    const frame = root.dataset.frame;
    const t0 = performance.now();
    const drawn = new Promise(resolve => {
      const obs = new MutationObserver(() => {
        if (root.dataset.frame !== frame) { obs.disconnect(); resolve(performance.now()); }
      });
      obs.observe(root, {attributes: true, attributeFilter: ['data-frame']});
    });
    step.click();
    const t1 = await drawn;
    const t2 = await new Promise(r => requestAnimationFrame(() => r(performance.now())));
    out.push([t1 - t0, t2 - t0, +root.dataset.drawMs]);
    await new Promise(r => setTimeout(r, 30));  // let the widget manager settle (no overlapping clicks)
  }
  return out;
}"""


@dataclass(frozen=True, slots=True)
class StepTimes:
    """Click → data-frame changed, click → the next animation frame, and scene.js's own draw, in ms."""

    steps: int
    frame_median_ms: float
    frame_p95_ms: float
    frame_max_ms: float
    paint_median_ms: float
    paint_p95_ms: float
    draw_median_ms: float
    """``scene.js`` morphing the SVG (the root's ``data-draw-ms``): the view's own share in the browser."""
    ping_median_ms: float
    """A bare Button → Label round trip: what any widget click costs here before our view does anything."""
    ping_p95_ms: float


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def summarise(pairs: Sequence[Sequence[float]], pings: Sequence[float]) -> StepTimes:
    """Median / p95 / max of click → frame, median / p95 of click → paint, the draw, and the ping floor."""
    if not pairs or not pings:
        raise ValueError(f"nothing timed: {len(pairs)} steps, {len(pings)} pings")
    frame = [p[0] for p in pairs]
    paint = [p[1] for p in pairs]
    return StepTimes(
        steps=len(pairs),
        frame_median_ms=round(statistics.median(frame), 1),
        frame_p95_ms=round(_p95(frame), 1),
        frame_max_ms=round(max(frame), 1),
        paint_median_ms=round(statistics.median(paint), 1),
        paint_p95_ms=round(_p95(paint), 1),
        draw_median_ms=round(statistics.median(p[2] for p in pairs), 1),
        ping_median_ms=round(statistics.median(pings), 1),
        ping_p95_ms=round(_p95(pings), 1),
    )


def _write_notebook(path: Path, *, ahead: bool = True, lab: bool = False) -> None:
    import nbformat

    setup = LAB_SETUP if lab else SETUP.format(ahead=ahead)
    # a tall dashboard first would leave the ping cell unrendered (JupyterLab's windowing)
    cells = [setup, PING] if not lab else ["import ipywidgets as W\n" + PING, setup]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


ROOT = Path(__file__).resolve().parents[1]


def _require_log(server: Any, line: str, timeout_s: float = 30.0) -> None:
    """Wait for ``line`` in the server log; fail loudly (a silently unloaded extension measures the wrong thing)."""
    deadline = time.monotonic() + timeout_s
    while line not in server.log.read_text(errors="replace"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server never logged {line!r}:\n{server.log_tail()}")
        time.sleep(0.2)


def measure_static(steps: int = 40, warmup: int = 3) -> tuple[list[list[float]], list[float]]:
    """The dashboard's save_html page, opened from disk in Chromium (no server, no kernel): time Steps."""
    from playwright.sync_api import sync_playwright
    from rmqlab.widgets.dashboard import Dashboard
    from rmqlab.widgets.demo import demo_lab
    from rmqlab.widgets.export import save_html
    from rmqlab.widgets.flow_view import FlowView

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT

    view = FlowView()
    view.main = True
    dash = Dashboard(lambda: demo_lab(messages=12, listener="fail_twice"), views=[view])
    with tempfile.TemporaryDirectory(prefix="rmqlab-bench-") as tmp:
        page_path = save_html(dash, Path(tmp) / "dash.html")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            try:
                page = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[arg-type]
                page.goto(page_path.as_uri())
                page.locator(".rq-scene[data-testid=rq-flow][data-frame]").wait_for(timeout=60_000)
                page.evaluate(CLICK_JS, warmup)
                return list(page.evaluate(CLICK_JS, steps)), []
            finally:
                browser.close()


def measure_voila(steps: int = 40, warmup: int = 3) -> tuple[list[list[float]], list[float]]:
    """The notebook in Voila: time Steps and pings."""
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, start_voila, stop_server

    with tempfile.TemporaryDirectory(prefix="rmqlab-bench-") as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "root"
        home.mkdir()
        root.mkdir()
        _write_notebook(root / NOTEBOOK)
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
        server = start_voila(root / NOTEBOOK, home=home, root=root)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
                try:
                    page = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[arg-type]
                    page.goto(server.url("/"), timeout=180_000)
                    page.locator(".rq-scene[data-testid=rq-flow][data-frame]").wait_for(timeout=180_000)
                    page.locator("button.widget-button", has_text="ping").wait_for(timeout=120_000)
                    page.evaluate(CLICK_JS, warmup)
                    page.evaluate(PING_JS, warmup)
                    return list(page.evaluate(CLICK_JS, steps)), list(page.evaluate(PING_JS, steps))
                finally:
                    browser.close()
        finally:
            stop_server(server)


def measure(
    steps: int = 40, warmup: int = 3, *, nodelay: bool = False, ahead: bool = True, lab: bool = False
) -> tuple[list[list[float]], list[float]]:
    """Start JupyterLab (``nodelay``: with TCP_NODELAY) and Chromium, run the notebook, time Steps and pings.

    ``warmup`` Steps and pings are made and dropped first; then ``steps`` of each are timed. ``ahead``: the
    controller sends the run's frames to the page (as shipped); ``False``: every Step is a kernel round trip.
    """
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, free_port, start_server, stop_server

    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install chromium (browsers cannot be downloaded here)")
    with tempfile.TemporaryDirectory(prefix="rmqlab-bench-") as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "root"
        home.mkdir()
        root.mkdir()
        _write_notebook(root / NOTEBOOK, ahead=ahead, lab=lab)
        token, port = secrets.token_hex(16), free_port()
        argv = [
            sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
            "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
            "--LabApp.extension_manager=readonly", "--LabApp.expose_app_in_browser=True",
        ]  # fmt: skip
        if nodelay:
            argv.append('--ServerApp.jpserver_extensions={"rmqlab.widgets.nodelay": True}')  # a Python literal
        # the server runs in the temp root: a relative PYTHONPATH would lose widgets/ and bench/ there
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
        server = start_server(argv, home=home, root=root, token=token, port=port, ready_path="/api/status")
        try:
            if nodelay:
                _require_log(server, "rmqlab.widgets.nodelay: TCP_NODELAY")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
                try:
                    page = browser.new_context(viewport=VIEWPORT).new_page()  # type: ignore[arg-type]
                    page.goto(server.url(f"/lab/tree/{NOTEBOOK}", "reset"))
                    page.wait_for_function(
                        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                        " && window.jupyterapp.shell.currentWidget.sessionContext"
                        " && window.jupyterapp.shell.currentWidget.sessionContext.kernelDisplayStatus === 'idle'",
                        timeout=120_000,
                    )
                    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
                    page.locator(".rq-scene[data-testid=rq-flow]").wait_for(timeout=120_000)
                    # attached, not visible: under a tall dashboard the ping cell may be out of view (not laid out)
                    page.locator("button.widget-button", has_text="ping").wait_for(state="attached", timeout=120_000)
                    if lab:  # the Events tab shown: its table moves with every Step too
                        page.locator(".rq-view-tabs button", has_text="Events").click()
                        page.locator(".rq-table-view[data-frames='39']").wait_for(state="attached", timeout=120_000)
                        page.locator(".rq-scene[data-testid=rq-flow]").scroll_into_view_if_needed()
                    page.evaluate(CLICK_JS, warmup)
                    page.evaluate(PING_JS, warmup)
                    pairs = list(page.evaluate(CLICK_JS, steps))
                    pings = list(page.evaluate(PING_JS, steps))
                    return pairs, pings
                finally:
                    browser.close()
        finally:
            stop_server(server)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures and raw times here")
    parser.add_argument("--only", choices=MODES, nargs="+", default=None, help="measure these modes only")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error(f"--steps={args.steps}: must be at least 1")
    report: dict[str, object] = {}
    for name in MODES:
        if args.only is not None and name not in args.only:
            continue
        started = time.monotonic()
        load = os.getloadavg()[0]
        if name == "static":
            pairs, pings = measure_static(args.steps)
        elif name == "voila":
            pairs, pings = measure_voila(args.steps)
        else:
            pairs, pings = measure(
                args.steps, nodelay=name == "nodelay", ahead=name in ("plain", "lab"), lab=name == "lab"
            )
        result = summarise(pairs, pings or [0.0])
        _print(name, result, time.monotonic() - started, load)
        report[name] = {**asdict(result), "raw_ms": pairs, "ping_ms": pings}
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


def _print(name: str, result: StepTimes, seconds: float, load: float) -> None:
    server = {
        "plain": "JupyterLab as shipped, frames in the page",
        "lab": "JupyterLab as shipped, lab 03's past_dash with its Events tab open",
        "voila": "Voila, frames in the page",
        "static": "static page from disk",
        "kernel": "JupyterLab, run_ahead=False (kernel round trip)",
        "nodelay": "JupyterLab, run_ahead=False + TCP_NODELAY",
    }[name]
    subject = "lab 03 past_dash + Events tab" if name == "lab" else "FlowView, demo_lab 12 messages"
    print(
        f"[{server}] load {load:.1f}: Step → SVG updated ({subject}), {result.steps} steps: "
        f"median {result.frame_median_ms} ms, p95 {result.frame_p95_ms} ms, max {result.frame_max_ms} ms "
        f"(target median ≤ 16, p95 ≤ 33); to the next animation frame: median {result.paint_median_ms} ms, "
        f"p95 {result.paint_p95_ms} ms; scene.js draw median {result.draw_median_ms} ms; a bare Button → Label "
        f"round trip: median {result.ping_median_ms} ms, p95 {result.ping_p95_ms} ms; "
        f"{seconds:.0f} s in all"
    )


if __name__ == "__main__":
    sys.exit(main())
