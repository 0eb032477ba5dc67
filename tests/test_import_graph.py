"""The engine's import graph: clients and brokers are handed a Context, so no engine module imports the Lab (or any
other facade module), and the engine modules import one another without a cycle.

Every ``import`` statement counts, wherever it is: at the top, inside a function, under ``if TYPE_CHECKING``. A
type-only cycle is still a cycle to a reader (and to a refactoring): the engine states what it needs of its
neighbours as a Protocol (``BrokerEndpoint``, ``DefaultMessageStore``, ``PushConsumer``, ``OffsetStoreOwner``)
instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rmqlab

PACKAGE = Path(rmqlab.__file__).parent

FACADE = frozenset(
    {
        "rmqlab",
        "rmqlab.__main__",
        "rmqlab.cli",
        "rmqlab.exercise_answers",
        "rmqlab.exercise_bank",
        "rmqlab.exercise_bank_queues",
        "rmqlab.exercise_bank_retry",
        "rmqlab.exercises",
        "rmqlab.faults",
        "rmqlab.lab",
        "rmqlab.lab_admin",
        "rmqlab.lab_faults",
        "rmqlab.lab_state",
        "rmqlab.narrate",
        "rmqlab.report",
        "rmqlab.scenario",
        "rmqlab.snapshot",
    }
)
"""What builds, drives and reads a cluster (and the invariant checks, ``rmqlab.invariants.*``); everything else in
``rmqlab`` is the engine. A facade package's modules (``rmqlab.scenario.plan``) are facade too."""


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
    package = ".".join(name.split(".")[:2])
    return package not in FACADE and package != "rmqlab.invariants"


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
    assert "rmqlab.consume_concurrently" in graph["rmqlab.consumer"]  # imported inside DefaultMQPushConsumer.start
    assert "rmqlab.broker" in graph["rmqlab.snapshot.lab_snapshot"]  # under if TYPE_CHECKING
    assert "rmqlab.faults" in graph["rmqlab.scenario.sections"]  # from .. import faults


def test_no_engine_module_imports_the_lab_or_another_facade_module() -> None:
    """Clients and brokers get a Context from the Lab; none of them imports ``rmqlab.lab``, the scenario loader,
    the snapshot, the report, the fault registry or the invariant checks, not even for a type."""
    graph = import_graph()
    reaching = {
        name: sorted(t for t in targets if not _is_engine(t))
        for name, targets in graph.items()
        if _is_engine(name) and any(not _is_engine(t) for t in targets)
    }
    assert reaching == {}


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
