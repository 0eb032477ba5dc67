"""Refresh the README's dashboard picture (docs/dashboard.png) on purpose, never as a side effect of a test.

    python -m tests.browser.readme_shot [--lab 03_delay_levels_schedule] [--out docs/dashboard.png]

It starts its own JupyterLab (loopback, temp token, isolated config, as the browser suite does), opens a
temp copy of the lab, runs all cells through the Run menu, finds the dashboard by its caption's test id,
waits for the clock to read what the in-process controller says, and screenshots the dashboard. The
dashboard is scrubbed to the end of its run first (``--at load`` keeps the position the lab's cells left
it at): for lab 03, the whole 16-retry schedule of one message and its dead-letter write, on the "Retry timeline"
tab (``--tab``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # expectations.py reuses tests/test_flow_view.py, as under pytest


def main() -> None:
    from playwright.sync_api import expect, sync_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, free_port, start_server, stop_server
    from tests.browser.pages import DASHBOARD, ROUND_TRIP_MS, exact
    from tests.browser.test_labs_browser import open_and_run_all, shutdown_session

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lab", default="03_delay_levels_schedule", help="notebook name (without .ipynb)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "dashboard.png")
    parser.add_argument(
        "--at", choices=("end", "load"), default="end", help="scrub to the run's end first, or keep the lab's position"
    )
    parser.add_argument("--tab", default="Retry timeline", help="the dashboard tab to show ('' keeps the first)")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} missing: run .ci/browser-setup.sh (apt-get install chromium) first")
    name = f"{args.lab}.ipynb"
    if not (ROOT / "labs" / name).exists():
        have = sorted(p.stem for p in (ROOT / "labs").glob("*.ipynb"))
        raise SystemExit(f"--lab={args.lab!r}: no labs/{name}; have {have}")
    with tempfile.TemporaryDirectory(prefix="readme-shot-") as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "root"
        home.mkdir()
        root.mkdir()
        shutil.copy2(ROOT / "labs" / name, root / name)
        token, port = "readme-shot", free_port()
        argv = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--allow-root",
            "--ip=127.0.0.1",
            f"--port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.extension_manager=readonly",
            "--LabApp.expose_app_in_browser=True",
        ]
        server = start_server(argv, home=home, root=root, token=token, port=port, ready_path="/api/status")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
                try:
                    # tall enough for the whole dashboard: JupyterLab scrolls an inner panel, not the page
                    opened = open_and_run_all(server, browser, name, viewport={"width": 1400, "height": 2200})
                    exp = opened.expected[0]
                    dash = opened.panel.locator(DASHBOARD).first
                    dash.scroll_into_view_if_needed(timeout=ROUND_TRIP_MS)
                    clock = exp.on_load.clock
                    if args.at == "end":  # the page's player: its scrubber moves through the run's frames
                        player = dash.get_by_test_id("rq-player")
                        player.get_by_role("slider", name="step", exact=True).press("End")
                        clock = exp.end_clock
                    expect(dash.get_by_test_id("rq-clock")).to_have_text(clock, timeout=ROUND_TRIP_MS)
                    if args.tab:
                        dash.locator(".rq-view-tabs button", has_text=exact(args.tab)).click()
                        expect(dash.locator(".rq-view-tabs button.mod-active")).to_have_text(exact(args.tab))
                    args.out.parent.mkdir(parents=True, exist_ok=True)
                    dash.screenshot(path=str(args.out))
                    print(f"{args.out}: {name}'s dashboard at {clock}")
                finally:
                    shutdown_session(server, name)
                    browser.close()
        finally:
            stop_server(server)


if __name__ == "__main__":
    main()
