"""The brokers a producer keeps out of its queue choice, drawn as a clock under the broker's name.

With ``sendLatencyFaultEnable`` a producer rates every broker after every attempt (``MQFaultStrategy.
updateFaultItem``): the attempt's latency, looked up in ``latencyMax``, gives a ``notAvailableDuration`` during
which ``selectOneMessageQueue`` walks past that broker's queues. Lab 01b's latency picture sent M0001 to a broker-a
that answered after 600 ms, so broker-a was out of pg's choice until 31.6 s, and M0002 at 5 s went to broker-b;
nothing in the picture said why (revA item 4): the student had to remember a number from the text. Each broker box
now lists, under its name, "out of pg's choice / until t = 31.600 s" while the engine's fault item says so
(:attr:`rmqlab.snapshot.LabSnapshot.kept_out`), its tooltip naming the rule; at a paused "when" checkpoint its time
reads "?" as the consumers' clocks do (:func:`widgets.flow_clocks.hide_clock_times`).

While a question waits, the time can be its answer: lab 01b asks where the 5 s send goes while broker-a's box read
"until t = 31.600 s" (revE defect 2), which says broker-b, and half of its exercise 4. A checkpoint that declares
``hides=("kept_out_until",)`` (:mod:`widgets.checkpoint_hide`) gets "until t = (hidden)" on every frame up to its
pause (:func:`hide_kept_out`; the Events tab's ``not_available_until=`` too, :func:`hide_kept_out_rows`), in the
short words of :mod:`widgets.masked_words`, as "gives up at (hidden)"; the line "out of pg's choice" stays, as the
mechanism the student should weigh.

A broker told to answer late (``set_broker_fault(response_delay_ms=…)``) gets a line there too, "answers 5 s late":
lab 06's slow-broker question said so while the picture drew nothing of it (revD defect 8). Its words hold no
``{time}``, so a paused "when" checkpoint, which hides clock times, leaves the fault readable.

Mirrors: client/src/main/java/org/apache/rocketmq/client/latency/MQFaultStrategy.java (updateFaultItem,
selectOneMessageQueue) and LatencyFaultToleranceImpl.java (FaultItem.isAvailable).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from rmqlab import format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .flow_model import ClockVM, FlowVM
from .masked_words import hidden_short

if TYPE_CHECKING:  # the Events tab's module imports the checkpoints', which import this one
    from .event_log import EventLogModel

__all__ = [
    "KEPT_OUT",
    "KEPT_OUT_TIP",
    "KEPT_UNTIL",
    "SLOW",
    "SLOW_TIP",
    "hide_kept_out",
    "hide_kept_out_rows",
    "with_kept_out",
]

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


def hide_kept_out(vm: FlowVM) -> FlowVM:
    """``vm`` with every "out of … 's choice until t = …" time read "(hidden)": a question about where the next
    send goes waits, or a "when" question hides every clock (:func:`widgets.flow_clocks.hide_clock_times`); the
    injected "answers 5 s late" line stays: it is the question's premise, not its answer."""
    hidden = hidden_short()
    kept = tuple(
        (broker, dataclasses.replace(clock, time=hidden) if clock.kind == "kept_out" else clock, tip)
        for broker, clock, tip in vm.kept_out
    )
    return vm if kept == vm.kept_out else dataclasses.replace(vm, kept_out=kept)


def hide_kept_out_rows(vm: EventLogModel) -> EventLogModel:
    """The Events tab with every send result's ``not_available_until=`` read "(hidden)": the row of the 1 s send says
    the same time as the broker's box."""
    hidden = hidden_short()
    rows = tuple(
        dataclasses.replace(r, details=re.sub(r"\bnot_available_until=\d+", f"not_available_until={hidden}", r.details))
        for r in vm.rows
    )
    return vm if rows == vm.rows else dataclasses.replace(vm, rows=rows)
