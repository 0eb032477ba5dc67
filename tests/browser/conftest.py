"""One JupyterLab server and one headless Chromium for the whole browser suite.

Why these fixtures look the way they do (see /work/shared/notes/browser-testing.md):

- Playwright's own browser downloads cannot be reached here, so we launch Debian's ``/usr/bin/chromium``
  (installed by ``.ci/browser-setup.sh``); without it every browser test skips with a reason.
- The server listens on loopback only, on a free port, with a throw-away token, and gets its own config,
  runtime, settings and workspace dirs, so nothing from a developer's JupyterLab leaks in (and the
  "official Jupyter news?" toast, which covers part of the page, is turned off).
- Notebooks are copied to a temp dir: running them marks them dirty, and the suite must not touch labs/.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABS = ROOT / "labs"
ARTIFACTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
# --no-sandbox: the suite runs as root in a container; the rest keeps Chromium from phoning home.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VIEWPORT = {"width": 1400, "height": 1000}
FOREIGN_EXTENSIONS = ("@jupyterlite/",)
"""Lab extensions that may sit next to JupyterLab in a shared environment without being the project's
(``jupyterlite-pyodide-kernel`` only works inside a JupyterLite static site): served by jupyter_server their
module fails to load ("Shared module @jupyterlite/services doesn't exist in shared scope default"), even when
disabled in page_config. Errors naming them are not the labs' errors; every other error still fails a test."""


def free_port() -> int:
    """A loopback port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def isolated_env(home: Path) -> dict[str, str]:
    """Environment for a Jupyter process whose config, runtime, settings and workspaces live under ``home``."""
    env = dict(os.environ)
    dirs = {
        "JUPYTER_CONFIG_DIR": home / "config",
        "JUPYTER_RUNTIME_DIR": home / "runtime",
        "JUPYTERLAB_SETTINGS_DIR": home / "settings",
        "JUPYTERLAB_WORKSPACES_DIR": home / "workspaces",
        "IPYTHONDIR": home / "ipython",
        "TMPDIR": home / "tmp",  # Voila keeps kernel connection files in a mkdtemp() dir, not the runtime dir
    }
    for name, path in dirs.items():
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    env["JUPYTER_PLATFORM_DIRS"] = "1"  # the new path layout; silences jupyter_core's migration warning
    news = dirs["JUPYTERLAB_SETTINGS_DIR"] / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True, exist_ok=True)
    news.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    return env


@dataclass
class Server:
    """A running Jupyter-ish server: where it is, its token, its files, and its log."""

    base: str
    token: str
    root: Path
    log: Path
    proc: subprocess.Popen[bytes]

    def url(self, path: str, query: str = "") -> str:
        """``base/path?token=…`` (plus ``&query``)."""
        sep = "&" if query else ""
        return f"{self.base}{path}?token={self.token}{sep}{query}"

    def api(self, method: str, path: str) -> Any:
        """Call the REST API with the token header; the decoded JSON body, or ``None`` for an empty one."""
        req = urllib.request.Request(
            f"{self.base}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=30) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def log_tail(self, n: int = 40) -> str:
        """The last ``n`` lines of the server's log, for failure messages."""
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no log)"


def start_server(
    argv: list[str], *, home: Path, root: Path, token: str, port: int, ready_path: str, any_status: bool = False
) -> Server:
    """Start ``argv`` with an isolated env and wait until ``ready_path`` answers 200 (or fail with its log).

    ``ready_path`` must be cheap: JupyterLab's ``/api/status``. Voila has no status API and executes the
    notebook on every page request, so for it (``any_status``) any HTTP answer means "listening".
    """
    log = home / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, cwd=root, env=isolated_env(home), stdout=out, stderr=subprocess.STDOUT)
    server = Server(f"http://127.0.0.1:{port}", token, root, log, proc)
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{argv[2]} exited with {proc.returncode}:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(server.url(ready_path), timeout=5) as resp:
                if resp.status == 200:
                    return server
        except urllib.error.HTTPError as exc:
            exc.close()
            if any_status:
                return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            stop_server(server)
            raise RuntimeError(f"{argv[2]} did not answer {ready_path} within 90 s:\n{server.log_tail()}")
        time.sleep(0.25)


# JupyterLab extensions of the teacher tools (jupytext pairing, nbgrader, and the notebook package nbgrader
# brings) need JupyterLab's document manager, which Voila's page does not provide: loaded there they throw
# "shared module is not a function"; the JupyterLite kernel extension only works in a JupyterLite site.
# A dashboard needs none of them.
NOT_FOR_VOILA = (
    "jupyterlab-jupytext",
    "@jupyter/nbgrader",
    "@jupyter-notebook/lab-extension",
    "@jupyterlite/pyodide-kernel-extension",
)
VOILA_CDN_NOISE = ("cdn.jsdelivr.net",)
"""Voila's page links Font Awesome from a CDN, which these machines cannot resolve: only icons go missing."""


def start_voila(target: Path, *, home: Path, root: Path) -> Server:
    """``voila TARGET`` (a notebook or a folder) on 127.0.0.1:<free port> with a temp token, without the
    extensions that break Voila's page; stop it with :func:`stop_server`."""
    token, port = secrets.token_hex(16), free_port()
    argv = [
        sys.executable,
        "-m",
        "voila",
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--Voila.port_retries=0",
        f"--token={token}",
        f"--VoilaConfiguration.extension_denylist={list(NOT_FOR_VOILA)!r}",
        str(target),
    ]
    # No status API in Voila: any HTTP answer from a static path means it is listening.
    return start_server(
        argv, home=home, root=root, token=token, port=port, ready_path="/voila/static/", any_status=True
    )


