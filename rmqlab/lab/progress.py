"""A progress bar on stderr for long ``rmqlab run``\\ s (a week of virtual time can take minutes of wall time).

The run is cut into slices of virtual time (1/100 of the horizon each) and the bar redrawn after each, once the run
has taken more than a second and only when the stream is a terminal: piped or redirected output stays clean, and a
short run prints nothing. Slicing changes nothing in the run: ``run(until=t)`` runs every event up to and including
``t`` and the next slice goes on from there, so the trace is the same byte for byte.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from ..core.duration import format_duration
from .lab import Lab

__all__ = ["BAR_WIDTH", "SLICES", "run_with_progress"]

SLICES = 100
BAR_WIDTH = 30
SHOW_AFTER_S = 1.0
"""No bar for a run shorter than this (wall time): most scenarios finish well under it."""


def run_with_progress(lab: Lab, until: int, stream: TextIO, *, clock: Callable[[], float] = time.monotonic) -> Lab:
    """``lab.run(until=until)``, drawing a bar on ``stream`` if it is a terminal and the run takes over a second."""
    if not stream.isatty():
        return lab.run(until=until)
    started = clock()
    start_ms = lab.now
    span = max(until - start_ms, 1)
    shown = False
    for i in range(1, SLICES + 1):
        lab.run(until=start_ms + span * i // SLICES)
        elapsed = clock() - started
        if elapsed >= SHOW_AFTER_S or shown:
            stream.write("\r" + bar(lab.now - start_ms, span, elapsed))
            stream.flush()
            shown = True
    if shown:
        stream.write("\r" + " " * (BAR_WIDTH + 60) + "\r")  # leave the terminal line clean for the output
        stream.flush()
    return lab


def bar(done_ms: int, span_ms: int, elapsed_s: float) -> str:
    """``[##########--------------------]  33% · 2 h 20 m of 7 h virtual · 12 s``."""
    filled = BAR_WIDTH * done_ms // span_ms
    percent = 100 * done_ms // span_ms
    return (
        f"[{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {percent:3d}% · {format_duration(done_ms)} of "
        f"{format_duration(span_ms)} virtual · {elapsed_s:.0f} s"
    )
