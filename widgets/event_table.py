"""The Events tab's table as plain JSON, drawn by ``scene.js`` in the kernel's widget and in the page alike.

:func:`event_table_json` turns an :class:`~widgets.event_log.EventLogModel` into what the page draws: a head
(the summary line "12 of 40 events", the column names and the table's accessible name, in the kernel's language)
and one keyed row per line of the table (key ``row:<seq>``, every field present). The same JSON is

* the kernel's picture (:class:`EventTableWidget`'s ``table``, while it shows a position that is no frame);
* one frame of the run's Events frames (:func:`event_frames`: every frame's table, delta-encoded by row key with
  :func:`widgets.frames.encode_json`, so a step sends only the rows that are new at that step, the fields that
  changed of the others — a folded row's count, the current-row mark — and the keys that scrolled away);
* the static HTML a page shows before its script runs (:func:`event_table_html`, the Python twin of
  ``scene.js``'s ``tableHtml``: the same elements, attributes and text).
"""

from __future__ import annotations

import html
import pathlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .checkpoint_mask import mask_model
from .frames import encode_json, one_build

if TYPE_CHECKING:
    from .event_log import EventLogModel, EventRowVM
    from .frames import RunFrames

__all__ = [
    "CURRENT_STYLE",
    "TABLE_CSS",
    "EventTableWidget",
    "event_frames",
    "event_table_html",
    "event_table_json",
    "row_json",
]

CURRENT_STYLE = "font-weight:bold;outline:2px solid #0072B2"
"""The current row is bold and outlined, not only coloured."""
TABLE_CSS = """
.rq-table { font-family: var(--jp-ui-font-family, sans-serif); color: var(--jp-ui-font-color1, #1f1f1f);
  overflow-x: auto; max-width: 100%; }
.rq-table table.rmq-events { border-collapse: collapse; }
.rq-table table.rmq-events th, .rq-table table.rmq-events td { padding: 1px 6px; text-align: left;
  vertical-align: top; border-bottom: 1px solid var(--jp-border-color2, #e0e0e0); }
.rq-table table.rmq-events td:nth-child(-n+5) { white-space: nowrap; }
"""
"""The table's rules, in the notebook (the widget's stylesheet) and in a static page. Only the details wrap: #,
time, kind, actor and msg never do (an actor read "schedule:broker-/a" over two lines)."""


def _headers() -> list[str]:
    return ["#", _("time"), _("kind"), _("actor"), _("msg"), _("details")]


def row_json(r: EventRowVM) -> dict[str, Any]:
    """One row: its key and every field, empty ones too (a field left out would travel in a frame's changes as
    ``None``, which a Pyodide kernel delivers as ``undefined``: tests/test_widget_messages.py)."""
    return {
        "key": f"row:{r.seq}",
        "seq": r.seq,
        "when": r.when,
        "kind": r.kind,
        "actor": r.actor,
        "msg": r.msg_id,
        "details": r.details,
        "repeats": r.repeats,
        "current": r.current,
    }


def event_table_json(vm: EventLogModel) -> dict[str, Any]:
    """The table the Events tab draws for ``vm`` (head + ``marks``: the rows, oldest first)."""
    return {
        "testid": "rq-event-log",
        "label": _("event log"),
        "summary": _("{matched} of {total} events").format(matched=vm.matched, total=vm.total),
        "headers": _headers(),
        "marks": [row_json(r) for r in vm.rows],
    }


def event_table_html(table: dict[str, Any]) -> str:
    """``table`` (:func:`event_table_json`, or a decoded frame) as the HTML ``scene.js`` draws for it."""
    esc = html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in table.get("headers", ()))
    body = []
    for r in table.get("marks", ()):
        current = bool(r.get("current"))
        repeats = f'<b data-role="repeats">{esc(r["repeats"])}</b>: ' if r.get("repeats") else ""
        body.append(
            f'<tr data-key="{esc(r["key"])}" class="{"current" if current else ""}" '
            f'style="{CURRENT_STYLE if current else ""}">'
            f'<td>{r["seq"]}</td><td style="white-space:nowrap">{esc(r.get("when", ""))}</td>'
            f"<td>{esc(r.get('kind', ''))}</td><td>{esc(r.get('actor', ''))}</td><td>{esc(r.get('msg', ''))}</td>"
            f"<td>{repeats}{esc(r.get('details', ''))}</td></tr>"
        )
    return (
        f'<div class="rq-table" data-testid="{esc(table.get("testid", "rq-event-log"))}">'
        f'<div class="rq-table-summary">{esc(table.get("summary", ""))}</div>'
        f'<table class="rmq-events" aria-label="{esc(table.get("label", ""))}" style="font-size:12px">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def event_frames(frames: RunFrames, models: Callable[[Sequence[LabSnapshot]], list[EventLogModel]]) -> dict[str, Any]:
    """The Events tab's table at every frame of ``frames``' run (``models``: the tab's view-models of the run's
    snapshots, with its filters), delta-encoded by row key; a checkpoint's paused frame masked as its caption is (a
    "when"'s ``retry_in_ms=1000`` reads ``retry_in_ms=?``)."""
    masks = frames.masks
    with one_build():
        return encode_json(
            event_table_json(mask_model(vm, masks.get(i))) for i, vm in enumerate(models(frames.snapshots))
        )


class EventTableWidget(anywidget.AnyWidget):
    """The Events tab's table, drawn by ``scene.js``: the kernel's :attr:`table`, or the frame its run's player
    shows (:attr:`frames`, when the page has them)."""

    _esm = pathlib.Path(__file__).with_name("scene.js")
    _css = TABLE_CSS
    kind = traitlets.Unicode("table").tag(sync=True)
    table = traitlets.Dict().tag(sync=True)
    """The kernel's table (:func:`event_table_json`)."""
    run = traitlets.Unicode("").tag(sync=True)
    """The run whose player moves this table in the page ("" : the kernel draws every step)."""
    frames = traitlets.Dict().tag(sync=True)
    """The run's tables for this view, delta-encoded (:func:`event_frames`); ``{}`` until shown."""

    def __repr__(self) -> str:
        """No object address: a notebook's saved text output must be the same on every run."""
        return "EventTableWidget()"
