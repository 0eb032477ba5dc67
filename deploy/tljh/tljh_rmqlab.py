"""The Littlest JupyterHub plugin for rmqlab: one VM, every student with their own labs, landing in the tour.

TLJH calls these hooks (its ``tljh/hooks.py``):

* ``tljh_extra_apt_packages``: git, to fetch the repository;
* ``tljh_config_post_install``: per-student limits sized from the measured ~310 MiB per student server
  (bench/README.md) and an idle culler of one hour, unless the teacher already set them;
* ``tljh_post_install``: the repository in ``/srv/rmqlab`` (``$RMQLAB_SOURCE`` at ``$RMQLAB_REF``), rmqlab with
  its ``lab`` and ``teacher`` extras in the users' environment, and the student copy of the labs
  (``labs/make_student.py``: solutions and hidden tests out) in ``/srv/rmqlab/student-labs``, the Chinese ones
  in its ``zh/``; the solved labs,
  the teacher's sources, the git history, the tests, the benchmarks, the changelog and the examples' recorded
  outputs (all state answers in plain text) readable by root only; every user's Jupyter a hub student's
  (``deploy/jupyter_roles.py hub-student``: the Assignments list, no formgrader); nbgrader's course id and
  exchange (``deploy/nbgrader/nbgrader_config.py``, exchange ``/srv/nbgrader/exchange``, writable by all);
* ``tljh_custom_jupyterhub_config``: servers open ``labs/00_tour.ipynb``; kernels talk over IPC (a class
  starting at once makes TCP kernels lose port races, bench/README.md) in a private ``/tmp``; a user's own
  Jupyter config wins over the environment's (``JUPYTER_PREFER_ENV_PATH=0``: how a teacher gets the formgrader);
* ``tljh_new_user_create``: the labs copied into the new student's ``~/labs`` (``deploy/seed_labs.py``); a hub
  admin (the teacher) also gets a teacher's Jupyter and a course directory with the solved labs
  (``deploy/nbgrader/make_teacher.py``), whose course config autogrades each submission in the sandbox
  (``rmqlab.course.sandbox``; on Ubuntu 24.04 it needs ``kernel.apparmor_restrict_unprivileged_userns = 0`` or an
  AppArmor profile: docs/classroom.md says how to check and what to change; the plugin changes no system setting).

It needs only pluggy (TLJH's own plugin library), so the tests load it without TLJH.
"""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
from pathlib import Path
from typing import Any

import pluggy

hookimpl = pluggy.HookimplMarker("tljh")
"""The marker TLJH's ``tljh.hooks.hookimpl`` is (``pluggy.HookimplMarker("tljh")``)."""

CHECKOUT = Path("/srv/rmqlab")
STUDENT_LABS = CHECKOUT / "student-labs"
USER_ENV_PREFIX = Path(os.environ.get("TLJH_INSTALL_PREFIX", "/opt/tljh")) / "user"
DEFAULT_URL = "/lab/tree/labs/00_tour.ipynb"
EXCHANGE = Path("/srv/nbgrader/exchange")

CONFIG_DEFAULTS: dict[str, dict[str, Any]] = {
    # ~310 MiB per student server with two labs running; 1 GiB leaves room for a third or fourth lab.
    "limits": {"memory": "1G", "cpu": 1},
    # a lesson's break is not a reason to lose a running lab; an abandoned server is stopped after an hour
    "services": {"cull": {"timeout": 3600}},
    "user_environment": {"default_app": "jupyterlab"},
}
"""What the plugin writes into TLJH's config.yaml where the teacher has not set a value (``tljh-config``)."""

SERVER_ARGS = (
    "--ServerKernelManager.transport=ipc",
    '--ServerApp.jpserver_extensions={"rmqlab.widgets.nodelay": True}',
)
"""Extra arguments of every student's server: IPC kernels, and Nagle's algorithm off on kernel websockets.

IPC for the server's own kernels only (``ServerKernelManager``): ``KernelManager.transport=ipc`` would also reach the
kernels nbgrader starts from the Formgrader (autograde, Validate), which open their sockets relative to the
notebook's folder while nbgrader looks for them in the server's, so autograding from the Formgrader hung until its
timeout (``tests/test_hub_class.py`` autogrades there).

A command-line Dict is read as a Python literal by traitlets: ``True``, not JSON's ``true`` (which stops every
server from starting; ``tests/test_environments.py`` starts a server with exactly these arguments)."""


PRIVATE = ("labs", "teacher", ".git", "tests", "bench", "CHANGELOG.md")
"""What in ``/srv/rmqlab`` only root reads (with ``examples/*.expected.*``): it states answers in plain text."""


