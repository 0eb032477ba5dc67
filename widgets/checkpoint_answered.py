"""Once a checkpoint is answered, its paused frame says what it hid: the mask lasts only until the answer.

A "when" checkpoint hides its answer on the frame it pauses on (:mod:`widgets.checkpoint_mask`): "…goes back to
the broker and returns in ?", every consumer clock "route poll in ?", the retry timeline's "due in ?". The student
answers there, reads the explanation, and the frame went on saying "?" — after a right answer, after "Show me",
and on every later visit with all checkpoints answered; lab 03's step 33 still read "due in ?" at the end of the
run (revA item 7). Now, for each paused frame with a mask:

* :class:`Answered` is what the frame shows once its checkpoints are answered: no mask but the values a *later*
  checkpoint still hides up to its own pause (:mod:`widgets.checkpoint_hide`), and its caption so;
* the kernel shows it at that frame when every checkpoint pausing there is answered (``Controller.mask_at``);
* the page gets it sealed with the frames past the pause, under the same key (:func:`widgets.page_seal.seal_tail`
  ``fixes``; ``seal_player``'s ``answer``): each picture's segment then starts with two deltas, the paused frame
  answered and the way back to it masked (so the segment's own deltas apply unchanged), and ``scene.js`` shows the
  first in place of the masked frame. Before the answer nothing of it is in the page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .checkpoint_hide import offset_patterns
from .checkpoint_mask import Mask, mask_model

if TYPE_CHECKING:
    from .checkpoints import AskedCheckpoint
    from .frames import RunFrames

__all__ = ["Answered", "answer_fixes", "answered_frames", "answered_here"]


@dataclass(frozen=True, slots=True)
class Answered:
    """A paused frame as it reads once its checkpoints are answered."""

    mask: Mask | None
    """What stays hidden there: the values of checkpoints that pause later (None: nothing)."""
    caption: tuple[str, ...]


def answered_frames(
    checkpoints: Sequence[AskedCheckpoint], plain: Mapping[int, tuple[str, ...]], masked: Mapping[int, Any]
) -> dict[int, Answered]:
    """Per paused frame that has a mask (``masked``: the run's masks by frame), how it reads answered; ``plain``:
    the paused frames' captions before any mask."""
    out: dict[int, Answered] = {}
    for frame, lines in sorted(plain.items()):
        if frame not in masked:
            continue
        mask = None
        for cp in checkpoints:  # a later question's hidden value is still hidden here
            if cp.hidden and cp.frame > frame:
                hide = Mask(offset_patterns(), hidden=cp.hidden)
                mask = hide if mask is None else Mask(mask.patterns + hide.patterns, hidden=mask.hidden + hide.hidden)
        out[frame] = Answered(mask, lines if mask is None else tuple(mask(line) for line in lines))
    return out


def answered_here(frames: RunFrames | None, frame: int, answered: set[str]) -> Answered | None:
    """How ``frame`` reads now: :class:`Answered` when it is a paused frame whose checkpoints are all answered."""
    if frames is None or frame not in frames.answered:
        return None
    pausing = [cp.name for cp in frames.checkpoints if cp.frame == frame]
    return frames.answered[frame] if pausing and all(name in answered for name in pausing) else None


def _whole(view: Any, frames: RunFrames, frame: int) -> dict[str, Any]:
    """``view``'s picture (or table) at ``frame`` as the page's JSON, answered."""
    from .event_log import EventLog  # the views import this module's neighbours
    from .event_table import event_table_json

    vm = mask_model(view.model(frames.snapshots[frame]), frames.answered[frame].mask)
    whole: dict[str, Any] = event_table_json(vm) if isinstance(view, EventLog) else view.scene(vm).to_json({})
    return whole


def answer_fixes(view: Any, frames: RunFrames, encoded: dict[str, Any]) -> dict[int, tuple[dict[str, Any], ...]]:
    """Per paused frame whose picture changes once answered: the delta to the answered picture and the delta back
    (``encoded``: the view's page frames, :func:`widgets.frames.encode`)."""
    from .frames import decode, encode_json

    fixes: dict[int, tuple[dict[str, Any], ...]] = {}
    for frame in frames.answered:
        if frame >= len(encoded.get("frames") or ()):
            continue
        masked = decode(encoded, frame)
        there, back = encode_json([masked, _whole(view, frames, frame), masked])["frames"][1:]
        if there:
            fixes[frame] = (there, back)
    return fixes
