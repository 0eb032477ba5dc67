"""State over time: each consumer's starts and stops, each broker's downs and ups, walked in run order.

A fault or admin command the engine would refuse at its time (restarting a running consumer, ``mqadmin``
against a broker that is down) is refused at load instead, so it never surfaces as a WARNING half-way
through the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...common.message import DLQ_PREFIX, RETRY_PREFIX
from ...core.duration import parse_duration
from ...core.errors import ScenarioError
from .. import faults
from .plan import Declared

__all__ = ["check_admin_commands", "check_consumer_lifecycles"]


_Step = tuple[int, int, int, str, str, str, Mapping[str, Any]]
"""(at, rank, order, kind, consumer name, path, fault entry): one start, fault or admin command."""


def _timeline(declared: Declared, specs: Sequence[Mapping[str, Any]]) -> list[_Step]:
    """Every start, fault and admin command, in the order they run.

    At one millisecond every one of them runs at Priority.FAULT, in the order scheduled: the consumers'
    immediate starts (at build), then their delayed ``start`` (scheduled as each consumer is added), then the
    faults in file order; a ``start_order: after_sends`` start runs at Priority.NORMAL, after all of them.
    """
    steps: list[_Step] = []
    for order, c in enumerate(declared.consumers):
        if c.start is not False:
            at, rank = (0, -1) if c.start is True else (c.start, 0)
            rank = 2 if c.start_after_sends else rank
            steps.append((at, rank, order, "start", c.name, f"{c.path}.start", {}))
    for i, spec in enumerate(specs):
        steps.append((parse_duration(spec["at"]), 1, i, spec["kind"], spec.get("consumer", ""), f"faults[{i}]", spec))
    return sorted(steps, key=lambda step: step[:3])


def check_consumer_lifecycles(declared: Declared, specs: Sequence[Mapping[str, Any]]) -> None:
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


def check_admin_commands(declared: Declared, specs: Sequence[Mapping[str, Any]]) -> None:
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


def _admin_brokers(declared: Declared, spec: Mapping[str, Any], path: str, started: set[str]) -> list[str]:
    """The brokers an admin command changes (its ``brokers``, or its default), refusing a topic not there."""
    if spec["kind"] in {"update_broker_config", "consume_message_directly"}:
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