def _source() -> tuple[str, str]:
    return os.environ.get("RMQLAB_SOURCE", "https://github.com/rmqlab/rmqlab"), os.environ.get("RMQLAB_REF", "main")


def merge_defaults(config: dict[str, Any], defaults: dict[str, Any] = CONFIG_DEFAULTS) -> dict[str, Any]:
    """Set each default the config lacks (nested), in place; a value the teacher set is never changed."""
    for key, value in defaults.items():
        if isinstance(value, dict):
            current = config.get(key)
            if current is None:
                current = config[key] = {}
            if isinstance(current, dict):
                merge_defaults(current, value)
        elif config.get(key) is None:
            config[key] = value
    return config


def install_commands(checkout: Path, python: Path, source: str, ref: str) -> list[list[str]]:
    """The commands ``tljh_post_install`` runs, in order (a list, so tests can read them without running them)."""
    fetch = (
        [["git", "-C", str(checkout), "fetch", "--depth", "1", "origin", ref],
         ["git", "-C", str(checkout), "checkout", "--force", "FETCH_HEAD"]]
        if (checkout / ".git").exists()
        else [["git", "clone", "--depth", "1", "--branch", ref, source, str(checkout)]]
    )  # fmt: skip
    etc = python.parent.parent / "etc" / "jupyter"  # the users' environment's Jupyter config
    return [
        *fetch,
        [str(python), "-m", "pip", "install", "--upgrade", f"{checkout}[lab,teacher]"],
        [str(python), str(checkout / "labs" / "make_student.py"), "--force", str(checkout / "labs"),
         str(checkout / "student-labs")],
        [str(python), str(checkout / "labs" / "make_student.py"), "--force", str(checkout / "labs" / "zh"),
         str(checkout / "student-labs" / "zh")],  # the Chinese labs beside them (issue 35)
        [str(python), str(checkout / "deploy" / "jupyter_roles.py"), "hub-student", str(etc)],
        ["install", "-m", "644", str(checkout / "deploy" / "nbgrader" / "nbgrader_config.py"),
         str(etc / "nbgrader_config.py")],
        ["mkdir", "-p", str(EXCHANGE)],
        ["chmod", "1777", str(EXCHANGE)],  # everyone writes; the sticky bit keeps one from deleting another's
        # what states answers in plain text (the solved labs, the teacher's texts, the history, the tests, the
        # examples' recorded runs: postBuild deletes the same from Binder's and the hub image) for root only
        ["chmod", "-R", "go-rwx", *(str(checkout / name) for name in PRIVATE)],
        ["sh", "-c", f"chmod go-rwx {checkout}/examples/*.expected.*"],
        ["chmod", "-R", "go+rX", str(checkout / "student-labs")],
    ]  # fmt: skip


@hookimpl
def tljh_extra_apt_packages() -> list[str]:
    return ["git"]


@hookimpl
def tljh_config_post_install(config: dict[str, Any]) -> None:
    merge_defaults(config)


@hookimpl
def tljh_post_install() -> None:
    source, ref = _source()
    for command in install_commands(CHECKOUT, USER_ENV_PREFIX / "bin" / "python", source, ref):
        subprocess.run(command, check=True)


@hookimpl
def tljh_custom_jupyterhub_config(c: Any) -> None:
    c.Spawner.default_url = DEFAULT_URL
    c.Spawner.args = list(SERVER_ARGS)
    c.SystemdSpawner.isolate_tmp = True  # each student's own /tmp: the short runtime folder below is private
    c.Spawner.environment = {
        "JUPYTER_RUNTIME_DIR": "/tmp/jupyter-runtime",  # an IPC socket path: <= 107 bytes
        "JUPYTER_PREFER_ENV_PATH": "0",  # ~/.jupyter over the environment's etc/jupyter: the teacher's role
    }


def hub_admins() -> set[str]:
    """The hub's admin users (TLJH's ``users.admin``): the teachers."""
    try:
        from tljh.config import CONFIG_FILE, load_config  # type: ignore[import-not-found]
    except ImportError:  # not on a TLJH hub (tests)
        return set()
    return set(load_config(CONFIG_FILE).get("users", {}).get("admin", []) or [])


@hookimpl
def tljh_new_user_create(username: str) -> None:
    home = Path(pwd.getpwnam(username).pw_dir)
    seed = CHECKOUT / "deploy" / "seed_labs.py"
    subprocess.run([sys.executable, str(seed), str(STUDENT_LABS), str(home / "labs"), "--owner", username],
                   check=True)  # fmt: skip
    if username in hub_admins():
        teacher = CHECKOUT / "deploy" / "nbgrader" / "make_teacher.py"
        subprocess.run([sys.executable, str(teacher), str(CHECKOUT), str(home), "--owner", username], check=True)
