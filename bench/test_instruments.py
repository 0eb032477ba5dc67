"""Checks of the counting instruments: bytecodes per function (``opcodes``), instructions (``instructions``), and
cache misses and mispredicted branches (``microarch``)."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest

from bench.instructions import count_instructions, per_message, total_instructions
from bench.microarch import EventCounts, count_events, derived, summary_events, table
from bench.opcodes import count_bytecodes, per_message_table


def spin(k: int) -> int:
    total = 0
    for i in range(k):
        total += i
    return total


@dataclass
class Point:
    x: int
    y: int


def test_bytecodes_per_extra_iteration_are_exact_and_fixed_cost_cancels() -> None:
    """Three runs of ``spin``: the slope between 10 and 30 iterations equals the slope between 30 and 50."""
    c10, c30, c50 = (count_bytecodes(lambda k=k: spin(k)) for k in (10, 30, 50))
    key = "test_instruments.py:spin"
    slope = dict(per_message_table(c10, c30, 20))[key]
    assert slope == dict(per_message_table(c30, c50, 20))[key]
    assert slope == int(slope) and slope >= 4  # FOR_ITER, STORE, LOAD, LOAD, BINARY_OP, STORE, JUMP … per turn
    assert c10[key] > 0


def test_generated_methods_are_named_by_their_class_and_tracing_is_restored() -> None:
    before = sys.gettrace()
    counts = count_bytecodes(lambda: [Point(i, i) for i in range(3)])
    assert sys.gettrace() is before
    assert counts["<string>:__init__[Point]"] > 0


def test_table_order_is_largest_first_then_by_name() -> None:
    from collections import Counter

    small, large = Counter({"b": 1, "a": 1, "c": 0}), Counter({"b": 5, "a": 5, "c": 9})
    assert per_message_table(small, large, 2) == [("c", 4.5), ("a", 2.0), ("b", 2.0)]
    with pytest.raises(ValueError, match="extra_messages=0"):
        per_message_table(small, large, 0)


def test_instruction_totals_are_read_from_callgrind_output() -> None:
    out = "version: 1\ncmd: python -m bench.measure\nevents: Ir\nsummary: 3884647443\n"
    assert total_instructions(out) == 3_884_647_443
    assert total_instructions("events: Ir\ntotals: 12\n") == 12
    with pytest.raises(ValueError, match="not a callgrind output"):
        total_instructions("no totals here")
    assert per_message(2000, 3_884_647_443, 6000, 6_804_295_159) == pytest.approx(729_911.9, abs=0.1)


def test_bad_sizes_and_models_are_refused_before_anything_runs() -> None:
    with pytest.raises(ValueError, match="large=2000 must be greater than small=2000"):
        per_message(2000, 0, 2000, 0)
    with pytest.raises(ValueError, match="model='enigne' is not one of"):
        count_instructions("enigne")


CACHEGRIND_SUMMARY = (
    "desc: I1 cache: 65536 B, 64 B, 4-way associative\n"
    "cmd: python -m bench.measure --model engine --n 2000\n"
    "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
    "fl=x.c\nfn=f\n1 2 3\n"
    "summary: 1000 20 1 400 30 2 100 5 3 200 10 50 25\n"
)


def test_cachegrind_events_are_read_by_name_and_grouped() -> None:
    events = summary_events(CACHEGRIND_SUMMARY)
    assert events["Ir"] == 1000 and events["D1mr"] == 30 and events["Bim"] == 25
    groups = derived({name: float(value) for name, value in events.items()})
    assert groups["L1 misses"] == 20 + 30 + 5
    assert groups["LL misses"] == 1 + 2 + 3
    assert groups["mispredicts"] == 10 + 25 and groups["indirect mispredicts"] == 25
    assert groups["cycles (estimate)"] == 1000 + 10 * 55 + 100 * 6 + 15 * 35
    with pytest.raises(ValueError, match="not a cachegrind output"):
        summary_events("events: Ir\n")
    with pytest.raises(ValueError, match="2 event names but 1 totals"):
        summary_events("events: Ir Bc\nsummary: 5\n")


def test_cachegrind_events_per_message_and_the_ratio_table() -> None:
    small = summary_events(CACHEGRIND_SUMMARY)
    engine = EventCounts("engine", False, 2000, 6000, small, {n: v + 4000 * v for n, v in small.items()})
    simpy = EventCounts("simpy_pipeline_nogc", False, 2000, 6000, small, {n: v + 2000 * v for n, v in small.items()})
    assert engine.per_message["Ir"] == 1000 and simpy.per_message["Ir"] == 500
    lines = table([engine, simpy]).splitlines()
    assert lines[0] == "per message | engine | simpy_pipeline_nogc | engine / simpy_pipeline_nogc"
    assert "instructions | 1,000 | 500 | 2.00×" in lines
    assert "mispredicts | 35 | 18 | 2.00×" in lines
    with pytest.raises(ValueError, match="model='enigne' is not one of"):
        count_events("enigne")
    with pytest.raises(ValueError, match="ll_kib=500 must be a power of two"):
        count_events("engine", ll_kib=500)
