"""The timed admin commands a scenario can run: ``mqadmin`` updateTopic, updateSubGroup, updateBrokerConfig and
cloneGroupOffset, and the admin API's updateConsumeOffset and consumeMessageDirectly, each as the Lab's admin calls it.
"""

from __future__ import annotations

from .arguments import consumer_offset
from .fault import Fault, Param
from .fields import BROKERS, GROUP, NAME, QUEUE_ID, broker

__all__ = ["ADMIN_COMMANDS"]


ADMIN_COMMANDS: tuple[Fault, ...] = (
    Fault(
        "update_topic",
        "mqadmin updateTopic: change a topic's queue counts or permission on its brokers.",
        "Lab.update_topic",
        (
            Param(
                "topic",
                {
                    **NAME,
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
                    **BROKERS,
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
            Param("group", GROUP, required=True, ref="group", keyword=""),
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
                {**BROKERS, "description": "a non-empty list of distinct brokers (default: all)"},
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
            broker(),
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
            Param("group", GROUP, required=True, ref="group"),
            Param("topic", {**NAME, "description": "a declared topic, or %RETRY%<group>"}, required=True, ref="topic"),
            broker("the broker that holds the queue"),
            Param("queue_id", QUEUE_ID, required=True),
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
            Param("src_group", GROUP, required=True, keyword=""),
            Param(
                "dest_group",
                {**GROUP, "description": "the group whose offsets are replaced"},
                required=True,
                keyword="",
            ),
            Param(
                "topic",
                {**NAME, "description": "a declared topic, or %RETRY%<group>"},
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
                {**NAME, "description": "a declared consumer, online at the broker"},
                required=True,
                ref="consumer",
                keyword="",
            ),
            broker("the broker that stores the message"),
            Param(
                "topic", {**NAME, "description": "the message's topic, e.g. %DLQ%<group>"}, required=True, keyword=""
            ),
            Param(
                "msg_id", {**NAME, "description": "the message's id (UNIQ_KEY, e.g. M0001)"}, required=True, keyword=""
            ),
        ),
        admin=True,
    ),
)
"""The timed admin commands, in the order the schema and the docs list them."""
