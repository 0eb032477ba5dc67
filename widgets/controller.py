"""Controller: Play / Pause / Step / Step back / Reset, speed, a scrubber, and "next event of kind X".

Every button has a method twin (:meth:`step_once`, :meth:`step_back`, :meth:`reset`, :meth:`play`,
:meth:`pause`, :meth:`jump_to_next`, :meth:`seek`) so tests and notebooks drive it without a
browser. Play uses an ``ipywidgets.Play``: the browser ticks its ``value`` every ``interval`` ms and
each tick is one :meth:`step_once`; headless, :meth:`play` steps ``n`` times synchronously.

Position changes go through one place (:meth:`_show`), which takes one snapshot and hands it to
every attached view. A factory that raises shows its error in the controller; nothing is raised
into the kernel from a callback.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import Any

import ipywidgets as W

from rmqlab import EventKind, Lab, format_duration

from .base import SnapshotView, guarded
from .replay import Replay, ReplayError
from .snapshot import LabSnapshot

__all__ = ["Controller"]

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


def _button(label: str, tip: str, icon: str = "") -> W.Button:
    # flex "0 0 auto": in an HBox the buttons keep their label's width instead of shrinking to "Re…"
    return W.Button(description=label, tooltip=tip, icon=icon, layout=W.Layout(width="auto", flex="0 0 auto"))


class Controller(W.VBox):
    """Step-through control over a deterministic replay of ``make_lab()``."""

    def __init__(
        self,
        make_lab: Callable[[], Lab],
        *,
        views: Iterable[SnapshotView] = (),
        horizon: int | str = "6h",
        run_ahead: bool = True,
    ) -> None:
        super().__init__()
        self.debug = W.Output(layout=W.Layout(max_height="12em", overflow="auto"))
        self.errors: list[str] = []
        self.views: list[SnapshotView] = list(views)
        self.horizon = horizon
        self.run_ahead = run_ahead
        self.replay: Replay | None = None
        self.snapshot: LabSnapshot | None = None
        self.end: int | None = None
        self._syncing = False

        self.reset_button = _button("Reset", "rebuild the scenario from its factory (position 0)", "fast-backward")
        self.back_button = _button("Step back", "previous event (deterministic replay)", "step-backward")
        self.step_button = _button("Step", "advance to the next trace event", "step-forward")
        self.play_widget = W.Play(
            value=0,
            min=0,
            max=10**9,
            step=1,
            interval=200,
            description="play",
            tooltip="play: one event per tick",
            show_repeat=False,
        )
        self.pause_button = _button("Pause", "stop playing", "pause")
        self.speed = W.IntSlider(
            value=5, min=1, max=50, description="events/s", tooltip="playback speed", continuous_update=False
        )
        self.scrubber = W.IntSlider(
            value=0,
            min=0,
            max=1,
            description="position",
            tooltip="trace position",
            continuous_update=False,
            layout=W.Layout(width="60%"),
        )
        self.kind_choice = W.Dropdown(
            options=JUMP_KINDS, value="dead_lettered", description="next", tooltip="event kind to jump to"
        )
        self.jump_button = _button("Jump", "advance to the next event of the chosen kind", "forward")
        self.clock = W.HTML(value="")
        self.message = W.HTML(value="")

        g = guarded(self)
        self.reset_button.on_click(g(lambda _: self.reset()))
        self.back_button.on_click(g(lambda _: self.step_back()))
        self.step_button.on_click(g(lambda _: self.step_once()))
        self.pause_button.on_click(g(lambda _: self.pause()))
        self.jump_button.on_click(g(lambda _: self.jump_to_next(self.kind_choice.value)))
        self.play_widget.observe(g(self._on_tick), names="value")
        self.speed.observe(g(self._on_speed), names="value")
        self.scrubber.observe(g(self._on_scrub), names="value")
        self._on_speed({"new": self.speed.value})

        self.buttons = W.HBox(
            [self.reset_button, self.back_button, self.step_button, self.play_widget, self.pause_button, self.speed]
        )
        self.children = (
            self.buttons,
            W.HBox([self.scrubber, self.kind_choice, self.jump_button]),
            self.clock,
            self.message,
            self.debug,
        )
        self.load(make_lab)

    # ------------------------------------------------------------------ scenario
    def load(self, make_lab: Callable[[], Lab]) -> bool:
        """Use a new factory (e.g. after a knob changed); ``False`` and an error message if it fails."""
        self.pause()
        try:
            self.replay = Replay(make_lab, horizon=self.horizon)
            self.end = self.replay.end_position() if self.run_ahead else None
        except ReplayError as exc:
            self.replay, self.snapshot, self.end = None, None, None
            self._set_disabled(True)
            self.message.value = f'<pre role="alert" style="color:#D55E00">⚠ {html.escape(str(exc))}</pre>'
            self.clock.value = "no scenario"
            return False
        self.message.value = ""
        self._set_disabled(False)
        self._show()
        return True

    @property
    def ok(self) -> bool:
        """A scenario is loaded (the factory worked)."""
        return self.replay is not None

    def _set_disabled(self, disabled: bool) -> None:
        for w in (
            self.reset_button,
            self.back_button,
            self.step_button,
            self.play_widget,
            self.pause_button,
            self.scrubber,
            self.jump_button,
        ):
            w.disabled = disabled

    def attach(self, view: SnapshotView) -> None:
        """Add a view; it is drawn at the current position at once."""
        self.views.append(view)
        if self.snapshot is not None:
            view.update(self.snapshot)

    # ------------------------------------------------------------------ method twins of the buttons
    @property
    def position(self) -> int:
        return self.replay.position if self.replay else 0

    def step_once(self) -> bool:
        """Advance to the next reachable position; ``False`` at the end."""
        if self.replay is None:
            return False
        moved = self.replay.step_once()
        self._show()
        return moved

    def step_back(self) -> int:
        """Back to the previous reachable position (rebuild + replay)."""
        if self.replay is None:
            return 0
        self.replay.step_back()
        self._show()
        return self.position

    def reset(self) -> int:
        """Rebuild the scenario, back to its start."""
        if self.replay is None:
            return 0
        self.pause()
        self.replay.rebuild()
        self._show()
        return self.position

    def seek(self, k: int) -> int:
        """Go to the first reachable position >= ``k``."""
        if self.replay is None:
            return 0
        self.replay.seek(k)
        self._show()
        return self.position

    def play(self, n: int | None = None) -> int:
        """Headless: ``n`` steps now, each rendered. Without ``n``: start the Play widget (browser)."""
        if self.replay is None:
            return 0
        if n is None:
            self.play_widget.playing = True
            return self.position
        for _ in range(n):
            if not self.step_once():
                break
        return self.position

    def pause(self) -> None:
        """Stop the Play widget."""
        self.play_widget.playing = False

    def jump_to_next(self, kind: EventKind | str) -> bool:
        """Advance until an event of ``kind`` happens; ``False`` (and a note) if it never does."""
        if self.replay is None:
            return False
        found = self.replay.jump_to_next(kind)
        self._show()
        if not found:
            self.message.value = f"no further {html.escape(str(EventKind(kind).value))} event before the horizon"
        return found

    # ------------------------------------------------------------------ widget callbacks
    def _on_tick(self, change: dict[str, Any]) -> None:
        if self._syncing or change["new"] <= change["old"]:
            return
        if not self.step_once():
            self.pause()

    def _on_speed(self, change: dict[str, Any]) -> None:
        self.play_widget.interval = max(20, 1000 // int(change["new"]))

    def _on_scrub(self, change: dict[str, Any]) -> None:
        if not self._syncing and self.replay is not None and change["new"] != self.position:
            self.seek(int(change["new"]))

    # ------------------------------------------------------------------ drawing
    def _show(self) -> None:
        assert self.replay is not None
        snap = self.replay.snapshot()
        self.snapshot = snap
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
        end = "" if self.end is None else f" / {self.end}"
        done = " · end" if self.replay.at_end else ""
        self.clock.value = (
            f'<span role="status" aria-live="polite">t = <b>{format_duration(snap.now_ms)}</b> '
            f"({snap.now_ms} ms) · event {pos}{end}{done}</span>"
        )
        if self.replay.at_end:
            self.pause()
        for view in self.views:
            view.update(snap)

    @property
    def clock_text(self) -> str:
        """The clock readout as plain text."""
        if self.snapshot is None:
            return "no scenario"
        end = "" if self.end is None else f" / {self.end}"
        return f"t = {format_duration(self.snapshot.now_ms)} ({self.snapshot.now_ms} ms) · event {self.position}{end}"
