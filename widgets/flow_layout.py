"""The message-flow view's picture: columns of places (producers, broker lanes, consumer instances, outcome
trays) with the tokens in them, the arrows between the columns, and the legend.

:func:`flow_scene` lays a :class:`~widgets.flow_model.FlowVM` out in that order, one named part at a time:
:func:`_titles`, then the columns (:mod:`widgets.flow_columns`: producers, brokers with lanes shared by all brokers
and one slot per queue, consumer instances, outcome trays), :func:`_arrows`, :func:`_tokens` and :func:`_legend`.
Each part appends its marks to one :class:`~widgets.flow_canvas.Canvas` and records where it ended, so the next
part knows where to start (:mod:`widgets.flow_canvas`). The tokens are drawn last (on top), at the centres the
places gave them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rmqlab import format_duration
from rmqlab.core.i18n import N_, ngettext
from rmqlab.core.i18n import gettext as _

from .flow_canvas import HOP_W, PAD, STEP, Canvas, Columns, R
from .flow_columns import broker_columns, consumer_column, outcome_column, producer_column
from .flow_delay_offsets import delay_offset_legend
from .flow_extras import COPY_TIP, EXTRA_CSS, copy_badge, cross, cross_legend, extra_legend, ghosts
from .flow_lock_legend import lock_legend, lock_samples
from .flow_model import NOT_STARTED, TOKEN_STATE_WORDS
from .flow_uncommitted import UNCOMMITTED_CSS
from .legend import legend_marks
from .palette import token_colour
from .scene import Mark, Scene, text_width

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .flow_model import FlowVM, Place, TokenVM

__all__ = ["FLOW_CSS", "NOT_STARTED", "STEP", "R", "flow_scene", "token_label", "token_text"]


NOT_OK_TIP = N_("stored, but the producer was told {status}, not SEND_OK")
"""A stored token's tooltip when its send was answered FLUSH_DISK_TIMEOUT & co."""
NOT_OK_LEGEND = N_("stored, but answered {status}, not SEND_OK (!)")
"""The legend line of that glyph (only on a picture that has such a token)."""

FLOW_CSS = """
$ .rq-col { fill: var(--jp-layout-color1, #fafafa); stroke: var(--jp-border-color2, #c7c7c7); }
$ .rq-broker { fill: var(--jp-layout-color1, #fafafa); stroke: var(--jp-border-color1, #9e9e9e); }
$ .rq-broker.rq-down { stroke: var(--jp-error-color1, #d32f2f); stroke-dasharray: 6 4;
  fill: var(--jp-layout-color3, #bdbdbd); fill-opacity: 0.35; }
$ text.rq-down-label { font-weight: 600; }
$ .rq-slot { fill: var(--jp-layout-color2, #eeeeee); stroke: var(--jp-border-color2, #c7c7c7); }
$ .rq-slot.rq-stranded { stroke-dasharray: 3 2; }
$ rect.rq-placeholder { fill: none; pointer-events: all; stroke-dasharray: 4 3; stroke-opacity: 0.7; }
$ text.rq-placeholder { fill-opacity: 0.6; font-style: italic; }
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
$ .rq-token.rq-not-ok circle { stroke: var(--jp-warn-color1, #f57c00); stroke-width: 3; stroke-dasharray: 4 2; }
$ .rq-not-ok-badge { fill: var(--jp-warn-color1, #f57c00); stroke: none; }
$ text.rq-not-ok-mark { fill: #000000; font-weight: 700; font-size: 11px; }
$ .rq-focus { fill: none; stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2.5; opacity: 0.8;
  transition: cx var(--rq-duration, 350ms) ease-in-out, cy var(--rq-duration, 350ms) ease-in-out; }
$ .rq-cross { stroke: var(--jp-error-color1, #d32f2f); stroke-width: 2; }
$ .rq-token .rq-badge rect { fill: #1f1f1f; stroke: #ffffff; stroke-width: 1; }
$ .rq-token .rq-badge text { fill: #ffffff; font-size: 11px; font-weight: 600; }
$ .rq-cut-link { stroke: var(--jp-error-color1, #d32f2f); stroke-width: 2; }
$ text.rq-cut { fill: var(--jp-error-color1, #d32f2f); font-weight: 600; }
$ .rq-lock { fill: var(--jp-warn-color1, #f57c00); stroke: none; }
$ .rq-lock.rq-lock-expired { fill: none; stroke: var(--jp-warn-color1, #f57c00); stroke-width: 1.2;
  stroke-dasharray: 2 1; }
$ text.rq-lock-owner { font-weight: 600; }
""".replace("$", '[data-testid="rq-flow"]')
"""The view's own classes, scoped to its root (``$`` stands for the root selector)."""


