"""LeaseView: the orderly locks of each queue as a timeline of leases, trust windows and held locks.

The lesson it carries: orderly consumption is guarded by three locks with three different clocks.

* The **broker lease** (``RebalanceLockManager``): an entry is live for 60 s after its last lock or
  renewal (``rocketmq.broker.rebalance.lockMaxLiveTime``); once expired, the next client that asks
  takes it over — so a crashed holder blocks its queue for up to 60 s.
* The client's **trust window**: ``ProcessQueue`` trusts its copy (``locked``) for 30 s after the last
  successful lock (``REBALANCE_LOCK_MAX_LIVE_TIME``) and ``lockAll`` renews every 20 s (1 s after start,
  then every ``REBALANCE_LOCK_INTERVAL``), so a live client never lets its trust lapse.
* The local **MessageQueueLock** (one consume thread per queue, held for a whole ConsumeRequest loop)
  and the ProcessQueue **consume lock** (held around each listener call, so a rebalance never unlocks
  a queue mid-batch).

One horizontal band per orderly queue, over a shared time axis with a "now" cursor. Everything is a
pure function of the snapshot and its trace events: lock / renew / refuse / take-over / unlock events
for the leases, DELIVERED → CONSUMED of each instance for the consume lock, lifecycle events for
crashes; the snapshot's lock table and ProcessQueue flags say what holds *now*.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rmqlab import EventKind, TraceEvent, format_duration
from rmqlab.common.message import RETRY_PREFIX
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import BROKER_LEASE_MS, CLIENT_TRUST_MS, LabSnapshot

from .palette import OKABE_ITO
from .scene import Mark, Scene, SceneView, legend_marks, text_width

__all__ = [
    "BROKER_LEASE_MS",
    "CLIENT_TRUST_MS",
    "LOCK_INTERVAL_MS",
    "LeaseBand",
    "LeaseLane",
    "LeaseMarker",
    "LeaseModel",
    "LeaseSpan",
    "LeaseView",
    "lease_model",
    "lease_scene",
    "lease_text",
]

LOCK_INTERVAL_MS = 20_000
"""``REBALANCE_LOCK_INTERVAL``: ``lockAll`` renews every orderly queue's lease this often (first after 1 s)."""

_HOLDER_COLOURS = (OKABE_ITO["orange"], OKABE_ITO["bluish_green"], OKABE_ITO["reddish_purple"], OKABE_ITO["yellow"])
"""One colour per client instance, in client-id order (colour-blind safe, none of them the blue of the "now"
line or the red of crashes; every lease bar also names its client)."""


@dataclass(frozen=True, slots=True)
class LeaseSpan:
    """A time interval on one lane: ``[start_ms, end_ms]``; ``open`` when it lasts beyond "now" or ends later."""

    start_ms: int
    end_ms: int
    client: str
    open: bool = False
    expired: bool = False
    """Broker lane only: the entry still names ``client`` but is past its 60 s (anyone may take it over)."""


@dataclass(frozen=True, slots=True)
class LeaseLane:
    """One row of a band: the broker lease, or one client's trust window / MessageQueueLock / consume lock."""

    kind: str
    """``lease`` / ``trust`` / ``mq-lock`` / ``consume-lock``."""
    client: str
    """The client of a client lane ("" for the broker lease lane)."""
    label: str
    spans: tuple[LeaseSpan, ...]


@dataclass(frozen=True, slots=True)
class LeaseMarker:
    """A moment on a band: ``acquired`` / ``renewed`` / ``refused`` / ``takeover`` / ``unlocked`` / ``crash``."""

    t_ms: int
    kind: str
    client: str
    text: str


@dataclass(frozen=True, slots=True)
class LeaseBand:
    """One orderly queue of one group."""

    group: str
    queue: str
    holder: str | None
    """The client the broker's table names now (None: no entry)."""
    lease_ends_ms: int | None
    """The current entry's ``lastUpdate + 60 000`` (expired strictly after it)."""
    lanes: tuple[LeaseLane, ...]
    markers: tuple[LeaseMarker, ...]

    def lane(self, kind: str, client: str = "") -> LeaseLane:
        """The lane of this kind (and client); KeyError names the lanes there are."""
        for lane in self.lanes:
            if lane.kind == kind and lane.client == client:
                return lane
        raise KeyError(f"no {kind!r} lane for {client!r}; have {[(x.kind, x.client) for x in self.lanes]}")

    def times(self, kind: str) -> tuple[int, ...]:
        """The times of the markers of one kind, in order."""
        return tuple(m.t_ms for m in self.markers if m.kind == kind)


