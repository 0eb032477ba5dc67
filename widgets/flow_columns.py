"""The message-flow picture's columns, left to right: producers, the brokers (lanes shared by all brokers, one slot
per queue or delay level), the consumer instances with their ProcessQueues, and the outcome trays. Each part draws
on the :class:`~widgets.flow_canvas.Canvas` and records in :class:`~widgets.flow_canvas.Columns` where it ended."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

from .flow_canvas import (
    GAP,
    GAP_SEND,
    HOP_W,
    LANES,
    PAD,
    ROW,
    SLOT_TOKENS_PER_ROW,
    STEP,
    TOKENS_PER_ROW,
    Canvas,
    Columns,
    R,
    grid_height,
    place_tokens,
    pq_height,
)
from .flow_delay_offsets import delay_offsets_height, draw_delay_offsets
from .flow_model import NOT_STARTED
from .flow_send_budget import budget_lines, budget_width
from .scene import Mark, text_width

if TYPE_CHECKING:
    from .flow_model import FlowVM, Place

__all__ = ["broker_columns", "consumer_column", "outcome_column", "producer_column"]


NOT_YET = N_("not there yet: nothing was ever written to it")
"""A checkpoint's placeholder place's tooltip, after its name."""
DETAIL_WORDS = (N_("concurrently"), N_("orderly"), N_("crashed"), N_("shut down"), NOT_STARTED)
"""The words of a consumer box's second line (``CLUSTERING · concurrently``, ``crashed`` …) that are translated
where drawn; the message model stays RocketMQ's name."""


DUE_DX = R + 8
"""From a delayed token's centre to its "due in …": clear of the focus ring (``R + 4``, 2.5 px stroke) the token
of the latest event wears, which hid the "d" of "due in 25 s" in lab 02b (revA item 17), and of its badge."""


def detail_words(detail: str) -> str:
    """A consumer box's second line in the current language."""
    return " · ".join(_(part) if part in DETAIL_WORDS else part for part in detail.split(" · "))


def _next(countdown: str) -> str:
    """``next due in 7 s``: what a crowded delay slot writes under its label."""
    return _("next {countdown}").format(countdown=countdown)


