"""What a consumer's box says besides its name: the clocks pending for it, the broker locks it holds, the links cut.

A question such as "when does c2 get the queue?" or "when does the 60 s limit make the request yield?" depends on a
timer the student cannot see in the tokens. Each consumer box lists its pending clocks, read from the engine's state
at the frame (never from a lab's constants):

* the scheduler's pending timers of that consumer: the next route poll (``pollNameServerInterval``,
  ``MQClientInstance.startScheduledTask``), the next rebalance (``RebalanceService.waitForRunning``), the next offset
  persist (``persistConsumerOffsetInterval``), orderly the next lock renewal (``lockMQPeriodically``), and,
  concurrently, the next expired-message scan (``cleanExpireMsg`` every ``consumeTimeout`` minutes,
  ``ConsumeMessageConcurrentlyService.start``): lab 02b's slow listener loses its message to that scan, which its box
  did not show (revA item 6), so the jump to t = 30 m had no visible cause;
* orderly, while a ``ConsumeRequest`` runs its consume loop, when it starts to yield its thread: its ``beginTime`` +
  ``MAX_TIME_CONSUME_CONTINUOUSLY`` (60 s; ``ConsumeMessageOrderlyService.ConsumeRequest.run``);
* each request of the consumer still waiting for an answer whose timeout is armed (``UNLOCK_BATCH_MQ waiting, gives
  up at 9.001 s``: ``NettyRemotingAbstract.invokeSyncImpl``), and a consumer shutting down.

A ProcessQueue whose broker lock this instance holds, lease live (``RebalanceLockManager``), gets a lock badge, and a
broker queue names the client its broker's lock table names (a hollow padlock once the lease expired); a
partitioned link (``lab.partition``) is drawn cut. At a paused "when" checkpoint every clock's time is drawn as "?"
(:func:`widgets.checkpoint_mask.mask_model`), as the Locks tab draws "lease ends at ?": the mechanism stays named,
the time it would tell is hidden.
"""

from __future__ import annotations

import dataclasses

from rmqlab import TimerKind, format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import ConsumerSnap, LabSnapshot, LockSnap

from .flow_kept_out import hide_kept_out
from .flow_model import ClockVM, FlowVM, Place, countdown_time
from .masked_words import hidden_short

__all__ = [
    "CLOCK_WORDS",
    "MAX_TIME_CONSUME_CONTINUOUSLY_MS",
    "consumer_clocks",
    "hide_clock_times",
    "with_consumer_state",
]

MAX_TIME_CONSUME_CONTINUOUSLY_MS = 60_000
"""``ConsumeMessageOrderlyService.MAX_TIME_CONSUME_CONTINUOUSLY`` (a constant of the client, not a lab's knob)."""

CLOCK_WORDS: dict[str, str] = {
    TimerKind.ROUTE_POLL.value: N_("route poll in {time}"),
    TimerKind.REBALANCE.value: N_("rebalance in {time}"),
    TimerKind.PERSIST_OFFSET.value: N_("offset persist in {time}"),
    TimerKind.LOCK_RENEW.value: N_("lock renewal in {time}"),
    TimerKind.CLEAN_EXPIRED.value: N_("expiry scan in {time}"),
    "yield": N_("{queue} yields after t = {time}"),
    "request": N_("{code} waiting, gives up at {time}"),
}
"""Each clock's words (``{time}`` is a countdown, or a moment after "t =" / "at")."""
NOW_WORDS: dict[str, str] = {
    TimerKind.ROUTE_POLL.value: N_("route poll now"),
    TimerKind.REBALANCE.value: N_("rebalance now"),
    TimerKind.PERSIST_OFFSET.value: N_("offset persist now"),
    TimerKind.LOCK_RENEW.value: N_("lock renewal now"),
    TimerKind.CLEAN_EXPIRED.value: N_("expiry scan now"),
}
"""A countdown's words when it is due at the frame's moment (it would read "in 0 s"; a run's last frame often ends
on one): "route poll in 0 s" read as if the timer had been forgotten."""
SHUTTING_DOWN = N_("shutting down")


def _in(ms: int) -> str:
    return countdown_time(max(ms, 0))


