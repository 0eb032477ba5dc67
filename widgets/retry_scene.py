"""Drawing the retry timeline: the legend, one row per message (:mod:`widgets.retry_rows`), the shared absolute
axis under them and the now line through every bar."""

from __future__ import annotations

from rmqlab import format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

from .legend import legend_marks
from .palette import OKABE_ITO
from .retry_grid import HEADER_H, LABEL_PX, LEFT_W, LEGEND_H, RIGHT_PAD, ROW_H, SCOPE, Grid, timeline_grid
from .retry_model import TimelineModel, message_count
from .retry_rows import lane_marks
from .scene import Mark as SceneMark
from .scene import Scene
from .ticks import tick_step, tick_times

__all__ = ["CSS", "LEGEND", "retry_timeline_scene"]


def _css() -> str:
    o = OKABE_ITO
    return f"""
{SCOPE} .rq-rt-label {{ font-size: {LABEL_PX}px; }}
{SCOPE} .rq-rt-wait {{ stroke: {o["reddish_purple"]}; stroke-width: 3; }}
{SCOPE} .rq-rt-local {{ stroke: {o["orange"]}; stroke-width: 3; }}
{SCOPE} .rq-rt-pending {{ stroke: {o["reddish_purple"]}; stroke-width: 2; stroke-dasharray: 5 3; }}
{SCOPE} .rq-rt-link {{ stroke: var(--jp-ui-font-color2, #616161); stroke-width: 1.5; }}
{SCOPE} .rq-rt-due {{ fill: none; stroke: {o["reddish_purple"]}; stroke-width: 2; stroke-dasharray: 3 2; }}
{SCOPE} .rq-rt-dlq {{ fill: var(--jp-ui-font-color1, #1f1f1f); stroke: none; }}
{SCOPE} text.rq-rt-dlq-text {{ fill: var(--jp-layout-color0, #ffffff); font-size: 11px; font-weight: 700; }}
{SCOPE} .rq-rt-dropped {{ fill: none; stroke: {o["vermillion"]}; stroke-width: 2; }}
{SCOPE} .rq-rt-bar {{ stroke: var(--jp-border-color2, #c7c7c7); stroke-width: 3; }}
{SCOPE} .rq-rt-tick {{ stroke: var(--jp-ui-font-color1, #1f1f1f); stroke-width: 1.5; }}
{SCOPE} .rq-rt-tick-fail {{ stroke: {o["vermillion"]}; stroke-width: 1.5; }}
{SCOPE} .rq-rt-tick-ok {{ stroke: {o["bluish_green"]}; stroke-width: 2; }}
{SCOPE} .rq-rt-now {{ stroke: var(--jp-brand-color1, #1976d2); stroke-width: 2; }}
{SCOPE} text.rq-rt-now-text {{ fill: var(--jp-brand-color1, #1976d2); font-weight: 600; }}
"""


CSS = _css()
LEGEND: tuple[tuple[str, str, str], ...] = (
    ("token", OKABE_ITO["vermillion"], N_("delivery n: failed")),
    ("token", OKABE_ITO["bluish_green"], N_("delivery n: consumed")),
    ("token", OKABE_ITO["yellow"], N_("in the listener")),
    ("line", "rq-rt-wait", N_("wait: delay level · duration")),
    ("line", "rq-rt-pending", N_("waiting now (due …)")),
    ("rect", "rq-rt-dlq", N_("written to %DLQ%")),
    ("line", "rq-rt-tick", N_("to scale: real time")),
    ("line", "rq-rt-now", N_("now")),
)


def retry_timeline_scene(vm: TimelineModel) -> Scene:
    """The timeline as a Scene (rows, the shared absolute axis, the now line, a legend)."""
    g = timeline_grid(vm)
    width = int(max(LEFT_W + g.plot_w + RIGHT_PAD, LEFT_W + 4 * 170))
    top = LEGEND_H + HEADER_H
    marks: list[SceneMark] = []
    for col in range(4):
        items = LEGEND[2 * col : 2 * col + 2]
        marks.extend(legend_marks(items, x=LEFT_W + 170 * col, y=10, key=f"legend{col}", gap=18))
    title = _("deliveries, one column each (not to scale) · under each: time since first stored")
    marks.append(SceneMark("text", "axis:title", x=LEFT_W, y=top - 12, text=title, cls="rq-muted rq-rt-label"))
    for lane in range(len(vm.lanes)):
        marks.extend(lane_marks(vm, g, lane, y=top + lane * ROW_H + 32))
    bars_top = top + 32 + 46 - 6 if vm.lanes else top  # from the first row's bar down
    ay = top + len(vm.lanes) * ROW_H + 10
    marks.extend(_axis_marks(vm, g, ay=ay, bars_top=bars_top, width=width))
    height = int(ay + 40)
    label = f"Retry timeline: {message_count(len(set(vm.lane_msgs)))}, now {format_duration(vm.now_ms)}"
    extra = (("now-ms", str(vm.now_ms)), ("position", str(vm.position)), ("lanes", str(len(vm.lanes))))
    return Scene(width, height, tuple(marks), label=label, testid="rq-retry-timeline", css=CSS, extra=extra)


def _axis_marks(vm: TimelineModel, g: Grid, *, ay: float, bars_top: float, width: int) -> list[SceneMark]:
    """The shared absolute axis under the rows, its ticks, the now line through every bar, and how many
    messages are not shown."""
    marks = [SceneMark("line", "axis", x=LEFT_W, y=ay, x2=LEFT_W + g.plot_w, y2=ay, cls="rq-axis", role="axis")]
    step = tick_step(g.span_ms, width_px=g.plot_w, min_gap_px=90)  # time labels about 90 px apart
    for t in tick_times(g.span_ms, step):
        x = g.abs_x(t)
        marks.append(SceneMark("line", f"axis:{t}", x=x, y=ay, x2=x, y2=ay + 4, cls="rq-axis"))
        marks.append(
            SceneMark(
                "text",
                f"axis:{t}:t",
                x=x,
                y=ay + 15,
                text=format_duration(t),
                anchor="middle",
                cls="rq-muted rq-rt-label",
                role="axis-tick",
            )
        )
    marks.append(
        SceneMark(
            "text", "axis:abs", x=8, y=ay + 4, text=_("virtual time"), cls="rq-muted rq-rt-label", role="axis-title"
        )
    )
    nx = g.abs_x(vm.now_ms)
    now_title = _("now: {time} (position {position})").format(time=format_duration(vm.now_ms), position=vm.position)
    marks.append(
        SceneMark("line", "now", x=nx, y=bars_top, x2=nx, y2=ay + 20, cls="rq-rt-now", role="now", title=now_title)
    )
    marks.append(
        SceneMark(
            "text",
            "now:t",
            x=nx,
            y=ay + 31,
            text=_("now {time}").format(time=format_duration(vm.now_ms)),
            anchor="end" if nx > width / 2 else "start",
            cls="rq-rt-now-text rq-rt-label",
            role="now-label",
        )
    )
    if vm.hidden:
        hidden = f"+{message_count(vm.hidden)} not shown"
        marks.append(SceneMark("text", "hidden", x=8, y=ay + 31, text=hidden, cls="rq-muted rq-rt-label"))
    return marks
