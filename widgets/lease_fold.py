"""The lease view-model from a snapshot: the trace folded band by band (one band per group and orderly queue),
then each band's lanes — the broker lease, and per client its trust window, MessageQueueLock and consume lock —
cut at "now" and completed from the snapshot's lock table and ProcessQueue flags. The lanes' labels and the moments'
words are in the language of the moment the model is computed (:func:`rmqlab.set_language`); client ids, queues and
RocketMQ's class names stay as they are."""

from __future__ import annotations

from typing import Any

from rmqlab import EventKind, TraceEvent
from rmqlab.common.message import RETRY_PREFIX
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import BROKER_LEASE_MS, CLIENT_TRUST_MS, LabSnapshot, LockSnap, ProcessQueueSnap

from .lease_model import LeaseBand, LeaseLane, LeaseMarker, LeaseModel, LeaseSpan

__all__ = ["lease_model", "nice_end"]


def lease_model(snap: LabSnapshot, *, include_retry: bool = False, run_end_ms: int | None = None) -> LeaseModel:
    """One :class:`LeaseBand` per (group, orderly queue) seen in the lock table or the trace, by group and queue.

    ``run_end_ms``: where the run ends (its last frame's clock); the axis then ends there, at every step, instead
    of at the latest lease end rounded up (None: a snapshot with no run around it)."""
    now = snap.now_ms
    fold = _Fold({c.client_id for c in snap.consumers if c.orderly})
    for e in snap.events:
        fold.event(e)
    locks = {(lock.group, lock.queue): lock for lock in snap.locks()}
    pqs = {(pq.group or c.group, pq.queue, c.client_id): pq for c in snap.consumers for pq in c.process_queues}
    keys = sorted(set(fold.bands) | set(locks))
    hidden = sum(1 for _, q in keys if q.startswith(RETRY_PREFIX)) if not include_retry else 0
    bands: list[LeaseBand] = []
    t_end = now
    all_clients: list[str] = []
    for group, queue in keys:
        if not include_retry and queue.startswith(RETRY_PREFIX):
            continue
        b = fold.bands.get((group, queue), _Band())
        lock = locks.get((group, queue))
        lease_spans, lease_end = _lease_spans(b, lock, now)
        t_end = max(t_end, lease_end)
        lanes = [LeaseLane("lease", "", _("broker lease (60 s)"), lease_spans)]
        for client in b.clients:
            if client not in all_clients:
                all_clients.append(client)
            client_lanes, client_end = _client_lanes(b, client, pqs.get((group, queue, client)), now)
            t_end = max(t_end, client_end)
            lanes.extend(client_lanes)
        bands.append(
            LeaseBand(
                group,
                queue,
                lock.client if lock is not None else None,
                lock.expires_ms if lock is not None else None,
                tuple(lanes),
                tuple(sorted(b.markers, key=lambda m: m.t_ms)),
            )
        )
    if not bands:  # nothing orderly: the same (time-free) model at every step, so the view is not redrawn
        if run_end_ms is not None:
            return LeaseModel(0, max(run_end_ms, 1_000), (), hidden, run_end=True)
        return LeaseModel(0, nice_end(0), (), hidden)
    clients = tuple(sorted(all_clients))
    if run_end_ms is not None and run_end_ms >= now:
        return LeaseModel(now, max(run_end_ms, 1_000), tuple(bands), hidden, clients, run_end=True)
    return LeaseModel(now, nice_end(t_end), tuple(bands), hidden, clients)


class _Band:
    """Mutable accumulator for one (group, queue) while the trace is folded."""

    def __init__(self) -> None:
        self.lease: list[list[Any]] = []  # [start, last_update, client, end or None]
        self.trust: dict[str, list[list[int]]] = {}
        self.consume: dict[str, list[list[int]]] = {}
        """client → [start, end] of each listener call; end −1 while it runs."""
        self.open_count: dict[str, int] = {}
        self.markers: list[LeaseMarker] = []
        self.clients: list[str] = []

    def client(self, c: str) -> None:
        if c not in self.clients:
            self.clients.append(c)