@dataclass(frozen=True, slots=True)
class LeaseModel:
    now_ms: int
    t_end_ms: int
    """The right end of the shared time axis (past "now" when a lease or trust window ends later)."""
    bands: tuple[LeaseBand, ...]
    hidden_retry: int = 0
    """Orderly ``%RETRY%`` queues left out (``include_retry=False``); they are locked like any other."""
    clients: tuple[str, ...] = field(default=())
    """Every client drawn, in order (their colours)."""


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


def _fold(events: Iterable[TraceEvent], orderly: set[str]) -> dict[tuple[str, str], _Band]:
    bands: dict[tuple[str, str], _Band] = {}
    queue_of: dict[tuple[str, str], str] = {}  # (client, msg id) → queue of its last delivery
    group_of: dict[str, str] = {}

    def band(group: str, queue: str) -> _Band:
        return bands.setdefault((group, queue), _Band())

    for e in events:
        kind, d, t = e.kind, e.data, e.time_ms
        if kind is EventKind.LOCK_EXPIRED:
            b = band(d["group"], d["queue"])
            prev, new = str(d["previous_holder"]), str(d["new_holder"])
            if b.lease and b.lease[-1][3] is None:
                b.lease[-1][3] = t
            b.markers.append(LeaseMarker(t, "takeover", new, f"takeover {prev} → {new}"))
            continue
        if not e.actor.startswith("consumer:"):
            continue
        client = e.actor[len("consumer:") :]
        if kind in (EventKind.LOCK_ACQUIRED, EventKind.LOCK_RENEWED):
            b = band(d["group"], d["queue"])
            b.client(client)
            group_of[client] = d["group"]
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
            name = "acquired" if kind is EventKind.LOCK_ACQUIRED else "renewed"
            b.markers.append(LeaseMarker(t, name, client, f"{client} {'locks' if name == 'acquired' else 'renews'}"))
        elif kind is EventKind.LOCK_REFUSED:
            b = band(d["group"], d["queue"])
            b.client(client)
            _cut(b.trust.get(client), t)
            holder = d.get("holder")
            b.markers.append(LeaseMarker(t, "refused", client, f"{client} refused (held by {holder or 'nobody'})"))
        elif kind is EventKind.UNLOCKED:
            b = band(d["group"], d["queue"])
            if b.lease and b.lease[-1][3] is None and b.lease[-1][2] == client:
                b.lease[-1][3] = t
            b.markers.append(LeaseMarker(t, "unlocked", client, f"{client} unlocks"))
        elif kind is EventKind.DELIVERED and client in orderly:
            queue_of[(client, e.msg_id or "")] = d["queue"]
            b = band(d["group"], d["queue"])
            b.client(client)
            n = b.open_count.get(client, 0)
            if n == 0:
                b.consume.setdefault(client, []).append([t, -1])
            b.open_count[client] = n + 1
        elif kind is EventKind.CONSUMED and client in orderly:
            queue = queue_of.get((client, e.msg_id or ""))
            group = group_of.get(client)
            if queue is None or group is None or (group, queue) not in bands:
                continue
            b = bands[(group, queue)]
            n = b.open_count.get(client, 0) - 1
            b.open_count[client] = max(n, 0)
            if n <= 0 and b.consume.get(client):
                b.consume[client][-1][1] = t
        elif kind is EventKind.LIFECYCLE:
            event = str(d.get("event"))
            group = str(d.get("group", ""))
            for (g, _queue), b in bands.items():
                if g != group or client not in b.clients:
                    continue
                _cut(b.trust.get(client), t)
                spans = b.consume.get(client)
                if spans and spans[-1][1] == -1:
                    spans[-1][1] = t
                b.open_count[client] = 0
                if event in ("crash", "shutdown"):
                    b.markers.append(
                        LeaseMarker(t, "crash" if event == "crash" else "shutdown", client, f"{client} {event}")
                    )
            if event == "start":
                group_of[client] = group
    return bands


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


