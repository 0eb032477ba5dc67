"""The message-flow view's picture: columns of places (producers, broker lanes, consumer instances, outcome
trays) with the tokens in them, the arrows between the columns, and the legend.

:func:`flow_scene` lays a :class:`~widgets.flow_view.FlowVM` out in that order, one named part at a time:
:func:`_titles`, :func:`_producers`, :func:`_broker_columns` (lanes shared by all brokers, one
:func:`_broker_slot` per queue), :func:`_consumers`, :func:`_outcomes`, :func:`_arrows`, :func:`_tokens` and
:func:`_legend`. Each part appends its marks to one :class:`_Canvas` and returns where it ended, so the next part
knows where to start. The tokens are drawn last (on top), at the centres the places gave them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rmqlab import format_duration
from rmqlab.core.i18n import N_, ngettext
from rmqlab.core.i18n import gettext as _

from .palette import token_colour
from .scene import Mark, Scene, legend_marks, text_width

if TYPE_CHECKING:
    from .flow_view import FlowVM, Place, TokenVM

__all__ = ["FLOW_CSS", "NOT_STARTED", "STEP", "R", "flow_scene", "token_text"]

NOT_STARTED = "not started yet"
"""What a consumer box says before the consumer's first start (not "shut down": it never ran)."""

R = 12.5
STEP = 28.0
PAD = 8.0
ROW = 22.0
GAP = 64.0
HOP_W = 14.0
"""Right margin of a broker column, where the schedule service's hop arrow (SCHEDULE → %RETRY%) runs."""
TOKENS_PER_ROW = 4

FLOW_CSS = """
$ .rq-col { fill: var(--jp-layout-color1, #fafafa); stroke: var(--jp-border-color2, #c7c7c7); }
$ .rq-broker { fill: var(--jp-layout-color1, #fafafa); stroke: var(--jp-border-color1, #9e9e9e); }
$ .rq-broker.rq-down { stroke: var(--jp-error-color1, #d32f2f); stroke-dasharray: 6 4;
  fill: var(--jp-layout-color3, #bdbdbd); fill-opacity: 0.35; }
$ text.rq-down-label { font-weight: 600; }
$ .rq-slot { fill: var(--jp-layout-color2, #eeeeee); stroke: var(--jp-border-color2, #c7c7c7); }
$ .rq-slot.rq-stranded { stroke-dasharray: 3 2; }
$ .rq-tray { fill: none; stroke: var(--jp-border-color1, #9e9e9e); stroke-dasharray: 4 3; }
$ .rq-pq { fill: var(--jp-layout-color0, #ffffff); stroke: var(--jp-brand-color2, #64b5f6); }
$ .rq-lane-sep { stroke: var(--jp-border-color2, #c7c7c7); stroke-dasharray: 2 3; }
$ text.rq-small { font-size: 11px; }
$ .rq-token.rq-long text { font-weight: 400; }
$ .rq-token.rq-consuming circle { stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-width: 2.5; }
$ .rq-token.rq-delayed circle { stroke: var(--jp-ui-font-color2, #616161); stroke-dasharray: 2 1.5; }
$ .rq-token.rq-dead circle { stroke: var(--jp-error-color1, #d32f2f); stroke-width: 3; }
$ .rq-token.rq-done circle { stroke: var(--jp-success-color1, #388e3c); stroke-width: 2; }
$ .rq-token.rq-sending circle { stroke: var(--jp-ui-font-color2, #616161); stroke-dasharray: 3 2; }
$ .rq-token.rq-send_failed circle, $ .rq-token.rq-dropped circle {
  stroke: var(--jp-error-color1, #d32f2f); stroke-width: 1.5; stroke-dasharray: 2 2; fill-opacity: 0.55; }
$ .rq-focus { fill: none; stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2.5; opacity: 0.8;
  transition: cx var(--rq-duration, 350ms) ease-in-out, cy var(--rq-duration, 350ms) ease-in-out; }
$ .rq-cross { stroke: var(--jp-error-color1, #d32f2f); stroke-width: 2; }
""".replace("$", '[data-testid="rq-flow"]')
"""The view's own classes, scoped to its root (``$`` stands for the root selector)."""


