"""What the teacher declares for an exercise: its explanation, its near-miss hints, unit and points.

These texts are plain here and nowhere else: ``python -m teacher.compile`` seals each explanation under the right
prediction and each hint under the wrong predictions it fits (:mod:`rmqlab.course.sealed`), and writes
``rmqlab/course/bank.json``. The answers themselves are not declared here: they are the solution regions of the
solved labs (``labs/NN_x.py``), so a lab and its bank cannot disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rmqlab.core.errors import ConfigError
from rmqlab.course.answers import UNIT_MS, Unit

__all__ = ["MS_HINT", "CheckpointWhy", "Exercise", "Hint", "Translated"]

_EXERCISE_ID = re.compile(r"^(\d\d[a-z]?)\.(\d+)$")
"""``NN.k`` or ``NNa.k``: a lab split in two (02a, 02b) keeps its number and gets a letter."""


MS_HINT = {
    "en": "That is the value in milliseconds; the question asks for seconds.",
    "zh": "这是以毫秒为单位的值；题目问的是秒。",
}
"""The hint every exercise in seconds gives to its answer written in milliseconds, by language."""


@dataclass(frozen=True)
class Translated:
    """An exercise's texts in another language (Simplified Chinese: :mod:`teacher.bank_zh`), each the translation
    of the English one declared in the same place: ``hints`` in the order of :attr:`Exercise.hints`. Sealed like
    the English ones, under the same predictions; a student in that language reads these instead."""

    why: str
    hint: str | None = None
    hints: tuple[str, ...] = ()
    after: str | None = None

    @property
    def revealed(self) -> str:
        """What a right prediction unlocks in this language (as :attr:`Exercise.revealed`)."""
        return self.why if self.after is None else f"{self.why}\n\n{self.after}"


@dataclass(frozen=True)
class Hint:
    """A nudge for a near miss, shown *instead of* the answer so the student can predict again.

    ``off_by``: the prediction differs from the answer by exactly one of these amounts (either sign, in the
    exercise's unit) — e.g. ``off_by=(1,)`` on a delivery count for "the first delivery is not a retry".
    ``equals``: the prediction is this particular wrong value (a known misconception). Sealed under each of those
    wrong predictions, so a student reads it only by making one. A hint's text must not contain the answer
    (``tests/test_student_copy.py`` checks it).
    """

    text: str
    off_by: tuple[float, ...] = ()
    equals: tuple[Any, ...] = ()

    def wrong_values(self, expected: Any) -> list[Any]:
        """The predictions this hint fits, for an exercise whose answer is ``expected``."""
        out = list(self.equals)
        if isinstance(expected, int | float) and not isinstance(expected, bool):
            for delta in self.off_by:
                out += [expected - delta, expected + delta]
        return out


@dataclass(frozen=True)
class Exercise:
    """One predict-then-run question of a lab, as the teacher's bank declares it.

    ``id`` is ``"NN.k"`` (lab NN, exercise k; ``"02b.1"`` in a lettered lab); its nbgrader cells are ``grade_id``
    ``exNN_k_answer`` (the prediction) and ``exNN_k`` (the check, worth ``points``). ``why`` is revealed once a
    prediction is right; ``after`` (optional) follows it: a "common belief vs. the source" box or a remark that would
    give the answer away if the lab showed it before the check. ``unit`` makes the comparison duration-aware
    (``"s"``: ``"4h45m40s"`` is 17140). ``hints`` fit particular near misses; ``hint`` points at the mechanism for
    the first wrong prediction no near-miss hint fits (it is not sealed: it must not tell the answer).
    """

    id: str
    why: str
    unit: Unit | None = None
    hints: tuple[Hint, ...] = ()
    points: int = 1
    hint: str | None = None
    after: str | None = None

    def __post_init__(self) -> None:
        if not _EXERCISE_ID.match(self.id):
            raise ConfigError(
                "id", self.id, "'NN.k': a two-digit lab number (and an optional letter), a dot, the exercise number"
            )
        if self.unit not in (None, *UNIT_MS):
            raise ConfigError("unit", self.unit, "None, 's' or 'ms'")
        if self.points < 1:
            raise ConfigError("points", self.points, "a whole number of points >= 1")

    @property
    def lab(self) -> str:
        """The lab number (``"03"`` for ``"03.1"``, ``"02b"`` for ``"02b.1"``)."""
        return self.id.split(".")[0]

    @property
    def grade_id(self) -> str:
        """The nbgrader ``grade_id`` of the check cell (``"ex03_1"``)."""
        return "ex" + self.id.replace(".", "_")

    @property
    def revealed(self) -> str:
        """What a right prediction unlocks: the explanation, then ``after`` as its own paragraph."""
        return self.why if self.after is None else f"{self.why}\n\n{self.after}"

    def hinted(self, expected: Any, translated: Translated | None = None) -> list[tuple[Any, str]]:
        """(wrong prediction, hint text) pairs, declared hints first, then "that is milliseconds" for seconds;
        with ``translated``, the same pairs with its texts (Chinese)."""
        if translated is not None:
            self.check_translation(translated)
        texts = [hint.text for hint in self.hints] if translated is None else list(translated.hints)
        pairs = [(value, text) for hint, text in zip(self.hints, texts, strict=True)
                 for value in hint.wrong_values(expected)]  # fmt: skip
        if self.unit == "s" and isinstance(expected, int | float) and not isinstance(expected, bool) and expected:
            pairs.append((expected * 1000, MS_HINT["en" if translated is None else "zh"]))
        return pairs

    def check_translation(self, translated: Translated) -> None:
        """A translation has a text for each of this exercise's texts, and no more (``ValueError`` naming it)."""
        shape = (len(self.hints), self.hint is None, self.after is None)
        theirs = (len(translated.hints), translated.hint is None, translated.after is None)
        if shape != theirs:
            raise ValueError(
                f"exercise {self.id}: its translation has {theirs[0]} hints, hint {'absent' if theirs[1] else 'given'}"
                f", after {'absent' if theirs[2] else 'given'}; the English has {shape[0]} hints, hint "
                f"{'absent' if shape[1] else 'given'}, after {'absent' if shape[2] else 'given'}"
            )


_CHECKPOINT_ID = re.compile(r"^\d\d[a-z]?\.[a-z0-9]+(?:-[a-z0-9]+)*$")
"""``NN.words-with-hyphens`` (``"07b.where-m0001"``): the lab, a dot, a name that stays when the lab is edited."""


@dataclass(frozen=True)
class CheckpointWhy:
    """The explanation a checkpoint on a lab's picture shows after the right answer, as the teacher declares it.

    A lab refers to it by ``id`` (``Checkpoint(..., explain=sealed_explanation("03.level"))``); ``python -m
    teacher.compile`` seals ``why`` and ``zh`` under ``answer`` (:mod:`rmqlab.course.explanations`), so the text is
    in no lab and no installed module. ``answer`` is the key of the right choice (``"delay:broker-a:3"``,
    ``"queue:%DLQ%cg@broker-a:0"``, ``"c2"``, ``"17140000"``) at the picture's first settings (the knobs the lab
    gives its Dashboard); ``tests/test_checkpoint_sealed.py`` runs each lab's pictures and checks that the engine
    gives that very answer. The texts may name the run's values (``{answer}``, ``{time}``, ``{msg}`` …,
    :func:`rmqlab.widgets.checkpoint_facts.run_facts`), filled in when the picture opens them.
    """

    id: str
    answer: str
    why: str
    zh: str

    def __post_init__(self) -> None:
        if not _CHECKPOINT_ID.match(self.id):
            raise ConfigError("id", self.id, "'NN.name': the lab (two digits and an optional letter), a dot, a name "
                              "of lower-case letters, digits and hyphens ('07b.where-m0001')")  # fmt: skip
        for field, text in (("answer", self.answer), ("why", self.why), ("zh", self.zh)):
            if not text.strip():
                raise ConfigError(field, text, f"a non-empty text for checkpoint explanation {self.id}")

    @property
    def lab(self) -> str:
        """The lab (``"07b"`` for ``"07b.where-m0001"``)."""
        return self.id.split(".")[0]
