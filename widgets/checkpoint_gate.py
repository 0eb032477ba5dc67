"""A checkpoint not yet answered stops every move forward at its question: Step, Play, a scrub, Jump, End.

Step and Play always landed on a checkpoint's frame (it is a step) and the page's player kept them there until the
question was answered; a scrub, a Jump or End could pass it, so a student could read the answer before making the
prediction. :func:`gate` says where a move forward from ``here`` to ``target`` must stop instead: at the first
unanswered checkpoint on the way (``scene.js``'s ``gate`` is its twin in the page). Every checkpoint the run asks
stops a move: a lab's ``optional=True`` only says that a run without its event (a knob changed) asks nothing.
"""

from __future__ import annotations

from collections.abc import Collection

from .frames import RunFrames

__all__ = ["gate"]


def gate(frames: RunFrames | None, answered: Collection[str], here: int, target: int) -> int:
    """The position a move from ``here`` towards ``target`` (both trace positions) may reach: ``target``, or the
    position of the first checkpoint on the way (``here`` itself when it is paused there) not in ``answered``
    (names)."""
    if frames is None or target <= here:
        return target
    waiting = [
        frames.positions[cp.frame]
        for cp in frames.checkpoints
        if cp.name not in answered and here <= frames.positions[cp.frame] < target
    ]
    return min(waiting, default=target)
