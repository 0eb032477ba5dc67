"""Drawing the space-time diagram: lanes, the event-indexed time axis, one row per event, the now line."""

from __future__ import annotations

from rmqlab import format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

from .legend import legend_marks
from .palette import OKABE_ITO
from .scene import Mark, Scene, text_width
from .spacetime_axis import AXIS_W, now_marks, row_ys, time_axis
from .spacetime_model import BROKEN, ArrowKind, Row, SpaceTimeModel

__all__ = ["CSS", "LEGEND", "spacetime_scene"]

LANE_W = 172
"""A lane's width when the picture has room for it."""
MIN_LANE_W = 96
FIT_W = 860
"""The width every lane fits in (JupyterLab's output area is 868 px with the file browser open): with more lanes than
fit at :data:`LANE_W`, each is narrower (down to :data:`MIN_LANE_W`), their titles and labels cut with an ellipsis."""
LEGEND_X = 8
LEGEND_COL_W = 168


def lane_width(lanes: int) -> float:
    """How wide each of ``lanes`` lanes is drawn: :data:`LANE_W`, or less, so that all of them fit :data:`FIT_W`."""
    return min(LANE_W, max(MIN_LANE_W, (FIT_W - 24 - AXIS_W) / max(lanes, 1)))


LEGEND_H = 52
HEADER_H = 40
FONT_PX = 11
LABEL_PX = 11


def _fit(text: str, max_px: float, px: float) -> str:
    """``text`` cut to ``max_px`` with an ellipsis (the tooltip keeps the whole)."""
    if text_width(text, px) <= max_px:
        return text
    while text and text_width(text + "…", px) > max_px:
        text = text[:-1]
    return text.rstrip() + "…"


SCOPE = '[data-testid="rq-spacetime"]'
"""The CSS scope: the scene's root carries this test id, so the rules touch this picture only."""


def _css() -> str:
    o = OKABE_ITO
    dark = f'body[data-jp-theme-light="false"] {SCOPE}'
    return f"""
{SCOPE} .rq-st-label {{ font-size: {LABEL_PX}px; }}
{SCOPE} text.rq-st-fail-text {{ fill: var(--jp-error-color1, #c62828); }}
{SCOPE} .rq-st-lifeline {{ stroke: var(--jp-border-color1, #9e9e9e); stroke-width: 1; }}
{SCOPE} .rq-st-down {{ stroke: {o["vermillion"]}; stroke-width: 3; stroke-dasharray: 4 3; }}
{SCOPE} .rq-st-crashed {{ stroke: {o["vermillion"]}; stroke-width: 3; stroke-dasharray: 1 3; }}
{SCOPE} .rq-st-active {{ fill: var(--jp-layout-color3, #bdbdbd); stroke: var(--jp-border-color1, #9e9e9e); }}
{SCOPE} .rq-st-band {{ fill: var(--jp-layout-color2, #eeeeee); }}
{SCOPE} .rq-st-send {{ stroke: {o["blue"]}; stroke-width: 1.6; }}
{dark} .rq-st-send {{ stroke: {o["sky_blue"]}; }}
{SCOPE} .rq-st-response {{ stroke: {o["blue"]}; stroke-width: 1.2; stroke-dasharray: 6 3; }}
{dark} .rq-st-response {{ stroke: {o["sky_blue"]}; }}
{SCOPE} .rq-st-pull {{ stroke: {o["bluish_green"]}; stroke-width: 1.6; }}
{SCOPE} .rq-st-send-back {{ stroke: {o["orange"]}; stroke-width: 1.6; stroke-dasharray: 7 3; }}
{SCOPE} .rq-st-schedule, {SCOPE} .rq-st-due {{ stroke: {o["reddish_purple"]}; stroke-width: 1.6;
  stroke-dasharray: 2 3; }}
{SCOPE} .rq-st-dlq {{ stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-width: 2.6; }}
{SCOPE} .rq-st-lock {{ stroke: var(--jp-ui-font-color3, #9e9e9e); stroke-width: 1; stroke-dasharray: 1 3; }}
{SCOPE} .rq-st-send-refused, {SCOPE} .rq-st-response-lost, {SCOPE} .rq-st-response-error,
{SCOPE} .rq-st-send-back-failed, {SCOPE} .rq-st-lock-refused {{ stroke: {o["vermillion"]}; stroke-width: 1.6;
  stroke-dasharray: 4 2; }}
{SCOPE} .rq-st-cross {{ stroke: {o["vermillion"]}; stroke-width: 2; fill: none; }}
{SCOPE} circle.rq-st-dot {{ fill: var(--jp-ui-font-color2, #616161); stroke: none; }}
{SCOPE} circle.rq-st-dot-ok {{ fill: {o["bluish_green"]}; stroke: none; }}
{SCOPE} circle.rq-st-dot-fail {{ fill: {o["vermillion"]}; stroke: none; }}
{SCOPE} circle.rq-st-dot-dlq {{ fill: var(--jp-ui-font-color1, #1f1f1f); stroke: none; }}
{SCOPE} .rq-st-now {{ stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2; }}
{SCOPE} text.rq-st-now-text {{ fill: var(--jp-brand-color1, #1976d2); font-weight: 600; }}
"""


