"""Audiences: who must see a message — a CLUSTERING group, or one BROADCASTING instance."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..common.message import RETRY_PREFIX, retry_topic

if TYPE_CHECKING:
    from ..client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
    from ..lab.lab import Lab

__all__ = ["Audience", "audiences_of"]


@dataclass(slots=True)
class Audience:
    """Who must see a message: a CLUSTERING group (``group:cg``) or one BROADCASTING instance (``client:c1``)."""

    key: str
    group: str
    clustering: bool
    orderly: bool
    consumers: list[DefaultMQPushConsumer]
    subscriptions: dict[str, frozenset[str] | None]

    def wants(self, topic: str, tags: str | None) -> bool:
        if topic not in self.subscriptions:
            return False
        wanted = self.subscriptions[topic]
        return wanted is None or tags in wanted

    def topics(self) -> set[str]:
        return {*self.subscriptions, retry_topic(self.group)} if self.clustering else set(self.subscriptions)


def audiences_of(lab: Lab) -> tuple[dict[str, Audience], dict[str, Audience]]:
    """Audiences by key, and the audience of each consumer actor (``consumer:<client id>``)."""
    by_key: dict[str, Audience] = {}
    by_actor: dict[str, Audience] = {}
    for consumer in lab.consumers.values():
        clustering = consumer.is_clustering
        key = f"group:{consumer.consumer_group}" if clustering else f"client:{consumer.client_id}"
        audience = by_key.get(key)
        if audience is None:
            audience = by_key[key] = Audience(key, consumer.consumer_group, clustering, consumer.orderly, [], {})
        audience.consumers.append(consumer)
        audience.orderly = audience.orderly or consumer.orderly
        for topic, tags in consumer.subscriptions.items():
            if topic.startswith(RETRY_PREFIX):
                continue
            if topic in audience.subscriptions:
                old = audience.subscriptions[topic]
                audience.subscriptions[topic] = None if old is None or tags is None else old | tags
            else:
                audience.subscriptions[topic] = tags
        by_actor[consumer.actor] = audience
    return by_key, by_actor
