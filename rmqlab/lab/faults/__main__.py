"""``python -m rmqlab.lab.faults``: rewrite the shipped schema file's fault definition from the registry."""

from __future__ import annotations

from .definition import write_schema

write_schema()
