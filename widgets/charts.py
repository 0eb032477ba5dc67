"""Whole-run charts: plain ``plotly.graph_objects`` figures of the data :mod:`widgets.chart_data` computes.

Where a question is about the whole run rather than one step — consumer lag per queue over time, deliveries per
message, time to the DLQ as ``maxReconsumeTimes`` grows, what a storm of faults did — a chart answers it at a
glance::

    from rmqlab.widgets.charts import lag_chart, deliveries_chart, time_to_dlq_chart, summary_chart
    lag_chart(lab)                                   # every group's lag on every queue, step by step in time
    deliveries_chart(lab, labels={"M0003": "bad-card"})
    time_to_dlq_chart(time_to_dlq(failing_lab, [0, 2, 4, 8, 16, 20]))
    summary_chart(lab)                               # cumulative flow, with faults and crashes marked

The figures are plain ``go.Figure`` s (no FigureWidget, no kernel round trip), so they render in JupyterLab,
Voila and JupyterLite (plotly's own renderer extension) and, as HTML, in nbconvert and the docs site. Each is a
:class:`RunChart`, a ``go.Figure`` that shows itself the same way in every run: the plotly JSON for JupyterLab, and
HTML whose ``div`` id is a hash of the figure (plotly picks a random one), so nbval compares chart outputs like any
other. It builds that output itself rather than through plotly's renderer registry, which imports nbformat and,
through jsonschema, a URI grammar that takes a second and a half to build in every kernel that draws a chart. The
HTML loads plotly.js from its CDN; ``docs/build_docs.py`` serves a local copy instead.

Colours: Okabe–Ito (colour-blind safe), and never colour alone: each line also has its own dash and marker,
each bar outcome its own pattern. Two templates: ``rmqlab`` (a white card, readable on a light or a dark
notebook) and ``rmqlab_dark`` (``theme="dark"``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Literal

import plotly.graph_objects as go  # type: ignore[import-untyped]
import plotly.io as pio  # type: ignore[import-untyped]

from rmqlab import Lab, Trace, format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

from .chart_data import (
    DlqPoint,
    consumer_lag,
    deliveries_per_message,
    run_markers,
    run_summary,
)
from .palette import OKABE_ITO

__all__ = ["ChartTheme", "deliveries_chart", "lag_chart", "summary_chart", "time_to_dlq_chart"]

ChartTheme = Literal["light", "dark"]
COLOURS = [OKABE_ITO[k] for k in ("blue", "orange", "bluish_green", "vermillion", "reddish_purple", "sky_blue")]
MARKERS_UP_TO = 40
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star")
OUTCOME_STYLE = {  # colour, bar pattern: consumed plain green, DLQ red with crosses, dropped purple, in flight orange
    N_("consumed"): (OKABE_ITO["bluish_green"], ""),
    N_("dead-lettered"): (OKABE_ITO["vermillion"], "x"),
    N_("dropped"): (OKABE_ITO["reddish_purple"], "/"),
    N_("in flight"): (OKABE_ITO["orange"], "."),
    N_("waiting"): (OKABE_ITO["sky_blue"], "-"),
}
"""Each outcome of :func:`~widgets.chart_data.deliveries_per_message` (its English name, a key) and its style; the
legend shows the name in the current language."""
LAG_TITLE = N_("Consumer lag per queue (max offset − committed offset)")
DELIVERIES_TITLE = N_("Deliveries per message, and how each ended")
DLQ_TITLE = N_("Time to the DLQ against maxReconsumeTimes")
SUMMARY_TITLE = N_("The run at a glance: cumulative counts")
"""The charts' default titles. Every word a chart shows (titles, axes, legend, hover) is in the language of the
moment it is drawn (:func:`rmqlab.set_language`); a default title is translated, a caller's own title is kept."""


