"""The offset strip's view-model from a snapshot: the trace folded into per-instance offset facts (delivered,
acked, sent back, dropped), then one row per running instance and ProcessQueue, its cells' states, a window of
``max_cells`` around what matters, and the pointers."""

from __future__ import annotations

from collections.abc import Iterable

from rmqlab import EventKind, TraceEvent
from rmqlab.common.message import RETRY_PREFIX
from rmqlab.core.i18n import gettext as _
from rmqlab.lab.report import SUCCESS_STATUSES
from rmqlab.snapshot import ConsumeQueueSnap, ConsumerSnap, LabSnapshot, OffsetState, ProcessQueueSnap, copy_group

from .offset_model import FINISHED, OffsetStripModel, StripCell, StripPointer, StripRow

__all__ = ["offset_strip_model"]


def offset_strip_model(snap: LabSnapshot, *, include_empty: bool = True, max_cells: int = 48) -> OffsetStripModel:
    """One :class:`StripRow` per (running consumer instance, ProcessQueue), in client id order, each instance's
    business queues first, then its ``%RETRY%`` queues (queue order within each). A ``%RETRY%`` queue that never held a
    message gets no strip: it is listed in :attr:`OffsetStripModel.quiet` (one note line).

    ``include_empty=False`` leaves out ProcessQueues of queues that never held a message.
    ``max_cells`` bounds the cells per strip (a long queue shows a window starting just below the
    lowest pointer or unfinished offset).
    """
    if isinstance(max_cells, bool) or not isinstance(max_cells, int) or max_cells < 4:
        raise ValueError(f"max_cells={max_cells!r}; expected an int of at least 4")
    facts = _instance_facts(snap.events)
    how = _lifecycle(snap.events)
    queues: dict[str, ConsumeQueueSnap] = {q.name: q for q in snap.queues}
    rows: list[StripRow] = []
    gone: list[tuple[str, str]] = []
    quiet: list[tuple[str, str]] = []
    for c in snap.consumers:
        if not c.running:
            gone.append((c.client_id, _("crash") if c.crashed else how.get(c.client_id) or _("not started")))
            continue
        for pq in sorted(c.process_queues, key=lambda pq: pq.queue.startswith(RETRY_PREFIX)):  # stable: queue order
            q = queues.get(pq.queue)
            lo, hi = (q.min_offset, q.max_offset) if q is not None else (0, 0)
            if not include_empty and hi == lo:
                continue
            if hi == lo and pq.queue.startswith(RETRY_PREFIX) and not pq.msg_tree_keys:
                quiet.append((c.client_id, pq.queue))
                continue
            rows.append(_strip_row(c, pq, q, facts, max_cells))
    return OffsetStripModel(snap.now_ms, tuple(rows), tuple(gone), tuple(quiet))


def _instance_facts(events: Iterable[TraceEvent]) -> dict[tuple[str, str, int], OffsetState]:
    """Fold the trace into per-instance offset facts: (client id, queue, offset) → finished state or CONSUMING.

    A (re)start clears the instance's facts: the new incarnation has fresh ProcessQueues and consumes
    again from the broker's offset, so what the old one finished above that offset is *not* done for it.
    A send-back the broker answered SUCCESS without storing a ``%RETRY%``/``%DLQ%`` copy (``retryQueueNums``
    0) is DROPPED, not SENT_BACK: the broker stores the copy before it answers.
    """
    facts: dict[tuple[str, str, int], OffsetState] = {}
    last: dict[tuple[str, str], tuple[str, str, int]] = {}
    copy_stored: dict[tuple[str, str], bool] = {}
    """(group, msg id) → a retry/DLQ copy was stored since the group's last delivery of it."""
    group_of: dict[str, str] = {}
    for e in events:
        kind = e.kind
        d = e.data
        copy_of = copy_group(e)
        if copy_of is not None:
            if (copy_of, e.msg_id or "") in copy_stored:
                copy_stored[(copy_of, e.msg_id or "")] = True
            continue
        if not e.actor.startswith("consumer:"):
            continue
        client = e.actor[len("consumer:") :]
        if kind is EventKind.DELIVERED:
            key = (client, d["queue"], d["queue_offset"])
            facts[key] = OffsetState.CONSUMING
            last[(client, e.msg_id or "")] = key
            group_of[client] = d["group"]
            copy_stored[(d["group"], e.msg_id or "")] = False
        elif kind is EventKind.CONSUMED:
            found = last.get((client, e.msg_id or ""))
            if found is None:
                continue
            if d.get("status") in SUCCESS_STATUSES:
                facts[found] = OffsetState.ACKED
            elif facts.get(found) is OffsetState.CONSUMING:
                del facts[found]
        elif kind in (EventKind.SEND_BACK, EventKind.SEND_BACK_FALLBACK):
            found = last.get((client, e.msg_id or ""))
            if found is not None and d.get("ok"):
                stored = copy_stored.get((group_of.get(client, ""), e.msg_id or ""), False)
                facts[found] = OffsetState.SENT_BACK if stored else OffsetState.DROPPED
        elif kind is EventKind.BROADCAST_DROPPED:
            found = last.get((client, e.msg_id or ""))
            if found is not None:
                facts[found] = OffsetState.DROPPED
        elif kind is EventKind.LIFECYCLE and d.get("event") == "start":
            for key in [k for k in facts if k[0] == client]:
                del facts[key]
    return facts


