"""A graded class on a real JupyterHub (127.0.0.1): the teacher releases lab 08 from the Formgrader of their own
server, three students fetch it from their Assignments list, answer and submit, the teacher collects, autogrades,
generates and releases feedback, and the students fetch their feedback. The grades are exact: all right scores 3
of 3; one right and two cheats (rebinding the names the checks use, patching the grading module) scores 1; all
wrong (plausible values of the right type) scores 0. The
right submission also tries to read the teacher's files and another student's submission while it is autograded,
and finds nothing: the Formgrader's autograde kernels run in the sandbox (``rmqlab.course.sandbox``).

Every server is started as the TLJH plugin starts it (``deploy/tljh/tljh_rmqlab.py``: its exact ``Spawner.args``
and environment) on the users' environment the plugin installs: ``deploy/jupyter_roles.py hub-student`` and the
course's exchange settings (``deploy/nbgrader/nbgrader_config.py``) in the environment's Jupyter config. The teacher
is set up as the plugin sets up a hub admin (``deploy/nbgrader/make_teacher.py``: a teacher's ``~/.jupyter`` and
``~/course``) and works only through their server's Formgrader API, what its Manage Assignments page calls.
Students work only through their server's HTTP API behind the hub (the Assignments list's fetch, submit and fetch
feedback; the contents API to save the notebook).

Two stand-ins for what differs on one test machine: the environment's config directory is passed in
``JUPYTER_CONFIG_PATH`` (this test cannot write into the shared venv's ``etc/jupyter``), which Jupyter ranks above a
user's ``~/.jupyter``, so the teacher's path lists their ``~/.jupyter`` first, as ``JUPYTER_PREFER_ENV_PATH=0``
ranks it on the hub; and every process runs as one OS user, so a two-line ``sitecustomize`` makes nbgrader take the
student id from ``JUPYTERHUB_USER``, as it does on Zero to JupyterHub (where every pod's user is ``jovyan``).

Part of ``make test`` (which installs the proxy): four servers and three autograded runs, kept lean (one lab, the
teacher's work in the server already running rather than in fresh ``nbgrader`` processes).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from hubs import Hub, proxy_command, running_hub
from snoop import snooped, snooping
from traitlets.config import Config

from teacher.compile import answers

ROOT = Path(__file__).resolve().parents[1]
LAB = "08_broadcasting_vs_clustering.ipynb"
ASSIGNMENT = "lab08"
COURSE = "rmqlab"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.hub,
    pytest.mark.skipif(proxy_command() is None, reason="configurable-http-proxy (npm) missing: make test installs it"),
]
pytest.importorskip("jupyterhub", reason="jupyterhub is not installed (pip install -e '.[test]')")
pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[teacher]')")

SITECUSTOMIZE = """import os
import nbgrader.utils as _utils
_utils.get_osusername = lambda: "jovyan" if os.environ.get("JUPYTERHUB_USER") else _utils.pwd.getpwuid(os.getuid())[0]
"""
RIGHT = {ex_id: f"{{name}} = {value!r}" for ex_id, value in answers().items() if ex_id.startswith("08.")}
CHEAT = ("import rmqlab.course.grading as g\ng.verify = lambda *a: None\n"
         "check = assert_right = lambda *a: None\n{name} = 0")  # fmt: skip
FIRST = min(RIGHT)


def _wrong(value: object) -> object:
    """A plausible wrong answer of the right type: the other boolean, the next number."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    return f"not {value}"


WRONG = {ex_id: f"{{name}} = {_wrong(value)!r}" for ex_id, value in answers().items() if ex_id.startswith("08.")}
STUDENTS = {"ada": RIGHT, "bob": {**dict.fromkeys(RIGHT, CHEAT), FIRST: RIGHT[FIRST]}, "cyd": WRONG}
EXPECTED = {"ada": 3.0, "bob": 1.0, "cyd": 0.0}


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    """The hub, with the users' environment the TLJH plugin installs, and the teacher's home made."""
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env_config = tmp_path / "etc-jupyter"  # the users' environment's etc/jupyter
    _load(ROOT / "deploy" / "jupyter_roles.py").write("hub-student", env_config)
    shutil.copy(ROOT / "deploy" / "nbgrader" / "nbgrader_config.py", env_config / "nbgrader_config.py")
    (tmp_path / "exchange").mkdir(mode=0o1777)
    _load(ROOT / "deploy" / "nbgrader" / "make_teacher.py").setup(ROOT, tmp_path / "home" / "teacher")
    plugin = _load(ROOT / "deploy" / "tljh" / "tljh_rmqlab.py")

    c = Config()  # what TLJH passes the hook: the hub's configuration
    plugin.tljh_custom_jupyterhub_config(c)
    env = {key: value for key, value in c.Spawner.environment.items() if key != "JUPYTER_RUNTIME_DIR"}  # per user
    env |= {
        "PYTHONPATH": f"{shim}:{ROOT}",
        "RMQLAB_EXCHANGE": str(tmp_path / "exchange"),
        # the environment's config below a user's ~/.jupyter (only the teacher has one), as on the hub
        "JUPYTER_CONFIG_PATH": f"{tmp_path / 'home' / '{user}' / '.jupyter'}:{env_config}",
    }
    with running_hub(tmp_path, args=c.Spawner.args, environment=env) as the_hub:
        yield the_hub