def _template(dark: bool) -> go.layout.Template:
    ink, paper, grid = ("#e8e8e8", "#111111", "#3a3a3a") if dark else ("#1f1f1f", "#ffffff", "#e3e3e3")
    axis = {"gridcolor": grid, "linecolor": grid, "zerolinecolor": grid, "ticks": "outside", "tickcolor": grid}
    return go.layout.Template(
        layout={
            "font": {"family": "system-ui, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif", "size": 13, "color": ink},
            "paper_bgcolor": paper,
            "plot_bgcolor": paper,
            "colorway": COLOURS,
            "xaxis": axis,
            "yaxis": axis,
            "margin": {"l": 70, "r": 30, "t": 60, "b": 60},
            "legend": {"bgcolor": "rgba(0,0,0,0)"},
            "hoverlabel": {"font": {"size": 12}},
        }
    )


pio.templates["rmqlab"] = _template(dark=False)
pio.templates["rmqlab_dark"] = _template(dark=True)


def chart_bundle(fig_dict: dict[str, Any]) -> dict[str, Any]:
    """plotly's JSON (JupyterLab, Voila, JupyterLite draw it) plus HTML for pages without the extension
    (nbconvert, the docs site), both the same bytes for the same figure."""
    data = json.loads(pio.to_json(fig_dict, validate=False))
    digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:12]
    page = pio.to_html(fig_dict, include_plotlyjs="cdn", full_html=False, div_id=f"rmqlab-chart-{digest}",
                       default_width="100%", default_height=420, validate=False)  # fmt: skip
    return {"application/vnd.plotly.v1+json": {**data, "config": {"displaylogo": False}}, "text/html": page}


class RunChart(go.Figure):  # type: ignore[misc]
    """A plain ``go.Figure`` (every plotly method works on it) that a notebook shows as :func:`chart_bundle`.

    Only display changes: ``fig.show()`` still goes through plotly's renderers, as for any figure."""

    def _repr_mimebundle_(self, include: object = None, exclude: object = None, **kwargs: object) -> dict[str, Any]:
        return chart_bundle(self.to_dict())

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)  # type: ignore[no-untyped-call]


def _trace_of(run: Lab | Trace) -> Trace:
    if isinstance(run, Lab):
        return run.trace
    if isinstance(run, Trace):
        return run
    raise TypeError(f"run={type(run).__name__}: must be a Lab or its Trace")


def _until(run: Lab | Trace, until_ms: int | None) -> int | None:
    """Where the lines end: ``until_ms``, else a Lab's clock (it ran to there), else the trace's last event."""
    return until_ms if until_ms is not None or not isinstance(run, Lab) else run.now


def _figure(title: str, x: str, y: str, theme: ChartTheme) -> go.Figure:
    """An empty figure in the theme; ``title`` translated when it is one of the default titles (else kept)."""
    if theme not in ("light", "dark"):
        raise ValueError(f"theme={theme!r}: must be 'light' or 'dark'")
    fig = RunChart()
    fig.update_layout(template=pio.templates["rmqlab_dark" if theme == "dark" else "rmqlab"], title=_(title),
                      xaxis_title=x, yaxis_title=y, height=420)  # fmt: skip
    return fig


def _seconds(ms: int) -> float:
    return ms / 1000


