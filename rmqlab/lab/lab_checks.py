"""The Lab's argument checks that look at more than one value: each refuses, before anything changes, a call that
would be accepted now and fail later (as a trace WARNING when its time comes, or as a broken invariant).

``lab`` is the :class:`~rmqlab.lab.Lab` (its ``brokers`` and ``consumers``), typed ``Any`` so that this module does
not import ``lab``, which imports it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from ..core.errors import ConfigError
from ..core.validation import check_name

__all__ = ["check_action", "check_consumer", "check_fault_targets"]


def check_action(action: Any) -> None:
    """``lab.at(time, action, …)``: ``action`` must be something to call."""
    if not callable(action):
        raise ConfigError(
            "action", action, "a callable: a function, a lambda, or a lab method such as lab.broker_down (not called)"
        )


def check_fault_targets(lab: Any, action: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """A Lab fault method scheduled with ``lab.at``: the broker it names must exist now (``lab.at(t,
    lab.broker_down, "zzz")`` would otherwise fail only when its time comes, as a WARNING)."""
    brokers: Mapping[str, Any] = lab.brokers
    if getattr(action, "__self__", None) is not lab:
        return
    bound = inspect.signature(action).bind(*args, **kwargs).arguments  # check_arguments has bound it already
    names = [bound["broker"]] if "broker" in bound else []
    if "name" in bound and getattr(action, "__name__", "") in BROKER_NAMED:
        names.append(bound["name"])
    for value in names:
        if value not in brokers:
            raise ConfigError("broker", value, f"one of {sorted(brokers)}")


BROKER_NAMED = frozenset({"broker_down", "broker_up", "set_broker_fault"})
"""The Lab fault methods whose ``name`` parameter is a broker's name."""


def check_consumer(lab: Any, consumer_group: Any, subscribe: Any, orderly: bool, options: Mapping[str, Any]) -> None:
    """``lab.add_consumer``'s checks across arguments: names, the subscription's shape, one consume mode per group."""
    check_name("consumer_group", consumer_group)  # a client's own name may hold any character: it is escaped when shown
    if subscribe is not None and not isinstance(subscribe, Mapping):
        raise ConfigError("subscribe", subscribe, "a mapping of topic to tag expression, such as {'T': '*'}")
    others = [c for c in lab.consumers.values() if c.consumer_group == consumer_group and c.orderly != bool(orderly)]
    if others:
        mode = "orderly" if others[0].orderly else "concurrently"
        raise ConfigError(
            "orderly",
            orderly,
            f"{others[0].orderly}, as the group's other consumers ({others[0].client_id} consumes {mode}): one group "
            "has one consume mode (a concurrent consumer ignores the orderly ones' broker locks)",
        )
