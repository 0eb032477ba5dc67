"""While a checkpoint waits, nothing on screen may state its answer: the paused frame's caption and picture, masked.

A "when" checkpoint pauses on the step that sets the clock it asks about, and that step says how long the clock runs:
lab 07a's caption read "c1 pauses TopicTest queue 0 on broker-a for 1 s, then tries M0002 again there" and its
ProcessQueue "suspended · again in 1 s" under the question "When is M0002 delivered next?" (paused at 3 s, answer 4 s);
lab 02b's said "local retry in 5 s", lab 03's "returns in 30 s". Each tells the answer by one addition.

:func:`mask_frames` rewrites, on the paused frame of each "when" checkpoint only, every statement of the remaining
time (``answer − now``: ``1 s``, ``1000 ms``, or ``5000 …`` where the "in the source" line was cut before its unit)
and of the answer's own time (``t = 4 s``, ``at 4 s``) as ``?``, in both lines of the caption and in every
view-model's text (:func:`mask_model`: the flow picture's ProcessQueue notes and countdowns, the Events tab's
``retry_in_ms=1000`` / ``due_ms=40000``), marks the retry timeline's wait that ends at the answer as hidden (its
length, end and "due in" drawn as ``?``), and cuts the Locks tab's leases and trust windows at the paused clock (a
lease's end, ``lastUpdate`` + 60 s, is when a take-over can happen: "lease ends at ?"). The mechanism stays
named ("pauses … for ?, then tries M0002 again"), so the student reads which clock to look for, not what it says. One
step on, the outcome shows everything again. The kernel applies the same mask to what it draws at that position
(``SnapshotView.update(snap, mask)``), so a hidden tab opened there shows what the page's frame shows.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from enum import Enum
from typing import Any

from rmqlab import format_duration

from .checkpoint_hide import Hidden, hide_view, offset_patterns
from .checkpoints import AskedCheckpoint
from .flow_clocks import hide_clock_times
from .flow_model import FlowVM, Place, countdown_time, with_placeholders
from .lease_fold import nice_end
from .lease_model import LeaseModel
from .masked_words import HIDDEN_WORDS, hidden_short, hidden_words
from .retry_model import TimelineModel

__all__ = ["HIDDEN", "Mask", "mask_frames", "mask_model", "when_mask"]

HIDDEN = HIDDEN_WORDS
"""What a hidden time reads as in a caption (:func:`widgets.masked_words.hidden_words`: words, in the current
language); a view's text says :func:`widgets.masked_words.hidden_short`."""


@dataclasses.dataclass(frozen=True, slots=True)
class Mask:
    """The patterns that state one checkpoint's answer, each replaced by ``keep`` + :data:`HIDDEN`."""

    patterns: tuple[re.Pattern[str], ...] = ()
    places: tuple[Place, ...] = ()
    """A "where" checkpoint's places not there yet: the flow picture draws them as placeholders."""
    answer_ms: int | None = None
    """A "when" checkpoint's answer: a wait of the retry timeline that ends then is drawn with a hidden end."""
    now_ms: int = 0
    """The paused frame's virtual time."""
    hidden: tuple[Hidden, ...] = ()
    """Values a checkpoint asks about, hidden up to its pause (:mod:`widgets.checkpoint_hide`)."""
    done: dict[str, str] = dataclasses.field(default_factory=dict, compare=False, repr=False)
    """Each text masked so far → what it reads masked: a mask covers every string of every view on its frames (lab
    05's, up to 12 frames), most of them the same from frame to frame, and its patterns are slow to try."""

    def __call__(self, text: str, *, short: bool = False) -> str:
        """``text`` with what states the answer replaced: by "… (your question)" in a caption line, by the short
        "(hidden)" in a view's text (``short``), laid out for the time it replaces."""
        key = ("short:" if short else "long:") + text
        if key not in self.done:
            masked, words = text, hidden_short() if short else hidden_words()
            for pattern in self.patterns:
                masked = pattern.sub(lambda m: m.group("keep") + words, masked)
            self.done[key] = masked
        return self.done[key]