def lag_chart(run: Lab | Trace, *, until_ms: int | None = None, client: bool = True, theme: ChartTheme = "light",
              title: str = LAG_TITLE) -> go.Figure:  # fmt: skip
    """Lag per group and queue over virtual time (:func:`~widgets.chart_data.consumer_lag`): a solid step line
    for the broker's copy of the offset (``mqadmin consumerProgress``'s Diff), and with ``client`` a dotted one
    for the client's in-memory copy. A queue whose lag stays 0 all run starts hidden (click its legend entry)."""
    fig = _figure(title, _("virtual time (s)"), _("messages behind"), theme)
    broker_copy, client_copy = _("{series} (broker's offset)"), _("{series} (client's offset)")
    for i, series in enumerate(consumer_lag(_trace_of(run), until_ms=_until(run, until_ms))):
        xs = [_seconds(p.time_ms) for p in series.points]
        idle = all(p.lag == 0 and p.client_lag == 0 for p in series.points)
        name = f"{series.owner} · {series.queue}"
        colour, symbol = COLOURS[i % len(COLOURS)], SYMBOLS[i % len(SYMBOLS)]
        hover = [_("t = {time}<br>max offset {max_offset}, committed {committed} (client {client})").format(
            time=format_duration(p.time_ms), max_offset=p.max_offset, committed=p.committed, client=p.client
        ) for p in series.points]  # fmt: skip
        fig.add_scatter(x=xs, y=[p.lag for p in series.points], name=broker_copy.format(series=name), mode=_mode(xs),
                        line={"shape": "hv", "color": colour, "width": 2.5}, marker={"symbol": symbol, "size": 7},
                        hovertext=hover, hoverinfo="text+name", visible="legendonly" if idle else True)  # fmt: skip
        if client:
            fig.add_scatter(x=xs, y=[p.client_lag for p in series.points], name=client_copy.format(series=name),
                            mode="lines", line={"shape": "hv", "color": colour, "dash": "dot", "width": 2},
                            hovertext=hover, hoverinfo="text+name", visible="legendonly" if idle else True)  # fmt: skip
    fig.update_yaxes(rangemode="tozero", dtick=1 if _small(fig) else None)
    fig.update_layout(legend={"orientation": "h", "y": -0.28}, margin={"b": 100})
    return fig


def _small(fig: go.Figure) -> bool:
    """Every y value below 12: integer ticks read better than plotly's 0.5 steps."""
    return all(max(t.y or (0,)) < 12 for t in fig.data)


def deliveries_chart(run: Lab | Trace, *, labels: dict[str, str] | None = None, theme: ChartTheme = "light",
                     title: str = DELIVERIES_TITLE) -> go.Figure:  # fmt: skip
    """One bar per (message, group) (:func:`~widgets.chart_data.deliveries_per_message`), its height the number
    of times a listener was handed the message, its colour and pattern the outcome."""
    rows = deliveries_per_message(_trace_of(run), labels=labels)
    many = len({r.group for r in rows}) > 1
    fig = _figure(title, _("message · group") if many else _("message"), _("deliveries"), theme)
    hover = _("{msg_id} ({group}): {n} deliveries, {outcome}")
    for outcome, (colour, pattern) in OUTCOME_STYLE.items():
        mine = [r for r in rows if r.outcome == outcome]
        if mine:
            fig.add_bar(x=[f"{r.label} · {r.group}" if many else r.label for r in mine],
                        y=[r.deliveries for r in mine], name=_(outcome), text=[r.deliveries for r in mine],
                        textposition="outside", marker={"color": colour, "pattern": {"shape": pattern}},
                        hovertext=[hover.format(msg_id=r.msg_id, group=r.group, n=r.deliveries, outcome=_(r.outcome))
                                   for r in mine],
                        hoverinfo="text")  # fmt: skip
    order = [f"{r.label} · {r.group}" if many else r.label for r in rows]
    fig.update_xaxes(categoryorder="array", categoryarray=order, type="category")
    fig.update_yaxes(rangemode="tozero", dtick=1 if _small(fig) else None)
    return fig


