"""One row of the retry timeline: the message's name and state, its waits, numbered deliveries, its end (DLQ or
dropped), and the same deliveries to scale on a bar under them."""

from __future__ import annotations

from rmqlab import format_duration
from rmqlab.core.i18n import gettext as _

from .masked_words import hidden_short
from .retry_grid import LEFT_W, TOKEN_R, Grid
from .retry_model import MARKS, Mark, TimelineModel, Wait
from .scene import Mark as SceneMark

__all__ = ["lane_marks", "token_fill", "wait_label"]

_TICK_CLASS = {MARKS["consumed_failed"][1]: "rq-rt-tick-fail", MARKS["consumed_ok"][1]: "rq-rt-tick-ok"}


def token_fill(vm: TimelineModel, lane: int, n: int) -> tuple[str, str]:
    """(fill, result text) of delivery ``n``: the result's colour, yellow while the listener runs."""
    for m in vm.marks:
        if m.lane == lane and m.delivery == n and m.kind in ("consumed_ok", "consumed_failed"):
            return MARKS[m.kind][1], m.label
    return MARKS["delivered"][1], _("in the listener")


def wait_label(w: Wait) -> str:
    """``L3 · 10 s`` (the level as ``messageDelayLevel`` numbers it), ``suspend · 1 s`` or ``local · 5 s``, the
    word in the current language."""
    head = f"L{w.level}" if w.kind == "delay" else _("suspend") if w.kind == "suspend" else _("local")
    return f"{head} · {w.length}"


def lane_marks(vm: TimelineModel, g: Grid, lane: int, y: float) -> list[SceneMark]:
    """One message's row: its name and state, the waits (under the tokens), the row's end (DLQ / dropped box),
    the numbered deliveries, and the same deliveries to scale on a bar under them."""
    mid = vm.lanes[lane]
    origin = vm.origins_ms[lane]
    lane_marks = [m for m in vm.marks if m.lane == lane]
    waits = [w for w in vm.waits if w.lane == lane]
    n = vm.deliveries(lane)
    end = next((m for m in lane_marks if m.kind in ("dead_lettered", "dropped")), None)
    pending = next((w for w in waits if not w.done), None)
    state = _lane_state(vm, lane, n, end, pending)
    key = f"rt:{mid}"
    marks = [
        SceneMark("text", f"{key}:id", x=8, y=y + 4, text=mid, cls="rq-title", role="lane"),
        SceneMark(
            "text",
            f"{key}:origin",
            x=8,
            y=y + 19,
            text=_("first stored {time}").format(time=format_duration(origin)),
            cls="rq-muted rq-rt-label",
            role="origin",
            title=f"{origin} ms",
        ),
        SceneMark("text", f"{key}:state", x=8, y=y + 32, text=state, cls="rq-rt-label", role="lane-state"),
    ]
    last = end.delivery if end is not None else pending.after + 1 if pending is not None else n  # labelled always
    for w in waits:
        marks.extend(_wait_marks(vm, g, w, key=key, y=y, origin=origin))
    if end is not None:
        marks.extend(_end_marks(g, end, key=key, y=y))
    delivered = [m for m in lane_marks if m.kind == "delivered"]
    for m in delivered:
        marks.extend(_delivery_marks(vm, g, m, key=key, y=y, origin=origin, last=last))
    marks.extend(_bar_marks(vm, g, delivered, end, key=key, by=y + 46, origin=origin))
    return marks


def _wait_marks(vm: TimelineModel, g: Grid, w: Wait, *, key: str, y: float, origin: int) -> list[SceneMark]:
    """A wait between two deliveries, labelled; a pending one ends in a hollow "due" circle with its countdown
    and a now cursor on the line."""
    x1 = g.col_x(w.after) + TOKEN_R if w.after else LEFT_W
    x2 = g.col_x(w.after + 1) - TOKEN_R
    cls = "rq-rt-pending" if not w.done else "rq-rt-local" if w.kind != "delay" else "rq-rt-wait"
    wkey = f"{key}:w{w.after}"
    tip = (_("{wait}: {start} → {end} since first stored") if w.done
           else _("{wait}: {start} → {end} since first stored (waiting)")).format(
        wait=wait_label(w), start=format_duration(w.start_ms), end=w.end)  # fmt: skip
    marks = [
        SceneMark("line", wkey, x=x1, y=y, x2=x2, y2=y, cls=cls, role="wait", title=tip),
        SceneMark(
            "text",
            f"{wkey}:label",
            x=(x1 + x2) / 2,
            y=y - 14 - 12 * (w.after % g.wait_rows),
            text=wait_label(w),
            anchor="middle",
            cls="rq-rt-label",
            role="wait-label",
            title=tip,
        ),
    ]
    if w.done:
        return marks
    due_x = g.col_x(w.after + 1)
    left = max(w.end_ms + origin - vm.now_ms, 0)
    due_title = _("due at {time}").format(time=hidden_short() if w.hidden else format_duration(w.end_ms + origin))
    marks.append(
        SceneMark("circle", f"{key}:due", x=due_x, y=y, r=TOKEN_R, cls="rq-rt-due", role="due", title=due_title)
    )
    marks.append(
        SceneMark(
            "text",
            f"{key}:due:t",
            x=due_x,
            y=g.since_y(y, w.after + 1, w.after + 1),
            anchor="middle",
            text=_("due in {time}").format(time=hidden_short() if w.hidden else format_duration(left)),
            cls="rq-rt-label",
            role="countdown",
        )
    )
    # a hidden wait's cursor stays at its start: how far along it is would tell its length
    frac = 0.0 if w.hidden else (vm.now_ms - origin - w.start_ms) / max(w.duration_ms, 1)
    nx = x1 + (x2 - x1) * min(max(frac, 0.0), 1.0)
    now_title = _("now: {time}").format(time=format_duration(vm.now_ms))
    marks.append(
        SceneMark(
            "line", f"{key}:now", x=nx, y=y - 5, x2=nx, y2=y + 5, cls="rq-rt-now", role="now-cursor", title=now_title
        )
    )
    return marks


