"""Scenario files: a whole experiment (topology, clients, listener script, sends, faults) as JSON or YAML.

A scenario is *data*, so a student can change one number and rerun, and a test can pin the outcome::

    scenario = load_scenario("examples/default_retry_schedule.json")
    lab = scenario.run()          # a fresh Lab, built, run to ``run_until``

Loading validates everything up front — the JSON Schema (``rmqlab/schema/scenario.schema.json``), then
cross-references (a topic's brokers, a send's producer, a fault's consumer, a subscription group's
consumer group), then the state each fault and admin command needs at its time (a consumer not running, a
broker that is up), then a dry build in a throw-away Lab — so a bad file fails with one
:class:`ScenarioError` naming the field path (``consumers[0].max_reconsume_times``) and never leaves a
half-built Lab behind.

Fault entries are dispatched through the fault registry (:mod:`rmqlab.faults`), from which the schema's
``fault`` definition is generated; at one millisecond they act before the sends (the rule in
:mod:`rmqlab.scheduler`), exactly as the same calls through ``lab.at`` do.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import faults
from .duration import parse_duration
from .errors import ConfigError, ScenarioError, cut
from .lab import Lab
from .listener import ScriptedListener
from .message import DLQ_PREFIX, RETRY_PREFIX, Message
from .producer import SelectMessageQueueByHash
from .queue import MessageQueue
from .scheduler import Priority, TimerKind, TimerLabel
from .validation import MAX_HORIZON_MS

if TYPE_CHECKING:
    import jsonschema

__all__ = ["Scenario", "load_scenario", "scenario_schema", "validate_scenario"]


@cache
def _schema_text() -> str:
    return resources.files("rmqlab").joinpath("schema/scenario.schema.json").read_text(encoding="utf-8")


def scenario_schema() -> dict[str, Any]:
    """The scenario JSON Schema (draft 2020-12), as a fresh dict the caller may modify."""
    schema: dict[str, Any] = json.loads(_schema_text())
    return schema


@cache
def _validator() -> jsonschema.Draft202012Validator:
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


def _document_order(data: Any, parts: Sequence[str | int]) -> tuple[int, ...]:
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


def _schema_error(error: jsonschema.ValidationError) -> ScenarioError:
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


def _within_object_branch(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
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
    """The index of the one ``anyOf`` branch (after ``$ref``s) that is an object with every field the mapping has."""
    fields = set(error.instance)
    branches = [
        i
        for i, branch in enumerate(error.validator_value)
        if _resolved(branch).get("type") == "object" and fields <= set(_resolved(branch).get("properties", {}))
    ]
    return branches[0] if len(branches) == 1 else None


def _resolved(node: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _resolved(scenario_schema()["$defs"][ref.rsplit("/", 1)[1]])
    return node


def _also(hint: str | None) -> str:
    return f": {hint}" if hint else ""


@contextmanager
def _at(path: str) -> Iterator[None]:
    """Re-raise an engine ConfigError as a ScenarioError located under ``path``."""
    try:
        yield
    except ScenarioError:
        raise
    except ConfigError as exc:
        raise ScenarioError(f"{path}.{exc.parameter}" if path else exc.parameter, exc.value, exc.allowed) from None


MAX_RUN_UNTIL_MS = MAX_HORIZON_MS
"""The longest ``run_until``: 7 virtual days, the horizon of every run (:data:`rmqlab.validation.MAX_HORIZON_MS`)."""
MAX_MESSAGES = 10_000
"""The most messages a scenario's sends may make (each one is a few KB of engine state and trace)."""


# ---------------------------------------------------------------------- the plan
class ScenarioListener:
    """A :class:`ScriptedListener` that also sets what real listeners set on their context.

    ``ack_index`` and ``delay_level_when_next_consume`` (concurrent) or
    ``suspend_current_queue_time_millis`` (orderly) are how RocketMQ code steers a batch's fate,
    so a scenario must be able to say them too.
    """

    def __init__(self, scripted: ScriptedListener, context_settings: Mapping[str, int]) -> None:
        self.scripted = scripted
        self.context_settings = dict(context_settings)

    def __call__(self, msgs: Sequence[Any], context: Any) -> Any:
        for name, value in self.context_settings.items():
            setattr(context, name, value)
        return self.scripted(msgs, context)


@dataclass(frozen=True, slots=True)
class _ConsumerPlan:
    name: str
    group: str
    subscribe: dict[str, str]
    orderly: bool
    start: bool | int
    listener: ScenarioListener
    options: dict[str, Any]
    path: str


