"""The fault kinds that act on the network and on clients: partitions between a client and a broker, and a consumer's
crash, restart, arrival, departure, suspension and resumption.
"""

from __future__ import annotations

from .fault import Fault
from .fields import CLIENT, CONSUMER, broker

__all__ = ["CLIENT_FAULTS"]


CLIENT_FAULTS: tuple[Fault, ...] = (
    Fault(
        "partition",
        "The link between a client process and a broker is cut (requests fail to connect).",
        "Lab.partition",
        (CLIENT, broker()),
        dashboard="partition",
    ),
    Fault(
        "heal",
        "A partitioned link works again.",
        "Lab.partition",
        (CLIENT, broker()),
        fixed={"heal": True},
        dashboard="heal",
    ),
    Fault(
        "consumer_crash",
        "The consumer process dies: no unregister, no offset persist (the broker notices after 120 s).",
        "DefaultMQPushConsumer.crash",
        (CONSUMER,),
        dashboard="crash consumer",
    ),
    Fault(
        "consumer_restart",
        "A crashed or removed consumer starts again (offsets from the broker, or its local file).",
        "DefaultMQPushConsumer.start",
        (CONSUMER,),
        dashboard="restart consumer",
    ),
    Fault(
        "consumer_add",
        "A consumer declared with start: null starts (scale-out: the group rebalances).",
        "DefaultMQPushConsumer.start",
        (CONSUMER,),
    ),
    Fault(
        "consumer_remove",
        "A consumer shuts down cleanly: offsets persisted, unregistered, the group rebalances.",
        "DefaultMQPushConsumer.shutdown",
        (CONSUMER,),
    ),
    Fault(
        "consumer_suspend",
        "suspend(): the consumer stops pulling (each pull put off by 1000 ms) and rebalancing; it still consumes.",
        "DefaultMQPushConsumer.suspend",
        (CONSUMER,),
    ),
    Fault(
        "consumer_resume",
        "resume(): the consumer pulls again and rebalances at once.",
        "DefaultMQPushConsumer.resume",
        (CONSUMER,),
    ),
)
"""The network's and the clients' fault kinds, in the order the schema and the docs list them."""
