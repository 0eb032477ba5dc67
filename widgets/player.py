"""PlayerWidget: Step, Back, Play, scrub, Jump and the checkpoints, run in the page over a run's frames.

The kernel sends the run's frames once (:meth:`~widgets.frames.RunFrames.player_json`); every move after that
happens in the browser (``scene.js``): the player draws the clock and the caption and tells the run's scene
widgets which frame to show, with no kernel round trip. The kernel learns the position asynchronously through
:attr:`position` (``-1``: the kernel shows a position that is not a frame, e.g. after a raw step), told once a burst
of moves has settled (Steps in a row, a Play, a scrub: one message, so that following it does not take the CPU from
the page's next Steps), and the checkpoint answers through :attr:`answers`. A message ``{"cmd": "step"}`` /
``{"cmd": "back"}`` asks the kernel to move when the page cannot (past the last frame of a run too long to send
whole).
"""

from __future__ import annotations

import pathlib

import anywidget
import traitlets

from rmqlab.core.i18n import gettext as _

from .kind_names import kind_words

__all__ = ["PlayerWidget", "player_words"]


def player_words() -> dict[str, str]:
    """The page's player's words in the current language, by their English text (``{"Step": "单步", …}``); only
    those that differ from the English, so an English page carries none (``scene.js`` falls back to its own).
    The event kinds' names in the Jump box come as ``kind:<kind>`` (:func:`widgets.kind_names.kind_names`)."""
    words = {
        (
            "run controls: Space plays or pauses, Left and Right arrows step, "
            "Home and End go to the first and last step, J jumps"
        ): _(
            "run controls: Space plays or pauses, Left and Right arrows step, "
            "Home and End go to the first and last step, J jumps"
        ),
        "Reset": _("Reset"),
        "back to the start of the run (t = 0)": _("back to the start of the run (t = 0)"),
        "Step back": _("Step back"),
        "back to the previous meaningful step": _("back to the previous meaningful step"),
        "Step": _("Step"),
        "advance to the next meaningful event": _("advance to the next meaningful event"),
        "Play": _("Play"),
        "Pause": _("Pause"),
        "play one step per tick; Pause stops": _("play one step per tick; Pause stops"),
        "{tip} (key: {key})": _("{tip} (key: {key})"),
        "steps per second": _("steps per second"),
        "playback speed: steps per second": _("playback speed: steps per second"),
        "step": _("step"),
        "scrub through the run's steps": _("scrub through the run's steps"),
        "step {index} of {last}: {clock}": _("step {index} of {last}: {clock}"),
        "event kind to jump to": _("event kind to jump to"),
        "the kinds still to come, and how many": _("the kinds still to come, and how many"),
        "Jump": _("Jump"),
        "advance to the next step with an event of the chosen kind": _(
            "advance to the next step with an event of the chosen kind"
        ),
        "nothing ahead": _("nothing ahead"),
        "answer the question first": _("answer the question first"),
        "what this step did": _("what this step did"),
        "checkpoint question": _("checkpoint question"),
        "checkpoints: {answered} of {total} answered · {first} right first time": _(
            "checkpoints: {answered} of {total} answered · {first} right first time"
        ),
        "Checkpoint: {question}": _("Checkpoint: {question}"),
        "answers": _("answers"),
        "answer: {label}": _("answer: {label}"),
        "Show me": _("Show me"),
        "play the step and see the answer": _("play the step and see the answer"),
        "Not quite. Hint: {hint} Try again, or Show me.": _("Not quite. Hint: {hint} Try again, or Show me."),
        "{kind} ({n})": _("{kind} ({n})"),
        "This page cannot check answers or play past a question: the browser offers no Web Crypto here (open the "
        "page from disk, over https or on localhost).": _(
            "This page cannot check answers or play past a question: the browser offers no Web Crypto here (open the "
            "page from disk, over https or on localhost)."
        ),
    }
    return {english: said for english, said in words.items() if said != english} | kind_words()


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
    unlocked = traitlets.Dict().tag(sync=True)
    """The frames keys (hex, by checkpoint name) of the checkpoints the kernel moved the run past itself: the page
    opens the frames sealed under them (:func:`widgets.page_seal.unlock_keys`); those the student answers it opens
    with the answer."""
    words = traitlets.Dict().tag(sync=True)
    """The player's words in the language of its making (:func:`player_words`; empty in English)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.words = player_words()

    def __repr__(self) -> str:
        """No object address: a notebook's saved text output of a Dashboard must be the same on every run."""
        return "PlayerWidget()"