@dataclass(frozen=True, slots=True)
class _Action:
    """One scheduled call: ``apply(lab)`` at ``at_ms``, at the priority ``lab.at`` would give the same call."""

    at_ms: int
    priority: Priority
    path: str
    apply: Callable[[Lab], Any]


@dataclass(frozen=True, slots=True)
class _Plan:
    seed: int
    run_until_ms: int
    lab_options: dict[str, Any]
    brokers: tuple[str, ...]
    topics: tuple[tuple[str, list[str] | None, int, str], ...]
    producers: tuple[tuple[str, str, dict[str, Any], str], ...]
    consumers: tuple[_ConsumerPlan, ...]
    actions: tuple[_Action, ...] = field(default=())
    subscription_groups: tuple[tuple[str, dict[str, Any], str], ...] = field(default=())
    """(group, ``Lab.update_subscription_group`` keywords, path): applied before any consumer starts."""


def _select_by_int(mqs: Sequence[MessageQueue], msg: Message, arg: Any) -> MessageQueue:
    """The usual orderly-producer selector: ``mqs[order_key % len(mqs)]``."""
    mq: MessageQueue = mqs[arg % len(mqs)]
    return mq


def _send_action(spec: Mapping[str, Any], index: int) -> Callable[[Lab], Any]:
    """A closure over *names*, not objects, so each build acts on its own fresh Lab."""

    def fill(text: str | None) -> str | None:
        return None if text is None else text.replace("{i}", str(index))

    def apply(lab: Lab) -> Any:
        producer = lab.producers[spec["producer"]]
        msg = Message(
            spec["topic"],
            fill(spec.get("body", "body-{i}")),
            tags=spec.get("tags"),
            keys=fill(spec.get("keys")),
            properties=dict(spec.get("properties", {})),
        )
        if "delay_level" in spec:
            msg.delay_time_level = spec["delay_level"]
        mode = spec.get("mode", "SYNC")
        queue = spec.get("queue")
        if queue is not None:
            mq = MessageQueue(spec["topic"], queue["broker"], queue["queue_id"])
            return producer.send_to_queue(msg, mq, mode=mode)
        key = spec.get("order_key")
        if key is not None:
            if isinstance(key, int):
                return producer.send_with_selector(msg, _select_by_int, key, mode=mode)
            return producer.send_with_selector(msg, SelectMessageQueueByHash, fill(key), mode=mode)
        if mode == "ASYNC":
            return producer.send_async(msg)
        if mode == "ONEWAY":
            return producer.send_oneway(msg)
        return producer.send(msg)

    return apply


# ---------------------------------------------------------------------- validation
# The JSON Schema has checked every type, range and enum by now; what is left are conversions (durations)
# and what a schema cannot say: unique names, cross-references, times within run_until, and the state a
# fault or admin command needs at its time (a consumer not running, a broker that is up).
def _duration(value: Any, path: str) -> int:
    try:
        return parse_duration(value, path)
    except ConfigError as exc:
        raise ScenarioError(path, value, exc.allowed) from None


def _names(items: Sequence[Mapping[str, Any]], key: str, path: str, what: str) -> list[str]:
    seen: list[str] = []
    for i, item in enumerate(items):
        name = item[key]
        if name in seen:
            raise ScenarioError(f"{path}[{i}].{key}", name, f"a new {what} name (have {seen})")
        seen.append(name)
    return seen


def _one_of(value: Any, known: Sequence[str], path: str, what: str) -> None:
    if value not in known:
        raise ScenarioError(path, value, f"a declared {what}: one of {sorted(known)}")


def _check_time(at_ms: int, run_until_ms: int, path: str, value: Any) -> None:
    if at_ms > run_until_ms:
        raise ScenarioError(path, value, f"a time <= run_until ({run_until_ms} ms), or it never happens")


def _listener(spec: Any, orderly: bool, path: str) -> ScenarioListener:
    """Parse the listener forms: a result, a list of results, or ``{default, rules, ack_index, …}``."""
    success = "SUCCESS" if orderly else "CONSUME_SUCCESS"
    if spec is None or isinstance(spec, str) or (isinstance(spec, Mapping) and "take" in spec):
        spec = {"default": [spec if spec is not None else success]}
    elif isinstance(spec, list):
        spec = {"default": spec}
    settings = {k: spec[k] for k in ("ack_index", "delay_level_when_next_consume") if k in spec}
    if orderly and settings:
        name = next(iter(settings))
        raise ScenarioError(f"{path}.{name}", settings[name], "only for concurrent consumers (orderly: false)")
    if "suspend_current_queue_time_millis" in spec:
        if not orderly:
            raise ScenarioError(
                f"{path}.suspend_current_queue_time_millis",
                spec["suspend_current_queue_time_millis"],
                "only for orderly consumers (orderly: true)",
            )
        settings["suspend_current_queue_time_millis"] = spec["suspend_current_queue_time_millis"]
    try:
        scripted = ScriptedListener(spec.get("default", [success]), spec.get("rules", []), orderly=orderly, where=path)
    except ConfigError as exc:
        raise ScenarioError(exc.parameter, exc.value, exc.allowed) from None
    return ScenarioListener(scripted, settings)