def _lifecycle(events: Iterable[TraceEvent]) -> dict[str, str]:
    """Client id → its last lifecycle event (``start`` / ``crash`` / ``shutdown``)."""
    last: dict[str, str] = {}
    for e in events:
        if e.kind is EventKind.LIFECYCLE and e.actor.startswith("consumer:"):
            last[e.actor[len("consumer:") :]] = str(e.data.get("event"))
    return last


def _window(lo: int, hi: int, focus: int, max_cells: int) -> tuple[int, int]:
    """The offsets [start, end) to draw: all of [lo, hi) if it fits, else ``max_cells`` starting near ``focus``."""
    if hi - lo <= max_cells:
        return lo, hi
    start = max(lo, min(focus - 2, hi - max_cells))
    return start, start + max_cells


def _strip_row(
    c: ConsumerSnap,
    pq: ProcessQueueSnap,
    q: ConsumeQueueSnap | None,
    facts: dict[tuple[str, str, int], OffsetState],
    max_cells: int,
) -> StripRow:
    """One instance's ProcessQueue: every offset's state, the holes, the pointers, and the window drawn."""
    lo, hi = (q.min_offset, q.max_offset) if q is not None else (0, 0)
    broker, committed = pq.broker_offset, pq.memory_offset
    msg_ids = {cell.offset: cell.msg_id for cell in q.cells} if q is not None else {}
    consuming = set(pq.consuming_keys)
    states = _cell_states(c.client_id, pq, facts, range(lo, hi))
    # a hole: finished, at or above the committed offset, with an unfinished offset below it
    lowest_open = min((o for o, s in states if s not in FINISHED and o >= (committed or 0)), default=None)
    local = c.message_model == "BROADCASTING"
    pointers = _pointers(c.orderly, local, committed, broker, pq.msg_tree_keys, pq.consuming_keys)
    focus = min([p.offset for p in pointers] + ([lowest_open] if lowest_open is not None else []), default=lo)
    start, end = _window(lo, hi, focus, max_cells)
    cells = tuple(
        StripCell(
            o,
            msg_ids.get(o),
            s,
            hole=lowest_open is not None and s in FINISHED and o > lowest_open,
            in_consuming_map=o in consuming,
        )
        for o, s in states
        if start <= o < end
    )
    return StripRow(
        c.client_id,
        c.group,
        pq.queue,
        c.orderly,
        pq.dropped,
        pq.locked,
        lo,
        hi,
        cells,
        pointers,
        pq.msg_tree_keys,
        pq.consuming_keys,
        start - lo,
        hi - end,
    )


def _cell_states(
    client: str, pq: ProcessQueueSnap, facts: dict[tuple[str, str, int], OffsetState], offsets: range
) -> list[tuple[int, OffsetState]]:
    """Each offset's state for this instance: in its maps (consuming, pulled), finished by its own trace, below
    the committed or persisted offset (done), else stored."""
    broker, committed = pq.broker_offset, pq.memory_offset
    waiting, consuming = set(pq.msg_tree_keys), set(pq.consuming_keys)
    floor = max(committed if committed is not None else -1, broker if broker is not None else -1)
    states: list[tuple[int, OffsetState]] = []
    for offset in offsets:
        fact = facts.get((client, pq.queue, offset))
        if offset in consuming:
            state = OffsetState.CONSUMING
        elif offset in waiting:
            state = OffsetState.CONSUMING if fact is OffsetState.CONSUMING else OffsetState.PULLED
        elif fact is not None and fact in FINISHED:
            state = fact
        elif offset < floor:
            state = OffsetState.ACKED
        else:
            state = OffsetState.STORED
        states.append((offset, state))
    return states


def _pointers(
    orderly: bool,
    local: bool,
    committed: int | None,
    broker: int | None,
    keys: tuple[int, ...],
    consuming: tuple[int, ...],
) -> tuple[StripPointer, ...]:
    out: list[StripPointer] = []
    if committed is not None and committed >= 0:
        why = (
            _("the offset store: ConsumeMessageOrderlyService.processConsumeResult → updateOffset(commit())")
            if orderly
            else _("the offset store: processConsumeResult → removeMessage returns the smallest key still in "
                   "msgTreeMap (or queueOffsetMax + 1 when empty) → updateOffset")
        )  # fmt: skip
        out.append(StripPointer("committed", committed, _("committed {offset}").format(offset=committed), why))
    if broker is not None and broker >= 0:
        why = (
            _("BROADCASTING: LocalFileOffsetStore.persistAll writes the offset to the instance's own file every 5 s")
            if local
            else _("the broker's consumerOffsetTable: persistConsumerOffset every 5 s and the commit offset of each "
                   "pull")
        )  # fmt: skip
        label = _("local file {offset}") if local else _("broker {offset}")
        out.append(StripPointer("broker", broker, label.format(offset=broker), why))
    if orderly:
        if consuming:
            out.append(
                StripPointer(
                    "commit()",
                    consuming[-1] + 1,
                    f"commit() = lastKey + 1 = {consuming[-1] + 1}",
                    _("ProcessQueue.commit(): consumingMsgOrderlyTreeMap.lastKey() + 1, stored on SUCCESS"),
                )
            )
        low = min((*keys, *consuming), default=None)
        if low is not None:
            out.append(
                StripPointer(
                    "low-water",
                    low,
                    _("low-water {offset} (concurrent would commit)").format(offset=low),
                    _("ProcessQueue.removeMessage (concurrent): the smallest key still in the maps"),
                )
            )
    return tuple(out)
