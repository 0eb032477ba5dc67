"""A fault kind as data: its fields (:class:`Param`, each with its JSON Schema), the method it calls, and what
it is applied to (:class:`FaultTarget`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ...client.consumer.default_mq_push_consumer import DefaultMQPushConsumer

__all__ = ["Fault", "FaultTarget", "Param"]


class FaultTarget(Protocol):
    """What a fault is applied to: the :class:`~rmqlab.lab.Lab` (its fault and ``mqadmin`` methods are found by
    name, ``Fault.target``) and its consumers by client id. Written here, so this module and ``lab`` do not
    import each other, not even for a type."""

    def consumer(self, name: str) -> DefaultMQPushConsumer:
        """The consumer whose client id is ``name``."""


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
