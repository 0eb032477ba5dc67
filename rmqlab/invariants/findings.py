"""What the checker finds: one :class:`Violation` per broken rule, collected in an :class:`InvariantReport`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..core.trace import TraceEvent

__all__ = ["INVARIANTS", "MAX_TRACE_EVENTS", "InvariantReport", "Settlement", "Violation"]

INVARIANTS = (
    "accounted",
    "producer_duplicate",
    "redelivery",
    "duplicate",
    "offset_monotonic",
    "orderly_queue_order",
    "single_lock_holder",
    "consume_under_lock",
    "settled",
)
"""Every invariant name a :class:`Violation` can carry."""

MAX_TRACE_EVENTS = 12
"""A violation keeps at most this many of the events leading to it (the most recent ones)."""


@dataclass(frozen=True, slots=True)
class Settlement:
    """Whether the run is settled, since when it has been quiet, and the bound it was measured against.

    :func:`.settled.settlement` folds it from the trace; it lives here, beside the report that carries it, so
    ``findings`` imports no rule module (``settled`` imports it)."""

    settled: bool
    quiet_since_ms: int
    """Time of the last disturbance (0 when there was none)."""
    bound_ms: int
    reason: str
    """Why it is (or is not) settled, in words, for the report."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant: which, about which message, when, and the events that led to it."""

    invariant: str
    msg_id: str | None
    time_ms: int
    detail: str
    trace: tuple[TraceEvent, ...] = ()

    def __str__(self) -> str:
        head = f"[{self.invariant}] t={self.time_ms} ms msg={self.msg_id or '-'}: {self.detail}"
        lines = [head]
        for e in self.trace:
            data = ", ".join(f"{k}={v}" for k, v in e.data.items())
            lines.append(f"    #{e.seq} {e.time_ms} ms {e.kind.value} {e.actor} {e.msg_id or ''} {data}".rstrip())
        return "\n".join(lines)


@dataclass(slots=True)
class InvariantReport:
    """What :func:`check_invariants` found: violations, plus counts per category."""

    violations: list[Violation] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    fates: dict[tuple[str, str], str] = field(default_factory=dict)
    """(audience, msg id) → ``consumed`` / ``dlq`` / ``broadcast_dropped`` / ``in_flight:<where>`` / ``stranded`` /
    ``lost``."""
    settlement: Settlement | None = None
    """Whether the run was settled (every fault healed, quiet for the drain bound); see :mod:`.settled`."""

    @property
    def settled(self) -> bool:
        """True when the settled-run rule applied: then nothing may be left in flight."""
        return self.settlement is not None and self.settlement.settled

    @property
    def ok(self) -> bool:
        """True when no invariant is broken."""
        return not self.violations

    def by_invariant(self) -> Counter[str]:
        """How many violations of each invariant."""
        return Counter(v.invariant for v in self.violations)

    def __str__(self) -> str:
        c = self.counts
        head = "invariants OK" if self.ok else f"invariants BROKEN: {len(self.violations)} violation(s)"
        lines = [
            head,
            f"  produced: {c['produced']} messages, {c['produced_copies']} stored copies"
            f" ({c['producer_duplicates']} producer duplicates)",
            f"  fates: consumed {c['consumed']}, dlq {c['dlq']}, broadcast_dropped {c['broadcast_dropped']},"
            f" in_flight {c['in_flight']}, stranded {c['stranded']}, lost {c['lost']},"
            f" unsubscribed {c['unsubscribed']}",
            f"  duplicates: {c['duplicate_consumptions']} duplicate consumptions,"
            f" {c['redeliveries']} redeliveries, {c['expiry_races']} expiry races",
            f"  offsets: {c['offset_commits']} broker commits, {c['offset_backward_allowed']} allowed moves back",
        ]
        if self.settlement is not None:
            lines.append(f"  {'settled' if self.settlement.settled else 'not settled'}: {self.settlement.reason}")
        in_flight = sorted((k, v) for k, v in c.items() if k.startswith("in_flight:"))
        if in_flight:
            lines.append("  in flight: " + ", ".join(f"{k.split(':', 1)[1]} {v}" for k, v in in_flight))
        for violation in self.violations[:20]:
            lines.append(str(violation))
        if len(self.violations) > 20:
            lines.append(f"  … and {len(self.violations) - 20} more")
        return "\n".join(lines)