def time_to_dlq_chart(points: Sequence[DlqPoint], *, theme: ChartTheme = "light",
                      title: str = DLQ_TITLE) -> go.Figure:  # fmt: skip
    """When the message reached ``%DLQ%`` (hours of virtual time) for each ``maxReconsumeTimes`` tried
    (:func:`~widgets.chart_data.time_to_dlq`), each point labelled with its time and number of deliveries."""
    if not points:
        raise ValueError("points=[]: pass what time_to_dlq(...) returned (at least one run)")
    fig = _figure(title, "maxReconsumeTimes", _("virtual time to %DLQ% (hours)"), theme)
    reached = [p for p in points if p.dlq_ms is not None]
    label_from = max((p.dlq_ms or 0) for p in reached) / 25 if reached else 0  # lower ones would overlap: hover
    fig.add_scatter(x=[p.max_reconsume_times for p in reached], y=[(p.dlq_ms or 0) / 3_600_000 for p in reached],
                    mode="lines+markers+text", name=_("dead-lettered"), line={"color": OKABE_ITO["vermillion"]},
                    marker={"size": 9, "symbol": "x"}, textposition="top left",
                    text=[f"{format_duration(p.dlq_ms or 0)} · {p.deliveries}×" if (p.dlq_ms or 0) >= label_from
                          else "" for p in reached],
                    hovertext=[_("max {max}: DLQ at {time} ({ms} ms) after {n} deliveries").format(
                        max=p.max_reconsume_times, time=format_duration(p.dlq_ms or 0), ms=p.dlq_ms, n=p.deliveries
                    ) for p in reached], hoverinfo="text")  # fmt: skip
    never = [p for p in points if p.dlq_ms is None]
    if never:
        fig.add_scatter(x=[p.max_reconsume_times for p in never], y=[0] * len(never), mode="markers+text",
                        name=_("not dead-lettered by the horizon"), text=[_("still retrying")] * len(never),
                        marker={"size": 9, "symbol": "circle-open", "color": OKABE_ITO["blue"]})  # fmt: skip
    fig.update_xaxes(tickmode="array", tickvals=[p.max_reconsume_times for p in points])
    fig.update_yaxes(rangemode="tozero")
    fig.update_layout(showlegend=bool(never))
    return fig


def summary_chart(run: Lab | Trace, *, until_ms: int | None = None, theme: ChartTheme = "light", log_y: bool = False,
                  title: str = SUMMARY_TITLE) -> go.Figure:  # fmt: skip
    """Cumulative counts over virtual time (:func:`~widgets.chart_data.run_summary`: new messages stored,
    deliveries, consumed, failed deliveries, dead-lettered, send failures), with a dashed rule at each injected
    fault and consumer crash or restart (:func:`~widgets.chart_data.run_markers`): a storm or a capstone
    scenario in one picture. ``log_y``: a logarithmic count axis, so a count of 2 stays visible beside 600
    (a log axis leaves out the zeros)."""
    trace = _trace_of(run)
    counts = _("events so far (log scale)") if log_y else _("events so far")
    fig = _figure(title, _("virtual time (s)"), counts, theme)
    for i, series in enumerate(run_summary(trace, until_ms=_until(run, until_ms))):
        fig.add_scatter(x=[_seconds(t) for t, _n in series.points], y=[n for _t, n in series.points],
                        name=_(series.name), mode=_mode(series.points),
                        line={"shape": "hv", "dash": DASHES[i % len(DASHES)], "width": 2.5},
                        marker={"symbol": SYMBOLS[i % len(SYMBOLS)], "size": 7})  # fmt: skip
    for k, marker in enumerate(run_markers(trace)):
        fig.add_vline(x=_seconds(marker.time_ms), line={"dash": "dash", "color": "#888888", "width": 1})
        fig.add_annotation(x=_seconds(marker.time_ms), y=1.0 - 0.07 * (k % 3), yref="paper", text=marker.label,
                           showarrow=False, xanchor="left", font={"size": 11})  # fmt: skip
    if log_y:
        fig.update_yaxes(type="log")
    else:
        fig.update_yaxes(rangemode="tozero")
    fig.update_layout(legend={"orientation": "h", "y": -0.28}, margin={"b": 100})
    return fig


def _mode(points: Sequence[Any]) -> str:
    """Markers on each change only while they stay apart; a long series is a line."""
    return "lines+markers" if len(points) <= MARKERS_UP_TO else "lines"
