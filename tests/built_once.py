"""Artefacts of this tree that several test files need, built once per test run and shared.

``make test`` runs two xdist workers; a session fixture is built once per *worker*, so two files that each build
the same wheel on different workers built it twice. Here the first worker to ask builds it, under a file lock in
the run's shared temporary directory (the parent of each worker's own), and every later ask, from either worker,
reuses that file. A plain ``pytest`` run (no workers) builds it once in its own temporary directory.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary directory every worker of this run shares (``pytest-N``), or this session's own."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def rmqlab_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip wheel . --no-deps`` of this tree (what every environment, the hub image and the Lite site install),
    built once per run: tests/test_leaks.py searches it, tests/browser/test_lite.py builds the site with it."""
    shared = run_dir(tmp_path_factory)
    done = shared / "rmqlab-wheel"
    with open(shared / "rmqlab-wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker waits here while the first one builds
        if not any(done.glob("rmqlab-*.whl")):
            part = shared / "rmqlab-wheel.part"
            shutil.rmtree(part, ignore_errors=True)
            made = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(part),
                                   str(ROOT)], capture_output=True, text=True, timeout=600)  # fmt: skip
            assert made.returncode == 0, made.stderr
            part.rename(done)
    return next(done.glob("rmqlab-*.whl"))
