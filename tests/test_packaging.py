"""Packaging as the ecosystem expects it: licence, metadata, version ranges vs the tested pins, Binder, make lab.

The contract (issue 17): ``pyproject.toml`` declares compatible ranges so that ``pip install rmqlab[lab]`` fits
into an existing JupyterHub or Colab image; ``constraints.txt`` holds the exact versions CI tests with;
``environment.yml`` (Binder, conda) installs ``-e .[lab]`` with those pins and nothing for tests; ``make lab``
installs what running the labs needs, not the test, site or benchmark extras.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import rmqlab
from rmqlab.lab.cli import FORMAT_CHECKER_MODULES

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]


def declared() -> dict[str, list[Requirement]]:
    """Every requirement of the project for this platform by canonical name (the runtime ones and each extra's),
    minus ``rmqlab[…]`` (Pyodide's own requirements are checked by the JupyterLite build)."""
    found: dict[str, list[Requirement]] = {}
    for text in [*PROJECT["dependencies"], *(r for reqs in EXTRAS.values() for r in reqs)]:
        req = Requirement(text)
        if canonicalize_name(req.name) != "rmqlab" and (req.marker is None or req.marker.evaluate()):
            found.setdefault(canonicalize_name(req.name), []).append(req)
    return found


def pins() -> dict[str, str]:
    """``constraints.txt`` as canonical name → exact version (comments and blank lines skipped)."""
    found: dict[str, str] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep and version, f"constraints.txt: {line!r} is not an exact pin (name==version)"
            found[canonicalize_name(name)] = version
    return found


def test_license_is_the_full_apache_2_text() -> None:
    """LICENSE is the standard Apache License 2.0 text (all nine sections and the appendix), declared by SPDX id."""
    text = (ROOT / "LICENSE").read_text()
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    for heading in ("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION", "9. Accepting Warranty",
                    "END OF TERMS AND CONDITIONS", "APPENDIX: How to apply the Apache License"):  # fmt: skip
        assert heading in text
    assert len(text.splitlines()) == 202
    assert PROJECT["license"] == "Apache-2.0" and PROJECT["license-files"] == ["LICENSE"]


def test_metadata_names_authors_and_classifiers() -> None:
    assert PROJECT["authors"]
    assert {"Framework :: Jupyter", "Topic :: Education", "Typing :: Typed"} <= set(PROJECT["classifiers"])


def test_runtime_and_lab_requirements_are_ranges_not_pins() -> None:
    """No ``==`` in any declared requirement: exact versions live in constraints.txt only."""
    pinned = [str(r) for reqs in declared().values() for r in reqs if any(s.operator == "==" for s in r.specifier)]
    assert pinned == []
    assert all(str(r.specifier) for reqs in declared().values() for r in reqs), "every requirement has a range"


def test_constraints_pin_every_declared_package_inside_its_range() -> None:
    """constraints.txt pins exactly the declared packages, each at a version its declared range allows."""
    wanted, pinned = declared(), pins()
    assert sorted(pinned) == sorted(wanted)
    outside = [f"{name}=={pinned[name]} vs {r}" for name, reqs in wanted.items() for r in reqs
               if not r.specifier.contains(pinned[name], prereleases=True)]  # fmt: skip
    assert outside == []


def test_plotly_is_declared_for_the_whole_run_charts() -> None:
    """rmqlab.widgets.charts draws with plotly (tests/test_charts.py says which module imports it): the lab extra."""
    lab_extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["lab"]
    assert [r for r in lab_extra if r.startswith(("plotly", "resvg-py", "pillow"))] == [
        "plotly>=6.0,<8",
        "resvg-py>=0.5,<1",
        "pillow>=10.0",
    ]


def test_environment_yml_installs_the_lab_extra_with_the_tested_pins_and_nothing_for_tests() -> None:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert pip == ["-c constraints.txt", "-e .[lab]"]
    assert "python=3.11" in env["dependencies"]
    words = set(re.findall(r"[a-z0-9_.-]+", (ROOT / "environment.yml").read_text().lower()))
    test_only = {canonicalize_name(Requirement(r).name) for r in EXTRAS["test"]} - {"rmqlab"}
    assert test_only and not test_only & words


def test_repo2docker_builds_the_environment_into_the_servers_env(tmp_path: Path) -> None:
    """repo2docker (Binder) turns the repository into a Dockerfile that updates the notebook server's own env
    from environment.yml, so the widget extensions that ``[lab]`` installs are the server's (no kernel-only env)."""
    repo2docker = shutil.which("repo2docker", path=str(Path(sys.executable).parent))
    if repo2docker is None:
        pytest.skip("jupyter-repo2docker is not installed (pip install -e '.[test]')")
    for name in ("environment.yml", "constraints.txt", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, tmp_path / name)
    proc = subprocess.run([repo2docker, "--no-build", "--no-run", "--debug", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    dockerfile = proc.stdout + proc.stderr
    assert "Building conda environment for python=3.11" in dockerfile
    assert 'env update -p ${NB_PYTHON_PREFIX} --file "environment.yml"' in dockerfile
    assert "KERNEL_PYTHON_PREFIX=${NB_PYTHON_PREFIX}" in dockerfile


def test_make_lab_installs_only_what_running_the_labs_needs() -> None:
    """``make -n lab`` (nothing run): the lab extra with the pins (no nbgrader), the student copy, then a student's
    JupyterLab (deploy/jupyter_roles.py student) with the nodelay extension — and ``--allow-root`` exactly when make
    runs as root. ``make -n teacher`` adds the teacher extra and opens the solved labs as a teacher."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    proc = subprocess.run(["make", "-n", "lab", "VENV=/nonexistent/venv"], cwd=ROOT, capture_output=True,
                          text=True, env=env, check=True)  # fmt: skip
    commands = proc.stdout
    installs = re.findall(r"pip install --quiet -c constraints.txt -e '(.*?)'", commands)
    assert installs == [".[lab]"]
    assert "labs/make_student.py labs build/student-labs" in commands
    lab = next(line for line in commands.splitlines() if "/bin/jupyter lab" in line)
    assert ("--allow-root" in lab) == (os.getuid() == 0)
    assert "rmqlab.widgets.nodelay" in lab and "--notebook-dir=build/student-labs" in lab
    assert "deploy/jupyter_roles.py student build/jupyter-student" in lab
    assert "JUPYTER_PREFER_ENV_PATH=0 JUPYTER_CONFIG_DIR=build/jupyter-student " in lab
    teacher = subprocess.run(["make", "-n", "teacher", "VENV=/nonexistent/venv"], cwd=ROOT, capture_output=True,
                             text=True, env=env, check=True).stdout  # fmt: skip
    assert re.findall(r"-e '(.*?)'", teacher) == [".[lab]", ".[lab,teacher]"]
    assert "deploy/jupyter_roles.py teacher build/jupyter-teacher" in teacher and "--notebook-dir=labs" in teacher
    full = subprocess.run(["make", "-n", "test", "VENV=/nonexistent/venv"], cwd=ROOT, capture_output=True,
                          text=True, env=env, check=True).stdout  # fmt: skip
    assert re.findall(r"-e '(.*?)'", full) == [".[lab]", ".[lab,teacher,test,lite,docs,bench]"]


def test_version_comes_from_the_installed_metadata() -> None:
    """``rmqlab.__version__`` is the distribution's version; ``rmqlab --version`` prints it."""
    assert rmqlab.__version__ == importlib.metadata.version("rmqlab") == PROJECT["version"]
    proc = subprocess.run([sys.executable, "-m", "rmqlab", "--version"], capture_output=True, text=True, check=True)
    assert proc.stdout == f"rmqlab {PROJECT['version']}\n"


SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_both_packages_ship_py_typed() -> None:
    for package, folder in (("rmqlab", "rmqlab"), ("rmqlab.widgets", "widgets")):
        assert (ROOT / folder / "py.typed").is_file() and "py.typed" in SETUPTOOLS["package-data"][package]


def test_every_subpackage_is_listed_for_the_wheel() -> None:
    """``tool.setuptools.packages`` is an explicit list: a package directory left out of it (``rmqlab/lab/scenario/``)
    would be missing from the wheel, hence from a pip install and the JupyterLite site. The views (``widgets/``) and
    the labs' sources (``labs/``) are mapped under rmqlab's name, so that no generic top-level name is installed."""
    assert SETUPTOOLS["package-dir"] == {"rmqlab.widgets": "widgets", "rmqlab.labs": "labs"}
    found = [".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "rmqlab").rglob("__init__.py")]
    views = (ROOT / "widgets").rglob("__init__.py")
    found += [f"rmqlab.{'.'.join(init.parent.relative_to(ROOT).parts)}" for init in views]
    assert sorted(SETUPTOOLS["packages"]) == sorted([*found, "rmqlab.labs"])
    assert not [name for name in SETUPTOOLS["packages"] if not name.startswith("rmqlab")]


def _has_format(node: object) -> bool:
    if isinstance(node, dict):
        return "format" in node or any(_has_format(v) for v in node.values())
    return isinstance(node, list) and any(_has_format(v) for v in node)


def test_cli_start_imports_no_format_checker(tmp_path: Path) -> None:
    """The scenario schema uses no ``format``, so the command line skips jsonschema's format-checker imports
    (rfc3987_syntax alone compiles a grammar for over a second); an in-process ``main`` keeps them."""
    assert not _has_format(json.loads((ROOT / "rmqlab/lab/scenario/scenario.schema.json").read_text()))
    code = (
        "import sys; sys.argv = ['rmqlab', 'run', sys.argv[1]]; import io, contextlib; "
        "from rmqlab.lab.cli import console_main, FORMAT_CHECKER_MODULES as F\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out: rc = console_main()\n"
        "print(rc, 'jsonschema' in sys.modules, sorted(m for m in F if sys.modules.get(m)), out.getvalue()[-60:])"
    )
    example = ROOT / "examples" / "default_retry_schedule.json"
    proc = subprocess.run([sys.executable, "-c", code, str(example)], capture_output=True, text=True, check=True)
    rc, validated, imported, tail = proc.stdout.split(" ", 3)
    assert (rc, validated, imported) == ("0", "True", "[]")
    assert "17 deliveries · 0 consumed · %DLQ%cg: 1" in tail
    assert len(FORMAT_CHECKER_MODULES) == 10
