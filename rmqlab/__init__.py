"""rmqlab — Apache RocketMQ's message-reliability machinery as a deterministic simulation.

The engine runs RocketMQ 4.9.7's real pipeline (producer retries, consumer send-back, the
ScheduleMessageService, the dead-letter queue, orderly locks) in virtual milliseconds, so a
4 h 46 min retry schedule runs in a few milliseconds of wall time. It imports nothing from Jupyter;
the views are the separate ``rmqlab.widgets`` package (the repository's ``widgets/`` folder, installed
under rmqlab's name by pyproject.toml's package-dir mapping; it needs the ``[lab]`` extra).

The names below are imported on first use (PEP 562), not by ``import rmqlab``: ``rmqlab --version`` and
``rmqlab schema`` then start without loading the engine, and ``rmqlab run`` loads only what a run needs
(bench/cli_start.py measures it). ``from rmqlab import Lab`` works as always.
"""

from __future__ import annotations

import importlib
import os
import sys
from importlib.machinery import ModuleSpec, SourceFileLoader
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

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
    from .core.i18n import set_language
    from .core.scheduler import Priority, Scheduler, TimerKind
    from .core.trace import EventKind, Trace, TraceEvent
    from .invariants import InvariantReport, Violation, check_invariants
    from .lab.lab import Lab
    from .lab.report import build_report, format_timeline, summary
    from .lab.scenario import Scenario, load_scenario
    from .snapshot import LabSnapshot
    from .store.schedule_message_service import DEFAULT_MESSAGE_DELAY_LEVEL, DelayLevelTable

_EXPORTS: dict[str, tuple[str, ...]] = {
    "broker.broker_controller": ("Broker", "PutMessageStatus"),
    "client.consumer.default_mq_push_consumer": ("ConsumeFromWhere", "DefaultMQPushConsumer", "MessageModel"),
    "client.consumer.listener": (
        "HANG",
        "ConsumeConcurrentlyContext",
        "ConsumeConcurrentlyStatus",
        "ConsumeOrderlyContext",
        "ConsumeOrderlyStatus",
        "ScriptedListener",
        "after",
    ),
    "client.producer.default_mq_producer": (
        "CommunicationMode",
        "DefaultMQProducer",
        "SelectMessageQueueByHash",
        "SendResult",
        "SendStatus",
    ),
    "common.message": ("Message", "MessageExt", "dlq_topic", "retry_topic"),
    "common.message_queue": ("MessageQueue",),
    "core.duration": ("format_duration", "parse_duration"),
    "core.i18n": ("set_language",),
    "core.errors": ("ConfigError", "RmqlabError", "ScenarioError", "SimulationError"),
    "core.scheduler": ("Priority", "Scheduler", "TimerKind"),
    "core.trace": ("EventKind", "Trace", "TraceEvent"),
    "invariants": ("InvariantReport", "Violation", "check_invariants"),
    "lab.lab": ("Lab",),
    "lab.report": ("build_report", "format_timeline", "summary"),
    "lab.scenario": ("Scenario", "load_scenario"),
    "snapshot": ("LabSnapshot",),
    "store.schedule_message_service": ("DEFAULT_MESSAGE_DELAY_LEVEL", "DelayLevelTable"),
}
"""Each public name's module (relative to ``rmqlab``), read by :func:`__getattr__`."""

_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> object:
    """Import a public name's module the first time the name is asked for, and keep the name."""
    if name == "__version__":
        value: object = _installed_version()
    elif name in _MODULE_OF:
        value = getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names (loaded or not) and the module's own dunders; not the helpers this module imports."""
    return sorted({*__all__, "__version__", *(name for name in globals() if name.startswith("_"))})


def _installed_version() -> str:
    """The version pip installed (pyproject.toml is its one source), or ``0+unknown`` from a bare checkout.

    An installed distribution's folder is named ``rmqlab-VERSION.dist-info`` (the wheel format says so), and the
    first one on ``sys.path`` is the one ``importlib.metadata`` reads: that name alone answers ``rmqlab --version``
    without importing importlib.metadata (with email, zipfile and csv, most of the command's start-up). Anything
    else (an ``.egg-info``) is left to importlib.metadata.
    """
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            if name.startswith("rmqlab-") and name.endswith(".dist-info"):
                return name[len("rmqlab-") : -len(".dist-info")]
            if name.startswith(("rmqlab-", "rmqlab.")) and name.endswith(".egg-info"):
                return _metadata_version()
    return _metadata_version()


def _metadata_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rmqlab")
    except PackageNotFoundError:
        return "0+unknown"


class _CheckoutViews:
    """``rmqlab.widgets`` in a source checkout, where the views are ``widgets/`` beside ``rmqlab/``.

    A wheel or an editable install maps that folder to ``rmqlab/widgets`` (pyproject.toml's package-dir); a checkout
    on ``PYTHONPATH`` has no such folder, so this finder (a meta path finder: an object with ``find_spec``) says where
    it is. Only the package itself is found here: its submodules are then found by the usual path search in its
    ``__path__``. It goes first in ``sys.meta_path``: the views must be those beside the ``rmqlab`` just imported,
    even where an editable install of another checkout maps ``rmqlab.widgets`` elsewhere (a git worktree on
    ``PYTHONPATH``). Plain ``os.path``, no pathlib or importlib.abc: ``rmqlab --version`` imports this module.
    """

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != f"{__name__}.widgets":
            return None
        init = os.path.join(self.folder, "__init__.py")
        spec = ModuleSpec(fullname, SourceFileLoader(fullname, init), origin=init, is_package=True)
        spec.submodule_search_locations = [self.folder]
        spec.has_location = True
        return spec


def _find_checkout_views() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.path.join(os.path.dirname(here), "widgets")
    if not os.path.isdir(os.path.join(here, "widgets")) and os.path.isfile(os.path.join(folder, "__init__.py")):
        sys.meta_path.insert(0, _CheckoutViews(folder))


_find_checkout_views()

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
    "set_language",
    "summary",
]
