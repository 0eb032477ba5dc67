"""The README's code does what the README says: its Python blocks run and print the text shown under them,
and every ``.venv/bin/rmqlab`` command in it exits 0 (run with this interpreter, from the repository root)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def blocks(language: str) -> list[str]:
    """The README's fenced blocks of ``language``, in order."""
    return [body for lang, body in FENCE.findall((ROOT / "README.md").read_text()) if lang == language]


def test_the_first_example_prints_what_its_comment_promises() -> None:
    """3 deliveries at 0 s, 10 s and 40 s, then %DLQ%cg — printed, and as shown (the whole output: the README
    no longer shows the full 16-retry schedule, whose total is lab 03's first exercise)."""
    first = blocks("python")[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(first, "README.md[first run]", "exec"), {"__name__": "__readme__"})
    printed = out.getvalue().splitlines()
    # an event's first line: time (16 columns), 2 spaces, actor (24), kind (18), message id, details
    events = [(line[:16].strip(), line[43:61].strip(), line[62:].split()[:2]) for line in printed[:-1]
              if not line.startswith(" " * 18)]  # fmt: skip
    delivered = [time for time, kind, _ in events if kind == "delivered"]
    assert delivered == ["0 ms", "10 s", "40 s"]
    assert events[-1] == ("40 s", "dead_lettered", ["M0001", "topic=%DLQ%cg"])
    assert printed[-1] == "3 deliveries · 0 consumed · %DLQ%cg: 1 · ended at 10 m"
    assert printed == blocks("text")[0].splitlines()


def _commands() -> list[list[str]]:
    found = []
    for block in blocks("bash"):
        for line in block.splitlines():
            if line.startswith(".venv/bin/rmqlab "):
                found.append(shlex.split(line.split("#", 1)[0])[1:])
    return found


@pytest.mark.parametrize("args", _commands(), ids=" ".join)
def test_every_rmqlab_command_in_the_readme_runs(args: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "rmqlab", *args], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout and proc.stderr == ""


def test_the_readme_names_the_commands_it_tests() -> None:
    assert len(_commands()) >= 6
