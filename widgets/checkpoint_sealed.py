"""A checkpoint's explanation kept out of the lab: ``explain=sealed_explanation("03.level")``.

The words a picture says after the right answer tell the answer, so a lab that wrote them in its source (even in a
folded cell) let a student read the answer before answering (stop 34's review). They are written in the teacher's
sources instead (``teacher/checkpoints_*.py``: the English, the Chinese and the right answer at the picture's first
settings) and sealed in the course's bank under that answer (:mod:`rmqlab.course.explanations`); the lab names
them by id::

    Checkpoint(before="scheduled", ask="where", explain=sealed_explanation("03.level"))

When the checkpoint resolves, the engine's answer opens the text, in the current language, and the run's values
fill its ``{answer}``-style fields as for a lab's own words. A student who changed the knobs so that the answer is
another one gets the short form, "Right: <answer>.", and one sentence saying that the full explanation is written for
the picture's first settings. Hints stay in the lab: they point at the mechanism, not at the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rmqlab.core.errors import ConfigError
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _
from rmqlab.course.explanations import find, open_explanation

from .checkpoint_facts import answer_kind

__all__ = ["OTHER_SETTINGS", "SealedWhy", "opened", "own_explanation", "sealed_explanation"]

OTHER_SETTINGS = N_(
    "Right: {answer}. The full explanation is written for the picture's first settings (the knobs as the lab set them)."
)
"""What a right answer gets when the knobs led to another answer than the one the explanation is sealed under."""


@dataclass(frozen=True, slots=True)
class SealedWhy:
    """A checkpoint explanation in the course's bank, named by its id (use :func:`sealed_explanation`)."""

    id: str


def sealed_explanation(explanation_id: str) -> SealedWhy:
    """The bank's explanation ``explanation_id`` (``"07b.where-m0001"``: the lab, a dot, a name), for a
    :class:`~rmqlab.widgets.checkpoints.Checkpoint`'s ``explain``. An id the bank does not hold is a
    :class:`~rmqlab.ConfigError` naming the ids it holds for that lab."""
    if not isinstance(explanation_id, str):
        raise ConfigError("explanation_id", explanation_id, "a text such as '03.level'")
    find(explanation_id)
    return SealedWhy(explanation_id)


def opened(why: SealedWhy, answer: str, label: str) -> tuple[str, bool]:
    """``(text, True)``: the explanation opened with ``answer`` (the right choice's key), its fields still to fill;
    ``(short form, False)`` when the run's answer is not the one it is sealed under (``label``: the right button's)."""
    text = open_explanation(why.id, answer)
    if text is None:
        return _(OTHER_SETTINGS).format(answer=label), False
    return text, True


def own_explanation(explain: str | Mapping[str, str] | SealedWhy, answer: str, label: str) -> tuple[str, bool]:
    """A checkpoint's own explanation of the right answer ``answer`` (its fields not filled yet) and whether it
    opened: the bank's (:func:`opened`), the lab's text, or the one a lab gave for this answer's key (or its kind of
    place: ``"dlq"``, ``"delay"`` …); "" for the default."""
    if isinstance(explain, SealedWhy):
        return opened(explain, answer, label)
    if isinstance(explain, str):
        return explain, True
    return explain.get(answer, explain.get(answer_kind(answer), "")), True
