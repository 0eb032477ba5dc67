"""rmqlab — Apache RocketMQ's message-reliability machinery as a deterministic simulation.

The engine runs RocketMQ 4.9.7's real pipeline (producer retries, consumer send-back, the
ScheduleMessageService, the dead-letter queue, orderly locks) in virtual milliseconds, so a
4 h 46 min retry schedule runs in a few milliseconds of wall time. It imports nothing from Jupyter;
the views live in the separate ``widgets`` package.
"""

from __future__ import annotations

from .broker.broker_controller import Broker, PutMessageStatus
from .client.consumer.default_mq_push_consumer import ConsumeFromWhere, DefaultMQPushConsumer, MessageModel
from .client.consumer.listener import (
    HANG,
    ConsumeConcurrentlyContext,
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyContext,
    ConsumeOrderlyStatus,
    ScriptedListener,
    after,
)
from .client.producer.default_mq_producer import (
    CommunicationMode,
    DefaultMQProducer,
    SelectMessageQueueByHash,
    SendResult,
    SendStatus,
)
from .common.message import Message, MessageExt, dlq_topic, retry_topic
from .common.message_queue import MessageQueue
from .core.duration import format_duration, parse_duration
from .core.errors import ConfigError, RmqlabError, ScenarioError, SimulationError
from .core.scheduler import Priority, Scheduler, TimerKind
from .core.trace import EventKind, Trace, TraceEvent
from .invariants import InvariantReport, Violation, check_invariants
from .lab.lab import Lab
from .lab.report import build_report, format_timeline, summary
from .lab.scenario import Scenario, load_scenario
from .snapshot import LabSnapshot
from .store.schedule_message_service import DEFAULT_MESSAGE_DELAY_LEVEL, DelayLevelTable


def _installed_version() -> str:
    """The version pip installed (pyproject.toml is its one source), or ``0+unknown`` from a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rmqlab")
    except PackageNotFoundError:
        return "0+unknown"


__version__ = _installed_version()

__all__ = [
    "DEFAULT_MESSAGE_DELAY_LEVEL",
    "HANG",
    "Broker",
    "CommunicationMode",
    "ConfigError",
    "ConsumeConcurrentlyContext",
    "ConsumeConcurrentlyStatus",
    "ConsumeFromWhere",
    "ConsumeOrderlyContext",
    "ConsumeOrderlyStatus",
    "DefaultMQProducer",
    "DefaultMQPushConsumer",
    "DelayLevelTable",
    "EventKind",
    "InvariantReport",
    "Lab",
    "LabSnapshot",
    "Message",
    "MessageExt",
    "MessageModel",
    "MessageQueue",
    "Priority",
    "PutMessageStatus",
    "RmqlabError",
    "Scenario",
    "ScenarioError",
    "Scheduler",
    "ScriptedListener",
    "SelectMessageQueueByHash",
    "SendResult",
    "SendStatus",
    "SimulationError",
    "TimerKind",
    "Trace",
    "TraceEvent",
    "Violation",
    "after",
    "build_report",
    "check_invariants",
    "dlq_topic",
    "format_duration",
    "format_timeline",
    "load_scenario",
    "parse_duration",
    "retry_topic",
    "summary",
]
