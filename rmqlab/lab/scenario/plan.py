"""The build plan: what a validated scenario turns into, and how each build makes a fresh :class:`Lab` from it.

The plan holds *names* and settings, never engine objects, so every :meth:`Scenario.build` acts on its own Lab;
each scheduled call (:class:`Action`) runs at the priority ``lab.at`` would give the same call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ...client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from ...client.consumer.listener import ScriptedListener
from ...client.producer.default_mq_producer import SelectMessageQueueByHash
from ...common.message import DLQ_PREFIX, RETRY_PREFIX, Message
from ...common.message_queue import MessageQueue
from ...core.errors import ConfigError, ScenarioError
from ...core.scheduler import Priority, TimerKind, TimerLabel
from ..lab import Lab

__all__ = ["Action", "ConsumerPlan", "Declared", "Plan", "ScenarioListener", "build_lab", "send_action"]


@contextmanager
def _at(path: str) -> Iterator[None]:
    """Re-raise an engine ConfigError as a ScenarioError located under ``path``."""
    try:
        yield
    except ScenarioError:
        raise
    except ConfigError as exc:
        raise ScenarioError(f"{path}.{exc.parameter}" if path else exc.parameter, exc.value, exc.allowed) from None


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
class ConsumerPlan:
    name: str
    group: str
    subscribe: dict[str, str]
    orderly: bool
    start: bool | int
    listener: ScenarioListener
    options: dict[str, Any]
    path: str
    start_after_sends: bool = False
    """``start_order: after_sends``: the start runs at Priority.NORMAL, scheduled after every send of the file, so
    that millisecond's faults and sends come first; else it is a fault-registry call and runs first."""


@dataclass(frozen=True, slots=True)
class Action:
    """One scheduled call: ``apply(lab)`` at ``at_ms``, at the priority ``lab.at`` would give the same call."""

    at_ms: int
    priority: Priority
    path: str
    apply: Callable[[Lab], Any]


@dataclass(frozen=True, slots=True)
class Plan:
    seed: int
    run_until_ms: int
    lab_options: dict[str, Any]
    brokers: tuple[str, ...]
    topics: tuple[tuple[str, list[str] | None, int, str], ...]
    producers: tuple[tuple[str, str, dict[str, Any], str], ...]
    consumers: tuple[ConsumerPlan, ...]
    actions: tuple[Action, ...] = field(default=())
    subscription_groups: tuple[tuple[str, dict[str, Any], str], ...] = field(default=())
    """(group, ``Lab.update_subscription_group`` keywords, path): applied before any consumer starts."""


def _select_by_int(mqs: Sequence[MessageQueue], msg: Message, arg: Any) -> MessageQueue:
    """The usual orderly-producer selector: ``mqs[order_key % len(mqs)]``."""
    mq: MessageQueue = mqs[arg % len(mqs)]
    return mq


def send_action(spec: Mapping[str, Any], index: int) -> Callable[[Lab], Any]:
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


@dataclass(slots=True)
class Declared:
    """What the sections declared so far: the names later sections refer to."""

    run_until_ms: int
    brokers: list[str]
    topics: list[str] = field(default_factory=list)
    topic_brokers: dict[str, list[str]] = field(default_factory=dict)
    producers: list[str] = field(default_factory=list)
    consumers: list[ConsumerPlan] = field(default_factory=list)

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


def _starter(consumer: DefaultMQPushConsumer) -> Callable[[Lab], Any]:
    """An :class:`Action`'s ``apply`` that starts ``consumer`` (a ``start_order: after_sends`` start)."""
    return lambda _lab: consumer.start()


def build_lab(plan: Plan) -> Lab:
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
    late_starts: list[Action] = []
    for c in plan.consumers:
        with _at(c.path):
            consumer = lab.add_consumer(
                c.group,
                name=c.name,
                subscribe=c.subscribe,
                listener=c.listener,
                orderly=c.orderly,
                start=False if c.start_after_sends else c.start,
                **c.options,
            )
        if c.start_after_sends:
            at_ms = 0 if c.start is True else int(c.start)
            late_starts.append(Action(at_ms, Priority.NORMAL, f"{c.path}.start", _starter(consumer)))
    for action in [*plan.actions, *late_starts]:
        lab.scheduler.schedule_at(
            action.at_ms,
            lambda a=action: lab.safely(a.apply, lab, where=a.path),
            priority=action.priority,
            label=TimerLabel(TimerKind.ACTION, "lab", detail=action.path),
        )
    return lab
