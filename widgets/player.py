"""PlayerWidget: Step, Back, Play, scrub, Jump and the checkpoints, run in the page over a run's frames.

The kernel sends the run's frames once (:meth:`~widgets.frames.RunFrames.player_json`); every move after that
happens in the browser (``scene.js``): the player draws the clock and the caption and tells the run's scene
widgets which frame to show, with no kernel round trip. The kernel learns the position asynchronously through
:attr:`position` (``-1``: the kernel shows a position that is not a frame, e.g. after a raw step) and the
checkpoint answers through :attr:`answers`. A message ``{"cmd": "step"}`` / ``{"cmd": "back"}`` asks the kernel
to move when the page cannot (past the last frame of a run too long to send whole).
"""

from __future__ import annotations

import pathlib

import anywidget
import traitlets

__all__ = ["PlayerWidget"]


class PlayerWidget(anywidget.AnyWidget):
    """The in-page player of one run (see the module docstring)."""

    _esm = pathlib.Path(__file__).with_name("scene.js")
    kind = traitlets.Unicode("player").tag(sync=True)
    data = traitlets.Dict().tag(sync=True)
    """The run: ``run`` id, ``positions``, ``clocks``, ``captions``, ``jumps``, ``checkpoints``, ``complete``."""
    position = traitlets.Int(0).tag(sync=True)
    """The frame shown (set by the page, or by the kernel after a method twin moved the run); -1: not a frame."""
    live_clock = traitlets.Unicode("").tag(sync=True)
    live_caption = traitlets.List(traitlets.Unicode()).tag(sync=True)
    live_near = traitlets.Int(0).tag(sync=True)
    """Clock, caption and the last frame before the kernel's own position while :attr:`position` is -1."""
    playing = traitlets.Bool(False).tag(sync=True)
    interval = traitlets.Int(200).tag(sync=True)
    """Milliseconds per step while playing."""
    answers = traitlets.List(traitlets.Dict()).tag(sync=True)
    """One entry per checkpoint answered in the page: ``{"name", "tries", "shown"}``."""

    def __repr__(self) -> str:
        """No object address: a notebook's saved text output of a Dashboard must be the same on every run."""
        return "PlayerWidget()"
