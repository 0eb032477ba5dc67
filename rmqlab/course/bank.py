"""The exercise bank as students get it: sealed (``bank.json``, compiled from the teacher's sources by
``python -m teacher.compile``).

Per exercise: its id, points, unit, the kind of its answer, the general hint (a pointer at the mechanism that
never tells the answer), the tag of the right prediction and the explanation sealed under it, and the tag and
sealed text of each near miss that has a hint (:mod:`rmqlab.course.sealed`). No answer and no explanation is in
plain text here, nor anywhere in the installed package. Each exercise also carries its texts in Chinese (``"zh"``:
the general hint, and the explanation and hints sealed under the same predictions, each language with its own
stream); :mod:`rmqlab.course.grading` unseals the ones of the current language (:func:`rmqlab.set_language`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.i18n import N_
from ..core.i18n import gettext as _
from .answers import Unit
from .sealed import Kind

__all__ = ["BANK_FILE", "EXERCISES", "SALT", "SealedExercise", "Translation", "load", "record"]

BANK_FILE = Path(__file__).with_name("bank.json")


@dataclass(frozen=True)
class Translation:
    """An exercise's texts in one more language: ``hint`` plain, ``why`` and each hint sealed (by the tag of the
    prediction that unlocks it) under the same keys as the English ones."""

    hint: str | None
    why: str
    hints: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class SealedExercise:
    """One exercise of the sealed bank: what a check needs, nothing a student could read the answer from."""

    id: str
    points: int
    unit: Unit | None
    kind: Kind
    hint: str | None
    tag: str
    why: str
    hints: tuple[tuple[str, str], ...]
    translations: tuple[tuple[str, Translation], ...] = ()
    """By language (``"zh"``): the general hint, the sealed explanation and the sealed hints in that language."""

    def in_language(self, language: str) -> Translation | None:
        """This exercise's texts in ``language``, if the bank has them (English is the record itself)."""
        return next((texts for lang, texts in self.translations if lang == language), None)

    def hint_in(self, language: str) -> str | None:
        """The general hint in ``language`` (English where the bank has no translation)."""
        texts = self.in_language(language)
        return self.hint if texts is None or texts.hint is None else texts.hint

    @property
    def lab(self) -> str:
        """The lab number (``"03"`` for ``"03.1"``, ``"02b"`` for ``"02b.1"``)."""
        return self.id.split(".")[0]

    @property
    def grade_id(self) -> str:
        """The nbgrader ``grade_id`` of the check cell (``"ex03_1"``)."""
        return "ex" + self.id.replace(".", "_")

    @property
    def kind_words(self) -> str:
        """What kind of prediction the exercise expects, in words (for a prediction of the wrong kind)."""
        return _kind_words(self.kind)


def _kind_words(kind: Kind) -> str:
    if isinstance(kind, list):
        return _("a list of {count} values: {kinds}").format(
            count=len(kind), kinds=", ".join(_kind_words(k) for k in kind)
        )
    return _(_KIND_WORDS[kind])


_KIND_WORDS = {"word": N_("True, False or None"), "number": N_("a number"), "text": N_("a text in quotes")}
"""A kind of answer in words (translated where shown)."""


def load(path: Path = BANK_FILE) -> tuple[str, tuple[SealedExercise, ...]]:
    """The course salt and every exercise of a compiled bank file."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return str(data["salt"]), tuple(record(e) for e in data["exercises"])


def record(e: dict[str, Any]) -> SealedExercise:
    """One exercise of ``bank.json`` (a dict as :func:`teacher.compile.compile_one` writes it)."""
    hints = tuple((str(t), str(s)) for t, s in e["hints"])
    translations = tuple(
        (language, Translation(t["hint"], t["why"], tuple((str(h), str(s)) for h, s in t["hints"])))
        for language, t in sorted(e.get("translations", {}).items())
    )
    return SealedExercise(e["id"], e["points"], e["unit"], e["kind"], e["hint"], e["tag"], e["why"], hints,
                          translations)  # fmt: skip


SALT, EXERCISES = load()
"""The course salt and every exercise, lab by lab (00, the retry labs 01–04b, the queue labs 05–09)."""
