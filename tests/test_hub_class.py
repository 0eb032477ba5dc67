"""A graded class on a real JupyterHub (127.0.0.1): the teacher releases a lab, three students fetch it through their
own servers, answer (right, wrong, a cheat) and submit, the teacher collects and autogrades, and the grades are
exactly right (3, 0, 0 of 3).

The hub is started as tests/test_hub_load.py starts it (``jupyterhub`` from PyPI, ``configurable-http-proxy`` from
npm, dummy authenticator, local-process spawner); each student server gets the TLJH plugin's exact arguments and
the shared nbgrader settings (``deploy/nbgrader/nbgrader_config.py``: course id, exchange), and the teacher's course
directory is what ``deploy/nbgrader/make_teacher.py`` makes. Students work only through their server's HTTP API
behind the hub (the Assignments list's fetch and submit, the contents API to save the notebook); the teacher runs
the nbgrader commands a teacher types.

Every process here runs as one OS user, so each student server reads its student id from ``JUPYTERHUB_USER``, as
nbgrader does on Zero to JupyterHub (where every pod's user is ``jovyan``): a two-line ``sitecustomize`` on the
servers' path makes nbgrader treat this user that way.

About 3 minutes on two shared cores (three servers, three autograded runs), so it runs with ``make hub-class``
(``RMQLAB_HUB_CLASS=1``), not in ``make test``; skipped when jupyterhub or the proxy is missing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from teacher.compile import answers

ROOT = Path(__file__).resolve().parents[1]
LAB = "08_broadcasting_vs_clustering.ipynb"
ASSIGNMENT = "lab08"
COURSE = "rmqlab"
WAIT_LIMIT_S = 300  # a bound on a hung hub or server, not a speed check: every wait ends on the state it waits for

pytestmark = [
    pytest.mark.slow,
    pytest.mark.hub,
    pytest.mark.skipif(os.environ.get("RMQLAB_HUB_CLASS") != "1", reason="a 3-minute class on a hub: make hub-class"),
    pytest.mark.skipif(shutil.which("configurable-http-proxy") is None, reason="configurable-http-proxy (npm) missing"),
]
pytest.importorskip("jupyterhub", reason="jupyterhub is not installed (pip install -e '.[test]')")
pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[teacher]')")

SITECUSTOMIZE = """import os
import nbgrader.utils as _utils
_utils.get_osusername = lambda: "jovyan" if os.environ.get("JUPYTERHUB_USER") else _utils.pwd.getpwuid(os.getuid())[0]
"""


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(what: str, ready: Any, log: Path) -> Any:
    deadline = time.monotonic() + WAIT_LIMIT_S
    while True:
        try:
            value = ready()
        except (OSError, urllib.error.URLError):
            value = None
        if value:
            return value
        assert time.monotonic() < deadline, f"{what}: still not ready\n{log.read_text()[-4000:]}"
        time.sleep(0.3)


class Hub:
    def __init__(self, url: str, token: str, log: Path) -> None:
        self.url, self.token, self.log = url, token, log

    def call(self, method: str, path: str, token: str | None = None, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Authorization": f"token {token or self.token}"})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                raw = response.read()
                return response.status, json.loads(raw) if raw.strip().startswith((b"{", b"[")) else raw
        except urllib.error.HTTPError as error:
            return error.code, error.read()


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    port, hub_port, api_port = _free_port(), _free_port(), _free_port()
    token = secrets.token_hex(16)
    runtime = tempfile.mkdtemp(prefix="rc")
    bindir = Path(sys.executable).parent
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(SITECUSTOMIZE)
    shared = tmp_path / "etc-jupyter"  # the users' environment's etc/jupyter on a hub: nbgrader's shared settings
    shared.mkdir()
    shutil.copy(ROOT / "deploy" / "nbgrader" / "nbgrader_config.py", shared / "nbgrader_config.py")
    (tmp_path / "exchange").mkdir(mode=0o1777)
    args = [*_load(ROOT / "deploy" / "tljh" / "tljh_rmqlab.py").SERVER_ARGS, "--allow-root"]
    config = tmp_path / "jupyterhub_config.py"
    config.write_text(f"""
