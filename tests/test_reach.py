"""Issue 35 (reach): the command line's filters and start-up, the views under rmqlab's own name, ``rmqlab labs``.

No timing here (bench/cli_start.py measures start-up): what is asserted is what makes start-up fast — which modules
a command imports — and what a learner sees.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import rmqlab
from rmqlab.lab.cli import main
from rmqlab.lab.labs_command import COLAB_CELL_TAG

ROOT = Path(__file__).resolve().parents[1]
LAB_COUNT = len(list((ROOT / "labs").glob("[0-9][0-9]*_*.py")))
"""How many labs `rmqlab labs` writes: one notebook per lab source."""
EXAMPLE = ROOT / "examples" / "ack_index_split.yaml"  # 6 deliveries of M0001..M0004, no dead letter
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def python(code: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=120)  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--msg", "M9999"], "--msg M9999"),
        (["--kind", "dead_lettered"], "--kind dead_lettered"),
        (["--msg", "M0001", "--kind", "dead_lettered"], "--msg M0001 --kind dead_lettered"),
    ],
)
def test_a_filter_that_matches_nothing_says_so_and_exits_1(argv: list[str], said: str) -> None:
    code, out, err = run("run", str(EXAMPLE), *argv)
    assert code == 1
    assert err == f"rmqlab: no event matches {said} in {EXAMPLE}\n"
    assert out.startswith("# ack_index_split: ") and out.endswith("# 6 deliveries · 6 consumed · no dead letters · "
                                                                   "ended at 1 m\n")  # fmt: skip
    assert len(out.splitlines()) == 4  # the wrapped title and the summary, no event line


def test_a_filter_that_matches_exits_0() -> None:
    code, out, err = run("run", str(EXAMPLE), "--msg", "M0004", "--kind", "delivered")
    assert (code, err) == (0, "")
    assert [line.split()[2:5] for line in out.splitlines() if "delivered" in line] == [
        ["consumer:c1", "delivered", "M0004"],
        ["consumer:c1", "delivered", "M0004"],
    ]


def test_a_broker_written_as_an_object_is_told_to_be_a_plain_name(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: x\nbrokers:\n  - name: broker-a\ntopics: [{name: T, queues: 1}]\nrun_until: 1s\n")
    code, out, err = run("run", str(scenario))
    assert (code, out) == (2, "")
    assert err == (f"rmqlab: error: {scenario}: brokers[0]={{'name': 'broker-a'}} is not allowed: expected a broker "
                   "name without '@' or ':' written as a plain string, not an object (e.g. brokers: [broker-a, "
                   "broker-b])\n")  # fmt: skip


def test_version_imports_neither_the_engine_nor_argparse() -> None:
    proc = python("""
        import sys
        sys.argv = ["rmqlab", "--version"]
        from rmqlab.lab.cli import console_main
        console_main()
        print(sorted(m for m in sys.modules if m.startswith("rmqlab") or m == "argparse"))
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [f"rmqlab {rmqlab.__version__}", "['rmqlab', 'rmqlab.lab', 'rmqlab.lab.cli']"]


def test_import_rmqlab_loads_names_on_first_use() -> None:
    """``import rmqlab`` loads no engine module; each public name then comes from its module, and stays."""
    proc = python("""
        import sys
        import rmqlab
        before = sorted(m for m in sys.modules if m.startswith("rmqlab."))
        from rmqlab import Lab
        from rmqlab.lab.lab import Lab as Real
        print(before, Lab is Real, "Lab" in vars(rmqlab), "rmqlab.invariants" in sys.modules)
    """)
    assert proc.stdout == "[] True True False\n", proc.stderr
    for name in rmqlab.__all__:
        assert name in dir(rmqlab)
        value = getattr(rmqlab, name)
        assert getattr(sys.modules[rmqlab._MODULE_OF[name].join(("rmqlab.", ""))], name) is value
    with pytest.raises(AttributeError, match="module 'rmqlab' has no attribute 'Nope'"):
        _ = rmqlab.Nope  # type: ignore[attr-defined]


def test_a_students_widgets_py_beside_the_labs_does_not_hide_the_views(tmp_path: Path) -> None:
    (tmp_path / "widgets.py").write_text("raise RuntimeError('my own widgets.py')\n")
    proc = python("""
        from rmqlab.widgets import Dashboard, demo_lab
        dashboard = Dashboard(demo_lab)
        print(type(dashboard).__module__)
    """, cwd=tmp_path)  # fmt: skip
    assert proc.stdout == "rmqlab.widgets.dashboard\n", proc.stderr


