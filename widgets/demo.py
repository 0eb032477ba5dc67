"""A ready-made scenario factory with knobs, for the Dashboard, the tests and the benchmark.

``demo_lab(**knobs)`` builds a fresh Lab with every action scheduled, as the controller's replay
needs. The knobs are the ones a student turns in the retry labs.
"""

from __future__ import annotations

from typing import Any

from rmqlab import (
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyStatus,
    Lab,
    Message,
    SelectMessageQueueByHash,
)

__all__ = ["DEMO_KNOBS", "DEMO_KNOB_OPTIONS", "demo_lab"]

LISTENERS = ("fail_first", "succeed", "fail_twice", "fail_all", "raise")
FAULTS = ("none", "broker_down", "reject_send_back", "consumer_crash")

DEMO_KNOBS: dict[str, Any] = {
    "listener": "fail_first",
    "max_reconsume_times": -1,
    "delay_level_when_next_consume": 0,
    "suspend_current_queue_time_millis": 1000,
    "fault": "none",
    "orderly": False,
    "messages": 3,
}
"""Default knob values (``demo_lab()`` with no arguments)."""
DEMO_KNOB_OPTIONS: dict[str, tuple[Any, ...]] = {"listener": LISTENERS, "fault": FAULTS}
"""Knobs with a fixed set of choices (drawn as dropdowns)."""


def _fails(behaviour: str, msg_id: str, reconsume_times: int) -> bool:
    """Whether this delivery fails under ``behaviour`` (``raise`` fails by raising)."""
    if behaviour == "fail_first":
        return msg_id == "M0001"
    if behaviour == "fail_twice":
        return reconsume_times < 2
    return behaviour in ("fail_all", "raise")


def demo_lab(
    *,
    listener: str = "fail_first",
    max_reconsume_times: int = -1,
    delay_level_when_next_consume: int = 0,
    suspend_current_queue_time_millis: int = 1000,
    fault: str = "none",
    orderly: bool = False,
    messages: int = 3,
    seed: int = 1,
) -> Lab:
    """One broker, ``TopicTest`` with 2 queues, producer ``pg``, consumer ``c1`` of group ``cg``.

    Messages are sent every 10 ms from t = 1 s; orderly mode sends them with a hash selector on the
    message index modulo 2, so both queues see ordered traffic.
    """
    if listener not in LISTENERS:
        raise ValueError(f"listener={listener!r}; expected one of {LISTENERS}")
    if fault not in FAULTS:
        raise ValueError(f"fault={fault!r}; expected one of {FAULTS}")
    lab = Lab(seed=seed)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=2)
    producer = lab.add_producer("pg")

    def concurrent(msgs: list[Any], ctx: Any) -> ConsumeConcurrentlyStatus:
        msg = msgs[0]
        if _fails(listener, msg.msg_id, msg.reconsume_times):
            if listener == "raise":
                raise RuntimeError(f"boom on {msg.msg_id}")
            ctx.delay_level_when_next_consume = delay_level_when_next_consume
            return ConsumeConcurrentlyStatus.RECONSUME_LATER
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    def ordered(msgs: list[Any], ctx: Any) -> ConsumeOrderlyStatus:
        msg = msgs[0]
        if _fails(listener, msg.msg_id, msg.reconsume_times):
            if listener == "raise":
                raise RuntimeError(f"boom on {msg.msg_id}")
            ctx.suspend_current_queue_time_millis = suspend_current_queue_time_millis
            return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
        return ConsumeOrderlyStatus.SUCCESS

    consumer = lab.add_consumer(
        "cg",
        subscribe={"TopicTest": "*"},
        listener=ordered if orderly else concurrent,
        orderly=orderly,
        name="c1",
        max_reconsume_times=max_reconsume_times,
        suspend_current_queue_time_millis=suspend_current_queue_time_millis,
    )
    for i in range(messages):
        msg = Message("TopicTest", f"body-{i}", tags="TagA", keys=f"k{i}")
        if orderly:
            lab.at(1000 + 10 * i, producer.send_with_selector, msg, SelectMessageQueueByHash, i % 2)
        else:
            lab.at(1000 + 10 * i, producer.send, msg)
    _schedule_fault(lab, consumer, fault)
    return lab


def _schedule_fault(lab: Lab, consumer: Any, fault: str) -> None:
    """The fault the ``fault`` knob names: broker-a down 5 s – 65 s, its send-backs refused from the start, or
    consumer c1 crashed at 3 s and restarted at 90 s (``none``: nothing)."""
    if fault == "broker_down":
        lab.at("5s", lab.broker_down, "broker-a")
        lab.at("65s", lab.broker_up, "broker-a")
    elif fault == "reject_send_back":
        lab.at(0, lab.set_broker_fault, "broker-a", reject_send_back=True)
    elif fault == "consumer_crash":
        lab.at("3s", consumer.crash)
        lab.at("90s", consumer.start)
