"""The brokers a producer keeps out of its queue choice, drawn as a clock under the broker's name.

With ``sendLatencyFaultEnable`` a producer rates every broker after every attempt (``MQFaultStrategy.
updateFaultItem``): the attempt's latency, looked up in ``latencyMax``, gives a ``notAvailableDuration`` during
which ``selectOneMessageQueue`` walks past that broker's queues. Lab 01b's latency picture sent M0001 to a broker-a
that answered after 600 ms, so broker-a was out of pg's choice until 31.6 s, and M0002 at 5 s went to broker-b;
nothing in the picture said why (revA item 4): the student had to remember a number from the text. Each broker box
now lists, under its name, "out of pg's choice / until t = 31.600 s" while the engine's fault item says so
(:attr:`rmqlab.snapshot.LabSnapshot.kept_out`), its tooltip naming the rule; at a paused "when" checkpoint its time
reads "?" as the consumers' clocks do (:func:`widgets.flow_clocks.hide_clock_times`).

A broker told to answer late (``set_broker_fault(response_delay_ms=…)``) gets a line there too, "answers 5 s late":
lab 06's slow-broker question said so while the picture drew nothing of it (revD defect 8). Its words hold no
``{time}``, so a paused "when" checkpoint, which hides clock times, leaves the fault readable.

Mirrors: client/src/main/java/org/apache/rocketmq/client/latency/MQFaultStrategy.java (updateFaultItem,
selectOneMessageQueue) and LatencyFaultToleranceImpl.java (FaultItem.isAvailable).
"""

from __future__ import annotations

import dataclasses

from rmqlab import format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .flow_model import ClockVM, FlowVM

__all__ = ["KEPT_OUT", "KEPT_OUT_TIP", "KEPT_UNTIL", "SLOW", "SLOW_TIP", "with_kept_out"]

KEPT_OUT = N_("out of {producer}'s choice")
KEPT_UNTIL = N_("until t = {time}")
"""The clock's two lines (one would widen both broker columns by 60 px: lab 01b's picture then overflowed)."""
KEPT_OUT_TIP = N_(
    "MQFaultStrategy: the latency of {producer}'s last attempt on {broker} sets its notAvailableDuration; "
    "until then selectOneMessageQueue walks past {broker}'s queues"
)

SLOW = N_("answers {time} late")
SLOW_TIP = N_("an injected fault: {broker} acts on each request at once, and its answer leaves {time} later")


def with_kept_out(vm: FlowVM, snap: LabSnapshot) -> FlowVM:
    """``vm`` with a clock per (broker, producer) that the producer keeps out of its choice now: (broker, clock,
    tooltip)."""
    kept = tuple(
        (
            item.broker,
            ClockVM("kept_out", _(KEPT_OUT).replace("{producer}", item.producer) + "\n" + _(KEPT_UNTIL),
                    format_duration(item.until_ms), item.until_ms),
            _(KEPT_OUT_TIP).format(producer=item.producer, broker=item.broker),
        )
        for item in snap.kept_out
    )  # fmt: skip
    slow = tuple(
        (b.name, ClockVM("slow", _(SLOW).format(time=format_duration(value)), "", None),
         _(SLOW_TIP).format(broker=b.name, time=format_duration(value)))
        for b in snap.brokers
        for setting, value in b.faults
        if setting == "response_delay_ms" and isinstance(value, int) and value > 0 and b.up
    )  # fmt: skip
    return dataclasses.replace(vm, kept_out=kept + slow) if kept or slow else vm
