"""Machine instructions per message, counted by callgrind: the figure that does not wander with the load.

CPU seconds on a shared VM drift by ±25 % from run to run; instruction counts are the same to a few hundred
per message. Per model, two runs under ``valgrind --tool=callgrind`` at ``--small`` and ``--large`` messages
(2,000 and 6,000 by default), and the figure is

    (I(large) − I(small)) / (large − small)

so the fixed cost (interpreter start, imports, the 21 h of housekeeping timers after the last message) cancels.
Both runs start with ``PYTHONHASHSEED=0`` and with every ``.pyc`` of ``rmqlab``, ``bench`` and the model's
libraries compiled beforehand: otherwise one of two runs started together may pay for compiling the sources
(about 35 k "per message" in one measured pair). The models are the children of :mod:`bench.measure`, so the
GC is handled as there (paused around ``lab.run`` for ``engine``, around ``env.run`` for
``simpy_pipeline_nogc``).

    python -m bench.instructions                           # engine, trace off
    python -m bench.instructions --model simpy_pipeline_nogc --model engine
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bench.measure import MODELS, REPO_ROOT, child_env

__all__ = ["InstructionCount", "count_instructions", "per_message", "run_at_both_sizes", "total_instructions"]

_TOTAL = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class InstructionCount:
    """Instructions of one model at two sizes, and the per-message difference."""

    model: str
    trace: bool
    small: int
    large: int
    small_instructions: int
    large_instructions: int

    @property
    def per_message(self) -> float:
        return per_message(self.small, self.small_instructions, self.large, self.large_instructions)


def per_message(small: int, small_instructions: int, large: int, large_instructions: int) -> float:
    """The slope between two runs: what one more message costs, with the fixed cost cancelled."""
    if large <= small:
        raise ValueError(f"large={large} must be greater than small={small}")
    return (large_instructions - small_instructions) / (large - small)


def total_instructions(callgrind_out: str) -> int:
    """The run's instruction total, from a callgrind output file's ``summary:`` (or ``totals:``) line."""
    found = _TOTAL.search(callgrind_out)
    if found is None:
        raise ValueError("no 'summary:' or 'totals:' line: not a callgrind output file")
    return int(found.group(1))


def _precompile() -> None:
    """Compile every module the runs import, so neither run pays the compiler."""
    import simpy
    import sortedcontainers

    for folder in (REPO_ROOT / "rmqlab", REPO_ROOT / "bench"):
        compileall.compile_dir(folder, quiet=1)
    for package in (sortedcontainers, simpy):
        compileall.compile_dir(Path(package.__file__).parent, quiet=1)


def _run_valgrind(tool: list[str], model: str, n: int, trace: bool, out_dir: str) -> str:
    """Run ``model`` at ``n`` messages under ``valgrind`` with the ``tool`` options; return its output file."""
    out = os.path.join(out_dir, f"{tool[0].removeprefix('--tool=')}.{model}.{n}")
    cmd = ["valgrind", *tool, f"--{tool[0].removeprefix('--tool=')}-out-file={out}", sys.executable]
    cmd += ["-m", "bench.measure", "--model", model, "--n", str(n), "--trace", "on" if trace else "off"]
    env = child_env(PYTHONHASHSEED="0")
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO_ROOT, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return Path(out).read_text(errors="replace")


def run_at_both_sizes(tool: list[str], model: str, *, trace: bool, small: int, large: int) -> tuple[str, str]:
    """Run ``model`` under ``valgrind`` with the ``tool`` options at ``small`` and ``large`` messages (the two runs
    in parallel, every ``.pyc`` compiled first); return the two output files. Bad arguments are refused first."""
    if model not in MODELS:
        raise ValueError(f"model={model!r} is not one of {MODELS}")
    if shutil.which("valgrind") is None:
        raise RuntimeError("valgrind is not installed (Debian: apt install valgrind)")
    per_message(small, 0, large, 0)  # refuses large <= small before anything runs
    _precompile()
    with tempfile.TemporaryDirectory() as out_dir, ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(_run_valgrind, tool, model, n, trace, out_dir) for n in (small, large)]
        small_out, large_out = (run.result() for run in runs)
    return small_out, large_out


def count_instructions(model: str, *, trace: bool = False, small: int = 2000, large: int = 6000) -> InstructionCount:
    """Run ``model`` under callgrind at both sizes (the two runs in parallel) and return the counts."""
    outs = run_at_both_sizes(["--tool=callgrind"], model, trace=trace, small=small, large=large)
    small_i, large_i = (total_instructions(out) for out in outs)
    return InstructionCount(model, trace, small, large, small_i, large_i)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", choices=MODELS, help="repeatable; default: engine")
    parser.add_argument("--trace", choices=("on", "off"), default="off")
    parser.add_argument("--small", type=int, default=2000)
    parser.add_argument("--large", type=int, default=6000)
    args = parser.parse_args(argv)
    for model in args.model or ["engine"]:
        count = count_instructions(model, trace=args.trace == "on", small=args.small, large=args.large)
        print(
            f"{model} (trace {args.trace}): {count.per_message / 1000:,.1f} k instructions/message "
            f"(I({count.small:,}) = {count.small_instructions:,}, I({count.large:,}) = {count.large_instructions:,})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
