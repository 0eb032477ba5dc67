"""Planning a schema-valid scenario section by section, checking what a JSON Schema cannot say.

The JSON Schema has checked every type, range and enum by now; what is left are conversions (durations) and
what a schema cannot say: unique names, cross-references (a topic's brokers, a send's producer, a fault's
consumer, a subscription group's consumer group) and times within ``run_until``. The state each fault and admin
command needs at its time is :mod:`rmqlab.lab.scenario.timeline`'s to check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...client.consumer.listener import ScriptedListener
from ...common.message import DLQ_PREFIX, RETRY_PREFIX
from ...core.duration import parse_duration
from ...core.errors import ConfigError, ScenarioError
from ...core.scheduler import Priority
from ...core.validation import MAX_HORIZON_MS
from .. import faults
from .plan import Action, ConsumerPlan, Declared, Plan, ScenarioListener, send_action
from .timeline import check_admin_commands, check_consumer_lifecycles

__all__ = ["MAX_MESSAGES", "MAX_RUN_UNTIL_MS", "plan_scenario"]

MAX_RUN_UNTIL_MS = MAX_HORIZON_MS
"""The longest ``run_until``: 7 virtual days, the horizon of every run
(:data:`rmqlab.core.validation.MAX_HORIZON_MS`)."""
MAX_MESSAGES = 10_000
"""The most messages a scenario's sends may make (each one is a few KB of engine state and trace)."""


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


def _run_until(data: Mapping[str, Any]) -> int:
    run_until = _duration(data["run_until"], "run_until")
    if run_until > MAX_RUN_UNTIL_MS:
        raise ScenarioError(
            "run_until", data["run_until"], f"a duration <= 7d ({MAX_RUN_UNTIL_MS} ms), the longest scenario run"
        )
    return run_until


def _plan_topics(data: Mapping[str, Any], declared: Declared) -> list[tuple[str, list[str] | None, int, str]]:
    declared.topics = _names(data["topics"], "name", "topics", "topic")
    topics = []
    for i, topic in enumerate(data["topics"]):
        for j, broker in enumerate(topic.get("brokers", [])):
            _one_of(broker, declared.brokers, f"topics[{i}].brokers[{j}]", "broker")
        declared.topic_brokers[topic["name"]] = list(topic.get("brokers", declared.brokers))
        topics.append((topic["name"], topic.get("brokers"), topic.get("queues", 4), f"topics[{i}]"))
    return topics


def _check_dead_letter_topics(data: Mapping[str, Any], declared: Declared) -> None:
    """A ``%DLQ%<group>`` topic, created ahead of its first dead letter, must be a declared group's."""
    for i, topic in enumerate(data["topics"]):
        name = topic["name"]
        if name.startswith(DLQ_PREFIX) and name[len(DLQ_PREFIX) :] not in declared.groups:
            raise ScenarioError(
                f"topics[{i}].name", name, f"%DLQ%<group> of a declared consumer group: one of {declared.groups}"
            )


def _plan_producers(data: Mapping[str, Any], declared: Declared) -> list[tuple[str, str, dict[str, Any], str]]:
    declared.producers = _names(data.get("producers", []), "name", "producers", "producer")
    return [
        (spec["name"], spec.get("group", spec["name"]), _without(spec, "name", "group"), f"producers[{i}]")
        for i, spec in enumerate(data.get("producers", []))
    ]


def _without(spec: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in spec.items() if k not in keys}


def _plan_consumer(spec: Mapping[str, Any], i: int, declared: Declared) -> ConsumerPlan:
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
    if start is False and "start_order" in spec:
        raise ScenarioError(f"{path}.start_order", spec["start_order"], "only with a start time (start is null)")
    after_sends = spec.get("start_order") == "after_sends"
    options = _without(spec, "group", "name", "subscribe", "orderly", "start", "start_order", "listener")
    listener = _listener(spec.get("listener"), orderly, f"{path}.listener")
    return ConsumerPlan(
        name, spec["group"], dict(spec["subscribe"]), orderly, start, listener, options, path, after_sends
    )


def _plan_subscription_groups(data: Mapping[str, Any], declared: Declared) -> list[tuple[str, dict[str, Any], str]]:
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


def _plan_sends(data: Mapping[str, Any], declared: Declared) -> list[Action]:
    actions: list[Action] = []
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
        actions += [Action(at + k * interval, Priority.NORMAL, path, send_action(send, k)) for k in range(count)]
    return actions


def _check_send_target(send: Mapping[str, Any], declared: Declared, path: str) -> None:
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


def _plan_fault(spec: Mapping[str, Any], i: int, declared: Declared) -> Action:
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
    return Action(at, faults.priority_of_kind(spec["kind"]), path, lambda lab: faults.apply(lab, spec))


def plan_scenario(data: Mapping[str, Any]) -> Plan:
    """Cross-reference checks on schema-valid data, section by section, producing the build plan."""
    declared = Declared(_run_until(data), list(data["brokers"]))
    lab_options = {"message_delay_level": data["message_delay_level"]} if "message_delay_level" in data else {}
    topics = _plan_topics(data, declared)
    producers = _plan_producers(data, declared)
    for i, spec in enumerate(data.get("consumers", [])):
        declared.consumers.append(_plan_consumer(spec, i, declared))
    _check_dead_letter_topics(data, declared)
    subscription_groups = _plan_subscription_groups(data, declared)
    actions = _plan_sends(data, declared)
    fault_specs = data.get("faults", [])
    actions += [_plan_fault(spec, i, declared) for i, spec in enumerate(fault_specs)]
    check_consumer_lifecycles(declared, fault_specs)
    check_admin_commands(declared, fault_specs)
    return Plan(
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
