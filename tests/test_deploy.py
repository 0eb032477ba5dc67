"""deploy/: the classroom set-ups (Zero to JupyterHub, The Littlest JupyterHub) say only what their tools document,
point at files that exist, and are sized from the measured memory per student.

Offline: the YAML is parsed and its keys compared with the chart's documented ones; repo2docker writes the image's
Dockerfile without building it; the TLJH plugin is loaded with pluggy (what TLJH uses) and its hooks called on
plain objects; the labs are seeded into a scratch home as a hub would. Nothing is installed, nothing tracked written.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pwd
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pluggy
import pytest
import yaml
from traitlets.config import Config

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
REPO_DIR = "/srv/rmqlab"
"""Where the image (``deploy/build-image.sh --target-repo-dir``) and the TLJH plugin put the repository."""

Z2JH_KEYS = {
    # from the chart's jupyterhub/values.schema.yaml (z2jh 4.4), the keys this config sets, with their types
    "singleuser.image.name": str,
    "singleuser.image.tag": str,
    "singleuser.image.pullPolicy": str,
    "singleuser.defaultUrl": str,
    "singleuser.memory.guarantee": str,
    "singleuser.memory.limit": str,
    "singleuser.cpu.guarantee": float,
    "singleuser.cpu.limit": int,
    "singleuser.storage.capacity": str,
    "singleuser.lifecycleHooks.postStart.exec.command": list,
    "singleuser.extraEnv.JUPYTER_RUNTIME_DIR": str,
    "singleuser.extraEnv.JUPYTER_PREFER_ENV_PATH": str,
    "singleuser.extraFiles.rmqlab-server-config.mountPath": str,
    "singleuser.extraFiles.rmqlab-server-config.data": dict,
    "singleuser.startTimeout": int,
    "prePuller.hook.enabled": bool,
    "prePuller.continuous.enabled": bool,
    "scheduling.userScheduler.enabled": bool,
    "scheduling.podPriority.enabled": bool,
    "scheduling.userPlaceholder.enabled": bool,
    "scheduling.userPlaceholder.replicas": int,
    "cull.enabled": bool,
    "cull.timeout": int,
    "cull.every": int,
}
"""``extraEnv`` and ``extraFiles`` are maps whose names are ours (``extraFiles.<name>`` has mountPath and data)."""

TLJH_HOOKS = {
    # tljh/hooks.py: every hookspec The Littlest JupyterHub calls
    "tljh_extra_user_conda_packages", "tljh_extra_user_conda_channels", "tljh_extra_user_pip_packages",
    "tljh_extra_hub_pip_packages", "tljh_extra_apt_packages", "tljh_custom_jupyterhub_config",
    "tljh_config_post_install", "tljh_post_install", "tljh_new_user_create",
}  # fmt: skip
TLJH_CONFIG = {
    # tljh/config_schema.py: the config.yaml keys the plugin sets, and what each allows
    "limits.memory": lambda v: isinstance(v, str) and re.fullmatch(r"\d+(\.\d+)?[KMGT]", v),
    "limits.cpu": lambda v: isinstance(v, int | float) and v >= 0,
    "services.cull.timeout": lambda v: isinstance(v, int),
    "user_environment.default_app": lambda v: v in ("jupyterlab", "classic"),
}


def _leaves(tree: dict[str, Any], prefix: str = "", stop: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and path not in stop:
            out.update(_leaves(value, f"{path}.", stop))
        else:
            out[path] = value
    return out


@pytest.fixture(scope="module")
def z2jh() -> dict[str, Any]:
    config = yaml.safe_load((DEPLOY / "z2jh" / "config.yaml").read_text())
    assert isinstance(config, dict)
    return config


def _measured_mib() -> int:
    """The memory per student server that ``make hub-load`` measured, as bench/README.md states it."""
    found = re.search(r"Budget ~(\d+) MiB per student", (ROOT / "bench" / "README.md").read_text())
    assert found, "bench/README.md no longer states the budget per student"
    return int(found.group(1))


def _mib(quantity: str) -> float:
    """A KubeSpawner byte quantity (K, M, G, T: powers of 1024) in MiB."""
    number, unit = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT])", quantity).groups()  # type: ignore[union-attr]
    return float(number) * {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024**2}[unit]


# ------------------------------------------------------------------ Zero to JupyterHub


def test_z2jh_config_sets_only_documented_keys_with_their_types(z2jh: dict[str, Any]) -> None:
    leaves = _leaves(z2jh, stop=("singleuser.extraFiles.rmqlab-server-config.data",
                                 "singleuser.lifecycleHooks.postStart.exec.command"))  # fmt: skip
    assert set(leaves) == set(Z2JH_KEYS)
    for path, value in leaves.items():
        expected = Z2JH_KEYS[path]
        assert isinstance(value, expected) and (expected is bool or not isinstance(value, bool)), path
    assert z2jh["singleuser"]["image"]["pullPolicy"] in ("Always", "IfNotPresent", "Never")


def test_z2jh_memory_is_sized_from_the_measured_student_server(z2jh: dict[str, Any]) -> None:
    measured = _measured_mib()
    memory = z2jh["singleuser"]["memory"]
    guarantee, limit = _mib(memory["guarantee"]), _mib(memory["limit"])
    assert measured == 310 and measured <= guarantee <= 1.25 * measured  # reserved: what a student uses, a margin
    assert limit >= 3 * measured  # room for a third and fourth lab before the kernel is killed
    assert 16 * 1024 // guarantee >= 40  # docs/classroom.md: ~40 students per 16 GiB node
    assert "350M" in (DEPLOY.parent / "docs" / "classroom.md").read_text()


def test_z2jh_default_url_and_seed_hook_point_at_what_the_image_has(z2jh: dict[str, Any]) -> None:
    single = z2jh["singleuser"]
    assert single["defaultUrl"] == "/lab/tree/labs/00_tour.ipynb" and (ROOT / "labs" / "00_tour.ipynb").exists()
    python, script, source, target = single["lifecycleHooks"]["postStart"]["exec"]["command"]
    assert python == "python3" and target == "/home/jovyan/labs"  # the chart's homeMountPath, then labs/ (the URL)
    assert script == f"{REPO_DIR}/deploy/seed_labs.py" and (ROOT / "deploy" / "seed_labs.py").exists()
    appendix = (DEPLOY / "image" / "appendix.Dockerfile").read_text()
    assert source == f"{REPO_DIR}/student-labs" and "labs/make_student.py labs student-labs" in appendix
    files = single["extraFiles"]["rmqlab-server-config"]
    assert files["mountPath"].startswith("/etc/jupyter/jupyter_server_config.d/")
    assert files["data"] == {"ServerKernelManager": {"transport": "ipc"},
                             "ServerApp": {"jpserver_extensions": {"rmqlab.widgets.nodelay": True}}}  # fmt: skip
    assert (ROOT / "widgets" / "nodelay.py").exists()
    runtime = single["extraEnv"]["JUPYTER_RUNTIME_DIR"]
    # an IPC socket is <runtime>/kernel-<uuid>-ipc-<n>: it must fit in sun_path's 107 bytes
    assert len(f"{runtime}/kernel-{'0' * 36}-ipc-5") <= 107


def test_z2jh_graded_overlay_mounts_the_exchange_nbgrader_is_configured_with() -> None:
    """graded.yaml: only the chart's documented storage keys; the volume is exchange-pvc.yaml's claim (ReadWriteMany:
    every pod mounts it at once) at the folder deploy/nbgrader/nbgrader_config.py names, course id ``rmqlab``."""
    graded = yaml.safe_load((DEPLOY / "z2jh" / "graded.yaml").read_text())
    assert set(_leaves(graded)) == {"singleuser.storage.extraVolumes", "singleuser.storage.extraVolumeMounts"}
    (volume,) = graded["singleuser"]["storage"]["extraVolumes"]
    (mount,) = graded["singleuser"]["storage"]["extraVolumeMounts"]
    claim = yaml.safe_load((DEPLOY / "z2jh" / "exchange-pvc.yaml").read_text())
    assert claim["kind"] == "PersistentVolumeClaim" and claim["spec"]["accessModes"] == ["ReadWriteMany"]
    assert volume == {"name": mount["name"], "persistentVolumeClaim": {"claimName": claim["metadata"]["name"]}}
    env = {k: v for k, v in os.environ.items() if not k.startswith("RMQLAB_")}
    code = ("import sys; from traitlets.config.loader import PyFileConfigLoader as L; "
            "c = L('nbgrader_config.py', path=sys.argv[1]).load_config(); "
            "print(c.Exchange.root, c.CourseDirectory.course_id)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code, str(DEPLOY / "nbgrader")], env=env, capture_output=True,
                          text=True, check=True)  # fmt: skip
    assert done.stdout.split() == [mount["mountPath"], "rmqlab"]
    merged = yaml.safe_load((DEPLOY / "z2jh" / "config.yaml").read_text())
    assert "storage" in merged["singleuser"] and "extraVolumes" not in merged["singleuser"]["storage"]


def test_image_build_is_repo2dockers_with_the_appendix(tmp_path: Path) -> None:
    script = (DEPLOY / "build-image.sh").read_text()
    assert f"--target-repo-dir {REPO_DIR}" in script and "--user-id 1000 --user-name jovyan" in script
    assert subprocess.run(["bash", "-n", str(DEPLOY / "build-image.sh")]).returncode == 0
    repo2docker = shutil.which("repo2docker", path=str(Path(sys.executable).parent))
    if repo2docker is None:
        pytest.skip("jupyter-repo2docker is not installed (pip install -e '.[test]')")
    for name in ("environment.yml", "constraints.txt", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, tmp_path / name)
    appendix = (DEPLOY / "image" / "appendix.Dockerfile").read_text()
    proc = subprocess.run([repo2docker, "--no-build", "--no-run", "--debug", "--user-id", "1000", "--user-name",
                           "jovyan", "--target-repo-dir", REPO_DIR, "--appendix", appendix, str(tmp_path)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    dockerfile = proc.stdout + proc.stderr
    env_update = dockerfile.index('env update -p ${NB_PYTHON_PREFIX} --file "environment.yml"')
    tail = dockerfile.index("# Appendix:")
    assert env_update < tail and appendix.strip() in dockerfile[tail:]  # the appendix runs on the built env


# ------------------------------------------------------------------ seeding a student's labs


def test_seed_copies_what_is_missing_and_keeps_every_student_file(tmp_path: Path) -> None:
    seed_labs = _load("seed_labs", DEPLOY / "seed_labs.py")
    source = tmp_path / "student-labs"
    (source / ".ipynb_checkpoints").mkdir(parents=True)
    (source / "00_tour.ipynb").write_text("tour v2")
    (source / "03_delay.ipynb").write_text("lab 3 v2")
    (source / ".ipynb_checkpoints" / "x.ipynb").write_text("checkpoint")
    home = tmp_path / "home" / "labs"
    home.mkdir(parents=True)
    (home / "00_tour.ipynb").write_text("my answers")
    created, kept = seed_labs.seed(source, home)
    assert created == [Path("03_delay.ipynb")] and kept == [Path("00_tour.ipynb")]
    assert (home / "00_tour.ipynb").read_text() == "my answers" and (home / "03_delay.ipynb").read_text() == "lab 3 v2"
    assert not (home / ".ipynb_checkpoints").exists()
    assert seed_labs.seed(source, home) == ([], [Path("00_tour.ipynb"), Path("03_delay.ipynb")])
    with pytest.raises(SystemExit, match=r"SOURCE='.*nowhere' is not a folder"):
        seed_labs.seed(tmp_path / "nowhere", home)


@pytest.mark.slow
def test_the_student_copy_seeded_into_a_home_opens_on_the_tour(tmp_path: Path) -> None:
    """What the image build and the hub do, in order: make_student, then seed_labs, then the default URL's file."""
    pytest.importorskip("nbgrader", reason="the teacher extra is not installed (pip install -e '.[teacher]')")
    subprocess.run([sys.executable, str(ROOT / "labs" / "make_student.py"), str(ROOT / "labs"),
                    str(tmp_path / "student-labs")], check=True, capture_output=True)  # fmt: skip
    proc = subprocess.run([sys.executable, str(DEPLOY / "seed_labs.py"), str(tmp_path / "student-labs"),
                           str(tmp_path / "jovyan" / "labs")], check=True, capture_output=True, text=True)  # fmt: skip
    labs = sorted(p.name for p in (ROOT / "labs").glob("*.ipynb"))
    assert sorted(p.name for p in (tmp_path / "jovyan" / "labs").glob("*.ipynb")) == labs
    assert (
        proc.stdout
        == f"seed_labs: {len(labs) + 1} files copied into {tmp_path / 'jovyan' / 'labs'}, 0 already there kept\n"
    )
    tour = (tmp_path / "jovyan" / "labs" / "00_tour.ipynb").read_text()
    assert "### BEGIN SOLUTION" not in tour


