"""Two admin operations on a consumer group that teach something about offsets and dead letters.

* ``cloneGroupOffset`` (``mqadmin cloneGroupOffset -s SRC -d DEST -t TOPIC``): on every broker of the topic,
  4.9.7's ``AdminBrokerProcessor.cloneGroupOffset`` → ``ConsumerOffsetManager.cloneOffset`` *replaces* DEST's offset
  map of TOPIC by a copy of SRC's (``offsetTable.put(topic@dest, new ConcurrentHashMap(offsets))``), if SRC has one
  there: a queue DEST had and SRC has not loses its offset. A running DEST consumer keeps its in-memory offsets and
  overwrites the copy at its next persist (5 s), as with ``updateConsumeOffset``.
* ``consumeMessageDirectly`` (``DefaultMQAdminExt.consumeMessageDirectly``, the dashboard's "resend" of a dead
  letter): the admin asks the broker holding the message, which reads it (``selectOneMessageByOffset``) and calls
  the named client (``CONSUME_MESSAGE_DIRECTLY``); the client calls its listener with that one message at once
  (``ConsumeMessageConcurrentlyService.consumeMessageDirectly``) and answers a ``CMResult``: CR_SUCCESS, CR_LATER,
  CR_RETURN_NULL, CR_THROW_EXCEPTION (orderly: also CR_COMMIT, CR_ROLLBACK). Nothing else happens: no offset is
  committed, no send-back, the message stays where it is (a DLQ message stays in the DLQ). The listener sees the
  message's own topic (``resetRetryAndNamespace`` restores the original topic only for ``%RETRY%<group>``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..client.consumer.listener import ConsumeConcurrentlyContext, ConsumeOrderlyContext, Delayed
from ..common.message import MessageExt
from ..common.message_queue import MessageQueue
from ..core.errors import ConfigError
from ..core.trace import EventKind
from ..core.validation import check_name
from ..store.commit_log import CommitLog
from .admin import AdminTarget, check_reachable, record_admin

if TYPE_CHECKING:
    from ..client.consumer.default_mq_push_consumer import DefaultMQPushConsumer

__all__ = ["clone_group_offset", "consume_message_directly"]

_RESULTS = {
    "CONSUME_SUCCESS": "CR_SUCCESS",
    "RECONSUME_LATER": "CR_LATER",
    "SUCCESS": "CR_SUCCESS",
    "COMMIT": "CR_COMMIT",
    "ROLLBACK": "CR_ROLLBACK",
    "SUSPEND_CURRENT_QUEUE_A_MOMENT": "CR_LATER",
}
"""``consumeMessageDirectly``'s switch: a listener status → the ``CMResult`` the admin is answered."""


def clone_group_offset(lab: AdminTarget, src_group: str, dest_group: str, topic: str) -> None:
    """``cloneGroupOffset`` on each broker that has ``topic`` (see the module); one ADMIN event per broker."""
    check_name("src_group", src_group)
    check_name("dest_group", dest_group)
    names = [name for name, broker in lab.brokers.items() if topic in broker.topic_config]
    if not names:
        raise ConfigError("topic", topic, f"a topic of this lab's brokers: one of {_topics(lab)}")
    for name in names:
        check_reachable(lab, name)
    for name in names:
        manager = lab.brokers[name].consumer_offset_manager  # the broker's ConsumerOffsetManager.cloneOffset
        offsets = {k[2]: v for k, v in manager.consumer_offsets.items() if k[0] == src_group and k[1] == topic}
        if not offsets:
            record_admin(
                lab, name, "cloneGroupOffset", src_group=src_group, dest_group=dest_group, topic=topic, cloned={}
            )
            continue
        for key in [k for k in manager.consumer_offsets if k[0] == dest_group and k[1] == topic]:
            del manager.consumer_offsets[key]  # put() replaces DEST's whole map of the topic
        for queue_id, offset in sorted(offsets.items()):
            manager.commit_offset(dest_group, topic, queue_id, offset, actor=name)
        record_admin(
            lab, name, "cloneGroupOffset", src_group=src_group, dest_group=dest_group, topic=topic, cloned=offsets
        )


def _topics(lab: AdminTarget) -> list[str]:
    return sorted({t for broker in lab.brokers.values() for t in broker.topic_config})


def consume_message_directly(
    lab: AdminTarget, consumer: DefaultMQPushConsumer, broker: str, topic: str, msg_id: str
) -> str:
    """``consumeMessageDirectly`` of the message ``msg_id`` stored on ``broker`` in ``topic`` by ``consumer``; traces
    an ADMIN event with the ``CMResult`` and returns it."""
    if broker not in lab.brokers:
        raise ConfigError("broker", broker, f"one of {sorted(lab.brokers)}")
    check_reachable(lab, broker)
    store = lab.brokers[broker]
    msg = _find(store.commit_log, topic, msg_id)
    if msg is None:
        raise ConfigError("msg_id", msg_id, f"a message stored on {broker} in {topic} (and not deleted by retention)")
    group = consumer.consumer_group
    if not consumer.running or consumer.client_id not in store.consumer_groups.get(group, {}):
        # Broker2Client.callClient: "The Consumer <clientId> not online"
        raise ConfigError("consumer", consumer.client_id, f"a consumer of {group} online at {broker} (heartbeating)")
    if consumer.listener is None:
        raise ConfigError("consumer", consumer.client_id, "a consumer with a listener")
    copy = msg.copy()
    mq = MessageQueue(copy.topic, broker, copy.queue_id)
    context: Any = ConsumeOrderlyContext(mq) if consumer.orderly else ConsumeConcurrentlyContext(mq)
    remark = ""
    try:
        status = consumer.context.scheduler.call_user_code(consumer.listener, [copy], context)
        if isinstance(status, Delayed):  # the call blocks the client's remoting thread; the admin waits for it
            remark, status = status.error or "", None if status.error else status.status
            result = "CR_THROW_EXCEPTION" if remark else None
        else:
            result = None
        if result is None:
            name = getattr(status, "name", status) if status is not None else None
            result = "CR_RETURN_NULL" if name is None else _RESULTS.get(str(name), "CR_RETURN_NULL")
    except Exception as exc:  # catch (Throwable e): CR_THROW_EXCEPTION with the exception's simple description
        result, remark = "CR_THROW_EXCEPTION", f"{type(exc).__name__}: {exc}"
    details: dict[str, Any] = {"consumer": consumer.client_id, "group": group, "topic": topic, "result": result}
    if remark:
        details["remark"] = remark
    lab.trace.record(lab.now, EventKind.ADMIN, broker, msg_id, command="consumeMessageDirectly", **details)
    return result


def _find(commit_log: CommitLog, topic: str, msg_id: str) -> MessageExt | None:
    """The newest live entry of ``topic`` with this ``UNIQ_KEY`` (the admin names a message by its id)."""
    for offset in range(commit_log.max_offset - 1, commit_log.min_offset - 1, -1):
        stored = commit_log.get(offset)
        if stored is not None and stored.topic == topic and stored.msg_id == msg_id:
            return stored
    return None
