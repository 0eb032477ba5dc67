"""The autograde sandbox (rmqlab.course.sandbox) without Jupyter: a tiny program started by the launcher finds the
hidden folders empty and its own folder readable and writable, cannot undo the sandbox, and a machine without user
namespaces gets a clear refusal, never an unconfined run. The nbgrader side: tests/test_nbgrader.py (a snooping
submission) and tests/test_hub_class.py."""

from __future__ import annotations

import ctypes
import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rmqlab.course import sandbox

ROOT = Path(__file__).resolve().parents[1]

PROBE = """import ctypes, json, os
found = {}
for name, path in [("secret", SECRET), ("hidden_folder", HIDDEN), ("own", "own.txt"), ("proc", "/proc/1/root")]:
    try:
        found[name] = sorted(os.listdir(path)) if os.path.isdir(path) else open(path).read()
    except OSError as error:
        found[name] = type(error).__name__
with open("written.txt", "w") as f:
    f.write("by the sandboxed program")
libc = ctypes.CDLL(None, use_errno=True)
found["umount"] = "refused" if libc.umount2(HIDDEN.encode(), 2) != 0 else "undone"
found["after_umount"] = os.path.exists(SECRET)
found["cwd"] = os.getcwd()
print(json.dumps(found))
"""

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox uses Linux namespaces")


def launch(cwd: Path, hide: list[Path], program: str) -> subprocess.CompletedProcess[str]:
    hides = [arg for path in hide for arg in ("--hide", str(path))]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "rmqlab.course.sandbox", *hides, "--", "python", "-c", program],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False)  # fmt: skip


def test_hidden_files_are_gone_and_the_own_folder_is_readable_and_writable(tmp_path: Path) -> None:
    teacher = tmp_path / "teacher"  # the teacher's home: notes, and the course with every submission
    (teacher / "course" / "submitted" / "bob").mkdir(parents=True)
    (teacher / "notes.txt").write_text("the answers")
    (teacher / "course" / "submitted" / "bob" / "lab.ipynb").write_text("bob's work")
    own = teacher / "course" / "submitted" / "ada"
    own.mkdir()
    (own / "own.txt").write_text("ada's work")
    program = f"SECRET = {str(teacher / 'notes.txt')!r}\nHIDDEN = {str(teacher)!r}\n" + PROBE

    done = launch(own, [teacher], program)

    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found == {
        "secret": "FileNotFoundError",
        "hidden_folder": ["course"],  # only the path down to its own folder
        "own": "ada's work",
        "proc": "FileNotFoundError",  # no way into another process's view of the files
        "umount": "refused",  # the covering mounts are locked
        "after_umount": False,
        "cwd": str(own),
    }
    assert (own / "written.txt").read_text() == "by the sandboxed program"  # written through to the real folder
    assert (teacher / "notes.txt").read_text() == "the answers"


def test_the_kernels_connection_file_is_brought_into_the_sandbox(tmp_path: Path) -> None:
    """jupyter_client writes it in the teacher's runtime folder (hidden): the kernel gets a copy in its /tmp."""
    runtime = tmp_path / "teacher" / "runtime"
    runtime.mkdir(parents=True)
    (runtime / "kernel-1.json").write_text('{"key": "k"}')
    own = tmp_path / "own"
    own.mkdir()
    program = "import sys; print(sys.argv[1], open(sys.argv[1]).read())"
    hides = ["--hide", str(tmp_path / "teacher")]
    done = subprocess.run(
        [sys.executable, "-m", "rmqlab.course.sandbox", *hides, "--", "python", "-c", program,
         str(runtime / "kernel-1.json")],
        cwd=own, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["/tmp/rmqlab-sandbox/kernel-1.json", '{"key":', '"k"}']


class _NoNamespaces:
    """A libc whose unshare fails as on a kernel with user.max_user_namespaces = 0."""

    def unshare(self, flags: int) -> int:
        ctypes.set_errno(errno.ENOSPC)
        return -1


def test_without_user_namespaces_it_refuses_and_names_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "_libc", _NoNamespaces)
    with pytest.raises(sandbox.SandboxUnavailable) as refused:
        sandbox.confine(hide=[], allow=[])
    message = str(refused.value)
    assert message.startswith("the autograde sandbox cannot create a user namespace (ENOSPC: ")
    assert "user.max_user_namespaces" in message and "kernel.unprivileged_userns_clone = 1" in message
    assert "c.SandboxedExecute.confine = False" in message


def test_the_check_passes_here() -> None:
    """This machine (and CI's) allows user namespaces: the sandbox is usable, so the nbgrader tests use it."""
    sandbox.check()


def test_the_launcher_needs_a_command() -> None:
    assert sandbox.main(["--hide", "/x"]) == 2


def test_autograde_kernels_start_through_the_sandbox(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """SandboxedExecute prefixes the notebook's kernel command with the launcher, told to hide the teacher's home,
    the course directory (nbgrader's working directory) and the configured exchange; confine=False does not."""
    pytest.importorskip("nbgrader")
    import nbformat
    from traitlets.config import Config

    from rmqlab.course.sandboxed_execute import SandboxedExecute

    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    config = Config()
    config.Exchange.root = "/srv/exchange"
    nb: Any = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})

    step = SandboxedExecute(config=config)
    step.nb = nb
    argv = step.create_kernel_manager().kernel_spec.argv
    split = argv.index("--")
    assert argv[:split] == [sys.executable, "-m", "rmqlab.course.sandbox", "--hide", str(tmp_path / "home"),
                            "--hide", str(tmp_path), "--hide", "/srv/exchange"]  # fmt: skip
    assert "ipykernel_launcher" in argv[split + 1 :]

    config.SandboxedExecute.confine = False
    unconfined = SandboxedExecute(config=config)
    unconfined.nb = nb
    assert "rmqlab.course.sandbox" not in unconfined.create_kernel_manager().kernel_spec.argv


def test_autograde_fails_closed_when_the_sandbox_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("nbgrader")
    import nbformat

    from rmqlab.course import sandboxed_execute

    def unavailable() -> None:
        raise sandbox.SandboxUnavailable("no user namespaces here")

    monkeypatch.setattr(sandboxed_execute, "check", unavailable)
    with pytest.raises(sandbox.SandboxUnavailable, match="no user namespaces here"):
        sandboxed_execute.SandboxedExecute().preprocess(nbformat.v4.new_notebook(), {"metadata": {"path": "."}})