def token_label(msg_id: str) -> str:
    """What a token says: which message it is, the number its id ends with (``M0001`` → ``1``, ``M0598`` → ``598``;
    ``1k`` beyond 999, as :func:`token_text`), so that a question naming M0001 finds its token whatever the colours
    (six colour-blind-safe fills repeat within seven messages); an id without digits, its first two characters."""
    digits = len(msg_id) - len(msg_id.rstrip("0123456789"))
    return token_text(int(msg_id[-digits:])) if digits else msg_id[:2]


def token_text(reconsume_times: int) -> str:
    """A number fitted into a token or its badge (its message's number; its reconsume times): ``7``, ``42``, ``137``;
    ``1k``, ``12k`` beyond 999: at most three characters; three in regular weight, the ``rq-long`` class, so the
    disc holds them at the 11 px label size). The tooltip keeps the exact number."""
    if reconsume_times < 1000:
        return str(reconsume_times)
    return f"{reconsume_times // 1000}k"


def flow_scene(vm: FlowVM) -> Scene:
    """Lay the view-model out as a :class:`Scene` (deterministic: same view-model, same marks)."""
    cv = Canvas()
    by_place: dict[str, list[TokenVM]] = {}
    for t in (*vm.tokens, *vm.ghosts):  # a failed try's ghost after the tokens of its queue
        by_place.setdefault(t.place, []).append(t)
    places_in: dict[str, list[Place]] = {}
    for p in vm.places:
        places_in.setdefault(p.column, []).append(p)
    cols = Columns(by_place=by_place, places_in=places_in, top=44.0)
    _titles(cv, vm)
    producer_column(cv, cols, vm)
    broker_columns(cv, vm, cols)
    consumer_column(cv, vm, cols)
    outcome_column(cv, cols)
    _arrows(cv, vm, cols)
    _cut_links(cv, vm, cols)
    _tokens(cv, vm)
    ghosts(cv, vm, token_label)
    not_ok = sorted({t.put_status for t in vm.tokens if t.put_status})
    bottom = max(cols.prod_bottom, cols.broker_bottom, cols.cons_bottom, cols.out_bottom) + 10
    extra_lines = extra_legend(vm) + delay_offset_legend(vm) + lock_legend(vm)
    uncommitted = any(t.uncommitted for t in vm.tokens)
    height, legend_right = _legend(cv, bottom, not_ok, extra_lines)
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
        css=FLOW_CSS + (EXTRA_CSS if extra_lines else "") + (UNCOMMITTED_CSS if uncommitted else ""),  # only if drawn
        extra=extra,
    )


def _titles(cv: Canvas, vm: FlowVM) -> None:
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
            "a token per message and group (BROADCASTING: per instance); "
            "{colour_note}; 1 = M0001; badge = reconsume times"
        ).format(colour_note=vm.colour_note),
        cls="rq-muted rq-small",
    )


def _arrows(cv: Canvas, vm: FlowVM, cols: Columns) -> None:
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
    if not vm.consumers:  # a producer's lab (01a, 01b, 06): nothing pulls, nothing comes back
        arrows = arrows[:1]
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
                title=_("ScheduleMessageService: a due message goes back to its real topic"),
            )
        )


def _cut_links(cv: Canvas, vm: FlowVM, cols: Columns) -> None:
    """A partitioned link (``lab.partition``): a dashed red line from the brokers to the instance's box, crossed
    near the brokers, level with the box's top edge (above the lanes' arrows and their labels)."""
    for client, broker in vm.cut_links:
        top = cols.consumer_y.get(client)
        if top is None:
            continue
        y, x1, x2 = top + 3, cols.brokers_right + 2, cols.cx0
        tip = _("link between {client} and {broker} cut (network partition)").format(client=client, broker=broker)
        cv.marks.append(
            Mark("line", f"cut-link:{client}:{broker}", x=x1, y=y, x2=x2, y2=y, cls="rq-cut-link", dash="5 3",
                 role="cut-link", title=tip)
        )  # fmt: skip
        mx = x1 + 12  # clear of the centred arrow labels
        a, b, up, down = f"{mx - 5:.1f}", f"{mx + 5:.1f}", f"{y - 5:.1f}", f"{y + 5:.1f}"
        cross = f"M {a} {up} L {b} {down} M {a} {down} L {b} {up}"
        cv.marks.append(
            Mark("path", f"cut-cross:{client}:{broker}", d=cross, cls="rq-cross", role="cut-link", title=tip)
        )


