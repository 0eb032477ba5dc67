"""Two environments, tested on real servers: a student's JupyterLab has no nbgrader formgrader, "Create
Assignment" or Validate (self-check: no nbgrader at all; a graded hub: only the Assignments list), a teacher's has
them all; and the arguments the Makefile and the TLJH plugin give a server start one.

Each case starts ``jupyter lab`` (nbgrader is installed in this environment, as it is in a teacher's venv or the
hub image) with ``JUPYTER_CONFIG_DIR`` written by ``deploy/jupyter_roles.py``, waits until the server answers, then
asks it: ``/formgrader`` (the formgrader's page) and the page config ``/lab`` embeds (which plugins are disabled).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import secrets
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("nbgrader", reason="the roles hide nbgrader: the test needs it installed")


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


ROLES = _load(ROOT / "deploy" / "jupyter_roles.py")
STARTUP_LIMIT_S = 120  # a bound on a hung start, not a speed check: the wait ends as soon as the server answers


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return int(response.status), response.read().decode()
    except urllib.error.HTTPError as error:
        return int(error.code), ""


@contextmanager
def server(tmp_path: Path, args: list[str], config_dir: Path | None = None,
           extra_env: dict[str, str] | None = None) -> Iterator[str]:  # fmt: skip
    """A ``jupyter lab`` started with ``args`` (and ``JUPYTER_CONFIG_DIR``); yields its base URL with the token."""
    port, token = _free_port(), secrets.token_hex(8)
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "HOME": str(tmp_path), **(extra_env or {})}
    env["JUPYTER_CONFIG_DIR"] = str(config_dir or tmp_path / "user-config")
    env["JUPYTER_PREFER_ENV_PATH"] = "0"  # the user's config dir over the venv's, as make lab and the hubs set it
    log = tmp_path / f"server-{port}.log"
    argv = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
            f"--IdentityProvider.token={token}", f"--notebook-dir={tmp_path}", *args]
    if os.getuid() == 0 and "--allow-root" not in argv:
        argv.append("--allow-root")  # fmt: skip
    with log.open("w") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path)  # a hub: the home
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_LIMIT_S
        while True:
            assert proc.poll() is None, f"the server exited ({proc.returncode}) with {args}:\n{log.read_text()}"
            try:
                if _get(f"{base}/api/status?token={token}")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"no answer from the server:\n{log.read_text()}"
            time.sleep(0.2)
        yield f"{base}?token={token}".replace("?", "/?", 1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "Traceback" not in log.read_text(), log.read_text()


def _post(url: str) -> str:
    with urllib.request.urlopen(urllib.request.Request(url, data=b"", method="POST"), timeout=60) as response:
        return str(response.read().decode())


def _page_config(base: str) -> dict[str, Any]:
    status, html = _get(base.replace("/?", "/lab?"))
    assert status == 200
    match = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', html, re.S)
    assert match is not None
    return dict(json.loads(match[1]))


def _formgrader(base: str) -> int:
    return _get(base.replace("/?", "/formgrader?"))[0]


def _nbgrader_plugins_off(page: dict[str, Any]) -> list[str]:
    return sorted(name for name in page.get("disabledExtensions", []) if name.startswith("@jupyter/nbgrader"))


@pytest.mark.parametrize(
    ("role", "formgrader", "off"),
    [
        ("student", 404, ["@jupyter/nbgrader"]),
        ("hub-student", 404, [f"@jupyter/nbgrader:{p}" for p in
                              ("course-list", "create-assignment", "formgrader", "validate-assignment")]),
        ("teacher", 200, []),
    ],
)  # fmt: skip
def test_each_role_sees_only_its_nbgrader(tmp_path: Path, role: str, formgrader: int, off: list[str]) -> None:
    config = tmp_path / "config"
    ROLES.write(role, config)
    with server(tmp_path, [], config) as base:
        assert _formgrader(base) == formgrader
        assert _nbgrader_plugins_off(_page_config(base)) == off


def test_a_teachers_own_config_wins_over_the_environments(tmp_path: Path) -> None:
    """On a hub the image's environment is hub-student; the teacher's ~/.jupyter (a higher level) says teacher."""
    env_level, user_level = tmp_path / "env", tmp_path / "user"
    ROLES.write("hub-student", env_level)
    ROLES.write("teacher", user_level)
    merged = {**ROLES.disabled_plugins("hub-student"), **ROLES.disabled_plugins("teacher")}
    assert [k for k, v in merged.items() if v] == []
    assert ROLES.server_config("teacher")["ServerApp"]["jpserver_extensions"] == {
        f"nbgrader.server_extensions.{name}": True for name in ROLES.SERVER_EXTENSIONS
    }


def _make_variable(name: str) -> str:
    done = subprocess.run(["make", "-s", "-n", "-p", "-f", "Makefile"], cwd=ROOT, capture_output=True, text=True)
    line = next(line for line in done.stdout.splitlines() if line.startswith(f"{name} :=") or
                line.startswith(f"{name} ="))  # fmt: skip
    return line.split("=", 1)[1].strip()


def test_make_labs_server_arguments_start_a_student_server(tmp_path: Path) -> None:
    """``make lab``'s exact flags (from the Makefile) with the student role: a server, no formgrader."""
    flags = shlex.split(_make_variable("LAB_FLAGS").replace("$(ALLOW_ROOT)", "--allow-root"))
    config = tmp_path / "config"
    ROLES.write("student", config)
    with server(tmp_path, flags, config) as base:
        assert _formgrader(base) == 404


