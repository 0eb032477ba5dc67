"""The scenario schema's ``fault`` definition, generated from the registry (:func:`fault_schema`), and the
schema file's text with it written anew (``python -m rmqlab.lab.faults``; a test fails when they disagree).
"""

from __future__ import annotations

import json
from typing import Any

from .fault import Fault
from .kinds import DURATION, FAULTS

__all__ = ["FAULT_MARKER", "fault_schema", "fault_schema_text", "schema_file_text", "write_schema"]


def fault_schema() -> dict[str, Any]:
    """The scenario schema's ``$defs.fault``: ``at`` and ``kind``, then each kind's fields (if kind → then)."""
    kinds = [fault.kind for fault in FAULTS]
    return {
        "type": "object",
        "required": ["at", "kind"],
        "description": "a fault or timed mqadmin command at a virtual time; the fields after kind depend on the kind",
        "properties": {
            "at": DURATION,
            "kind": {"enum": kinds, "description": "one of " + ", ".join(kinds)},
        },
        "allOf": [_kind_schema(fault) for fault in FAULTS],
    }


def _kind_schema(fault: Fault) -> dict[str, Any]:
    then: dict[str, Any] = {}
    required = [param.name for param in fault.params if param.required]
    if required:
        then["required"] = required
    then["properties"] = {"at": True, "kind": True, **{param.name: dict(param.schema) for param in fault.params}}
    then["additionalProperties"] = False
    return {"if": {"properties": {"kind": {"const": fault.kind}}}, "then": then}


FAULT_MARKER = '    "fault": {'
"""The line where the schema file's fault definition starts; it runs to the end of ``$defs``."""


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def fault_schema_text() -> str:
    """The fault definition as the schema file spells it: one line per field and per kind, for review."""
    schema = fault_schema()
    lines = [FAULT_MARKER]
    lines += [f'      "{key}": {_dump(schema[key])},' for key in ("type", "required", "description")]
    lines += ['      "properties": {']
    lines += [f'        "{key}": {_dump(value)},' for key, value in schema["properties"].items()]
    lines[-1] = lines[-1].rstrip(",")
    lines += ["      },", '      "allOf": [']
    lines += [f"        {_dump(block)}," for block in schema["allOf"]]
    lines[-1] = lines[-1].rstrip(",")
    lines += ["      ]", "    }", "  }", "}"]
    return "\n".join(lines) + "\n"


def schema_file_text(current: str) -> str:
    """``current`` (the schema file's text) with the fault definition written anew from the registry."""
    head = current[: current.index(FAULT_MARKER)]
    return head + fault_schema_text()


def write_schema() -> None:
    """Rewrite the shipped schema file's fault definition from the registry (``python -m rmqlab.lab.faults``)."""
    from pathlib import Path

    path = Path(__file__).parent.parent / "scenario" / "scenario.schema.json"
    path.write_text(schema_file_text(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {path}")
