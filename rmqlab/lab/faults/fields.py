"""The schema pieces the fault kinds share: a name, a duration, a broker, a consumer, a client, a group, the codes.

Written once here so every kind that takes a broker describes it alike in the schema and in its error messages.
"""

from __future__ import annotations

from ...remoting.response_code import ResponseCode
from .fault import Param

__all__ = ["BROKERS", "CLIENT", "CODES", "CONSUMER", "DURATION", "FAILING_CODES", "GROUP", "NAME", "QUEUE_ID", "broker"]


NAME = {"$ref": "#/$defs/name"}
DURATION = {"$ref": "#/$defs/duration"}
"""A duration field's schema (``"4s"``, ``1500``): also the ``at`` of every fault entry."""
CODES = [code.name for code in ResponseCode]
FAILING_CODES = [code.name for code in ResponseCode if code is not ResponseCode.SUCCESS]
QUEUE_ID = {"type": "integer", "minimum": 0, "maximum": 1023, "description": "an int in 0..1023"}
BROKERS = {"type": "array", "minItems": 1, "uniqueItems": True, "items": NAME}


def broker(description: str = "a declared broker") -> Param:
    """The ``broker`` field, with the description a kind gives it (which brokers it accepts)."""
    return Param("broker", {**NAME, "description": description}, required=True, ref="broker", keyword="")


CONSUMER = Param("consumer", {**NAME, "description": "a declared consumer"}, required=True, ref="consumer")
CLIENT = Param(
    "client",
    {**NAME, "description": "a declared consumer or producer (a consumer's inner producer is cut with it)"},
    required=True,
    ref="client",
    keyword="",
)
GROUP = {
    "type": "string",
    "pattern": "^[^%]",
    "description": "the group of a declared consumer (not starting with '%')",
}