class _Fold:
    """The trace folded into bands: (group, queue) → :class:`_Band`, one method per kind of event that moves a lock."""

    def __init__(self, orderly: set[str]) -> None:
        self.orderly = orderly
        """The client ids of orderly consumers (only their listener calls hold the consume lock)."""
        self.bands: dict[tuple[str, str], _Band] = {}
        self.queue_of: dict[tuple[str, str], str] = {}
        """(client, msg id) → queue of its last delivery."""
        self.group_of: dict[str, str] = {}

    def band(self, group: str, queue: str) -> _Band:
        return self.bands.setdefault((group, queue), _Band())

    def event(self, e: TraceEvent) -> None:
        kind = e.kind
        if kind is EventKind.LOCK_EXPIRED:
            self.takeover(e)
            return
        if not e.actor.startswith("consumer:"):
            return
        client = e.actor[len("consumer:") :]
        if kind in (EventKind.LOCK_ACQUIRED, EventKind.LOCK_RENEWED):
            self.locked(e, client)
        elif kind is EventKind.LOCK_REFUSED:
            self.refused(e, client)
        elif kind is EventKind.LOCK_BATCH and e.data.get("error"):
            self.failed(e, client)
        elif kind is EventKind.UNLOCKED:
            self.unlocked(e, client)
        elif kind is EventKind.DELIVERED and client in self.orderly:
            self.delivered(e, client)
        elif kind is EventKind.CONSUMED and client in self.orderly:
            self.consumed(e, client)
        elif kind is EventKind.LIFECYCLE:
            self.lifecycle(e, client)

    def takeover(self, e: TraceEvent) -> None:
        """The broker's entry expired and another client took the queue over."""
        d, t = e.data, e.time_ms
        b = self.band(d["group"], d["queue"])
        prev, new = str(d["previous_holder"]), str(d["new_holder"])
        if b.lease and b.lease[-1][3] is None:
            b.lease[-1][3] = t
        b.markers.append(
            LeaseMarker(t, "takeover", new, _("takeover {previous} → {new}").format(previous=prev, new=new))
        )

    def locked(self, e: TraceEvent, client: str) -> None:
        """A lock or renewal: the broker lease goes on (or starts), the client trusts its lock 30 s more."""
        d, t = e.data, e.time_ms
        b = self.band(d["group"], d["queue"])
        b.client(client)
        self.group_of[client] = d["group"]
        current = b.lease[-1] if b.lease and b.lease[-1][3] is None else None
        if current is not None and current[2] == client:
            current[1] = t
        else:
            b.lease.append([t, t, client, None])
        trust = b.trust.setdefault(client, [])
        if trust and trust[-1][1] >= t:
            trust[-1][1] = t + CLIENT_TRUST_MS
        else:
            trust.append([t, t + CLIENT_TRUST_MS])
        name = "acquired" if e.kind is EventKind.LOCK_ACQUIRED else "renewed"
        text = _("{client} locks") if name == "acquired" else _("{client} renews")
        b.markers.append(LeaseMarker(t, name, client, text.format(client=client)))

    def refused(self, e: TraceEvent, client: str) -> None:
        d, t = e.data, e.time_ms
        b = self.band(d["group"], d["queue"])
        b.client(client)
        _cut(b.trust.get(client), t)
        holder = d.get("holder")
        text = _("{client} refused (held by {holder})") if holder else _("{client} refused (held by nobody)")
        b.markers.append(LeaseMarker(t, "refused", client, text.format(client=client, holder=holder)))

    def failed(self, e: TraceEvent, client: str) -> None:
        """A lockBatchMQ with no answer (cut link, broker down, timeout): nothing was extended; the client only logs it
        (``RebalanceImpl.lockAll``), and its trust runs out 30 s after the last success."""
        d, t = e.data, e.time_ms
        words = (
            _("{client}'s renewal failed ({error})")
            if d.get("via") == "lockAll"
            else _("{client}'s lock failed ({error})")
        )
        text = words.format(client=client, error=d["error"])
        for queue in d.get("queues", ()):
            b = self.band(str(d["group"]), str(queue))
            b.client(client)
            b.markers.append(LeaseMarker(t, "failed", client, text))

    def unlocked(self, e: TraceEvent, client: str) -> None:
        d, t = e.data, e.time_ms
        b = self.band(d["group"], d["queue"])
        if b.lease and b.lease[-1][3] is None and b.lease[-1][2] == client:
            b.lease[-1][3] = t
        b.markers.append(LeaseMarker(t, "unlocked", client, _("{client} unlocks").format(client=client)))

    def delivered(self, e: TraceEvent, client: str) -> None:
        """A listener call starts: the consume lock is held (once per client, however many calls overlap)."""
        d, t = e.data, e.time_ms
        self.queue_of[(client, e.msg_id or "")] = d["queue"]
        b = self.band(d["group"], d["queue"])
        b.client(client)
        n = b.open_count.get(client, 0)
        if n == 0:
            b.consume.setdefault(client, []).append([t, -1])
        b.open_count[client] = n + 1

    def consumed(self, e: TraceEvent, client: str) -> None:
        """A listener call returned: the consume lock is released when the client's last call returns."""
        queue = self.queue_of.get((client, e.msg_id or ""))
        group = self.group_of.get(client)
        if queue is None or group is None or (group, queue) not in self.bands:
            return
        b = self.bands[(group, queue)]
        n = b.open_count.get(client, 0) - 1
        b.open_count[client] = max(n, 0)
        if n <= 0 and b.consume.get(client):
            b.consume[client][-1][1] = e.time_ms

    def lifecycle(self, e: TraceEvent, client: str) -> None:
        """A crash or shutdown ends the client's trust and its listener calls on every band of its group."""
        d, t = e.data, e.time_ms
        event = str(d.get("event"))
        group = str(d.get("group", ""))
        for (g, _queue), b in self.bands.items():
            if g != group or client not in b.clients:
                continue
            _cut(b.trust.get(client), t)
            spans = b.consume.get(client)
            if spans and spans[-1][1] == -1:
                spans[-1][1] = t
            b.open_count[client] = 0
            if event in ("crash", "shutdown"):
                text = _("{client} crash") if event == "crash" else _("{client} shutdown")
                b.markers.append(LeaseMarker(t, event, client, text.format(client=client)))
        if event == "start":
            self.group_of[client] = group


