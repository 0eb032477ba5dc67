"""``rmqlab`` on the command line: ``run FILE [--json] [--msg ID] [--kind KIND] [--jsonl OUT]``, ``validate FILE``,
``schema``, ``labs [DIR] [--lang en|zh] [--teacher] [--colab] [--force]`` (:mod:`rmqlab.lab.labs_command`).

``--jsonl OUT`` saves the whole trace as JSON Lines (``Trace.to_jsonl``: the bytes ``rmqlab.widgets.export.save_jsonl``
writes from a notebook, which ``rmqlab.widgets.export.load_jsonl`` reads back); ``--jsonl -`` prints it instead of the
timeline, for ``jq`` and friends.

Exit codes: 0 ok, 2 a bad scenario or bad arguments (one line on stderr naming the field path), 1 the
engine refused to go on (a :class:`SimulationError`), or ``--msg``/``--kind`` matched no event of the run (said on
stderr, the title and summary still printed). Bad input never prints a Python traceback.

Start-up matters here (a student types ``rmqlab run`` again and again): this module imports the engine, the
scenario reader and the report only inside :func:`main`, for the command that needs them (``rmqlab`` itself
imports its names on first use), ``--version`` needs no argument parser, and :func:`console_main`, the entry of
the ``rmqlab`` script and of ``python -m rmqlab``, keeps jsonschema from importing the optional format-checker
libraries that happen to be installed (bench/cli_start.py measures it; bench/README.md has the figures).
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import argparse

__all__ = ["TIMELINE_WIDTH", "console_main", "main", "report_json", "version"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
TIMELINE_WIDTH = 100
"""Columns of the human timeline; an event's details wrap under it."""

FORMAT_CHECKER_MODULES = (
    "fqdn",
    "idna",
    "isoduration",
    "jsonpointer",
    "rfc3339_validator",
    "rfc3986_validator",
    "rfc3987",
    "rfc3987_syntax",
    "uri_template",
    "webcolors",
)
"""What ``jsonschema._format`` tries to import when jsonschema is imported. The scenario schema has no
``format`` keyword (tests/test_packaging.py checks it) and is validated without a format checker, so none
of them is ever used; in a Jupyter environment they are all installed, and ``rfc3987_syntax`` alone
compiles a grammar for over a second."""


def version() -> str:
    """The installed distribution's version (``rmqlab.__version__``)."""
    from .. import __version__

    return str(__version__)


