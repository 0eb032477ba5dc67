"""The leak search of tests/test_leaks.py and tests/browser/test_lite.py: what a student must never read in plain text.

Searched for: every sentence of six words or more of every explanation, near-miss hint and revealed box (the
teacher's texts, in ``teacher/``, which must appear nowhere a student can read; the explanations of the labs'
checkpoints too, :mod:`teacher.checkpoints_retry` and :mod:`teacher.checkpoints_queues`), and every sentence of twelve
characters or more of their Chinese (``teacher/bank_zh.py``), the solutions (``### BEGIN
SOLUTION`` regions), and each answer's telling spellings (numbers of four digits or more, every spelling of a
duration, answers written as texts of eight characters or more).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rmqlab.course.answers import spellings
from teacher.bank_zh import ZH
from teacher.compile import CHECKPOINTS, EXERCISES, answers

ARCHIVES = (".whl", ".zip")
"""Files searched member by member, unpacked (a wheel's modules, Pyodide's zipped standard library)."""


FIELD = re.compile(r"\{\w+\}")
"""A field of a checkpoint's text, filled from the run (``{answer}``)."""


def sentences() -> list[tuple[str, str]]:
    """(exercise id, sentence) for every sentence of six words or more the teacher's texts hold, and every
    sentence of twelve characters or more of their Chinese (a clause may repeat a plain general hint's)."""
    found = []
    for ex in EXERCISES:
        for text in (ex.why, ex.after or "", *(h.text for h in ex.hints)):
            for sentence in re.split(r"(?<=[.?!])\s+|\n+", text):
                if len(sentence.split()) >= 6:
                    found.append((ex.id, sentence.strip()))
        zh = ZH[ex.id]
        for text in (zh.why, zh.after or "", *zh.hints):
            for sentence in re.split(r"(?<=[。？！])|\n+", text):
                if len(sentence.strip()) >= 12:
                    found.append((ex.id, " ".join(sentence.split())))
    for why in CHECKPOINTS:  # the checkpoints' explanations, as the teacher wrote them (fields unfilled), without
        # their fields in the count: "答对了：{answer}。" is the catalog's own short form, not an explanation
        found += [(f"checkpoint {why.id}", s.strip()) for s in re.split(r"(?<=[.?!])\s+|\n+", why.why)
                  if len(FIELD.sub("", s).split()) >= 6]  # fmt: skip
        found += [(f"checkpoint {why.id}", " ".join(s.split())) for s in re.split(r"(?<=[。？！])|\n+", why.zh)
                  if len(FIELD.sub("", s).strip()) >= 12]  # fmt: skip
    return found


def telling(value: Any, unit: str | None) -> list[str]:
    """Spellings of an answer that ordinary text would not contain by chance: numbers of 1000 or more in every
    spelling (durations too), texts of eight characters or more; a list, its items."""
    if isinstance(value, list | tuple):
        return [s for item in value for s in telling(item, unit)]
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int | float):
        return spellings(value, unit) if abs(value) >= 1000 else []  # type: ignore[arg-type]
    return [value] if len(str(value)) >= 8 else []


def found(spelling: str, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(spelling)}(?![\w]|\.\d)", text, flags=re.IGNORECASE) is not None


ANSWERS = answers()
UNITS = {ex.id: ex.unit for ex in EXERCISES}
SENTENCES = sentences()
CHINESE = re.compile(r"[\u4e00-\u9fff]")
SENTENCE_WORDS = [(ex_id, s, frozenset(s.split(" ")[1:-1]), bool(CHINESE.search(s))) for ex_id, s in SENTENCES]
"""(exercise id, sentence, its inner words, whether it has a Chinese character): a sentence found in a text
(whitespace runs made one space) has each word but its first and last as a whole word of that text, and a Chinese
one needs a text with a Chinese character; so :func:`search` looks for a sentence itself only in the texts that
could hold it: the same findings as searching every text for every sentence, but in one pass over most texts
instead of one per sentence (the Lite site has 260 M characters)."""
TELLING = [(ex_id, s, s.lower()) for ex_id, value in ANSWERS.items() for s in telling(value, UNITS[ex_id])]
"""(exercise id, spelling, the spelling in lower case): what :func:`search` looks for, a plain substring search
first (fast on a large site), the whole-token match only where that finds something."""


def search(texts: Iterator[tuple[str, str]], answers_in: Callable[[str], bool] = lambda where: True) -> list[str]:
    """Every leak in ``(where, text)`` pairs: a teacher's sentence, a solution region, a telling answer (only where
    ``answers_in(where)``: third-party bundles hold an answer's bare digits by chance, never a teacher's sentence)."""
    leaks = []
    for where, text in texts:
        split = text.split()
        flat, words, chinese = " ".join(split), set(split), CHINESE.search(text) is not None
        leaks += [f"{ex_id}: sentence {s!r} in {where}" for ex_id, s, inner, han in SENTENCE_WORDS
                  if inner <= words and (chinese or not han) and s in flat]  # fmt: skip
        if "### BEGIN SOLUTION" in text and re.search(r"### BEGIN SOLUTION\s*\nanswer_\d+ = ", text):
            leaks.append(f"a solution region in {where}")
        if not answers_in(where):
            continue
        lower = text.lower()
        leaks += [f"{ex_id}: answer {s!r} in {where}" for ex_id, s, low in TELLING if low in lower and found(s, text)]
    return leaks


def files_as_text(root: Path) -> Iterator[tuple[str, str]]:
    """Every file under ``root`` as text (bytes that are not UTF-8 replaced), and every member of each wheel or zip,
    unpacked: ``(relative path[:member], text)``."""
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        where = str(path.relative_to(root))
        if path.suffix in ARCHIVES:
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    yield f"{where}:{name}", archive.read(name).decode("utf-8", "replace")
        else:
            yield where, path.read_bytes().decode("utf-8", "replace")
