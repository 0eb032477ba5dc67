"""Build ``docs/java-map.md``: which RocketMQ 4.9.7 file each engine module of rmqlab mirrors, and which methods.

Run ``python docs/java_map.py`` after changing a module's docstring; ``python docs/java_map.py --check`` exits 1
(and says why) when the committed page is out of date or an engine module names no Java file. ``tests/test_java_map.py``
runs the same check.

The map is read from the modules' own docstrings, so it cannot drift from them. An engine module's docstring ends
with one or more ``Mirrors:`` entries, each a path in the apache/rocketmq repository at tag ``rocketmq-all-4.9.7``
and, on the indented lines below it, the classes and methods in parentheses::

    Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/ProcessQueue.java
        (ProcessQueue.putMessage, ProcessQueue.removeMessage)

The docstrings are parsed, not imported: the page can be built without the engine's dependencies.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "java-map.md"
ENGINE_PACKAGES = ("core", "common", "remoting", "namesrv", "store", "broker", "client")
"""The packages of ``rmqlab/`` that mirror RocketMQ's Maven modules (and ``core``, what the JVM gives them)."""
MAVEN_MODULES = ("client", "broker", "store", "remoting", "namesrv", "common", "logging")
"""Where a ``Mirrors:`` path may start: the 4.9.7 modules rmqlab draws on."""
PENDING: frozenset[str] = frozenset()
"""Modules under change on another branch (issue 34) whose ``Mirrors:`` lines come with that merge."""
NO_COUNTERPART = {
    "rmqlab/core/i18n.py": "the labs' languages (gettext catalogs); RocketMQ's own messages are English only",
    "rmqlab/core/scheduler.py": "the virtual clock and event heap: what threads and the wall clock are to the Java",
    "rmqlab/core/loop_guards.py": "the loop's guards against a run that never moves the clock, and a Ctrl-C mid-event",
    "rmqlab/core/reasons.py": "the failures the lab makes (a partition, a stopped broker, an injected fault) worded "
    "for translation; RocketMQ's own texts are quoted as it prints them",
}
"""Engine-side modules with nothing to mirror in RocketMQ, each with the reason shown on the page."""
TAG = "rocketmq-all-4.9.7"

_ENTRY = re.compile(r"^Mirrors: (?P<path>\S+\.java)\n(?P<names>(?:    .*\n?)+)", re.MULTILINE)
_PATH = re.compile("^(?:" + "|".join(MAVEN_MODULES) + r")/src/main/java/org/apache/rocketmq/[\w/]+\.java$")
_NAME = re.compile(r"^[A-Z]\w*(?:\.\w+)?$")


@dataclass(frozen=True, slots=True)
class Mirror:
    """One ``Mirrors:`` entry: a Java file and the classes or ``Class.method`` names of it a module mirrors."""

    path: str
    names: tuple[str, ...]


def engine_modules() -> list[Path]:
    """Every engine module, package ``__init__`` files aside (they describe their package, not a class)."""
    found: list[Path] = []
    for package in ENGINE_PACKAGES:
        found += (p for p in (ROOT / "rmqlab" / package).rglob("*.py") if p.name != "__init__.py")
    return sorted(found)


def mirrors(path: Path) -> list[Mirror]:
    """The ``Mirrors:`` entries of the module at ``path``; ValueError if one is malformed."""
    docstring = ast.get_docstring(ast.parse(path.read_text()), clean=False) or ""
    where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    entries: list[Mirror] = []
    for match in _ENTRY.finditer(docstring):
        java, names_text = match["path"], " ".join(match["names"].split())
        if not _PATH.match(java):
            raise ValueError(f"{where}: {java!r} is not a path under a RocketMQ module's src/main/java")
        if not (names_text.startswith("(") and names_text.endswith(")")):
            raise ValueError(f"{where}: the names after {java} must be in parentheses")
        names = tuple(name.strip() for name in names_text[1:-1].split(","))
        bad = [name for name in names if not _NAME.match(name)]
        if bad:
            raise ValueError(f"{where}: {bad} are not Class or Class.member names")
        entries.append(Mirror(java, names))
    if docstring.count("Mirrors:") != len(entries):
        raise ValueError(f"{where}: a 'Mirrors:' line is not followed by its indented names")
    return entries


def problems() -> list[str]:
    """What keeps the map from being complete: modules that name no Java file, malformed entries."""
    found: list[str] = []
    for path in engine_modules():
        relative = path.relative_to(ROOT).as_posix()
        try:
            entries = mirrors(path)
        except ValueError as error:
            found.append(str(error))
            continue
        if not entries and relative not in PENDING and relative not in NO_COUNTERPART:
            found.append(f"{relative} names no Java file (add a 'Mirrors: <path>' entry to its docstring)")
    return found


def render() -> str:
    """The page: one table row per engine module, one line per Java file it mirrors."""
    lines = [
        "# rmqlab beside RocketMQ 4.9.7",
        "",
        "<!-- Generated by `python docs/java_map.py` from the modules' `Mirrors:` docstring entries; do not edit. -->",
        "",
        "Every engine module of `rmqlab/` names the file(s) of RocketMQ 4.9.7 it mirrors and the methods, in its",
        "docstring. Paths are in the [apache/rocketmq](https://github.com/apache/rocketmq) repository at tag",
        f"`{TAG}`: `git show {TAG}:<path>` prints one. [The life of a message](life-of-a-message.md) follows",
        "one message through these files.",
        "",
    ]
    for package in ENGINE_PACKAGES:
        modules = [p for p in engine_modules() if p.relative_to(ROOT / "rmqlab").parts[0] == package]
        lines += [f"## rmqlab/{package}", "", "| rmqlab module | RocketMQ file | classes and methods |"]
        lines.append("|---|---|---|")
        for path in modules:
            relative = path.relative_to(ROOT).as_posix()
            entries = mirrors(path)
            if not entries:
                lines.append(f"| `{relative}` | ({NO_COUNTERPART.get(relative, 'pending')}) | |")
            for i, entry in enumerate(entries):
                module = f"`{relative}`" if i == 0 else ""
                names = ", ".join(f"`{name}`" for name in entry.names)
                lines.append(f"| {module} | [`{entry.path}`]({_url(entry.path)}) | {names} |")
        lines.append("")
    return "\n".join(lines)


def _url(java: str) -> str:
    return f"https://github.com/apache/rocketmq/blob/{TAG}/{java}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/java-map.md is out of date or incomplete")
    args = parser.parse_args(argv)
    found = problems()
    if found:
        print("\n".join(found), file=sys.stderr)
        return 1
    page = render()
    if args.check:
        if not PAGE.is_file() or PAGE.read_text() != page:
            print(f"{PAGE.relative_to(ROOT)} is out of date: run python docs/java_map.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page)
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
