"""Refresh the README's dashboard picture (docs/dashboard.png) on purpose, never as a side effect of a test.

    python -m tests.browser.readme_shot [--lab 03_delay_levels_schedule] [--out docs/dashboard.png]

It starts its own JupyterLab (loopback, temp token, isolated config, as the browser suite does), opens a
temp copy of the lab, runs all cells through the Run menu, finds the dashboard by its caption's test id,
waits for the flow picture to be drawn at the kernel's position, and screenshots the dashboard. The lab's
own cells choose the moment shown (lab 03 jumps to the dead-letter write: the whole 16-retry schedule).
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
    from tests.browser.pages import DASHBOARD, ROUND_TRIP_MS
    from tests.browser.test_labs_browser import open_and_run_all, shutdown_session

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lab", default="03_delay_levels_schedule", help="notebook name (without .ipynb)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "dashboard.png")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} missing: run .ci/browser-setup.sh (apt-get install chromium) first")
    name = f"{args.lab}.ipynb"
    if not (ROOT / "labs" / name).exists():
        have = sorted(p.stem for p in (ROOT / "labs").glob("*.ipynb"))
        raise SystemExit(f"--lab={args.lab!r}: no labs/{name}; have {have}")
    with tempfile.TemporaryDirectory(prefix="readme-shot-") as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "root"
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
                    opened = open_and_run_all(server, browser, name)
                    exp = opened.expected[0]
                    dash = opened.panel.locator(DASHBOARD).first
                    dash.scroll_into_view_if_needed(timeout=ROUND_TRIP_MS)
                    flow = dash.locator(".rq-scene[data-testid='rq-flow']")
                    expect(flow).to_have_attribute("data-position", str(exp.on_load.position), timeout=ROUND_TRIP_MS)
                    args.out.parent.mkdir(parents=True, exist_ok=True)
                    dash.screenshot(path=str(args.out))
                    print(f"{args.out}: {name}'s dashboard at {exp.on_load.clock}")
                finally:
                    shutdown_session(server, name)
                    browser.close()
        finally:
            stop_server(server)


if __name__ == "__main__":
    main()