_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with control characters and lone surrogates written as ``\\x1b`` / ``\\ud800`` escapes.

    Names come from scenario files: an ANSI escape in a consumer's name must not recolour the student's
    terminal, and a lone surrogate (legal in JSON's ``\\ud800``) cannot be encoded to UTF-8 at all.
    """
    return _UNPRINTABLE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}"


def report_json(report: dict[str, object]) -> str:
    """The ``--json`` text: one object, two-space indent, a final newline (stable byte for byte).

    Control characters are JSON escapes already; a lone surrogate is written as its ``\\udxxx`` escape.
    """
    text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    return re.sub(r"[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)


def _parser() -> argparse.ArgumentParser:
    import argparse  # not at the top: `rmqlab --version` answers without it (console_main)

    parser = argparse.ArgumentParser(prog="rmqlab", description="Run RocketMQ reliability scenarios in virtual time.")
    from ..core.trace_event import EventKind

    parser.add_argument("--version", action="version", version=f"rmqlab {version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="run a scenario and print its timeline (or --json report)")
    run.add_argument("file", help="a scenario .json or .yaml file")
    run.add_argument("--json", action="store_true", help="print one JSON object instead of the timeline")
    run.add_argument("--msg", metavar="ID", help="only this message's events in the timeline (e.g. M0001)")
    run.add_argument(
        "--kind",
        action="append",
        choices=[k.value for k in EventKind],
        metavar="KIND",
        help="only events of this kind (repeatable), e.g. --kind delivered --kind dead_lettered; "
        f"one of: {', '.join(k.value for k in EventKind)}",
    )
    run.add_argument(
        "--jsonl",
        metavar="OUT",
        help="also save every event of the run as JSON Lines to OUT (one event per line, as "
        "rmqlab.widgets.export.save_jsonl writes); '-' prints them instead of the timeline",
    )
    validate = commands.add_parser("validate", help="check a scenario file without running it")
    validate.add_argument("file", help="a scenario .json or .yaml file")
    commands.add_parser("schema", help="print the scenario JSON Schema")
    labs = commands.add_parser(
        "labs",
        help="write the labs as notebooks into DIR (the student copy, answers blanked) and say how to open them",
    )
    labs.add_argument("dir", nargs="?", default="rmqlab-labs", metavar="DIR", help="where (default: ./rmqlab-labs)")
    labs.add_argument("--lang", default="en", choices=("en", "zh"), help="the labs' language (default: en)")
    labs.add_argument(
        "--teacher",
        action="store_true",
        help="the solved notebooks and nbgrader_config.py instead (in a clone of the repository only)",
    )
    labs.add_argument("--colab", action="store_true", help="with a first cell that sets up Google Colab")
    labs.add_argument("--force", action="store_true", help="overwrite notebooks you have changed")
    return parser


def _labs(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import contextlib

    from rmqlab.core.i18n import speaking

    from .labs_command import LabsError, how_to_open, write_labs

    target = Path(args.dir)
    # the Chinese labs' user is told in Chinese what was written and how to open it
    with speaking("zh") if args.lang == "zh" else contextlib.nullcontext():
        try:
            write_labs(target, lang=args.lang, teacher=args.teacher, colab=args.colab, force=args.force, out=out)
        except LabsError as exc:
            err.write(printable(f"rmqlab: error: {exc}\n"))
            return EXIT_BAD_INPUT
        out.write(printable(how_to_open(target, colab=args.colab)))
    return EXIT_OK


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run one command and return its exit code (in-process: tests call this with their own streams)."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse already printed its usage message (or --version)
        return EXIT_OK if exc.code in (0, None) else EXIT_BAD_INPUT
    if args.command == "schema":
        # the file itself, not rmqlab.lab.scenario.schema_text(): importing that package loads the engine
        out.write((Path(__file__).parent / "scenario" / "scenario.schema.json").read_text(encoding="utf-8"))
        return EXIT_OK
    if args.command == "labs":
        return _labs(args, out, err)
    from ..core.errors import ConfigError, SimulationError
    from ..core.i18n import gettext
    from .progress import run_with_progress
    from .report import build_report, format_timeline, summary
    from .scenario import load_scenario

    try:
        scenario = load_scenario(args.file)
        if args.command == "validate":
            out.write(printable(f"ok: {args.file}: scenario {scenario.name!r} is valid\n"))
            return EXIT_OK
        lab = run_with_progress(scenario.build(), scenario.run_until_ms, err)  # a bar only on a terminal, past 1 s
    except ConfigError as exc:
        err.write(printable(f"rmqlab: error: {args.file}: {exc}\n"))
        return EXIT_BAD_INPUT
    except SimulationError as exc:
        err.write(printable(f"rmqlab: simulation error: {args.file}: {exc}\n"))
        return EXIT_FAILED
    if args.jsonl == "-":
        if args.json or args.msg or args.kind:
            err.write("rmqlab: error: --jsonl - prints the whole trace; it takes no --json, --msg or --kind\n")
            return EXIT_BAD_INPUT
        out.write(lab.trace.to_jsonl())
        return EXIT_OK
    if args.jsonl:
        try:
            with open(args.jsonl, "w", encoding="utf-8") as f:
                f.write(lab.trace.to_jsonl())
        except OSError as exc:
            err.write(printable(f"rmqlab: error: --jsonl {args.jsonl}: cannot write: {exc.strerror or exc}\n"))
            return EXIT_BAD_INPUT
    if args.json:
        if args.msg or args.kind:
            err.write("rmqlab: error: --msg and --kind filter the timeline; --json always prints the whole report\n")
            return EXIT_BAD_INPUT
        out.write(report_json(build_report(lab)))
        return EXIT_OK
    title = f"{scenario.name}: {scenario.description}" if scenario.description else scenario.name
    out.write(
        "".join(
            f"{line}\n"
            for line in textwrap.wrap(
                printable(title), TIMELINE_WIDTH, initial_indent="# ", subsequent_indent="#   ", break_on_hyphens=False
            )
        )
    )
    timeline = format_timeline(lab, msg_id=args.msg, kinds=args.kind, width=TIMELINE_WIDTH)
    out.write(printable(timeline))
    out.write(printable(f"# {summary(lab)}\n"))
    if not timeline and (args.msg or args.kind):
        said = gettext("no event matches {filters} in {file}").format(
            filters=_filters(args.msg, args.kind), file=args.file
        )
        err.write(printable(f"rmqlab: {said}\n"))
        return EXIT_FAILED
    return EXIT_OK


def _filters(msg: str | None, kinds: Sequence[str] | None) -> str:
    """``--msg M9999 --kind dead_lettered``, as typed (what matched nothing)."""
    words = [f"--msg {msg}"] if msg else []
    words += [f"--kind {kind}" for kind in kinds or ()]
    return " ".join(words)


def console_main() -> int:
    """``rmqlab`` and ``python -m rmqlab``: :func:`main` in a process of its own, started fast.

    Marks the format-checker modules nobody imported yet as absent (``sys.modules[name] = None`` makes their
    import fail, which jsonschema expects and skips). Only here, never in :func:`main`: a notebook or a test
    calling ``main`` keeps jsonschema whole.
    """
    if sys.argv[1:] == ["--version"]:  # the one answer that needs neither argparse nor the engine
        sys.stdout.write(f"rmqlab {version()}\n")
        return EXIT_OK
    if "jsonschema" not in sys.modules and sys.argv[1:2] != ["labs"]:  # nbgrader (labs) needs them all
        for name in FORMAT_CHECKER_MODULES:
            sys.modules.setdefault(name, None)  # type: ignore[arg-type]  # None: "not installed"
    return main()
