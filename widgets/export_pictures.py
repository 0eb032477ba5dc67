"""What an export draws: a view's picture, a dashboard's pictures in order, and the event table as a picture.

Every export shows the *static* drawing the views already make (:meth:`Scene.to_svg`), so it shows exactly what the
notebook shows. The event log is a table, not a Scene; :func:`event_log_scene` lays it out as one (columns as wide as
their widest cell) so it can be an SVG or a PNG too. Kept apart from the file formats, which all start here.
"""

from __future__ import annotations

import re
from typing import Any

from rmqlab import format_duration
from rmqlab.core.i18n import gettext as _

from .dashboard import Dashboard
from .event_log import CURRENT_STYLE, EventLog, EventLogModel
from .export_theme import ExportError
from .scene import Mark, Scene, SceneView, text_width

__all__ = ["EVENT_COLUMNS", "event_log_scene", "export_scenes", "view_scene"]


def export_scenes(view: Any) -> list[tuple[str, Scene]]:
    """The pictures of ``view`` as ``(title, Scene)``: one for a view, every view in dashboard order for a
    Dashboard (the main picture, then the tabs). The event log, which is a table, is drawn as one
    (:func:`event_log_scene`) so it can be an SVG too.
    """
    if isinstance(view, Scene):
        return [(view.label or view.testid, view)]
    if isinstance(view, Dashboard):
        views = ([view.main_view] if view.main_view is not None else []) + view.tab_views
        return [(_(v.title), view_scene(v)) for v in views]
    if isinstance(view, SceneView | EventLog):
        return [(_(view.title), view_scene(view))]
    raise TypeError(_wrong_type(view))


def _wrong_type(view: Any) -> str:
    return (
        f"view={type(view).__name__}: must be a Dashboard, one of its views (FlowView, SpaceTimeView, "
        f"OffsetStripView, LeaseView, RetryTimeline, TopologyView, EventLog) or a Scene"
    )


def view_scene(view: Any) -> Scene:
    if view.vm is None:
        raise ExportError(
            f"{type(view).__name__} ({view.title!r}) has drawn nothing yet: show it on a lab first "
            "(a Dashboard does; alone: view.update(take_snapshot(lab)))"
        )
    if isinstance(view, EventLog):
        return event_log_scene(view.vm)
    assert isinstance(view, SceneView) and view.current is not None
    return view.current


EVENT_COLUMNS = ("#", "time", "kind", "actor", "msg", "details")
"""The table's columns: each cell's key (``row:<seq>:time``); their headings are these words translated."""


def event_log_scene(vm: EventLogModel, *, px: float = 11.0) -> Scene:
    """The event table as a Scene: one text mark per cell (key ``row:<seq>:<column>``, role ``event-row``),
    the current row bold with an outline, as the live table draws it. Columns are as wide as their widest cell
    (:func:`text_width`), so the SVG needs no browser to lay itself out."""
    header = tuple(_(c) if c != "#" else c for c in EVENT_COLUMNS)
    cells = [(r, (str(r.seq), format_duration(r.time_ms), r.kind, r.actor, r.msg_id, r.details)) for r in vm.rows]
    widths = [
        max([text_width(h, px, bold=True)] + [text_width(c[i], px, bold=r.current) for r, c in cells]) + 12
        for i, h in enumerate(header)
    ]
    xs = [8.0]
    for w in widths[:-1]:
        xs.append(xs[-1] + w)
    row_h, top = 16.0, 18.0
    summary = _("{matched} of {total} events").format(matched=vm.matched, total=vm.total)
    marks: list[Mark] = [Mark("text", "summary", x=8, y=top - 4, text=summary, cls="rq-muted")]
    y = top + row_h
    for i, h in enumerate(header):
        marks.append(Mark("text", f"head:{i}", x=xs[i], y=y - 4, text=h, cls="rq-title", role="event-head"))
    for r, c in cells:
        y += row_h
        if r.current:
            outline = "rq-current-row"
            marks.append(Mark("rect", f"row:{r.seq}:outline", x=4, y=y - row_h + 2, w=sum(widths) + 8, h=row_h,
                              cls=outline, role="event-current"))  # fmt: skip
        for i, text in enumerate(c):
            marks.append(Mark("text", f"row:{r.seq}:{EVENT_COLUMNS[i]}", x=xs[i], y=y - 4, text=text,
                              cls="rq-title" if r.current else "", role="event-row"))  # fmt: skip
    outline_colour = re.search(r"outline:\S+ \S+ (#[0-9A-Fa-f]{6})", CURRENT_STYLE)
    css = (
        '[data-testid="rq-event-log"] .rq-current-row { fill: none; stroke-width: 2; '
        f"stroke: {outline_colour.group(1) if outline_colour else 'currentColor'}; }}"
    )
    width = int(sum(widths) + 16)
    return Scene(width, int(y + 8), tuple(marks), label=f"{_('event log')}: {summary}",
                 testid="rq-event-log", css=css)  # fmt: skip
