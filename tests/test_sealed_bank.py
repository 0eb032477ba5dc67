"""The sealed bank: it is what the teacher's sources compile to, it states no answer or explanation (in English or
in Chinese), each prediction unlocks its text in the language of the run, and its cryptography is the standard one
(PBKDF2-HMAC-SHA256 by hashlib or by hmac alone, as under Pyodide).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

import rmqlab
from rmqlab.course import sealed
from rmqlab.course.bank import BANK_FILE, EXERCISES, record
from rmqlab.course.grading import judge, verify
from rmqlab.course.sealed import canonical, master_key, seal, tag, unseal
from teacher.bank_zh import ZH
from teacher.compile import EXERCISES as TEACHER_BANK
from teacher.compile import LABS, answers, compile_bank, compile_one, main


def test_the_committed_bank_is_what_the_teacher_sources_compile_to() -> None:
    """Change an answer (labs/NN_x.py), an explanation or a hint (teacher/) → run `python -m teacher.compile`."""
    assert BANK_FILE.read_text(encoding="utf-8") == compile_bank()
    assert main(["--check"]) == 0


def test_every_answer_of_the_solved_labs_is_right_and_unlocks_its_explanation() -> None:
    found = answers()
    by_id = {ex.id: ex for ex in TEACHER_BANK}
    assert sorted(found) == sorted(ex.id for ex in EXERCISES) and len(EXERCISES) == len(TEACHER_BANK)
    for ex in EXERCISES:
        assert judge(ex, found[ex.id]) == ("right", by_id[ex.id].revealed)
        verify(ex.id, found[ex.id])


def test_every_declared_near_miss_unlocks_its_own_hint_and_nothing_else() -> None:
    found = answers()
    sealed_by_id = {ex.id: ex for ex in EXERCISES}
    for ex in TEACHER_BANK:
        seen: set[str] = set()
        for value, _text in ex.hinted(found[ex.id]):
            spelling = canonical(value, sealed_by_id[ex.id].kind, ex.unit)
            if spelling is None or spelling in seen:
                continue
            seen.add(spelling)
            assert judge(sealed_by_id[ex.id], value)[0] == "hint", (ex.id, value)
            with pytest.raises(AssertionError):
                verify(ex.id, value)
        assert len(sealed_by_id[ex.id].hints) == len(seen)


def test_the_bank_file_states_no_answer_and_no_explanation() -> None:
    """Every explanation, 'after' box and near-miss hint is sealed; answers are tags; general hints stay plain."""
    text = BANK_FILE.read_text(encoding="utf-8")
    for ex in TEACHER_BANK:
        for secret in (ex.why, ex.after or ""):
            sentences = [s for s in re.split(r"(?<=[.:;])\s+", secret) if len(s.split()) >= 5]
            assert [s for s in sentences if s in text] == [], ex.id
        assert [h.text for h in ex.hints if h.text in text] == [], ex.id
    strings = [v for e in json.loads(text)["exercises"] for v in (e["id"], e["unit"], e["hint"]) if v]
    for ex_id, value in answers().items():
        if isinstance(value, str) and len(value) > 2:
            assert all(value.lower() not in s.lower() for s in strings), ex_id


def test_canonical_spellings_are_exact_types_and_meanings() -> None:
    assert canonical("4h45m40s", "number", "s") == canonical(17140, "number", "s") == "17140.0"
    assert canonical(" YES ", "word") == "True" and canonical(1, "word") is None and canonical(True, "number") is None
    assert canonical(["%dlq%CG", "1"], ["text", "number"]) == canonical(("%DLQ%cg", 1), ["text", "number"])
    assert canonical(("%DLQ%cg",), ["text", "number"]) is None
    assert canonical(float("nan"), "number") is None

    class Int(int):
        pass

    assert canonical(Int(4), "number") is None and canonical(4, "number") == "4.0"


def test_pbkdf2_by_hmac_alone_is_hashlibs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pyodide's Python may lack OpenSSL's pbkdf2_hmac: the fallback gives the same keys (RFC 8018)."""
    want = hashlib.pbkdf2_hmac("sha256", b"17140.0", b"salt/03.1", 50)
    assert sealed._pbkdf2_by_hmac(b"17140.0", b"salt/03.1", 50) == want
    monkeypatch.delattr(hashlib, "pbkdf2_hmac")
    assert master_key("17140.0", "salt", "03.1", 50) == want


