"""The controller's frames in the page: built once per run, sent to the page, followed back; and its checkpoints.

A mixin of :class:`widgets.controller.Controller` (kept apart so each module stays readable): after every build
the run's frames (:mod:`widgets.frames`) go to the page's player and to each scene view that is shown; the page
moves through them on its own and the kernel follows asynchronously (:meth:`PageFrames._follow_player`), by
Stepping to the frame as the frames were built, so its state is the frame's own. Each position the kernel reaches
is handed to the views and the player here too (:meth:`PageFrames._show_views`). The checkpoints resolved against
the run are read, answered and scored here.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rmqlab.snapshot import LabSnapshot

from .base import SnapshotView
from .checkpoint_answered import answered_here
from .checkpoint_mask import Mask, mask_model
from .checkpoints import AskedCheckpoint, Checkpoint
from .framed import FramedView
from .frames import RunFrames, build_run, one_language
from .page_seal import seal_player, unlock_keys
from .player import PlayerWidget
from .replay import Replay, RunOutline
from .stepper import Stepper

__all__ = ["PageFrames"]


class PageFrames:
    """Frames in the page and checkpoints, for a controller that has the attributes declared here."""

    replay: Replay | None
    stepper: Stepper | None
    frames: RunFrames | None
    outline: RunOutline | None
    snapshot: LabSnapshot | None
    player: PlayerWidget
    views: list[SnapshotView]
    lazy_views: set[int]
    answers: list[dict[str, Any]]
    checkpoint_specs: tuple[Checkpoint, ...]
    horizon: int | str
    run_ahead: bool
    _syncing: bool
    _pending_frame: int | None
    _show: Callable[[], None]
    seek: Callable[..., int]
    step_once: Callable[[], bool]
    step_back: Callable[[], int]
    reset: Callable[[], int]
    caption_lines: tuple[str, ...]

    if TYPE_CHECKING:

        @property
        def position(self) -> int: ...

        @property
        def raw_steps(self) -> bool: ...

        @property
        def clock_text(self) -> str: ...

        @property
        def answered(self) -> set[str]: ...

    # ------------------------------------------------------------------ frames in the page
    def _build_frames(self) -> None:
        """Compute the run's frames once and send them to the page (the outline comes with them)."""
        assert self.replay is not None
        if not self.run_ahead:
            self.frames, self.outline = None, None
            self.player.data = {}
            for view in self.views:
                view.run_ends_at(None)
                if isinstance(view, FramedView):
                    view.live = True
                    view.clear_page_frames()
            return
        run = self.frames.run if self.frames is not None else None
        self.frames = build_run(
            self.replay.make_lab,
            horizon=self.horizon,
            faults=self.replay.faults,
            checkpoints=self.checkpoint_specs,
            run=run,
        )
        self.outline = self.frames.outline
        for view in self.views:
            view.run_ends_at(self.run_end_ms)
            if isinstance(view, FramedView):
                view.clear_page_frames(self.frames.run)
                if id(view) not in self.lazy_views:
                    self.send_frames(view)
        self._syncing = True
        try:
            with self.player.hold_sync():
                said = {f: a.caption for f, a in self.frames.answered.items()}
                self.player.data = seal_player(self.frames.player_json(), self.frames.checkpoints, said)
                self.player.answers = []
                self.player.unlocked = {}
        finally:
            self._syncing = False

    def _show_views(self, snap: LabSnapshot) -> None:
        """Hand ``snap`` to every view, and move the page's player to its frame: a picture whose frames are in the
        page is drawn by the page; one without (a hidden tab, a raw step between frames) by the kernel, live."""
        pos = snap.trace_len
        frame = self._page_frame(snap)
        mask = self.mask_at(snap)
        masked = None if mask is None else functools.partial(mask_model, mask=mask)
        for view in self.views:
            # the kernel draws a picture the page cannot: at a position that is no frame, or before its frames came,
            # masked at a paused checkpoint as the page's frame is; a tab never opened yet is not drawn at all
            # (nothing on screen: it gets its frames, or the kernel's picture, when it is opened, :meth:`send_frames`),
            # only its view-model kept up to date
            was_live = isinstance(view, FramedView) and view.live
            if isinstance(view, FramedView):
                view.live = id(view) not in self.lazy_views and (frame < 0 or not view.canvas.frames)
            view.update(snap, masked)
            if isinstance(view, FramedView) and view.live and not was_live:
                view.draw_live()
        self._syncing = True
        try:
            with self.player.hold_sync():
                if frame < 0:
                    self.player.live_near = self.frames.near(pos) if self.frames is not None else 0
                    self.player.live_clock = self.clock_text
                    self.player.live_caption = list(self.caption_lines)
                if self.frames is not None and frame >= 0:  # the keys of the frames up to it (it moved there itself)
                    self.player.unlocked = unlock_keys(self.frames.checkpoints, frame)
                self.player.position = frame
        finally:
            self._syncing = False

    @property
    def _ended(self) -> bool:
        """The replay found that nothing follows the current position (a Step past the run's last event)."""
        return self.replay is not None and self.replay.at_end

    def mask_at(self, snap: LabSnapshot) -> Mask | None:
        """What a checkpoint paused at ``snap``'s position hides or adds (:mod:`widgets.checkpoint_mask`), or
        ``None``: the same state as the frame's, however it was reached (Step, "every event", a seek), shows the
        same words and pictures in the kernel as in the page."""
        return self._mask_of(snap.trace_len, snap.now_ms)

    def mask_here(self) -> Mask | None:
        """:meth:`mask_at` the current position."""
        return None if self.replay is None else self._mask_of(self.position, self.replay.lab.now)

    def _mask_of(self, position: int, now_ms: int) -> Mask | None:
        if self.frames is None:
            return None
        frame = self.frames.index_of(position, now_ms, ended=self._ended)
        if frame < 0:
            return None
        done = answered_here(self.frames, frame, self.answered)  # answered: only a later question's values stay hidden
        return done.mask if done is not None else self.frames.masks.get(frame)

    def _page_frame(self, snap: LabSnapshot) -> int:
        """The frame the page shows for ``snap``'s position, or -1 (no frames, a raw step, between frames)."""
        if self.frames is None or self.raw_steps:
            return -1
        return self.frames.index_of(snap.trace_len, snap.now_ms, ended=self._ended)

    @property
    def run_end_ms(self) -> int | None:
        """The clock of the run's last frame (None: no frames)."""
        return self.frames.snapshots[-1].now_ms if self.frames is not None and self.frames.snapshots else None

    def send_frames(self, view: SnapshotView) -> None:
        """Send ``view``'s frames to the page now (a hidden tab's, when it is opened); where the page has no frame
        for the position shown, the kernel's picture too (a tab never opened was not drawn while hidden)."""
        opened = id(view) in self.lazy_views
        self.lazy_views.discard(id(view))
        if not isinstance(view, FramedView):
            return
        if self.frames is not None and not view.canvas.frames:
            view.send_page_frames(self.frames)
        if opened and self.snapshot is not None and self._page_frame(self.snapshot) < 0:
            view.live = True
            view.draw_live()

    @property
    def checkpoints(self) -> tuple[AskedCheckpoint, ...]:
        """The dashboard's checkpoints, resolved against the current run (their answers from the engine)."""
        return self.frames.checkpoints if self.frames is not None else ()

    def checkpoint(self, name: str) -> AskedCheckpoint:
        """The checkpoint called ``name`` (KeyError names those there are)."""
        for cp in self.checkpoints:
            if cp.name == name:
                return cp
        raise KeyError(f"checkpoint {name!r}; have {[cp.name for cp in self.checkpoints]}")

    def goto_checkpoint(self, name: str) -> int:
        """Go to the step where checkpoint ``name`` pauses (just before its event); returns the position."""
        assert self.frames is not None
        return self.seek(self.frames.positions[self.checkpoint(name).frame], gated=False)

    def answer(self, name: str, choice: str) -> tuple[bool, str]:
        """Answer checkpoint ``name`` with the key of one of its choices: ``(True, explanation)`` or
        ``(False, hint)`` — the twin of clicking a place in the picture."""
        cp = self.checkpoint(name)
        right, text = cp.check(choice)
        self.answers.append({"name": name, "choice": choice, "right": right})
        if right and self.replay is not None:
            self._show()  # the paused frame now says what it hid (widgets.checkpoint_answered)
        return right, text

    @property
    def score(self) -> dict[str, int]:
        """Checkpoints: how many there are, answered right at the first try, right after a hint, shown."""
        done = {a["name"]: a for a in self.player.answers}
        first = sum(1 for a in done.values() if a.get("tries") == 1 and not a.get("shown"))
        shown = sum(1 for a in done.values() if a.get("shown"))
        return {
            "checkpoints": len(self.checkpoints),
            "first_try": first,
            "after_hint": len(done) - first - shown,
            "shown": shown,
        }

    def _on_player_position(self, change: dict[str, Any]) -> None:
        """The page moved: follow it asynchronously (the last of a burst of moves only: the page itself sends its
        position once a burst of Steps, a Play or a scrub has settled, and the kernel coalesces what still queues)."""
        if self._syncing or self.frames is None or change["new"] < 0:
            return
        first = self._pending_frame is None
        self._pending_frame = int(change["new"])
        if not first:
            return
        try:
            asyncio.get_running_loop().call_later(0.05, self._follow_player)
        except RuntimeError:  # no event loop (tests, a plain script): follow now
            self._follow_player()

    def _follow_player(self) -> None:
        """Reach the page's frame as the frames were built: Step by Step (meaningful steps), from the current frame
        when it lies before, else from the start, so the state (and its virtual time) is the frame's own.

        Cheap on purpose (the kernel shares the machine with the page, and in JupyterLite its two cores): one
        Ctrl-C handler and one reading of the language for the whole walk, and the views the page draws from their
        frames are not recomputed (:meth:`widgets.framed.FramedView.update` defers their view-models until read)."""
        frame, self._pending_frame = self._pending_frame, None
        if frame is None or self.frames is None or self.replay is None or self.stepper is None:
            return
        frame = min(frame, len(self.frames) - 1)
        target = self.frames.positions[frame]
        here = self.frames.index_of(self.position, self.replay.lab.now, ended=self._ended)
        if here == frame:
            return
        if here < 0 or here > frame:
            self.replay.rebuild()
        end = self.frames.summary_frame and frame == len(self.frames) - 1  # one Step more: past the last event
        with one_language(), self.replay.lab.stepping():
            while (self.position < target or (end and not self.replay.at_end)) and self.stepper.step():
                pass
            self._show()

    def _on_player_msg(self, _widget: Any, content: dict[str, Any], _buffers: Any) -> None:
        """The page asks the kernel to move (past the frames it has, or one raw event)."""
        cmd = content.get("cmd") if isinstance(content, dict) else None
        if self._pending_frame is not None:  # the page's last position first: the move counts from there
            self._follow_player()
        if cmd == "step":
            self.step_once()
        elif cmd == "back":
            self.step_back()
        elif cmd == "reset":
            self.reset()