def test_tljh_server_arguments_start_a_server(tmp_path: Path) -> None:
    """The TLJH plugin's Spawner.args, exactly as it passes them (one argv item each), start a server."""
    plugin = _load(ROOT / "deploy" / "tljh" / "tljh_rmqlab.py")
    args = [arg for arg in plugin.SERVER_ARGS]
    with server(tmp_path, args) as base:
        assert _get(base.replace("/?", "/api/kernelspecs?"))[0] == 200


def test_roles_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ROLES.main([]) == 2
    assert capsys.readouterr().err.startswith("usage: python deploy/jupyter_roles.py {student,hub-student,teacher}")
    with pytest.raises(SystemExit, match=r"^role='admin' is not allowed: expected one of student, hub-student"):
        ROLES.write("admin", tmp_path)


def test_z2jh_server_config_and_environment_start_a_hub_student_server(tmp_path: Path) -> None:
    """A student's pod on Zero to JupyterHub, graded path: the image's etc/jupyter (the hub-student role and the
    course's nbgrader settings, deploy/image/appendix.Dockerfile), the chart's extraFiles (a server config file) and
    extraEnv, and graded.yaml's exchange volume (here a folder, named by ``RMQLAB_EXCHANGE``: the test cannot mount at
    /srv/nbgrader/exchange) holding a released lab. The server starts, has no formgrader, lists the lab for course
    ``rmqlab`` in the Assignments list and fetches it."""
    yaml = pytest.importorskip("yaml")
    single = yaml.safe_load((ROOT / "deploy" / "z2jh" / "config.yaml").read_text())["singleuser"]
    files = single["extraFiles"]["rmqlab-server-config"]
    config = tmp_path / "etc-jupyter"
    ROLES.write("hub-student", config)
    assert "cp deploy/nbgrader/nbgrader_config.py ${NB_PYTHON_PREFIX}/etc/jupyter/nbgrader_config.py" in (
        ROOT / "deploy" / "image" / "appendix.Dockerfile").read_text()  # fmt: skip
    (config / "nbgrader_config.py").write_text((ROOT / "deploy" / "nbgrader" / "nbgrader_config.py").read_text())
    mounted = config / "jupyter_server_config.d" / Path(files["mountPath"]).name
    mounted.write_text(json.dumps(files["data"]))
    env = {k: str(v) for k, v in single["extraEnv"].items() if k != "JUPYTER_RUNTIME_DIR"}
    assert env == {"JUPYTER_PREFER_ENV_PATH": "0"}
    released = tmp_path / "exchange" / "rmqlab" / "outbound" / "lab08" / "08_broadcasting_vs_clustering.ipynb"
    released.parent.mkdir(parents=True)
    released.write_text((ROOT / "labs" / "08_broadcasting_vs_clustering.ipynb").read_text())
    with server(tmp_path, [], config, {"RMQLAB_EXCHANGE": str(tmp_path / "exchange")}) as base:
        assert _formgrader(base) == 404
        assert _get(base.replace("/?", "/api/kernelspecs?"))[0] == 200
        query = "course_id=rmqlab&assignment_id=lab08&"
        listed = json.loads(_get(base.replace("/?", "/assignments?course_id=rmqlab&"))[1])
        assert [(a["course_id"], a["assignment_id"], a["status"]) for a in listed["value"]] == [
            ("rmqlab", "lab08", "released")]  # fmt: skip
        assert json.loads(_post(base.replace("/?", f"/assignments/fetch?{query}")))["success"] is True
    assert (tmp_path / "lab08" / released.name).read_text() == released.read_text()