def test_without_the_lab_extra_the_import_error_says_what_to_install() -> None:
    proc = python("""
        import sys
        sys.modules["ipywidgets"] = None  # as if not installed
        try:
            import rmqlab.widgets
        except ModuleNotFoundError as error:
            print(error.name, "|", error)
    """)
    assert proc.stdout == ("ipywidgets | rmqlab.widgets (the labs' views) needs ipywidgets, which rmqlab's [lab] "
                           "extra installs: pip install 'rmqlab[lab]'\n"), proc.stderr  # fmt: skip


def _cells(path: Path) -> list[tuple[str, str, dict[str, object]]]:
    return [(c.cell_type, c.source, dict(c.metadata)) for c in nbformat.read(path, as_version=4).cells]


def test_labs_in_chinese_says_what_it_wrote_in_chinese(tmp_path: Path) -> None:
    """``rmqlab labs DIR --lang zh``: the Chinese student copy, and its summary and how to open it in Chinese (through
    the catalog); the language chosen before is kept afterwards."""
    from rmqlab.core.i18n import current_language

    mine = tmp_path / "我的实验"
    code, out, err = run("labs", str(mine), "--lang", "zh")
    assert (code, err) == (0, "") and current_language() == "en"
    assert out == (
        f"已将 {LAB_COUNT} 个学生版 notebook 写入 {mine}\n这样打开它们：  jupyter lab {mine}\n"
        f"  （或：jupyter notebook {mine}；从 00_tour.ipynb 开始，README.md 列出了每个实验）\n"
    )
    assert "先预测，再运行" in (mine / "00_tour.ipynb").read_text(encoding="utf-8")
    (mine / "00_tour.ipynb").write_text((mine / "00_tour.ipynb").read_text(encoding="utf-8").replace("先预测", "我猜"))
    assert run("labs", str(mine), "--lang", "zh")[1].splitlines()[:2] == [
        f"已将 {LAB_COUNT - 1} 个学生版 notebook 写入 {mine}",
        "保留了你改过的 1 个（00_tour.ipynb）；加 --force 会覆盖它们",
    ]


def test_labs_writes_the_student_copy_make_student_writes(tmp_path: Path) -> None:
    """From the jupytext sources the wheel carries: the same cells and tags as ``make student`` from the notebooks."""
    code, out, err = run("labs", str(tmp_path / "mine"))
    assert (code, err) == (0, "")
    mine = tmp_path / "mine"
    assert out == (
        f"wrote {LAB_COUNT} student notebooks to {mine}\nOpen them with:  jupyter lab {mine}\n"
        f"  (or: jupyter notebook {mine}; start with 00_tour.ipynb, README.md lists every lab)\n"
    )
    subprocess.run([sys.executable, str(ROOT / "labs" / "make_student.py"), str(ROOT / "labs"), str(tmp_path / "make")],
                   env=ENV, check=True, capture_output=True)  # fmt: skip
    made = sorted(p.name for p in (tmp_path / "make").iterdir())
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == made and "README.md" in made
    for name in made:
        if name.endswith(".ipynb"):
            assert _cells(tmp_path / "mine" / name) == _cells(tmp_path / "make" / name), name
    assert "### BEGIN SOLUTION" not in (tmp_path / "mine" / "03_delay_levels_schedule.ipynb").read_text()
    # a second run keeps the notebook the student changed
    nb = nbformat.read(tmp_path / "mine" / "00_tour.ipynb", as_version=4)
    nb.cells[0].source += "\nmy note"
    nbformat.write(nb, tmp_path / "mine" / "00_tour.ipynb")
    code, out, _ = run("labs", str(tmp_path / "mine"))
    assert code == 0 and "kept 1 you have changed (00_tour.ipynb); --force overwrites them" in out