CSS = _css()
LEGEND: tuple[tuple[str, str, str], ...] = (
    ("line", "rq-st-send", N_("send (✓ SEND_OK)")),
    ("line", "rq-st-pull", N_("pull → listener")),
    ("line", "rq-st-send-back", N_("send-back")),
    ("line", "rq-st-schedule", N_("schedule hop / due")),
    ("line", "rq-st-dlq", N_("DLQ write")),
    ("line", "rq-st-lock", N_("lock / renew")),
    ("line", "rq-st-send-refused", N_("failed (✗ refused, lost)")),
    ("line", "rq-st-response", N_("late response")),
    ("line", "rq-st-down", N_("broker down")),
    ("line", "rq-st-now", N_("now")),
)
"""Every glyph the diagram uses, in two rows of the legend strip."""


def _dot_class(r: Row) -> str:
    if r.failed or (r.kind is ArrowKind.FAULT and r.label.startswith("✗")):
        return "rq-st-dot-fail"
    if r.kind is ArrowKind.DLQ:
        return "rq-st-dot-dlq"
    if "✓" in r.label:
        return "rq-st-dot-ok"
    return "rq-st-dot"


def spacetime_scene(vm: SpaceTimeModel, *, max_rows: int | None = None) -> Scene:
    """The diagram as a Scene: the last ``max_rows`` rows (all when None) above the "now" line."""
    lane_w = lane_width(len(vm.lanes))
    xs = {lane.id: AXIS_W + lane_w * (i + 0.5) for i, lane in enumerate(vm.lanes)}
    lanes_right = AXIS_W + lane_w * len(vm.lanes)
    legend_cols = (len(LEGEND) + 1) // 2
    width = int(max(lanes_right + 24, LEGEND_X + legend_cols * LEGEND_COL_W))
    rows = vm.rows if max_rows is None or len(vm.rows) <= max_rows else vm.rows[-max_rows:]
    hidden = len(vm.rows) - len(rows)
    top = LEGEND_H + HEADER_H + 10
    marks = _header(vm, xs, legend_cols=legend_cols, top=top, hidden=hidden, lane_w=lane_w)
    ys, breaks, now_y = row_ys(vm, rows, top)
    bottom = now_y + 18
    height = int(bottom + 8)
    marks.extend(_lifelines_and_spans(vm, xs, ys, top=top, bottom=bottom, now_y=now_y))
    marks.extend(time_axis(rows, ys, breaks, top=top, bottom=bottom))
    for r in rows:
        marks.extend(_row_marks(r, xs, ys[r.seq], width, lane_w))
    marks.extend(now_marks(vm, now_y=now_y, lanes_right=lanes_right))
    label = (
        f"Space-time diagram: {len(vm.lanes)} actors, {len(vm.rows)} events up to "
        f"{format_duration(vm.now_ms)} (position {vm.position})"
    )
    extra = (
        ("now-ms", str(vm.now_ms)),
        ("position", str(vm.position)),
        ("rows", str(len(rows))),
        ("hidden-rows", str(hidden)),
        ("axis", "event-indexed"),
    )
    return Scene(width, height, tuple(marks), label=label, testid="rq-spacetime", css=CSS, extra=extra)


def _header(
    vm: SpaceTimeModel, xs: dict[str, float], *, legend_cols: int, top: float, hidden: int, lane_w: float
) -> list[Mark]:
    """The legend strip, a title and subtitle over each lane, and the time axis' title."""
    marks: list[Mark] = []
    for col in range(legend_cols):
        items = LEGEND[2 * col : 2 * col + 2]
        marks.extend(legend_marks(items, x=LEGEND_X + LEGEND_COL_W * col, y=12, key=f"legend{col}", gap=18))
    head_y = LEGEND_H + 14
    for lane in vm.lanes:
        x = xs[lane.id]
        title = _fit(lane.title, lane_w - 8, 12)
        marks.append(
            Mark(
                "text",
                f"lane:{lane.id}:title",
                x=x,
                y=head_y,
                text=title,
                anchor="middle",
                cls="rq-title",
                role="lane",
                title=lane.id,
            )
        )
        marks.append(
            Mark(
                "text",
                f"lane:{lane.id}:sub",
                x=x,
                y=head_y + 14,
                text=_fit(lane.subtitle, lane_w - 8, LABEL_PX),
                anchor="middle",
                cls="rq-muted rq-st-label",
                role="lane-subtitle",
            )
        )
    axis_title = _("virtual time ↓ · event-indexed: one row per event, not to scale")
    marks.append(
        Mark(
            "text",
            "axis:title",
            x=4,
            y=top - 4,
            text=axis_title if not hidden else _("{axis} · ⋮ {n} earlier rows").format(axis=axis_title, n=hidden),
            cls="rq-muted rq-st-label",
            role="axis-title",
        )
    )
    return marks


