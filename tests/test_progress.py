"""``rmqlab run``'s progress bar (issue 34 item 5): on a terminal, past one second of wall time; same run."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest

from rmqlab import load_scenario
from rmqlab.lab.progress import bar, run_with_progress

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCENARIO = EXAMPLES / "delay_offset_lost_in_crash.yaml"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _trace(lab: object) -> str:
    return lab.trace.to_jsonl()  # type: ignore[attr-defined]


def test_a_slow_run_on_a_terminal_draws_a_bar_and_the_trace_is_the_same() -> None:
    scenario = load_scenario(SCENARIO)
    straight = scenario.run()
    ticks = itertools.count(0.0, 0.5)  # each slice "takes" half a second
    stream = Terminal()
    lab = run_with_progress(scenario.build(), scenario.run_until_ms, stream, clock=lambda: next(ticks))
    assert _trace(lab) == _trace(straight) and lab.now == straight.now
    frames = stream.getvalue().split("\r")
    assert frames[1].startswith("[") and " 2% · " in frames[1]  # first drawn once a second has passed
    assert "100% · " in frames[-3] and frames[-1] == ""  # the last frame, then the line is cleared


def test_a_fast_run_or_a_pipe_prints_nothing() -> None:
    scenario = load_scenario(SCENARIO)
    stream = Terminal()
    run_with_progress(scenario.build(), scenario.run_until_ms, stream, clock=lambda: 0.0)
    assert stream.getvalue() == ""
    pipe = io.StringIO()
    run_with_progress(scenario.build(), scenario.run_until_ms, pipe, clock=itertools.count(0.0, 5.0).__next__)
    assert pipe.getvalue() == ""


def test_the_bar_reads_as_a_fraction_of_virtual_time() -> None:
    assert bar(7_200_000, 25_200_000, 12.4) == "[########----------------------]  28% · 2 h of 7 h virtual · 12 s"


def test_rmqlab_run_draws_the_bar_on_a_terminal_and_prints_the_same_timeline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI wiring: ``rmqlab run`` hands its stderr to the bar (a run past the threshold on a terminal draws it),
    and stdout is the same timeline as with stderr piped. The threshold is lowered to 0 s so the test needs no slow
    run."""
    from rmqlab.lab import cli, progress

    monkeypatch.setattr(progress, "SHOW_AFTER_S", 0.0)
    piped_out, piped_err = io.StringIO(), io.StringIO()
    assert cli.main(["run", str(SCENARIO)], stdout=piped_out, stderr=piped_err) == 0
    assert piped_err.getvalue() == ""
    out, err = io.StringIO(), Terminal()
    assert cli.main(["run", str(SCENARIO)], stdout=out, stderr=err) == 0
    frames = err.getvalue().split("\r")
    assert frames[1].startswith("[") and "  1% · " in frames[1]
    assert "100% · " in frames[-3] and frames[-2].strip() == "" and frames[-1] == ""
    assert out.getvalue() == piped_out.getvalue()
