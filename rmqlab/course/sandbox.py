"""The autograde sandbox: a kernel that runs a submission without seeing the teacher's files.

``nbgrader autograde`` runs each submission's code in a kernel started by the teacher's own process, so by default
that code can read or change everything the teacher can: the course sources with their solutions, the other
students' submissions, the gradebook. This launcher starts the kernel in a new Linux *user* and *mount* namespace
(what ``unshare -U -m`` does; no root, no setuid helper, standard library only) and, inside it, before the kernel
starts:

* mounts an empty, private ``tmpfs`` over every hidden folder: the teacher's home, the course directory, nbgrader's
  exchange, ``/tmp`` (each kernel gets its own empty one) and ``/proc`` (through ``/proc/<pid>/root`` a process can
  walk into another process's view of the file system, the teacher's server's included);
* makes the submission's own folder (the kernel's working directory) visible again at the same path, readable and
  writable, and Python itself (the interpreter, its environment, the rmqlab package) if a hidden folder held them;
* locks those mounts by entering a second user namespace (a process can remove mounts made in its own namespace,
  never ones it inherited from a more privileged one), then replaces itself with the kernel.

    python -m rmqlab.course.sandbox [--hide PATH ...] [--allow PATH ...] -- python -m ipykernel_launcher -f CONN
    python -m rmqlab.course.sandbox --check     # exit 0 when this machine can confine a kernel

:mod:`rmqlab.course.sandboxed_execute` starts autograde kernels this way. Where Linux forbids unprivileged user
namespaces, confinement fails closed: :class:`SandboxUnavailable` says which setting to change, and the kernel
never runs unconfined unless the teacher opts out in ``nbgrader_config.py`` (docs/classroom.md).
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["OPT_OUT", "SandboxUnavailable", "check", "confine", "main"]

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
"""Flags of ``unshare(2)`` and ``mount(2)`` (``<sched.h>``, ``<sys/mount.h>``); Python 3.11 has no ``os.unshare``."""

ALWAYS_HIDDEN = ("/tmp", "/proc")
"""Hidden in every sandbox, whatever the caller asks: another user's scratch files, and other processes' views."""

CONNECTION_DIR = "/tmp/rmqlab-sandbox"
"""Where the kernel finds its connection file when the original lies in a hidden folder (the teacher's runtime dir)."""

OPT_OUT = "c.SandboxedExecute.confine = False"
"""The line of ``nbgrader_config.py`` that autogrades unconfined, as nbgrader does by default: an explicit choice."""


class SandboxUnavailable(RuntimeError):
    """This machine cannot confine a kernel: the message says why, which setting allows it, and how to opt out."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _unshare(flags: int) -> None:
    if _libc().unshare(flags) != 0:
        number = ctypes.get_errno()
        raise SandboxUnavailable(
            f"the autograde sandbox cannot create a user namespace ({errno.errorcode.get(number, number)}: "
            f"{os.strerror(number)}). Linux allows unprivileged user namespaces when sysctl "
            "user.max_user_namespaces is above 0 and, on Debian/Ubuntu kernels, kernel.unprivileged_userns_clone = 1 "
            "(Ubuntu 24.04 also needs kernel.apparmor_restrict_unprivileged_userns = 0); in a container, its seccomp "
            "profile must allow unshare. Until then submissions are not autograded. To autograde unconfined anyway "
            f"(each submission's code can then read and change your files), put `{OPT_OUT}` in nbgrader_config.py."
        )


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = _libc().mount(
        source.encode(), target.encode(), fstype.encode() if fstype else None, flags, data.encode() if data else None
    )
    if result != 0:
        number = ctypes.get_errno()
        raise SandboxUnavailable(f"the autograde sandbox cannot mount {source} on {target}: {os.strerror(number)}")


def _write_at(proc: int, name: str, text: str) -> None:
    handle = os.open(name, os.O_WRONLY, dir_fd=proc)
    try:
        os.write(handle, text.encode())
    finally:
        os.close(handle)


def _enter_user_namespace(proc: int) -> None:
    """A new user + mount namespace in which this process keeps its own user and group ids (and may mount).

    ``proc`` is a handle on the real ``/proc``: the second time, the path ``/proc`` is already covered."""
    uid, gid = os.getuid(), os.getgid()
    _unshare(CLONE_NEWUSER | CLONE_NEWNS)
    _write_at(proc, "self/setgroups", "deny")  # required before an unprivileged gid_map
    _write_at(proc, "self/uid_map", f"{uid} {uid} 1")
    _write_at(proc, "self/gid_map", f"{gid} {gid} 1")


def _is_under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def confine(hide: Sequence[str], allow: Sequence[str]) -> None:
    """Confine this process (and what it then runs) so that every folder of ``hide`` (and ``/tmp``, ``/proc``)
    looks empty, except each folder of ``allow`` (``os.getcwd()`` is always allowed), which stays where it was.

    Raises :class:`SandboxUnavailable` (nothing confined, nothing to run) when this machine allows no user
    namespaces.
    """
    cwd = os.getcwd()
    hidden = sorted({os.path.realpath(p) for p in [*hide, *ALWAYS_HIDDEN] if os.path.isdir(p)}, key=len)
    wanted = sorted({os.path.realpath(p) for p in [cwd, *allow] if os.path.isdir(p)}, key=len)
    reopen = [p for p in wanted if any(_is_under(p, h) for h in hidden)]
    if "/" in hidden:
        raise SandboxUnavailable("the autograde sandbox cannot hide / (a home or course folder at the root)")
    proc = os.open("/proc", os.O_PATH | os.O_DIRECTORY)
    try:
        _enter_user_namespace(proc)
        _mount("none", "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here leaks back into the teacher's view
        _cover(hidden, reopen)
        _enter_user_namespace(proc)  # the mounts above now belong to a more privileged namespace: cannot be undone
    finally:
        os.close(proc)
    os.chdir(cwd)  # the old working directory was the folder *under* the mounts


def _cover(hidden: Sequence[str], reopen: Sequence[str]) -> None:
    """Mount an empty tmpfs on each hidden folder, then bind each folder of ``reopen`` back at its own path."""
    # An O_PATH handle keeps each allowed folder reachable once its path is covered: bound back from /proc/self/fd.
    handles = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in reopen}
    for path in hidden:
        if path != "/proc" and os.path.isdir(path):  # a folder inside one hidden before is gone already
            _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=64m,mode=0755")
    for path, handle in handles.items():
        os.makedirs(path, exist_ok=True)
        _mount(f"/proc/self/fd/{handle}", path, None, MS_BIND | MS_REC)
        os.close(handle)
    _mount("tmpfs", "/proc", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0555")  # last: the handles needed it


def check() -> None:
    """Raise :class:`SandboxUnavailable` unless this machine can confine a kernel: an empty Python program is run in
    the sandbox, in a new process (a process cannot leave the namespaces it entered, and forking a threaded server
    is unsafe)."""
    command = [sys.executable, "-m", "rmqlab.course.sandbox", "--", sys.executable, "-c", ""]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        message = done.stderr.strip().removeprefix("rmqlab sandbox: ")
        raise SandboxUnavailable(message or f"the autograde sandbox failed to start (exit code {done.returncode})")


def _connection_files(command: list[str], hidden: Sequence[str]) -> dict[int, tuple[str, bytes]]:
    """The arguments that name a file in a hidden folder by its absolute path (the kernel's connection file, in the
    teacher's runtime folder): index → (name, content), copied into the sandbox's own /tmp before the kernel starts."""
    found: dict[int, tuple[str, bytes]] = {}
    folders = [os.path.realpath(h) for h in [*hidden, *ALWAYS_HIDDEN]]
    for i, arg in enumerate(command):
        real = os.path.realpath(arg)
        if os.path.isabs(arg) and os.path.isfile(real) and any(_is_under(real, folder) for folder in folders):
            found[i] = (os.path.basename(real), Path(real).read_bytes())
    return found


def main(argv: Sequence[str]) -> int:
    args = list(argv)
    if args == ["--check"]:
        try:
            check()
        except SandboxUnavailable as why:
            print(f"rmqlab sandbox: {why}", file=sys.stderr)
            return 1
        print("rmqlab sandbox: this machine can confine autograde kernels")
        return 0
    if "--" not in args or args.index("--") == len(args) - 1:
        print("usage: python -m rmqlab.course.sandbox [--hide PATH ...] [--allow PATH ...] -- COMMAND ...",
              file=sys.stderr)  # fmt: skip
        return 2
    split = args.index("--")
    options, command = args[:split], args[split + 1 :]
    hide = [options[i + 1] for i, o in enumerate(options[:-1]) if o == "--hide"]
    allow = [options[i + 1] for i, o in enumerate(options[:-1]) if o == "--allow"]
    allow += [sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    allow.append(str(Path(__file__).resolve().parents[1]))  # the rmqlab package the labs import (only it)
    if command[0] in {"python", "python3"}:
        command[0] = sys.executable  # what jupyter_client does for the kernelspec's first word
    moved = _connection_files(command, hide)
    try:
        confine(hide=hide, allow=allow)
    except (SandboxUnavailable, OSError) as why:
        print(f"rmqlab sandbox: {why}", file=sys.stderr)
        return 1
    for i, (name, content) in moved.items():
        os.makedirs(CONNECTION_DIR, exist_ok=True)
        command[i] = os.path.join(CONNECTION_DIR, name)
        Path(command[i]).write_bytes(content)
    executable = shutil.which(command[0]) or command[0]
    os.execv(executable, command)  # the kernel replaces this process: jupyter_client's pid and signals reach it


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
