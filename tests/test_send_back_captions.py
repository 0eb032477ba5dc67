"""A send-back's caption says why the message went back (issue 30: every one read "c1 failed M0003 …").

In 4.9.7 a concurrently consuming client sends a message back when its listener returned RECONSUME_LATER, threw or
returned null (``ConsumeRequest.run`` counts both as RECONSUME_LATER), when it returned CONSUME_SUCCESS with
``ackIndex`` short of the batch (``processConsumeResult`` sends back every message after ``ackIndex + 1``), or when
``ProcessQueue.cleanExpiredMsg`` finds it consuming longer than ``consumeTimeout`` (delay level 3; slowness is not a
failure). Both caption lines take the reason from the trace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import rmqlab
from rmqlab import HANG, Lab, Message
from rmqlab import ConsumeConcurrentlyStatus as C
from rmqlab import EventKind as K
from rmqlab.narrate import Caption, narrate, step_caption


def _one_queue(listener: Callable[..., Any], messages: int = 1, **options: Any) -> Lab:
    lab = Lab(seed=7)
    lab.add_broker("broker-a")
    lab.create_topic("TopicTest", queues=1)
    p = lab.add_producer("pg")
    lab.add_consumer("cg", subscribe={"TopicTest": "*"}, listener=listener, name="c1", **options)
    for i in range(messages):
        lab.at("1s", p.send, Message("TopicTest", f"m{i}"))
    return lab


def _backs(lab: Lab) -> dict[str, Caption]:
    """The first send-back caption of each message."""
    backs: dict[str, Caption] = {}
    for c in narrate(lab.trace):
        if c.kind is K.SEND_BACK and c.msg_id:
            backs.setdefault(c.msg_id, c)
    return backs


def _acks(ack_index: int) -> Lab:
    """Lab 02a's run: four messages, one batch of four at 10 s, CONSUME_SUCCESS with ``ack_index``."""

    def acks_some(msgs: list[Any], ctx: Any) -> C:
        ctx.ack_index = ack_index
        return C.CONSUME_SUCCESS

    return _one_queue(acks_some, messages=4, consume_message_batch_max_size=4, start="10s").run(until="15s")


def test_a_send_back_after_consume_success_says_the_ack_index_not_a_failure() -> None:
    lab = _acks(1)
    backs = _backs(lab)
    assert sorted(backs) == ["M0003", "M0004"]
    for msg in ("M0003", "M0004"):
        assert backs[msg].plain == (
            f"c1 acknowledged only up to M0002 (ack index 1), so {msg} goes back to the broker: into %RETRY%cg in 10 s."
        )
        assert backs[msg].text == (
            f"ConsumeMessageConcurrentlyService.processConsumeResult: ackIndex 1 of 4 → sendMessageBack({msg}, "
            "delayLevel 0); SendMessageProcessor.asyncConsumerSendMsgBack uses 3 + reconsumeTimes 0 = level 3, "
            "due in 10 s"
        )
    step = [c for c in narrate(lab.trace) if c.time_ms == 10_000 and c.meaningful]
    assert step_caption(step).plain.startswith("c1 acknowledged only up to M0002 (ack index 1), so M0003 goes back")
    none = _backs(_acks(-1))
    assert none["M0001"].plain == (
        "c1's listener succeeded but acknowledged none of its batch (ack index -1), so M0001 goes back to the broker: "
        "into %RETRY%cg in 10 s."
    )


def test_a_send_back_by_clean_expired_msg_says_the_consume_timeout_not_a_failure() -> None:
    lab = _one_queue(lambda m, c: HANG).run(until="31m")
    back = _backs(lab)["M0001"]
    assert back.plain == (
        "M0001 has been in c1's listener for 29 m 59 s, longer than its 15 min consume timeout, so M0001 goes back "
        "to the broker: into %RETRY%cg in 10 s."
    )
    assert back.text.startswith(
        "ProcessQueue.cleanExpiredMsg: consuming for 29 m 59 s > consumeTimeout 15 min → sendMessageBack(M0001, "
        "delayLevel 3); SendMessageProcessor.asyncConsumerSendMsgBack keeps delay level 3, due in 10 s"
    )


def _raises(msgs: list[Any], ctx: Any) -> C:
    raise RuntimeError("db down")


def test_a_send_back_after_an_exception_or_a_null_says_which() -> None:
    threw = _backs(_one_queue(_raises).run(until="5s"))["M0001"]
    assert threw.plain == (
        "c1's listener threw an exception on M0001 (its 1st failure), so M0001 goes back to the broker: into "
        "%RETRY%cg in 10 s."
    )
    assert threw.text.startswith(
        "ConsumeMessageConcurrentlyService.processConsumeResult: the listener threw, counted as RECONSUME_LATER → "
        "sendMessageBack(M0001, delayLevel 0)"
    )
    null = _backs(_one_queue(lambda m, c: None).run(until="5s"))["M0001"]
    assert null.plain == (
        "c1's listener returned no result for M0001 (its 1st failure), so M0001 goes back to the broker: into "
        "%RETRY%cg in 10 s."
    )
    assert "the listener returned null, counted as RECONSUME_LATER → sendMessageBack(M0001" in null.text
    later = _backs(_one_queue(lambda m, c: C.RECONSUME_LATER).run(until="5s"))["M0001"]
    assert later.plain == "c1 failed M0001 for the 1st time, so it goes back to the broker: into %RETRY%cg in 10 s."
    assert "RECONSUME_LATER → sendMessageBack(M0001, delayLevel 0)" in later.text


def test_the_reasons_in_chinese() -> None:
    rmqlab.set_language("zh")
    try:
        ack = _backs(_acks(1))["M0003"].plain
        expired = _backs(_one_queue(lambda m, c: HANG).run(until="31m"))["M0001"].plain
    finally:
        rmqlab.set_language(None)
    assert ack == "c1 只确认到 M0002（确认序号为 1），所以 M0003 被回传给 Broker：10 s 后进入 %RETRY%cg。"
    assert expired == (
        "M0001 已在 c1 的监听器里待了 29 m 59 s，超过 15 min 的消费超时，所以 M0001 被回传给 Broker："
        "10 s 后进入 %RETRY%cg。"
    )
    assert "失败" not in ack + expired
