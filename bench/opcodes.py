"""Where the engine's work goes, function by function: executed Python bytecodes per message, trace off.

cProfile adds the same cost to every call, so a function that calls a lot looks heavier than it is; wall time
wanders with the load. Counting executed bytecodes (``sys.settrace`` with opcode events) is exact and
repeatable whatever the machine is doing, and differencing two storm sizes,

    (count(3n) − count(n)) / 2n

cancels the fixed cost, as :mod:`bench.instructions` does for machine instructions. It sees only Python code:
work inside C (building a keyword dict, ``str.encode``, a ``dict`` copy) costs instructions but no bytecodes,
so read the table as "which Python functions run how often and how long", and :mod:`bench.instructions` for
the total. Dataclass and named-tuple methods (compiled from ``<string>``) are named by their class.

    python -m bench.opcodes --n 500 --top 40                         # about 40 s on an idle core
    python -m bench.opcodes --n 500 --model simpy_pipeline           # the SimPy pipeline model, same table
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable
from types import FrameType
from typing import Any

from bench.baseline_simpy_pipeline import run_pipeline
from bench.engine_storm import run_engine

__all__ = ["MODELS", "count_bytecodes", "function_key", "per_message_table"]

MODELS: dict[str, Callable[[int], object]] = {
    "engine": lambda n: run_engine(n, trace=False),
    "simpy_pipeline": run_pipeline,
}
"""The models whose bytecodes can be counted: the engine with its trace off, and its SimPy reference."""


def function_key(frame: FrameType) -> str:
    """``file.py:function``; for generated code (``<string>``) the class it belongs to as well."""
    code = frame.f_code
    key = f"{code.co_filename.rsplit('/', 1)[-1]}:{code.co_name}"
    if code.co_filename == "<string>":
        owner = frame.f_locals.get("self", frame.f_locals.get("_cls"))
        owner_type = owner if isinstance(owner, type) else type(owner)
        key += f"[{owner_type.__name__}]"
    return key


def count_bytecodes(run: Callable[[], Any]) -> Counter[str]:
    """Executed bytecodes per function while ``run()`` runs (tracing is switched off again afterwards)."""
    counts: Counter[str] = Counter()

    def on_call(frame: FrameType, _event: str, _arg: Any) -> Callable[..., Any]:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        key = function_key(frame)

        def on_opcode(_frame: FrameType, event: str, _arg: Any) -> Callable[..., Any]:
            if event == "opcode":
                counts[key] += 1
            return on_opcode

        return on_opcode

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        run()
    finally:
        sys.settrace(previous)
    return counts


def per_message_table(small: Counter[str], large: Counter[str], extra_messages: int) -> list[tuple[str, float]]:
    """Bytecodes per extra message, per function, largest first (ties by name, so the order is stable)."""
    if extra_messages <= 0:
        raise ValueError(f"extra_messages={extra_messages} must be positive")
    rows = [(key, (large[key] - small[key]) / extra_messages) for key in set(small) | set(large)]
    return sorted(rows, key=lambda row: (-row[1], row[0]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500, help="the small storm; the large one is 3n")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--model", choices=sorted(MODELS), default="engine")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error(f"--n must be at least 1, got {args.n}")
    run = MODELS[args.model]
    small = count_bytecodes(lambda: run(args.n))
    large = count_bytecodes(lambda: run(3 * args.n))
    table = per_message_table(small, large, 2 * args.n)
    total = sum(value for _key, value in table)
    what = "engine, trace off" if args.model == "engine" else args.model
    print(f"{what}: executed bytecodes per message: {total:,.0f}")
    for key, value in table[: args.top]:
        print(f"{value:9.1f} {100 * value / total:5.1f}%  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
