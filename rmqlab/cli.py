"""``rmqlab`` on the command line: ``run FILE [--json]``, ``validate FILE`` and ``schema``.

Exit codes: 0 ok, 2 a bad scenario or bad arguments (one line on stderr naming the field path), 1 the
engine refused to go on (a :class:`SimulationError`). Bad input never prints a Python traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from .errors import ConfigError, SimulationError
from .report import build_report, format_timeline
from .scenario import _schema_text, load_scenario

__all__ = ["main", "report_json"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def report_json(report: dict[str, object]) -> str:
    """The ``--json`` text: one object, two-space indent, a final newline (stable byte for byte)."""
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rmqlab", description="Run RocketMQ reliability scenarios in virtual time.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="run a scenario and print its timeline (or --json report)")
    run.add_argument("file", help="a scenario .json or .yaml file")
    run.add_argument("--json", action="store_true", help="print one JSON object instead of the timeline")
    validate = commands.add_parser("validate", help="check a scenario file without running it")
    validate.add_argument("file", help="a scenario .json or .yaml file")
    commands.add_parser("schema", help="print the scenario JSON Schema")
    return parser


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point of ``python -m rmqlab`` and the ``rmqlab`` console script; returns the exit code."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse already printed its usage message
        return EXIT_OK if exc.code in (0, None) else EXIT_BAD_INPUT
    if args.command == "schema":
        out.write(_schema_text())
        return EXIT_OK
    try:
        scenario = load_scenario(args.file)
        if args.command == "validate":
            out.write(f"ok: {args.file}: scenario {scenario.name!r} is valid\n")
            return EXIT_OK
        lab = scenario.run()
    except ConfigError as exc:
        err.write(f"rmqlab: error: {args.file}: {exc}\n")
        return EXIT_BAD_INPUT
    except SimulationError as exc:
        err.write(f"rmqlab: simulation error: {args.file}: {exc}\n")
        return EXIT_FAILED
    if args.json:
        out.write(report_json(build_report(lab)))
    else:
        out.write(f"# {scenario.name}: {scenario.description}\n" if scenario.description else f"# {scenario.name}\n")
        out.write(format_timeline(lab))
    return EXIT_OK
