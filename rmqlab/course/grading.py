"""Judging a prediction against the sealed bank: the self-check's verdict and the autograder's test.

:func:`judge` puts the prediction in its canonical spelling, derives its key and compares its tag with the bank's:
right (the explanation unseals), a near miss with a hint (the hint unseals), wrong, or unreadable (not a value of
the exercise's kind). :func:`verify` is what a check cell's hidden test calls under ``nbgrader autograde``: it
raises ``AssertionError`` unless the prediction is right. It reads the answer's exact type and value (an object
whose ``__eq__`` always says True is not an int, a str or a bool) and never looks at the checks run before, so
rebinding ``check`` or ``assert_right`` changes nothing; the hidden test imports this module itself, in the
hidden region, instead of using a name from the student's namespace. What an in-kernel test cannot stop (code
that patches this module or ``hashlib`` in the grader's kernel) the grader stops outside the kernel:
:mod:`rmqlab.course.autograde`.
"""

from __future__ import annotations

import hmac
from typing import Any, Literal

from ..core.i18n import current_language
from .bank import EXERCISES, SALT, SealedExercise
from .sealed import canonical, master_key, tag, unseal

__all__ = ["Judged", "judge", "verify"]

Judged = Literal["right", "hint", "wrong", "unreadable"]


def judge(
    ex: SealedExercise, answer: Any, salt: str = SALT, language: str | None = None
) -> tuple[Judged, str | None]:
    """The verdict on ``answer`` for ``ex``, and the text it unlocks (the explanation, a hint, or ``None``) in
    ``language`` (default: the current one, :func:`rmqlab.set_language`; English where the bank has no translation)."""
    spelling = canonical(answer, ex.kind, ex.unit)
    if spelling is None:
        return "unreadable", None
    key = master_key(spelling, salt, ex.id)
    mine = tag(key)
    lang = language or current_language()
    texts = ex.in_language(lang)
    if hmac.compare_digest(mine, ex.tag):
        return "right", unseal(ex.why, key) if texts is None else unseal(texts.why, key, lang)
    for hint_tag, sealed in ex.hints:
        if hmac.compare_digest(mine, hint_tag):
            translated = None if texts is None else dict(texts.hints).get(hint_tag)
            return "hint", unseal(sealed, key) if translated is None else unseal(translated, key, lang)
    return "wrong", None


def verify(exercise_id: str, answer: Any) -> None:
    """The autograder's test: ``AssertionError`` unless ``answer`` is the right prediction for ``exercise_id``."""
    found = [ex for ex in EXERCISES if ex.id == exercise_id]
    if len(found) != 1:
        raise AssertionError(f"exercise {exercise_id!r} is not in the course's bank")
    if answer is Ellipsis:
        raise AssertionError(f"exercise {exercise_id}: no prediction")
    verdict, _ = judge(found[0], answer)
    if verdict != "right":
        raise AssertionError(f"exercise {exercise_id}: the prediction is not right ({verdict})")
