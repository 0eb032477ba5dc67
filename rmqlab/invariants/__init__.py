"""``check_invariants(lab)``: the reliability rules every run must keep, checked from the trace and state.

RocketMQ promises *at-least-once*: no message is lost, some may come twice. This module turns that
promise (and the orderly-lock rules) into checks that any test, fault storm or notebook can run
after ``lab.run(...)``. It is a pure function of ``lab.trace`` plus the state the engine exposes
(consume queues, committed offsets, the schedule service, ProcessQueues); it changes nothing.

The invariants (``Violation.invariant`` names):

``accounted``
    Every produced message — each SEND that stored something on a business topic — is, for every
    audience that should see it (a CLUSTERING group, or one BROADCASTING instance), in exactly one
    category: **consumed** (a listener succeeded), **dlq** (``%DLQ%<group>``), **broadcast_dropped**
    (BROADCASTING drops failures, and the trace says so), or **in flight** (still stored above the
    committed offset, parked in ``SCHEDULE_TOPIC_XXXX``, or in a live ProcessQueue — which includes
    a message waiting for its 5 s local retry). Anything else is *lost*.
``producer_duplicate``
    Extra stored copies of one message id are explained by an attempt that stored but did not get
    SEND_OK back (timeout, lost response, non-OK put status), or by the application sending again.
``redelivery``
    A stored copy (queue, offset) delivered again to the same audience is explained by a local
    retry (LOCAL_RETRY), an orderly suspend (SUSPENDED), or a *replay event* of the group in between:
    a consumer start/crash/shutdown, a REBALANCED, a lock take-over/refusal/unlock, an
    OFFSET_ILLEGAL fix-up or an injected fault. When a *different* instance delivers it again with none of
    those in between, both instances owned the queue by their own rebalances (RocketMQ lets brokers that
    disagree on a group's members grant one queue to two instances, for as long as they disagree; see
    :mod:`.deliveries`). No time window: a delivery by an instance that owned nothing is a violation.
``duplicate``
    A message consumed successfully more than once (or consumed *and* dead-lettered) has a cause in
    the trace: a producer duplicate, a replayed copy, a ``cleanExpiredMsg`` send-back, a
    send-back whose request stored a retry copy although the client saw it fail, or a delayed copy the
    ScheduleMessageService delivered again after a broker crash lost its ``delayOffset.json`` progress.
``offset_monotonic``
    The committed offset of a group's queue at the broker never moves backwards, except
    (a) an OFFSET_ILLEGAL fix-up by that consumer (the pull said the offset was out of range) or
    (b) a *handover*: the previous value was written by another consumer instance. Two instances own
    one queue for a moment during a rebalance, and an orderly consumer whose broker lock expired
    mid-listener commits after the new holder; each writes its own in-memory offset, so the later
    write may be lower. Both are RocketMQ behaviour and only cause replays. The same instance moving
    its own committed offset back is a bug.
``orderly_queue_order``
    Within one queue of an orderly audience, a message is consumed successfully only when every
    earlier offset of that queue (that the audience subscribes to) has finished — succeeded or been
    dead-lettered through the orderly send-back.
``single_lock_holder``
    No two consumers hold the broker lock of one queue at once. Holders are derived from
    LOCK_ACQUIRED / LOCK_RENEWED / UNLOCKED / LOCK_EXPIRED and the broker's 60 s lease
    (expired ⇔ ``now − last renewal > 60000``); a LOCK_EXPIRED before that is also a violation.
``consume_under_lock``
    An orderly CLUSTERING consumer only *starts* a listener call (DELIVERED) while it holds a live
    broker lock on that queue. A listener that was already running when the lock expired or was
    taken over may still finish and succeed: the documented expiry race, counted as
    ``expiry_races`` in the report, not a violation.
``settled``
    Liveness: once every injected fault has healed and the run stayed quiet for the drain bound (route poll
    30 s, rebalance 20 s, channel expiry 120 s, held-pull timeout 31 s, pull expiry 120 s, lock lease 60 s, the
    retry delay schedule of levels 3 … 18 and two ``consumeTimeout`` periods: 5 h 25 min 40 s by default, see
    :mod:`.settled`), every message is consumed, dead-lettered, dropped for a documented reason or stranded. A
    copy still in flight then is stuck: a violation with the message's story. Not applied to an audience with
    no running instance or to a queue whose listener still runs (faults that never healed);
    ``InvariantReport.settlement`` says whether the rule applied and why.

Each rule lives in its own module, on a shared :class:`~.context.CheckContext` (the trace indexed
once): :mod:`.produced` (producer_duplicate), :mod:`.deliveries` (redelivery), :mod:`.accounting` with
:mod:`.in_flight` and :mod:`.settled` (accounted, duplicate, settled), :mod:`.offsets`, :mod:`.locks` and
:mod:`.ordering`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import ConfigError
from .accounting import account
from .context import CheckContext
from .deliveries import outcomes
from .findings import INVARIANTS, InvariantReport, Violation
from .findings import MAX_TRACE_EVENTS as MAX_TRACE_EVENTS  # importable here as before the split
from .locks import check_locks
from .offsets import check_offsets
from .ordering import check_orderly_order
from .produced import produced_copies

if TYPE_CHECKING:
    from ..lab.lab import Lab

__all__ = ["INVARIANTS", "InvariantReport", "Violation", "check_invariants"]


def check_invariants(lab: Lab) -> InvariantReport:
    """Check every invariant of this package against ``lab``'s trace and state; changes nothing.

    Needs a lab built with ``trace=True`` (the default): with counters only there is nothing to read.
    """
    if not lab.trace.enabled:
        raise ConfigError("trace", False, "a Lab(trace=True): the invariant checker reads the trace")
    ctx = CheckContext(lab)
    copies = produced_copies(ctx)
    successes, dup_sources = outcomes(ctx)
    account(ctx, copies, successes, dup_sources)
    check_offsets(ctx)
    check_locks(ctx)
    check_orderly_order(ctx, successes)
    return ctx.report
