"""``mqadmin`` on a Lab's brokers: ``updateTopic``, ``updateBrokerConfig``, ``updateSubGroup`` and
``updateConsumeOffset`` (``MQAdminExt``).

``mqadmin`` talks to each broker directly, so each broker a command changes must be up. Every argument is
checked before any broker changes, so a refused command changes nothing; each broker's new config is traced as
an ADMIN event. The :class:`~rmqlab.lab.Lab` methods of the same names (``Lab.update_topic`` …, the fault
registry's targets) keep the signatures and the docstrings students read, and call these.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..broker.broker_controller import PERM_READ, PERM_RW, PERM_WRITE, TopicConfig
from ..common.message import SCHEDULE_TOPIC
from ..common.message_queue import MessageQueue
from ..core.errors import ConfigError
from ..core.trace import EventKind
from ..core.validation import as_int, check_int

if TYPE_CHECKING:
    from ..broker.broker_controller import Broker
    from ..core.trace import Trace

__all__ = [
    "AdminTarget",
    "broker_names",
    "check_new_topic",
    "check_perm",
    "check_reachable",
    "record_admin",
    "update_broker_config",
    "update_consumer_offset",
    "update_subscription_group",
    "update_topic",
]


class AdminTarget(Protocol):
    """The members of a Lab an admin command reads (``Lab`` is one): written here, so this module does not
    import ``lab``, not even for a type."""

    @property
    def now(self) -> int:
        """Virtual time in ms."""

    @property
    def trace(self) -> Trace:
        """The event log (ADMIN events)."""

    @property
    def brokers(self) -> Mapping[str, Broker]:
        """Brokers by name."""


_PERMS = (0, PERM_WRITE, PERM_READ, PERM_RW)


def check_perm(perm: object, parameter: str = "perm") -> int:
    """A topic or broker permission: 6 read+write, 4 read only, 2 write only, 0 neither (``PermName``)."""
    number = as_int(perm)
    if number is None or number not in _PERMS:
        raise ConfigError(parameter, perm, "6 (read+write), 4 (read only), 2 (write only) or 0")
    return number


def broker_names(lab: AdminTarget, brokers: list[str] | None, default: list[str]) -> list[str]:
    """``brokers`` checked against the lab (sorted, no repeats), or ``default`` when it is ``None``."""
    if brokers is not None and (isinstance(brokers, str) or not isinstance(brokers, list | tuple)):
        raise ConfigError("brokers", brokers, "a list of broker names, or None for the default")
    names = default if brokers is None else brokers
    if not names:
        allowed = "at least one broker (add_broker first)" if brokers is None else "a non-empty list of brokers"
        raise ConfigError("brokers", brokers, allowed)
    for name in names:
        if not isinstance(name, str) or name not in lab.brokers:
            raise ConfigError("brokers", name, f"one of {sorted(lab.brokers)}")
    return sorted(set(names))


def check_reachable(lab: AdminTarget, name: str) -> None:
    """An admin command needs the broker up: ``mqadmin`` talks to it directly."""
    if not lab.brokers[name].up:
        raise ConfigError("brokers", name, f"a broker that is up (mqadmin cannot reach {name} now)")


def record_admin(lab: AdminTarget, broker: str, command: str, **details: Any) -> None:
    """Trace one broker's new config after an ``mqadmin`` command (an ADMIN event)."""
    lab.trace.record(lab.now, EventKind.ADMIN, broker, None, command=command, **details)


def _topic_names(lab: AdminTarget) -> list[str]:
    return sorted({topic for broker in lab.brokers.values() for topic in broker.topic_config})


def check_new_topic(lab: AdminTarget, topic: str, queues: int, perm: int, names: list[str]) -> None:
    """Creating a topic again with the same queues and perm is a no-op; with different ones it is refused
    (``update_topic`` changes a topic), so ``create_topic`` always returns the topic's real queue list."""
    for name in names:
        have = lab.brokers[name].topic_config.get(topic)
        if have is None:
            continue
        if (have.read_queue_nums, have.write_queue_nums) != (queues, queues):
            raise ConfigError(
                "queues",
                queues,
                f"{have.write_queue_nums}: {topic} already exists on {name} with {have.read_queue_nums} read / "
                f"{have.write_queue_nums} write queues (update_topic changes them)",
            )
        if have.perm != perm:
            raise ConfigError("perm", perm, f"{have.perm}: {topic} already exists on {name} (update_topic changes it)")


