"""The flow legend's padlock lines, on a picture that draws a padlock (an orderly consumer's locks: labs 07a, 07b, 09).

The padlock on a ProcessQueue says its instance holds the queue's broker lock (``ProcessQueue.locked``, lease live);
on a broker queue, whom the broker's ``RebalanceLockManager`` table names, hollow once that lease is past its 60 s
(``lockMaxLiveTime``). The Locks tab explains them; the picture's legend did not (revF: "the 🔒 is explained only in
the Locks tab")."""

from __future__ import annotations

from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

from .flow_canvas import Canvas
from .flow_columns import _lock_badge
from .flow_model import FlowVM

__all__ = ["LOCK_EXPIRED_LEGEND", "LOCK_LEGEND", "lock_legend", "lock_samples"]

LOCK_LEGEND = N_("padlock: the queue's broker lock, held by the name beside it")
LOCK_EXPIRED_LEGEND = N_("hollow padlock: that lock's lease expired at the broker")
LIVE, EXPIRED = "rq-legend-lock", "rq-legend-lock-expired"
"""The styles of the two lines (no glyph of :func:`widgets.legend.legend_marks`: :func:`lock_samples` draws it)."""


def lock_legend(vm: FlowVM) -> tuple[tuple[str, str, str], ...]:
    """The padlock's legend lines the picture needs: a live lock when one is drawn, a hollow one when one is drawn."""
    live = any(p.locked or (p.lock_owner and not p.lock_expired) for p in vm.places)
    expired = any(p.lock_owner and p.lock_expired for p in vm.places)
    return (("none", LIVE, _(LOCK_LEGEND)),) * live + (("none", EXPIRED, _(LOCK_EXPIRED_LEGEND)),) * expired


def lock_samples(cv: Canvas, items: tuple[tuple[str, str, str], ...], x: float, y: float) -> None:
    """A padlock, as the picture draws it, on each padlock line of a legend column drawn at ``x``, ``y`` (rows 14 px
    apart, as :func:`widgets.legend.legend_marks` lays them)."""
    for i, (_glyph, style, label) in enumerate(items):
        if style in (LIVE, EXPIRED):
            _lock_badge(cv, f"legend-a:{i}", x + 1, y + i * 14 - 6, tip=label, expired=style == EXPIRED, role="legend")
