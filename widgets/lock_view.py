"""LockView: the three orderly locks side by side.

1. the broker's ``RebalanceLockManager`` table (holder, ms left of the 60 s lease, renewals);
2. each consumer's mirror of it in the ProcessQueue (``locked``, lock age — trusted for 30 s);
3. the local ``MessageQueueLock`` and the ProcessQueue consume lock (a listener is mid-batch).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import ipywidgets as W

from rmqlab import format_duration
from rmqlab.process_queue import REBALANCE_LOCK_MAX_LIVE_TIME_MS

from .base import SnapshotView
from .snapshot import LabSnapshot, LockSnap

__all__ = ["ClientLockVM", "LockView", "LockViewModel", "lock_view_model", "lock_view_text"]


@dataclass(frozen=True, slots=True)
class ClientLockVM:
    consumer: str
    queue: str
    locked: bool
    lock_age_ms: int
    trusted: bool
    """``locked`` and younger than 30 s: the client will consume."""
    local_lock: bool
    consume_lock: bool


@dataclass(frozen=True, slots=True)
class LockViewModel:
    broker: tuple[LockSnap, ...]
    clients: tuple[ClientLockVM, ...]


def lock_view_model(snap: LabSnapshot) -> LockViewModel:
    """Broker lock entries and the orderly consumers' ProcessQueue locks."""
    clients = tuple(
        ClientLockVM(
            c.client_id,
            pq.queue,
            pq.locked,
            pq.lock_age_ms,
            pq.locked and pq.lock_age_ms <= REBALANCE_LOCK_MAX_LIVE_TIME_MS,
            pq.local_lock_held,
            pq.in_listener,
        )
        for c in snap.consumers
        if c.orderly
        for pq in c.process_queues
    )
    return LockViewModel(tuple(lock for b in snap.brokers for lock in b.locks), clients)


def _yn(flag: bool) -> str:
    return "yes" if flag else "no"


def lock_view_text(vm: LockViewModel) -> str:
    """Two plain tables: broker leases, then client-side locks."""
    lines = ["broker locks:"]
    for e in vm.broker:
        left = "expired" if e.expired else f"{format_duration(e.ms_left)} left"
        lines.append(f"  {e.queue} [{e.group}] → {e.client} ({left}, renewed {e.renewals}×)")
    if not vm.broker:
        lines.append("  (none)")
    lines.append("client locks:")
    for c in vm.clients:
        lines.append(
            f"  {c.consumer} {c.queue} locked={_yn(c.locked)} age={format_duration(c.lock_age_ms)} "
            f"trusted={_yn(c.trusted)} local_lock={_yn(c.local_lock)} consume_lock={_yn(c.consume_lock)}"
        )
    if not vm.clients:
        lines.append("  (no orderly consumers)")
    return "\n".join(lines)


def lock_view_html(vm: LockViewModel) -> str:
    """Two HTML tables with headers (screen readers announce column names)."""
    head = "<tr><th>queue</th><th>group</th><th>holder</th><th>time left</th><th>renewals</th></tr>"
    rows = "".join(
        f"<tr><td>{html.escape(e.queue)}</td><td>{html.escape(e.group)}</td><td>{html.escape(e.client)}</td>"
        f"<td>{'expired ✗' if e.expired else html.escape(format_duration(e.ms_left))}</td><td>{e.renewals}</td></tr>"
        for e in vm.broker
    )
    chead = (
        "<tr><th>consumer</th><th>queue</th><th>locked</th><th>lock age</th><th>trusted</th>"
        "<th>local lock</th><th>consume lock</th></tr>"
    )
    crows = "".join(
        f"<tr><td>{html.escape(c.consumer)}</td><td>{html.escape(c.queue)}</td><td>{_yn(c.locked)}</td>"
        f"<td>{html.escape(format_duration(c.lock_age_ms))}</td><td>{_yn(c.trusted)}</td>"
        f"<td>{_yn(c.local_lock)}</td><td>{_yn(c.consume_lock)}</td></tr>"
        for c in vm.clients
    )
    return (
        f'<table class="rmq-locks" aria-label="broker lock table">{head}{rows}</table>'
        f'<table class="rmq-client-locks" aria-label="client locks">{chead}{crows}</table>'
    )


class LockView(SnapshotView):
    """Broker lock table and client-side locks."""

    title = "Locks"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.html = W.HTML()
        self.children = (self.html, self.debug)

    def model(self, snap: LabSnapshot) -> LockViewModel:
        return lock_view_model(snap)

    def to_text(self, vm: LockViewModel) -> str:
        return lock_view_text(vm)

    def render(self, vm: LockViewModel) -> None:
        self.html.value = lock_view_html(vm)