def _answered(nb: Any, sources: dict[str, str]) -> Any:
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        ex_id = gid.removeprefix("ex").removesuffix("_answer").replace("_", ".")
        if gid.endswith("_answer") and ex_id in sources:
            cell.source = sources[ex_id].replace("{name}", f"answer_{ex_id.split('.')[1]}")
    return nb


def _snoop_paths(tmp_path: Path) -> tuple[list[str], list[str]]:
    """What ada's first answer cell tries to read while autograded (the teacher's home and config, the solved lab,
    the gradebook, bob's collected submission, the exchange's submissions) and to change (the solved lab)."""
    home = tmp_path / "home" / "teacher"
    source = home / "course" / "source" / ASSIGNMENT / LAB
    reads = [home, home / ".jupyter" / "nbgrader_config.py", source, home / "course" / "gradebook.db",
             home / "course" / "submitted" / "bob" / ASSIGNMENT / LAB, tmp_path / "exchange" / COURSE / "inbound"]
    return [str(path) for path in reads], [str(source)]  # fmt: skip


def _formgrader(hub: Hub, token: str, action: str) -> None:
    status, result = hub.call("POST", f"/user/teacher/formgrader/api/{action}", token, b"")
    assert status == 200 and result["success"], result


def test_a_class_releases_fetches_submits_collects_autogrades_and_returns_feedback(hub: Hub, tmp_path: Path) -> None:
    tokens = {name: hub.add_user(name) for name in ("teacher", *STUDENTS)}  # the servers start side by side
    for name, token in tokens.items():
        hub.wait_ready(name, token)
    teacher = tokens["teacher"]
    assert hub.call("GET", "/user/ada/formgrader", tokens["ada"])[0] == 404  # a student has no formgrader

    _formgrader(hub, teacher, f"assignment/{ASSIGNMENT}/assign")
    _formgrader(hub, teacher, f"assignment/{ASSIGNMENT}/release")
    assert (tmp_path / "exchange" / COURSE / "outbound" / ASSIGNMENT / LAB).exists()

    query = f"?course_id={COURSE}&assignment_id={ASSIGNMENT}"
    reads, writes = _snoop_paths(tmp_path)
    for name, sources in STUDENTS.items():
        if name == "ada":  # ada's right answers come with a look around the teacher's files (the sandbox hides them)
            sources = {**sources, FIRST: snooping(reads, writes, answers()[FIRST])}
        status, listing = hub.call("POST", f"/user/{name}/assignments/fetch{query}", tokens[name], b"")
        assert status == 200 and listing["success"], listing
        path = f"/user/{name}/api/contents/{ASSIGNMENT}/{LAB}"
        status, model = hub.call("GET", path, tokens[name])
        assert status == 200, model
        assert "BEGIN SOLUTION" not in str(model["content"]) and "HIDDEN TESTS" not in str(model["content"])
        nb = _answered(nbformat.from_dict(model["content"]), sources)
        status, saved = hub.call("PUT", path, tokens[name], {"type": "notebook", "format": "json", "content": nb})
        assert status == 200, saved
        status, result = hub.call("POST", f"/user/{name}/assignments/submit{query}", tokens[name], b"")
        assert status == 200 and result["success"], result
        status, folder = hub.call("GET", f"/user/{name}/api/contents/{ASSIGNMENT}", tokens[name])
        assert [item["name"] for item in folder["content"]] == [LAB]  # unpaired: jupytext wrote no .py beside it

    _formgrader(hub, teacher, f"assignment/{ASSIGNMENT}/collect")
    for name in STUDENTS:
        _formgrader(hub, teacher, f"submission/{ASSIGNMENT}/{name}/autograde")
    status, submissions = hub.call("GET", f"/user/teacher/formgrader/api/submissions/{ASSIGNMENT}", teacher)
    assert status == 200, submissions
    assert {s["student"]: s["score"] for s in submissions} == EXPECTED
    course = tmp_path / "home" / "teacher" / "course"
    for name in STUDENTS:
        graded = course / "autograded" / name / ASSIGNMENT / LAB
        assert graded.stat().st_size < 100_000 and "widgets" not in nbformat.read(graded, as_version=4).metadata
    home, *hidden = reads  # the autograde sandbox: ada's code found only the path down to her own folder
    found = snooped(nbformat.read(course / "autograded" / "ada" / ASSIGNMENT / LAB, as_version=4))
    # the teacher's home shows the path down to ada's folder and the .ipython her kernel made there, in the sandbox
    assert found == {home: [".ipython", "course"], **dict.fromkeys(hidden, "FileNotFoundError")}
    assert "changed by a submission" not in (course / "source" / ASSIGNMENT / LAB).read_text()

    _formgrader(hub, teacher, f"assignment/{ASSIGNMENT}/generate_feedback")
    _formgrader(hub, teacher, f"assignment/{ASSIGNMENT}/release_feedback")
    for name, score in EXPECTED.items():
        status, result = hub.call("POST", f"/user/{name}/assignments/fetch_feedback{query}", tokens[name], b"")
        assert status == 200 and result["success"], result
        status, folder = hub.call("GET", f"/user/{name}/api/contents/{ASSIGNMENT}/feedback", tokens[name])
        assert status == 200 and len(folder["content"]) == 1, folder  # one submission, one feedback folder
        page = folder["content"][0]["path"] + "/" + LAB.replace(".ipynb", ".html")
        status, html = hub.call("GET", f"/user/{name}/api/contents/{urllib.parse.quote(page)}", tokens[name])
        assert status == 200, html
        assert re.search(rf"Score: {score:g}(\.0)? / 3(\.0)?", html["content"]), html["content"][:2000]
