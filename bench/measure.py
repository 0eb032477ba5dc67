"""One measurement per child process, so that peak RSS figures never mix and each run starts cold.

The parent calls :func:`measure`; it starts ``python -m bench.measure --model ... --json`` and reads
back one JSON line. In the child, ``rss_before`` is taken after imports and before the model is
built, so ``peak_rss - rss_before`` is what the run itself added (``ru_maxrss`` is a high-water
mark, which is why every measurement needs its own process).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.workload import Totals, expected

__all__ = ["MODELS", "Measurement", "child_env", "measure", "peak_rss_bytes"]

MODELS = ("heapq", "simpy", "simpy_pipeline", "simpy_pipeline_nogc", "engine", "engine_gc")
REPO_ROOT = Path(__file__).resolve().parent.parent


def peak_rss_bytes() -> int:
    """High-water resident set size of this process (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


@dataclass(frozen=True, slots=True)
class Measurement:
    """The result of one child run."""

    model: str
    n: int
    trace: bool
    body_size: int
    wall_s: float
    cpu_s: float
    """Process CPU time of the run: steadier than wall time when other jobs share the machine."""
    rss_before: int
    peak_rss: int
    totals: Totals
    ok: bool
    extra: dict[str, Any]

    @property
    def run_rss(self) -> int:
        """Bytes the run added on top of the interpreter and imports."""
        return self.peak_rss - self.rss_before

    @property
    def us_per_message(self) -> float:
        """CPU µs per published message."""
        return self.cpu_s / self.n * 1e6 if self.n else 0.0


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a child run: this one, with this checkout first on ``PYTHONPATH`` (plus ``extra``)."""
    path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, **extra}


def measure(model: str, n: int, *, trace: bool = True, body_size: int = 10, timeout_s: float = 3600) -> Measurement:
    """Run one model in a fresh interpreter and return what it measured."""
    cmd = [sys.executable, "-m", "bench.measure", "--model", model, "--n", str(n), "--body-size", str(body_size)]
    cmd += ["--trace", "on" if trace else "off"]
    env = child_env()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=REPO_ROOT, env=env, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return Measurement(**data)


def _run_model(model: str, n: int, trace: bool, body_size: int) -> tuple[Totals, dict[str, Any]]:
    if model == "heapq":
        from bench.baseline_heapq import run_heapq

        return run_heapq(n), {}
    if model == "simpy":
        from bench.baseline_simpy import run_simpy

        return run_simpy(n), {}
    if model in ("simpy_pipeline", "simpy_pipeline_nogc"):
        from bench.baseline_simpy_pipeline import run_pipeline

        pipeline = run_pipeline(n, pause_gc=model == "simpy_pipeline_nogc")
        extra = {
            "last_first_poison_ms": pipeline.last_first_poison_ms,
            "dlq_times": {str(t): c for t, c in pipeline.dlq_times.items()},
        }
        return pipeline.totals, extra
    if model in ("engine", "engine_gc"):
        from bench.engine_storm import run_engine

        # "engine" pauses the cyclic GC around lab.run as simpy_pipeline_nogc does around env.run;
        # "engine_gc" leaves it on, as in a notebook, to compare with simpy_pipeline.
        run = run_engine(n, trace=trace, body_size=body_size, pause_gc=model == "engine")
        extra = {
            "scheduler_steps": run.scheduler_steps,
            "trace_events": run.trace_events,
            "dlq_times": run.dlq_times,
        }
        return run.totals, extra
    raise ValueError(f"model must be one of {MODELS}, got {model!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run one benchmark model and print one JSON line.")
    parser.add_argument("--model", choices=MODELS, required=True)
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--trace", choices=("on", "off"), default="on")
    parser.add_argument("--body-size", type=int, default=10)
    args = parser.parse_args(argv)
    # Import the model's modules before the baseline RSS reading, so imports are not counted.
    import bench.baseline_heapq
    import bench.baseline_simpy
    import bench.baseline_simpy_pipeline
    import bench.engine_storm  # noqa: F401

    rss_before = peak_rss_bytes()
    started, cpu_started = time.perf_counter(), time.process_time()
    totals, extra = _run_model(args.model, args.n, args.trace == "on", args.body_size)
    wall_s, cpu_s = time.perf_counter() - started, time.process_time() - cpu_started
    want = expected(args.n)
    ok = totals == want
    if args.model in ("engine", "engine_gc", "simpy_pipeline", "simpy_pipeline_nogc"):
        # Both models have pull flow control, so their timestamps may legitimately differ from the
        # oracle's (see README and baseline_simpy_pipeline's docstring); counts may not.
        ok = all(totals[k] == want[k] for k in ("consumed", "dlq", "deliveries"))  # type: ignore[literal-required]
    record = {
        "model": args.model,
        "n": args.n,
        "trace": args.trace == "on",
        "body_size": args.body_size,
        "wall_s": wall_s,
        "cpu_s": cpu_s,
        "rss_before": rss_before,
        "peak_rss": peak_rss_bytes(),
        "totals": totals,
        "ok": ok,
        "extra": extra,
    }
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
