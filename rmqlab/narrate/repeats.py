"""Repeats: when two events are the same but for the time, and how a run of them folds into one :class:`Repeat`.

A broker that is down makes a consumer retry its pulls every second for hours; an orderly message that keeps failing
is delivered and suspended again every second: thousands of events a student should read as one line ("× 50,386,
every 1 s, 15 s – 14 h"). :func:`signature` says when two events are the same, :func:`burst` which items start
together (and so may repeat together), :func:`group_repeats` folds them. Split from :mod:`rmqlab.narrate.steps`,
which re-exports them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..core.duration import format_duration
from ..core.i18n import gettext as _
from ..core.trace import EventKind, TraceEvent

__all__ = ["BATCH_KINDS", "COUNTERS", "Repeat", "burst", "close_other_bursts", "group_repeats", "signature"]

K = EventKind


class Timed(Protocol):
    """What :func:`group_repeats` needs of an item: its virtual time."""

    @property
    def time_ms(self) -> int: ...


G = TypeVar("G", bound=Timed)


COUNTERS: dict[EventKind, frozenset[str]] = {
    K.DELIVERED: frozenset({"reconsume_times"}),
    K.SUSPENDED: frozenset({"reconsume_times"}),
}
"""Fields that count the repeats themselves: an orderly message that fails again is delivered from the same queue
offset and suspended again, one reconsumeTimes higher each time (ConsumeMessageOrderlyService.checkReconsumeTimes),
and that count is what the group's "× 21" says."""
BATCH_KINDS: dict[EventKind, frozenset[str]] = {
    K.SEND_ATTEMPT: frozenset(),
    K.SEND_RESULT: frozenset({"offset_msg_id"}),
    K.STORED: frozenset({"queue_offset"}),
}
"""A producer sending many messages in one millisecond (a loop of ``send``) makes the same send, stored, answered
once per message: in that millisecond they repeat whatever the message (its id, its queue offset), as one burst."""


def signature(event: TraceEvent) -> Hashable:
    """Two events are repeats of each other when this is equal: everything but the time, the seq and the fields
    that count the repeats (:data:`COUNTERS`); and, for the sends of one millisecond (:data:`BATCH_KINDS`), the
    message."""
    if event.kind in BATCH_KINDS:
        data = {k: v for k, v in event.data.items() if k not in BATCH_KINDS[event.kind]}
        return (event.kind, event.actor, event.time_ms, repr(sorted(data.items())))
    skip = COUNTERS.get(event.kind, frozenset())
    data = {k: v for k, v in event.data.items() if k not in skip}
    return (event.kind, event.actor, event.msg_id, repr(sorted(data.items())))


@dataclass(frozen=True, slots=True)
class Repeat:
    """One event, or a run of identical ones folded together."""

    first: Any
    """The first item of the group (a TraceEvent, a Caption, a row: whatever was grouped)."""
    last: Any
    """Its last item (the first again for a single event)."""
    count: int
    first_ms: int
    last_ms: int
    every_ms: int | None
    """The gap between repeats when it is always the same; None when it varies (or for a single event)."""

    @property
    def summary(self) -> str:
        """``""`` for a single event; ``× 50,386, every 1 s, 15 s – 14 h`` for a group."""
        if self.count == 1:
            return ""
        every = _(", every {gap}").format(gap=format_duration(self.every_ms)) if self.every_ms else ""
        start = "0 s" if self.first_ms == 0 and self.last_ms >= 1000 else format_duration(self.first_ms)
        span = (
            f"{start} – {format_duration(self.last_ms)}"
            if self.last_ms != self.first_ms
            else _("at {time}").format(time=format_duration(self.first_ms))
        )
        return f"× {self.count:,}{every}, {span}"


def burst(item: object) -> Hashable:
    """What a run of items started together shares: the millisecond, the kind and who did it (three queues'
    offset commits failing at once; a lock refused for two queues); for the trace events of messages, the millisecond
    (a batch of M0001–M0003 delivered, failed and suspended again; messages sent, stored and answered). A new item
    closes every open group but those of its own burst, which may repeat together."""
    who = getattr(item, "actor", None) or getattr(item, "src", None)
    if isinstance(item, TraceEvent) and item.msg_id is not None:
        # what messages went through in one millisecond (sent, stored, answered; a batch delivered, failed and
        # paused) repeats together
        return (item.time_ms, "messages")
    return (getattr(item, "time_ms", None), getattr(item, "kind", None), who)


def group_repeats(
    items: Sequence[G], *, key: Callable[[G], Hashable], closes: Callable[[G], bool] = lambda item: True
) -> list[Repeat]:
    """Fold repeats: an item whose ``key`` equals that of an *open* group joins it (even if other groups'
    items come between, as two queues' failing pulls alternate); any other item starts a group, and if
    ``closes(item)`` it first closes the open groups not of its own :func:`burst` (something new happened: a
    later identical event is news again). Groups are listed where their first item was."""
    groups: list[list[G]] = []
    bursts: list[Hashable] = []
    """Per group: the burst of its first item (found once, not at every item that closes groups)."""
    open_groups: dict[Hashable, int] = {}
    for item in items:
        k = key(item)
        at = open_groups.get(k)
        if at is not None:
            groups[at].append(item)
            continue
        started = burst(item)
        if closes(item):
            close_other_bursts(open_groups, started, bursts.__getitem__)
        open_groups[k] = len(groups)
        groups.append([item])
        bursts.append(started)
    return [_repeat(g) for g in groups]


def close_other_bursts(open_groups: dict[Hashable, int], keep: Hashable, burst_of: Callable[[int], Hashable]) -> None:
    """Forget the open groups whose burst (``burst_of`` their index) is not ``keep``."""
    for k in [k for k, at in open_groups.items() if burst_of(at) != keep]:
        del open_groups[k]


def _repeat(group: list[G]) -> Repeat:
    times = [item.time_ms for item in group]
    gaps = {b - a for a, b in itertools.pairwise(times)}
    every = gaps.pop() if len(gaps) == 1 else None
    return Repeat(group[0], group[-1], len(group), times[0], times[-1], every)
