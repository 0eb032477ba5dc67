"""The fault kinds that act on a broker: down and up, slow, losing responses, failing flushes, and error
answers to sends, pulls, offset queries and sendMessageBack (``BrokerFaults``, read by the broker's processors).
"""

from __future__ import annotations

from ...broker.broker_controller import PutMessageStatus
from .arguments import offset_query_failure, pull_error, send_back_failure
from .fault import Fault, Param
from .fields import CODES, DURATION, FAILING_CODES, broker

__all__ = ["BROKER_FAULTS"]


BROKER_FAULTS: tuple[Fault, ...] = (
    Fault(
        "broker_down",
        "The broker process stops: connections refused, held pulls broken, routes withdrawn.",
        "Lab.broker_down",
        (broker(),),
        dashboard="crash",
    ),
    Fault(
        "broker_up",
        "The broker is back; clients see it again at their next route poll / heartbeat.",
        "Lab.broker_up",
        (broker(),),
        dashboard="restart",
    ),
    Fault(
        "broker_slow",
        "Every response of the broker is delayed (requests past their timeout fail on the client).",
        "Lab.set_broker_fault",
        (broker(), Param("response_delay_ms", {**DURATION}, required=True)),
    ),
    Fault(
        "lose_responses",
        "The broker acts on requests but its responses are lost (the client times out).",
        "Lab.set_broker_fault",
        (
            broker(),
            Param("lose_responses", {"type": "boolean", "description": "true or false (default true)"}, default=True),
        ),
    ),
    Fault(
        "flush_timeout",
        "The store answers this PutMessageStatus (stored with a flush timeout, or failed and not stored).",
        "Lab.set_broker_fault",
        (
            broker(),
            Param(
                "put_status",
                {
                    "enum": [status.value for status in PutMessageStatus],
                    "description": "a PutMessageStatus (default FLUSH_DISK_TIMEOUT; PUT_OK clears it); the last seven"
                    " fail the send, a send-back (SYSTEM_ERROR, the status's name) and hold delayed messages back",
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
            broker(),
            Param("reject_send_back", {"type": "boolean", "description": "true or false (default true)"}),
            Param(
                "code",
                {
                    "enum": FAILING_CODES,
                    "description": "the response code the send-back gets (instead of SYSTEM_ERROR), e.g. SYSTEM_BUSY",
                },
            ),
            Param("remark", {"type": "string", "description": "its remark (with code)"}),
        ),
        arguments=send_back_failure,
    ),
    Fault(
        "send_error",
        "Every SEND_MESSAGE is answered with this error code (nothing stored) until cleared with SUCCESS.",
        "Lab.set_broker_fault",
        (
            broker(),
            Param(
                "code",
                {
                    "enum": CODES,
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
            broker(),
            Param(
                "code",
                {"enum": CODES, "description": "the response code (default SYSTEM_ERROR); SUCCESS clears it"},
                default="SYSTEM_ERROR",
            ),
            Param("remark", {"type": "string", "description": "its remark"}),
        ),
        arguments=offset_query_failure,
    ),
    Fault(
        "pull_error",
        "PULL_MESSAGE is answered with an error: FLOW_CONTROL (215) has the consumer pull again after 20 ms, any other"
        " code (SYSTEM_BUSY, what a 4.9.7 broker sends when overloaded) after 1000 ms.",
        "Lab.set_broker_fault",
        (
            broker(),
            Param(
                "code",
                {
                    "enum": CODES,
                    "description": "the response code, e.g. FLOW_CONTROL or SYSTEM_BUSY; SUCCESS clears it",
                },
                required=True,
            ),
            Param("remark", {"type": "string", "description": "its remark"}),
        ),
        arguments=pull_error,
    ),
    Fault(
        "send_responses",
        "Scripted SEND_MESSAGE answers: one per request, in order, then normal again.",
        "Lab.set_broker_fault",
        (
            broker(),
            Param(
                "responses",
                {
                    "type": "array",
                    "description": "one answer per SEND_MESSAGE, in order, then normal again: a code name, or"
                    " {code, remark}",
                    "items": {
                        "oneOf": [
                            {"enum": CODES},
                            {
                                "type": "object",
                                "required": ["code"],
                                "properties": {"code": {"enum": CODES}, "remark": {"type": "string"}},
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
)
"""The broker's fault kinds, in the order the schema and the docs list them."""
