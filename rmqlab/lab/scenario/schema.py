"""The scenario JSON Schema and its errors, each turned into one :class:`ScenarioError` naming a field path.

The schema file (``rmqlab/lab/scenario/scenario.schema.json``) checks every type, range and enum; this module picks,
of all the errors jsonschema finds, the first in the file, and says what the field accepts in the schema's own
words (its ``description``), not in jsonschema's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from ...core.errors import ScenarioError

if TYPE_CHECKING:
    import jsonschema

__all__ = [
    "MISSING",
    "document_order",
    "format_path",
    "scenario_schema",
    "schema_error",
    "schema_text",
    "validator",
    "within_object_branch",
]


@cache
def schema_text() -> str:
    return resources.files("rmqlab.lab.scenario").joinpath("scenario.schema.json").read_text(encoding="utf-8")


def scenario_schema() -> dict[str, Any]:
    """The scenario JSON Schema (draft 2020-12), as a fresh dict the caller may modify."""
    schema: dict[str, Any] = json.loads(schema_text())
    return schema


@cache
def validator() -> jsonschema.Draft202012Validator:
    # imported on first use: ``import rmqlab`` must stay light (jsonschema costs ~0.1 s to import)
    import jsonschema

    return jsonschema.Draft202012Validator(scenario_schema())


# ---------------------------------------------------------------------- error paths
class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()


def format_path(parts: Sequence[str | int]) -> str:
    """``("consumers", 0, "listener")`` → ``consumers[0].listener`` (the root is ``scenario``)."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "scenario"


def document_order(data: Any, parts: Sequence[str | int]) -> tuple[int, ...]:
    """Position of a path in the file (dicts keep the file's key order), so the first problem is reported."""
    order: list[int] = []
    node = data
    for part in parts:
        if isinstance(node, Mapping) and part in node:
            order.append(list(node).index(part))
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            order.append(part)
            node = node[part]
        else:
            order.append(1 << 30)  # a missing field sorts after the fields that are there
            break
    return tuple(order)


def schema_error(error: jsonschema.ValidationError) -> ScenarioError:
    """Turn one jsonschema error into a ScenarioError that names the field and what it accepts."""
    parts = list(error.absolute_path)
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    described = schema.get("description")
    if error.validator == "required":
        instance = error.instance if isinstance(error.instance, Mapping) else {}
        missing = next(name for name in error.validator_value if name not in instance)
        sub = schema.get("properties", {}).get(missing, {})
        hint = sub.get("description") if isinstance(sub, Mapping) else None
        return ScenarioError(format_path([*parts, missing]), MISSING, "a value (required field)" + _also(hint))
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        known = list(schema.get("properties", {}))
        extra = next(k for k in error.instance if k not in known)
        allowed = "a known field: one of " + ", ".join(known) if known else str(described or error.message)
        return ScenarioError(format_path([*parts, extra]), error.instance[extra], allowed)
    if error.validator == "enum":
        allowed = "one of " + ", ".join(str(v) for v in error.validator_value)
    elif error.validator == "type" and error.validator_value == "string" and isinstance(error.instance, Mapping):
        # `brokers: [{name: broker-a}]`: an object where a plain name goes; say so, not only what a name may hold
        allowed = f"{described or 'a value'} written as a plain string, not an object"
        if parts and parts[0] == "brokers":
            allowed += " (e.g. brokers: [broker-a, broker-b])"
    elif described:
        allowed = str(described)
    elif error.validator in {"minimum", "maximum"}:
        sign = ">=" if error.validator == "minimum" else "<="
        allowed = f"a number {sign} {error.validator_value}"
    elif error.validator == "type":
        allowed = f"a value of type {error.validator_value}"
    else:
        allowed = error.message
    return ScenarioError(format_path(parts), error.instance, allowed)


def within_object_branch(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """For a mapping that failed an ``anyOf`` (a listener ``{default, ack_index, …}``), the error inside the one
    branch that takes an object: ``listener.ack_index=0.5``, not the whole listener and every form it could take."""
    while error.validator == "anyOf" and isinstance(error.instance, Mapping):
        branch = _object_branch(error)
        inner = [e for e in error.context or () if e.relative_schema_path and e.relative_schema_path[0] == branch]
        if branch is None or not inner:
            break
        error = min(inner, key=lambda e: -len(e.absolute_path))
    return error


def _object_branch(error: jsonschema.ValidationError) -> int | None:
    """The index of the one ``anyOf`` branch (after ``$ref``s) that is an object with every field the mapping has;
    else of the one whose required fields the mapping has (``{"return": .., "delay": 2}`` is a ``return`` answer
    with an unknown field, named as such)."""
    fields = set(error.instance)
    objects = [(i, _resolved(b)) for i, b in enumerate(error.validator_value) if _resolved(b).get("type") == "object"]
    branches = [i for i, branch in objects if fields <= set(branch.get("properties", {}))]
    if not branches:
        branches = [i for i, branch in objects if branch.get("required") and set(branch["required"]) <= fields]
    return branches[0] if len(branches) == 1 else None


def _resolved(node: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _resolved(scenario_schema()["$defs"][ref.rsplit("/", 1)[1]])
    return node


def _also(hint: str | None) -> str:
    return f": {hint}" if hint else ""