def update_topic(
    lab: AdminTarget,
    topic: str,
    *,
    queues: int | None,
    read_queues: int | None,
    write_queues: int | None,
    perm: int | None,
    brokers: list[str] | None,
) -> dict[str, TopicConfig]:
    """``mqadmin updateTopic`` (see :meth:`rmqlab.lab.Lab.update_topic`): checked on every broker named, then
    applied on each and traced."""
    if not isinstance(topic, str) or not topic or topic == SCHEDULE_TOPIC:
        raise ConfigError("topic", topic, "an existing topic's name (SCHEDULE_TOPIC_XXXX is a system topic)")
    if queues is not None and (read_queues is not None or write_queues is not None):
        raise ConfigError("queues", queues, "None when read_queues or write_queues is given (one or the other)")
    queues, read_queues, write_queues = (
        None if value is None else check_int(parameter, value, 1, 1024)
        for parameter, value in (("queues", queues), ("read_queues", read_queues), ("write_queues", write_queues))
    )
    if perm is not None:
        perm = check_perm(perm)
    having = sorted(name for name, broker in lab.brokers.items() if topic in broker.topic_config)
    if not having:
        raise ConfigError("topic", topic, f"a topic that exists on a broker (have {_topic_names(lab)})")
    names = broker_names(lab, brokers, having)
    for name in names:
        if topic not in lab.brokers[name].topic_config:
            raise ConfigError("brokers", name, f"a broker that has {topic}: one of {having}")
        check_reachable(lab, name)
    result: dict[str, TopicConfig] = {}
    for name in names:
        broker = lab.brokers[name]
        have = broker.topic_config[topic]
        read = queues or read_queues or have.read_queue_nums
        write = queues or write_queues or have.write_queue_nums
        config = broker.topic_config_manager.update_topic(topic, read, write, have.perm if perm is None else perm)
        result[name] = dataclasses.replace(config)
        record_admin(
            lab,
            name,
            "updateTopic",
            topic=topic,
            read_queue_nums=config.read_queue_nums,
            write_queue_nums=config.write_queue_nums,
            perm=config.perm,
        )
    return result


def update_subscription_group(
    lab: AdminTarget,
    group: str,
    *,
    retry_queue_nums: int | None,
    retry_max_times: int | None,
    brokers: list[str] | None,
) -> dict[str, Any]:
    """``mqadmin updateSubGroup`` (see :meth:`rmqlab.lab.Lab.update_subscription_group`): checked on every broker
    named, then applied on each and traced."""
    if not isinstance(group, str) or not group or group.startswith("%"):
        raise ConfigError("group", group, "a non-empty consumer group name not starting with '%'")
    if retry_queue_nums is not None:
        retry_queue_nums = check_int("retry_queue_nums", retry_queue_nums, 0, 1024)
    if retry_max_times is not None:
        retry_max_times = check_int("retry_max_times", retry_max_times, 0, 2**31 - 1)
    names = broker_names(lab, brokers, sorted(lab.brokers))
    for name in names:
        check_reachable(lab, name)
    result: dict[str, Any] = {}
    for name in names:
        config = lab.brokers[name].subscription_group_manager.find_subscription_group_config(group)
        if retry_queue_nums is not None:
            config.retry_queue_nums = retry_queue_nums
        if retry_max_times is not None:
            config.retry_max_times = retry_max_times
        result[name] = dataclasses.replace(config)
        record_admin(
            lab,
            name,
            "updateSubGroup",
            group=group,
            retry_queue_nums=config.retry_queue_nums,
            retry_max_times=config.retry_max_times,
        )
    return result


def update_consumer_offset(lab: AdminTarget, group: str, mq: MessageQueue, offset: int) -> None:
    """``updateConsumeOffset`` (see :meth:`rmqlab.lab.Lab.update_consumer_offset`): checked, committed, traced."""
    if not isinstance(group, str) or not group or group.startswith("%"):
        raise ConfigError("group", group, "a consumer group name (not starting with '%')")
    if not isinstance(mq, MessageQueue):
        raise ConfigError("mq", mq, "a MessageQueue (e.g. MessageQueue('TopicTest', 'broker-a', 0))")
    offset = check_int("offset", offset, 0, 2**63 - 1)
    broker = lab.brokers.get(mq.broker_name)
    if broker is None:
        raise ConfigError("mq", mq, f"a queue of a broker of this lab: one of {sorted(lab.brokers)}")
    if mq.topic not in broker.topic_config:  # a typo guard: 4.9.7's commitOffset stores any key
        raise ConfigError("mq", mq, f"a queue of a topic {mq.broker_name} has: one of {sorted(broker.topic_config)}")
    check_reachable(lab, mq.broker_name)
    broker.consumer_offset_manager.commit_offset(group, mq.topic, mq.queue_id, offset, actor=mq.broker_name)
    record_admin(lab, mq.broker_name, "updateConsumeOffset", group=group, queue=str(mq), offset=offset)


def update_broker_config(lab: AdminTarget, name: str, broker_permission: int) -> None:
    """``updateBrokerConfig -k brokerPermission`` (see :meth:`rmqlab.lab.Lab.update_broker_config`)."""
    perm = check_perm(broker_permission, "broker_permission")
    check_reachable(lab, name)
    lab.brokers[name].topic_config_manager.update_broker_permission(perm)
    record_admin(lab, name, "updateBrokerConfig", broker_permission=perm)