def test_labs_for_the_teacher_and_the_errors(tmp_path: Path) -> None:
    code, out, err = run("labs", str(tmp_path / "t"), "--teacher")
    assert (code, err) == (0, "")
    assert out.startswith(f"wrote {LAB_COUNT} solved notebooks and nbgrader_config.py to {tmp_path}")
    assert "### BEGIN SOLUTION" in (tmp_path / "t" / "03_delay_levels_schedule.ipynb").read_text()
    assert (tmp_path / "t" / "nbgrader_config.py").read_text() == (ROOT / "labs" / "nbgrader_config.py").read_text()
    assert run("labs", str(tmp_path / "t"), "--teacher") == (
        2, "", f"rmqlab: error: {tmp_path / 't'} already has {LAB_COUNT} notebooks; --force overwrites them\n"
    )  # fmt: skip
    (tmp_path / "file").write_text("")
    assert run("labs", str(tmp_path / "file"))[2] == (f"rmqlab: error: DIR '{tmp_path / 'file'}' is a file; give a "
                                                      "folder (it is created if absent)\n")  # fmt: skip
    if not (ROOT / "labs" / "zh").is_dir():
        said = "rmqlab: error: --lang zh: this version of rmqlab has no labs in that language yet; --lang en\n"
        assert run("labs", str(tmp_path / "zh"), "--lang", "zh") == (2, "", said)


def test_the_colab_notebook_runs_headless_outside_colab(tmp_path: Path) -> None:
    """``--colab``: a first cell, tagged, that sets Colab up only inside Colab; the tour then runs top to bottom."""
    code, out, _ = run("labs", str(tmp_path), "--colab")
    assert code == 0 and "Open in Colab: https://colab.research.google.com" in out
    nb = nbformat.read(tmp_path / "00_tour.ipynb", as_version=4)
    setup = [c for c in nb.cells if COLAB_CELL_TAG in c.metadata.get("tags", [])]
    assert len(setup) == 1 and nb.cells[0] is setup[0]
    assert '%pip install -q "rmqlab[lab]"' in setup[0].source and "enable_custom_widget_manager()" in setup[0].source
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []
    assert nb.cells[0].outputs == []  # outside Colab: nothing installed, nothing printed
    assert json.dumps(nb.cells[-1].source)  # the last cell ran too (execute raises on any error)


def test_make_lab_keeps_pip_output_in_a_log_and_says_where_the_labs_are() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    commands = subprocess.run(["make", "-n", "lab", "VENV=/nonexistent/venv"], cwd=ROOT, capture_output=True,
                              text=True, env=env, check=True).stdout.splitlines()  # fmt: skip
    pips = [line for line in commands if " -m pip install " in line]
    assert len(pips) == 2 and all('"$@" >>build/pip.log 2>&1 ||' in line for line in pips)
    assert all("tail -n 25 build/pip.log" in line for line in pips)  # shown when pip fails
    assert "echo 'The labs are in build/student-labs (start with 00_tour.ipynb;" in "\n".join(commands)
    lab = next(line for line in commands if "/bin/jupyter lab" in line)
    assert "--ServerApp.log_level=WARN --LabApp.log_level=WARN" in lab
    assert '{"rmqlab.widgets.nodelay": True}' in lab