WAIT_FIELDS = ("retry_in_ms", "delay_ms", "due_ms", "fix_in_ms", "expires_ms")
"""The trace's fields that say when something comes next (a retry, a delay's end, an offset's fix, a lease's end):
the only fields a "when" mask hides."""


def _time(words: str, prefix: str = "") -> re.Pattern[str]:
    """``words`` as a whole time (``1 s`` but not the end of ``11 s`` or ``2.1 s``), after ``prefix`` (kept)."""
    return re.compile(f"(?P<keep>{prefix})(?<![0-9.,]){re.escape(words)}(?![0-9A-Za-z])")


def when_mask(answer_ms: int, now_ms: int) -> Mask:
    """The mask of a "when" checkpoint answered ``answer_ms`` and paused at ``now_ms``: the time left, however it is
    written (``1 s``, ``1.0 s``, ``1000 ms``, ``1,000 ms``), and the answer's time after ``t =`` / ``at``."""
    left = answer_ms - now_ms
    spans = {countdown_time(left), format_duration(left), f"{left} ms", f"{left:,} ms"}
    patterns = [_time(words) for words in sorted(spans, key=len, reverse=True)]
    moments = {format_duration(answer_ms), f"{answer_ms} ms", f"{answer_ms:,} ms"}
    for words in sorted(moments, key=len, reverse=True):
        patterns.append(_time(words, prefix=r"t = |\bat |在 ?"))
    # the Events tab's details: a field saying when something comes next, whose value is the time left or the
    # answer (retry_in_ms=1000, delay_ms=1000, due_ms=40000); a budget that happens to equal it (timeout_ms=3000)
    # stays, or its "?" would say that the answer is the budget
    # an "in the source" line cut to its width may end a time without its unit ("is consumed again in 5000 …",
    # rmqlab.narrate.steps.fit_rule cuts at a space): the bare number before the cut says the same
    for value in sorted({left, answer_ms}, reverse=True):
        for words in sorted({str(value), f"{value:,}"}, key=len, reverse=True):
            patterns.append(re.compile(rf"(?P<keep>)(?<![0-9.,]){re.escape(words)}(?= ?…)"))
    fields = "|".join(WAIT_FIELDS)
    for value in sorted({left, answer_ms}, reverse=True):
        patterns.append(_time(str(value), prefix=rf"\b(?:{fields})="))
    return Mask(tuple(patterns), answer_ms=answer_ms, now_ms=now_ms)


def mask_model(model: Any, mask: Mask | None) -> Any:
    """A view-model (frozen dataclasses, tuples and lists of them, strings) with every string passed through ``mask``;
    the same object when nothing changed (``mask`` None: always)."""
    if mask is None:
        return model
    if isinstance(model, FlowVM) and mask.places:
        model = with_placeholders(model, mask.places)
    if isinstance(model, FlowVM) and mask.answer_ms is not None:
        model = hide_clock_times(model)
    if isinstance(model, TimelineModel) and mask.answer_ms is not None:
        model = _hide_waits(model, mask.answer_ms, mask.now_ms)
    if isinstance(model, LeaseModel) and mask.answer_ms is not None:
        model = _hide_lease_future(model, mask.now_ms)
    if mask.hidden and dataclasses.is_dataclass(model):  # a view-model, not one of its strings or tuples
        model = hide_view(model, mask.hidden)
    if isinstance(model, Enum):
        return model  # a kind (ArrowKind is a str too): a name, never words to hide
    if isinstance(model, str):
        return mask(model, short=True)
    if isinstance(model, tuple):
        items = tuple(mask_model(item, mask) for item in model)
        return model if all(a is b for a, b in zip(items, model, strict=True)) else items
    if isinstance(model, list):
        return [mask_model(item, mask) for item in model]
    if dataclasses.is_dataclass(model) and not isinstance(model, type):
        changes = {}
        for f in dataclasses.fields(model):
            value = getattr(model, f.name)
            masked = mask_model(value, mask)
            if masked is not value:
                changes[f.name] = masked
        return dataclasses.replace(model, **changes) if changes else model
    return model


