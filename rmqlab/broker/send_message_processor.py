"""``SendMessageProcessor``: SEND_MESSAGE (with ``handleRetryAndDLQ`` for ``%RETRY%`` topics) and
``CONSUMER_SEND_MSG_BACK`` (``asyncConsumerSendMsgBack``): where a message, a retry or a dead letter is stored.

Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/SendMessageProcessor.java
    (SendMessageProcessor.sendMessage, SendMessageProcessor.handleRetryAndDLQ,
    SendMessageProcessor.asyncConsumerSendMsgBack, SendMessageProcessor.handlePutMessageResult)
Mirrors: broker/src/main/java/org/apache/rocketmq/broker/processor/AbstractSendMessageProcessor.java
    (AbstractSendMessageProcessor.msgCheck)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..common.message import (
    PROPERTY_DELAY,
    PROPERTY_ORIGIN_MESSAGE_ID,
    PROPERTY_RETRY_TOPIC,
    RETRY_PREFIX,
    MessageExt,
    dlq_topic,
)
from ..common.topic_config import PERM_RW, PERM_WRITE
from ..core import reasons
from ..remoting.exceptions import MQBrokerException
from ..remoting.response_code import ResponseCode
from ..store.default_message_store import DefaultMessageStore
from ..store.put_message_status import _PUT_STATUS_CODE, _PUT_STATUS_ERROR, _STORED_CODES
from .broker_faults import BrokerFaults
from .subscription_group_manager import SubscriptionGroupManager
from .topic_config_manager import TopicConfigManager

__all__ = [
    "SendMessageProcessor",
    "SendResponse",
]


@dataclass(slots=True)
class SendResponse:
    """Broker's answer to SEND_MESSAGE: code, where it was stored."""

    code: ResponseCode
    topic: str
    queue_id: int
    queue_offset: int
    msg_id: str
    offset_msg_id: str
    """``SendMessageResponseHeader.msgId``: the store's id (``AppendMessageResult.getMsgId``), not the client's."""


