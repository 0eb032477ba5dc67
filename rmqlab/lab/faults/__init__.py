"""The fault registry: every fault and timed ``mqadmin`` command a scenario file or ``lab.at`` can inject.

One table, written once, used five ways:

* the scenario schema's ``fault`` definition — its ``kind`` enum and each kind's fields, types and ranges —
  is generated from it (:func:`fault_schema`; ``python -m rmqlab.lab.faults`` rewrites
  ``rmqlab/lab/scenario/scenario.schema.json``, and a test fails when the file and the registry disagree);
* the scenario reference in the docs lists each kind, its call and its fields from it (``docs/build_docs.py``);
* a scenario file's fault entry is dispatched through it (:func:`apply`): ``{"kind": "broker_slow",
  "broker": "broker-a", "response_delay_ms": "4s"}`` calls ``lab.set_broker_fault("broker-a",
  response_delay_ms="4s")``;
* the dashboard's fault buttons are the kinds with a :attr:`Fault.dashboard` label (``widgets.replay.FAULT_KINDS``),
  and an injected one is dispatched through :func:`apply` too;
* ``lab.at`` runs every call the registry names at :attr:`~rmqlab.core.scheduler.Priority.FAULT`
(:func:`is_fault_call`),
  so a fault at a millisecond acts before that millisecond's ordinary work whichever way it was scheduled.

This package imports nothing from :mod:`rmqlab.lab`, not even for a type (:class:`FaultTarget`): ``Lab.at`` asks
it which calls are faults.

The package: :mod:`~rmqlab.lab.faults.fault` (a kind as data), :mod:`~rmqlab.lab.faults.kinds` (the table,
written by family in :mod:`~rmqlab.lab.faults.broker_faults`, :mod:`~rmqlab.lab.faults.client_faults` and
:mod:`~rmqlab.lab.faults.admin_commands` from the shared pieces of :mod:`~rmqlab.lab.faults.fields`),
:mod:`~rmqlab.lab.faults.arguments` (fields that become other arguments than one keyword each),
:mod:`~rmqlab.lab.faults.dispatch` (calling it, and the FAULT priority) and :mod:`~rmqlab.lab.faults.definition` (the
schema's fault definition).
"""

from __future__ import annotations

from .definition import FAULT_MARKER, fault_schema, fault_schema_text, schema_file_text
from .dispatch import apply, bound_call, check_arguments, is_fault_call, priority_of, priority_of_kind
from .fault import Fault, FaultTarget, Param
from .kinds import BY_KIND, FAULT_TARGETS, FAULTS

__all__ = [
    "BY_KIND",
    "FAULTS",
    "FAULT_MARKER",
    "FAULT_TARGETS",
    "Fault",
    "FaultTarget",
    "Param",
    "apply",
    "bound_call",
    "check_arguments",
    "fault_schema",
    "fault_schema_text",
    "is_fault_call",
    "priority_of",
    "priority_of_kind",
    "schema_file_text",
]
