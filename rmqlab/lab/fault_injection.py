"""What each injected fault does to the cluster: a broker process stopping and coming back, a broker's
misbehaviour (``set_broker_fault``), a cut link between a client process and a broker; each traced as a FAULT.

The :class:`~rmqlab.lab.Lab` methods of the same names are the entry points (the fault registry's targets,
``Lab.broker_down`` …: they keep the signatures and the docstrings students read) and call these. A broker's
injected misbehaviour (a slow or lost answer, a scripted send answer, a refused send-back, a failed offset query)
is the broker's :class:`~rmqlab.broker.broker_faults.BrokerFaults`, all off by default;
:func:`check_broker_faults` is the one place that says which settings exist and what values each takes, so a bad one is
refused before any is set.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..broker.broker_controller import PutMessageStatus, parse_response_code, parse_send_responses
from ..core import reasons
from ..core.duration import parse_duration
from ..core.errors import ConfigError
from ..core.trace import EventKind
from ..remoting.response_code import ResponseCode

if TYPE_CHECKING:
    from ..broker.broker_controller import Broker
    from ..client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
    from ..client.producer.default_mq_producer import DefaultMQProducer
    from ..core.trace import Trace
    from ..namesrv.route_info_manager import NameServer
    from ..remoting.remoting import Remoting

__all__ = ["FaultHost", "broker_down", "broker_up", "check_broker_faults", "partition", "set_broker_fault"]


class FaultHost(Protocol):
    """The members of a Lab a fault changes or reads (``Lab`` is one): written here, so this module does not
    import ``lab``, not even for a type."""

    @property
    def now(self) -> int:
        """Virtual time in ms."""

    @property
    def trace(self) -> Trace:
        """The event log (FAULT events)."""

    @property
    def namesrv(self) -> NameServer:
        """The name server, which withdraws a stopped broker's routes."""

    @property
    def remoting(self) -> Remoting:
        """The network: its channels and its cut links."""

    @property
    def consumers(self) -> Mapping[str, DefaultMQPushConsumer]:
        """Consumers by client id."""

    @property
    def producers(self) -> Mapping[str, DefaultMQProducer]:
        """Producers by name."""


def broker_down(lab: FaultHost, broker: Broker) -> None:
    """The broker process stops: connections refused, held pulls broken, routes withdrawn."""
    if not broker.up:
        return
    broker.go_down()
    lab.namesrv.broker_down(broker.name)
    lab.trace.record(lab.now, EventKind.FAULT, broker.name, None, fault="broker_down")
    lab.remoting.channel_closed(broker.name)  # requests waiting on it fail at once, in the order they were sent


def broker_up(lab: FaultHost, broker: Broker) -> None:
    """The broker is back; clients see it again at their next route refresh / heartbeat."""
    if broker.up:
        return
    lab.trace.record(lab.now, EventKind.FAULT, broker.name, None, fault="broker_up")
    broker.come_up()  # after the fault event: what the restart logs (delayOffset.json) follows it
    lab.namesrv.broker_up(broker.name)


def set_broker_fault(lab: FaultHost, broker: Broker, faults: Mapping[str, Any]) -> None:
    """Check every setting, then set them all on ``broker`` and trace one FAULT event naming them."""
    values, shown = check_broker_faults(faults)
    for key, value in values.items():
        setattr(broker.faults, key, value)
    lab.trace.record(lab.now, EventKind.FAULT, broker.name, None, fault="broker_fault", **shown)


def partition(lab: FaultHost, client: str, broker: str, *, heal: bool) -> None:
    """Cut (or heal) the link between a client process (a consumer or producer name) and a declared broker."""
    if client not in lab.consumers and client not in lab.producers:
        raise ConfigError(
            "client",
            client,
            f"one of the lab's consumers or producers {sorted({*lab.consumers, *lab.producers})}",
        )
    if not isinstance(client, str) or not client or "/" in client:
        raise ConfigError("client", client, "a consumer or producer name (a process; its inner producer is cut too)")
    link = (client, broker)
    if heal:
        lab.remoting.faults.partitions.discard(link)
    else:
        lab.remoting.faults.partitions.add(link)
    lab.trace.record(lab.now, EventKind.FAULT, broker, None, fault="heal" if heal else "partition", client=client)


def check_broker_faults(faults: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(values, shown)``: the broker attributes to set, and the FAULT event's fields (codes by name)."""
    allowed = {
        "response_delay_ms",
        "lose_responses",
        "put_status",
        "reject_send_back",
        "send_error",
        "send_responses",
        "send_back_error",
        "send_back_remark",
        "query_offset_error",
        "query_offset_remark",
        "pull_error",
        "pull_remark",
    }
    for key in faults:
        if key not in allowed:
            raise ConfigError("fault", key, "one of " + ", ".join(sorted(allowed)))
    values = dict(faults)
    if "response_delay_ms" in values:
        values["response_delay_ms"] = parse_duration(values["response_delay_ms"], "response_delay_ms")
    if "put_status" in values:
        try:
            values["put_status"] = PutMessageStatus(values["put_status"])
        except ValueError:
            raise ConfigError(
                "put_status", faults["put_status"], "one of " + ", ".join(s.value for s in PutMessageStatus)
            ) from None
    if "send_error" in values and values["send_error"] is not None:
        try:
            values["send_error"] = ResponseCode[values["send_error"]]
        except KeyError:
            raise ConfigError(
                "send_error", faults["send_error"], "None or one of " + ", ".join(c.name for c in ResponseCode if c)
            ) from None
    for flag in ("lose_responses", "reject_send_back"):
        if flag in values and not isinstance(values[flag], bool):
            raise ConfigError(flag, values[flag], "True or False")
    shown: dict[str, Any] = {k: (v.value if hasattr(v, "value") else v) for k, v in values.items()}
    if values.get("send_error") is not None:
        shown["send_error"] = values["send_error"].name  # the code's name, as send_back_error shows it
    if "send_responses" in values:
        values["send_responses"] = parse_send_responses(values["send_responses"])
        shown["send_responses"] = [f"{code.name}: {remark}" for code, remark in values["send_responses"]]
    for request in ("send_back", "query_offset", "pull"):  # an error code and its remark, for one request code
        error, remark_key = f"{request}_error", f"{request}_remark"
        remark = values.pop(remark_key, None)
        if remark is not None and not isinstance(remark, str):
            raise ConfigError(remark_key, remark, "a string (the response's remark), or None")
        if remark is not None and values.get(error) is None:
            raise ConfigError(remark_key, remark, f"only together with a {error} code")
        if values.get(error) is not None:
            code = parse_response_code(values[error], error, allow_success=False)
            values[error] = (code, reasons.INJECTED_FAULT.format(code=code.name) if remark is None else remark)
            shown[error] = code.name
    return values, shown