@dataclass(slots=True)
class _Declared:
    """What the sections declared so far: the names later sections refer to."""

    run_until_ms: int
    brokers: list[str]
    topics: list[str] = field(default_factory=list)
    topic_brokers: dict[str, list[str]] = field(default_factory=dict)
    producers: list[str] = field(default_factory=list)
    consumers: list[_ConsumerPlan] = field(default_factory=list)

    @property
    def consumer_names(self) -> list[str]:
        return [c.name for c in self.consumers]

    @property
    def groups(self) -> list[str]:
        return sorted({c.group for c in self.consumers})

    def known(self, ref: str) -> tuple[list[str], str]:
        """The names a fault field of kind ``ref`` may take, and what to call them in an error."""
        if ref in {"broker", "brokers"}:
            return self.brokers, "broker"
        if ref == "consumer":
            return self.consumer_names, "consumer"
        if ref == "client":  # a consumer's inner (send-back fallback) producer shares its process, hence its links
            return [*self.consumer_names, *self.producers], "client (consumer or producer)"
        if ref == "group":
            return self.groups, "consumer group"
        retry_and_dlq = [f"{prefix}{g}" for g in self.groups for prefix in (RETRY_PREFIX, DLQ_PREFIX)]
        return [*self.topics, *retry_and_dlq], "topic"


def _run_until(data: Mapping[str, Any]) -> int:
    run_until = _duration(data["run_until"], "run_until")
    if run_until > MAX_RUN_UNTIL_MS:
        raise ScenarioError(
            "run_until", data["run_until"], f"a duration <= 7d ({MAX_RUN_UNTIL_MS} ms), the longest scenario run"
        )
    return run_until


def _plan_topics(data: Mapping[str, Any], declared: _Declared) -> list[tuple[str, list[str] | None, int, str]]:
    declared.topics = _names(data["topics"], "name", "topics", "topic")
    topics = []
    for i, topic in enumerate(data["topics"]):
        for j, broker in enumerate(topic.get("brokers", [])):
            _one_of(broker, declared.brokers, f"topics[{i}].brokers[{j}]", "broker")
        declared.topic_brokers[topic["name"]] = list(topic.get("brokers", declared.brokers))
        topics.append((topic["name"], topic.get("brokers"), topic.get("queues", 4), f"topics[{i}]"))
    return topics


def _plan_producers(data: Mapping[str, Any], declared: _Declared) -> list[tuple[str, str, dict[str, Any], str]]:
    declared.producers = _names(data.get("producers", []), "name", "producers", "producer")
    return [
        (spec["name"], spec.get("group", spec["name"]), _without(spec, "name", "group"), f"producers[{i}]")
        for i, spec in enumerate(data.get("producers", []))
    ]


def _without(spec: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in spec.items() if k not in keys}


def _plan_consumer(spec: Mapping[str, Any], i: int, declared: _Declared) -> _ConsumerPlan:
    path = f"consumers[{i}]"
    name = spec.get("name", f"{spec['group']}-{i + 1}")
    if name in declared.consumer_names:
        raise ScenarioError(f"{path}.name", name, f"a new consumer name (have {declared.consumer_names})")
    for topic in spec["subscribe"]:
        _one_of(topic, declared.topics, f"{path}.subscribe.{topic}", "topic")
    orderly = spec.get("orderly", False)
    start: bool | int = False
    if spec.get("start", 0) is not None:
        start_ms = _duration(spec.get("start", 0), f"{path}.start")
        _check_time(start_ms, declared.run_until_ms, f"{path}.start", spec.get("start", 0))
        start = True if start_ms == 0 else start_ms
    options = _without(spec, "group", "name", "subscribe", "orderly", "start", "listener")
    listener = _listener(spec.get("listener"), orderly, f"{path}.listener")
    return _ConsumerPlan(name, spec["group"], dict(spec["subscribe"]), orderly, start, listener, options, path)


