"""Listeners the view tests' small runs share."""

from __future__ import annotations

from typing import Any

from rmqlab import ConsumeConcurrentlyStatus


def fails_once(msgs: list[Any], ctx: Any) -> ConsumeConcurrentlyStatus:
    """RECONSUME_LATER on a message's first delivery, CONSUME_SUCCESS on its retry: one trip through %RETRY%."""
    if msgs[0].reconsume_times == 0:
        return ConsumeConcurrentlyStatus.RECONSUME_LATER
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS
