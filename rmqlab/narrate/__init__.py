"""Captions: one sentence per trace event saying what happened, why, and where in RocketMQ 4.9.7.

A caption has two lines. The first is one plain sentence a beginner understands, with this run's numbers
and no Java identifier ("c1 failed M0001 for the 2nd time, so it goes back to the broker: into %RETRY%cg in
30 s", :mod:`~rmqlab.narrate.plain`). The second, "in the source", is for the code: a student stepping through
a run should not have to decode ``send_back ok=True delay_level=0``; it says
"ConsumeMessageConcurrentlyService.processConsumeResult: RECONSUME_LATER → sendMessageBack(delayLevel 0) …;
the broker uses 3 + reconsumeTimes 0 = level 3, due in 10 s".
That second line starts with the Java ``Class.method`` that does the step and carries the event's real
numbers. :mod:`~rmqlab.narrate.steps` puts them in reading order (cause before effect), folds repeats, and
makes a step's two lines; :mod:`~rmqlab.narrate.summary` gives the last step what the whole run showed.

Why a :class:`Narrator` that is *fed* events in order instead of a function of one event: the "why"
often lives in earlier events. A retry attempt avoids the broker the previous attempt failed on; a
send-back is judged by what the broker just did with it (parked at a level, written to the DLQ, or —
with ``retryQueueNums`` 0 — nothing at all); a DLQ write is explained by the consumer's
``maxReconsumeTimes`` carried on its earlier send-backs. The narrator keeps exactly that context and
nothing else, so captions are a pure, deterministic function of the trace prefix. It never looks
ahead: the caption of event *k* is the same whether the trace stops at *k* or runs on.

:func:`is_meaningful` separates the steps a student wants to see (a delivery, a consume result, a
send-back, a schedule hop, a DLQ write, a lock change, a send attempt or result, a fault, a
rebalance) from bookkeeping (offset updates and persists, lock renewals, pulls that bring nothing),
so a controller can step from one meaningful event to the next.

The package: :mod:`~rmqlab.narrate.narrator` (:class:`Narrator`, :class:`Caption`, :func:`is_meaningful`),
:mod:`~rmqlab.narrate.context` (what the narrator remembers), and one module of caption functions per event
family: :mod:`~rmqlab.narrate.sending` (the producer), :mod:`~rmqlab.narrate.storing` (the broker's store,
schedule topic and DLQ), :mod:`~rmqlab.narrate.consuming` (the consume services), :mod:`~rmqlab.narrate.rebalancing`
(offsets, rebalances, queue locks) and :mod:`~rmqlab.narrate.lab_events` (lifecycle, faults, warnings).

Pure engine code: imports nothing from Jupyter.
"""

from __future__ import annotations

from .narrator import BOOKKEEPING_KINDS, MEANINGFUL_KINDS, Caption, Narrator, caption, is_meaningful, narrate
from .steps import Repeat, StepCaption, group_repeats, reading_order, signature, step_caption
from .summary import RunFates, count_fates, end_caption, run_summary

__all__ = [
    "BOOKKEEPING_KINDS",
    "MEANINGFUL_KINDS",
    "Caption",
    "Narrator",
    "Repeat",
    "RunFates",
    "StepCaption",
    "caption",
    "count_fates",
    "end_caption",
    "group_repeats",
    "is_meaningful",
    "narrate",
    "reading_order",
    "run_summary",
    "signature",
    "step_caption",
]
