"""Option checks shared by every public constructor: one message shape for every bad value.

Integral floats (``3.0``, JSON's ``1e2``) are accepted as the integers they equal, everywhere an int is
asked for: JSON Schema counts them as integers, JSON tools write them, and ``parse_duration`` always took
them. Callers use the *returned* value, which is a real ``int``.

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/consumer/DefaultMQPushConsumerImpl.java
    (DefaultMQPushConsumerImpl.checkConfig)
Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/producer/DefaultMQProducerImpl.java
    (DefaultMQProducerImpl.checkConfig)
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any, TypeVar

from .errors import ConfigError

__all__ = [
    "MAX_HORIZON_MS",
    "SYSTEM_TOPICS",
    "TOPIC_MAX_LENGTH",
    "as_int",
    "check_choice",
    "check_horizon",
    "check_int",
    "check_name",
    "check_topic_name",
]

E = TypeVar("E", bound=Enum)


def as_int(value: Any) -> int | None:
    """``value`` as an int if it is one (or an integral float such as ``3.0``), else ``None``; bools are not ints."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def check_int(parameter: str, value: Any, low: int, high: int) -> int:
    """Return ``value`` as an int if it is one in ``[low, high]``, else raise a :class:`ConfigError`."""
    number = as_int(value)
    if number is None or not low <= number <= high:
        raise ConfigError(parameter, value, f"an int in {low}..{high}")
    return number


MAX_HORIZON_MS = 7 * 86_400_000
"""The latest virtual time a run reaches or an action is scheduled at: 7 days (604,800,000 ms).

Every retry schedule (4 h 46 m), the 2 h delay level and 48 h retention fit many times over, while a run's
periodic timers (rebalance every 20 s, heartbeats, the broker's scans …) cost real time per virtual hour:
a 10-year or ``10**30`` ms run would never return. ``Lab.run(until=...)``, ``lab.at(time, ...)`` and a
scenario's ``run_until`` share this bound.
"""


def check_horizon(parameter: str, value: Any, ms: int) -> int:
    """``ms`` (``value`` parsed) if it is within :data:`MAX_HORIZON_MS`, else a ConfigError naming ``value``."""
    if ms > MAX_HORIZON_MS:
        raise ConfigError(parameter, value, f"a time <= 7d ({MAX_HORIZON_MS} ms), the longest run rmqlab allows")
    return ms


def check_choice(parameter: str, value: Any, enum: type[E]) -> E:
    """Coerce ``value`` to a member of ``enum`` (by value or name) or raise a :class:`ConfigError`."""
    if isinstance(value, enum):
        return value
    for member in enum:
        if value == member.value or value == member.name:
            return member
    raise ConfigError(parameter, value, "one of " + ", ".join(str(m.value) for m in enum))


TOPIC_MAX_LENGTH = 127
"""``TopicValidator.TOPIC_MAX_LENGTH`` (4.9.7)."""
SYSTEM_TOPICS = (
    "TBW102",
    "SCHEDULE_TOPIC_XXXX",
    "BenchmarkTest",
    "RMQ_SYS_TRANS_HALF_TOPIC",
    "RMQ_SYS_TRACE_TOPIC",
    "RMQ_SYS_TRANS_OP_HALF_TOPIC",
    "TRANS_CHECK_MAX_TIME_TOPIC",
    "SELF_TEST_TOPIC",
    "OFFSET_MOVED_EVENT",
)
"""``TopicValidator.SYSTEM_TOPIC_SET`` of 4.9.7; names starting with ``rmq_sys_`` are system topics too."""
SYSTEM_TOPIC_PREFIX = "rmq_sys_"
_TOPIC_PATTERN = re.compile(r"[%|a-zA-Z0-9_-]+")


def check_topic_name(parameter: str, value: Any, *, dead_letter: bool = False) -> str:
    """A topic an operator may create: ``AdminBrokerProcessor.updateAndCreateTopic``'s checks of 4.9.7.

    ``TopicValidator.validateTopic`` (not blank, only ``^[%|a-zA-Z0-9_-]+$``, at most 127 characters), then
    ``TopicValidator.isSystemTopic`` (``TBW102``, ``RMQ_SYS_TRANS_HALF_TOPIC``, … or ``rmq_sys_*``). rmqlab
    also keeps names starting with ``%`` for the broker's own ``%RETRY%`` / ``%DLQ%`` topics; with
    ``dead_letter`` a ``%DLQ%<group>`` is allowed, which 4.9.7's ``mqadmin updateTopic`` creates like any topic
    (the broker's send-back then keeps that config: ``createTopicInSendMessageBackMethod``).
    """
    if dead_letter and isinstance(value, str) and value.startswith("%DLQ%") and value[5:][:1] not in ("", "%"):
        return check_topic_name(parameter, value[5:]) and value
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(parameter, value, "a non-empty topic name")
    if not _TOPIC_PATTERN.fullmatch(value):
        raise ConfigError(parameter, value, "a topic name of the characters ^[%|a-zA-Z0-9_-]+$ only (TopicValidator)")
    if len(value) > TOPIC_MAX_LENGTH:
        raise ConfigError(
            parameter, value, f"a topic name of at most {TOPIC_MAX_LENGTH} characters (this one has {len(value)})"
        )
    if value.startswith("%"):
        raise ConfigError(parameter, value, "a business topic name (system names start with '%')")
    if value in SYSTEM_TOPICS or value.startswith(SYSTEM_TOPIC_PREFIX):
        raise ConfigError(
            parameter, value, f"not a system topic ({', '.join(SYSTEM_TOPICS)} or {SYSTEM_TOPIC_PREFIX}*)"
        )
    return value


def check_name(parameter: str, value: Any) -> str:
    """A broker, group or client name: a non-empty string without control characters.

    A NUL, newline or tab in a name would break every view that prints one name a line (the trace, the timeline,
    a scenario file written back) and no RocketMQ name can hold one (``Validators.checkGroup`` allows only
    ``^[%|a-zA-Z0-9_-]+$`` for groups; a broker name is a line of ``broker.conf``).
    """
    if not isinstance(value, str) or not value:
        raise ConfigError(parameter, value, "a non-empty name (str)")
    bad = next((c for c in value if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        raise ConfigError(
            parameter, value, f"a name without control characters (NUL, newline, tab …; this one has {bad!r})"
        )
    return value
