"""The lease view's view-model: one band per orderly queue of a group, its lanes (the broker lease, and per client
its trust window, MessageQueueLock and consume lock) and the moments on them, with the plain text the labs print.

:mod:`widgets.lease_view` tells the lesson; :mod:`widgets.lease_fold` computes this model and
:mod:`widgets.lease_scene` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rmqlab import format_duration
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import BROKER_LEASE_MS, CLIENT_TRUST_MS

from .masked_words import hidden_short

__all__ = [
    "BROKER_LEASE_MS",
    "CLIENT_TRUST_MS",
    "LOCK_INTERVAL_MS",
    "LeaseBand",
    "LeaseLane",
    "LeaseMarker",
    "LeaseModel",
    "LeaseSpan",
    "lease_text",
]

LOCK_INTERVAL_MS = 20_000
"""``REBALANCE_LOCK_INTERVAL``: ``lockAll`` renews every orderly queue's lease this often (first after 1 s)."""


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
    """A moment on a band: ``acquired`` / ``renewed`` / ``failed`` (no answer) / ``refused`` / ``takeover`` /
    ``unlocked`` / ``crash``."""

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
    ends_hidden: bool = False
    """At a paused "when" checkpoint the lease's end is not told ("lease ends at ?"; :mod:`widgets.checkpoint_mask`)."""

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
    run_end: bool = False
    """The axis ends where the run does (a run's frames, :meth:`widgets.lease_view.LeaseView.models`): a lease or
    trust window that would outlive the run is drawn cut at the edge, with an arrow and its end, never a minute of
    empty axis past the last step (06's 6.5 s run drew its 60 s leases on a 1 m 10 s axis)."""


def _fmt(t: int) -> str:
    return format_duration(t)


def lease_text(vm: LeaseModel) -> str:
    """Per band: the holder, each lane's spans, renewals, and the crash / take-over moments (in the current
    language; queues, groups and clients as they are)."""
    lines: list[str] = []
    for b in vm.bands:
        head = f"{b.queue} [{b.group}] "
        if b.holder is not None and b.ends_hidden:
            head += _("held by {client} (lease ends at {time})").format(client=b.holder, time=hidden_short())
        elif b.holder is not None and b.lease_ends_ms is not None:
            if b.lease_ends_ms < vm.now_ms:
                head += _("held by {client} (expired)").format(client=b.holder)
            else:
                head += _("held by {client} (lease ends at {time})").format(client=b.holder, time=_fmt(b.lease_ends_ms))
        else:
            head += _("not locked")
        lines.append(head)
        expired = _("expired {span}")
        for lane in b.lanes:
            spans = ", ".join(
                (expired if s.expired else "{span}").format(
                    span=f"{s.client + ' ' if lane.kind == 'lease' else ''}"
                    f"{_fmt(s.start_ms)}–{_fmt(s.end_ms)}{'…' if s.open else ''}"
                )
                for s in lane.spans
            )
            lines.append("  " + _("{lane}: {spans}").format(lane=lane.label, spans=spans or "-"))
        renewals = [m for m in b.markers if m.kind == "renewed"]
        if renewals:
            lines.append("  " + _("renewals: {times}").format(times=" ".join(_fmt(m.t_ms) for m in renewals)))
        for m in b.markers:
            if m.kind in ("crash", "shutdown", "takeover", "refused", "unlocked"):
                lines.append(f"  @{_fmt(m.t_ms)} {m.text}")
    if vm.hidden_retry:
        lines.append(_("({n} orderly %RETRY% queue(s) not shown)").format(n=vm.hidden_retry))
    return "\n".join(lines) or _("(no orderly queues)")