def stop_server(server: Server) -> None:
    """Stop the server by its own PID (terminate, then kill if it hangs) and reap it."""
    if server.proc.poll() is None:
        server.proc.terminate()
        try:
            server.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait(timeout=10)


def require_chromium() -> None:
    """Skip (with the reason) when the browser or Playwright is not there; never try to download one."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} missing: run .ci/browser-setup.sh (apt-get install chromium) to enable browser tests")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")


def cjk_fonts() -> list[str]:
    """The families fontconfig has for Chinese (``fc-list :lang=zh``): Debian's fonts-noto-cjk gives Noto Sans CJK."""
    if shutil.which("fc-list") is None:
        return []
    listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False).stdout
    return sorted({line.split(",")[0].strip() for line in listed.splitlines() if line.strip()})


def require_cjk_font() -> None:
    """Skip (with the reason) a test that looks at Chinese text when no font can draw it: the page would show empty
    boxes, which is the machine's lack, not the page's fault."""
    if not cjk_fonts():
        pytest.skip("no Chinese font (fc-list :lang=zh is empty): run .ci/browser-setup.sh (apt-get install "
                    "fonts-noto-cjk) to enable the Chinese screenshots")  # fmt: skip


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Debian Chromium for the session, driven by Playwright."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """JupyterLab on 127.0.0.1:<free port> serving a temp copy of labs/*.ipynb."""
    require_chromium()  # no browser → no point starting a server
    home = tmp_path_factory.mktemp("jupyter-home")
    root = tmp_path_factory.mktemp("labs-copy")
    for nb in sorted(LABS.glob("*.ipynb")):
        shutil.copy2(nb, root / nb.name)
    token, port = secrets.token_hex(16), free_port()
    argv = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",  # the container runs as root; without it the server exits at once
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",  # fail loudly instead of silently moving to another port
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.extension_manager=readonly",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: run commands and read kernel status
    ]
    server = start_server(argv, home=home, root=root, token=token, port=port, ready_path="/api/status")
    try:
        yield server
    finally:
        stop_server(server)


FIRST_KERNEL_MS = 90_000
"""How long a page may wait for its first kernel (a cold JupyterLab on a loaded 2-core machine)."""
RUN_ALL_MS = 120_000
ALL_NUMBERED_JS = """() => {
  const p = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')];
  return p.length > 0 && p.every(e => /\\[\\d+\\]/.test(e.textContent));
}"""
KERNEL_IDLE_JS = "() => window.jupyterapp.shell.currentWidget.sessionContext.kernelDisplayStatus === 'idle'"


def run_all_in_jupyterlab(page: Any, jupyter: Server, notebook: str) -> Any:
    """Open ``notebook`` in JupyterLab, wait for its kernel, Run All, and wait until every code cell has run and the
    kernel is idle again (state, not time): the notebook's panel."""
    from playwright.sync_api import expect

    page.goto(jupyter.url(f"/lab/tree/{notebook}", "reset"))
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    expect(panel.locator(".jp-Toolbar-kernelName")).not_to_have_text("No Kernel", timeout=FIRST_KERNEL_MS)
    expect(page.locator("#jp-main-statusbar")).to_contain_text("| Idle", timeout=FIRST_KERNEL_MS)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(ALL_NUMBERED_JS, timeout=RUN_ALL_MS)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=RUN_ALL_MS)
    return panel


class JsErrors:
    """Console errors and uncaught page errors of one page, minus noise we know to be harmless."""

    def __init__(self, page: Any, *, ignore_hosts: tuple[str, ...] = ()) -> None:
        self.messages: list[str] = []
        self.ignore_hosts = ignore_hosts
        page.on("console", self._on_console)
        page.on("pageerror", lambda exc: self._add(f"pageerror: {exc}"))

    def _on_console(self, msg: Any) -> None:
        if msg.type != "error":
            return
        where: Mapping[str, Any] = msg.location or {}
        url = str(where.get("url", ""))
        if any(host in url for host in self.ignore_hosts):
            return
        self._add(f"console.error: {msg.text} (at {url or '?'})")

    def _add(self, message: str) -> None:
        if not any(name in message for name in FOREIGN_EXTENSIONS):
            self.messages.append(message)

    def check(self) -> None:
        """Fail with every collected message (the list is emptied, so the next check starts afresh)."""
        found, self.messages = self.messages, []
        assert not found, "JavaScript errors in the page:\n" + "\n".join(found)


@pytest.fixture(scope="session")
def timings() -> Iterator[dict[str, dict[str, float]]]:
    """Per-notebook wall times (open, Run All), written to artifacts/browser-timings.json at the end."""
    found: dict[str, dict[str, float]] = {}
    yield found
    if found:
        ARTIFACTS.parent.mkdir(parents=True, exist_ok=True)
        write_timings(ARTIFACTS.parent / "browser-timings.json", found)


def write_timings(path: Path, found: dict[str, dict[str, float]]) -> None:
    """Write ``found`` to ``path``; under ``make test``'s two xdist workers, merged with what the other worker of
    the same run wrote (a side file names the run; a file from an earlier run is replaced, not merged)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")
    stamp = path.with_name(path.name + ".run")
    with open(stamp.with_name(stamp.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the two workers end at about the same time
        merged: dict[str, dict[str, float]] = {}
        if run and path.exists() and stamp.exists() and stamp.read_text() == run:
            merged = json.loads(path.read_text())
        merged.update(found)
        path.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n")
        stamp.write_text(run)


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    """artifacts/screenshots (git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