def consumer_clocks(snap: LabSnapshot, c: ConsumerSnap) -> tuple[ClockVM, ...]:
    """The clocks of one running consumer, soonest first (an instance that is not running has none)."""
    if not c.running:
        return ()
    clocks: list[ClockVM] = []
    seen: set[str] = set()
    for t in snap.timers:  # in firing order: the first of a kind is the next one
        kind = t.kind.value
        if kind == TimerKind.LOCK_RENEW.value and c.shutting_down:
            continue  # lockMQPeriodically does nothing once the service is stopped
        if t.owner == c.actor and kind in CLOCK_WORDS and kind not in seen:
            seen.add(kind)
            time = _in(t.remaining_ms)
            words = _(NOW_WORDS[kind]) if time == _in(0) else _(CLOCK_WORDS[kind])  # "in 0 s": due within 50 ms
            clocks.append(ClockVM(kind, words, time, t.due_ms))
    for mq, begin in c.begin_times:
        due = begin + MAX_TIME_CONSUME_CONTINUOUSLY_MS
        words = _(CLOCK_WORDS["yield"]).replace("{queue}", f"{mq.topic}:{mq.queue_id}")
        clocks.append(ClockVM("yield", words, format_duration(due), due))
    for r in snap.requests:
        if r.client.split("/", 1)[0] == c.client_id and r.gives_up_ms is not None:
            words = _(CLOCK_WORDS["request"]).replace("{code}", r.code)
            clocks.append(ClockVM("request", words, format_duration(r.gives_up_ms), r.gives_up_ms))
    clocks.sort(key=lambda k: (k.due_ms, k.kind))
    if c.shutting_down:
        clocks.insert(0, ClockVM("shutdown", _(SHUTTING_DOWN), "", None))
    return tuple(clocks)


def with_consumer_state(vm: FlowVM, snap: LabSnapshot) -> FlowVM:
    """``vm`` with each consumer's clocks, a lock badge on each ProcessQueue whose broker lock it holds (lease
    live), and the cut links."""
    by_id = {c.client_id: c for c in snap.consumers}
    consumers = tuple(
        dataclasses.replace(box, clocks=consumer_clocks(snap, by_id[box.client_id])) if box.client_id in by_id else box
        for box in vm.consumers
    )
    held = {
        f"pq:{lock.client}:{lock.queue}"
        for lock in snap.locks()
        if not lock.expired and lock.client in by_id and by_id[lock.client].group == lock.group
    }
    places = tuple(
        dataclasses.replace(p, locked=True) if p.kind == "process_queue" and p.key in held else p for p in vm.places
    )
    return dataclasses.replace(vm, consumers=consumers, places=_broker_locks(places, snap), cut_links=snap.partitions)


def _broker_locks(places: tuple[Place, ...], snap: LabSnapshot) -> tuple[Place, ...]:
    """Each broker queue with the owner its broker's lock table names (``RebalanceLockManager.mqLockTable``, per
    group; by group name), so the picture answers "who holds the lock now" next to the Locks tab's timeline."""
    locks = sorted(snap.locks(), key=lambda lock: (lock.queue, lock.group))
    by_queue: dict[str, list[LockSnap]] = {}
    for lock in locks:
        by_queue.setdefault(f"queue:{lock.queue}", []).append(lock)
    out = []
    for p in places:
        held = by_queue.get(p.key) if p.kind in ("business", "retry") else None
        if held:
            owner = held[0].client if len(held) == 1 else ", ".join(f"{lock.group}: {lock.client}" for lock in held)
            p = dataclasses.replace(p, lock_owner=owner, lock_expired=all(lock.expired for lock in held))
        out.append(p)
    return tuple(out)


def _masked_words(clock: ClockVM) -> str:
    """The clock's words with a place for its hidden time ("route poll now" would tell the time it hides)."""
    return _(CLOCK_WORDS[clock.kind]) if clock.kind in NOW_WORDS else clock.words


def hide_clock_times(vm: FlowVM) -> FlowVM:
    """``vm`` as a paused "when" checkpoint shows it: every clock's time drawn as "?" ("rebalance in ?", "yields after
    t = ?"), as the Locks tab draws "lease ends at ?" (any of them may be the clock the question asks about, and
    hiding only that one would point at it), in a fixed order (soonest first would tell which fires first)."""
    hidden = hidden_short()
    order = list(CLOCK_WORDS)
    consumers = tuple(
        dataclasses.replace(
            c,
            clocks=tuple(
                sorted(
                    (dataclasses.replace(k, words=_masked_words(k), time=hidden) if k.time else k for k in c.clocks),
                    key=lambda k: (k.kind != "shutdown", order.index(k.kind) if k.kind in order else len(order)),
                )
            ),
        )
        for c in vm.consumers
    )
    budgets = tuple((p, dataclasses.replace(k, time=hidden), tip) for p, k, tip in vm.send_budgets)
    return hide_kept_out(dataclasses.replace(vm, consumers=consumers, send_budgets=budgets))
