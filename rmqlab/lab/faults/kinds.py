"""The registry's table: every fault kind and timed ``mqadmin`` command, in the order the schema and the docs
list them, with the fields each takes.

Each kind calls one method, ``Lab.<method>`` or ``DefaultMQPushConsumer.<method>``; the table is the one place
a kind's fields, types, ranges and docstring are written.
"""

from __future__ import annotations

from ...broker.broker_controller import PutMessageStatus
from ...remoting.response_code import ResponseCode
from .arguments import consumer_offset, offset_query_failure, pull_error, send_back_failure
from .fault import Fault, Param

__all__ = ["BY_KIND", "DURATION", "FAULTS", "FAULT_TARGETS"]


_NAME = {"$ref": "#/$defs/name"}
DURATION = {"$ref": "#/$defs/duration"}
"""A duration field's schema (``"4s"``, ``1500``): also the ``at`` of every fault entry."""
_CODES = [code.name for code in ResponseCode]
_FAILING_CODES = [code.name for code in ResponseCode if code is not ResponseCode.SUCCESS]
_QUEUE_ID = {"type": "integer", "minimum": 0, "maximum": 1023, "description": "an int in 0..1023"}
_BROKERS = {"type": "array", "minItems": 1, "uniqueItems": True, "items": _NAME}


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
        (_broker(), Param("response_delay_ms", {**DURATION}, required=True)),
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
        "The store answers this PutMessageStatus (stored with a flush timeout, or failed and not stored).",
        "Lab.set_broker_fault",
        (
            _broker(),
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
        arguments=send_back_failure,
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
        arguments=offset_query_failure,
    ),
    Fault(
        "pull_error",
        "PULL_MESSAGE is answered with an error: FLOW_CONTROL (215) has the consumer pull again after 20 ms, any other"
        " code (SYSTEM_BUSY, what a 4.9.7 broker sends when overloaded) after 1000 ms.",
        "Lab.set_broker_fault",
        (
            _broker(),
            Param(
                "code",
                {
                    "enum": _CODES,
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
        "consumer_suspend",
        "suspend(): the consumer stops pulling (each pull put off by 1000 ms) and rebalancing; it still consumes.",
        "DefaultMQPushConsumer.suspend",
        (_CONSUMER,),
    ),
    Fault(
        "consumer_resume",
        "resume(): the consumer pulls again and rebalances at once.",
        "DefaultMQPushConsumer.resume",
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
    Fault(
        "update_consumer_offset",
        "DefaultMQAdminExt.updateConsumeOffset (an admin API call; 4.9.7 has no mqadmin command for it): set a group's"
        " committed offset of one queue at its broker. A new or restarted instance starts there; a running one keeps"
        " its own offset and overwrites this one at its next persist (5 s).",
        "Lab.update_consumer_offset",
        (
            Param("group", _GROUP, required=True, ref="group"),
            Param("topic", {**_NAME, "description": "a declared topic, or %RETRY%<group>"}, required=True, ref="topic"),
            _broker("the broker that holds the queue"),
            Param("queue_id", _QUEUE_ID, required=True),
            Param("offset", {"type": "integer", "minimum": 0, "description": "the offset to commit"}, required=True),
        ),
        admin=True,
        arguments=consumer_offset,
    ),
    Fault(
        "clone_group_offset",
        "mqadmin cloneGroupOffset -s SRC -d DEST -t TOPIC (4.9.7 ConsumerOffsetManager.cloneOffset): on every broker of"
        " the topic, DEST's committed offsets of TOPIC are replaced by a copy of SRC's, if SRC has any there. A running"
        " DEST consumer keeps its own offsets and overwrites the copy at its next persist (5 s).",
        "Lab.clone_group_offset",
        (
            Param("src_group", _GROUP, required=True, keyword=""),
            Param(
                "dest_group",
                {**_GROUP, "description": "the group whose offsets are replaced"},
                required=True,
                keyword="",
            ),
            Param(
                "topic",
                {**_NAME, "description": "a declared topic, or %RETRY%<group>"},
                required=True,
                ref="topic",
                keyword="",
            ),
        ),
        admin=True,
    ),
    Fault(
        "consume_message_directly",
        "DefaultMQAdminExt.consumeMessageDirectly (the dashboard's resend of a dead letter): the broker reads the"
        " message and calls the consumer, whose listener gets it at once; the result (CR_SUCCESS, CR_LATER,"
        " CR_RETURN_NULL, CR_THROW_EXCEPTION …) is traced. No offset moves and nothing is sent back: a DLQ message"
        " stays in the DLQ.",
        "Lab.consume_message_directly",
        (
            Param(
                "consumer",
                {**_NAME, "description": "a declared consumer, online at the broker"},
                required=True,
                ref="consumer",
                keyword="",
            ),
            _broker("the broker that stores the message"),
            Param(
                "topic", {**_NAME, "description": "the message's topic, e.g. %DLQ%<group>"}, required=True, keyword=""
            ),
            Param(
                "msg_id", {**_NAME, "description": "the message's id (UNIQ_KEY, e.g. M0001)"}, required=True, keyword=""
            ),
        ),
        admin=True,
    ),
)
"""Every fault kind, in the order the schema and the docs list them."""

BY_KIND: dict[str, Fault] = {fault.kind: fault for fault in FAULTS}
FAULT_TARGETS = frozenset(fault.target for fault in FAULTS)
"""The ``__qualname__`` of every method the registry calls: ``lab.at`` runs these at Priority.FAULT."""
