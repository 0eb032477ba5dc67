"""FramedView: a view the page plays from the run's frames (the pictures, and the Events tab's table).

A controller that runs ahead (:mod:`widgets.controller_frames`) sends every such view its frames once per build
(:meth:`FramedView.send_page_frames`); the page then shows frame k with no kernel round trip, and the kernel draws
into :attr:`FramedView.canvas` itself only while it shows a position that is no frame (:attr:`FramedView.live`).
The canvas is an anywidget drawn by ``scene.js`` with the traits ``run`` (the run whose player moves it, ``""``:
none) and ``frames`` (the view's frames, delta-encoded by :func:`widgets.frames.encode_json`).

While the page draws the view (not :attr:`FramedView.live`: it shows a frame, or the view is a tab never opened),
:meth:`FramedView.update` only remembers the snapshot: the view-model (and a scene view's scene) is computed when
something reads it (:attr:`vm`, :attr:`text`, :attr:`renders`, a scene's ``current``, or drawing it live), so a
kernel that follows the page's Steps recomputes nothing nobody looks at.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .base import SnapshotView, guarded
from .page_seal import seal_tail

if TYPE_CHECKING:
    from rmqlab.snapshot import LabSnapshot

    from .frames import RunFrames

__all__ = ["FramedView"]


class FramedView(SnapshotView):
    """A view whose every frame the page can draw (subclasses: :class:`~widgets.scene.SceneView`, the Events tab)."""

    canvas: Any
    """The anywidget that draws the view (traits ``run`` and ``frames``), set by the subclass."""
    _due: tuple[LabSnapshot, Callable[[Any], Any] | None] | None = None
    """The snapshot (and mask) of an :meth:`update` put off while the page draws the view (:meth:`catch_up`)."""
    _vm: Any = None
    _text = ""
    _renders = 0

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.live = True
        """The kernel sends every picture it draws. A controller with the run's frames in the page turns this off
        while it shows a frame (the page draws it from the canvas's ``frames``)."""
        self.run_frames: RunFrames | None = None
        """The run whose frames the canvas has (set by :meth:`send_page_frames`)."""

    def update(self, snap: LabSnapshot, mask: Callable[[Any], Any] | None = None) -> None:
        """:meth:`SnapshotView.update` now if the kernel draws the view (:attr:`live`); else only remember ``snap``:
        the page draws this frame from the frames it has, and the view-model waits until it is read."""
        self.snapshot, self.mask = snap, mask
        self._due = (snap, mask)
        if self.live:
            self.catch_up()

    def catch_up(self) -> None:
        """Compute the view-model (and render it) of the last :meth:`update` if it was put off."""
        due, self._due = self._due, None
        if due is not None:
            guarded(self)(super().update)(*due)  # a view-model that fails shows in the view's debug, as live

    @property
    def vm(self) -> Any:
        """The view-model of the last snapshot (computed now if :meth:`update` put it off)."""
        self.catch_up()
        return self._vm

    @vm.setter
    def vm(self, value: Any) -> None:
        self._vm = value

    @property
    def text(self) -> str:
        """The plain-text rendering of :attr:`vm`."""
        self.catch_up()
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self._text = value

    @property
    def renders(self) -> int:
        """How many times the view-model changed and was rendered."""
        self.catch_up()
        return self._renders

    @renders.setter
    def renders(self, value: int) -> None:
        self._renders = value

    def page_frames(self, frames: RunFrames) -> dict[str, Any]:
        """This view's frames of ``frames``' run, delta-encoded for the page."""
        raise NotImplementedError

    def draw_live(self) -> None:
        """Send the kernel's current picture to the canvas (after the page showed frames)."""
        raise NotImplementedError

    def send_page_frames(self, frames: RunFrames) -> None:
        """Give the page this view's frames of ``frames``' run (once per build, or when the tab is first opened)."""
        from .checkpoint_answered import answer_fixes  # it imports the checkpoints, which import the views

        self.run_frames = frames
        with self.canvas.hold_sync():
            # past the first checkpoint's pause, sealed under its right answer (widgets/page_seal.py)
            encoded = self.page_frames(frames)
            fixes = answer_fixes(self, frames, encoded) if frames.checkpoints else None  # the pauses, answered
            self.canvas.frames = seal_tail(encoded, frames.checkpoints, self.title, fixes)
            self.canvas.run = frames.run

    def clear_page_frames(self, run: str = "") -> None:
        """Forget the frames (a new build: they come again when the view is shown); ``run``: the new run's id."""
        self.run_frames = None
        with self.canvas.hold_sync():
            self.canvas.frames = {}
            self.canvas.run = run