def test_the_sdist_carries_every_tracked_file() -> None:
    """MANIFEST.in grafts each tracked folder and includes each tracked top-level file: the tests in an sdist find the
    examples, labs, docs and deploy files they read (a build lists the same files as ``git ls-files``)."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    folders = {path.split("/")[0] for path in tracked if "/" in path} - {"rmqlab"}  # rmqlab: the packages themselves
    files = {path for path in tracked if "/" not in path} - {"MANIFEST.in"}
    lines = [line.split() for line in (ROOT / "MANIFEST.in").read_text().splitlines() if line and line[0] != "#"]
    grafted = {words[1] for words in lines if words[0] == "graft"}
    included = {name for words in lines if words[0] == "include" for name in words[1:]}
    assert (folders - grafted, files - included) == (set(), set())


def test_schema_prints_the_schema_file_without_loading_the_engine() -> None:
    from rmqlab.lab.scenario.schema import schema_text

    assert run("schema") == (0, schema_text(), "")
    proc = python("""
        import io, sys
        from rmqlab.lab.cli import main
        main(["schema"], stdout=io.StringIO())
        print(sorted(m for m in sys.modules if m.startswith("rmqlab")))
    """)
    # the parser lists the event kinds for --kind (rmqlab.core.trace_event); nothing of the engine or scenario reader
    modules = "['rmqlab', 'rmqlab.core', 'rmqlab.core.trace_event', 'rmqlab.lab', 'rmqlab.lab.cli']\n"
    assert proc.stdout == modules, proc.stderr


def test_the_lite_kernel_extension_is_parked_out_of_jupyterlabs_path(tmp_path: Path) -> None:
    """Installed next to JupyterLab, ``@jupyterlite/pyodide-kernel-extension`` fails to load on every JupyterLab page;
    ``build_lite.py --park`` (run by make after installing the lite extra) moves it where only the site builder looks,
    and a newer install parked again replaces the old copy. Other ``@jupyterlite`` extensions stay where they are."""
    from lite.build_lite import KERNEL_EXTENSION, PARKED, park_kernel_extension

    labextensions = tmp_path / "share" / "jupyter" / "labextensions"
    for version in ("0.8.6", "0.8.7"):
        (labextensions / KERNEL_EXTENSION).mkdir(parents=True)
        (labextensions / KERNEL_EXTENSION / "package.json").write_text(version)
        (labextensions / "@jupyterlite" / "other").mkdir(parents=True, exist_ok=True)
        where = park_kernel_extension(tmp_path)
        assert where == tmp_path / PARKED / KERNEL_EXTENSION
        assert (where / "package.json").read_text() == version
        assert not (labextensions / KERNEL_EXTENSION).exists() and (labextensions / "@jupyterlite" / "other").is_dir()
    assert park_kernel_extension(tmp_path) == where  # already parked: nothing to move
    assert park_kernel_extension(tmp_path / "elsewhere") is None


def test_jupyterlab_in_this_environment_does_not_see_the_lite_kernel_extension() -> None:
    """The console error of issue 35 item 2: with the ``lite`` extra installed (make test installs it, then parks
    the extension), none of JupyterLab's lab-extension folders holds ``@jupyterlite/pyodide-kernel-extension``, so
    no JupyterLab page tries to load it; the site builder finds it where it was parked."""
    from jupyter_core.paths import jupyter_path

    from lite.build_lite import KERNEL_EXTENSION, PARKED

    pytest.importorskip("jupyterlite_pyodide_kernel", reason="the lite extra is not installed")
    seen = [folder for folder in jupyter_path("labextensions") if (Path(folder) / KERNEL_EXTENSION).exists()]
    assert seen == [], "run: python lite/build_lite.py --park"
    assert (Path(sys.prefix) / PARKED / KERNEL_EXTENSION / "package.json").is_file()


def test_no_data_folder_looks_like_a_package_to_setuptools() -> None:
    """setuptools warns ("Package would be ignored") about every folder under a package whose name is an identifier
    but which is not in ``packages``: data folders have names that are not identifiers (``locale-data``)."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    looks_like_packages = {".".join(p.relative_to(ROOT).parts) for p in (ROOT / "rmqlab").rglob("*")
                           if p.is_dir() and "__pycache__" not in p.parts
                           and all(part.isidentifier() for part in p.relative_to(ROOT).parts)}  # fmt: skip
    assert looks_like_packages - listed == set()


def test_the_lite_builder_reuses_a_download_only_for_the_same_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pip download`` runs again only when the request changed (requirements, pins): the wheels of the same request
    are reused; a changed one empties the folder first. ``--wheel`` that is not an rmqlab wheel is refused by name."""
    import lite.build_lite as build_lite

    calls: list[list[str]] = []

    def fake_run(argv: list[str], **_: object) -> None:
        calls.append(argv)
        dest = Path(argv[argv.index("--dest") + 1])
        dest.mkdir(parents=True, exist_ok=True)
        (dest / f"sortedcontainers-{len(calls)}-py3-none-any.whl").write_text("")

    monkeypatch.setattr(build_lite, "run", fake_run)
    pins = tmp_path / "constraints.txt"
    pins.write_text("plotly==6.0.0\n")
    dest = tmp_path / "pure"
    build_lite.pip_download(["sortedcontainers"], dest, pins)
    build_lite.pip_download(["sortedcontainers"], dest, pins)  # the same request: reused
    assert len(calls) == 1 and [p.name for p in dest.glob("*.whl")] == ["sortedcontainers-1-py3-none-any.whl"]
    pins.write_text("plotly==6.1.0\n")
    build_lite.pip_download(["sortedcontainers"], dest, pins)  # new pins: downloaded again into an empty folder
    assert len(calls) == 2 and [p.name for p in dest.glob("*.whl")] == ["sortedcontainers-2-py3-none-any.whl"]
    build_lite.pip_download(["sortedcontainers", "comm"], dest, pins)
    assert len(calls) == 3 and calls[-1][-2:] == ["sortedcontainers", "comm"]

    with pytest.raises(SystemExit):
        build_lite.main([str(tmp_path), str(tmp_path / "out"), "--wheel", str(pins)])
    assert f"--wheel {pins}: not an rmqlab wheel (rmqlab-*.whl)" in capsys.readouterr().err
