"""Beyond instructions: cache misses and mispredicted branches per message, by cachegrind's simulation.

Instructions per message (:mod:`bench.instructions`) are the figure that does not wander with the load, but
they are not the CPU time: two programs with the same instruction count can differ by how often they miss the
first-level caches and how often the processor guesses a branch wrong. In CPython most indirect branches are the
interpreter's jump to the next bytecode's code, so code that runs many different functions, each a short while,
mispredicts more than code that spins in a few. This module measures that, per model, the same way
:mod:`bench.instructions` measures instructions: two runs under ``valgrind --tool=cachegrind --cache-sim=yes
--branch-sim=yes`` at ``--small`` and ``--large`` messages, each event per message as
(E(large) − E(small)) / (large − small), ``PYTHONHASHSEED=0``, every ``.pyc`` compiled first.

Cachegrind simulates two cache levels (the first-level instruction and data caches, and one last level, sized
like this machine's by default) and a simple branch predictor; its counts are exact for that model, not for the
processor. The "cycles" column is a rough weighting of them — one per instruction, 10 per first-level miss, 100
per last-level miss, 15 per mispredicted branch — to show which of the counts matter; the counts themselves are
the result.

    python -m bench.microarch                                        # engine and SimPy pipeline, trace off
    python -m bench.microarch --model engine --small 2000 --large 6000
    python -m bench.microarch --ll-kib 512                           # a last level the size of this L2
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass

from bench.instructions import per_message, run_at_both_sizes
from bench.measure import MODELS

__all__ = ["CYCLE_WEIGHTS", "EventCounts", "count_events", "derived", "summary_events"]

_LINE = re.compile(r"^(events|summary):\s+(.+)$", re.MULTILINE)

CYCLE_WEIGHTS = {"instructions": 1, "L1 misses": 10, "LL misses": 100, "mispredicts": 15}
"""The rough weights of the "cycles" estimate (see the module's docstring): not measured, a reading aid."""


def summary_events(cachegrind_out: str) -> dict[str, int]:
    """The run's totals by event name (``Ir``, ``D1mr``, ``Bim`` …) from a cachegrind output file."""
    found = dict(_LINE.findall(cachegrind_out))
    if "events" not in found or "summary" not in found:
        raise ValueError("no 'events:' and 'summary:' lines: not a cachegrind output file")
    names, values = found["events"].split(), found["summary"].split()
    if len(names) != len(values):
        raise ValueError(f"{len(names)} event names but {len(values)} totals in the summary")
    return dict(zip(names, map(int, values), strict=True))


def derived(events: dict[str, float]) -> dict[str, float]:
    """Cachegrind's events grouped as the table prints them, plus the weighted "cycles" estimate.

    Needs a run with ``--cache-sim=yes --branch-sim=yes`` (every event of both simulations present).
    """
    groups = {
        "instructions": events["Ir"],
        "L1 misses": events["I1mr"] + events["D1mr"] + events["D1mw"],
        "LL misses": events["ILmr"] + events["DLmr"] + events["DLmw"],
        "mispredicts": events["Bcm"] + events["Bim"],
        "indirect mispredicts": events["Bim"],
    }
    groups["cycles (estimate)"] = sum(weight * groups[name] for name, weight in CYCLE_WEIGHTS.items())
    return groups


@dataclass(frozen=True, slots=True)
class EventCounts:
    """Cachegrind's totals of one model at two sizes."""

    model: str
    trace: bool
    small: int
    large: int
    small_events: dict[str, int]
    large_events: dict[str, int]

    @property
    def per_message(self) -> dict[str, float]:
        """Each event's slope between the two runs: what one more message costs."""
        return {
            name: per_message(self.small, self.small_events[name], self.large, self.large_events[name])
            for name in self.small_events
        }


def count_events(
    model: str, *, trace: bool = False, small: int = 2000, large: int = 6000, ll_kib: int | None = None
) -> EventCounts:
    """Run ``model`` under cachegrind at both sizes (the two runs in parallel) and return its totals.

    ``ll_kib`` sizes the simulated last-level cache (8-way, 64-byte lines); ``None`` keeps cachegrind's choice,
    this machine's largest cache. A size like the second-level cache shows misses the first choice hides.
    """
    if ll_kib is not None and (ll_kib < 64 or ll_kib & (ll_kib - 1)):
        raise ValueError(f"ll_kib={ll_kib} must be a power of two of at least 64 (KiB)")
    tool = ["--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes"]
    if ll_kib is not None:
        tool.append(f"--LL={ll_kib * 1024},8,64")
    small_out, large_out = run_at_both_sizes(tool, model, trace=trace, small=small, large=large)
    return EventCounts(model, trace, small, large, summary_events(small_out), summary_events(large_out))


def table(counts: list[EventCounts]) -> str:
    """Per-message figures, one column per model, and each model's ratio to the last one."""
    rows = [derived(count.per_message) for count in counts]
    names = list(rows[0])
    header = ["per message", *[count.model for count in counts]]
    if len(counts) > 1:
        header += [f"{count.model} / {counts[-1].model}" for count in counts[:-1]]
    lines = [" | ".join(header), " | ".join("---" for _ in header)]
    for name in names:
        cells = [name, *[f"{row[name]:,.0f}" for row in rows]]
        cells += [f"{row[name] / rows[-1][name]:.2f}×" if rows[-1][name] else "–" for row in rows[:-1]]
        lines.append(" | ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", choices=MODELS, help="repeatable; default: engine, SimPy pipeline")
    parser.add_argument("--trace", choices=("on", "off"), default="off")
    parser.add_argument("--small", type=int, default=2000)
    parser.add_argument("--large", type=int, default=6000)
    parser.add_argument("--ll-kib", type=int, help="simulated last-level cache size in KiB (default: the machine's)")
    args = parser.parse_args(argv)
    models = args.model or ["engine", "simpy_pipeline_nogc"]
    counts = [
        count_events(m, trace=args.trace == "on", small=args.small, large=args.large, ll_kib=args.ll_kib)
        for m in models
    ]
    print(table(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