class SendMessageProcessor:
    """The send and send-back processor of one broker: it checks a request against the topic and group tables and
    puts the message into the store."""

    def __init__(
        self,
        broker_name: str,
        address: str,
        rng: random.Random,
        *,
        store: DefaultMessageStore,
        topics: TopicConfigManager,
        groups: SubscriptionGroupManager,
        faults: BrokerFaults,
        dlq_readable: bool,
    ) -> None:
        self.name = broker_name
        self.address = address
        """``brokerIP1:listenPort``: a refused send-back names the broker by its IP."""
        self.rng = rng
        """Picks one of several retry queues (``random % retryQueueNums``)."""
        self.store = store
        self.topics = topics
        self.groups = groups
        self.faults = faults
        self.dlq_readable = dlq_readable
        """``True`` (the Lab's default): a ``%DLQ%`` topic is created read+write, as 4.9.7 does
        (``PermName.PERM_WRITE | PermName.PERM_READ``); ``False`` creates it write-only, so no consumer can pull it."""

    # ------------------------------------------------------------------ SEND_MESSAGE
    def send_message(
        self,
        msg: MessageExt,
        reconsume_times: int | None = None,
        max_reconsume_times: int | None = None,
    ) -> SendResponse | MQBrokerException:
        """``SendMessageProcessor.asyncSendMessage``, including ``handleRetryAndDLQ`` for ``%RETRY%``.

        Neither the topic's nor the broker's permission is checked here: in 4.9.7 ``msgCheck`` refuses a send
        with NO_PERMISSION only when the broker is not writable *and* the topic is an order topic (a name-server
        KV setting rmqlab does not model). Write permission is enforced by the routes: a producer lists only
        writable queues, so a message reaches a read-only topic or broker only through a stale cached route,
        and then it is stored.
        """
        if self.faults.send_error is not None:
            error = self.faults.send_error
            return MQBrokerException(self.name, error, reasons.INJECTED_FAULT.format(code=error.name))
        answer: ResponseCode | None = None
        if self.faults.send_responses:
            answer, remark = self.faults.send_responses.pop(0)
            if answer not in _STORED_CODES:
                return MQBrokerException(self.name, answer, remark)
        config = self.topics.select_topic_config(msg.topic)
        if config is None and msg.topic.startswith(RETRY_PREFIX):
            config = self.topics.create_topic(msg.topic, 1)
        if config is None:
            return MQBrokerException(
                self.name, ResponseCode.TOPIC_NOT_EXIST, f"topic[{msg.topic}] not exist, apply first please!"
            )
        if msg.queue_id >= max(config.read_queue_nums, config.write_queue_nums):
            return MQBrokerException(
                self.name, ResponseCode.SYSTEM_ERROR, f"request queueId[{msg.queue_id}] is illegal"
            )
        if msg.topic.startswith(RETRY_PREFIX):
            group = msg.topic[len(RETRY_PREFIX) :]
            sub = self.groups.find_subscription_group_config(group)
            rt = reconsume_times or 0
            max_times = sub.retry_max_times if max_reconsume_times is None else max_reconsume_times
            msg.reconsume_times = rt
            if rt >= max_times:
                # handleRetryAndDLQ sets delay level 0 on the inner message, but 4.9.7's sendMessage then restores
                # the request's property map (MessageAccessor.setProperties(msgInner, origProps)), so a client-set
                # DELAY survives.
                msg.topic = dlq_topic(group)
                msg.queue_id = 0
                self.topics.create_topic(msg.topic, 1, PERM_RW if self.dlq_readable else PERM_WRITE)
        failed = _PUT_STATUS_ERROR.get(self.faults.put_status)
        if failed is not None:
            return MQBrokerException(self.name, *failed)
        status = self.store.put_message(msg)
        code = _PUT_STATUS_CODE[status] if answer is None or answer is ResponseCode.SUCCESS else answer
        return SendResponse(code, msg.topic, msg.queue_id, msg.queue_offset, msg.msg_id, msg.offset_msg_id)

    # ------------------------------------------------------------------ CONSUMER_SEND_MSG_BACK
    def consumer_send_msg_back(
        self,
        group: str,
        commit_log_offset: int,
        delay_level: int,
        max_reconsume_times: int | None,
    ) -> ResponseCode | MQBrokerException:
        """``asyncConsumerSendMsgBack``: re-store the original as a retry (or DLQ) message."""
        if self.faults.reject_send_back:
            return MQBrokerException(self.name, ResponseCode.SYSTEM_ERROR, reasons.SEND_BACK_REJECTED)
        if self.faults.send_back_error is not None:
            return MQBrokerException(self.name, *self.faults.send_back_error)
        sub = self.groups.find_subscription_group_config(group)
        if not self.topics.broker_permission & PERM_WRITE:
            # 4.9.7 names the broker by its IP (``getBrokerIP1()``): the host part of its address, no port
            ip = self.address.rsplit(":", 1)[0]
            return MQBrokerException(
                self.name, ResponseCode.NO_PERMISSION, f"the broker[{ip}] sending message is forbidden"
            )
        if sub.retry_queue_nums <= 0:
            return ResponseCode.SUCCESS  # stores nothing: the message is silently dropped
        retry = self.topics.create_topic(RETRY_PREFIX + group, sub.retry_queue_nums)
        if not retry.writable:
            return MQBrokerException(
                self.name, ResponseCode.NO_PERMISSION, f"the topic[{retry.topic_name}] sending message is forbidden"
            )
        original = self.store.commit_log.get(commit_log_offset)
        if original is None:
            return MQBrokerException(
                self.name, ResponseCode.SYSTEM_ERROR, f"look message by offset failed, {commit_log_offset}"
            )
        properties = dict(original.properties)
        properties.setdefault(PROPERTY_RETRY_TOPIC, original.topic)
        max_times = sub.retry_max_times if max_reconsume_times is None else max_reconsume_times
        rt = original.reconsume_times
        if rt >= max_times or delay_level < 0:
            topic, queue_id = dlq_topic(group), 0
            self.topics.create_topic(topic, 1, PERM_RW if self.dlq_readable else PERM_WRITE)
            properties[PROPERTY_DELAY] = "0"  # msgExt.setDelayTimeLevel(0): kept as "0", so never scheduled
        else:
            topic = retry.topic_name
            # ``random % retryQueueNums``: the group's setting, not the existing topic's queue count
            queue_id = 0 if sub.retry_queue_nums == 1 else self.rng.randrange(sub.retry_queue_nums)
            properties[PROPERTY_DELAY] = str(3 + rt if delay_level == 0 else delay_level)
        # the looked-up msgExt is a plain MessageExt, whose getMsgId() is its offsetMsgId (not the UNIQ_KEY);
        # the request header's originMsgId only reaches the send-back hooks
        properties.setdefault(PROPERTY_ORIGIN_MESSAGE_ID, original.offset_msg_id)
        inner = MessageExt(
            topic=topic,
            queue_id=queue_id,
            msg_id=original.msg_id,
            body=original.body,
            tags=original.tags,
            keys=original.keys,
            properties=properties,
            reconsume_times=rt + 1,
            born_timestamp=original.born_timestamp,  # msgInner.setBornTimestamp(msgExt.getBornTimestamp())
        )
        if self.faults.put_status in _PUT_STATUS_ERROR:
            # ``thenApply``: any status but PUT_OK is SYSTEM_ERROR with the status's name as the remark, and nothing
            # is stored. The FLUSH_* / SLAVE_NOT_AVAILABLE statuses cannot happen here (``setWaitStoreMsgOK(false)``:
            # the store waits for no flush and no slave), so those stored-anyway statuses answer SUCCESS.
            return MQBrokerException(self.name, ResponseCode.SYSTEM_ERROR, self.faults.put_status.value)
        self.store.put_message(inner)
        return ResponseCode.SUCCESS