def _plan_subscription_groups(data: Mapping[str, Any], declared: _Declared) -> list[tuple[str, dict[str, Any], str]]:
    subscription_groups = []
    configured: dict[tuple[str, str], int] = {}  # (group, broker) → index of the entry that set it
    for i, spec in enumerate(data.get("subscription_groups", [])):
        path = f"subscription_groups[{i}]"
        _one_of(spec["group"], declared.groups, f"{path}.group", "consumer group")
        for j, broker in enumerate(spec.get("brokers", [])):
            _one_of(broker, declared.brokers, f"{path}.brokers[{j}]", "broker")
        for broker in spec.get("brokers", declared.brokers):
            earlier = configured.setdefault((spec["group"], broker), i)
            if earlier != i:
                raise ScenarioError(
                    f"{path}.group",
                    spec["group"],
                    f"a group not configured on {broker} already (subscription_groups[{earlier}]): merge the two",
                )
        subscription_groups.append((spec["group"], _without(spec, "group"), path))
    return subscription_groups


def _plan_sends(data: Mapping[str, Any], declared: _Declared) -> list[_Action]:
    actions: list[_Action] = []
    messages = 0
    for i, send in enumerate(data.get("sends", [])):
        path = f"sends[{i}]"
        _one_of(send["producer"], declared.producers, f"{path}.producer", "producer")
        _check_send_target(send, declared, path)
        _check_message_text(send, path)
        at = _duration(send["at"], f"{path}.at")
        interval = _duration(send.get("interval", 0), f"{path}.interval")
        count = send.get("count", 1)
        messages += count
        if messages > MAX_MESSAGES:
            raise ScenarioError(
                f"{path}.count", count, f"at most {MAX_MESSAGES} messages in all sends (this one makes {messages})"
            )
        _check_time(at, declared.run_until_ms, f"{path}.at", send["at"])
        _check_time(at + (count - 1) * interval, declared.run_until_ms, f"{path}.count", count)
        actions += [_Action(at + k * interval, Priority.NORMAL, path, _send_action(send, k)) for k in range(count)]
    return actions


def _check_send_target(send: Mapping[str, Any], declared: _Declared, path: str) -> None:
    """A declared topic, or ``%RETRY%<group>`` of a declared group (whose route exists once the group runs);
    an explicit ``queue`` names a declared broker (its queue id is the broker's to refuse, as 4.9.7 does)."""
    topic = send["topic"]
    if isinstance(topic, str) and topic.startswith(RETRY_PREFIX):
        _one_of(topic[len(RETRY_PREFIX) :], declared.groups, f"{path}.topic", "consumer group after %RETRY%")
    else:
        _one_of(topic, declared.topics, f"{path}.topic", "topic")
    if "queue" in send:
        _one_of(send["queue"]["broker"], declared.brokers, f"{path}.queue.broker", "broker")


def _check_message_text(send: Mapping[str, Any], path: str) -> None:
    """A message's body, keys and tags become bytes (UTF-8) on the wire: a lone surrogate (``"\\ud800"`` in JSON)
    cannot, and would fail the send half-way through the run. Names may have one: they are only printed, escaped."""
    for name in ("body", "keys", "tags"):
        text = send.get(name)
        if not isinstance(text, str):
            continue
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ScenarioError(
                f"{path}.{name}",
                text,
                f"text that encodes as UTF-8 (no lone surrogate: {text[exc.start]!r} at index {exc.start})",
            ) from None


def _plan_fault(spec: Mapping[str, Any], i: int, declared: _Declared) -> _Action:
    """One fault entry: its time, the names its fields refer to (from the registry), its call."""
    path, fault = f"faults[{i}]", faults.BY_KIND[spec["kind"]]
    at = _duration(spec["at"], f"{path}.at")
    _check_time(at, declared.run_until_ms, f"{path}.at", spec["at"])
    for param in fault.params:
        if param.name not in spec:
            continue
        if param.schema.get("$ref") == "#/$defs/duration":
            _duration(spec[param.name], f"{path}.{param.name}")
        if param.ref is not None:
            known, what = declared.known(param.ref)
            values = spec[param.name] if param.ref == "brokers" else [spec[param.name]]
            for j, value in enumerate(values):
                where = f"{path}.{param.name}" + (f"[{j}]" if param.ref == "brokers" else "")
                _one_of(value, known, where, what)
    if spec["kind"] == "update_topic" and "queues" in spec and ("read_queues" in spec or "write_queues" in spec):
        raise ScenarioError(f"{path}.queues", spec["queues"], "absent when read_queues or write_queues is given")
    return _Action(at, faults.priority_of_kind(spec["kind"]), path, lambda lab: faults.apply(lab, spec))


# ---------------------------------------------------------------------- state over time
_Step = tuple[int, int, int, str, str, str, Mapping[str, Any]]
"""(at, rank, order, kind, consumer name, path, fault entry): one start, fault or admin command."""


