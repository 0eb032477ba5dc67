"""A real JupyterHub on 127.0.0.1 for the classroom tests (tests/test_hub_class.py, tests/test_hub_load.py).

``jupyterhub`` (PyPI, the ``test`` extra) with ``configurable-http-proxy`` (npm: on the PATH, or where ``make test``
installs it, ``.venv/node_modules/.bin``), the dummy authenticator, the simple local-process spawner (each user's
home under the test's folder), and a service token that may create users, start their servers and issue their
tokens. Every wait ends on the state it waits for; :data:`WAIT_LIMIT_S` only bounds a hung hub or server.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WAIT_LIMIT_S = 300
"""A bound on a hung hub or server, not a speed check."""
BINDIR = Path(sys.executable).parent
SCOPES = ("admin:users", "admin:servers", "tokens")
"""What the test's service token may do: create users, start and stop their servers, issue their tokens."""


def proxy_command() -> Path | None:
    """configurable-http-proxy: on the PATH, else where the Makefile installs it (``npm install --prefix .venv``)."""
    found = shutil.which("configurable-http-proxy")
    if found:
        return Path(found)
    local = Path(sys.prefix) / "node_modules" / ".bin" / "configurable-http-proxy"
    return local if local.exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(what: str, ready: Callable[[], Any], log: Path) -> Any:
    """Poll ``ready()`` until it returns something true (a refused connection counts as not yet); that value."""
    deadline = time.monotonic() + WAIT_LIMIT_S
    while True:
        try:
            value = ready()
        except (OSError, urllib.error.URLError):
            value = None
        if value:
            return value
        assert time.monotonic() < deadline, f"{what}: still not ready\n{log.read_text()[-4000:]}"
        time.sleep(0.2)


@dataclass
class Hub:
    url: str
    token: str
    log: Path
    proc: subprocess.Popen[bytes]

    def call(self, method: str, path: str, token: str | None = None, body: Any = None) -> tuple[int, Any]:
        """An HTTP request to the hub or, through its proxy, a user's server: (status, JSON body or raw bytes)."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Authorization": f"token {token or self.token}"})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=WAIT_LIMIT_S) as response:
                raw = response.read()
                return response.status, json.loads(raw) if raw.strip().startswith((b"{", b"[")) else raw
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def add_user(self, name: str) -> str:
        """Create ``name``, start their server (not waiting for it); their own API token."""
        assert self.call("POST", f"/hub/api/users/{name}")[0] == 201
        status, body = self.call("POST", f"/hub/api/users/{name}/tokens", body={"expires_in": 3600})
        assert status == 201, body
        assert self.call("POST", f"/hub/api/users/{name}/server")[0] in (201, 202)
        return str(body["token"])

    def wait_ready(self, name: str, token: str) -> None:
        """Until ``name``'s server answers through the proxy."""
        wait_for(f"{name}'s server", lambda: self.call("GET", f"/user/{name}/api/status", token)[0] == 200, self.log)


def _environment(environment: dict[str, str]) -> str:
    """The ``Spawner.environment`` source: a value with ``{user}`` in it becomes a function of the spawner."""
    items = [f"    {key!r}: lambda spawner: {value!r}.format(user=spawner.user.name)," if "{user}" in value
             else f"    {key!r}: {value!r}," for key, value in environment.items()]  # fmt: skip
    return "{\n" + "\n".join(items) + "\n}"


@contextmanager
def running_hub(folder: Path, *, args: list[str], environment: dict[str, str], log: Path | None = None,
                scopes: tuple[str, ...] = ()) -> Iterator[Hub]:  # fmt: skip
    """A hub whose spawner starts ``jupyterhub-singleuser ARGS`` with ``environment`` (``{user}``: the user's name)
    and ``HOME`` = ``folder/home/<user>``; stopped with every server at the end.

    Each server gets a short runtime folder of its own (an IPC kernel socket path must fit in 107 bytes)."""
    port, hub_port, api_port = free_port(), free_port(), free_port()
    token = secrets.token_hex(16)
    runtime = tempfile.mkdtemp(prefix="rh")
    proxy = proxy_command()
    assert proxy is not None, "configurable-http-proxy is not installed (make test installs it)"
    if os.getuid() == 0:
        args = [*args, "--allow-root"]
    env = {"JUPYTER_RUNTIME_DIR": runtime + "/{user}", **environment}
    config = folder / "jupyterhub_config.py"
    config.write_text(f"""
c = get_config()  # noqa
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{str(proxy)!r}]
c.ConfigurableHTTPProxy.pid_file = {str(folder / "proxy.pid")!r}
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(folder / "home" / "{username}")!r}
c.Spawner.cmd = [{str(BINDIR / "jupyterhub-singleuser")!r}]
c.Spawner.args = {args!r}
c.Spawner.environment = {_environment(env)}
c.Spawner.start_timeout = {WAIT_LIMIT_S}
c.Spawner.http_timeout = {WAIT_LIMIT_S}
c.JupyterHub.db_url = "sqlite:///{folder / "hub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(folder / "cookie_secret")!r}
c.JupyterHub.services = [{{"name": "classroom", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [
    {{"name": "classroom", "services": ["classroom"], "scopes": {[*SCOPES, *scopes]!r}}},
]
""")
    (folder / "home").mkdir(exist_ok=True)
    log = log or folder / "hub.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([str(BINDIR / "jupyterhub"), "-f", str(config)], cwd=folder,
                                env={**os.environ, "PATH": f"{BINDIR}{os.pathsep}{os.environ['PATH']}"},
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    hub = Hub(f"http://127.0.0.1:{port}", token, log, proc)
    try:
        wait_for("the hub", lambda: proc.poll() is None and hub.call("GET", "/hub/api/")[0] == 200, log)
        yield hub
    finally:
        stop(proc)
        shutil.rmtree(runtime, ignore_errors=True)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the hub: on SIGTERM it stops every server (all at once) and its proxy, then exits."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(WAIT_LIMIT_S / 5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
