"""Which faults are in force at a step, whatever injected them: a fault button, ``lab.at(…, lab.broker_down, …)``, a
scenario's fault call or ``set_broker_fault`` before the run.

The fault bar used to list only the button's faults, so lab 01a's broker-a, taken down by the lab's own script, sat
under "no injected faults". Every fault is a FAULT event in the trace (a consumer crash a LIFECYCLE one), so the bar
reads them there: :func:`fault_windows` pairs each fault with the event that ends it (the broker back up, the link
healed, the setting turned off, the consumer started again) over the trace it is given — the whole run when it is
known ahead, so each window has its end — and :func:`active_at` keeps those in force at a position.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rmqlab.core.duration import format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.core.trace import EventKind, TraceEvent

__all__ = ["SETTING_WORDS", "FaultWindow", "active_at", "fault_windows", "fault_words", "faults_text"]

OFF_VALUES: tuple[object, ...] = (None, False, 0, "", "PUT_OK", [], ())
"""A broker setting with one of these values is a fault turned off (``set_broker_fault(send_error=None)``)."""


SETTING_WORDS: dict[str, str] = {
    "response_delay_ms": N_("{broker} answers {value} late"),
    "lose_responses": N_("{broker} loses every response"),
    "put_status": N_("{broker}'s store answers every put {value}"),
    "reject_send_back": N_("{broker} refuses every send-back"),
    "send_error": N_("{broker} answers every send {value}"),
    "send_responses": N_("{broker} answers the next sends: {value}"),
    "send_back_error": N_("{broker} answers every send-back {value}"),
    "query_offset_error": N_("{broker} answers every offset query {value}"),
    "pull_error": N_("{broker} answers every pull {value}"),
}
"""A broker fault setting (``set_broker_fault``) in plain words; ``{value}`` is a time, a status or a code name."""


def fault_words(broker: str, setting: str, value: object) -> str:
    """``broker-a answers 5 s late`` for ``response_delay_ms = 5000``; an unknown setting as ``setting = value``."""
    if setting == "response_delay_ms" and isinstance(value, int):
        value = format_duration(value)
    elif isinstance(value, list | tuple):
        value = ", ".join(str(v) for v in value)
    words = SETTING_WORDS.get(setting)
    if words is None:
        return _("{broker}: {setting} = {value}").format(broker=broker, setting=setting, value=value)
    return _(words).format(broker=broker, value=value)


@dataclass(frozen=True, slots=True)
class FaultWindow:
    """One fault from the event that started it (``start_seq``, 1-based like a trace event's) to the one that ended
    it (``None``: not ended in the trace read)."""

    label: str
    start_seq: int
    start_ms: int
    end_seq: int | None = None
    end_ms: int | None = None

    def active(self, position: int) -> bool:
        """In force once ``position`` events have happened: its start among them, its end not."""
        return self.start_seq <= position and (self.end_seq is None or self.end_seq > position)

    @property
    def text(self) -> str:
        """``broker-a down (2 s – 12 s)``, or ``(since 2 s)`` when its end is not known."""
        start = format_duration(self.start_ms)
        if self.end_ms is None:
            return _("{fault} (since {start})").format(fault=self.label, start=start)
        return _("{fault} ({start} – {end})").format(fault=self.label, start=start, end=format_duration(self.end_ms))


def _opens_and_closes(e: TraceEvent) -> Iterable[tuple[tuple[str, ...], str | None]]:
    """What ``e`` starts (a key and its label) or ends (a key and ``None``)."""
    if e.kind is EventKind.LIFECYCLE and e.get("event") in ("crash", "start"):
        who = e.actor.split(":", 1)[-1]
        yield ("crash", e.actor), (_("{client} crashed").format(client=who) if e.get("event") == "crash" else None)
        return
    if e.kind is not EventKind.FAULT:
        return
    fault = e.get("fault")
    if fault in ("broker_down", "broker_up"):
        yield ("down", e.actor), (_("{broker} down").format(broker=e.actor) if fault == "broker_down" else None)
    elif fault in ("partition", "heal"):
        client = str(e.get("client"))
        label = _("link {client} – {broker} cut").format(client=client, broker=e.actor)
        yield ("link", client, e.actor), (label if fault == "partition" else None)
    elif fault == "broker_fault":
        for setting, value in e.data.items():
            if setting == "fault":
                continue
            label = fault_words(e.actor, setting, value)
            yield ("setting", e.actor, setting), (None if value in OFF_VALUES else label)


def fault_windows(events: Iterable[TraceEvent]) -> tuple[FaultWindow, ...]:
    """Every fault of ``events`` (trace order) with its window, in the order they started."""
    windows: list[FaultWindow] = []
    open_at: dict[tuple[str, ...], int] = {}
    for e in events:
        for key, label in _opens_and_closes(e):
            at = open_at.pop(key, None)
            if at is not None:  # a new setting of the same key ends the old one too
                w = windows[at]
                windows[at] = FaultWindow(w.label, w.start_seq, w.start_ms, e.seq, e.time_ms)
            if label is not None:
                open_at[key] = len(windows)
                windows.append(FaultWindow(label, e.seq, e.time_ms))
    return tuple(windows)


def active_at(windows: Sequence[FaultWindow], position: int) -> list[FaultWindow]:
    """The faults in force at ``position``."""
    return [w for w in windows if w.active(position)]


def faults_text(windows: Sequence[FaultWindow], position: int) -> str:
    """The fault bar's words at ``position``: "active faults: broker-a down (2 s – 12 s)", or "no active faults"."""
    active = active_at(windows, position)
    if not active:
        return _("no active faults")
    return _("active faults: {faults}").format(faults=_("; ").join(w.text for w in active))
