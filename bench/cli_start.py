"""How long the command line takes to start (issue 35, item 5): ``rmqlab --version``, ``schema``, ``run``.

    python -m bench.cli_start                       # 15 runs of each command, this checkout (python -m rmqlab)
    python -m bench.cli_start --installed /tmp/venv/bin/rmqlab   # a pip-installed rmqlab's own script
    python -m bench.cli_start --runs 30 --json out.json

Each command runs ``--runs`` times in a fresh interpreter, as a student types it: ``python -m rmqlab`` with this
checkout first on ``PYTHONPATH``, or with ``--installed`` the ``rmqlab`` script of an environment rmqlab was
pip-installed into (no checkout on the path, no editable-install import hook). Wall
time is what a person waits for; CPU time (user + system of the child) is what stays comparable on a busy machine,
where wall time also counts the time spent waiting for a core. The first row, ``python -c pass``, is the floor: the
interpreter and ``site`` alone. bench/README.md has the figures; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "ack_index_split.yaml"


def commands(installed: Path | None) -> dict[str, list[str]]:
    rmqlab = [str(installed)] if installed else [sys.executable, "-m", "rmqlab"]
    python = str(installed.parent / "python") if installed else sys.executable
    return {
        "python -c pass": [python, "-c", "pass"],
        "rmqlab --version": [*rmqlab, "--version"],
        "rmqlab schema": [*rmqlab, "schema"],
        "rmqlab run examples/ack_index_split.yaml": [*rmqlab, "run", str(EXAMPLE)],
    }


def time_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (CPU: the child's user + system time, from getrusage)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command (default 15)")
    parser.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    parser.add_argument("--installed", type=Path, metavar="SCRIPT", help="an installed rmqlab script to measure")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs {args.runs}: must be at least 1")
    if args.installed and not (args.installed.is_file() and (args.installed.parent / "python").exists()):
        parser.error(f"--installed {args.installed}: not a script beside a python (give VENV/bin/rmqlab)")
    if args.installed:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    else:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    load = os.getloadavg()[0]
    what = args.installed or f"python -m rmqlab from {ROOT}"
    print(f"{args.runs} runs each; load average {load:.2f} on {os.cpu_count()} cores; {what}")
    print(f"{'command':44} {'wall min':>9} {'wall med':>9} {'cpu min':>9} {'cpu med':>9}")
    figures = {}
    for name, command in commands(args.installed).items():
        time_once(command, env)  # warm the page cache and .pyc files
        runs = [time_once(command, env) for _ in range(args.runs)]
        walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
        figures[name] = {"wall_min": min(walls), "wall_median": statistics.median(walls), "cpu_min": min(cpus),
                         "cpu_median": statistics.median(cpus)}  # fmt: skip
        row = figures[name]
        print(f"{name:44} {row['wall_min']:9.3f} {row['wall_median']:9.3f} {row['cpu_min']:9.3f} "
              f"{row['cpu_median']:9.3f}")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": args.runs, "load": load, "figures": figures}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
