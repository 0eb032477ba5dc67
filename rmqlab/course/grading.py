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

A loop over candidates (``for v in range(100): judge(ex, v)``, or ``check`` in a loop) would find a small answer
in the student's kernel. Every judgement is counted (:data:`JUDGED`, per exercise, per kernel): the self-check
stops saying right or wrong after :data:`FREE_JUDGEMENTS` of them (:func:`rmqlab.course.exercises.check`), and
:func:`verify` writes the count into the check cell's output when it is more, so the autograded notebook shows the
teacher a loop. The points still come from the final answer. (Code that reimplements the hash from ``bank.json``
is not counted: the count makes a casual loop visible and useless, it is no lock; docs/classroom.md.)
"""

from __future__ import annotations

import hmac
from collections import Counter
from typing import Any, Literal

from ..core.i18n import N_, current_language
from ..core.i18n import gettext as _
from .bank import EXERCISES, SALT, SealedExercise
from .sealed import canonical, master_key, tag, unseal

__all__ = ["FREE_JUDGEMENTS", "JUDGED", "Judged", "judge", "verify"]

Judged = Literal["right", "hint", "wrong", "unreadable"]

FREE_JUDGEMENTS = 3
"""Predictions per exercise per kernel the self-check judges before it stops saying right or wrong."""
JUDGED: Counter[str] = Counter()
"""Judgements made in this kernel, by exercise id (every :func:`judge`: a check, a loop, the hidden test)."""
MANY_JUDGED = N_(
    "Exercise {exercise}: {n} predictions were judged in this kernel before this test (the self-check judges "
    "{free}); the points come from the answer cell as submitted."
)


def judge(
    ex: SealedExercise, answer: Any, salt: str = SALT, language: str | None = None
) -> tuple[Judged, str | None]:
    """The verdict on ``answer`` for ``ex``, and the text it unlocks (the explanation, a hint, or ``None``) in
    ``language`` (default: the current one, :func:`rmqlab.set_language`; English where the bank has no translation)."""
    spelling = canonical(answer, ex.kind, ex.unit)
    if spelling is None:
        return "unreadable", None
    JUDGED[ex.id] += 1  # a prediction of the right kind: one judgement
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
    before = JUDGED[exercise_id]
    if before > FREE_JUDGEMENTS:  # a loop over candidates, made visible in the autograded notebook
        print(_(MANY_JUDGED).format(exercise=exercise_id, n=before, free=FREE_JUDGEMENTS))
    verdict, _text = judge(found[0], answer)
    if verdict != "right":
        raise AssertionError(f"exercise {exercise_id}: the prediction is not right ({verdict})")
