"""``delayOffset.json`` on a broker in the message-flow picture: what a broker crash does to its delay levels.

Each delay level's timer keeps the next offset of its ``SCHEDULE_TOPIC_XXXX`` queue in memory (``offsetTable``); a
fixed-rate task writes the table to ``delayOffset.json`` 10 s after the store starts and every
``flushDelayOffsetInterval`` (10 s) after that, and a restart's ``load()`` reads the file back. A message a level
delivered after the last write is delivered again after a crash. Lab 03's crash question hinges on that, and the
picture drew none of it (revC defect 2): under ``SCHEDULE_TOPIC_XXXX`` each broker now lists the file's last and
next write, then per level its offset in the file against the one in memory ("level 2: saved none · in memory 1").

The lines appear only in a run with a broker crash (one has happened, or one is scheduled): every other picture
keeps its bytes, and a run that never crashes has no use for the file.

Mirrors: store/src/main/java/org/apache/rocketmq/store/schedule/ScheduleMessageService.java (offsetTable, persist,
load, encode) and common/src/main/java/org/apache/rocketmq/common/ConfigManager.java (persist).
"""

from __future__ import annotations

import dataclasses

from rmqlab.core.duration import format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.core.scheduler import TimerKind
from rmqlab.core.trace import EventKind
from rmqlab.snapshot import DelayOffsetSnap, LabSnapshot

from .flow_canvas import Canvas
from .flow_model import FlowVM

__all__ = [
    "DELAY_FILE_LEGEND",
    "DELAY_FILE_TIP",
    "delay_offset_legend",
    "delay_offsets_height",
    "draw_delay_offsets",
    "with_delay_offsets",
]

FILE_LINE = N_("delayOffset.json, saved every {every}")
SAVES_LINE = N_("last save: {last} · next: {next}")
LAST_NEVER = N_("never")
LAST_AT = N_("at {time}")
NEXT_AT = N_("at {time}")
NEXT_DOWN = N_("none while down")
LEVEL_LINE = N_("level {level}: saved {saved} · in memory {live}")
LEVEL_LOST = N_("level {level}: saved {saved} · in memory {live} (lost in the crash)")
NONE_SAVED = N_("none")
DELAY_FILE_TIP = N_(
    "ScheduleMessageService keeps each level's next offset in memory and persist() writes it to delayOffset.json "
    "every flushDelayOffsetInterval ({every}); after a crash, load() reads the file back, so a level whose offset in "
    "memory was ahead delivers those messages again"
)
DELAY_FILE_LEGEND = N_("delayOffset.json: each delay level's offset as last saved, and in memory")

LINE_H = 13.0
"""One line's height (11 px text), as the kept-out clocks under a broker's name."""
CRASH_ACTION = "Lab.broker_down"
"""The lab action whose pending timer says a crash is coming (``TimerSnap.detail``)."""


def _has_crash(snap: LabSnapshot) -> bool:
    """A broker crashed in the run so far, or a crash is scheduled: the lines belong to this picture."""
    if any(t.kind is TimerKind.ACTION and t.detail == CRASH_ACTION for t in snap.timers):
        return True
    return any(e.kind is EventKind.FAULT and e.get("fault") == "broker_down" for e in snap.events)


def _lines(offsets: DelayOffsetSnap, up: bool, levels: tuple[int, ...]) -> tuple[str, ...]:
    """The file's two lines (its period; its last and next save), then one per level (those in use: parked, delivered
    or saved), in level order."""
    every = format_duration(offsets.interval_ms)
    last = _(LAST_NEVER) if offsets.written_ms is None else _(LAST_AT).format(time=format_duration(offsets.written_ms))
    following = _(NEXT_DOWN) if offsets.next_write_ms is None else _(NEXT_AT).format(
        time=format_duration(offsets.next_write_ms)
    )
    out = [_(FILE_LINE).format(every=every), _(SAVES_LINE).format(last=last, next=following)]
    saved, live = dict(offsets.saved), dict(offsets.live)
    for level in levels:
        saved_words = str(saved[level]) if level in saved else _(NONE_SAVED)
        ahead = live.get(level, 0) > saved.get(level, 0)
        words = LEVEL_LOST if ahead and not up else LEVEL_LINE
        out.append(_(words).format(level=level, saved=saved_words, live=live.get(level, 0)))
    return tuple(out)


def with_delay_offsets(vm: FlowVM, snap: LabSnapshot) -> FlowVM:
    """``vm`` with each broker's ``delayOffset.json`` lines, in a run with a broker crash; else ``vm`` itself."""
    if not _has_crash(snap):
        return vm
    found = []
    for b in snap.brokers:
        if b.delay_offsets is None:
            continue
        used = {s.level for s in b.schedule} | {lv for lv, _o in b.delay_offsets.live + b.delay_offsets.saved}
        if not used:  # no delayed message on this broker yet: nothing the file would matter for (lab 01a's crash)
            continue
        tip = _(DELAY_FILE_TIP).format(every=format_duration(b.delay_offsets.interval_ms))
        found.append((b.name, _lines(b.delay_offsets, b.up, tuple(sorted(used))), tip))
    return dataclasses.replace(vm, delay_offsets=tuple(found)) if found else vm


def delay_offset_lines(vm: FlowVM, broker: str) -> tuple[str, ...]:
    """The lines drawn under ``broker``'s ``SCHEDULE_TOPIC_XXXX`` header (none in most pictures)."""
    return next((lines for name, lines, _tip in vm.delay_offsets if name == broker), ())


def delay_offsets_height(vm: FlowVM, broker: str) -> float:
    """The height ``broker``'s lines take under its ``SCHEDULE_TOPIC_XXXX`` header (0 when it has none): the lane's
    geometry reserves it, and :func:`draw_delay_offsets` draws into it."""
    lines = delay_offset_lines(vm, broker)
    return len(lines) * LINE_H + (4 if lines else 0)


def draw_delay_offsets(cv: Canvas, vm: FlowVM, broker: str, x: float, y: float) -> float:
    """Draw ``broker``'s lines from ``y`` (each with the rule as its tooltip); returns the height they took."""
    tip = next((t for name, _lines, t in vm.delay_offsets if name == broker), "")
    for n, line in enumerate(delay_offset_lines(vm, broker)):
        cv.text(f"delay-offsets:{broker}:{n}", x, y + 10 + n * LINE_H, line, cls="rq-muted rq-small rq-delay-file",
                title=tip)  # fmt: skip
    return delay_offsets_height(vm, broker)


def delay_offset_legend(vm: FlowVM) -> tuple[tuple[str, str, str], ...]:
    """The legend line that names the file, on a picture that draws it."""
    return (("rect", "rq-slot", _(DELAY_FILE_LEGEND)),) if vm.delay_offsets else ()
