"""FramedView: a view the page plays from the run's frames (the pictures, and the Events tab's table).

A controller that runs ahead (:mod:`widgets.controller_frames`) sends every such view its frames once per build
(:meth:`FramedView.send_page_frames`); the page then shows frame k with no kernel round trip, and the kernel draws
into :attr:`FramedView.canvas` itself only while it shows a position that is no frame (:attr:`FramedView.live`).
The canvas is an anywidget drawn by ``scene.js`` with the traits ``run`` (the run whose player moves it, ``""``:
none) and ``frames`` (the view's frames, delta-encoded by :func:`widgets.frames.encode_json`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import SnapshotView

if TYPE_CHECKING:
    from .frames import RunFrames

__all__ = ["FramedView"]


class FramedView(SnapshotView):
    """A view whose every frame the page can draw (subclasses: :class:`~widgets.scene.SceneView`, the Events tab)."""

    canvas: Any
    """The anywidget that draws the view (traits ``run`` and ``frames``), set by the subclass."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.live = True
        """The kernel sends every picture it draws. A controller with the run's frames in the page turns this off
        while it shows a frame (the page draws it from the canvas's ``frames``)."""
        self.run_frames: RunFrames | None = None
        """The run whose frames the canvas has (set by :meth:`send_page_frames`)."""

    def page_frames(self, frames: RunFrames) -> dict[str, Any]:
        """This view's frames of ``frames``' run, delta-encoded for the page."""
        raise NotImplementedError

    def draw_live(self) -> None:
        """Send the kernel's current picture to the canvas (after the page showed frames)."""
        raise NotImplementedError

    def send_page_frames(self, frames: RunFrames) -> None:
        """Give the page this view's frames of ``frames``' run (once per build, or when the tab is first opened)."""
        self.run_frames = frames
        with self.canvas.hold_sync():
            self.canvas.frames = self.page_frames(frames)
            self.canvas.run = frames.run

    def clear_page_frames(self, run: str = "") -> None:
        """Forget the frames (a new build: they come again when the view is shown); ``run``: the new run's id."""
        self.run_frames = None
        with self.canvas.hold_sync():
            self.canvas.frames = {}
            self.canvas.run = run