def _lease_spans(b: _Band, lock: LockSnap | None, now: int) -> tuple[tuple[LeaseSpan, ...], int]:
    """The broker lease lane's spans (a live lease, then its expired tail while the entry still names the client),
    and the latest time a lease is live until (``now`` at least)."""
    spans: list[LeaseSpan] = []
    latest = now
    for i, (start, last, client, end) in enumerate(b.lease):
        live_end = last + BROKER_LEASE_MS
        if end is None and i == len(b.lease) - 1 and lock is not None and lock.client == client:
            live_end = lock.expires_ms  # the table's own lastUpdate + 60 s (covers untraced renewals)
        stop = end if end is not None else None
        if stop is not None and stop <= live_end:
            spans.append(LeaseSpan(start, stop, client))
            continue
        spans.append(LeaseSpan(start, live_end, client, open=live_end > now))
        if live_end < now or (stop is not None and stop > live_end):
            spans.append(
                LeaseSpan(live_end, stop if stop is not None else now, client, open=stop is None, expired=True)
            )
        latest = max(latest, live_end)
    return tuple(spans), latest


def _client_lanes(b: _Band, client: str, pq: ProcessQueueSnap | None, now: int) -> tuple[list[LeaseLane], int]:
    """One client's trust window, MessageQueueLock and consume lock lanes (the ProcessQueue's flags say what is held
    now), and the latest time its trust lasts until (``now`` at least)."""
    trust = tuple(LeaseSpan(s, e, client, open=e > now) for s, e in b.trust.get(client, []) if s <= now)
    latest = max([now, *(span.end_ms for span in trust)])
    raw = [(s, now if e == -1 else e, e == -1) for s, e in b.consume.get(client, [])]
    if pq is not None and pq.in_listener and not (raw and raw[-1][2]):
        raw.append((now, now, True))
    consume = tuple(LeaseSpan(s, e, client, open=o) for s, e, o in raw)
    local = [(s, e, o) for s, e, o in _merge(raw)]
    if pq is not None and pq.local_lock_held and not (local and local[-1][2]):
        local.append((now, now, True))
    mq_lock = tuple(LeaseSpan(s, e, client, open=o) for s, e, o in local)
    lanes = [
        LeaseLane("trust", client, _("{client} trusts its lock (30 s)").format(client=client), trust),
        LeaseLane("mq-lock", client, _("{client} MessageQueueLock").format(client=client), mq_lock),
        LeaseLane("consume-lock", client, _("{client} consume lock").format(client=client), consume),
    ]
    return lanes, latest


def _cut(spans: list[list[int]] | None, t: int) -> None:
    """End the last span at ``t`` if it runs past it (the client stopped trusting its lock then)."""
    if spans and spans[-1][1] > t:
        spans[-1][1] = max(t, spans[-1][0])


def _merge(spans: list[tuple[int, int, bool]]) -> list[tuple[int, int, bool]]:
    """Join spans that touch (the ConsumeRequest loop went straight on to its next batch)."""
    out: list[tuple[int, int, bool]] = []
    for s, e, o in spans:
        if out and s <= out[-1][1]:
            ps, pe, po = out[-1]
            out[-1] = (ps, max(pe, e), po or o)
        else:
            out.append((s, e, o))
    return out


def nice_end(t: int) -> int:
    """Round the axis end up to a whole 10 s (at least 60 s, so one broker lease always fits)."""
    return max(60_000, -(-t // 10_000) * 10_000)
