"""The fault registry: every fault and timed ``mqadmin`` command a scenario file or ``lab.at`` can inject.

One table, written once, used five ways:

* the scenario schema's ``fault`` definition — its ``kind`` enum and each kind's fields, types and ranges —
  is generated from it (:func:`fault_schema`; ``python -m rmqlab.faults`` rewrites
  ``rmqlab/schema/scenario.schema.json``, and a test fails when the file and the registry disagree);
* the scenario reference in the docs lists each kind, its call and its fields from it (``docs/build_docs.py``);
* a scenario file's fault entry is dispatched through it (:func:`apply`): ``{"kind": "broker_slow",
  "broker": "broker-a", "response_delay_ms": "4s"}`` calls ``lab.set_broker_fault("broker-a",
  response_delay_ms="4s")``;
* the dashboard's fault buttons are the kinds with a :attr:`Fault.dashboard` label (``widgets.replay.FAULT_KINDS``),
  and an injected one is dispatched through :func:`apply` too;
* ``lab.at`` runs every call the registry names at :attr:`~rmqlab.scheduler.Priority.FAULT` (:func:`is_fault_call`),
  so a fault at a millisecond acts before that millisecond's ordinary work whichever way it was scheduled.

This module imports nothing from :mod:`rmqlab.lab`, not even for a type (:class:`FaultTarget`): ``Lab.at`` asks
it which calls are faults.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .broker import PutMessageStatus
from .errors import ConfigError
from .remoting import ResponseCode
from .scheduler import Priority

if TYPE_CHECKING:
    from .consumer import DefaultMQPushConsumer

__all__ = [
    "FAULTS",
    "FAULT_TARGETS",
    "Fault",
    "FaultTarget",
    "Param",
    "apply",
    "fault_schema",
    "is_fault_call",
    "priority_of",
]


class FaultTarget(Protocol):
    """What a fault is applied to: the :class:`~rmqlab.lab.Lab` (its fault and ``mqadmin`` methods are found by
    name, ``Fault.target``) and its consumers by client id. Written here, so this module and ``lab`` do not
    import each other, not even for a type."""

    def consumer(self, name: str) -> DefaultMQPushConsumer:
        """The consumer whose client id is ``name``."""


_NAME = {"$ref": "#/$defs/name"}
_DURATION = {"$ref": "#/$defs/duration"}
_CODES = [code.name for code in ResponseCode]
_FAILING_CODES = [code.name for code in ResponseCode if code is not ResponseCode.SUCCESS]
_BROKERS = {"type": "array", "minItems": 1, "uniqueItems": True, "items": _NAME}


@dataclass(frozen=True, slots=True)
class Param:
    """One field of a fault entry: its JSON Schema (type, range, what is allowed) and what it names."""

    name: str
    schema: Mapping[str, Any]
    required: bool = False
    ref: str | None = None
    """What the value must name in the scenario: ``broker``, ``brokers``, ``client``, ``consumer``, ``topic`` or
    ``group`` (cross-references the scenario loader checks after the schema)."""
    keyword: str | None = None
    """The Lab method's keyword for this field (default: the field's own name); ``""``: passed positionally."""
    default: Any = None
    """Passed when the field is absent (``None``: not passed, the method's own default applies)."""

    @property
    def description(self) -> str:
        return str(self.schema.get("description", ""))


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault kind: its fields, the method it calls (``Lab.broker_down``), and a one-line docstring."""

    kind: str
    doc: str
    target: str
    """``Lab.<method>``, or ``DefaultMQPushConsumer.<method>`` called on ``lab.consumer(<consumer>)``."""
    params: tuple[Param, ...]
    fixed: Mapping[str, Any] = field(default_factory=dict)
    """Keywords always passed (``heal=True`` for ``heal``)."""
    admin: bool = False
    """An ``mqadmin`` command (refused when its broker is down), not a failure."""
    arguments: Callable[[Mapping[str, Any]], tuple[tuple[Any, ...], dict[str, Any]]] | None = None
    """A kind whose fields do not map one to one onto keywords computes its call here."""
    dashboard: str | None = None
    """What the dashboard calls this fault in its list of injected ones (``crash``); ``None``: the dashboard has no
    button for it. Only kinds whose fields are all names (a broker, a consumer, a client and a broker) qualify:
    a click injects it now on the chosen target, nothing else to fill in."""

    def call_arguments(self, spec: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """``(args, kwargs)`` of the target call for a schema-valid entry ``spec``."""
        if self.arguments is not None:
            return self.arguments(spec)
        args: list[Any] = []
        kwargs: dict[str, Any] = dict(self.fixed)
        for param in self.params:
            if self.target.startswith("DefaultMQPushConsumer.") and param.ref == "consumer":
                continue  # names the receiver, not an argument
            value = spec.get(param.name, param.default)
            if value is None:
                continue
            if param.keyword == "":
                args.append(value)
            else:
                kwargs[param.keyword or param.name] = value
        return tuple(args), kwargs


def _offset_query_failure(spec: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``code`` (SYSTEM_ERROR by default) and ``remark``; SUCCESS clears the fault."""
    code = spec.get("code", "SYSTEM_ERROR")
    if code == "SUCCESS":
        return (spec["broker"],), {"query_offset_error": None}
    return (spec["broker"],), {"query_offset_error": code, "query_offset_remark": spec.get("remark")}


def _send_back_failure(spec: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """With ``code``: that answer (and ``remark``); without: the plain SYSTEM_ERROR refusal (``reject_send_back``)."""
    if "code" in spec:
        return (spec["broker"],), {"send_back_error": spec["code"], "send_back_remark": spec.get("remark")}
    return (spec["broker"],), {"reject_send_back": spec.get("reject_send_back", True)}


def _broker(description: str = "a declared broker") -> Param:
    return Param("broker", {**_NAME, "description": description}, required=True, ref="broker", keyword="")


_CONSUMER = Param("consumer", {**_NAME, "description": "a declared consumer"}, required=True, ref="consumer")
_CLIENT = Param(
    "client",
    {**_NAME, "description": "a declared consumer or producer (a consumer's inner producer is cut with it)"},
    required=True,
    ref="client",
    keyword="",
)
_GROUP = {
    "type": "string",
    "pattern": "^[^%]",
    "description": "the group of a declared consumer (not starting with '%')",
}

FAULTS: tuple[Fault, ...] = (
    Fault(
        "broker_down",
        "The broker process stops: connections refused, held pulls broken, routes withdrawn.",
        "Lab.broker_down",
        (_broker(),),
        dashboard="crash",
    ),
    Fault(
        "broker_up",
        "The broker is back; clients see it again at their next route poll / heartbeat.",
        "Lab.broker_up",
        (_broker(),),
        dashboard="restart",
    ),
    Fault(
        "broker_slow",
        "Every response of the broker is delayed (requests past their timeout fail on the client).",
        "Lab.set_broker_fault",
        (_broker(), Param("response_delay_ms", {**_DURATION}, required=True)),
    ),
    Fault(
        "lose_responses",
        "The broker acts on requests but its responses are lost (the client times out).",
        "Lab.set_broker_fault",
        (
            _broker(),
            Param("lose_responses", {"type": "boolean", "description": "true or false (default true)"}, default=True),
        ),
    ),
    Fault(
        "flush_timeout",
        "SEND_MESSAGE gets this PutMessageStatus (stored with a flush timeout, or failed and not stored).",
        "Lab.set_broker_fault",
        (
            _broker(),
            Param(
                "put_status",
                {
                    "enum": [status.value for status in PutMessageStatus],
                    "description": "a PutMessageStatus (default FLUSH_DISK_TIMEOUT; PUT_OK clears it); the last seven"
                    " fail the send",
                },
                default="FLUSH_DISK_TIMEOUT",
            ),
        ),
    ),
    Fault(
        "send_back_failure",
        "CONSUMER_SEND_MSG_BACK is refused (SYSTEM_ERROR, or the given code): the consumer falls back.",
        "Lab.set_broker_fault",
        (
            _broker(),
            Param("reject_send_back", {"type": "boolean", "description": "true or false (default true)"}),
            Param(
                "code",
                {
                    "enum": _FAILING_CODES,
                    "description": "the response code the send-back gets (instead of SYSTEM_ERROR), e.g. SYSTEM_BUSY",
                },
            ),
            Param("remark", {"type": "string", "description": "its remark (with code)"}),
        ),
        arguments=_send_back_failure,
    ),
    Fault(
        "send_error",
        "Every SEND_MESSAGE is answered with this error code (nothing stored) until cleared with SUCCESS.",
        "Lab.set_broker_fault",
        (
            _broker(),
            Param(
                "code",
                {
                    "enum": _CODES,
                    "description": "the response code, e.g. SYSTEM_ERROR (retried) or"
                    " MESSAGE_ILLEGAL (not); SUCCESS clears it",
                },
                required=True,
            ),
        ),
        arguments=lambda spec: ((spec["broker"],), {"send_error": None if spec["code"] == "SUCCESS" else spec["code"]}),
    ),
    Fault(
        "offset_query_failure",
        "QUERY_CONSUMER_OFFSET is answered with an error: the consumer reads 'no offset' (-1) and starts as if new.",
        "Lab.set_broker_fault",
        (
            _broker(),
            Param(
                "code",
                {"enum": _CODES, "description": "the response code (default SYSTEM_ERROR); SUCCESS clears it"},
                default="SYSTEM_ERROR",
            ),
            Param("remark", {"type": "string", "description": "its remark"}),
        ),
        arguments=_offset_query_failure,
    ),
    Fault(
        "send_responses",
        "Scripted SEND_MESSAGE answers: one per request, in order, then normal again.",
        "Lab.set_broker_fault",
        (
            _broker(),
            Param(
                "responses",
                {
                    "type": "array",
                    "description": "one answer per SEND_MESSAGE, in order, then normal again: a code name, or"
                    " {code, remark}",
                    "items": {
                        "oneOf": [
                            {"enum": _CODES},
                            {
                                "type": "object",
                                "required": ["code"],
                                "properties": {"code": {"enum": _CODES}, "remark": {"type": "string"}},
                                "additionalProperties": False,
                            },
                        ]
                    },
                },
                required=True,
                keyword="send_responses",
            ),
        ),
    ),
    Fault(
        "partition",
        "The link between a client process and a broker is cut (requests fail to connect).",
        "Lab.partition",
        (_CLIENT, _broker()),
        dashboard="partition",
    ),
    Fault(
        "heal",
        "A partitioned link works again.",
        "Lab.partition",
        (_CLIENT, _broker()),
        fixed={"heal": True},
        dashboard="heal",
    ),
    Fault(
        "consumer_crash",
        "The consumer process dies: no unregister, no offset persist (the broker notices after 120 s).",
        "DefaultMQPushConsumer.crash",
        (_CONSUMER,),
        dashboard="crash consumer",
    ),
    Fault(
        "consumer_restart",
        "A crashed or removed consumer starts again (offsets from the broker, or its local file).",
        "DefaultMQPushConsumer.start",
        (_CONSUMER,),
        dashboard="restart consumer",
    ),
    Fault(
        "consumer_add",
        "A consumer declared with start: null starts (scale-out: the group rebalances).",
        "DefaultMQPushConsumer.start",
        (_CONSUMER,),
    ),
    Fault(
        "consumer_remove",
        "A consumer shuts down cleanly: offsets persisted, unregistered, the group rebalances.",
        "DefaultMQPushConsumer.shutdown",
        (_CONSUMER,),
    ),
    Fault(
        "update_topic",
        "mqadmin updateTopic: change a topic's queue counts or permission on its brokers.",
        "Lab.update_topic",
        (
            Param(
                "topic",
                {
                    **_NAME,
                    "description": "a declared topic, or %RETRY%<group> / %DLQ%<group> of a declared consumer group",
                },
                required=True,
                ref="topic",
                keyword="",
            ),
            Param(
                "queues",
                {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 1024,
                    "description": "an int in 1..1024: read and write queues",
                },
            ),
            Param(
                "read_queues", {"type": "integer", "minimum": 1, "maximum": 1024, "description": "an int in 1..1024"}
            ),
            Param(
                "write_queues", {"type": "integer", "minimum": 1, "maximum": 1024, "description": "an int in 1..1024"}
            ),
            Param("perm", {"enum": [6, 4, 2, 0], "description": "6 (read+write), 4 (read only), 2 (write only) or 0"}),
            Param(
                "brokers",
                {
                    **_BROKERS,
                    "description": "a non-empty list of distinct brokers (default: every broker that has the topic)",
                },
                ref="brokers",
            ),
        ),
        admin=True,
    ),
    Fault(
        "update_subscription_group",
        "mqadmin updateSubGroup: set a consumer group's retry queues or retry limit on the brokers.",
        "Lab.update_subscription_group",
        (
            Param("group", _GROUP, required=True, ref="group", keyword=""),
            Param(
                "retry_queue_nums",
                {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 1024,
                    "description": "an int in 0..1024 (raising it once %RETRY%<group> exists strands retries)",
                },
            ),
            Param(
                "retry_max_times",
                {"type": "integer", "minimum": 0, "maximum": 2147483647, "description": "an int in 0..2147483647"},
            ),
            Param(
                "brokers",
                {**_BROKERS, "description": "a non-empty list of distinct brokers (default: all)"},
                ref="brokers",
            ),
        ),
        admin=True,
    ),
    Fault(
        "update_broker_config",
        "mqadmin updateBrokerConfig -k brokerPermission: a broker not read+write drops out of producers' routes.",
        "Lab.update_broker_config",
        (
            _broker(),
            Param(
                "broker_permission",
                {"enum": [6, 4, 2, 0], "description": "6 (read+write), 4 (read only), 2 (write only) or 0"},
                required=True,
            ),
        ),
        admin=True,
    ),
)
"""Every fault kind, in the order the schema and the docs list them."""

BY_KIND: dict[str, Fault] = {fault.kind: fault for fault in FAULTS}
FAULT_TARGETS = frozenset(fault.target for fault in FAULTS)
"""The ``__qualname__`` of every method the registry calls: ``lab.at`` runs these at Priority.FAULT."""


def is_fault_call(action: Callable[..., Any]) -> bool:
    """True for a bound method the registry names (``lab.broker_down``, ``consumer.crash`` …).

    Matched by the function's ``__qualname__``, so a subclass's inherited method counts and nothing needs
    importing here; a lambda or a wrapper around a fault is ordinary work (wrap nothing you want ordered first).
    """
    func = getattr(action, "__func__", None)
    return getattr(func, "__qualname__", None) in FAULT_TARGETS


def priority_of(action: Callable[..., Any]) -> Priority:
    """The one ordering rule: a registered fault call runs at Priority.FAULT, anything else at NORMAL."""
    return Priority.FAULT if is_fault_call(action) else Priority.NORMAL


def check_arguments(action: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """Refuse, when it is scheduled, a fault call whose arguments its method cannot take (it would only fail,
    as a WARNING, when its time comes): ``lab.at("5s", lab.broker_down)``, ``lab.update_topic("T", queus=2)``."""
    import inspect

    signature = inspect.signature(action)
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        name = getattr(action, "__qualname__", "action")
        shown = ", ".join([*(repr(a) for a in args), *(f"{k}={v!r}" for k, v in kwargs.items())])
        raise ConfigError(
            "action", f"{name}({shown})", f"the arguments of {name}({_parameters(signature)}): {exc}"
        ) from None


def _parameters(signature: Any) -> str:
    """``name, *, heal=False``: a signature without its annotations (they are strings here)."""
    import inspect

    parts: list[str] = []
    for param in signature.parameters.values():
        if param.kind is param.KEYWORD_ONLY and not any(p.startswith("*") for p in parts):
            parts.append("*")
        text = param.name if param.default is inspect.Parameter.empty else f"{param.name}={param.default!r}"
        parts.append({param.VAR_POSITIONAL: "*", param.VAR_KEYWORD: "**"}.get(param.kind, "") + text)
    return ", ".join(parts)


def priority_of_kind(kind: str) -> Priority:
    """A scenario fault entry's priority: that of the call it makes (every registered kind: FAULT)."""
    return Priority.FAULT if BY_KIND[kind].target in FAULT_TARGETS else Priority.NORMAL


def bound_call(
    lab: FaultTarget, fault: Fault, spec: Mapping[str, Any]
) -> tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]:
    """The bound method and its arguments for one schema-valid entry (names resolved on this ``lab``)."""
    owner, method = fault.target.split(".")
    receiver: Any = lab.consumer(spec["consumer"]) if owner == "DefaultMQPushConsumer" else lab
    args, kwargs = fault.call_arguments(spec)
    return getattr(receiver, method), args, kwargs


def apply(lab: FaultTarget, spec: Mapping[str, Any]) -> Any:
    """Inject the fault entry ``spec`` (``{"kind": ..., <fields>}``) into ``lab`` now."""
    method, args, kwargs = bound_call(lab, BY_KIND[spec["kind"]], spec)
    return method(*args, **kwargs)


# ---------------------------------------------------------------------- the schema's fault definition
def fault_schema() -> dict[str, Any]:
    """The scenario schema's ``$defs.fault``: ``at`` and ``kind``, then each kind's fields (if kind → then)."""
    kinds = [fault.kind for fault in FAULTS]
    return {
        "type": "object",
        "required": ["at", "kind"],
        "description": "a fault or timed mqadmin command at a virtual time; the fields after kind depend on the kind",
        "properties": {
            "at": _DURATION,
            "kind": {"enum": kinds, "description": "one of " + ", ".join(kinds)},
        },
        "allOf": [_kind_schema(fault) for fault in FAULTS],
    }


def _kind_schema(fault: Fault) -> dict[str, Any]:
    then: dict[str, Any] = {}
    required = [param.name for param in fault.params if param.required]
    if required:
        then["required"] = required
    then["properties"] = {"at": True, "kind": True, **{param.name: dict(param.schema) for param in fault.params}}
    then["additionalProperties"] = False
    return {"if": {"properties": {"kind": {"const": fault.kind}}}, "then": then}


FAULT_MARKER = '    "fault": {'
"""The line where the schema file's fault definition starts; it runs to the end of ``$defs``."""


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def fault_schema_text() -> str:
    """The fault definition as the schema file spells it: one line per field and per kind, for review."""
    schema = fault_schema()
    lines = [FAULT_MARKER]
    lines += [f'      "{key}": {_dump(schema[key])},' for key in ("type", "required", "description")]
    lines += ['      "properties": {']
    lines += [f'        "{key}": {_dump(value)},' for key, value in schema["properties"].items()]
    lines[-1] = lines[-1].rstrip(",")
    lines += ["      },", '      "allOf": [']
    lines += [f"        {_dump(block)}," for block in schema["allOf"]]
    lines[-1] = lines[-1].rstrip(",")
    lines += ["      ]", "    }", "  }", "}"]
    return "\n".join(lines) + "\n"


def schema_file_text(current: str) -> str:
    """``current`` (the schema file's text) with the fault definition written anew from the registry."""
    head = current[: current.index(FAULT_MARKER)]
    return head + fault_schema_text()


def _write_schema() -> None:
    """Rewrite the shipped schema file's fault definition from the registry (``python -m rmqlab.faults``)."""
    from pathlib import Path

    path = Path(__file__).with_name("schema") / "scenario.schema.json"
    path.write_text(schema_file_text(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    _write_schema()
