"""The controller's own controls in the kernel: Reset … Jump as ipywidgets, the clock, the caption, the Jump box.

A mixin of :class:`widgets.controller.Controller` (kept apart so each module stays readable). Run ahead, the page's
player (scene.js) draws these controls over the run's frames; the ipywidgets here stay as their twins for notebooks
and tests that drive the kernel's run, and are what a dashboard that is not run ahead shows (each move a kernel round
trip). Every button calls its method twin on the controller; :meth:`KernelControls._show_controls` brings the
scrubber, the clock, the caption and the Jump box to a position.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as W

from rmqlab import EventKind
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .base import guarded
from .checkpoint_answered import answered_here
from .checkpoint_gate import gate
from .checkpoint_mask import Mask
from .frames import RunFrames, clock_text
from .jump_default import HOUSEKEEPING, default_kind, lesson_kind
from .kind_names import jump_label, jump_names
from .replay import Replay, RunOutline
from .stepper import Stepper

__all__ = ["CAPTION_STYLE", "JUMP_KINDS", "SOURCE_STYLE", "KernelControls", "button"]

JUMP_KINDS = (
    "dead_lettered",
    "lock_expired",
    "send_back",
    "delivered",
    "consumed",
    "scheduled",
    "delay_delivered",
    "suspended",
    "lock_refused",
    "rebalanced",
    "fault",
    "warning",
)
CAPTION_STYLE = (
    "border-left:3px solid var(--jp-brand-color1, #0072B2);padding:2px 8px;margin:2px 0;"
    "color:var(--jp-ui-font-color1, #222);font-size:var(--jp-ui-font-size1, 13px);line-height:1.4"
)
SOURCE_STYLE = "color:var(--jp-ui-font-color2, #555);font-size:var(--jp-ui-font-size0, 11px)"
"""The second line ("in the source: …") is quieter than the plain sentence above it."""


def button(label: str, tip: str, icon: str = "") -> W.Button:
    """A button named by its label alone. ``icon`` is not drawn: a Font Awesome glyph is CSS text that screen
    readers read as part of the name (Chromium names the button "\uf0e7 Crash broker")."""
    del icon
    # flex "0 0 auto": in an HBox the buttons keep their label's width instead of shrinking to "Re…"
    return W.Button(description=label, tooltip=tip, layout=W.Layout(width="auto", flex="0 0 auto"))


class KernelControls:
    """The move buttons, Play, speed, scrubber, Jump box, clock and caption, for a controller that has the attributes
    declared here."""

    replay: Replay | None
    snapshot: LabSnapshot | None
    stepper: Stepper | None
    outline: RunOutline | None
    frames: RunFrames | None
    caption_lines: tuple[str, ...]
    _syncing: bool
    reset: Callable[[], int]
    step_back: Callable[[], int]
    step_once: Callable[[], bool]
    pause: Callable[[], None]
    seek: Callable[[int], int]
    jump_to_next: Callable[[str], bool]
    _show: Callable[[], None]
    mask_here: Callable[[], Mask | None]

    if TYPE_CHECKING:

        @property
        def position(self) -> int: ...

        @property
        def end(self) -> int | None: ...

        @property
        def at_end(self) -> bool: ...

    def _build_move_controls(self) -> W.HBox:
        """Reset, Step back, Step, Play, Pause, "every event" and speed, in tab order; the scrubber, Jump box, clock,
        caption and message beside them."""
        self.reset_button = button(_("Reset"), _("rebuild the scenario from its factory (t = 0)"), "fast-backward")
        self.back_button = button(
            _("Step back"), _("back to the previous meaningful step (deterministic replay)"), "step-backward"
        )
        self.step_button = button(_("Step"), _("advance to the next meaningful event"), "step-forward")
        self.play_widget = W.Play(value=0, min=0, max=10**9, step=1, interval=200, description=_("play"),
                                  tooltip=_("play: one step per tick"), show_repeat=False)  # fmt: skip
        self.pause_button = button(_("Pause"), _("stop playing"), "pause")
        self.every_event = W.ToggleButton(
            value=False,
            description=_("every event"),
            tooltip=_(
                "on: Step, Step back and Play move one raw trace position (offset and lock bookkeeping too); "
                "off: one meaningful event"
            ),
            layout=W.Layout(width="auto", flex="0 0 auto"),
        )
        self.speed = W.IntSlider(
            value=5, min=1, max=50, description=_("steps/s"), tooltip=_("playback speed"), continuous_update=False
        )
        self.scrubber = W.IntSlider(value=0, min=0, max=1, description=_("position"), tooltip=_("trace position"),
                                    continuous_update=False, layout=W.Layout(width="60%"))  # fmt: skip
        self.kind_choice = W.Dropdown(
            options=[(jump_names().get(kind, kind), kind) for kind in JUMP_KINDS],
            value="dead_lettered",
            description=_("next"),
            tooltip=_("event kind to jump to (with the run known ahead: only the kinds still to come, and how many)"),
        )
        self.jump_button = button(_("Jump"), _("advance to the next event of the chosen kind"), "forward")
        self.clock = W.HTML(value="")
        self.caption_html = W.HTML(value="")
        self.message = W.HTML(value="")
        moves = (self.reset_button, self.back_button, self.step_button, self.play_widget, self.pause_button)
        return W.HBox([*moves, self.every_event, self.speed])

    def _wire_move_controls(self) -> None:
        """Each button calls its method twin; an error shows in the controller, never in the kernel."""
        g = guarded(self)
        self.reset_button.on_click(g(lambda _: self.reset()))
        self.back_button.on_click(g(lambda _: self.step_back()))
        self.step_button.on_click(g(lambda _: self.step_once()))
        self.pause_button.on_click(g(lambda _: self.pause()))
        self.jump_button.on_click(g(lambda _: self.jump_to_next(self.kind_choice.value)))

    def _wire_move_observers(self) -> None:
        """Play ticks, speed, scrubber and the "every event" toggle."""
        g = guarded(self)
        self.play_widget.observe(g(self._on_tick), names="value")
        self.play_widget.observe(g(self._on_playing), names="playing")
        self.speed.observe(g(self._on_speed), names="value")
        self.scrubber.observe(g(self._on_scrub), names="value")
        self.every_event.observe(g(lambda _: self._show_caption()), names="value")

    @property
    def raw_steps(self) -> bool:
        """Step / Play move one raw position ("every event" is on)."""
        return bool(self.every_event.value)

    # ------------------------------------------------------------------ widget callbacks
    def _on_tick(self, change: dict[str, Any]) -> None:
        if self._syncing or change["new"] <= change["old"]:
            return
        if not self.step_once():
            self.pause()

    def _on_playing(self, change: dict[str, Any]) -> None:
        """Play at the end of the run starts it again from t = 0 (instead of doing nothing)."""
        if change["new"] and self.replay is not None and self.at_end:
            self.replay.rebuild()
            self._show()

    def _on_speed(self, change: dict[str, Any]) -> None:
        self.play_widget.interval = max(20, 1000 // int(change["new"]))

    def _on_scrub(self, change: dict[str, Any]) -> None:
        if not self._syncing and self.replay is not None and change["new"] != self.position:
            self.seek(int(change["new"]))

    # ------------------------------------------------------------------ showing a position
    def _show_controls(self, snap: LabSnapshot) -> None:
        """The scrubber at the snapshot's position (its range the run so far, or the whole run), the clock, the
        caption and the Jump box."""
        assert self.replay is not None
        pos = snap.trace_len
        top = max(pos, self.end or 0, self.scrubber.max)
        self._syncing = True
        try:
            with self.scrubber.hold_trait_notifications():
                self.scrubber.min = self.replay.start
                self.scrubber.max = max(top, self.replay.start + 1)
                self.scrubber.value = pos
        finally:
            self._syncing = False
        self.clock.value = f'<span role="status" aria-live="off">{html.escape(self.clock_text)}</span>'
        self._show_caption()

    @property
    def answered(self) -> set[str]:
        """The checkpoints answered right so far (the controller knows)."""
        raise NotImplementedError

    def _sync_jump_choices(self, position: int) -> None:
        """Offer in the Jump box only the kinds still to come, each with how many (all of them if the future is
        not known); keep the student's choice while it is still on offer."""
        limit, blocked = None, False
        if self.outline is None:
            names = jump_names()
            choices: tuple[tuple[str, str], ...] = tuple((names.get(kind, kind), kind) for kind in JUMP_KINDS)
        else:  # only what a Jump can reach before a question still to answer: its kinds would tell the answer
            limit = gate(self.frames, self.answered, position, self.outline.end)
            blocked = limit < self.outline.end
            ahead = self.outline.ahead(position, until=limit)
            counts = ((kind, ahead[EventKind(kind)]) for kind in JUMP_KINDS)
            choices = tuple((jump_label(kind, n), kind) for kind, n in counts if n)
        offered = choices or ((_("answer the question first") if blocked else _("nothing ahead"), ""),)
        if offered != self.kind_choice.options:
            chosen = self.kind_choice.value
            self.kind_choice.options = offered  # selects the first option
            if chosen in (value for _, value in choices) and chosen not in HOUSEKEEPING:
                self.kind_choice.value = chosen
            elif self.outline is not None and choices:  # the lesson's kind (widgets.jump_default), never bookkeeping
                ahead = self.outline.ahead(position, until=limit)
                left = {value: ahead[EventKind(value)] for _, value in choices}
                self.kind_choice.value = default_kind(left, self.lesson_kind())
        self.kind_choice.disabled = self.jump_button.disabled = not choices

    def lesson_kind(self) -> str:
        """The kind the Jump box opens on (:func:`widgets.jump_default.lesson_kind`)."""
        return "" if self.frames is None else lesson_kind(self.frames.checkpoints, self.frames.kinds)

    def _frame_here(self) -> int:
        """The page's frame at the current position (the summary frame once the replay found nothing follows the last
        event), or -1: no frames, a raw step, or between frames. The caption and the clock read it alike."""
        if self.frames is None or self.raw_steps or self.replay is None:
            return -1
        return self.frames.index_of(self.position, self.replay.lab.now, ended=self.replay.at_end)

    def _caption_for_position(self) -> tuple[str, ...]:
        """The captions of the step that reached the current position (a function of position and toggle)."""
        if self.stepper is None:
            return ()
        frames, frame = self.frames, self._frame_here()
        done = answered_here(frames, frame, self.answered)
        if done is not None:  # a paused frame whose question is answered says what it hid (widgets.checkpoint_answered)
            return done.caption
        # a frame's caption is the page's (its first knows the run ahead, its last what the run showed)
        lines = (
            frames.captions[frame]
            if frames is not None and frame >= 0
            else self.stepper.caption_lines(raw=self.raw_steps, last=self.at_end)
        )
        mask = self.mask_here()  # a paused "when" checkpoint: the kernel's caption hides its answer as the page's does
        return lines if mask is None else tuple(mask(line) for line in lines)

    def _show_caption(self) -> None:
        self.caption_lines = self._caption_for_position()
        source = _("in the source: {rule}").format(rule="")  # the second line's start, in the language spoken now
        body = "".join(
            f'<div style="{SOURCE_STYLE}">{html.escape(line)}</div>'
            if line.startswith(source)
            else f"<div><b>{html.escape(line)}</b></div>"
            for line in self.caption_lines
        )
        named = _("what this step did")
        self.caption_html.value = (
            f'<div data-testid="rmq-caption" role="status" aria-live="polite" aria-label="{named}" '
            f'style="{CAPTION_STYLE}">{body}</div>'
        )

    @property
    def caption(self) -> str:
        """The caption of the step just taken, as the browser shows it (one line per event)."""
        return "\n".join(self.caption_lines)

    @property
    def clock_text(self) -> str:
        """The clock readout as plain text: the page's for a frame (whose `` · end`` is the last frame's alone, the
        summary after the last event), else computed here."""
        if self.snapshot is None:
            return _("no scenario")
        frame = self._frame_here()
        if self.frames is not None and frame >= 0:
            return self.frames.clock(frame)
        return clock_text(self.snapshot.now_ms, self.position, self.end, self.at_end)
