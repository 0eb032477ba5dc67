"""Broker answers pinned to 4.9.7's ``SendMessageProcessor.asyncConsumerSendMsgBack`` (codes and remarks)."""

from __future__ import annotations

from rmqlab import Lab, Message
from rmqlab.remoting import MQBrokerException, ResponseCode


def test_send_back_of_a_missing_offset_names_the_offset(lab: Lab) -> None:
    """``lookMessageByOffset`` found nothing: SYSTEM_ERROR, remark "look message by offset failed, <offset>"."""
    lab.at(0, lab.add_producer("pg").send, Message("T", "b"))
    lab.run(until="1s")
    broker = lab.brokers["broker-a"]
    answer = broker.consumer_send_msg_back("cg", 7, 0, "M0001", 16)
    assert answer == MQBrokerException("broker-a", ResponseCode.SYSTEM_ERROR, "look message by offset failed, 7")
    assert broker.consumer_send_msg_back("cg", 0, 0, "M0001", 16) is ResponseCode.SUCCESS  # offset 0 is stored
