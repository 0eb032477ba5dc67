"""How a Lab builds its cluster: a broker on its own host, a push consumer subscribed, given its listener, and
started now, at a time or by hand.

``lab`` is the :class:`~rmqlab.lab.Lab` (its clock, trace, network, name server, rng and registries), typed ``Any``
so that this module does not import ``lab``, which imports it. The :class:`~rmqlab.lab.Lab` methods
``add_broker`` and ``add_consumer`` keep the signatures and docstrings students read, and call these.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from ..broker.broker_controller import Broker
from ..client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from ..core.duration import parse_duration
from ..core.errors import ConfigError
from ..core.validation import check_name
from .lab_checks import check_consumer

__all__ = ["add_broker", "add_consumer"]


def add_broker(lab: Any, name: str) -> Broker:
    """A new broker master named ``name``, registered in ``lab.brokers``; a bad or taken name is refused first."""
    if not isinstance(name, str) or not name or "@" in name or ":" in name:
        raise ConfigError("broker", name, "a non-empty name without '@' or ':'")
    check_name("broker", name)
    if name in lab.brokers:
        raise ConfigError("broker", name, f"a new broker name (have {sorted(lab.brokers)})")
    broker = Broker(
        name,
        lab.scheduler,
        lab.trace,
        random.Random(lab.rng.random()),
        lab.remoting,
        lab.namesrv,
        delay_levels=lab.delay_levels,
        dlq_readable=lab.dlq_readable,
        # one host per broker, each on the default listenPort (4.9.7 writes brokerIP1 into every message)
        address=f"127.0.0.{len(lab.brokers) + 1}:10911",
    )
    lab.brokers[name] = broker
    return broker


def add_consumer(
    lab: Any,
    consumer_group: str,
    *,
    subscribe: Mapping[str, str] | None,
    listener: Callable[..., Any] | None,
    orderly: bool,
    start: bool | int | str,
    options: dict[str, Any],
) -> DefaultMQPushConsumer:
    """A push consumer of ``consumer_group``, registered in ``lab.consumers``: everything is checked before it is
    registered, and a consumer whose ``start()`` fails is removed again (nothing half-applied)."""
    check_consumer(lab, consumer_group, subscribe, orderly, options)
    # the default name counts this lab's consumers: GROUP-1, GROUP-2 … in the order they were added
    name = options.pop("name", None) or f"{consumer_group}-{len(lab.consumers) + 1}"
    consumer = DefaultMQPushConsumer(lab.context, consumer_group, name=name, **options)
    if consumer.client_id in lab.consumers:
        raise ConfigError("name", consumer.client_id, f"a new consumer name (have {sorted(lab.consumers)})")
    for topic, expression in (subscribe or {}).items():
        consumer.subscribe(topic, expression)
    if listener is not None:
        if orderly:
            consumer.register_message_listener_orderly(listener)
        else:
            consumer.register_message_listener(listener)
    if start is not True and start is not False:
        parse_duration(start, "start")  # validate before anything is registered
    lab.consumers[consumer.client_id] = consumer
    if start is True:
        try:
            consumer.start()
        except Exception:
            del lab.consumers[consumer.client_id]  # leave nothing half-applied
            raise
    elif start is not False:
        lab.at(start, consumer.start)
    return consumer
