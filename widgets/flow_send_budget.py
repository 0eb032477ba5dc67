"""A producer's send budget in the message-flow picture: "send waiting, gives up at t = 4.001 s" under its name while
a send request is in flight.

``DefaultMQProducerImpl.sendDefaultImpl`` takes ``beginTimestampFirst`` once and gives every attempt what is left of
``sendMsgTimeout`` (3000 ms by default): the request's timeout is the rest of that one budget, so the moment the
client stops waiting is the same for the whole send. Lab 01b's shared-timeout question asks exactly when that is,
and the picture drew no clock for it (revC defect 1): the consumers had theirs, the producer none. At a paused
"when" checkpoint its time reads as the consumers' clocks do (:func:`widgets.flow_clocks.hide_clock_times`).

Mirrors: client/src/main/java/org/apache/rocketmq/client/impl/producer/DefaultMQProducerImpl.java (sendDefaultImpl,
sendKernelImpl's ``timeout - costTime``) and remoting's NettyRemotingAbstract.invokeSyncImpl (the request's wait).
"""

from __future__ import annotations

import dataclasses

from rmqlab import format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .flow_model import ClockVM, FlowVM
from .scene import text_width

__all__ = ["SEND_CODES", "SEND_TIP", "SEND_WAITING", "budget_lines", "budget_width", "with_send_budgets"]

SEND_WAITING = N_("send waiting;\ngives up at\nt = {time}")
"""Three short lines, so the producers column stays narrow (a masked time reads "t = … (your question)")."""
SEND_TIP = N_(
    "sendDefaultImpl: every attempt of this send shares one sendMsgTimeout, counted from the first attempt "
    "(beginTimestampFirst); this request waits for what is left of it, {left} ms"
)
SEND_CODES = ("SEND_MESSAGE", "SEND_MESSAGE_V2", "SEND_BATCH_MESSAGE")
"""The request codes of a producer's send (``RequestCode``)."""


def with_send_budgets(vm: FlowVM, snap: LabSnapshot) -> FlowVM:
    """``vm`` with a clock per producer send waiting for its answer (producer, clock, tooltip); else ``vm`` itself."""
    names = set(vm.producers)
    found = tuple(
        (r.client, ClockVM("send", _(SEND_WAITING), format_duration(r.gives_up_ms), r.gives_up_ms),
         _(SEND_TIP).format(left=r.timeout_ms))
        for r in snap.requests
        if r.client in names and r.code in SEND_CODES and r.gives_up_ms is not None
    )  # fmt: skip
    return dataclasses.replace(vm, send_budgets=found) if found else vm


def budget_lines(vm: FlowVM, producer: str) -> list[tuple[str, str]]:
    """(text, tooltip) of the send clocks' lines drawn under ``producer``'s name."""
    return [(line, tip) for name, clock, tip in vm.send_budgets if name == producer for line in clock.text.split("\n")]


def budget_width(vm: FlowVM) -> float:
    """The widest line of the send clocks (11 px), for the producers column's width."""
    lines = [line for _name, clock, _tip in vm.send_budgets for line in clock.text.split("\n")]
    return max((text_width(line, 11) for line in lines), default=0.0)