# ------------------------------------------------------------------ The Littlest JupyterHub


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def plugin() -> ModuleType:
    return _load("tljh_rmqlab", DEPLOY / "tljh" / "tljh_rmqlab.py")


def test_tljh_plugin_is_found_by_its_entry_point_and_implements_only_tljh_hooks(plugin: ModuleType) -> None:
    meta = tomllib.loads((DEPLOY / "tljh" / "pyproject.toml").read_text())
    assert meta["project"]["entry-points"]["tljh"] == {"rmqlab": "tljh_rmqlab"}
    assert meta["tool"]["setuptools"]["py-modules"] == ["tljh_rmqlab"]
    hooks = {name for name in dir(plugin) if hasattr(getattr(plugin, name), "tljh_impl")}
    assert hooks and hooks <= TLJH_HOOKS
    assert hooks == {"tljh_extra_apt_packages", "tljh_config_post_install", "tljh_post_install",
                     "tljh_custom_jupyterhub_config", "tljh_new_user_create"}  # fmt: skip
    pm = pluggy.PluginManager("tljh")  # what tljh.utils.get_plugin_manager builds
    pm.register(plugin)
    assert pm.hook.tljh_extra_apt_packages() == [["git"]]


def test_tljh_config_defaults_are_documented_and_never_override_the_teacher(plugin: ModuleType) -> None:
    config: dict[str, Any] = {}
    plugin.tljh_config_post_install(config)
    leaves = _leaves(config)
    assert set(leaves) == set(TLJH_CONFIG)
    for path, value in leaves.items():
        assert TLJH_CONFIG[path](value), (path, value)
    assert _mib(leaves["limits.memory"]) >= 3 * _measured_mib()
    teacher = {"limits": {"memory": "2G", "cpu": None}, "services": {"cull": {"timeout": 600, "every": 30}}}
    plugin.tljh_config_post_install(teacher)
    assert teacher == {"limits": {"memory": "2G", "cpu": 1}, "services": {"cull": {"timeout": 600, "every": 30}},
                       "user_environment": {"default_app": "jupyterlab"}}  # fmt: skip


def test_tljh_jupyterhub_config_opens_the_tour_with_ipc_kernels(plugin: ModuleType) -> None:
    c = Config()
    plugin.tljh_custom_jupyterhub_config(c)
    assert c.Spawner.default_url == "/lab/tree/labs/00_tour.ipynb"
    assert c.Spawner.args == [
        "--ServerKernelManager.transport=ipc",
        '--ServerApp.jpserver_extensions={"rmqlab.widgets.nodelay": True}',
    ]  # tests/test_environments.py starts a server with exactly these
    assert c.SystemdSpawner.isolate_tmp is True and c.Spawner.environment == {
        "JUPYTER_RUNTIME_DIR": "/tmp/jupyter-runtime", "JUPYTER_PREFER_ENV_PATH": "0"
    }


def test_tljh_install_commands_use_files_the_repository_has(plugin: ModuleType, tmp_path: Path) -> None:
    python = Path("/opt/tljh/user/bin/python")
    fresh = plugin.install_commands(tmp_path / "rmqlab", python, "https://example.org/rmqlab", "v1")
    assert fresh[0] == ["git", "clone", "--depth", "1", "--branch", "v1", "https://example.org/rmqlab",
                        str(tmp_path / "rmqlab")]  # fmt: skip
    assert [str(python), "-m", "pip", "install", "--upgrade", f"{tmp_path / 'rmqlab'}[lab,teacher]"] in fresh
    (tmp_path / "rmqlab" / ".git").mkdir(parents=True)
    again = plugin.install_commands(tmp_path / "rmqlab", python, "https://example.org/rmqlab", "v1")
    assert again[0][:3] == ["git", "-C", str(tmp_path / "rmqlab")] and again[0][3] == "fetch"
    student = next(cmd for cmd in fresh if cmd[1].endswith("make_student.py"))
    assert Path(student[1]).relative_to(tmp_path / "rmqlab") == Path("labs/make_student.py")
    assert (ROOT / "labs" / "make_student.py").exists()
    assert str(plugin.STUDENT_LABS) == f"{REPO_DIR}/student-labs"
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert {"lab", "teacher"} <= set(meta["project"]["optional-dependencies"])
    assert subprocess.run(["bash", "-n", str(DEPLOY / "tljh" / "install.sh")]).returncode == 0
    assert "#subdirectory=deploy/tljh" in (DEPLOY / "tljh" / "install.sh").read_text()