def test_seal_round_trips_and_another_key_gives_noise() -> None:
    right, wrong = master_key("4.0", "s", "07.1", 10), master_key("5.0", "s", "07.1", 10)
    text = "rt 0..3 are local tries — ≥ 3 goes to %DLQ%cg. " * 3
    box = seal(text, right)
    assert unseal(box, right) == text and text.encode().hex() not in box
    assert tag(right) != tag(wrong)
    with pytest.raises(UnicodeDecodeError):
        unseal(seal("x" * 64, right), wrong).encode("ascii")  # noise: almost surely not ASCII


def test_compile_refuses_labs_that_disagree_with_the_bank(tmp_path: Path) -> None:
    """A lab without one of the bank's exercises (or with one the bank lacks) is an error naming the ids."""
    for path in sorted(LABS.glob("[0-9][0-9]*_*.py")):
        if not path.name.startswith("08_"):
            shutil.copy(path, tmp_path / path.name)
    with pytest.raises(ValueError, match=r"declarations without an answer cell \['08\.1', '08\.2', '08\.3'\]"):
        compile_bank(tmp_path)


def test_every_answer_and_near_miss_unlocks_its_chinese_text_in_a_chinese_run() -> None:
    """The Chinese explanation (with its revealed box) and each near miss's Chinese hint: sealed under the same
    predictions, chosen by the language of the moment (``rmqlab.set_language``), English when asked for."""
    found = answers()
    sealed_by_id = {ex.id: ex for ex in EXERCISES}
    try:
        rmqlab.set_language("zh")
        for ex in TEACHER_BANK:
            mine, zh = sealed_by_id[ex.id], ZH[ex.id]
            assert judge(mine, found[ex.id]) == ("right", zh.revealed)
            assert judge(mine, found[ex.id], language="en") == ("right", ex.revealed)
            assert mine.hint_in("zh") == zh.hint and mine.hint_in("en") == ex.hint
            seen: set[str] = set()
            for (value, english), (_, chinese) in zip(ex.hinted(found[ex.id]), ex.hinted(found[ex.id], zh),
                                                      strict=True):  # fmt: skip
                spelling = canonical(value, mine.kind, ex.unit)
                if spelling is None or spelling in seen:
                    continue
                seen.add(spelling)
                assert judge(mine, value) == ("hint", chinese), (ex.id, value)
                assert judge(mine, value, language="en") == ("hint", english), (ex.id, value)
    finally:
        rmqlab.set_language(None)


def test_an_exercise_without_chinese_falls_back_to_english() -> None:
    ex = next(e for e in TEACHER_BANK if e.id == "03.1")
    plain = record(compile_one(ex, answers()["03.1"]))
    assert plain.translations == () and plain.hint_in("zh") == ex.hint
    assert judge(plain, 400, language="zh") == ("right", ex.revealed)


def test_the_bank_file_states_no_chinese_explanation_or_hint() -> None:
    """Only the general hints are plain, in Chinese as in English (a clause of a sealed text may repeat one of
    them); every other Chinese text is sealed."""
    sealed_only = BANK_FILE.read_text(encoding="utf-8")
    for zh in ZH.values():
        sealed_only = sealed_only.replace(json.dumps(zh.hint, ensure_ascii=False), "")
    for ex_id, zh in ZH.items():
        for secret in (zh.why, zh.after or "", *zh.hints):
            clauses = [c for c in re.split(r"[。？！；：，\n]", secret) if len(c.strip()) >= 6]
            assert [c for c in clauses if c.strip() in sealed_only] == [], ex_id


def test_the_two_languages_are_sealed_with_different_streams() -> None:
    """The same key seals the English and the Chinese of one explanation: each language has its own stream, so
    XORing the two sealed texts does not give the XOR of the two plain texts (a two-time pad would)."""
    key = master_key("17140.0", "s", "03.1", 10)
    english, chinese = "a" * 64, "b" * 64
    xor_sealed = bytes(a ^ b for a, b in zip(bytes.fromhex(seal(english, key)), bytes.fromhex(seal(chinese, key, "zh")),
                                             strict=True))  # fmt: skip
    assert xor_sealed != bytes(a ^ b for a, b in zip(english.encode(), chinese.encode(), strict=True))
    assert unseal(seal("中文解释", key, "zh"), key, "zh") == "中文解释"
    assert seal(english, key, "zh") != seal(english, key)
