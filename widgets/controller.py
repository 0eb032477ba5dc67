"""Controller: Play / Pause / Step / Step back / Reset, speed, a scrubber, a caption, and injected faults.

Every button has a method twin (:meth:`step_once`, :meth:`step_back`, :meth:`reset`, :meth:`play`,
:meth:`pause`, :meth:`jump_to_next`, :meth:`seek`, :meth:`seek_time`, :meth:`inject`, :meth:`clear_faults`) so tests and
notebooks drive it without a browser. Play uses an ``ipywidgets.Play``: the browser ticks its ``value``
every ``interval`` ms and each tick is one :meth:`step_once`; headless, :meth:`play` steps ``n`` times.

**Steps are meaningful events.** Step, Step back and Play move to the next (previous) position whose
scheduler step appended a meaningful event (:func:`rmqlab.narrate.is_meaningful`: a delivery, a consume
result, a send-back, a schedule hop, a DLQ write, a lock change, a send, a fault, a rebalance), skipping
offset and lock-renewal bookkeeping; the "every event" toggle makes them move one raw position. The
caption under the clock (``data-testid="rmq-caption"``, twin :attr:`caption`) says what the step just
taken did in two lines: a plain sentence (this run's numbers, no Java names, cause before effect, repeats
counted once) and "in the source:" with RocketMQ's own class and method and the rule
(:func:`rmqlab.narrate.step_caption`). A run of identical events (a pull failing every second for hours) is one
step: a step lands only where a meaningful event is *fresh* (:attr:`rmqlab.narrate.Caption.fresh`). The caption
is a function of the position and the toggle only, so every route to a position shows the same words.

**Faults** (crash / restart a broker or a consumer, partition / heal a link) are injected at the
current virtual time: the run is rebuilt as "factory + faults" (:class:`~widgets.replay.InjectedFault`)
and continues from the step at which the fault took effect. Step back before it shows the run without
it; Clear faults returns to the factory's own run at the same virtual time.

Position changes go through one place (:meth:`_show`), which takes one snapshot and hands it to
every attached view. A factory that raises shows its error in the controller; nothing is raised
into the kernel from a callback.

The class is put together from parts, each in its own module: the kernel's controls (buttons, clock, caption,
Jump box: :mod:`widgets.controller_controls`), the fault buttons (:mod:`widgets.controller_faults`) and the
frames in the page with their checkpoints (:mod:`widgets.controller_frames`). This module keeps the run: loading
a factory, the position, and the method twins that move it.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import ipywidgets as W

from rmqlab import EventKind, Lab, parse_duration
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .base import SnapshotView, guarded
from .checkpoint_gate import gate
from .checkpoint_mask import mask_model
from .checkpoints import Checkpoint, cuts_of
from .controller_controls import CAPTION_STYLE, JUMP_KINDS, SOURCE_STYLE, KernelControls
from .controller_faults import BROKER_FAULTS, CONSUMER_FAULTS, LINK_FAULTS, FaultPanel
from .controller_frames import PageFrames
from .frames import RunFrames
from .player import PlayerWidget
from .replay import InjectedFault, Replay, ReplayError, RunOutline
from .stepper import CAPTION_LINES, Stepper

__all__ = [
    "BROKER_FAULTS",
    "CAPTION_LINES",
    "CAPTION_STYLE",
    "CONSUMER_FAULTS",
    "JUMP_KINDS",
    "LINK_FAULTS",
    "SOURCE_STYLE",
    "Controller",
]


class Controller(KernelControls, FaultPanel, PageFrames, W.VBox):
    """Step-through control over a deterministic replay of ``make_lab()`` (plus any injected faults)."""

    def __init__(
        self,
        make_lab: Callable[[], Lab],
        *,
        views: Iterable[SnapshotView] = (),
        horizon: int | str = "6h",
        run_ahead: bool = True,
        checkpoints: Sequence[Checkpoint] = (),
    ) -> None:
        super().__init__()
        self.debug = W.Output(layout=W.Layout(max_height="12em", overflow="auto"))
        self.errors: list[str] = []
        self.views: list[SnapshotView] = list(views)
        self.horizon = horizon
        self.run_ahead = run_ahead
        self.make_lab: Callable[[], Lab] | None = None
        self.replay: Replay | None = None
        self.snapshot: LabSnapshot | None = None
        self.outline: RunOutline | None = None
        """The whole run, known in advance when ``run_ahead``: its end, and which events are still to come."""
        self.caption_lines: tuple[str, ...] = ()
        self._syncing = False
        self.stepper: Stepper | None = None
        """Meaningful steps and captions over :attr:`replay` (the frame builder walks a run the same way)."""
        self.checkpoint_specs: tuple[Checkpoint, ...] = tuple(checkpoints)
        self.frames: RunFrames | None = None
        """The run's frames, sent to the page once per build (``run_ahead``); ``None`` when not run ahead."""
        self.player = PlayerWidget()
        self.lazy_views: set[int] = set()
        """``id()`` of views whose frames wait until they are shown (hidden tabs): :meth:`send_frames`."""
        self.answers: list[dict[str, Any]] = []
        """Checkpoint answers given through :meth:`answer` (the page's are in ``player.answers``)."""
        self._pending_frame: int | None = None
        """The page's last frame, while the kernel has not followed it yet (:meth:`_on_player_position`)."""
        self.children = self._build_children(run_ahead)
        self.load(make_lab)

    def _build_children(self, run_ahead: bool) -> tuple[W.Widget, ...]:
        """Every control, wired to its method twin; in DOM order (the tab order): move first, then what it shows,
        then the faults."""
        self.buttons = self._build_move_controls()
        self.fault_box = self._build_fault_panel()
        self._wire_move_controls()
        self._wire_fault_panel()
        g = guarded(self)
        self.player.observe(g(self._on_player_position), names="position")
        self.player.on_msg(g(self._on_player_msg))
        self._wire_move_observers()
        self._on_speed({"new": self.speed.value})
        # run ahead: the page's player (scene.js) draws Reset … Jump, the clock, the caption and the checkpoints
        # over the run's frames; the ipywidgets twins stay for notebooks and tests that drive the kernel's run.
        # Not run ahead (no frames): the ipywidgets controls, each move a kernel round trip.
        self.every_event_box = W.HBox([self.every_event]) if run_ahead else None
        """The kernel's "every event" toggle beside the page's player (a Dashboard moves it under its picture)."""
        kernel_controls = (
            (self.buttons, W.HBox([self.scrubber, self.kind_choice, self.jump_button]), self.clock, self.caption_html)
            if self.every_event_box is None
            else (self.player, self.every_event_box)
        )
        return (*kernel_controls, self.message, self.fault_box, self.debug)

    # ------------------------------------------------------------------ scenario
    def load(self, make_lab: Callable[[], Lab], faults: Iterable[InjectedFault] = ()) -> bool:
        """Use a new factory (e.g. after a knob changed), at t = 0; ``False`` and an error message if it fails.

        Injected faults are forgotten unless ``faults`` are given (a new factory may not have those brokers).
        """
        self.pause()
        self.make_lab = make_lab
        try:
            self.replay = Replay(make_lab, horizon=self.horizon, faults=faults, cuts=cuts_of(self.checkpoint_specs))
            self.stepper = Stepper(self.replay)
            self._build_frames()
        except ReplayError as exc:
            self.replay, self.snapshot, self.outline, self.stepper = None, None, None, None
            self._set_disabled(True)
            self.message.value = f'<pre role="alert" style="color:#D55E00">⚠ {html.escape(str(exc))}</pre>'
            self.clock.value = _("no scenario")
            self.caption_lines = ()
            self.caption_html.value = ""
            return False
        self.message.value = ""
        self._set_disabled(False)
        self._show()
        self._sync_fault_targets()
        return True

    @property
    def end(self) -> int | None:
        """The run's final position, if it was run ahead (``run_ahead``); else ``None``."""
        return None if self.outline is None else self.outline.end

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
            self.kind_choice,
            self.jump_button,
            self.clear_faults_button,
            *self.fault_buttons.values(),
        ):
            w.disabled = disabled
        if not disabled:
            self._sync_fault_buttons()

    def attach(self, view: SnapshotView) -> None:
        """Add a view; it is drawn at the current position at once."""
        self.views.append(view)
        if self.snapshot is not None:
            mask = self.mask_at(self.snapshot)
            view.update(self.snapshot, None if mask is None else functools.partial(mask_model, mask=mask))

    # ------------------------------------------------------------------ meaningful steps
    def _sync(self) -> None:
        """Caption every new trace event and remember every reachable position seen."""
        assert self.stepper is not None
        self.stepper.sync()

    @property
    def at_end(self) -> bool:
        """Nothing more happens before the horizon (stepped past the last event, or at the known end)."""
        if self.replay is None:
            return False
        return self.replay.at_end or (self.end is not None and self.position >= self.end)

    # ------------------------------------------------------------------ method twins of the buttons
    @property
    def position(self) -> int:
        return self.replay.position if self.replay else 0

    @property
    def faults(self) -> tuple[InjectedFault, ...]:
        """The faults injected into the factory's run, in the order they were added."""
        return self.replay.faults if self.replay else ()

    @property
    def answered(self) -> set[str]:
        """The checkpoints answered right so far, here (:meth:`answer`) or in the page (``player.answers``)."""
        return {a["name"] for a in self.answers if a.get("right")} | {a["name"] for a in self.player.answers}

    def _gated(self, here: int, target: int) -> int:
        """Where a move from ``here`` to ``target`` stops: at a required checkpoint not yet answered on the way
        (:func:`widgets.checkpoint_gate.gate`), with a note saying why."""
        stop = gate(self.frames, self.answered, here, target)
        note = html.escape(_("answer the checkpoint first (or Show me in the player)"))
        if stop < target:
            self.message.value = note
        elif self.message.value == note:  # answered: the note goes
            self.message.value = ""
        return stop

    def _hold_at_checkpoint(self, here: int) -> None:
        """After a move from ``here`` that passed a checkpoint still to answer: back to its question."""
        assert self.replay is not None
        stop = self._gated(here, self.position)
        if stop < self.position:
            self.replay.seek(stop)

    def step_once(self) -> bool:
        """Advance to the next meaningful position (one raw position with "every event"); ``False`` at the end, or
        at a checkpoint still to answer."""
        if self.replay is None or self.stepper is None:
            return False
        if self._gated(self.position, self.position + 1) == self.position:
            self._show()
            return False
        moved = self.stepper.step(raw=self.raw_steps)
        self._show()
        return moved

    def step_back(self) -> int:
        """Back to the previous meaningful position (raw: the previous one), by rebuild + replay."""
        if self.replay is None or self.stepper is None:
            return 0
        self.stepper.back(raw=self.raw_steps)
        self._show()
        return self.position

    def reset(self) -> int:
        """Rebuild the scenario, back to its start (t = 0)."""
        if self.replay is None:
            return 0
        self.pause()
        self.replay.rebuild()
        self._show()
        return self.position

    def seek(self, k: int, *, gated: bool = True) -> int:
        """Go to the first reachable position >= ``k``; a checkpoint still to answer on the way stops it there, unless
        not ``gated`` (:meth:`goto_checkpoint` goes to a question, passing those before it)."""
        if self.replay is None:
            return 0
        self.replay.seek(self._gated(self.position, k) if gated else k)
        self._show()
        return self.position

    def seek_time(self, time: int | str) -> int:
        """Go to the first reachable position at or after virtual ``time`` (ms or ``"10s"``), by replay."""
        if self.replay is None:
            return 0
        here = self.position
        self.replay.seek_time(parse_duration(time, "time"))
        self._hold_at_checkpoint(here)
        self._show()
        return self.position

    def play(self, n: int | None = None) -> int:
        """Headless: ``n`` steps now, each rendered. Without ``n``: start the Play widget (browser)."""
        if self.replay is None:
            return 0
        if n is None:
            self.play_widget.playing = True
            return self.position
        for _step in range(n):
            if not self.step_once():
                break
        return self.position

    def pause(self) -> None:
        """Stop the Play widget."""
        self.play_widget.playing = False

    def jump_to_next(self, kind: EventKind | str) -> bool:
        """Advance until an event of ``kind`` happens; ``False`` (and a note) if it never does.

        With the run known in advance, a kind that does not come again leaves the position where it is (the
        student keeps their place); otherwise the replay has to run to the horizon to find out.
        """
        if self.replay is None:
            return False
        wanted = EventKind(kind)
        if self.outline is not None and not self.outline.ahead(self.position)[wanted]:
            found = False
        else:
            here = self.position
            found = self.replay.jump_to_next(wanted)
            self._hold_at_checkpoint(here)
            self._show()
        if not found:
            self.message.value = f"no further {html.escape(wanted.value)} event before the horizon"
        return found

    # ------------------------------------------------------------------ drawing
    def _show(self) -> None:
        """Take one snapshot at the current position and show it: the controls, the faults, every view."""
        assert self.replay is not None
        self._sync()
        snap = self.replay.snapshot()
        self.snapshot = snap
        self._show_controls(snap)
        self._show_faults()
        self._sync_jump_choices(snap.trace_len)
        if self.replay.at_end:
            self.pause()
        self._show_views(snap)
