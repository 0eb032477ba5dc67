"""A yes/no checkpoint: "does c1 subscribe %RETRY%cg?", asked in the picture's checkpoint box with two buttons.

Lab 08's graded question "Does a BROADCASTING consumer subscribe %RETRY%cg?" had no checkpoint: no "where", "who" or
"when" can ask it, and the picture told it (c1's lane drew no %RETRY% ProcessQueue). A lab now asks it on the picture::

    Checkpoint(before="rebalanced", actor="consumer:c1", ask="whether", question="Does c1 subscribe %RETRY%cg?",
               holds=lambda trace, snap: owns(snap, "c1", "%RETRY%cg"))

The truth is never written in the lab: ``holds`` is a predicate the run answers. It is called with the trace up to
the end of the step that holds the checkpoint's event (the step the run pauses before) and that step's snapshot, so
the answer is what the engine did next, as the "where" answers are. Its buttons read "yes" and "no" in the reader's
language and have the same gate, hint (the lab's) and explanation (the lab's, or per answer key ``"yes"`` / ``"no"``)
as the other kinds, and the score summary counts it like them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rmqlab import TraceEvent
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .checkpoint_choices import Offer

__all__ = ["ANSWERS", "Holds", "owns", "whether_answer", "whether_offers"]

Holds = Callable[[Sequence[TraceEvent], LabSnapshot], bool]
"""A "whether" checkpoint's predicate: (the trace through the paused step's next step, that step's snapshot) →
whether the thing asked holds."""

ANSWERS = {"yes": N_("yes"), "no": N_("no")}
"""The two answers' keys and words (translated where shown)."""


def whether_offers() -> tuple[Offer, ...]:
    """The two buttons, "yes" first; no near-miss hint (the lab's hint speaks to either wrong answer)."""
    return tuple(Offer(key, _(words)) for key, words in ANSWERS.items())


def whether_answer(holds: Holds | None, trace: Sequence[TraceEvent], snap: LabSnapshot, name: str) -> str:
    """``"yes"`` or ``"no"``: what ``holds`` says of the run after the pause. A checkpoint without a predicate, or one
    that answers something other than a bool, is an error naming the checkpoint."""
    if holds is None:
        raise ValueError(f"checkpoint {name!r}: ask='whether' needs holds=, a predicate (trace, snapshot) -> bool")
    truth = holds(trace, snap)
    if not isinstance(truth, bool):
        raise ValueError(f"checkpoint {name!r}: holds returned {truth!r}; expected True or False")
    return "yes" if truth else "no"


def owns(snap: LabSnapshot, consumer: str, topic: str) -> bool:
    """Whether ``consumer`` holds a ProcessQueue of ``topic`` in ``snap`` (it rebalanced the topic's queues onto
    itself: for a ``%RETRY%`` topic, it subscribes its group's retries). An unknown consumer is an error."""
    for c in snap.consumers:
        if c.client_id == consumer:
            return any(pq.queue.split("@")[0] == topic for pq in c.process_queues)
    raise KeyError(f"consumer {consumer!r}; the run has {sorted(c.client_id for c in snap.consumers)}")