def _end_marks(g: Grid, end: Mark, *, key: str, y: float) -> list[SceneMark]:
    """The end of a row after its last delivery: a black DLQ box, or a crossed box for a dropped message."""
    ex = g.col_x(end.delivery)
    dlq = end.kind == "dead_lettered"
    return [
        SceneMark(
            "line", f"{key}:endlink", x=g.col_x(end.delivery - 1) + TOKEN_R, y=y, x2=ex - 16, y2=y, cls="rq-rt-link"
        ),
        SceneMark(
            "rect",
            f"{key}:end",
            x=ex - 16,
            y=y - 8,
            w=32,
            h=16,
            cls="rq-rt-dlq" if dlq else "rq-rt-dropped",
            role=end.kind,
            title=_("{what} at {time} since first stored").format(what=end.label, time=format_duration(end.t_ms)),
        ),
        SceneMark(
            "text",
            f"{key}:end:t",
            x=ex,
            y=y + 3.5,
            text="DLQ" if dlq else "✗",
            anchor="middle",
            cls="rq-rt-dlq-text" if dlq else "rq-rt-label",
        ),
        *_since_mark(g, f"{key}:end:since", (end.delivery, end.delivery), x=ex, y=y, t_ms=end.t_ms, title=end.label),
    ]


def _delivery_marks(
    vm: TimelineModel, g: Grid, m: Mark, *, key: str, y: float, origin: int, last: int
) -> list[SceneMark]:
    """Delivery ``m``: a numbered token in its result's colour, its time since first stored under it."""
    fill, result = token_fill(vm, m.lane, m.delivery)
    x = g.col_x(m.delivery)
    at = format_duration(m.t_ms + origin)
    tip = _("{what}: {result} — {time} after first stored, at {at}").format(
        what=m.label, result=result, time=format_duration(m.t_ms), at=at
    )
    return [
        SceneMark(
            "token",
            f"{key}:d{m.delivery}",
            x=x,
            y=y,
            r=TOKEN_R,
            text=str(m.delivery),
            fill=fill,
            role="delivery",
            title=tip,
        ),
        *_since_mark(g, f"{key}:d{m.delivery}:since", (m.delivery, last), x=x, y=y, t_ms=m.t_ms, title=tip),
    ]


def _since_mark(
    g: Grid, key: str, at: tuple[int, int], *, x: float, y: float, t_ms: int, title: str
) -> list[SceneMark]:
    """Column ``n``'s label under the row (``at`` = ``(n, the row's last column)``): the time since the message was
    first stored; none where the grid thins the labels out."""
    n, last = at
    if not g.since_shown(n, last):
        return []
    return [SceneMark(
        "text",
        key,
        x=x,
        y=g.since_y(y, n, last),
        anchor="middle",
        text=format_duration(t_ms),
        cls="rq-rt-label",
        role="since",
        title=title,
    )]  # fmt: skip


def _bar_marks(
    vm: TimelineModel, g: Grid, delivered: list[Mark], end: Mark | None, *, key: str, by: float, origin: int
) -> list[SceneMark]:
    """The proportional bar: the same deliveries (and the end) to scale on the shared absolute axis."""
    marks = [
        SceneMark("line", f"{key}:bar", x=LEFT_W, y=by, x2=LEFT_W + g.plot_w, y2=by, cls="rq-rt-bar", role="bar"),
        SceneMark("text", f"{key}:bar:t", x=8, y=by + 4, text=_("to scale ▸"), cls="rq-muted rq-rt-label"),
    ]
    for m in delivered:
        fill, _result = token_fill(vm, m.lane, m.delivery)
        tx = g.abs_x(m.t_ms + origin)
        marks.append(
            SceneMark(
                "line",
                f"{key}:t{m.delivery}",
                x=tx,
                y=by - 5,
                x2=tx,
                y2=by + 5,
                cls=_TICK_CLASS.get(fill, "rq-rt-tick"),
                role="tick",
                title=_("delivery {n} at {time}").format(n=m.delivery, time=format_duration(m.t_ms + origin)),
            )
        )
    if end is not None:
        tx = g.abs_x(end.t_ms + origin)
        title = _("{what} at {time}").format(what=end.label, time=format_duration(end.t_ms + origin))
        marks.append(
            SceneMark(
                "rect", f"{key}:tend", x=tx - 3, y=by - 3, w=6, h=6, cls="rq-rt-dlq", role="tick-end", title=title
            )
        )
    return marks


def _lane_state(vm: TimelineModel, lane: int, n: int, end: Mark | None, pending: Wait | None) -> str:
    """The row's last word: where the message is now."""
    if end is not None:
        return "→ %DLQ%" if end.kind == "dead_lettered" else _("✗ dropped (BROADCASTING)")
    if pending is not None:
        return _("waiting {level}").format(level=wait_label(pending).split(" · ")[0])
    if n == 0:
        return _("stored, not delivered yet")
    fill, _result = token_fill(vm, lane, n)
    if fill == MARKS["consumed_ok"][1]:
        return _("✓ consumed (delivery {n})").format(n=n)
    if fill == MARKS["delivered"][1]:
        return _("in the listener")
    return _("✗ failed ({n} deliveries)").format(n=n)
