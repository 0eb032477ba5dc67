"""Scenario files: a whole experiment (topology, clients, listener script, sends, faults) as JSON or YAML.

A scenario is *data*, so a student can change one number and rerun, and a test can pin the outcome::

    scenario = load_scenario("examples/default_retry_schedule.json")
    lab = scenario.run()          # a fresh Lab, built, run to ``run_until``

Loading validates everything up front — the JSON Schema (``rmqlab/lab/scenario/scenario.schema.json``), then
cross-references (a topic's brokers, a send's producer, a fault's consumer, a subscription group's
consumer group), then the state each fault and admin command needs at its time (a consumer not running, a
broker that is up), then a dry build in a throw-away Lab — so a bad file fails with one
:class:`ScenarioError` naming the field path (``consumers[0].max_reconsume_times``) and never leaves a
half-built Lab behind.

Fault entries are dispatched through the fault registry (:mod:`rmqlab.lab.faults`), from which the schema's
``fault`` definition is generated; at one millisecond they act before the sends (the rule in
:mod:`rmqlab.core.scheduler`), exactly as the same calls through ``lab.at`` do.

The package, one module per stage: :mod:`~rmqlab.lab.scenario.read` (the file, within bounds),
:mod:`~rmqlab.lab.scenario.schema` (the JSON Schema and its errors), :mod:`~rmqlab.lab.scenario.sections`
(cross-references, section by section), :mod:`~rmqlab.lab.scenario.timeline` (state over time),
:mod:`~rmqlab.lab.scenario.plan` (the build
plan and the build) and :mod:`~rmqlab.lab.scenario.load` (the public API).
"""

from __future__ import annotations

from .load import Scenario, load_scenario, validate_scenario
from .schema import scenario_schema

__all__ = ["Scenario", "load_scenario", "scenario_schema", "validate_scenario"]
