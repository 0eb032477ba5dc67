"""Seal the teacher's exercise bank into what students get: ``python -m teacher.compile`` (``--check`` to compare).

Reads the answers from the solved labs (each answer cell's ``### BEGIN SOLUTION`` region in ``labs/NN_x.py``) and
the explanations and hints from :mod:`teacher.bank_queues` and :mod:`teacher.bank_retry` (and what a right
prediction reveals after them, :mod:`teacher.after`; their Chinese, :mod:`teacher.bank_zh`) and the explanations of
the checkpoints on the labs' pictures (:mod:`teacher.checkpoints_retry`, :mod:`teacher.checkpoints_queues`), then writes
``rmqlab/course/bank.json``: per exercise its id, points, unit, the kind of its answer (a number, a word, a text,
a sequence), the general hint, the tag of the right prediction with the explanation sealed under it, and the tag
and sealed text of each near miss that has a hint (:mod:`rmqlab.course.sealed`); per checkpoint explanation, the tag
of its right answer and its texts sealed under it (:mod:`rmqlab.course.explanations`). The output is deterministic (the
salt is the course's and the exercise id), so it is committed, and ``tests/test_sealed_bank.py`` checks that it is
what these sources compile to. Run it after changing an answer, an explanation or a hint.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from rmqlab.course.explanations import explanation_key
from rmqlab.course.sealed import canonical, kind_of, master_key, seal, tag

from .after import AFTER
from .bank_queues import QUEUE_EXERCISES, TOUR_EXERCISES
from .bank_retry import RETRY_EXERCISES
from .bank_zh import ZH
from .checkpoints_queues import QUEUE_CHECKPOINTS
from .checkpoints_retry import RETRY_CHECKPOINTS
from .declare import CheckpointWhy, Exercise, Translated

ROOT = Path(__file__).resolve().parent.parent
LABS = ROOT / "labs"
OUT = ROOT / "rmqlab" / "course" / "bank.json"
SALT = "rmqlab-course-2026"
"""The course salt: a class that wants its own bank changes it and recompiles (every tag and text changes)."""
EXERCISES: tuple[Exercise, ...] = tuple(
    replace(ex, after=AFTER[ex.id]) if ex.id in AFTER else ex
    for ex in (*TOUR_EXERCISES, *RETRY_EXERCISES, *QUEUE_EXERCISES)
)
"""Every exercise, lab by lab: 00 (the tour), the retry labs 01–04b, the queue labs 05–09."""
CHECKPOINTS: tuple[CheckpointWhy, ...] = (*RETRY_CHECKPOINTS, *QUEUE_CHECKPOINTS)
"""Every checkpoint explanation of the labs' pictures, lab by lab (:mod:`teacher.checkpoints_retry`, 00–04b, and
:mod:`teacher.checkpoints_queues`, 05–09)."""

_ANSWER = re.compile(
    r'"grade_id": "ex(?P<lab>\d\d[a-z]?)_(?P<k>\d+)_answer"[^\n]*\nanswer_(?P=k) = \.\.\.[^\n]*\n'
    r"### BEGIN SOLUTION\nanswer_(?P=k) = (?P<value>.+)\n### END SOLUTION"
)


def answers(labs: Path = LABS) -> dict[str, Any]:
    """Every exercise's answer, by id, from the solution regions of the solved labs' sources."""
    out: dict[str, Any] = {}
    for path in sorted(labs.glob("[0-9][0-9]*_*.py")):
        for match in _ANSWER.finditer(path.read_text()):
            ex_id = f"{match['lab']}.{match['k']}"
            if ex_id in out:
                raise ValueError(f"{path.name}: exercise {ex_id} has two answer cells")
            out[ex_id] = ast.literal_eval(match["value"])
    return out


def compile_one(ex: Exercise, expected: Any, salt: str = SALT, zh: Translated | None = None) -> dict[str, Any]:
    """One exercise as the student's bank holds it: tags and sealed texts, no plain answer or explanation; with
    ``zh``, its Chinese texts too (``"translations"``), sealed under the same predictions with their own stream."""
    kind = kind_of(expected)
    right = canonical(expected, kind, ex.unit)
    if right is None:
        raise ValueError(f"exercise {ex.id}: its answer {expected!r} cannot be read as its own kind {kind!r}")
    key = master_key(right, salt, ex.id)
    hints: dict[str, str] = {}
    for value, text in ex.hinted(expected):
        spelling = canonical(value, kind, ex.unit)
        if spelling is None or spelling in hints:
            continue  # the first hint that fits a prediction is the one shown
        if spelling == right:
            raise ValueError(f"exercise {ex.id}: a hint would be given for the right answer {value!r}")
        hints[spelling] = text
    zh_hints: dict[str, str] = {}
    if zh is not None:
        for (value, _), (_, text) in zip(ex.hinted(expected), ex.hinted(expected, zh), strict=True):
            spelling = canonical(value, kind, ex.unit)
            if spelling is not None:
                zh_hints.setdefault(spelling, text)  # the same first fit as the English
    sealed_hints, sealed_zh = [], []
    for spelling, text in hints.items():
        wrong = master_key(spelling, salt, ex.id)
        sealed_hints.append([tag(wrong), seal(text, wrong)])
        if zh is not None:
            sealed_zh.append([tag(wrong), seal(zh_hints[spelling], wrong, "zh")])
    out: dict[str, Any] = {
        "id": ex.id,
        "points": ex.points,
        "unit": ex.unit,
        "kind": kind,
        "hint": ex.hint,
        "tag": tag(key),
        "why": seal(ex.revealed, key),
        "hints": sorted(sealed_hints),  # by tag: the order says nothing about which value a hint fits
    }
    if zh is not None:
        out["translations"] = {"zh": {"hint": zh.hint, "why": seal(zh.revealed, key, "zh"), "hints": sorted(sealed_zh)}}
    return out


def compile_checkpoint(why: CheckpointWhy, salt: str = SALT) -> dict[str, Any]:
    """One checkpoint explanation as the student's bank holds it: the tag of its right answer and its English and
    Chinese sealed under it (:mod:`rmqlab.course.explanations`)."""
    key = explanation_key(why.answer, why.id, salt)
    if key is None:
        raise ValueError(f"checkpoint explanation {why.id}: its answer {why.answer!r} is not a choice's key")
    return {"id": why.id, "tag": tag(key), "why": seal(why.why, key),
            "translations": {"zh": seal(why.zh, key, "zh")}}  # fmt: skip


def compile_bank(labs: Path = LABS, salt: str = SALT) -> str:
    """The text of ``bank.json`` for these sources."""
    found = answers(labs)
    declared = {ex.id for ex in EXERCISES}
    if len(declared) != len(EXERCISES):
        raise ValueError("an exercise id is declared twice in teacher/bank_*.py")
    if set(found) != declared:
        raise ValueError(
            f"labs and bank disagree: answers without a declaration {sorted(set(found) - declared)}, "
            f"declarations without an answer cell {sorted(declared - set(found))}"
        )
    if set(ZH) != declared:
        raise ValueError(
            f"teacher/bank_zh.py and the bank disagree: translations of no exercise {sorted(set(ZH) - declared)}, "
            f"exercises without a translation {sorted(declared - set(ZH))}"
        )
    ids = [why.id for why in CHECKPOINTS]
    if len(set(ids)) != len(ids):
        raise ValueError(f"a checkpoint explanation id is declared twice in teacher/checkpoints_*.py: {sorted(ids)}")
    bank = {"salt": salt, "exercises": [compile_one(ex, found[ex.id], salt, ZH[ex.id]) for ex in EXERCISES],
            "checkpoints": [compile_checkpoint(why, salt) for why in CHECKPOINTS]}  # fmt: skip
    return json.dumps(bank, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = compile_bank()
    if argv == ["--check"]:
        if OUT.read_text() != text:
            print(f"{OUT} is not what teacher/ and labs/ compile to: run python -m teacher.compile", file=sys.stderr)
            return 1
        print(f"{OUT.name} is up to date")
        return 0
    if argv:
        print("usage: python -m teacher.compile [--check]", file=sys.stderr)
        return 2
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(EXERCISES)} exercises, {len(CHECKPOINTS)} checkpoint explanations)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