def _timeline(declared: _Declared, specs: Sequence[Mapping[str, Any]]) -> list[_Step]:
    """Every start, fault and admin command, in the order they run.

    At one millisecond every one of them runs at Priority.FAULT, in the order scheduled: the consumers'
    immediate starts (at build), then their delayed ``start`` (scheduled as each consumer is added), then the
    faults in file order.
    """
    steps: list[_Step] = []
    for order, c in enumerate(declared.consumers):
        if c.start is not False:
            at, rank = (0, -1) if c.start is True else (c.start, 0)
            steps.append((at, rank, order, "start", c.name, f"{c.path}.start", {}))
    for i, spec in enumerate(specs):
        steps.append((parse_duration(spec["at"]), 1, i, spec["kind"], spec.get("consumer", ""), f"faults[{i}]", spec))
    return sorted(steps, key=lambda step: step[:3])


def _check_consumer_lifecycles(declared: _Declared, specs: Sequence[Mapping[str, Any]]) -> None:
    """Walk each consumer's starts and stops in run order; refuse a (re)start the engine would refuse at run time.

    A ``consumer_restart`` needs a consumer that ran and was crashed or removed; ``consumer_add`` one declared
    with ``start: null`` and not added yet; a start of a running consumer would only be a WARNING half-way
    through the run, so it is refused here.
    """
    state = {c.name: "new" for c in declared.consumers}
    declared_start = {c.name: c.start for c in declared.consumers}
    for at, _rank, _order, kind, name, path, _spec in _timeline(declared, specs):
        if kind not in {"start", "consumer_crash", "consumer_remove", "consumer_restart", "consumer_add"}:
            continue
        where = path if kind == "start" else f"{path}.consumer"
        now = state[name]
        if kind in {"consumer_crash", "consumer_remove"}:
            state[name] = "stopped" if now == "running" else now
            continue
        if kind == "consumer_add" and declared_start[name] is not False:
            raise ScenarioError(where, name, "a consumer declared with start: null")
        if kind == "consumer_add" and now != "new":
            raise ScenarioError(where, name, "a consumer not added already")
        if now == "running":
            raise ScenarioError(
                where, name, f"a consumer that is not running at {at} ms ({name} is running then: crash or remove it)"
            )
        if kind == "consumer_restart" and now == "new":
            raise ScenarioError(
                where,
                name,
                f"a consumer that was started and then crashed or removed before {at} ms ({name} has not started"
                " by then; consumer_add starts a consumer declared with start: null)",
            )
        state[name] = "running"


def _check_admin_commands(declared: _Declared, specs: Sequence[Mapping[str, Any]]) -> None:
    """Refuse, at load, an ``mqadmin`` command the Lab would refuse at its time.

    ``mqadmin`` talks to each broker directly, so each broker it changes must be up then (broker_down /
    broker_up walked in run order); ``update_topic`` needs the topic on the brokers named, and
    ``%RETRY%<group>`` exists only once a consumer of the group has started (its first heartbeat creates it).
    ``%DLQ%<group>`` appears with the first dead-lettered message, which only the run can tell: such a command
    is still checked when it runs (a WARNING if the topic is not there yet).
    """
    down: dict[str, str] = {}  # broker → the fault that took it down
    started: set[str] = set()  # groups with a consumer started by now
    group_of = {c.name: c.group for c in declared.consumers}
    for at, _rank, _order, kind, name, path, spec in _timeline(declared, specs):
        if kind in {"start", "consumer_add", "consumer_restart"}:
            started.add(group_of[name])
        elif kind == "broker_down":
            down[spec["broker"]] = f"{path} at {at} ms"
        elif kind == "broker_up":
            down.pop(spec["broker"], None)
        elif kind in faults.BY_KIND and faults.BY_KIND[kind].admin:
            for broker in _admin_brokers(declared, spec, path, started):
                if broker in down:
                    field_name = next((name for name in ("brokers", "broker") if name in spec), "kind")
                    raise ScenarioError(
                        f"{path}.{field_name}",
                        spec[field_name],
                        f"brokers that are up at {at} ms (mqadmin cannot reach {broker}: down since {down[broker]})",
                    )


