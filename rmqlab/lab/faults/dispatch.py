"""Calling what the registry names: a scenario entry's bound method (:func:`apply`), and the one ordering rule
``lab.at`` follows (:func:`priority_of`: a registered fault call runs at :attr:`~rmqlab.core.scheduler.Priority.FAULT`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...core.errors import ConfigError
from ...core.scheduler import Priority
from .fault import Fault, FaultTarget
from .kinds import BY_KIND, FAULT_TARGETS

__all__ = ["apply", "bound_call", "check_arguments", "is_fault_call", "priority_of", "priority_of_kind"]


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