# ------------------------------------------------------------------ the docs


def test_docs_site_and_readme_carry_the_classroom_page(tmp_path: Path) -> None:
    build_docs = _load("build_docs", ROOT / "docs" / "build_docs.py")
    build_docs.stage(tmp_path / "src")
    page = (tmp_path / "src" / "classroom.md").read_text()
    for name in ("The zero-install site", "The Littlest JupyterHub", "Zero to JupyterHub", "deploy/z2jh/config.yaml"):
        assert name in page
    config = yaml.safe_load((tmp_path / "src.mkdocs.yml").read_text())
    assert {"A whole class": "classroom.md"} in config["nav"]
    home = (tmp_path / "src" / "index.md").read_text()
    assert "](classroom.md)" in home and "](docs/classroom.md)" in (ROOT / "README.md").read_text()


# ------------------------------------------------------------------ Binder: postBuild


@pytest.mark.slow
def test_postbuild_leaves_binder_only_the_student_copy(tmp_path: Path) -> None:
    """What repo2docker runs after the environment, on a copy of every tracked file: labs/ becomes the student copy
    (the badge's 00_tour is the student's), a student's Jupyter (no nbgrader), no solved labs, teacher sources or
    history; and nothing left in the image states an answer or an explanation (tests/leak_search.py over every
    file that stays: the package, the docs, the examples, the READMEs)."""
    from leak_search import files_as_text, search

    repo = tmp_path / "repo"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in filter(None, tracked.split("\0")):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, repo / name)
    (repo / ".git").mkdir()
    prefix = tmp_path / "prefix"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bindir / "python").chmod(0o755)
    env = {**os.environ, "NB_PYTHON_PREFIX": str(prefix), "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["bash", "postBuild"], cwd=repo, env=env, check=True, capture_output=True)
    solved = sorted(p.name for p in (ROOT / "labs").glob("[0-9][0-9]*_*.ipynb"))
    assert sorted(p.name for p in (repo / "labs").glob("*.ipynb")) == solved
    assert list((repo / "labs").glob("[0-9][0-9]*_*.py")) == []
    assert not (repo / "teacher").exists() and not (repo / ".git").exists() and not (repo / "build").exists()
    tour = (repo / "labs" / "00_tour.ipynb").read_text()
    assert "### BEGIN SOLUTION" not in tour and "HIDDEN TESTS" not in tour and '"outputs": []' in tour
    page = json.loads((prefix / "etc" / "jupyter" / "labconfig" / "page_config.json").read_text())
    assert page["disabledExtensions"] == {"@jupyter/nbgrader": True}
    assert "postBuild" in (DEPLOY / "image" / "appendix.Dockerfile").read_text()
    left = list(files_as_text(repo))
    assert len(left) > 200 and any(where == "rmqlab/course/bank.json" for where, _ in left)
    assert search(iter(left)) == []


def test_make_teacher_writes_a_teachers_config_and_a_course_and_keeps_what_is_there(tmp_path: Path) -> None:
    make_teacher = _load("make_teacher", DEPLOY / "nbgrader" / "make_teacher.py")
    home = tmp_path / "teacher"
    created = make_teacher.setup(ROOT, home)
    solved = sorted((ROOT / "labs").glob("[0-9][0-9]*_*.ipynb"))
    source = json.loads((home / "course" / "source" / "lab08" / "08_broadcasting_vs_clustering.ipynb").read_text())
    lab = json.loads((ROOT / "labs" / "08_broadcasting_vs_clustering.ipynb").read_text())
    assert source["metadata"] == {k: v for k, v in lab["metadata"].items() if k != "jupytext"} != lab["metadata"]
    assert source["cells"] == lab["cells"]  # the solved lab, unpaired: jupytext writes no .py beside it
    # the role's two files, the Formgrader's settings, the course config, one source per lab
    assert len(created) == 2 + 1 + 1 + len(solved)
    assert (home / "course" / "nbgrader_config.py").read_text() == (ROOT / "labs" / "nbgrader_config.py").read_text()
    page = json.loads((home / ".jupyter" / "labconfig" / "page_config.json").read_text())
    assert not any(page["disabledExtensions"].values())
    (home / "course" / "nbgrader_config.py").write_text("# mine")
    assert len(make_teacher.setup(ROOT, home)) == 2 and (home / "course" / "nbgrader_config.py").read_text() == "# mine"
    assert make_teacher.assignment_of(Path("04b_stranded_retry_queues.ipynb")) == "lab04b"


def test_the_teachers_nbgrader_settings_point_anywhere_at_the_course_and_its_grader(tmp_path: Path) -> None:
    """What nbgrader (the Formgrader in the teacher's server, whose folder is the home) reads from ~/.jupyter: the
    course directory, and the course's autograde steps with the grader's own look at the answer cells."""
    from traitlets.config.loader import PyFileConfigLoader

    make_teacher = _load("make_teacher", DEPLOY / "nbgrader" / "make_teacher.py")
    home = tmp_path / "teacher"
    make_teacher.setup(ROOT, home)
    config = PyFileConfigLoader("nbgrader_config.py", path=str(home / ".jupyter")).load_config()
    assert config.CourseDirectory.root == str(home / "course")
    assert "rmqlab.course.autograde.check_predictions" in config.Autograde.autograde_preprocessors
    assert config.Execute.store_widget_state is False


def test_tljh_new_user_hook_seeds_the_labs_and_makes_an_admin_a_teacher(
    plugin: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tljh_new_user_create`` as TLJH calls it (through pluggy), with a stand-in for TLJH's config module: every
    new user gets the student labs; a hub admin also a teacher's Jupyter and ``~/course``. The user is the one running
    the test, so that the hook's ``chown`` to the new user works without root."""
    me = pwd.getpwuid(os.getuid()).pw_name
    homes = {me: tmp_path / "home"}
    monkeypatch.setattr(plugin.pwd, "getpwnam", lambda name: SimpleNamespace(pw_dir=str(homes[name])))
    student_labs = tmp_path / "student-labs"
    student_labs.mkdir()
    (student_labs / "00_tour.ipynb").write_text("the student's tour")
    monkeypatch.setattr(plugin, "CHECKOUT", ROOT)
    monkeypatch.setattr(plugin, "STUDENT_LABS", student_labs)
    admins: list[str] = []
    tljh_config = ModuleType("tljh.config")
    tljh_config.CONFIG_FILE = "/opt/tljh/config/config.yaml"  # type: ignore[attr-defined]
    tljh_config.load_config = lambda path: {"users": {"admin": list(admins)}}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tljh", ModuleType("tljh"))
    monkeypatch.setitem(sys.modules, "tljh.config", tljh_config)
    pm = pluggy.PluginManager("tljh")
    pm.register(plugin)

    pm.hook.tljh_new_user_create(username=me)
    assert (homes[me] / "labs" / "00_tour.ipynb").read_text() == "the student's tour"
    assert not (homes[me] / "course").exists() and not (homes[me] / ".jupyter").exists()

    admins.append(me)
    homes[me] = tmp_path / "teacher"
    pm.hook.tljh_new_user_create(username=me)
    assert (homes[me] / "labs" / "00_tour.ipynb").exists()
    assert (homes[me] / "course" / "source" / "lab08" / "08_broadcasting_vs_clustering.ipynb").exists()
    assert (homes[me] / ".jupyter" / "nbgrader_config.py").exists()
    page = json.loads((homes[me] / ".jupyter" / "labconfig" / "page_config.json").read_text())
    assert page["disabledExtensions"]["@jupyter/nbgrader:formgrader"] is False


# ------------------------------------------------------------------ the Chinese labs in a hub (issue 35)


def _make_student_steps(commands: list[list[str]]) -> list[tuple[str, str]]:
    """The (source, target) folders of each ``labs/make_student.py`` run among ``commands``."""
    return [(cmd[-2], cmd[-1]) for cmd in commands if any(a.endswith("make_student.py") for a in cmd)]


def _appendix_commands() -> list[list[str]]:
    """The commands of the image appendix's RUN steps (``&&``-joined, ``\\``-continued), as argument lists."""
    text = re.sub(r"\\\n", " ", (DEPLOY / "image" / "appendix.Dockerfile").read_text())
    runs = [line.removeprefix("RUN ") for line in text.splitlines() if line.startswith("RUN ")]
    return [shlex.split(step) for run in runs for step in run.split("&&")]


@pytest.mark.slow
def test_both_hubs_give_every_student_the_chinese_labs(plugin: ModuleType, tmp_path: Path) -> None:
    """Zero to JupyterHub's image (its appendix) and The Littlest JupyterHub's install write the Chinese student
    copy into ``student-labs/zh``, beside the English one, in the folder each hub seeds a new home from (the
    postStart hook, ``tljh_new_user_create``); run here on a copy of the labs, then seeded into a home as the hubs
    do: ``~/labs/zh`` holds every Chinese lab, released, and its index."""
    image = _make_student_steps(_appendix_commands())
    checkout = tmp_path / "srv" / "rmqlab"
    commands = plugin.install_commands(checkout, Path(sys.executable), "https://example.org/rmqlab", "v1")
    littlest = [(str(Path(s).relative_to(checkout)), str(Path(t).relative_to(checkout)))
                for s, t in _make_student_steps(commands)]  # fmt: skip
    assert image == littlest == [("labs", "student-labs"), ("labs/zh", "student-labs/zh")]
    post_start = yaml.safe_load((DEPLOY / "z2jh" / "config.yaml").read_text())["singleuser"]["lifecycleHooks"]
    assert post_start["postStart"]["exec"]["command"][2] == f"{REPO_DIR}/student-labs" == str(plugin.STUDENT_LABS)
    (checkout / "labs" / "zh").mkdir(parents=True)  # what make_student reads there: the Chinese notebooks, the index
    for path in [*(ROOT / "labs" / "zh").glob("*.ipynb"), ROOT / "labs" / "zh" / "README.md"]:
        shutil.copy2(path, checkout / "labs" / "zh" / path.name)
    subprocess.run([sys.executable, str(ROOT / "labs" / "make_student.py"), str(checkout / "labs" / "zh"),
                    str(checkout / "student-labs" / "zh")], check=True, capture_output=True)  # fmt: skip
    home = tmp_path / "jovyan" / "labs"
    _load("seed_labs", DEPLOY / "seed_labs.py").seed(checkout / "student-labs", home)
    chinese = sorted(p.name for p in (ROOT / "labs" / "zh").glob("[0-9][0-9]*_*.ipynb"))
    assert len(chinese) == 14 and sorted(p.name for p in (home / "zh").glob("*.ipynb")) == chinese
    assert (home / "zh" / "README.md").read_text() == (ROOT / "labs" / "zh" / "README.md").read_text()
    tour = (home / "zh" / "00_tour.ipynb").read_text(encoding="utf-8")
    assert "先预测，再运行" in tour and "### BEGIN SOLUTION" not in tour and "HIDDEN TESTS" not in tour
