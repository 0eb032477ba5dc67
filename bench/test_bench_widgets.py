"""Checks of the dashboard-build benchmark: it finds each lab's Dashboard and times that call, not another."""

from __future__ import annotations

import pytest

from bench.bench_widgets import LABS, build_all


def test_build_finds_the_tour_dashboard_in_a_fresh_interpreter() -> None:
    """One row for the tour, with the default views, and a build time inside the cell that made it."""
    tour = sorted(LABS.glob("00_*.ipynb"))
    if not tour:
        pytest.skip("no labs/00_*.ipynb")
    [row] = build_all(tour, profile=None)
    assert row["lab"] == tour[0].name
    assert "FlowView" in row["views"] and "RetryTimeline" in row["views"]
    assert 0 < row["build_s"] <= row["cell_s"] and row["build_cpu_s"] > 0 and row["again_s"] > 0