def _lifelines_and_spans(
    vm: SpaceTimeModel, xs: dict[str, float], ys: dict[int, float], *, top: float, bottom: float, now_y: float
) -> list[Mark]:
    """A lifeline per lane, then the spans on them (a listener's run as a bar, waits and locks as lines)."""
    marks = [
        Mark(
            "line",
            f"life:{lane.id}",
            x=xs[lane.id],
            y=top,
            x2=xs[lane.id],
            y2=bottom,
            cls="rq-st-lifeline",
            role="lifeline",
        )
        for lane in vm.lanes
    ]
    for s in vm.spans:
        if s.lane not in xs:
            continue
        y1 = ys.get(s.start_seq, top)
        y2 = ys.get(s.end_seq, now_y) if s.end_seq is not None else now_y
        if s.end_seq is not None and s.end_seq not in ys and s.start_seq not in ys:
            continue  # entirely above the window
        x = xs[s.lane]
        key = f"span:{s.start_seq}:{s.lane}"
        if s.kind == "listener":
            h = max(y2 - y1, 1)
            marks.append(Mark("rect", key, x=x - 3, y=y1, w=6, h=h, cls="rq-st-active", role="listener-span"))
        else:
            marks.append(Mark("line", key, x=x, y=y1, x2=x, y2=y2, cls=f"rq-st-{s.kind}", role=f"{s.kind}-span"))
    return marks


def _row_marks(r: Row, xs: dict[str, float], y: float, width: float, lane_w: float) -> list[Mark]:
    """One row: an arrow between two lanes, or a dot on one lane, each with its label."""
    text_cls = "rq-st-label" + (" rq-st-fail-text" if r.failed else "")
    if r.is_arrow and r.src != r.dst:
        return _arrow_marks(r, xs, y, width, text_cls, lane_w)
    return _dot_marks(r, xs[r.src], y, width, text_cls, lane_w)


def _arrow_marks(r: Row, xs: dict[str, float], y: float, width: float, text_cls: str, lane_w: float) -> list[Mark]:
    """An arrow ``src`` → ``dst`` (a broken one stops at 60 % under a ✗), its label centred over it."""
    key = f"row:{r.seq}"
    x1, x2 = xs[r.src], xs[r.dst]
    sign = 1 if x2 > x1 else -1
    x1 += 4 * sign
    end = x1 + (x2 - x1) * 0.6 if r.kind in BROKEN else x2 - 4 * sign
    marks = [
        Mark(
            "line",
            key,
            x=x1,
            y=y,
            x2=end,
            y2=y,
            cls=f"rq-st-{r.kind.value}",
            arrow=r.kind not in BROKEN,
            role=r.kind.value,
            title=r.detail,
        )
    ]
    if r.kind in BROKEN:  # a cross where the request / response stopped (a path: no text to collide)
        cross = f"M{end - 4:.1f},{y - 4:.1f} l8,8 M{end - 4:.1f},{y + 4:.1f} l8,-8"
        marks.append(Mark("path", f"{key}:x", d=cross, cls="rq-st-cross", role="broken"))
    lo, hi = min(x1, x2), max(x1, x2)
    room = max(hi - lo - 8, 2 * lane_w - 24)  # the row holds nothing else: a label may outgrow a short arrow
    text = _fit(r.label, room, LABEL_PX)
    w = text_width(text, LABEL_PX)
    mid = min(max((lo + hi) / 2, AXIS_W + w / 2 + 2), width - w / 2 - 2)
    marks.append(
        Mark(
            "text",
            f"{key}:label",
            x=mid,
            y=y - 5,
            text=text,
            anchor="middle",
            cls=text_cls,
            role="arrow-label",
            title=r.detail,
        )
    )
    return marks


def _dot_marks(r: Row, x: float, y: float, width: float, text_cls: str, lane_w: float) -> list[Mark]:
    """A dot on one lane, its label right of the line, or left for the last lane (room in the picture either
    way)."""
    key = f"row:{r.seq}"
    marks = [Mark("circle", key, x=x, y=y, r=4, cls=f"rq-st-dot {_dot_class(r)}", role=r.kind.value, title=r.detail)]
    text = _fit(r.label, lane_w * 2 - 24, LABEL_PX)
    right = x + 9 + text_width(text, LABEL_PX) <= width - 2
    marks.append(
        Mark(
            "text",
            f"{key}:label",
            x=x + 9 if right else x - 9,
            y=y + 4,
            text=text,
            anchor="start" if right else "end",
            cls=text_cls,
            role="dot-label",
            title=r.detail,
        )
    )
    return marks
