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

__all__ = ["Exercise", "Hint"]

_EXERCISE_ID = re.compile(r"^(\d\d[a-z]?)\.(\d+)$")
"""``NN.k`` or ``NNa.k``: a lab split in two (02a, 02b) keeps its number and gets a letter."""


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

    def hinted(self, expected: Any) -> list[tuple[Any, str]]:
        """(wrong prediction, hint text) pairs, declared hints first, then "that is milliseconds" for seconds."""
        pairs = [(value, hint.text) for hint in self.hints for value in hint.wrong_values(expected)]
        if self.unit == "s" and isinstance(expected, int | float) and not isinstance(expected, bool) and expected:
            pairs.append((expected * 1000, "That is the value in milliseconds; the question asks for seconds."))
        return pairs