def producer_column(cv: Canvas, cols: Columns, vm: FlowVM) -> None:
    """The producers column: one box per producer (and its send-failed tray), tokens in a grid inside."""
    x = PAD
    places = cols.places_in.get("producers", [])
    prod_w = max(
        TOKENS_PER_ROW * STEP * 0.5 + 2 * PAD,
        max(text_width(s) for s in [p.label for p in places] + [_("producers")]) + 2 * PAD,
        budget_width(vm) + 12 + 2,
    )
    y = cols.top
    cv.text("col:producers", x, y + 12, _("producers"), cls="rq-title")
    y += 22
    for p in places:
        toks = cols.by_place.get(p.key, [])
        per = max(1, int((prod_w - 2 * PAD) // STEP))
        budgets = budget_lines(vm, p.owner) if p.kind == "producer" else []
        top = 18 + CLOCK_LINE * len(budgets)  # the send budget's clock under the producer's name
        h = top + grid_height(len(toks), per)
        cls = _dim("rq-tray" if p.kind == "send_failed" else "rq-box", p)
        cv.rect(f"place:{p.key}", x, y, prod_w, h, cls, title=p.label)
        cv.text(f"label:{p.key}", x + 6, y + 13, p.label, cls="rq-muted" if p.kind == "send_failed" else "")
        for n, (line, tip) in enumerate(budgets):
            cv.text(f"send-budget:{p.owner}:{n}", x + 6, y + 13 + CLOCK_LINE * (n + 1), line,
                    cls="rq-muted rq-small rq-clock", title=tip)  # fmt: skip
        place_tokens(cv, toks, x + 6 + R, y + top + R + 2, per)
        y += h + 8
    cols.prod_bottom = y
    cols.prod_right = x + prod_w


def _slot_height(cols: Columns, p: Place) -> float:
    """A broker queue's slot: its tokens (a short delay level lists them one per line), plus a note line."""
    n = len(cols.by_place.get(p.key, []))
    note = 12 if p.note or p.deleted else 0  # "not in route" gets a line of its own under the queue's name
    if p.kind == "delay" and n <= 4:
        return max(ROW, n * STEP + 4) + note
    return max(ROW, grid_height(n, SLOT_TOKENS_PER_ROW)) + note


def _in_lane(cols: Columns, broker: str, kinds: tuple[str, ...]) -> list[Place]:
    """A broker's places in one lane, in drawing order: delay levels by level (a checkpoint's placeholders come
    after the levels in use in the view-model), the rest as listed."""
    ps = [p for p in cols.places_in.get(f"broker:{broker}", []) if p.kind in kinds]
    return sorted(ps, key=lambda p: int(p.key.rsplit(":", 1)[1]) if p.kind == "delay" else 0)


def _dim(cls: str, p: Place) -> str:
    """A place's class, dimmed and dashed when it is a checkpoint's placeholder (not there yet)."""
    return f"{cls} rq-placeholder" if p.placeholder else cls


def _broker_geometry(vm: FlowVM, cols: Columns, brokers: list[str]) -> None:
    """The broker columns' label width and column width, and the lanes' rows (shared by all brokers)."""
    tok_w = SLOT_TOKENS_PER_ROW * STEP
    label_w = 0.0
    for b in brokers:
        for p in cols.places_in.get(f"broker:{b}", []):
            label_w = max(label_w, text_width(p.label), text_width(p.lock_owner, 11) + 14)
    # a crowded delay slot writes "next due in …" (11 px) under its label, left of its token grid
    next_w = max((text_width(_next(t.countdown), 11) + 5 for t in vm.tokens if t.countdown), default=0.0)
    cols.label_w = max(label_w, next_w, text_width("level 18 · 2 h"), 70.0) + 10
    # a delay level lists its tokens one per line with "due in …" beside each: room for it once the run has one
    has_delay = any(p.kind == "delay" and not p.placeholder for p in vm.places)  # a placeholder holds no token
    delay_w = R + DUE_DX + text_width("due in 59.9 s") + 8 if has_delay else 0.0
    col_w = cols.label_w + max(tok_w, delay_w) + 2 * PAD + HOP_W
    cols.col_w = max(
        col_w,
        max((text_width(_("{broker} · down").format(broker=b)) for b in brokers), default=0) + 2 * PAD,
        text_width("SCHEDULE_TOPIC_XXXX") + 2 * PAD,
        max((text_width(line, 11) for _b, k, _tip in vm.kept_out for line in k.text.split("\n")), default=0) + 2 * PAD,
        max((text_width(line, 11) for _b, lines, _tip in vm.delay_offsets for line in lines), default=0) + 2 * PAD,
    )
    cols.bx0 = cols.prod_right + GAP_SEND
    kept = [sum(k.text.count("\n") + 1 for name, k, _tip in vm.kept_out if name == b) for b in brokers]
    y = cols.top + 22 + CLOCK_LINE * max(kept, default=0)  # room for the kept-out clocks under the names
    for lane, _name, kinds in LANES:
        h = 16.0
        for b in brokers:
            ps = _in_lane(cols, b, kinds)
            hb = 16.0 + (sum(_slot_height(cols, p) + 4 for p in ps) if ps else ROW)
            if lane == "schedule":  # delayOffset.json under the lane's name, in a run with a broker crash
                hb += delay_offsets_height(vm, b)
            h = max(h, hb)
        cols.lane_y[lane] = (y, y + h)
        y += h + 10
    cols.broker_bottom = y


def broker_columns(cv: Canvas, vm: FlowVM, cols: Columns) -> None:
    """One column per broker (dashed when down), its lanes one under the other, a slot per queue."""
    brokers = [name for name, _ in vm.brokers]
    up = dict(vm.brokers)
    _broker_geometry(vm, cols, brokers)
    top, col_w = cols.top, cols.col_w
    for i, b in enumerate(brokers):
        bx = cols.bx0 + i * (col_w + 16)
        cls = "rq-broker" if up[b] else "rq-broker rq-down"
        title = (_("{broker} is up") if up[b] else _("{broker} is down")).format(broker=b)
        cv.rect(f"broker:{b}", bx, top, col_w, cols.broker_bottom - top, cls, role="broker", title=title)
        cv.text(
            f"broker-label:{b}",
            bx + PAD,
            top + 15,
            b if up[b] else _("{broker} · down").format(broker=b),
            cls="rq-title" if up[b] else "rq-title rq-down-label",
        )
        lines = [(line, tip) for name, k, tip in vm.kept_out if name == b for line in k.text.split("\n")]
        for n, (line, tip) in enumerate(lines):
            cv.text(f"kept-out:{b}:{n}", bx + PAD, top + 15 + CLOCK_LINE * (n + 1), line,
                    cls="rq-muted rq-small rq-clock rq-kept-out", title=tip)  # fmt: skip
        for lane, header, kinds in LANES:
            y0 = cols.lane_y[lane][0]
            if lane != "business":
                cv.marks.append(
                    Mark("line", f"sep:{b}:{lane}", x=bx + 4, y=y0 - 5, x2=bx + col_w - 4, y2=y0 - 5, cls="rq-lane-sep")
                )
            cv.text(f"lane:{b}:{lane}", bx + PAD, y0 + 11, _(header), cls="rq-muted")
            ps = _in_lane(cols, b, kinds)
            sy = y0 + 16
            if lane == "schedule":
                sy += draw_delay_offsets(cv, vm, b, bx + PAD, sy)
            if not ps:
                empty = _("no delayed message") if lane == "schedule" else _("none yet")
                cv.text(f"empty:{b}:{lane}", bx + PAD + 8, sy + 15, empty, cls="rq-muted rq-small")
            for p in ps:
                sy += _broker_slot(cv, cols, p, bx, sy) + 4
    cols.brokers_right = cols.bx0 + len(brokers) * (col_w + 16) - 16 if brokers else cols.bx0


def _broker_slot(cv: Canvas, cols: Columns, p: Place, bx: float, sy: float) -> float:
    """One queue's slot in a broker lane at (``bx``, ``sy``); returns its height.

    A delay level with at most four tokens lists them one per line with their countdowns; a fuller one shows a
    grid and "next due in …" under its label."""
    h = _slot_height(cols, p)
    cls = _dim("rq-slot rq-stranded" if p.note else "rq-slot", p)
    tip = p.label + (f" ({p.note})" if p.note else "") + (f" ({_(NOT_YET)})" if p.placeholder else "")
    cv.rect(f"place:{p.key}", bx + PAD, sy, cols.col_w - 2 * PAD - HOP_W, h, cls, title=tip)
    cv.text(f"label:{p.key}", bx + PAD + 5, sy + 15, p.label, cls=_dim("", p).strip(), title=tip)
    toks = cols.by_place.get(p.key, [])
    tx = bx + PAD + cols.label_w + R
    if p.kind == "delay" and len(toks) <= 4:
        for j, t in enumerate(toks):
            cy = sy + 2 + R + 1 + j * STEP
            cv.token_at[t.key] = (tx, cy)
            cv.text(f"due:{t.key}", tx + DUE_DX, cy + 4, t.countdown, cls="rq-muted rq-small")
    else:
        place_tokens(cv, toks, tx, sy + 2 + R + 1, SLOT_TOKENS_PER_ROW)
        if p.kind == "delay" and toks:
            cv.text(f"due:{p.key}", bx + PAD + 5, sy + 28, _next(toks[0].countdown), cls="rq-muted rq-small")
    if p.note:
        cv.text(f"note:{p.key}", bx + PAD + 5, sy + h - 3, p.note, cls="rq-muted rq-small")
    elif p.deleted:
        cv.text(f"note:{p.key}", bx + PAD + 5, sy + h - 3, _(DELETED).format(count=p.deleted), cls="rq-muted rq-small",
                title=_(DELETED_TIP).format(count=p.deleted))
    if p.lock_owner:  # the broker's side of an orderly lock, under the queue's name
        tip = _(BROKER_LOCK_EXPIRED_TIP if p.lock_expired else BROKER_LOCK_TIP).format(client=p.lock_owner)
        _lock_badge(cv, p.key, bx + PAD + 5, sy + 18, tip=tip, expired=p.lock_expired)  # its tooltip on the body only
        cv.text(f"owner:{p.key}", round(bx + PAD + 19, 1), sy + 28, p.lock_owner, cls="rq-small rq-lock-owner")
    return h


def consumer_column(cv: Canvas, vm: FlowVM, cols: Columns) -> None:
    """The consumer instances column: one box per instance, a ProcessQueue row per assigned queue inside."""
    cx0 = cols.cx0 = cols.brokers_right + GAP
    pq_places = cols.places_in.get("consumers", [])
    pq_label_w = max([text_width(part) for p in pq_places for part in p.label.split(" · ")] + [60.0]) + 10
    cons_w = cols.cons_w = max(
        pq_label_w + SLOT_TOKENS_PER_ROW * STEP + 2 * PAD + 8
        if vm.consumers
        else text_width(_("consumer instances"), 12),
        max((text_width(f"{c.client_id} · {c.group}", 12) + 2 * PAD for c in vm.consumers), default=0),
        max((text_width(detail_words(c.detail), 11) + 2 * PAD for c in vm.consumers), default=0),
        max((text_width(line, 11) + 2 * PAD for c in vm.consumers for line in _box_lines(vm, c.client_id)), default=0),
    )
    y = cols.top
    cv.text("col:consumers", cx0, y + 12, _("consumer instances"), cls="rq-title")
    y += 22
    if not vm.consumers:
        cv.text("empty:consumers", cx0 + 4, y + 14, "no consumer", cls="rq-muted rq-small")
        y += ROW
    for c in vm.consumers:
        pqs = [p for p in pq_places if p.owner == c.client_id]
        inner = sum(pq_height(p, len(cols.by_place.get(p.key, []))) + 4 for p in pqs) if pqs else ROW
        lines = _box_lines(vm, c.client_id)
        h = 34 + CLOCK_LINE * len(lines) + inner + 4
        cols.consumer_y[c.client_id] = y
        title = f"{c.client_id} ({c.group}): {detail_words(c.detail)}"
        cv.rect(f"consumer:{c.client_id}", cx0, y, cons_w, h, "rq-box", role="consumer", title=title)
        cv.text(f"consumer-label:{c.client_id}", cx0 + PAD, y + 14, f"{c.client_id} · {c.group}", cls="rq-title")
        cv.text(f"consumer-detail:{c.client_id}", cx0 + PAD, y + 27, detail_words(c.detail), cls="rq-muted rq-small")
        _clock_lines(cv, vm, c.client_id, cx0 + PAD, y + 27)
        sy = y + 34 + CLOCK_LINE * len(lines)
        if not pqs:
            cv.text(
                f"empty:{c.client_id}",
                cx0 + PAD + 4,
                sy + 14,
                _("no ProcessQueue") if c.running else _(NOT_STARTED) if c.detail == NOT_STARTED else _("not running"),
                cls="rq-muted rq-small",
            )
        for p in pqs:
            toks = cols.by_place.get(p.key, [])
            ph = pq_height(p, len(toks))
            tip = _("ProcessQueue of {queue}").format(queue=p.label) + (f": {p.note}" if p.note else "")
            cv.rect(f"place:{p.key}", cx0 + PAD, sy, cons_w - 2 * PAD, ph, _dim("rq-pq", p), title=tip)
            name, _sep, broker = p.label.partition(" · ")  # "TopicTest:0 · broker-a": the broker on a line of its own
            cv.text(f"label:{p.key}", cx0 + PAD + 5, sy + 15, name, title=p.label)
            if broker:
                cv.text(f"broker:{p.key}", cx0 + PAD + 5, sy + 27, broker, cls="rq-muted rq-small")
            if p.locked:
                _lock_badge(cv, p.key, cx0 + PAD + 5 + (text_width(broker, 11) + 4 if broker else 0), sy + 18)
            if p.note:
                cv.text(f"note:{p.key}", cx0 + PAD + 5, sy + ph - 5, p.note, cls="rq-muted rq-small")
            place_tokens(cv, toks, cx0 + PAD + pq_label_w + R, sy + 2 + R + 1, SLOT_TOKENS_PER_ROW)
            sy += ph + 4
        y += h + 8
    cols.cons_bottom = y


CLOCK_LINE = 13.0
"""One line of a consumer box's clocks (11 px text)."""
LINK_CUT = N_("link to {broker} cut")
LOCK_TIP = N_("{client} holds the broker lock of this queue (lease live)")
BROKER_LOCK_TIP = N_("broker lock: {client} (lease live)")
DELETED = N_("{count} deleted by retention")
DELETED_TIP = N_("CleanCommitLogService deleted the CommitLog files under this queue's first {count} entries "
                 "(fileReservedTime 72 h, in the deleteWhen hour 04:xx); it starts at offset {count} now")
BROKER_LOCK_EXPIRED_TIP = N_("broker lock: still {client}, lease expired (the next to ask takes it over)")


def _box_lines(vm: FlowVM, client_id: str) -> list[str]:
    """The lines under a consumer box's name: its cut links, then its clocks (:mod:`widgets.flow_clocks`)."""
    cuts = [_(LINK_CUT).format(broker=b) for c, b in vm.cut_links if c == client_id]
    box = next((c for c in vm.consumers if c.client_id == client_id), None)
    return cuts + ([k.text for k in box.clocks] if box is not None else [])


def _clock_lines(cv: Canvas, vm: FlowVM, client_id: str, x: float, y: float) -> None:
    """The cut links and the clocks, one 11 px line each, under the box's second line (baseline ``y``)."""
    for _c, b in (link for link in vm.cut_links if link[0] == client_id):
        y += CLOCK_LINE
        cv.text(f"cut:{client_id}:{b}", x, y, _(LINK_CUT).format(broker=b), cls="rq-small rq-cut")
    box = next((c for c in vm.consumers if c.client_id == client_id), None)
    seen: dict[str, int] = {}
    for k in box.clocks if box is not None else ():
        n = seen[k.kind] = seen.get(k.kind, -1) + 1
        y += CLOCK_LINE
        cv.text(f"clock:{client_id}:{k.kind}:{n}", x, y, k.text, cls="rq-muted rq-small rq-clock", title=k.text)


def _lock_badge(cv: Canvas, key: str, x: float, y: float, *, tip: str = "", expired: bool = False, role: str = "lock"
                ) -> None:
    """A padlock 10 px wide, its shackle from ``y``, one path (shackle band and body; each mark is sent again in every
    frame that moves it: lab 07a's notebook neared 1 MB): the instance holds this queue's broker lock (or, on a broker
    queue, the broker's table names a holder: hollow once its lease expired)."""
    tip = tip or _(LOCK_TIP).format(client=key.split(":", 2)[1])
    d = (
        f"M{x + 1:.1f},{y + 5:.1f} v-1.5 a4,4 0 0 1 8,0 v1.5 h-1.6 v-1.5 a2.4,2.4 0 0 0 -4.8,0 v1.5 z "
        f"M{x:.1f},{y + 5:.1f} h10 v7 h-10 z"
    )
    cv.marks.append(Mark("path", f"lock:{key}", d=d, cls="rq-lock rq-lock-expired" if expired else "rq-lock",
                         role=role, title=tip))  # fmt: skip


def outcome_column(cv: Canvas, cols: Columns) -> None:
    """The outcome trays (consumed, dropped per group), under the consumer instances (a column of their own made
    two-broker labs too wide)."""
    ox0 = cols.cx0
    out_places = cols.places_in.get("outcome", [])
    out_w = max([cols.cons_w] + [text_width(p.label) + 2 * PAD for p in out_places])
    out_w = max([out_w] + [text_width(p.note, 11) + 2 * PAD for p in out_places])
    y = cols.cons_bottom + 14
    if out_places:
        # clear of the "ack" label flow_layout writes 19 px in, beside the arrow down to the trays, in any language
        ack_right = ox0 + 19 + text_width(_("ack"), 11)
        cv.text("col:outcome", max(ox0 + 44, ack_right + 3.5), y + 12, _("outcome"), cls="rq-title")
    y += 22
    for p in out_places:
        toks = cols.by_place.get(p.key, [])
        head = 32.0 if p.note else 20.0
        h = head + grid_height(len(toks))
        tip = p.label + (f": {p.note}" if p.note else "")
        cv.rect(f"place:{p.key}", ox0, y, out_w, h, _dim("rq-tray", p), title=tip)
        cv.text(f"label:{p.key}", ox0 + 6, y + 14, p.label, cls=_dim("rq-muted", p))
        if p.note:
            cv.text(f"note:{p.key}", ox0 + 6, y + 27, p.note, cls="rq-muted rq-small")
        place_tokens(cv, toks, ox0 + 6 + R, y + head + R + 1)
        y += h + 8
    cols.out_bottom = y
    cols.right = ox0 + out_w if out_places else cols.cx0 + cols.cons_w
