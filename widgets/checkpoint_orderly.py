"""What a "where" question offers for an orderly consumer's listener result that sends nothing back.

An orderly consumer keeps a message it failed: ``SUSPEND_CURRENT_QUEUE_A_MOMENT`` puts it back into its ProcessQueue
(``ConsumeMessageOrderlyService.processConsumeResult`` → ``checkReconsumeTimes`` → ``makeMessageToConsumeAgain``), and
``ROLLBACK`` with autoCommit off is ``ProcessQueue.rollback()``. It sends a message back to the broker only once its
reconsumeTimes passes maxReconsumeTimes (``checkReconsumeTimes`` → ``sendMessageBack``). So until then its question
offers no delay level, no %RETRY% queue and no DLQ (revF 4: 07b's ROLLBACK question offered 11 places, 7 of them
impossible): only the broker queue it came from, the instance's ProcessQueue, "consumed" and "dropped".
"""

from __future__ import annotations

from collections.abc import Sequence

from rmqlab import ConsumeOrderlyStatus, EventKind, TraceEvent
from rmqlab.core.i18n import gettext as _

from .flow_view import Place

__all__ = ["ORDERLY_KINDS", "keeps_it_local", "local_hint"]

ORDERLY_STATUSES = frozenset(s.value for s in ConsumeOrderlyStatus)
"""An orderly listener's results (``SUCCESS``, ``SUSPEND_CURRENT_QUEUE_A_MOMENT``, ``COMMIT``, ``ROLLBACK``): none is
a concurrent listener's (``CONSUME_SUCCESS``, ``RECONSUME_LATER``), so the event says which service consumed."""
ORDERLY_KINDS = ("business", "process_queue", "done", "dropped")
"""The kinds of place such a question offers."""


def keeps_it_local(event: TraceEvent, step: Sequence[TraceEvent]) -> bool:
    """Whether ``event`` is an orderly listener's result whose step sends nothing of its message back."""
    if event.kind is not EventKind.CONSUMED or str(event.get("status")) not in ORDERLY_STATUSES:
        return False
    return not any(e.kind is EventKind.SEND_BACK and e.msg_id == event.msg_id for e in step)


def local_hint(choice: Place, answer: Place, event: TraceEvent) -> str:
    """Why ``choice`` is not where the orderly consumer's message is after ``event`` ("" leaves the lab's hint)."""
    if answer.kind != "process_queue":
        return ""
    status = str(event.get("status"))
    if choice.kind == "business":
        return _("{status} is the client's own business: an orderly consumer hands nothing back to the broker's "
                 "queue until reconsumeTimes passes maxReconsumeTimes (checkReconsumeTimes).").format(status=status)
    if choice.kind == "done":
        return _("{status} is not a success: the message is not consumed, and the offset does not move past it."
                 ).format(status=status)
    if choice.kind == "dropped":
        return _("An orderly consumer drops no message it failed: it consumes it again, and sends it back only once "
                 "reconsumeTimes passes maxReconsumeTimes.")
    return ""
