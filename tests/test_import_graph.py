"""The engine's import graph, stated by package: rmqlab is laid out as RocketMQ's modules, and each imports only
the modules below it.

Every ``import`` statement counts, wherever it is: at the top, inside a function, under ``if TYPE_CHECKING``. A
type-only cycle is still a cycle to a reader (and to a refactoring): the engine states what it needs of its
neighbours as a Protocol (``BrokerEndpoint``, ``DefaultMessageStore``, ``PushConsumer``, ``OffsetStoreOwner``,
``ClientNetwork``) instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rmqlab

PACKAGE = Path(rmqlab.__file__).parent

ENGINE_LAYERS: dict[str, frozenset[str]] = {
    "rmqlab.core": frozenset({"rmqlab.common"}), "rmqlab.common": frozenset({"rmqlab.core"}), "rmqlab.remoting":
    frozenset({"rmqlab.core", "rmqlab.common"}),
    "rmqlab.namesrv": frozenset({"rmqlab.core", "rmqlab.common", "rmqlab.remoting"}),
    "rmqlab.store": frozenset({"rmqlab.core", "rmqlab.common", "rmqlab.remoting"}),
    "rmqlab.broker": frozenset({"rmqlab.core", "rmqlab.common", "rmqlab.remoting", "rmqlab.namesrv", "rmqlab.store"}),
    "rmqlab.client": frozenset({"rmqlab.core", "rmqlab.common", "rmqlab.remoting", "rmqlab.namesrv"}),
}
"""RocketMQ's Maven modules, each with the packages it may import (besides its own sub-packages). ``core`` (clock,
processes, trace) and ``common`` (MessageQueue, Message, TopicConfig: what client and broker share) are the ground
both stand on, and may use each other (a timer is labelled with its MessageQueue); ``remoting`` is the wire. A client
never imports the broker or the store: it talks to them through remoting, as the Java client does."""

READERS: dict[str, frozenset[str]] = {
    "rmqlab.narrate": frozenset({"rmqlab.core"}), "rmqlab.snapshot": frozenset(ENGINE_LAYERS), "rmqlab.lab":
    frozenset(ENGINE_LAYERS) | {"rmqlab.snapshot", "rmqlab"},
    "rmqlab.invariants": frozenset(ENGINE_LAYERS) | {"rmqlab.snapshot", "rmqlab.lab"},
    "rmqlab.course": frozenset({"rmqlab.core", "rmqlab.lab"}),
}
"""What builds, drives and reads a cluster. The Lab facade (with its faults, scenario files, report and CLI) builds
clusters from the engine; the readers turn a run into plain data (``snapshot``), captions (``narrate``) and verdicts
(``invariants``); ``course`` checks the labs' predictions."""

KNOWN_CROSSINGS: frozenset[tuple[str, str]] = frozenset()
"""Imports that cross the layers the wrong way: none. The last ones (``core.context`` naming remoting's ``Remoting``,
the namesrv's ``NameServer`` and the producer's ``SendFuture``) went when core stated what it needs of them as
protocols (``core.network.ClientNetwork``, ``core.name_server_client.NameServerClient``); the test fails when one is
added."""


def _package(name: str) -> str:
    return ".".join(name.split(".")[:2])


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def import_graph() -> dict[str, set[str]]:
    """Module → the rmqlab modules it imports (relative or absolute, any nesting, ``TYPE_CHECKING`` included)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.split(".")[0] == "rmqlab")
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                elif node.module and node.module.split(".")[0] == "rmqlab":
                    module = node.module
                else:
                    continue
                submodules = {f"{module}.{a.name}" for a in node.names if _is_module(f"{module}.{a.name}")}
                # ``from . import faults`` imports the submodule; ``from .lab import Lab`` the module itself
                targets.update(submodules or {module})
        targets.discard(name)
    return graph


def _is_engine(name: str) -> bool:
    return _package(name) in ENGINE_LAYERS


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_the_graph_sees_type_checking_and_function_level_imports() -> None:
    """The walker finds an import under ``if TYPE_CHECKING`` and one inside a function (the graph is not empty)."""
    graph = import_graph()
    assert "rmqlab.core.duration" in graph["rmqlab.core.trace"]  # imported inside Trace's methods only
    assert "rmqlab.broker.broker_controller" in graph["rmqlab.snapshot.lab_snapshot"]  # under if TYPE_CHECKING
    assert "rmqlab.lab.faults" in graph["rmqlab.lab.scenario.sections"]  # from .. import faults


def _crossings() -> set[tuple[str, str]]:
    """Every import from one package to another that its layer does not allow."""
    allowed = ENGINE_LAYERS | READERS | {"rmqlab": frozenset(ENGINE_LAYERS) | frozenset(READERS)}
    found = set()
    for name, targets in import_graph().items():
        for target in targets:
            source_package, target_package = _package(name), _package(target)
            if name in ("rmqlab", "rmqlab.__main__"):
                source_package = "rmqlab"
            if target == "rmqlab":
                target_package = "rmqlab"
            if source_package != target_package and target_package not in allowed[source_package]:
                found.add((name, target))
    return found


def test_every_module_lives_in_a_package_and_the_top_holds_only_the_public_face() -> None:
    """At the top of ``rmqlab/`` only ``__init__`` (``from rmqlab import Lab, ...``) and ``__main__``."""
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    packages = sorted(path.parent.name for path in PACKAGE.glob("*/__init__.py"))
    assert top == ["__init__.py", "__main__.py"]
    assert {f"rmqlab.{p}" for p in packages} == set(ENGINE_LAYERS) | set(READERS)


def test_each_package_imports_only_the_layers_below_it() -> None:
    """No engine module imports the Lab or a reader; a client never imports the broker or the store; ``core`` stands
    on nothing. The crossings still left are exactly the known ones."""
    assert _crossings() == KNOWN_CROSSINGS


def test_no_import_cycle_among_engine_modules() -> None:
    """The engine modules import one another as a DAG, type-only imports included."""
    graph = import_graph()
    engine = {name: {t for t in targets if _is_engine(t)} for name, targets in graph.items() if _is_engine(name)}
    assert _cycles(engine) == []


def test_the_package_imports_without_a_cycle() -> None:
    """Facade modules too (lab, faults, snapshot, the invariant rules, the exercises) import as a DAG, type-only
    imports included. The exercise bank is data built from ``exercise_answers``' ``Exercise`` and ``Hint``, and
    ``exercises`` reads it on the first ``check`` (a function-level import), so notebooks load it only when used."""
    assert _cycles(import_graph()) == []