def _nice_end(t: int) -> int:
    """Round the axis end up to a whole 10 s (at least 60 s, so one broker lease always fits)."""
    return max(60_000, -(-t // 10_000) * 10_000)


def lease_model(snap: LabSnapshot, *, include_retry: bool = False) -> LeaseModel:
    """One :class:`LeaseBand` per (group, orderly queue) seen in the lock table or the trace, by group and queue."""
    now = snap.now_ms
    orderly = {c.client_id for c in snap.consumers if c.orderly}
    folded = _fold(snap.events, orderly)
    locks = {(lock.group, lock.queue): lock for lock in snap.locks()}
    pqs = {(pq.group or c.group, pq.queue, c.client_id): pq for c in snap.consumers for pq in c.process_queues}
    keys = sorted(set(folded) | set(locks))
    hidden = sum(1 for _, q in keys if q.startswith(RETRY_PREFIX)) if not include_retry else 0
    bands: list[LeaseBand] = []
    t_end = now
    all_clients: list[str] = []
    for group, queue in keys:
        if not include_retry and queue.startswith(RETRY_PREFIX):
            continue
        b = folded.get((group, queue), _Band())
        lock = locks.get((group, queue))
        lanes: list[LeaseLane] = []
        lease_spans: list[LeaseSpan] = []
        for i, (start, last, client, end) in enumerate(b.lease):
            live_end = last + BROKER_LEASE_MS
            if end is None and i == len(b.lease) - 1 and lock is not None and lock.client == client:
                live_end = lock.expires_ms  # the table's own lastUpdate + 60 s (covers untraced renewals)
            stop = end if end is not None else None
            if stop is not None and stop <= live_end:
                lease_spans.append(LeaseSpan(start, stop, client))
                continue
            lease_spans.append(LeaseSpan(start, live_end, client, open=live_end > now))
            if live_end < now or (stop is not None and stop > live_end):
                lease_spans.append(
                    LeaseSpan(live_end, stop if stop is not None else now, client, open=stop is None, expired=True)
                )
            t_end = max(t_end, live_end)
        lanes.append(LeaseLane("lease", "", "broker lease (60 s)", tuple(lease_spans)))
        for client in b.clients:
            if client not in all_clients:
                all_clients.append(client)
            trust = tuple(LeaseSpan(s, e, client, open=e > now) for s, e in b.trust.get(client, []) if s <= now)
            for span in trust:
                t_end = max(t_end, span.end_ms)
            lanes.append(LeaseLane("trust", client, f"{client} trusts its lock (30 s)", trust))
            raw = [(s, now if e == -1 else e, e == -1) for s, e in b.consume.get(client, [])]
            pq = pqs.get((group, queue, client))
            if pq is not None and pq.in_listener and not (raw and raw[-1][2]):
                raw.append((now, now, True))
            consume = tuple(LeaseSpan(s, e, client, open=o) for s, e, o in raw)
            local = [(s, e, o) for s, e, o in _merge(raw)]
            if pq is not None and pq.local_lock_held and not (local and local[-1][2]):
                local.append((now, now, True))
            lanes.append(
                LeaseLane(
                    "mq-lock",
                    client,
                    f"{client} MessageQueueLock",
                    tuple(LeaseSpan(s, e, client, open=o) for s, e, o in local),
                )
            )
            lanes.append(LeaseLane("consume-lock", client, f"{client} consume lock", consume))
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
        return LeaseModel(0, _nice_end(0), (), hidden)
    return LeaseModel(now, _nice_end(t_end), tuple(bands), hidden, tuple(sorted(all_clients)))


def _fmt(t: int) -> str:
    return format_duration(t)


def lease_text(vm: LeaseModel) -> str:
    """Per band: the holder, each lane's spans, renewals, and the crash / take-over moments."""
    lines: list[str] = []
    for b in vm.bands:
        head = f"{b.queue} [{b.group}]"
        if b.holder is not None and b.lease_ends_ms is not None:
            state = "expired" if b.lease_ends_ms < vm.now_ms else f"lease ends at {_fmt(b.lease_ends_ms)}"
            head += f" held by {b.holder} ({state})"
        else:
            head += " not locked"
        lines.append(head)
        for lane in b.lanes:
            spans = ", ".join(
                f"{'expired ' if s.expired else ''}{s.client + ' ' if lane.kind == 'lease' else ''}"
                f"{_fmt(s.start_ms)}–{_fmt(s.end_ms)}{'…' if s.open else ''}"
                for s in lane.spans
            )
            lines.append(f"  {lane.label}: {spans or '-'}")
        renewals = [m for m in b.markers if m.kind == "renewed"]
        if renewals:
            lines.append("  renewals: " + " ".join(_fmt(m.t_ms) for m in renewals))
        for m in b.markers:
            if m.kind in ("crash", "shutdown", "takeover", "refused", "unlocked"):
                lines.append(f"  @{_fmt(m.t_ms)} {m.text}")
    if vm.hidden_retry:
        lines.append(f"({vm.hidden_retry} orderly %RETRY% queue(s) not shown)")
    return "\n".join(lines) or "(no orderly queues)"


# ---------------------------------------------------------------- drawing

LEASE_CSS = """
.rq-scene .rq-span { stroke: var(--jp-layout-color0, #ffffff); stroke-width: 1; }
.rq-scene .rq-span.rq-expired { fill: none; stroke: var(--jp-error-color1, #d32f2f); stroke-dasharray: 4 3;
  stroke-width: 1.5; }
.rq-scene .rq-span.rq-trust { fill-opacity: 0.35; }
.rq-scene .rq-span.rq-open { stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-dasharray: 2 2; }
.rq-scene .rq-tick { stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-width: 1.5; }
.rq-scene .rq-crash { stroke: var(--jp-error-color1, #d32f2f); stroke-width: 2; }
.rq-scene text.rq-crash-text { fill: var(--jp-error-color1, #d32f2f); font-weight: 600; }
.rq-scene text.rq-refused { fill: var(--jp-error-color1, #d32f2f); font-weight: 700; font-size: 11px; }
.rq-scene text.rq-holder { font-size: 11px; font-weight: 600; fill: #000000; }
.rq-scene .rq-grid { stroke: var(--jp-border-color2, #e0e0e0); stroke-dasharray: 1 3; }
"""

_LABEL_W = 190
_AXIS_W = 640
_LANE_H = 14
_LANE_GAP = 3
_TOP = 22


def _tick_step(t_end: int) -> int:
    for step in (5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000):
        if t_end / step <= 10:
            return step
    return 3_600_000 * max(1, t_end // 36_000_000)


def lease_scene(vm: LeaseModel) -> Scene:
    """Bands one under the other over one time axis; spans as bars, ticks for renewals, a "now" line."""
    x0 = float(_LABEL_W)
    scale = _AXIS_W / vm.t_end_ms

    def tx(t: int) -> float:
        return x0 + min(t, vm.t_end_ms) * scale

    colour = {c: _HOLDER_COLOURS[i % len(_HOLDER_COLOURS)] for i, c in enumerate(vm.clients)}
    y = float(_TOP)
    body: list[Mark] = []
    for b in vm.bands:
        y = _band(body, b, y, tx, colour) + 10
    # the axis on top, with a grid through every band, and the "now" cursor
    marks = _axis(vm, tx, bottom=y)
    marks.extend(body)
    nx = tx(vm.now_ms)
    now_title = f"now: {_fmt(vm.now_ms)}"
    marks.append(Mark("line", "now", x=nx, y=_TOP - 4, x2=nx, y2=y - 6, cls="rq-now", role="now", title=now_title))
    if not vm.bands:
        marks.append(Mark("text", "empty", x=8, y=y + 12, text="(no orderly queues)", cls="rq-muted"))
        y += 20
    if vm.hidden_retry:
        hidden = f"{vm.hidden_retry} orderly %RETRY% queue(s) not shown"
        marks.append(Mark("text", "hidden", x=8, y=y + 4, text=hidden, cls="rq-muted"))
        y += 14
    y = _legend(marks, vm, colour, y + 8)
    return Scene(
        int(x0 + _AXIS_W + 80),
        int(y),
        tuple(marks),
        label="orderly lock leases",
        testid="rq-lease-view",
        css=LEASE_CSS,
        extra=(("now-ms", str(vm.now_ms)), ("bands", str(len(vm.bands)))),
    )


def _band(body: list[Mark], b: LeaseBand, y: float, tx: Callable[[int], float], colour: dict[str, str]) -> float:
    """One queue's band from ``y``: title and holder, rows for worded moments, one lane per lease / lock /
    trust, the renewal ticks and refusals on them; returns the band's bottom."""
    bid = f"lease:{b.group}:{b.queue}"
    title = f"{b.queue} [{b.group}]"
    holder = "not locked" if b.holder is None else f"held by {b.holder}"
    body.append(Mark("text", f"{bid}:title", x=8, y=y + 12, text=title, cls="rq-title", role="lease-title"))
    body.append(Mark("text", f"{bid}:holder", x=8 + text_width(title, 12) + 8, y=y + 12, text=holder, cls="rq-muted"))
    y += 18
    placed, rows = _moment_rows(b, tx)
    label_top = y
    y += rows * 13
    lane_y: dict[tuple[str, str], float] = {}
    for lane in b.lanes:
        lane_y[(lane.kind, lane.client)] = y
        body.extend(_lane(lane, f"{bid}:{lane.kind}:{lane.client}", y, tx, colour))
        y += _LANE_H + _LANE_GAP
    body.extend(_markers(b, bid, lane_y, tx))
    for m, row in placed:
        mx = tx(m.t_ms)
        key = f"{bid}:{m.kind}:{m.client}:{m.t_ms}"
        ly = label_top + row * 13 + 10
        title = f"{_fmt(m.t_ms)}: {m.text}"
        body.append(
            Mark(
                "line",
                key,
                x=mx,
                y=ly - 8,
                x2=mx,
                y2=y - _LANE_GAP,
                cls="rq-crash",
                title=title,
                role=f"lease-{m.kind}",
            )
        )
        body.append(
            Mark("text", f"{key}:label", x=mx + 3, y=ly, text=m.text, cls="rq-crash-text", role="lease-moment-label")
        )
    return y


def _moment_rows(b: LeaseBand, tx: Callable[[int], float]) -> tuple[list[tuple[LeaseMarker, int]], int]:
    """Moments with words (crash, take-over) get their own rows, packed so labels never overlap: each moment
    with its row, and how many rows."""
    rows_end: list[float] = []
    placed: list[tuple[LeaseMarker, int]] = []
    for m in b.markers:
        if m.kind not in ("crash", "shutdown", "takeover"):
            continue
        left = tx(m.t_ms) + 3
        row = next((i for i, end in enumerate(rows_end) if end < left), len(rows_end))
        if row == len(rows_end):
            rows_end.append(0.0)
        rows_end[row] = left + text_width(m.text) + 6
        placed.append((m, row))
    return placed, len(rows_end)


def _lane(lane: LeaseLane, lid: str, y: float, tx: Callable[[int], float], colour: dict[str, str]) -> list[Mark]:
    """One lane: its label, a base line, its spans as bars in the holder's colour (the lease bar names its
    holder when the name fits)."""
    marks = [
        Mark("text", f"{lid}:label", x=8, y=y + 11, text=lane.label, cls="rq-muted", role="lease-lane-label"),
        Mark("line", f"{lid}:base", x=tx(0), y=y + _LANE_H / 2, x2=tx(0) + _AXIS_W, y2=y + _LANE_H / 2, cls="rq-lane"),
    ]
    for i, s in enumerate(lane.spans):
        cls = "rq-span"
        if lane.kind == "trust":
            cls += " rq-trust"
        if s.expired:
            cls += " rq-expired"
        elif s.open:
            cls += " rq-open"
        inset = 3 if lane.kind == "consume-lock" else (1 if lane.kind == "mq-lock" else 0)
        w = max(tx(s.end_ms) - tx(s.start_ms), 2.0)
        tip = f"{lane.label}: {s.client} {_fmt(s.start_ms)}–{_fmt(s.end_ms)}"
        if s.expired:
            tip += " (expired: anyone may take it over)"
        elif s.open:
            tip += " (still running)"
        marks.append(
            Mark(
                "rect",
                f"{lid}:span:{i}",
                x=tx(s.start_ms),
                y=y + inset,
                w=w,
                h=_LANE_H - 2 * inset,
                cls=cls,
                fill="" if s.expired else colour.get(s.client, OKABE_ITO["black"]),
                title=tip,
                role=f"lease-{lane.kind}",
            )
        )
        if lane.kind == "lease" and not s.expired and w > text_width(s.client, 11) + 6:
            who = Mark(
                "text",
                f"{lid}:span:{i}:who",
                x=tx(s.start_ms) + 5,
                y=y + 10.5,
                text=s.client,
                cls="rq-holder",
                role="lease-holder",
            )
            marks.append(who)
    return marks


def _markers(b: LeaseBand, bid: str, lane_y: dict[tuple[str, str], float], tx: Callable[[int], float]) -> list[Mark]:
    """Acquire / renew ticks across the lease lane, ✗ for a refused lock on the refused client's trust lane, a
    dashed line for an unlock."""
    lease_y = lane_y[("lease", "")]
    marks: list[Mark] = []
    for i, m in enumerate(b.markers):
        mx = tx(m.t_ms)
        mid = f"{bid}:m:{i}"
        title = f"{_fmt(m.t_ms)}: {m.text}"
        if m.kind in ("acquired", "renewed"):
            y2 = lease_y + _LANE_H + 3
            marks.append(
                Mark("line", mid, x=mx, y=lease_y - 3, x2=mx, y2=y2, cls="rq-tick", title=title, role=f"lease-{m.kind}")
            )
        elif m.kind == "refused":
            ty = lane_y.get(("trust", m.client), lease_y)
            marks.append(
                Mark(
                    "text",
                    mid,
                    x=mx,
                    y=ty + 11,
                    text="✗",
                    cls="rq-refused",
                    anchor="middle",
                    title=title,
                    role="lease-refused",
                )
            )
        elif m.kind == "unlocked":
            y2 = lease_y + _LANE_H
            marks.append(
                Mark(
                    "line",
                    mid,
                    x=mx,
                    y=lease_y,
                    x2=mx,
                    y2=y2,
                    cls="rq-crash",
                    dash="2 2",
                    title=title,
                    role="lease-unlocked",
                )
            )
    return marks


def _axis(vm: LeaseModel, tx: Callable[[int], float], *, bottom: float) -> list[Mark]:
    """The time axis on top, with a grid line through every band down to ``bottom``."""
    marks: list[Mark] = []
    step = _tick_step(vm.t_end_ms)
    t = 0
    while t <= vm.t_end_ms:
        gx = tx(t)
        marks.append(Mark("line", f"axis:grid:{t}", x=gx, y=_TOP - 4, x2=gx, y2=bottom - 6, cls="rq-grid"))
        marks.append(
            Mark(
                "text",
                f"axis:label:{t}",
                x=gx,
                y=_TOP - 8,
                text=_fmt(t),
                cls="rq-muted",
                anchor="middle",
                role="lease-axis",
            )
        )
        t += step
    marks.append(Mark("line", "axis", x=tx(0), y=_TOP - 4, x2=tx(0) + _AXIS_W, y2=_TOP - 4, cls="rq-axis"))
    return marks


def _legend(marks: list[Mark], vm: LeaseModel, colour: dict[str, str], y: float) -> float:
    """One colour per client, then the line styles and the refused ✗; returns the scene's bottom."""
    items: list[tuple[str, str, str]] = [
        ("token", colour[c], _("{client}'s lease / lock").format(client=c)) for c in vm.clients
    ]
    items += [
        ("rect", "rq-span rq-expired", _("lease expired (anyone may take it over)")),
        ("line", "rq-tick", _("lock / lockAll renewal (every 20 s)")),
        ("line", "rq-crash", _("crash / take-over")),
        ("line", "rq-now", _("now")),
    ]
    marks.extend(legend_marks(tuple(items), x=8, y=y + 4))
    ry = y + 4 + len(items) * 14 + 4
    marks.append(Mark("text", "legend:refused", x=13, y=ry, text="✗", cls="rq-refused", anchor="middle", role="legend"))
    refused = _("lock refused (another live holder)")
    marks.append(Mark("text", "legend:refused:t", x=26, y=ry, text=refused, cls="rq-muted", role="legend"))
    return y + (len(items) + 1) * 14 + 8


class LeaseView(SceneView):
    """The orderly locks as a lease timeline (replaces LockView's tables); ``text`` is the plain rendering."""

    title = N_("Locks")

    def __init__(self, *, include_retry: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.include_retry = include_retry

    def model(self, snap: LabSnapshot) -> LeaseModel:
        return lease_model(snap, include_retry=self.include_retry)

    def to_text(self, vm: LeaseModel) -> str:
        return lease_text(vm)

    def scene(self, vm: LeaseModel) -> Scene:
        return lease_scene(vm)