def _admin_brokers(declared: _Declared, spec: Mapping[str, Any], path: str, started: set[str]) -> list[str]:
    """The brokers an admin command changes (its ``brokers``, or its default), refusing a topic not there."""
    if spec["kind"] == "update_broker_config":
        return [spec["broker"]]
    if spec["kind"] == "update_subscription_group":
        return list(spec.get("brokers", declared.brokers))
    topic = spec["topic"]
    if topic.startswith(DLQ_PREFIX):
        return list(spec.get("brokers", []))  # only the run knows where the DLQ topic is by then
    if topic.startswith(RETRY_PREFIX):
        if topic[len(RETRY_PREFIX) :] not in started:
            raise ScenarioError(
                f"{path}.topic",
                topic,
                f"a topic that exists by then: no consumer of {topic[len(RETRY_PREFIX) :]} has started yet (its"
                " first heartbeat creates the retry topic)",
            )
        having = declared.brokers
    else:
        having = declared.topic_brokers[topic]
    for j, broker in enumerate(spec.get("brokers", [])):
        if broker not in having:
            raise ScenarioError(f"{path}.brokers[{j}]", broker, f"a broker that has {topic}: one of {having}")
    return list(spec.get("brokers", having))


def _plan(data: Mapping[str, Any]) -> _Plan:
    """Cross-reference checks on schema-valid data, section by section, producing the build plan."""
    declared = _Declared(_run_until(data), list(data["brokers"]))
    lab_options = {"message_delay_level": data["message_delay_level"]} if "message_delay_level" in data else {}
    topics = _plan_topics(data, declared)
    producers = _plan_producers(data, declared)
    for i, spec in enumerate(data.get("consumers", [])):
        declared.consumers.append(_plan_consumer(spec, i, declared))
    subscription_groups = _plan_subscription_groups(data, declared)
    actions = _plan_sends(data, declared)
    fault_specs = data.get("faults", [])
    actions += [_plan_fault(spec, i, declared) for i, spec in enumerate(fault_specs)]
    _check_consumer_lifecycles(declared, fault_specs)
    _check_admin_commands(declared, fault_specs)
    return _Plan(
        data.get("seed", 0),
        declared.run_until_ms,
        lab_options,
        tuple(declared.brokers),
        tuple(topics),
        tuple(producers),
        tuple(declared.consumers),
        tuple(actions),
        tuple(subscription_groups),
    )


def _build(plan: _Plan) -> Lab:
    """Create the Lab and schedule every action; each step's engine errors carry the field path."""
    with _at(""):
        lab = Lab(seed=plan.seed, **plan.lab_options)
    for broker in plan.brokers:
        lab.add_broker(broker)
    for name, brokers, queues, path in plan.topics:
        with _at(path):
            lab.create_topic(name, brokers=brokers, queues=queues)
    for group, options, path in plan.subscription_groups:
        with _at(path):  # before any consumer starts: its first heartbeat creates %RETRY%<group>
            lab.update_subscription_group(group, **options)
    for name, group, options, path in plan.producers:
        with _at(path):
            lab.add_producer(group, name=name, **options)
    for c in plan.consumers:
        with _at(c.path):
            lab.add_consumer(
                c.group,
                name=c.name,
                subscribe=c.subscribe,
                listener=c.listener,
                orderly=c.orderly,
                start=c.start,
                **c.options,
            )
    for action in plan.actions:
        lab.scheduler.schedule_at(
            action.at_ms,
            lambda a=action: lab.safely(a.apply, lab, where=a.path),
            priority=action.priority,
            label=TimerLabel(TimerKind.ACTION, "lab", detail=action.path),
        )
    return lab


def validate_scenario(data: Any) -> None:
    """Check ``data`` completely (schema, cross-references, a dry build); raise the first ScenarioError."""
    _validated_plan(data)


def _validated_plan(data: Any) -> _Plan:
    if not isinstance(data, Mapping):
        raise ScenarioError("scenario", data, "a JSON/YAML object (mapping) at the top level")
    _check_shape(data)
    _integral_floats_to_ints(data)
    errors = list(_validator().iter_errors(data))
    if errors:
        first = min(errors, key=lambda e: (_document_order(data, list(e.absolute_path)), -len(e.absolute_path)))
        raise _schema_error(_within_object_branch(first))
    plan = _plan(data)
    _build(plan)  # a dry build: anything the engine rejects surfaces now, never half-way through a real build
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
    _plan: _Plan = field(repr=False)
    source: str | None = None

    def build(self) -> Lab:
        """A fresh Lab with brokers, topics and clients created and every send and fault scheduled."""
        return _build(self._plan)

    def run(self) -> Lab:
        """Build, then run to ``run_until``."""
        return self.build().run(until=self.run_until_ms)


# ---------------------------------------------------------------------- reading, within bounds
MAX_FILE_BYTES = 1 << 20
"""A scenario file is at most 1 MiB (the examples are ~1 KB): ``/dev/zero`` is refused after 1 MiB read."""
MAX_DEPTH = 32
"""Containers nest at most 32 deep (a listener's ``then`` chain counts 2 per step; the examples use 6)."""
MAX_VALUES = 100_000
"""At most 100,000 values once YAML aliases are expanded (a 700-byte alias bomb expands to 10^9)."""
MAX_NUMBER_CHARS = 24
"""A number literal has at most 24 characters: every field is far below 10^20 ms or 10^20 of anything."""