c = get_config()  # noqa
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(tmp_path / "home" / "{username}")!r}
c.Spawner.cmd = [{str(bindir / "jupyterhub-singleuser")!r}]
c.Spawner.args = {args!r}
c.Spawner.environment = {{
    "PYTHONPATH": {f"{shim}{os.pathsep}{ROOT}"!r},
    "JUPYTER_CONFIG_PATH": {str(shared)!r},
    "RMQLAB_EXCHANGE": {str(tmp_path / "exchange")!r},
    "JUPYTER_PREFER_ENV_PATH": "0",
    "JUPYTER_RUNTIME_DIR": lambda spawner: {runtime!r} + "/" + spawner.user.name,
}}
c.Spawner.start_timeout = {WAIT_LIMIT_S}
c.Spawner.http_timeout = {WAIT_LIMIT_S}
c.JupyterHub.db_url = "sqlite:///{tmp_path / "hub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(tmp_path / "cookie_secret")!r}
c.ConfigurableHTTPProxy.pid_file = {str(tmp_path / "proxy.pid")!r}
c.JupyterHub.services = [{{"name": "classroom", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [
    {{"name": "classroom", "services": ["classroom"], "scopes": ["admin:users", "admin:servers", "tokens"]}},
]
""")
    (tmp_path / "home").mkdir()
    log = tmp_path / "hub.log"
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    with log.open("wb") as out:
        proc = subprocess.Popen([str(bindir / "jupyterhub"), "-f", str(config)], cwd=tmp_path, env=env,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    the_hub = Hub(f"http://127.0.0.1:{port}", token, log)
    try:
        _wait("the hub", lambda: the_hub.call("GET", "/hub/api/")[0] == 200, log)
        yield the_hub
    finally:
        for name in ("right", "wrong", "cheat"):
            the_hub.call("DELETE", f"/hub/api/users/{name}/server")
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(runtime, ignore_errors=True)


def _nbgrader(course: Path, tmp_path: Path, *args: str) -> str:
    """An nbgrader command in the teacher's course directory, with the hub's shared settings."""
    env = {
        **os.environ,
        "RMQLAB_EXCHANGE": str(tmp_path / "exchange"),
        "JUPYTER_CONFIG_PATH": str(tmp_path / "etc-jupyter"),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                          text=True, timeout=WAIT_LIMIT_S)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _answered(nb: Any, sources: dict[str, str]) -> Any:
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        ex_id = gid.removeprefix("ex").removesuffix("_answer").replace("_", ".")
        if gid.endswith("_answer") and ex_id in sources:
            cell.source = sources[ex_id].replace("{name}", f"answer_{ex_id.split('.')[1]}")
    return nb


def test_a_class_releases_fetches_submits_collects_and_autogrades(hub: Hub, tmp_path: Path) -> None:
    make_teacher = _load(ROOT / "deploy" / "nbgrader" / "make_teacher.py")
    make_teacher.setup(ROOT, tmp_path / "home" / "teacher")
    course, exchange = tmp_path / "home" / "teacher" / "course", tmp_path / "exchange"
    _nbgrader(course, tmp_path, "generate_assignment", ASSIGNMENT, "--create", "--force")
    _nbgrader(course, tmp_path, "release_assignment", ASSIGNMENT, "--force")
    assert (exchange / COURSE / "outbound" / ASSIGNMENT / LAB).exists()

    right = {ex_id: f"{{name}} = {value!r}" for ex_id, value in answers().items() if ex_id.startswith("08.")}
    students = {
        "right": right,
        "wrong": dict.fromkeys(right, "{name} = 'no idea'"),
        "cheat": dict.fromkeys(right, "import rmqlab.course.grading as g\ng.verify = lambda *a: None\n"
                                      "check = assert_right = lambda *a: None\n{name} = 0"),
    }  # fmt: skip
    tokens = {}
    for name in students:
        assert hub.call("POST", f"/hub/api/users/{name}")[0] == 201
        status, body = hub.call("POST", f"/hub/api/users/{name}/tokens", body={"expires_in": 3600})
        assert status == 201, body
        tokens[name] = body["token"]
        assert hub.call("POST", f"/hub/api/users/{name}/server")[0] in (201, 202)
    for name in students:
        _wait(f"{name}'s server", lambda n=name: hub.call("GET", f"/user/{n}/api/status", tokens[n])[0] == 200,
              hub.log)  # fmt: skip

    query = f"?course_id={COURSE}&assignment_id={ASSIGNMENT}"
    for name, sources in students.items():
        status, listing = hub.call("POST", f"/user/{name}/assignments/fetch{query}", tokens[name], b"")
        assert status == 200 and listing["success"], listing
        path = f"/user/{name}/api/contents/{ASSIGNMENT}/{LAB}"
        status, model = hub.call("GET", path, tokens[name])
        assert status == 200, model
        nb = _answered(nbformat.from_dict(model["content"]), sources)
        status, saved = hub.call("PUT", path, tokens[name], {"type": "notebook", "format": "json", "content": nb})
        assert status == 200, saved
        status, result = hub.call("POST", f"/user/{name}/assignments/submit{query}", tokens[name], b"")
        assert status == 200 and result["success"], result

    _nbgrader(course, tmp_path, "collect", ASSIGNMENT)
    _nbgrader(course, tmp_path, "autograde", ASSIGNMENT, "--create", "--force")
    from nbgrader.api import Gradebook  # type: ignore[import-untyped]

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {name: gradebook.find_submission(ASSIGNMENT, name).score for name in students}
    assert scores == {"right": 3.0, "wrong": 0.0, "cheat": 0.0}
    for name in students:
        graded = course / "autograded" / name / ASSIGNMENT / LAB
        assert graded.stat().st_size < 100_000 and "widgets" not in nbformat.read(graded, as_version=4).metadata
