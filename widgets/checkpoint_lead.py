"""What a checkpoint's paused frame says first: the step's events about what its question is about, if that tells
nothing of the answer.

A step's caption leads with its most telling event (:func:`rmqlab.narrate.step_caption`); at a pause the question's
own consumer and message come right after the mechanism's events (lab 08 paused on "pg sends M0001" while asking
about c1's copy). A pause must not say its answer, though (``tests/test_lab_pictures.py``): when the sentence that
would lead names the message with the place it goes ("where"), or says the event happen ("who"), the frame keeps the
caption it had. A tray ("consumed · cg", "dropped · c1") is said by the sentence that puts the message there, not by
its owner's name: lab 08's BROADCASTING pause kept "pg sends M0001" because "c1 fetches M0001" names c1.
"""

from __future__ import annotations

from collections.abc import Sequence

from rmqlab.core.i18n import gettext
from rmqlab.narrate.plain_consuming import DONE_WITH, DROPS_FAILED

from .checkpoint_when import happens
from .checkpoints import AskedCheckpoint
from .stepper import Stepper

__all__ = ["lead_pauses", "pause_caption"]


def lead_pauses(
    stepper: Stepper, checkpoints: Sequence[AskedCheckpoint], positions: Sequence[int], captions: list[tuple[str, ...]]
) -> None:
    """Give each checkpoint's paused frame (its index into ``positions`` and ``captions``) :func:`pause_caption`."""
    for cp in checkpoints:
        about = pause_caption(stepper, cp, positions[cp.frame]) if cp.frame > 0 else ()
        captions[cp.frame] = about or captions[cp.frame]


def pause_caption(stepper: Stepper, checkpoint: AskedCheckpoint, position: int) -> tuple[str, ...]:
    """The caption of the frame ``checkpoint`` pauses on (at ``position``), leading with its subject; ``()`` to keep
    the frame's own."""
    lines = stepper.caption_about(position, checkpoint.event)
    if not lines or _tells(checkpoint, lines[0]):
        return ()
    return lines


def _tells(checkpoint: AskedCheckpoint, line: str) -> bool:
    """``line`` says the answer: the message with its answer place ("where"), the event happening ("who")."""
    if checkpoint.ask == "where":
        msg = str(checkpoint.event.msg_id)
        return msg in line and any(word in line for word in _place_words(checkpoint.answer))
    if checkpoint.ask == "who":
        return happens(checkpoint.event) in line
    return False  # a "when" pause hides its times by its mask (widgets.checkpoint_mask)


def _place_words(key: str) -> list[str]:
    """How a caption may name the place ``key`` (``queue:TopicTest@broker-a:0``, ``delay:3``, ``consumer:c1``)."""
    kind, _, rest = key.partition(":")
    if kind == "queue":
        name, _, qid = rest.rpartition(":")
        topic, _, broker = name.partition("@")
        return [rest, f"{topic} queue {qid} on {broker}", topic]
    if kind == "delay":
        return [f"level {rest.rpartition(':')[2]}"]
    if kind in _TRAY_SENTENCES:  # a tray is named by its owner, which any line about that consumer names too:
        said = gettext(_TRAY_SENTENCES[kind])  # what tells is the sentence that puts the message there (revD: lab 08's
        return [said.split("{who}", 1)[-1].split("{msg}", 1)[0].strip()]  # pause kept "pg sends M0001")
    return [rest]


_TRAY_SENTENCES = {"done": DONE_WITH, "dropped": DROPS_FAILED}
"""The plain sentence that puts a message in a group's "consumed" tray or an instance's "dropped" one; the words
between its consumer and its message ("'s listener is done with", "drops the failed") say the answer."""