class _BadNumber(Exception):
    """Raised inside a parser hook; turned into a located ScenarioError."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _json_number(text: str) -> Any:
    if len(text) > MAX_NUMBER_CHARS:
        raise _BadNumber(text)
    value = float(text) if any(c in text for c in ".eE") else int(text)
    if value in (float("inf"), float("-inf")):
        raise _BadNumber(text)
    return value


def _json_constant(text: str) -> Any:
    raise _BadNumber(text)  # NaN, Infinity, -Infinity: not JSON, and no field takes them


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _number_error(path: Path, text: str, number: str, line: int | None = None) -> ScenarioError:
    if line is None:
        at = text.find(number)
        line = _line_col(text, at)[0] if at >= 0 else 0
    where = f"line {line} has " if line else ""
    return ScenarioError(
        "file",
        str(path),
        f"numbers of at most {MAX_NUMBER_CHARS} characters, finite ({where}{cut(number, 40)!r},"
        f" {len(number)} characters)",
    )


def _yaml_loader() -> type:
    """A SafeLoader that bounds what a few bytes can turn into: aliases expanded, numbers, depth."""
    import yaml

    class BoundedLoader(yaml.SafeLoader):
        def get_single_node(self) -> Any:
            node = super().get_single_node()
            if node is not None:
                _check_yaml_graph(node)
            return node

        def construct_yaml_int(self, node: Any) -> Any:
            _check_yaml_number(node)
            return super().construct_yaml_int(node)

        def construct_yaml_float(self, node: Any) -> Any:
            _check_yaml_number(node)
            value = super().construct_yaml_float(node)
            if value != value or value in (float("inf"), float("-inf")):
                raise _BadNumber(str(node.value))
            return value

    BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_yaml_int)
    BoundedLoader.add_constructor("tag:yaml.org,2002:float", BoundedLoader.construct_yaml_float)
    return BoundedLoader


class _YamlLimit(Exception):
    def __init__(self, allowed: str) -> None:
        super().__init__(allowed)
        self.allowed = allowed


def _check_yaml_number(node: Any) -> None:
    if len(str(node.value)) > MAX_NUMBER_CHARS:
        raise _BadNumber(str(node.value))


def _check_yaml_graph(root: Any) -> None:
    """Count the values and the depth of the composed node graph, aliases expanded, without expanding it.

    Each node's expanded size is computed once (memoised on the node object: the graph is a DAG of
    shared nodes), so a billion-laughs document costs its own size, not its expansion.
    """
    import yaml

    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    # post-order without recursion: (node, children done?)
    stack: list[tuple[Any, bool]] = [(root, False)]
    on_path: set[int] = set()
    while stack:
        node, done = stack.pop()
        key = id(node)  # identity of a shared node, never an order
        if key in sizes:
            continue
        children: list[Any]
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            children = []
        if not done:
            if key in on_path:
                raise _YamlLimit("no recursive alias (an anchor used inside itself)")
            on_path.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
            if len(on_path) > MAX_DEPTH + 1:
                line = node.start_mark.line + 1
                raise _YamlLimit(f"containers nested at most {MAX_DEPTH} deep (deeper at line {line})")
            continue
        on_path.discard(key)
        sizes[key] = 1 + sum(sizes[id(c)] for c in children)
        depths[key] = (1 + max((depths[id(c)] for c in children), default=0)) if children else 0
        if sizes[key] > MAX_VALUES:
            raise _YamlLimit(
                f"at most {MAX_VALUES} values once aliases are expanded (line {node.start_mark.line + 1}"
                f" already expands to more)"
            )
        if depths[key] > MAX_DEPTH:
            raise _YamlLimit(f"containers nested at most {MAX_DEPTH} deep (deeper at line {node.start_mark.line + 1})")


_FLOW_TOKEN = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[\[\]{}]""")


def _deep_at(text: str) -> str:
    """`` (deeper at line N)`` for text whose brackets nest too deep: one linear scan, quoted strings skipped.

    JSON and YAML flow style nest with brackets; YAML block style nests by indentation, which a 1 MiB file
    can take only ~1,400 deep (the composer's RecursionError and the node-graph check catch that).
    """
    depth = 0
    for token in _FLOW_TOKEN.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return f" (deeper at line {_line_col(text, token.start())[0]})"
        elif mark in "]}":
            depth -= 1
    return ""