def _tokens(cv: Canvas, vm: FlowVM) -> None:
    """A halo on the message the latest event is about, then the tokens on top, crosses on dropped ones."""
    for t in vm.tokens:
        if t.msg_id == vm.focus:
            fx, fy = cv.token_at[t.key]
            cv.marks.append(Mark("circle", f"focus:{t.key}", x=fx, y=fy, r=R + 4, cls="rq-focus", role="focus"))
    for t in vm.tokens:
        tx, ty = cv.token_at[t.key]
        tip = (
            f"{t.msg_id} · {_(TOKEN_STATE_WORDS[t.state])}"
            + (f" · {t.owner}" if t.owner else "")
            + " · "
            + _("reconsume times {n}").format(n=t.reconsume_times)
        )
        if t.countdown:
            tip += f" · {t.countdown}"
        if t.why:
            tip += f" · {t.why}"
        if t.put_status:
            tip += " · " + _(NOT_OK_TIP).format(status=t.put_status)
        if t.copy > 1:
            tip += " · " + _(COPY_TIP).format(n=t.copy)
        tip += f" · {t.uncommitted}" if t.uncommitted else ""
        text = token_label(t.msg_id)
        cls = f"rq-{t.state}" + (" rq-long" if len(text) > 2 else "") + (" rq-not-ok" if t.put_status else "")
        cls += " rq-uncommitted" if t.uncommitted else ""
        times = token_text(t.reconsume_times) if t.reconsume_times else ""
        cv.marks.append(
            Mark(
                "token", t.key, x=tx, y=ty, r=R, text=text, fill=t.colour, cls=cls, role="token", title=tip, badge=times
            )
        )
        if t.put_status:  # stored, but not SEND_OK: an orange dashed ring and an orange "!" badge (black on orange
            bx, by = tx + R - 1, ty - R + 1  # reads in both themes; the colours alone would not on a grey slot)
            badge = Mark("circle", f"not-ok-badge:{t.key}", x=bx, y=by, r=7, cls="rq-not-ok-badge", role="badge")
            cv.marks.append(badge)
            cv.text(f"not-ok:{t.key}", bx, by + 4, "!", cls="rq-not-ok-mark", anchor="middle")
        if t.copy > 1:
            copy_badge(cv, t, tx, ty)
        if t.state in ("dropped", "send_failed"):
            cross(cv, t.key, tx, ty)


def _legend(
    cv: Canvas, bottom: float, not_ok: Sequence[str] = (), extra: Sequence[tuple[str, str, str]] = ()
) -> tuple[float, float]:
    """Two legend columns under everything; returns the scene's height and the legend's right edge. ``not_ok``: the
    non-SEND_OK statuses of stored tokens on the picture (their glyph is explained only when there are some)."""
    sample = token_colour("M0001")
    items_a: tuple[tuple[str, str, str], ...] = (
        ("token", sample, _("a message, stored in a queue or pulled into a ProcessQueue")),
        ("token", f"{sample} rq-consuming", _("being consumed (a listener runs on it)")),
        ("token", f"{sample} rq-delayed", _("waiting in a delay level (due in …)")),
        ("token", f"{sample} rq-sending", _("at its producer: sending (crossed: send failed)")),
    )
    if not_ok:
        items_a += (("token", f"{sample} rq-not-ok", _(NOT_OK_LEGEND).format(status=", ".join(not_ok))),)
    items_a += tuple(extra)
    items_b = (
        ("token", f"{sample} rq-dead", _("in %DLQ% (dead letter)")),
        ("token", f"{sample} rq-done", _("consumed (green ring, in its group's tray)")),
        ("token", f"{sample} rq-dropped", _("dropped, never consumed (crossed)")),
        ("line", "rq-arrow", _("direction a message travels")),
        ("line", "rq-focus", _("ring: the message the latest event is about")),
    )
    lx2 = PAD + max(text_width(label) for _, _, label in items_a) + 40
    cv.marks.extend(legend_marks(items_a, x=PAD, y=bottom + 8, key="legend-a"))
    cross_legend(cv, items_a, PAD, bottom + 8)
    lock_samples(cv, items_a, PAD, bottom + 8)
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
