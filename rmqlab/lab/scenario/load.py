"""The public API: :func:`load_scenario`, :func:`validate_scenario` and the :class:`Scenario` they return.

Loading runs every check in order — the shape limits, the JSON Schema, the cross-references section by
section, the state over time, then a dry build in a throw-away Lab — and raises the first
:class:`ScenarioError`, so a bad file never leaves a half-built Lab behind.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from ...core.errors import ScenarioError
from ..lab import Lab
from .plan import Plan, build_lab
from .read import check_shape, read_file
from .schema import document_order, schema_error, validator, within_object_branch
from .sections import plan_scenario

__all__ = ["Scenario", "load_scenario", "validate_scenario"]


def validate_scenario(data: Any) -> None:
    """Check ``data`` completely (schema, cross-references, a dry build); raise the first ScenarioError."""
    _validated_plan(data)


def _validated_plan(data: Any) -> Plan:
    if not isinstance(data, Mapping):
        raise ScenarioError("scenario", data, "a JSON/YAML object (mapping) at the top level")
    check_shape(data)
    _integral_floats_to_ints(data)
    errors = list(validator().iter_errors(data))
    if errors:
        first = min(errors, key=lambda e: (document_order(data, list(e.absolute_path)), -len(e.absolute_path)))
        raise schema_error(within_object_branch(first))
    plan = plan_scenario(data)
    build_lab(plan)  # a dry build: anything the engine rejects surfaces now, never half-way through a real build
    return plan


def _integral_floats_to_ints(data: Any) -> None:
    """``3.0`` → ``3`` in place: JSON Schema's integers include integral floats, so the engine gets real ints."""
    stack = [data]
    while stack:
        node = stack.pop()
        items: Any = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in list(items):
            if isinstance(value, float) and value.is_integer():
                node[key] = int(value)
            elif isinstance(value, dict | list):
                stack.append(value)


# ---------------------------------------------------------------------- public API
@dataclass(frozen=True, slots=True)
class Scenario:
    """A validated scenario; every :meth:`build` returns a fresh, fully scheduled :class:`Lab`."""

    name: str
    description: str
    seed: int
    run_until_ms: int
    _plan: Plan = field(repr=False)
    source: str | None = None

    def build(self) -> Lab:
        """A fresh Lab with brokers, topics and clients created and every send and fault scheduled."""
        return build_lab(self._plan)

    def run(self) -> Lab:
        """Build, then run to ``run_until``."""
        return self.build().run(until=self.run_until_ms)


def load_scenario(source: str | PathLike[str] | Mapping[str, Any]) -> Scenario:
    """Load a scenario from a ``.json`` / ``.yaml`` path or a mapping; validate it all before returning."""
    where: str | None = None
    if isinstance(source, Mapping):
        check_shape(source)  # before deepcopy, which recurses and would copy a bomb
        data: Any = copy.deepcopy(dict(source))
    elif isinstance(source, str | PathLike):
        where = str(source)
        data = read_file(Path(source))
    else:
        raise ScenarioError("source", source, "a path to a .json/.yaml file or a mapping")
    plan = _validated_plan(data)
    return Scenario(data["name"], data.get("description", ""), plan.seed, plan.run_until_ms, plan, where)