@dataclass(slots=True)
class _Canvas:
    marks: list[Mark] = field(default_factory=list)
    token_at: dict[str, tuple[float, float]] = field(default_factory=dict)

    def text(
        self, key: str, x: float, y: float, text: str, cls: str = "", anchor: Any = "start", title: str = ""
    ) -> None:
        self.marks.append(Mark("text", key, x=x, y=y, text=text, cls=cls, anchor=anchor, title=title, role="label"))

    def rect(
        self,
        key: str,
        x: float,
        y: float,
        w: float,
        h: float,
        cls: str,
        role: str = "place",
        title: str = "",
        dash: str = "",
    ) -> None:
        self.marks.append(Mark("rect", key, x=x, y=y, w=w, h=h, cls=cls, role=role, title=title, dash=dash))


def _pq_height(p: Place, n: int) -> float:
    """A ProcessQueue row: its tokens, plus a line for what it waits for (suspend, local retry)."""
    return max(ROW, _grid_height(n)) + (12 if p.note else 0)


def _grid_height(n: int, per_row: int = TOKENS_PER_ROW) -> float:
    rows = max(1, -(-n // per_row))
    return rows * STEP + 4


def token_text(reconsume_times: int) -> str:
    """What a token says: its reconsume times, fitted into the circle (``7``, ``42``, ``137``; ``1k``, ``12k`` beyond
    999: at most three characters; three in regular weight, the ``rq-long`` class, so the
    disc holds them at the 11 px label size). The tooltip keeps the exact number."""
    if reconsume_times < 1000:
        return str(reconsume_times)
    return f"{reconsume_times // 1000}k"


def _place_tokens(cv: _Canvas, tokens: Iterable[TokenVM], x: float, y: float, per_row: int = TOKENS_PER_ROW) -> None:
    """Token centres in a grid from (x, y) = the first centre."""
    for i, t in enumerate(tokens):
        cv.token_at[t.key] = (x + (i % per_row) * STEP, y + (i // per_row) * STEP)


@dataclass(slots=True)
class _Columns:
    """Where the columns sit, as the parts left of them found it (x positions, widths, bottoms)."""

    by_place: dict[str, list[TokenVM]]
    places_in: dict[str, list[Place]]
    top: float
    prod_right: float = 0.0
    prod_bottom: float = 0.0
    bx0: float = 0.0
    col_w: float = 0.0
    label_w: float = 0.0
    lane_y: dict[str, tuple[float, float]] = field(default_factory=dict)
    broker_bottom: float = 0.0
    brokers_right: float = 0.0
    cx0: float = 0.0
    cons_w: float = 0.0
    cons_bottom: float = 0.0
    out_bottom: float = 0.0
    right: float = 0.0


_LANES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("business", N_("topic queues"), ("business",)),
    ("schedule", "SCHEDULE_TOPIC_XXXX", ("delay",)),
    ("retry", N_("%RETRY% topics"), ("retry",)),
    ("dlq", N_("%DLQ% topics"), ("dlq",)),
)
"""The broker lanes, top to bottom: key, header, the place kinds a lane holds. Rows shared by all brokers."""


def flow_scene(vm: FlowVM) -> Scene:
    """Lay the view-model out as a :class:`Scene` (deterministic: same view-model, same marks)."""
    cv = _Canvas()
    by_place: dict[str, list[TokenVM]] = {}
    for t in vm.tokens:
        by_place.setdefault(t.place, []).append(t)
    places_in: dict[str, list[Place]] = {}
    for p in vm.places:
        places_in.setdefault(p.column, []).append(p)
    cols = _Columns(by_place=by_place, places_in=places_in, top=44.0)
    _titles(cv, vm)
    _producers(cv, cols)
    _broker_columns(cv, vm, cols)
    _consumers(cv, vm, cols)
    _outcomes(cv, cols)
    _arrows(cv, vm, cols)
    _tokens(cv, vm)
    bottom = max(cols.prod_bottom, cols.broker_bottom, cols.cons_bottom, cols.out_bottom) + 10
    height, legend_right = _legend(cv, bottom)
    width = max(cols.right, legend_right) + PAD
    counts = vm.counts()
    extra = (
        ("position", str(vm.position)),
        ("now-ms", str(vm.now_ms)),
        ("tokens", str(len(vm.tokens))),
        ("counts", " ".join(f"{k}={v}" for k, v in counts.items())),
    )
    return Scene(
        width=int(width + 0.5),
        height=int(height + 0.5),
        marks=tuple(cv.marks),
        label=_("message flow at t = {time}: {count} messages").format(
            time=format_duration(vm.now_ms), count=len(vm.tokens)
        ),
        testid="rq-flow",
        css=FLOW_CSS,
        extra=extra,
    )


def _titles(cv: _Canvas, vm: FlowVM) -> None:
    """The title (time, token count) and the subtitle that says what a token is."""
    title_y = 16.0
    count = ngettext("{count} token", "{count} tokens", len(vm.tokens)).format(count=len(vm.tokens))
    title = _("Message flow at t = {time} · {count}").format(time=format_duration(vm.now_ms), count=count)
    cv.text("title", PAD, title_y, title, cls="rq-title")
    cv.text(
        "subtitle",
        PAD,
        title_y + 15,
        _(
            "one token per message per consumer group (per instance in BROADCASTING); "
            "{colour_note}; number = reconsume times"
        ).format(colour_note=vm.colour_note),
        cls="rq-muted rq-small",
    )


def _producers(cv: _Canvas, cols: _Columns) -> None:
    """The producers column: one box per producer (and its send-failed tray), tokens in a grid inside."""
    x = PAD
    places = cols.places_in.get("producers", [])
    prod_w = max(
        TOKENS_PER_ROW * STEP * 0.5 + 2 * PAD,
        max(text_width(s) for s in [p.label for p in places] + [_("producers")]) + 2 * PAD,
    )
    y = cols.top
    cv.text("col:producers", x, y + 12, _("producers"), cls="rq-title")
    y += 22
    for p in places:
        toks = cols.by_place.get(p.key, [])
        per = max(1, int((prod_w - 2 * PAD) // STEP))
        h = 18 + _grid_height(len(toks), per)
        cls = "rq-tray" if p.kind == "send_failed" else "rq-box"
        cv.rect(f"place:{p.key}", x, y, prod_w, h, cls, title=p.label)
        cv.text(f"label:{p.key}", x + 6, y + 13, p.label, cls="rq-muted" if p.kind == "send_failed" else "")
        _place_tokens(cv, toks, x + 6 + R, y + 18 + R + 2, per)
        y += h + 8
    cols.prod_bottom = y
    cols.prod_right = x + prod_w


def _slot_height(cols: _Columns, p: Place) -> float:
    """A broker queue's slot: its tokens (a short delay level lists them one per line), plus a note line."""
    n = len(cols.by_place.get(p.key, []))
    note = 12 if p.note else 0  # "not in route" gets a line of its own under the queue's name
    if p.kind == "delay" and n <= 4:
        return max(ROW, n * STEP + 4) + note
    return max(ROW, _grid_height(n)) + note


def _broker_geometry(vm: FlowVM, cols: _Columns, brokers: list[str]) -> None:
    """The broker columns' label width and column width, and the lanes' rows (shared by all brokers)."""
    tok_w = TOKENS_PER_ROW * STEP
    label_w = 0.0
    for b in brokers:
        for p in cols.places_in.get(f"broker:{b}", []):
            label_w = max(label_w, text_width(p.label))
    # a crowded delay slot writes "next due in …" (11 px) under its label, left of its token grid
    next_w = max((text_width("next " + t.countdown, 11) + 5 for t in vm.tokens if t.countdown), default=0.0)
    cols.label_w = max(label_w, next_w, text_width("level 18 · 2 h"), 70.0) + 14
    delay_text_w = text_width("due in 59.9 s") + 8
    col_w = cols.label_w + max(tok_w, R * 2 + 4 + delay_text_w) + 2 * PAD + HOP_W
    cols.col_w = max(
        col_w,
        max((text_width(f"{b} · down") for b in brokers), default=0) + 2 * PAD,
        text_width("SCHEDULE_TOPIC_XXXX") + 2 * PAD,
    )
    cols.bx0 = cols.prod_right + GAP
    y = cols.top + 22
    for lane, _name, kinds in _LANES:
        h = 16.0
        for b in brokers:
            ps = [p for p in cols.places_in.get(f"broker:{b}", []) if p.kind in kinds]
            hb = 16.0 + (sum(_slot_height(cols, p) + 4 for p in ps) if ps else ROW)
            h = max(h, hb)
        cols.lane_y[lane] = (y, y + h)
        y += h + 10
    cols.broker_bottom = y


def _broker_columns(cv: _Canvas, vm: FlowVM, cols: _Columns) -> None:
    """One column per broker (dashed when down), its lanes one under the other, a slot per queue."""
    brokers = [name for name, _ in vm.brokers]
    up = dict(vm.brokers)
    _broker_geometry(vm, cols, brokers)
    top, col_w = cols.top, cols.col_w
    for i, b in enumerate(brokers):
        bx = cols.bx0 + i * (col_w + 16)
        cls = "rq-broker" if up[b] else "rq-broker rq-down"
        title = f"{b} is {'up' if up[b] else 'down'}"
        cv.rect(f"broker:{b}", bx, top, col_w, cols.broker_bottom - top, cls, role="broker", title=title)
        cv.text(
            f"broker-label:{b}",
            bx + PAD,
            top + 15,
            b if up[b] else f"{b} · down",
            cls="rq-title" if up[b] else "rq-title rq-down-label",
        )
        for lane, header, kinds in _LANES:
            y0 = cols.lane_y[lane][0]
            if lane != "business":
                cv.marks.append(
                    Mark("line", f"sep:{b}:{lane}", x=bx + 4, y=y0 - 5, x2=bx + col_w - 4, y2=y0 - 5, cls="rq-lane-sep")
                )
            cv.text(f"lane:{b}:{lane}", bx + PAD, y0 + 11, _(header), cls="rq-muted")
            ps = [p for p in cols.places_in.get(f"broker:{b}", []) if p.kind in kinds]
            sy = y0 + 16
            if not ps:
                empty = _("no delayed message") if lane == "schedule" else _("none yet")
                cv.text(f"empty:{b}:{lane}", bx + PAD + 8, sy + 15, empty, cls="rq-muted rq-small")
            for p in ps:
                sy += _broker_slot(cv, cols, p, bx, sy) + 4
    cols.brokers_right = cols.bx0 + len(brokers) * (col_w + 16) - 16 if brokers else cols.bx0


def _broker_slot(cv: _Canvas, cols: _Columns, p: Place, bx: float, sy: float) -> float:
    """One queue's slot in a broker lane at (``bx``, ``sy``); returns its height.

    A delay level with at most four tokens lists them one per line with their countdowns; a fuller one shows a
    grid and "next due in …" under its label."""
    h = _slot_height(cols, p)
    cls = "rq-slot rq-stranded" if p.note else "rq-slot"
    tip = p.label + (f" ({p.note})" if p.note else "")
    cv.rect(f"place:{p.key}", bx + PAD, sy, cols.col_w - 2 * PAD - HOP_W, h, cls, title=tip)
    cv.text(f"label:{p.key}", bx + PAD + 5, sy + 15, p.label, title=tip)
    toks = cols.by_place.get(p.key, [])
    tx = bx + PAD + cols.label_w + R
    if p.kind == "delay" and len(toks) <= 4:
        for j, t in enumerate(toks):
            cy = sy + 2 + R + 1 + j * STEP
            cv.token_at[t.key] = (tx, cy)
            cv.text(f"due:{t.key}", tx + R + 5, cy + 4, t.countdown, cls="rq-muted rq-small")
    else:
        _place_tokens(cv, toks, tx, sy + 2 + R + 1)
        if p.kind == "delay" and toks:
            cv.text(f"due:{p.key}", bx + PAD + 5, sy + 28, "next " + toks[0].countdown, cls="rq-muted rq-small")
    if p.note:
        cv.text(f"note:{p.key}", bx + PAD + 5, sy + h - 3, p.note, cls="rq-muted rq-small")
    return h


def _consumers(cv: _Canvas, vm: FlowVM, cols: _Columns) -> None:
    """The consumer instances column: one box per instance, a ProcessQueue row per assigned queue inside."""
    cx0 = cols.cx0 = cols.brokers_right + GAP
    pq_places = cols.places_in.get("consumers", [])
    pq_label_w = max([text_width(part) for p in pq_places for part in p.label.split(" · ")] + [60.0]) + 14
    cons_w = cols.cons_w = max(
        pq_label_w + TOKENS_PER_ROW * STEP + 2 * PAD + 8 if vm.consumers else text_width(_("consumer instances"), 12),
        max((text_width(f"{c.client_id} · {c.group}", 12) + 2 * PAD for c in vm.consumers), default=0),
        max((text_width(c.detail, 11) + 2 * PAD for c in vm.consumers), default=0),
    )
    y = cols.top
    cv.text("col:consumers", cx0, y + 12, _("consumer instances"), cls="rq-title")
    y += 22
    if not vm.consumers:
        cv.text("empty:consumers", cx0 + 4, y + 14, "no consumer", cls="rq-muted rq-small")
        y += ROW
    for c in vm.consumers:
        pqs = [p for p in pq_places if p.owner == c.client_id]
        inner = sum(_pq_height(p, len(cols.by_place.get(p.key, []))) + 4 for p in pqs) if pqs else ROW
        h = 34 + inner + 4
        title = f"{c.client_id} ({c.group}): {c.detail}"
        cv.rect(f"consumer:{c.client_id}", cx0, y, cons_w, h, "rq-box", role="consumer", title=title)
        cv.text(f"consumer-label:{c.client_id}", cx0 + PAD, y + 14, f"{c.client_id} · {c.group}", cls="rq-title")
        cv.text(f"consumer-detail:{c.client_id}", cx0 + PAD, y + 27, c.detail, cls="rq-muted rq-small")
        sy = y + 34
        if not pqs:
            cv.text(
                f"empty:{c.client_id}",
                cx0 + PAD + 4,
                sy + 14,
                "no ProcessQueue" if c.running else NOT_STARTED if c.detail == NOT_STARTED else "not running",
                cls="rq-muted rq-small",
            )
        for p in pqs:
            toks = cols.by_place.get(p.key, [])
            ph = _pq_height(p, len(toks))
            tip = f"ProcessQueue of {p.label}" + (f": {p.note}" if p.note else "")
            cv.rect(f"place:{p.key}", cx0 + PAD, sy, cons_w - 2 * PAD, ph, "rq-pq", title=tip)
            name, _sep, broker = p.label.partition(" · ")  # "TopicTest:0 · broker-a": the broker on a line of its own
            cv.text(f"label:{p.key}", cx0 + PAD + 5, sy + 15, name, title=p.label)
            if broker:
                cv.text(f"broker:{p.key}", cx0 + PAD + 5, sy + 27, broker, cls="rq-muted rq-small")
            if p.note:
                cv.text(f"note:{p.key}", cx0 + PAD + 5, sy + ph - 5, p.note, cls="rq-muted rq-small")
            _place_tokens(cv, toks, cx0 + PAD + pq_label_w + R, sy + 2 + R + 1)
            sy += ph + 4
        y += h + 8
    cols.cons_bottom = y


def _outcomes(cv: _Canvas, cols: _Columns) -> None:
    """The outcome trays (consumed, dropped per group), under the consumer instances (a column of their own made
    two-broker labs too wide)."""
    ox0 = cols.cx0
    out_places = cols.places_in.get("outcome", [])
    out_w = max([cols.cons_w] + [text_width(p.label) + 2 * PAD for p in out_places])
    out_w = max([out_w] + [text_width(p.note, 11) + 2 * PAD for p in out_places])
    y = cols.cons_bottom + 14
    if out_places:
        cv.text("col:outcome", ox0 + 44, y + 12, _("outcome"), cls="rq-title")
    y += 22
    for p in out_places:
        toks = cols.by_place.get(p.key, [])
        head = 32.0 if p.note else 20.0
        h = head + _grid_height(len(toks))
        cv.rect(f"place:{p.key}", ox0, y, out_w, h, "rq-tray", title=p.label + (f": {p.note}" if p.note else ""))
        cv.text(f"label:{p.key}", ox0 + 6, y + 14, p.label, cls="rq-muted")
        if p.note:
            cv.text(f"note:{p.key}", ox0 + 6, y + 27, p.note, cls="rq-muted rq-small")
        _place_tokens(cv, toks, ox0 + 6 + R, y + head + R + 1)
        y += h + 8
    cols.out_bottom = y
    cols.right = ox0 + out_w if out_places else cols.cx0 + cols.cons_w


def _arrows(cv: _Canvas, vm: FlowVM, cols: _Columns) -> None:
    """Arrows between the columns, one per lane, with the direction a message takes; ack down to the trays; the
    schedule service's hop from SCHEDULE_TOPIC_XXXX to %RETRY% inside each broker."""
    lane_y = cols.lane_y
    mid = {lane: (a + b) / 2 for lane, (a, b) in lane_y.items()}
    ax0, ax1 = cols.brokers_right + 6, cols.cx0 - 6
    first_producer = cols.top + 22 + 20  # the middle of the first producer box, if it sits beside the business lane
    send_y = min(max(first_producer, lane_y["business"][0] + 12), lane_y["business"][1] - 8)
    arrows = [
        ("send", cols.prod_right + 6, cols.bx0 - 6, send_y, _("send")),
        ("pull-business", ax0, ax1, mid["business"], _("pull")),
        ("send-back", ax1, ax0, mid["schedule"], _("send back")),
        ("pull-retry", ax0, ax1, mid["retry"], _("pull")),
        ("dead-letter", ax1, ax0, mid["dlq"], _("dead letter")),
    ]
    if not vm.retry_paths:  # BROADCASTING only: a failure is dropped, no message goes back or to the DLQ
        arrows = arrows[:2]
    for key, x1, x2, ay, label in arrows:
        cv.marks.append(
            Mark("line", f"arrow:{key}", x=x1, y=ay, x2=x2, y2=ay, cls="rq-arrow", arrow=True, role="arrow")
        )
        cv.text(f"arrow-label:{key}", (x1 + x2) / 2, ay - 5, label, cls="rq-muted rq-small", anchor="middle")
    if vm.consumers and cols.places_in.get("outcome", []):  # down from the instances to the trays
        ax, ack_top, ack_bottom = cols.cx0 + 14, cols.cons_bottom - 6, cols.cons_bottom + 36
        cv.marks.append(
            Mark("line", "arrow:ack", x=ax, y=ack_top, x2=ax, y2=ack_bottom, cls="rq-arrow", arrow=True, role="arrow")
        )
        cv.text("arrow-label:ack", ax + 5, ack_bottom - 20, _("ack"), cls="rq-muted rq-small")
    for i, (b, _up) in enumerate(
        vm.brokers
    ):  # the schedule service moves a due message into %RETRY%, inside the broker
        hx = cols.bx0 + i * (cols.col_w + 16) + cols.col_w - PAD - HOP_W / 2 + 3
        cv.marks.append(
            Mark(
                "line",
                f"arrow:hop:{b}",
                x=hx,
                y=lane_y["schedule"][0] + 4,
                x2=hx,
                y2=lane_y["retry"][0] + 2,
                cls="rq-arrow",
                arrow=True,
                role="arrow",
                title="ScheduleMessageService: a due message goes back to its real topic",
            )
        )


def _tokens(cv: _Canvas, vm: FlowVM) -> None:
    """A halo on the message the latest event is about, then the tokens on top, crosses on dropped ones."""
    for t in vm.tokens:
        if t.msg_id == vm.focus:
            fx, fy = cv.token_at[t.key]
            cv.marks.append(Mark("circle", f"focus:{t.key}", x=fx, y=fy, r=R + 4, cls="rq-focus", role="focus"))
    for t in vm.tokens:
        tx, ty = cv.token_at[t.key]
        tip = (
            f"{t.msg_id} · {t.state}" + (f" · {t.owner}" if t.owner else "") + f" · reconsume times {t.reconsume_times}"
        )
        if t.countdown:
            tip += f" · {t.countdown}"
        if t.why:
            tip += f" · {t.why}"
        text = token_text(t.reconsume_times)
        cls = f"rq-{t.state}" + (" rq-long" if len(text) > 2 else "")
        cv.marks.append(
            Mark("token", t.key, x=tx, y=ty, r=R, text=text, fill=t.colour, cls=cls, role="token", title=tip)
        )
        if t.state in ("dropped", "send_failed"):
            d = R * 0.8
            cv.marks.append(
                Mark(
                    "path",
                    f"cross:{t.key}",
                    d=f"M{tx - d:.1f},{ty - d:.1f} L{tx + d:.1f},{ty + d:.1f} "
                    f"M{tx - d:.1f},{ty + d:.1f} L{tx + d:.1f},{ty - d:.1f}",
                    cls="rq-cross",
                    role="cross",
                )
            )


def _legend(cv: _Canvas, bottom: float) -> tuple[float, float]:
    """Two legend columns under everything; returns the scene's height and the legend's right edge."""
    sample = token_colour("M0001")
    items_a = (
        ("token", sample, _("a message, stored in a queue or pulled into a ProcessQueue")),
        ("token", f"{sample} rq-consuming", _("being consumed (a listener runs on it)")),
        ("token", f"{sample} rq-delayed", _("waiting in a delay level (due in …)")),
        ("token", f"{sample} rq-sending", _("at its producer: sending (crossed: send failed)")),
    )
    items_b = (
        ("token", f"{sample} rq-dead", _("in %DLQ% (dead letter)")),
        ("token", f"{sample} rq-done", _("consumed (green ring, in its group's tray)")),
        ("token", f"{sample} rq-dropped", _("dropped, never consumed (crossed)")),
        ("line", "rq-arrow", _("direction a message travels")),
        ("line", "rq-focus", _("ring: the message the latest event is about")),
    )
    lx2 = PAD + max(text_width(label) for _, _, label in items_a) + 40
    cv.marks.extend(legend_marks(items_a, x=PAD, y=bottom + 8, key="legend-a"))
    cv.marks.extend(legend_marks(items_b, x=lx2, y=bottom + 8, key="legend-b"))
    for i, (_glyph, style, _label) in enumerate(items_b):
        if "rq-dropped" in style:
            lx, ly, d = lx2 + 5, bottom + 8 + i * 14, 4.0
            cv.marks.append(
                Mark(
                    "path",
                    "legend-b:cross",
                    d=f"M{lx - d},{ly - d} L{lx + d},{ly + d} M{lx - d},{ly + d} L{lx + d},{ly - d}",
                    cls="rq-cross",
                    role="legend",
                )
            )
    height = bottom + 8 + max(len(items_a), len(items_b)) * 14 + 4
    return height, lx2 + max(text_width(label) for _, _, label in items_b) + 30