def _indented_deep_at(text: str) -> str:
    """`` (deeper at line N)`` for YAML whose block-style indentation nests past 2 × MAX_DEPTH levels: one scan.

    Each line deeper than the one before opens a level (a ``- `` item opens one more); a line back at an outer
    indentation closes the levels inside it. Twice the limit leaves room for what indents without nesting (a
    ``key:`` holding a ``- `` list at its own indentation, block scalars); PyYAML's composer would otherwise recurse
    through a 500-deep chain for half a second before refusing it.
    """
    stack: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        while stack and stack[-1] >= indent:
            stack.pop()
        stack.append(indent)
        while stripped.startswith("- "):  # "- - x": a list in a list on one line
            indent += 2
            stripped = stripped[2:].lstrip(" ")
            stack.append(indent)
        if len(stack) > 2 * MAX_DEPTH:
            return f" (deeper at line {number})"
    return ""


def _check_depth(path: Path, text: str) -> None:
    """Refuse deep nesting before parsing: both parsers recurse, 100k brackets would take seconds to refuse."""
    deep = _deep_at(text)
    if not deep and path.suffix.lower() in {".yaml", ".yml"}:
        deep = _indented_deep_at(text)
    if deep:
        raise ScenarioError("file", str(path), f"containers nested at most {MAX_DEPTH} deep{deep}")


def _read(path: Path) -> Any:
    """Read and parse a scenario file, refusing anything that is not small, UTF-8, shallow and finite."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ScenarioError("file", str(path), f"a readable scenario file ({exc.strerror or exc})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ScenarioError("file", str(path), f"a scenario file of at most {MAX_FILE_BYTES} bytes (1 MiB)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(raw[: exc.start].decode("utf-8", "replace"), exc.start)
        raise ScenarioError(
            "file", str(path), f"UTF-8 text (byte 0x{raw[exc.start]:02x} at line {line}, column {col} is not UTF-8)"
        ) from None
    _check_depth(path, text)
    try:
        if path.suffix.lower() in {".yaml", ".yml"}:
            return _parse_yaml(path, text)
        return json.loads(text, parse_int=_json_number, parse_float=_json_number, parse_constant=_json_constant)
    except _BadNumber as exc:
        raise _number_error(path, text, exc.text) from None
    except _YamlLimit as exc:
        raise ScenarioError("file", str(path), exc.allowed) from None
    except RecursionError:
        raise ScenarioError("file", str(path), f"containers nested at most {MAX_DEPTH} deep{_deep_at(text)}") from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(
            "file", str(path), f"valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None


def _parse_yaml(path: Path, text: str) -> Any:
    """YAML through the bounded SafeLoader; PyYAML is imported here only, so JSON scenarios need no PyYAML
    (the JupyterLite site has none)."""
    import yaml

    try:
        return yaml.load(text, Loader=_yaml_loader())  # a SafeLoader subclass: no arbitrary objects
    except yaml.YAMLError as exc:
        raise ScenarioError("file", str(path), f"valid YAML ({cut(str(exc), 600)})") from None


def _check_shape(data: Any) -> None:
    """Depth and size limits on parsed data (also a mapping passed from Python), with the path where broken.

    Iterative and stopping at the first excess, so a shared-structure bomb or 100k-deep nesting costs
    at most MAX_VALUES steps.
    """
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    count = 0
    while stack:
        node, parts = stack.pop()
        count += 1
        if count > MAX_VALUES:
            raise ScenarioError(format_path(parts), node, f"a scenario of at most {MAX_VALUES} values in all")
        if isinstance(node, Mapping):
            children: list[tuple[Any, tuple[str | int, ...]]] = [
                (v, (*parts, k if isinstance(k, str) else str(k))) for k, v in node.items()
            ]
        elif isinstance(node, list | tuple):
            children = [(v, (*parts, i)) for i, v in enumerate(node)]
        else:
            continue
        if len(parts) >= MAX_DEPTH and children:
            raise ScenarioError(format_path(parts), node, f"containers nested at most {MAX_DEPTH} deep")
        stack.extend(reversed(children))


def load_scenario(source: str | PathLike[str] | Mapping[str, Any]) -> Scenario:
    """Load a scenario from a ``.json`` / ``.yaml`` path or a mapping; validate it all before returning."""
    where: str | None = None
    if isinstance(source, Mapping):
        _check_shape(source)  # before deepcopy, which recurses and would copy a bomb
        data: Any = copy.deepcopy(dict(source))
    elif isinstance(source, str | PathLike):
        where = str(source)
        data = _read(Path(source))
    else:
        raise ScenarioError("source", source, "a path to a .json/.yaml file or a mapping")
    plan = _validated_plan(data)
    return Scenario(data["name"], data.get("description", ""), plan.seed, plan.run_until_ms, plan, where)
