"""The explanations of the labs' checkpoints as students get them: sealed in ``bank.json`` under the right answer.

A checkpoint on a lab's picture (:mod:`rmqlab.widgets.checkpoints`) pauses the run and asks where a message goes,
when or who; after the right answer it explains the mechanism. Those words tell the answer, so they are written in
the teacher's sources (``teacher/checkpoints_*.py``), not in the lab, and ``python -m teacher.compile`` seals each
one (English and Chinese, each with its own stream) under the key of its right answer at the picture's first
settings, as it seals an exercise's explanation (:mod:`rmqlab.course.sealed`). The lab names it by id
(``explain=sealed_explanation("03.level")``); the picture opens it with the answer the engine gives for the run it
shows (:func:`open_explanation`). A run whose knobs lead to another answer cannot open it: the picture then says the
short form instead.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError
from ..core.i18n import current_language
from .bank import BANK_FILE, SALT
from .sealed import canonical, master_key, tag, unseal

__all__ = ["EXPLANATIONS", "SealedExplanation", "explanation_key", "find", "load", "open_explanation"]


@dataclass(frozen=True)
class SealedExplanation:
    """One checkpoint's explanation in the bank: the tag of its right answer, and its texts sealed under it."""

    id: str
    tag: str
    why: str
    translations: tuple[tuple[str, str], ...] = ()
    """By language (``"zh"``): the same explanation sealed under the same answer with that language's stream."""

    @property
    def lab(self) -> str:
        """The lab (``"07b"`` for ``"07b.where-m0001"``)."""
        return self.id.split(".")[0]


def explanation_key(answer: str, explanation_id: str, salt: str = SALT) -> bytes | None:
    """The key an answer (a checkpoint choice's key) gives for one explanation (``None``: not a text)."""
    spelling = canonical(answer, "text")
    return None if spelling is None else master_key(spelling, salt, f"checkpoint/{explanation_id}")


def load(path: Path = BANK_FILE) -> tuple[SealedExplanation, ...]:
    """Every checkpoint explanation of a compiled bank file."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return tuple(
        SealedExplanation(str(e["id"]), str(e["tag"]), str(e["why"]),
                          tuple((lang, str(t)) for lang, t in sorted(e.get("translations", {}).items())))
        for e in data.get("checkpoints", [])
    )  # fmt: skip


EXPLANATIONS = load()
"""Every checkpoint explanation of the course's bank, lab by lab."""


def find(explanation_id: str) -> SealedExplanation:
    """The bank's explanation ``explanation_id``; an unknown id is a :class:`ConfigError` listing the ids of its lab
    (or of every lab)."""
    for e in EXPLANATIONS:
        if e.id == explanation_id:
            return e
    lab = str(explanation_id).split(".")[0]
    known = [e.id for e in EXPLANATIONS if e.lab == lab] or [e.id for e in EXPLANATIONS]
    where = f"one of lab {lab}'s" if any(e.lab == lab for e in EXPLANATIONS) else "one of the bank's"
    raise ConfigError(
        "explanation_id", explanation_id,
        f"{where} checkpoint explanations {known} (declared in teacher/checkpoints_*.py, compiled by "
        "python -m teacher.compile)",
    )  # fmt: skip


def open_explanation(explanation_id: str, answer: str, language: str | None = None) -> str | None:
    """The explanation ``explanation_id`` opened with ``answer`` (the right choice's key), in ``language`` (default:
    the current one; English where the bank has no translation); ``None`` when ``answer`` is not the one it was
    sealed under (the run's knobs led to another answer)."""
    sealed = find(explanation_id)
    key = explanation_key(answer, explanation_id)
    if key is None or not hmac.compare_digest(tag(key), sealed.tag):
        return None
    lang = language or current_language()
    translated = dict(sealed.translations).get(lang)
    return unseal(sealed.why, key) if translated is None else unseal(translated, key, lang)
