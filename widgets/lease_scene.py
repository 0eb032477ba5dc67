"""Drawing the lease view: bands one under the other over one time axis; spans as bars, ticks for renewals,
worded moments (crash, take-over) on rows of their own, a "now" line and the legend."""

from __future__ import annotations

from collections.abc import Callable

from rmqlab import format_duration
from rmqlab.core.i18n import gettext as _

from .lease_model import LeaseBand, LeaseLane, LeaseMarker, LeaseModel
from .legend import legend_marks
from .palette import OKABE_ITO
from .scene import Mark, Scene, text_width
from .ticks import tick_step, tick_times

__all__ = ["HOLDER_COLOURS", "LEASE_CSS", "lease_scene"]

HOLDER_COLOURS = (OKABE_ITO["orange"], OKABE_ITO["bluish_green"], OKABE_ITO["reddish_purple"], OKABE_ITO["yellow"])
"""One colour per client instance, in client-id order (colour-blind safe, none of them the blue of the "now"
line or the red of crashes; every lease bar also names its client)."""


LEASE_CSS = """
.rq-scene .rq-span { stroke: var(--jp-layout-color0, #ffffff); stroke-width: 1; }
.rq-scene .rq-span.rq-expired { fill: none; stroke: var(--jp-error-color1, #d32f2f); stroke-dasharray: 4 3;
  stroke-width: 1.5; }
.rq-scene .rq-span.rq-trust { fill-opacity: 0.35; }
.rq-scene .rq-span.rq-open { stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-dasharray: 2 2; }
.rq-scene .rq-tick { stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-width: 1.5; }
.rq-scene .rq-tick.rq-failed { stroke: var(--jp-error-color1, #d32f2f); stroke-width: 2; stroke-dasharray: 3 2; }
.rq-scene .rq-crash { stroke: var(--jp-error-color1, #d32f2f); stroke-width: 2; }
.rq-scene text.rq-crash-text { fill: var(--jp-error-color1, #d32f2f); font-weight: 600; }
.rq-scene text.rq-refused { fill: var(--jp-error-color1, #d32f2f); font-weight: 700; font-size: 11px; }
.rq-scene text.rq-holder { font-size: 11px; font-weight: 600; fill: #000000; }
.rq-scene .rq-beyond { fill: var(--jp-ui-font-color1, #1f1f1f); }
.rq-scene .rq-grid { stroke: var(--jp-border-color2, #e0e0e0); stroke-dasharray: 1 3; }
"""

_LABEL_W = 190
_AXIS_W = 640
_LANE_H = 14
_LANE_GAP = 3
_TOP = 22


_TICK_STEPS_MS = (1_000, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000)
"""The axis' tick spacings (20 s: the lockAll period); at most 10 intervals over the axis (1 s and 2 s only on a
run shorter than 20 s: an axis that ends with the run)."""


def lease_scene(vm: LeaseModel) -> Scene:
    """Bands one under the other over one time axis; spans as bars, ticks for renewals, a "now" line."""
    x0 = float(_LABEL_W)
    scale = _AXIS_W / vm.t_end_ms

    def tx(t: int) -> float:
        return x0 + min(t, vm.t_end_ms) * scale

    colour = {c: HOLDER_COLOURS[i % len(HOLDER_COLOURS)] for i, c in enumerate(vm.clients)}
    y = float(_TOP)
    body: list[Mark] = []
    for b in vm.bands:
        y = _band(body, b, y, tx, colour, vm.t_end_ms) + 10
    # the axis on top, with a grid through every band, and the "now" cursor
    marks = _axis(vm, tx, bottom=y)
    marks.extend(body)
    nx = tx(vm.now_ms)
    now_title = _("now: {time}").format(time=format_duration(vm.now_ms))
    marks.append(Mark("line", "now", x=nx, y=_TOP - 4, x2=nx, y2=y - 6, cls="rq-now", role="now", title=now_title))
    if not vm.bands:
        marks.append(Mark("text", "empty", x=8, y=y + 12, text=_("(no orderly queues)"), cls="rq-muted"))
        y += 20
    if vm.hidden_retry:
        hidden = _("{n} orderly %RETRY% queue(s) not shown").format(n=vm.hidden_retry)
        marks.append(Mark("text", "hidden", x=8, y=y + 4, text=hidden, cls="rq-muted"))
        y += 14
    y = _legend(marks, vm, colour, y + 8)
    return Scene(
        int(x0 + _AXIS_W + 80),
        int(y),
        tuple(marks),
        label=_("orderly lock leases"),
        testid="rq-lease-view",
        css=LEASE_CSS,
        extra=(("now-ms", str(vm.now_ms)), ("bands", str(len(vm.bands)))),
    )


