"""A run's trace as JSON Lines, written and read back (one event per line, ``Trace.to_jsonl``).

The same bytes as ``rmqlab run FILE --jsonl PATH``, so a run saved from a notebook and one saved from the command
line are read by the same tools; :func:`load_jsonl` gives back a :class:`Trace` every trace reader works on, and
names the line and what is wrong when the file is not a trace. Kept apart: it exports the run, not a picture.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rmqlab import EventKind, Lab, Trace

from .dashboard import Dashboard
from .export_theme import ExportError

__all__ = ["load_jsonl", "save_jsonl"]


def _trace_of(source: Any) -> Trace:
    if isinstance(source, Trace):
        trace = source
    elif isinstance(source, Lab):
        trace = source.trace
    elif isinstance(source, Dashboard):
        replay = source.controller.replay
        if replay is None:
            raise ExportError("the dashboard has no run (its factory failed): nothing to save")
        trace = Trace()  # the run up to where the dashboard stands: what its views show
        for e in list(replay.lab.trace)[: source.controller.position]:
            trace.record(e.time_ms, e.kind, e.actor, e.msg_id, **e.data)
        return trace
    else:
        raise TypeError(f"source={type(source).__name__}: must be a Lab, its trace, or a Dashboard")
    if not trace.enabled:
        raise ExportError("this trace keeps no events (Lab(trace=False) only counts them): run with trace=True")
    return trace


def save_jsonl(source: Any, path: str | os.PathLike[str]) -> Path:
    """Write the run's trace as JSON Lines (one event per line, ``Trace.to_jsonl``): the same bytes as
    ``rmqlab run FILE --jsonl PATH``. A dashboard saves its run up to where it stands (its scrubber), which is
    what its views show."""
    out = Path(path)
    out.write_text(_trace_of(source).to_jsonl(), encoding="utf-8")
    return out


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ExportError(f"{path}:{number}: not a JSON line ({exc.msg})") from None
            if not isinstance(event, dict) or not {"seq", "time_ms", "kind", "actor", "msg_id"} <= event.keys():
                raise ExportError(f"{path}:{number}: not a trace event (needs seq, time_ms, kind, actor, msg_id)")
            yield number, event


def load_jsonl(path: str | os.PathLike[str]) -> Trace:
    """A :class:`Trace` read back from JSON Lines (:func:`save_jsonl`, ``rmqlab run --jsonl``): the same events,
    so ``load_jsonl(p).to_jsonl()`` is the file again, byte for byte, and every trace reader works on it."""
    source = Path(path)
    trace = Trace()
    for number, event in _lines(source):
        seq, time_ms, kind = event.pop("seq"), event.pop("time_ms"), event.pop("kind")
        actor, msg_id = event.pop("actor"), event.pop("msg_id")
        if seq != len(trace) + 1:
            raise ExportError(f"{source}:{number}: seq={seq!r}, expected {len(trace) + 1} (a trace has every event)")
        try:
            trace.record(time_ms, EventKind(kind), actor, msg_id, **event)
        except ValueError:
            raise ExportError(f"{source}:{number}: kind={kind!r} is not an EventKind") from None
    return trace
