"""Helpers the lab notebooks use: self-checking predictions and plain-text trace tables.

A lab exercise is "predict, then run": the student writes ``answer = ...`` in one cell, a later cell
runs the scenario, and :func:`check` compares the prediction with what the run measured. ``check``
*prints* its verdict (never raises), so a wrong answer teaches instead of showing a traceback, and the
printed text is deterministic, so the notebooks pass ``pytest --nbval`` unchanged.

:func:`show_trace` and :func:`table` turn the trace into fixed-width text: the labs show text before
pictures, and text is what nbval can compare byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .duration import format_duration
from .trace import EventKind, TraceEvent

__all__ = ["DEFAULT_FIELDS", "check", "show_trace", "table", "trace_rows"]

NO_ANSWER = "No prediction yet — replace the `...` in the answer cell with your prediction, run it, then run this cell."

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


def _same(answer: Any, expected: Any) -> bool:
    """Equality that forgives what a prediction cannot be blamed for: spaces/case in words, int vs float."""
    if isinstance(answer, str) and isinstance(expected, str):
        return answer.strip() == expected.strip() or answer.strip().lower() == expected.strip().lower()
    if isinstance(answer, bool) or isinstance(expected, bool):
        return answer is expected
    if isinstance(answer, int | float) and isinstance(expected, int | float):
        return answer == expected
    if isinstance(answer, Sequence) and isinstance(expected, Sequence) and not isinstance(answer, str):
        return len(answer) == len(expected) and all(_same(a, e) for a, e in zip(answer, expected, strict=True))
    return bool(answer == expected)


def check(answer: Any, expected: Any, why: str) -> bool:
    """Print whether ``answer`` (the student's prediction) matches ``expected`` (what the run measured), and why.

    Returns the verdict so a teacher's grading cell can count it; it never raises, because an exercise
    that fails with ``AssertionError`` tells the student nothing about RocketMQ.
    """
    if answer is Ellipsis:
        print(NO_ANSWER)
        return False
    if _same(answer, expected):
        print(f"Right — {expected!r}. {why}")
        return True
    print(f"Not quite — you predicted {answer!r}, the run gives {expected!r}. {why}")
    return False


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(_cell(v) for v in value)
    return "" if value is None else str(value)


def table(rows: Iterable[Sequence[Any]], headers: Sequence[str]) -> str:
    """A fixed-width text table (left-aligned, two spaces between columns) — stable for nbval."""
    body = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in body:
        for i, text in enumerate(row):
            widths[i] = max(widths[i], len(text))
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(t.ljust(w) for t, w in zip(row, widths, strict=True)).rstrip() for row in body]
    return "\n".join(lines)


def trace_rows(events: Iterable[TraceEvent], fields: Sequence[str] | None = None) -> list[list[Any]]:
    """One row per event: time, kind, actor, message id, then ``key=value`` details."""
    rows = []
    for event in events:
        keys = fields if fields is not None else DEFAULT_FIELDS.get(event.kind, tuple(event.data))
        details = " ".join(f"{k}={_cell(event.data[k])}" for k in keys if k in event.data)
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
    print(table(trace_rows(shown, fields), ["time", "event", "actor", "msg", "details"]))
    if len(shown) < len(chosen):
        print(f"… {len(chosen) - len(shown)} more")