def _band(
    body: list[Mark], b: LeaseBand, y: float, tx: Callable[[int], float], colour: dict[str, str], t_end: int
) -> float:
    """One queue's band from ``y``: title and holder, rows for worded moments, one lane per lease / lock /
    trust, the renewal ticks and refusals on them; returns the band's bottom."""
    bid = f"lease:{b.group}:{b.queue}"
    title = f"{b.queue} [{b.group}]"
    holder = _("not locked") if b.holder is None else _("held by {client}").format(client=b.holder)
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
        body.extend(_beyond(lane, f"{bid}:{lane.kind}:{lane.client}", y, tx, t_end))
        y += _LANE_H + _LANE_GAP
    body.extend(_markers(b, bid, lane_y, tx))
    for m, row in placed:
        mx = tx(m.t_ms)
        key = f"{bid}:{m.kind}:{m.client}:{m.t_ms}"
        ly = label_top + row * 13 + 10
        title = f"{format_duration(m.t_ms)}: {m.text}"
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
        tip = f"{lane.label}: {s.client} {format_duration(s.start_ms)}–{format_duration(s.end_ms)}"
        if s.expired:
            tip = _("{span} (expired: anyone may take it over)").format(span=tip)
        elif s.open:
            tip = _("{span} (still running)").format(span=tip)
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


def _beyond(lane: LeaseLane, lid: str, y: float, tx: Callable[[int], float], t_end: int) -> list[Mark]:
    """A span that outlives the axis (the run ended first) is cut at the edge (``tx`` clamps there), with an arrowhead
    just past it; its tooltip says when it would end (a label there was cut off by the notebook's width)."""
    marks: list[Mark] = []
    for i, s in enumerate(lane.spans):
        if s.end_ms > t_end:
            edge, when = tx(s.end_ms), format_duration(s.end_ms)
            tip = _("{lane}: {client} until {time}, after the run's end").format(
                lane=lane.label, client=s.client, time=when
            )
            d = f"M{edge + 1:.1f},{y + 2:.1f} l6,{_LANE_H / 2 - 2:.1f} l-6,{_LANE_H / 2 - 2:.1f} z"
            marks.append(Mark("path", f"{lid}:beyond:{i}", d=d, cls="rq-beyond", role="lease-beyond", title=tip))
    return marks


def _markers(b: LeaseBand, bid: str, lane_y: dict[tuple[str, str], float], tx: Callable[[int], float]) -> list[Mark]:
    """Acquire / renew ticks across the lease lane, ✗ for a refused lock on the refused client's trust lane, a
    dashed line for an unlock."""
    lease_y = lane_y[("lease", "")]
    marks: list[Mark] = []
    for i, m in enumerate(b.markers):
        mx = tx(m.t_ms)
        mid = f"{bid}:m:{i}"
        title = f"{format_duration(m.t_ms)}: {m.text}"
        if m.kind in ("acquired", "renewed"):
            y2 = lease_y + _LANE_H + 3
            marks.append(
                Mark("line", mid, x=mx, y=lease_y - 3, x2=mx, y2=y2, cls="rq-tick", title=title, role=f"lease-{m.kind}")
            )
        elif m.kind == "failed":  # a lockAll that got no answer: a red dashed tick, the lease not extended
            y2 = lease_y + _LANE_H + 3
            marks.append(
                Mark("line", mid, x=mx, y=lease_y - 3, x2=mx, y2=y2, cls="rq-tick rq-failed", title=title,
                     role="lease-failed")
            )  # fmt: skip
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
    step = tick_step(vm.t_end_ms, width_px=_AXIS_W, min_gap_px=_AXIS_W / 10, ladder=_TICK_STEPS_MS)
    for t in tick_times(vm.t_end_ms, step):
        gx = tx(t)
        marks.append(Mark("line", f"axis:grid:{t}", x=gx, y=_TOP - 4, x2=gx, y2=bottom - 6, cls="rq-grid"))
        marks.append(
            Mark(
                "text",
                f"axis:label:{t}",
                x=gx,
                y=_TOP - 8,
                text=format_duration(t),
                cls="rq-muted",
                anchor="middle",
                role="lease-axis",
            )
        )
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
        ("line", "rq-tick rq-failed", _("lock / renewal failed (no answer: nothing extended)")),
        ("line", "rq-crash", _("crash / take-over")),
        ("line", "rq-now", _("now")),
    ]
    marks.extend(legend_marks(tuple(items), x=8, y=y + 4))
    ry = y + 4 + len(items) * 14 + 4
    marks.append(Mark("text", "legend:refused", x=13, y=ry, text="✗", cls="rq-refused", anchor="middle", role="legend"))
    refused = _("lock refused (another live holder)")
    marks.append(Mark("text", "legend:refused:t", x=26, y=ry, text=refused, cls="rq-muted", role="legend"))
    if not any(s.end_ms > vm.t_end_ms for b in vm.bands for lane in b.lanes for s in lane.spans):
        return y + (len(items) + 1) * 14 + 8
    ry += 14  # a span cut at the run's end: its arrowhead explained
    d = f"M10,{ry - 9:.1f} l6,{_LANE_H / 2 - 2:.1f} l-6,{_LANE_H / 2 - 2:.1f} z"  # the lanes' own arrowhead
    marks.append(Mark("path", "legend:beyond", d=d, cls="rq-beyond", role="legend"))
    beyond = _("lasts past the run's end (its end in the tooltip)")
    marks.append(Mark("text", "legend:beyond:t", x=26, y=ry, text=beyond, cls="rq-muted", role="legend"))
    return y + (len(items) + 2) * 14 + 8
