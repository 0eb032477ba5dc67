"""Two things the message-flow picture draws besides one token per message and owner: a message stored twice, and
a send try that failed where it was tried.

* **Copies.** A message can be stored twice under the same message id: a SYNC send whose response was lost is tried
  again and the broker stores it again (``DefaultMQProducerImpl.sendDefaultImpl`` retries on a
  ``RemotingTimeoutException`` although the first request was written: lab 01b), and a broker crash that loses the
  schedule service's delay offset delivers the parked message a second time (``ScheduleMessageService`` reads
  ``delayOffset.json`` at ``load()``: lab 03). Each stored copy in a business queue is its own token, numbered by
  when the broker stored it (:func:`copy_numbers`): the first keeps the message's key, copy 2 is keyed
  ``msg:<owner>:<id>:copy2`` and drawn with a "copy 2" badge. A copy's later life in ``%RETRY%`` / delay levels /
  ``%DLQ%`` is the message's (those places carry no link back to the stored copy), so copies are told apart in the
  business queues, the ProcessQueues and the consumed tray.
* **A failed try** (:func:`failed_try_ghosts`): a try whose answer was an error (``RemotingConnectException`` to a
  broker that is down, a timeout) is drawn, at the moment it failed, as a faded crossed ghost on the queue it was
  sent to (``ghost:<id>:<sender>:<attempt>``), beside the token of the message, which shows where the send is now;
  the next moment it fades away.
"""

from __future__ import annotations

from rmqlab import EventKind, MessageQueue
from rmqlab.snapshot import LabSnapshot

from .flow_facts import STORED_NOT_OK
from .flow_model import TokenVM
from .palette import token_colour

__all__ = ["copy_numbers", "failed_try_ghosts"]


def copy_numbers(snap: LabSnapshot) -> dict[tuple[str, int], int]:
    """(queue name, offset) → copy number (2, 3 …) of each business-queue cell whose message id is stored more than
    once, numbered by store time (then queue, then offset, so equal times still give one order); a message stored
    once has no entry (it is copy 1). And (msg id, -1) → how many business queues' copies it has: a producer's
    delayed message parked again after it was delivered (lab 03's crash: the schedule service's offset rolled back)
    is the next copy, drawn apart from the one consumed."""
    cells: dict[str, list[tuple[int, str, int]]] = {}
    for q in snap.queues:
        if q.kind != "business":
            continue
        for cell in q.cells:
            if cell.msg_id is not None:
                cells.setdefault(cell.msg_id, []).append((cell.store_ms, q.name, cell.offset))
    numbers: dict[tuple[str, int], int] = {}
    for msg, stored in cells.items():
        numbers[(msg, -1)] = len(stored)  # how many times it is stored (a parked copy due again is one more)
        for n, (_store_ms, queue, offset) in enumerate(sorted(stored), start=1):
            if n > 1:
                numbers[(queue, offset)] = n
    return numbers


def failed_try_ghosts(snap: LabSnapshot, colour_key: dict[str, str]) -> tuple[TokenVM, ...]:
    """A ghost token for each send try answered with an error at the snapshot's moment, on the queue that try was sent
    to (its ``why``: the error), keyed by message, sender and try; in trace order."""
    failed = []
    events = snap.events
    for i in range(len(events) - 1, -1, -1):
        event = events[i]
        if event.time_ms != snap.now_ms:
            break
        outcome = str(event.data.get("outcome", ""))
        if event.kind is not EventKind.SEND_RESULT or event.msg_id is None or outcome in ("SUCCESS", *STORED_NOT_OK):
            continue
        attempt = int(event.data["attempt"])
        tried = next(  # the try's own SEND_ATTEMPT names its topic (an inner producer's send-back goes to %RETRY%)
            e
            for e in reversed(events[:i])
            if e.kind is EventKind.SEND_ATTEMPT and e.actor == event.actor and e.msg_id == event.msg_id
            and e.data.get("attempt") == attempt
        )  # fmt: skip
        queue = str(MessageQueue(str(tried.data["topic"]), str(tried.data["broker"]), int(tried.data["queue_id"])))
        sender = event.actor.split(":", 1)[-1]
        failed.append(
            TokenVM(
                key=f"ghost:{event.msg_id}:{sender}:{attempt}",
                msg_id=event.msg_id,
                owner="",
                place="queue:" + queue,
                state="send_failed",
                reconsume_times=0,
                colour=token_colour(colour_key.get(event.msg_id, event.msg_id)),
                colour_by=colour_key.get(event.msg_id, event.msg_id),
                why=outcome,
                copy=attempt,
            )
        )
    return tuple(reversed(failed))