def _hide_waits(vm: TimelineModel, answer_ms: int, now_ms: int) -> TimelineModel:
    """``vm`` with each pending wait that ends at the answer (or lasts the time left) marked hidden: its label,
    end and countdown would read the answer (lab 03's "L4 · 30 s", "due at 40 s", "due in 30 s")."""
    left = answer_ms - now_ms
    waits = tuple(
        dataclasses.replace(w, hidden=True)
        if not w.done and not w.hidden and (w.end_ms + vm.origins_ms[w.lane] == answer_ms or w.duration_ms == left)
        else w
        for w in vm.waits
    )
    return vm if waits == vm.waits else dataclasses.replace(vm, waits=waits)


def _hide_lease_future(vm: LeaseModel, now_ms: int) -> LeaseModel:
    """``vm`` cut at the paused clock: a lease or trust window that lasts beyond it is drawn up to now and open (its
    end, ``lastUpdate`` + 60 s or + 30 s, is the instant a "when" about a take-over asks for), the band says "lease
    ends at ?", and the time axis ends where it would if nothing lasted beyond now (its end was the latest lease end,
    rounded; an axis that ends with the run stays: it tells nothing about the leases)."""
    bands = tuple(
        dataclasses.replace(
            b,
            lanes=tuple(
                dataclasses.replace(
                    lane,
                    spans=tuple(
                        dataclasses.replace(s, end_ms=now_ms, open=True) if s.end_ms > now_ms else s
                        for s in lane.spans
                    ),
                )
                for lane in b.lanes
            ),
            lease_ends_ms=now_ms if b.lease_ends_ms is not None and b.lease_ends_ms > now_ms else b.lease_ends_ms,
            ends_hidden=b.lease_ends_ms is not None and b.lease_ends_ms >= now_ms,
        )
        for b in vm.bands
    )
    return dataclasses.replace(vm, bands=bands, t_end_ms=vm.t_end_ms if vm.run_end else nice_end(now_ms))


def _merged(old: Mask | None, new: Mask) -> Mask:
    """Two checkpoints' masks on one frame, as one."""
    if old is None:
        return new
    answer_ms = new.answer_ms if new.answer_ms is not None else old.answer_ms
    now_ms = new.now_ms if new.answer_ms is not None else old.now_ms
    return Mask(old.patterns + new.patterns, old.places + new.places, answer_ms, now_ms, old.hidden + new.hidden)


def mask_frames(
    checkpoints: Sequence[AskedCheckpoint], now_ms: Sequence[int], captions: list[tuple[str, ...]]
) -> dict[int, Mask]:
    """Mask the captions of each "when" checkpoint's paused frame in place, and of every frame up to the pause of a
    checkpoint that hides a value; return ``{frame: mask}`` for the views (a "where" checkpoint's adds its
    placeholders to the flow picture of its paused frame)."""
    masks: dict[int, Mask] = {}
    for cp in checkpoints:
        if cp.hidden:  # every frame a student can see before answering
            hide = Mask(offset_patterns(), hidden=cp.hidden)
            for frame in range(cp.frame + 1):
                masks[frame] = _merged(masks.get(frame), hide)
                captions[frame] = tuple(hide(line) for line in captions[frame])
        if cp.ask == "where" and cp.placeholders:
            masks[cp.frame] = _merged(masks.get(cp.frame), Mask(places=cp.placeholders))
        if cp.ask != "when":
            continue
        mask = when_mask(int(cp.answer), now_ms[cp.frame])
        masks[cp.frame] = _merged(masks.get(cp.frame), mask)
        captions[cp.frame] = tuple(mask(line) for line in captions[cp.frame])
    return masks
