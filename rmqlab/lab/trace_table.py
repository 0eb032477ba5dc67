"""Plain-text trace tables for the lab notebooks.

:func:`show_trace` and :func:`table` turn the trace into fixed-width text: the labs show text before
pictures, text is what nbval can compare byte for byte, and rows are wrapped between ``key=value``
items (never inside one) so a table stays readable in a narrow output area.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..core.duration import format_duration
from ..core.i18n import columns as width
from ..core.i18n import gettext as _
from ..core.reasons import translated
from ..core.trace import EventKind, TraceEvent

__all__ = ["DEFAULT_FIELDS", "TABLE_WIDTH", "Items", "fill", "show_trace", "table", "trace_rows", "width"]

TABLE_WIDTH = 100
"""Widest line :func:`table` prints before wrapping the last column: narrower than JupyterLab's output area."""


DEFAULT_FIELDS: Mapping[EventKind, tuple[str, ...]] = {
    EventKind.SEND_ATTEMPT: ("mode", "attempt", "broker", "queue_id"),
    EventKind.SEND_RESULT: ("attempt", "broker", "outcome"),
    EventKind.SEND_FAILED: ("error",),
    EventKind.STORED: ("topic", "queue_id", "queue_offset", "reconsume_times"),
    EventKind.SCHEDULED: ("level", "real_topic", "due_ms", "reconsume_times"),
    EventKind.DELAY_DELIVERED: ("level", "topic", "waited_ms"),
    EventKind.DELIVERED: ("topic", "queue", "queue_offset", "reconsume_times"),
    EventKind.CONSUMED: ("status", "return_type", "took_ms"),
    EventKind.SEND_BACK: ("ok", "broker", "delay_level", "reconsume_times"),
    EventKind.DEAD_LETTERED: ("topic", "reconsume_times", "original_topic"),
    EventKind.OFFSET_UPDATED: ("queue", "offset"),
    EventKind.OFFSET_PERSISTED: ("queue", "offset"),
}
"""The data keys worth a column for each event kind (everything else is still in ``event.data``)."""


class Items(tuple[str, ...]):
    """A table cell made of items (``key=value`` pairs): printed space-separated, wrapped only between items."""

    __slots__ = ()


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Items):
        return " ".join(value)
    if isinstance(value, list | tuple):
        return ",".join(_cell(v) for v in value)
    return "" if value is None else str(value)


_CJK = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f"
_PIECES = re.compile(rf"\s+|[（《「『“‘]*(?:[{_CJK}]|[^\s{_CJK}]+)[、。，；：！？）》」』”’]*")
"""What a line may break between: spaces, each Chinese character and each run of other characters (an English word,
an identifier, a number), each with the punctuation that must not end a line before it or start one after it."""


def fill(text: str, columns: int = TABLE_WIDTH) -> str:
    """``text`` wrapped at ``columns`` (counted by :func:`width`): between words, as :func:`textwrap.fill` does for
    text without Chinese (and exactly as it does, so English output is unchanged), and also between Chinese
    characters, which have no spaces between them — never inside an identifier or a number."""
    if width(text) == len(text):
        return textwrap.fill(text, columns, break_long_words=False, break_on_hyphens=False)
    lines: list[str] = []
    line = ""
    for piece in _PIECES.findall(" ".join(text.split())):
        if piece.isspace():
            piece = " "
        if line and width(line) + width(piece.rstrip()) > columns:
            lines.append(line.rstrip())
            line = "" if piece == " " else piece
        else:
            line += piece
    return "\n".join([*lines, line.rstrip()])


def _wrap(items: Sequence[str], columns: int) -> list[str]:
    """Greedy line filling of whole items; an item wider than ``columns`` is broken between its words.

    A long item (a WARNING's ``message=…``) left whole would be wider than the output area, and the browser
    would then wrap it anywhere, mid-word and without the column's indent.
    """
    lines: list[str] = []
    for item in items:
        if width(item) > columns:
            lines += fill(item, columns).split("\n")
        elif lines and width(lines[-1]) + 1 + width(item) <= columns:
            lines[-1] += " " + item
        else:
            lines.append(item)
    return lines or [""]


def _pad(text: str, columns: int) -> str:
    """``text`` padded with spaces to ``columns`` (by :func:`width`, as ``str.ljust`` does by length)."""
    return text + " " * (columns - width(text))


def table(rows: Iterable[Sequence[Any]], headers: Sequence[str], max_width: int = TABLE_WIDTH) -> str:
    """A fixed-width text table (left-aligned, two spaces between columns) — stable for nbval.

    A row wider than ``max_width`` continues on indented lines; only the last column wraps, and only
    between the items of an :class:`Items` cell or between words, never inside a value.
    """
    raw = [list(row) for row in rows]
    body = [[_cell(v) for v in row] for row in raw]
    widths = [width(h) for h in headers]
    for row in body:
        for i, text in enumerate(row[:-1]):
            widths[i] = max(widths[i], width(text))
    lead = sum(widths[:-1]) + 2 * (len(headers) - 1)
    last = max([width(headers[-1])] + [width(row[-1]) for row in body])
    widths[-1] = min(last, max(max_width - lead, width(headers[-1]), 20))
    lines = ["  ".join(_pad(h, w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row, values in zip(body, raw, strict=True):
        tail = values[-1]
        items = list(tail) if isinstance(tail, Items) else row[-1].split(" ")
        wrapped = _wrap(items, widths[-1]) if width(row[-1]) > widths[-1] else [row[-1]]
        head = "  ".join(_pad(t, w) for t, w in zip(row[:-1], widths[:-1], strict=True))
        lines.append((head + "  " + wrapped[0]).rstrip() if head or len(headers) > 1 else wrapped[0])
        lines += [(" " * (lead if len(headers) > 1 else 2) + more).rstrip() for more in wrapped[1:]]
    return "\n".join(lines)


def trace_rows(events: Iterable[TraceEvent], fields: Sequence[str] | None = None) -> list[list[Any]]:
    """One row per event: time, kind, actor, message id, then the ``key=value`` details (as :class:`Items`)."""
    rows: list[list[Any]] = []
    for event in events:
        keys = fields if fields is not None else DEFAULT_FIELDS.get(event.kind, tuple(event.data))
        details = Items(f"{k}={translated(_cell(event.data[k]))}" for k in keys if k in event.data)
        rows.append([format_duration(event.time_ms), event.kind.value, event.actor, event.msg_id or "", details])
    return rows


def show_trace(
    events: Iterable[TraceEvent],
    *kinds: EventKind | str,
    msg_id: str | None = None,
    fields: Sequence[str] | None = None,
    limit: int | None = None,
) -> None:
    """Print the events (optionally only some kinds / one message) as a text table; ``limit`` keeps the first n."""
    wanted = {EventKind(k) for k in kinds}
    chosen = [e for e in events if (not wanted or e.kind in wanted) and (msg_id is None or e.msg_id == msg_id)]
    shown = chosen if limit is None else chosen[:limit]
    print(table(trace_rows(shown, fields), [_("time"), _("event"), _("actor"), _("msg"), _("details")]))
    if len(shown) < len(chosen):
        print(_("… {count} more").format(count=len(chosen) - len(shown)))
