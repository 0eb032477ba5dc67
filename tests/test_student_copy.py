"""The student copy (``make student``) gives nothing away: no answer before its check, no explanation at all.

The copy is built with ``labs/make_student.py`` into a temp dir. An answer "appears" when any spelling
of the expected value (:func:`rmqlab.course.exercises.spellings`: ``17140``, ``17 140``, ``4 h 45 m 40 s``,
``'%DLQ%cg'`` …) occurs as a whole token in what a student can read before the exercise's check has
run: the source and markdown of every cell up to and including the check cell, the outputs of the
cells above the answer cell (what "run all above" shows; taken from the solved notebook, whose runs
are the same), and ``labs/README.md``. Values a text cannot be told to reveal — one-digit numbers,
booleans, ``None`` — are not searched for; for those, the test still proves that no explanation or
hint of the bank is in the copy and that every check cell names only its id, the prediction and the
measurement.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from lab_tools import load_lab_tool

from rmqlab.course.answers import spellings
from teacher.after import TELLS
from teacher.bank_zh import ZH
from teacher.compile import CHECKPOINTS, EXERCISES
from teacher.declare import MS_HINT, Exercise

_BY_ID = {ex.id: ex for ex in EXERCISES}


def exercise(exercise_id: str) -> Exercise:
    """The teacher's declaration (plain texts) of an exercise."""
    return _BY_ID[exercise_id]

ROOT = Path(__file__).resolve().parent.parent
LABS = ROOT / "labs"
NOTEBOOKS = sorted(p.name for p in LABS.glob("[0-9][0-9]*_*.ipynb"))
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(answer_\d+) = (.+)\n### END SOLUTION")


MAKE_STUDENT = load_lab_tool("make_student.py")


@pytest.fixture(scope="module")
def student_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("student")
    assert MAKE_STUDENT.main([str(LABS), str(out)]) == 0
    return out


@dataclass(frozen=True)
class Case:
    """One exercise as the two copies show it: where its answer and check cells are, and its answer."""

    notebook: str
    exercise: Exercise
    expected: Any
    answer_index: int
    check_index: int


def _nbgrader_id(cell: Any) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def cases() -> Iterator[Case]:
    """Every exercise of every solved lab, its expected value read from the solution region."""
    for name in NOTEBOOKS:
        nb = nbformat.read(LABS / name, as_version=4)
        ids = [_nbgrader_id(c) for c in nb.cells]
        for i, cell in enumerate(nb.cells):
            gid = _nbgrader_id(cell)
            if gid is None or not cell.metadata["nbgrader"]["solution"]:
                continue
            match = SOLUTION.search(cell.source)
            assert match, f"{name}: answer cell {gid} has no `### BEGIN SOLUTION` answer_k = value region"
            ex_id = gid.removeprefix("ex").removesuffix("_answer").replace("_", ".")
            yield Case(name, exercise(ex_id), ast.literal_eval(match[2]), i, ids.index(f"ex{ex_id.replace('.', '_')}"))


CASES = list(cases())


def _telling(value: Any, unit: str | None) -> list[str]:
    """The spellings of ``value`` worth searching for: strings of 3+ characters, numbers of 2+ digits."""
    out = []
    for s in spellings(value, unit):  # type: ignore[arg-type]
        digits = re.sub(r"\D", "", s)
        if (s.strip("-").replace(".", "").isdigit() and len(digits) < 2) or (len(s) < 3 and not s.isdigit()):
            continue
        out.append(s)
    return out


def _found(spelling: str, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(spelling)}(?![\w]|\.\d)", text, flags=re.IGNORECASE) is not None


def _outputs(cell: Any) -> str:
    return "\n".join(
        o.get("text", "") + str(o.get("data", {}).get("text/plain", "")) for o in cell.get("outputs", [])
    )


# Leaks that need a content rewrite of the exercise (issue 13 §1), not a mechanical fix: each entry
# says where the answer shows. The test is strict-xfail for these, so fixing one fails the test until
# its entry is removed.
CONTENT_LEAKS: dict[str, str] = {}


def test_every_exercise_is_found_and_declared() -> None:
    """The notebooks' exercises are exactly the bank's, and each answer cell precedes its check cell."""
    assert sorted(c.exercise.id for c in CASES) == sorted(ex.id for ex in EXERCISES)
    assert all(c.answer_index < c.check_index for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.exercise.id for c in CASES])
def test_no_answer_before_its_check(case: Case, student_dir: Path) -> None:
    """No telling spelling of the answer in the sources, markdown, earlier outputs or README."""
    student = nbformat.read(student_dir / case.notebook, as_version=4)
    solved = nbformat.read(LABS / case.notebook, as_version=4)
    places = [("labs/README.md", (LABS / "README.md").read_text())]
    places += [(f"source of cell {c.id}", c.source) for c in student.cells[: case.check_index + 1]]
    places += [(f"output of cell {c.id}", _outputs(c)) for c in solved.cells[: case.answer_index]]
    leaks = [
        f"{spelling!r} in {where}"
        for spelling in _telling(case.expected, case.exercise.unit)
        for where, text in places
        if _found(spelling, text)
    ]
    if case.exercise.id in CONTENT_LEAKS:
        assert leaks, f"{case.exercise.id} no longer leaks: remove it from CONTENT_LEAKS"
        pytest.xfail(CONTENT_LEAKS[case.exercise.id])
    assert leaks == []


def test_the_leak_finder_finds_leaks() -> None:
    """The finder itself: whole tokens only, every spelling of a duration, strings ignoring case."""
    assert _telling(17140, "s")[:3] == ["17140", "17,140", "17 140"]
    assert "4 h 45 m 40 s" in _telling(17140, "s") and "4h45m40s" in _telling(17140, "s")
    assert _telling(4, None) == [] and _telling(True, None) == [] and _telling(("%DLQ%cg", 1), None) == ["%DLQ%cg"]
    assert _found("17 140", "derive the schedule (17 140 s)") and not _found("71", "at 171 s or 7.1 s")
    assert _found("%DLQ%cg", "topic=%dlq%CG reconsume_times=2") and not _found("18", "18.5 s")


def test_no_explanation_or_hint_in_the_copy(student_dir: Path) -> None:
    """The bank's explanations and hints, and its checkpoint explanations, are nowhere in the student copy (nor any
    sentence of them: ``tests/test_leaks.py``); outputs are all cleared."""
    texts = [ex.why for ex in EXERCISES] + [h.text for ex in EXERCISES for h in ex.hints]
    texts += [ex.hint for ex in EXERCISES if ex.hint is not None]
    texts += [t for zh in ZH.values() for t in (zh.why, *zh.hints, zh.hint) if t is not None]  # and their Chinese
    texts += [t for why in CHECKPOINTS for t in (why.why, why.zh)]  # the checkpoints' explanations, both languages
    for name in NOTEBOOKS:
        nb = nbformat.read(student_dir / name, as_version=4)
        body = "\n".join(c.source for c in nb.cells)
        assert [t for t in texts if t in body] == [], name
        assert all(not c.outputs and c.execution_count is None for c in nb.cells if c.cell_type == "code")


@pytest.mark.parametrize("case", CASES, ids=[c.exercise.id for c in CASES])
def test_hints_do_not_give_the_answer_away(case: Case) -> None:
    """A hint is shown instead of the answer, so it must not contain it (in English or in Chinese)."""
    zh = ZH[case.exercise.id]
    texts = [h.text for h in case.exercise.hints] + [case.exercise.hint or ""]
    texts += [*zh.hints, zh.hint or "", *MS_HINT.values()]
    for text in texts:
        assert [s for s in _telling(case.expected, case.exercise.unit) if _found(s, text)] == []


def test_check_cells_name_only_id_prediction_and_measurement(student_dir: Path) -> None:
    """``check("NN.k", answer_k, measured)`` and nothing else: no explanation text, no hidden test left."""
    for case in CASES:
        cell = nbformat.read(student_dir / case.notebook, as_version=4).cells[case.check_index]
        call = ast.parse(cell.source).body
        assert len(call) == 1 and isinstance(call[0], ast.Expr) and isinstance(call[0].value, ast.Call)
        args = call[0].value.args
        k = case.exercise.id.split(".")[1]
        assert [ast.literal_eval(args[0]), ast.unparse(args[1])] == [case.exercise.id, f"answer_{k}"]
        assert len(args) == 3 and not call[0].value.keywords
        words = [n.value for n in ast.walk(args[2]) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        assert [w for w in words if " " in w] == [], "prose in a check cell: explanations belong in the bank"


def test_answer_cells_are_blank_predictions(student_dir: Path) -> None:
    """Each answer cell is exactly ``answer_k = ...  # ← your prediction``, editable, not deletable."""
    for case in CASES:
        cell = nbformat.read(student_dir / case.notebook, as_version=4).cells[case.answer_index]
        assert cell.source == f"answer_{case.exercise.id.split('.')[1]} = ...  # ← your prediction"
        assert cell.metadata["deletable"] is False and "editable" not in cell.metadata


KEY_POINTS = re.compile(r"^#+ Key points\s*$", flags=re.MULTILINE)
SHARED_WORDS = 5
"""A Key point that shares this many words in a row with an explanation or revealed text of its lab restates it."""


def _words(text: str) -> list[str]:
    """The words of a text as a reader compares them: no code marks, no emphasis, lower case."""
    return re.findall(r"[\w%<>+\-−≥=.]+", text.replace("`", "").replace("*", "").lower())


def _runs(text: str, n: int = SHARED_WORDS) -> set[tuple[str, ...]]:
    words = _words(text)
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def _flat(text: str) -> str:
    return " ".join(" ".join(_words(text)).split())


def _key_points(nb: Any) -> str:
    """The "Key points" section of a lab: from its heading to the next heading of the same cell, or the cell's end."""
    out = []
    for cell in nb.cells:
        match = KEY_POINTS.search(cell.source) if cell.cell_type == "markdown" else None
        if match:
            out.append(re.split(r"\n#+ ", cell.source[match.end() :])[0])
    return "\n".join(out)


def key_point_leaks(key_points: str, lab: str) -> list[str]:
    """What a lab's Key points give away of its exercises: a telling spelling of an answer, the words with which a
    Key point used to state one (:data:`teacher.after.TELLS`), or a run of words an explanation or revealed text
    holds (the answer's own wording)."""
    leaks = []
    for ex in EXERCISES:
        if ex.lab != lab:
            continue
        expected = next(c.expected for c in CASES if c.exercise.id == ex.id)
        leaks += [f"{ex.id}: answer {s!r}" for s in _telling(expected, ex.unit) if _found(s, key_points)]
        leaks += [f"{ex.id}: states {t!r}" for t in TELLS.get(ex.id, ()) if _flat(t) in _flat(key_points)]
        shared = _runs(key_points) & (_runs(ex.why) | _runs(ex.after or ""))
        leaks += [f"{ex.id}: restates {' '.join(run)!r}" for run in sorted(shared)]
    return leaks


def test_the_key_point_search_finds_what_gave_answers_away() -> None:
    """The searcher itself, on Key points as the labs had them before (issue 31)."""
    old = """- SYNC: 1 + `retryTimesWhenSendFailed` attempts, no back-off. ONEWAY: one attempt.
- Only the codes in `retryResponseCodes` are retried: SYSTEM_BUSY is not (4.9.x)."""
    leaks = key_point_leaks(old, "01a")
    assert {"01a.1: states 'ONEWAY: one attempt'", "01a.3: states 'SYSTEM_BUSY is not'"} <= set(leaks)
    assert "01a.3: restates 'are retried system_busy is not'" in leaks
    assert key_point_leaks("Retries total exactly 31 540 s of delay.", "03")[0] == "03.2: answer '31 540'"
    restated = key_point_leaks("- A failed batch is retried — and dead-lettered — as a whole.", "07b")
    assert "07b.4: restates 'a failed batch is retried'" in restated
    assert key_point_leaks("- How many attempts a send gets depends on its mode.", "01a") == []


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_key_points_state_no_answer(name: str, student_dir: Path) -> None:
    """A lab's "Key points" come after its last check, but a student reads them before solving (one scroll): they
    name the mechanisms, never an answer; what gave one away is revealed with the explanation (teacher/after.py)."""
    nb = nbformat.read(student_dir / name, as_version=4)
    key_points = _key_points(nb)
    assert key_points.strip(), f"{name} has no Key points section"
    assert key_point_leaks(key_points, name.split("_", 1)[0]) == []


def test_the_words_that_state_an_answer_are_revealed_only_after_it() -> None:
    """Each of TELLS is in its exercise's revealed text (so it is the answer's own wording), and in no markdown of
    the student copy of any lab (the body, a box under a check, the Key points)."""
    by_id = {ex.id: ex for ex in EXERCISES}
    for ex_id, tells in TELLS.items():
        revealed = _flat(f"{by_id[ex_id].why} {by_id[ex_id].after or ''}")
        assert [t for t in tells if _flat(t) not in revealed] == [], ex_id


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_no_markdown_states_an_answer_in_the_words_of_its_revealed_text(name: str, student_dir: Path) -> None:
    nb = nbformat.read(student_dir / name, as_version=4)
    lab = name.split("_", 1)[0]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            flat = _flat(cell.source)
            found = [t for ex_id, tells in TELLS.items() if ex_id.split(".")[0] == lab for t in tells
                     if _flat(t) in flat]  # fmt: skip
            assert found == [], f"{name} cell {cell.id}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_make_student_is_nbgraders_release_without_nbgrader(name: str, student_dir: Path) -> None:
    """The copy equals what nbgrader's ClearSolutions, ClearHiddenTests, LockCells and ClearOutput make (students
    need no nbgrader for it), cells stripped of the trailing newline the empty stub leaves and of jupytext's layout."""
    nbgrader = pytest.importorskip("nbgrader.preprocessors")
    nb = nbformat.read(LABS / name, as_version=4)
    resources: dict[str, Any] = {}
    for step in (nbgrader.ClearSolutions(code_stub={"python": ""}), nbgrader.ClearHiddenTests(), nbgrader.LockCells(),
                 nbgrader.ClearOutput()):  # fmt: skip
        nb, resources = step.preprocess(nb, resources)
    ours = nbformat.read(student_dir / name, as_version=4)
    assert len(ours.cells) == len(nb.cells)
    for mine, theirs in zip(ours.cells, nb.cells, strict=True):
        theirs.metadata.pop("execution", None)
        theirs.metadata.pop("lines_to_next_cell", None)  # jupytext's layout of the .py, dropped with the pairing
        assert (mine.source, mine.metadata, mine.get("outputs")) == (
            theirs.source.rstrip(), theirs.metadata, theirs.get("outputs")
        ), mine.id
    tree = ast.parse((LABS / "make_student.py").read_text())
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    imported += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert [m for m in imported if m.startswith("nbgrader")] == []


def test_make_student_refuses_an_unclosed_region() -> None:
    with pytest.raises(ValueError, match=r"^a region opened by '### BEGIN SOLUTION' is never closed"):
        MAKE_STUDENT._without_regions("answer_1 = ...\n### BEGIN SOLUTION\nanswer_1 = 3")


def test_make_student_copies_readme_and_keeps_edited_notebooks(tmp_path: Path) -> None:
    """README is copied; a notebook the student changed survives a rebuild; ``--force`` overwrites it."""
    out = tmp_path / "student"
    assert MAKE_STUDENT.main([str(LABS), str(out)]) == 0
    assert sorted(p.name for p in out.glob("*.ipynb")) == NOTEBOOKS
    assert (out / "README.md").read_text() == (LABS / "README.md").read_text()
    edited = out / NOTEBOOKS[3]
    nb = nbformat.read(edited, as_version=4)
    answer = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
    answer.source = "answer_1 = 12345"
    nbformat.write(nb, edited)
    assert MAKE_STUDENT.main([str(LABS), str(out)]) == 0
    assert "answer_1 = 12345" in edited.read_text()
    assert MAKE_STUDENT.main(["--force", str(LABS), str(out)]) == 0
    assert "answer_1 = 12345" not in edited.read_text()


def test_make_student_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Wrong arguments → exit 2 and the usage line; a dir without labs → exit 1 and says so."""
    assert MAKE_STUDENT.main([]) == 2
    assert capsys.readouterr().err.strip() == "usage: python labs/make_student.py [--force] SOURCE_DIR TARGET_DIR"
    assert MAKE_STUDENT.main([str(tmp_path), str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err.strip() == f"no notebooks in {tmp_path}"


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_student_copy_runs_all_without_predictions(name: str, student_dir: Path) -> None:
    """"Run all" on a fresh student copy: no error, each check asks for a prediction, the score is 0 of N."""
    from nbclient import NotebookClient

    nb = nbformat.read(student_dir / name, as_version=4)
    NotebookClient(nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(student_dir)}}).execute()
    checks = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert [_printed(c).split(" — ")[0] for c in checks] == ["No prediction yet"] * len(checks)
    lab = name.split("_", 1)[0]
    total = sum(ex.points for ex in EXERCISES if ex.lab == lab)
    assert _printed(nb.cells[-1]).splitlines()[-1] == f"Lab {lab}: 0 of {total} points"


def _printed(cell: Any) -> str:
    """What a cell printed: its stream outputs joined (a busy kernel may send one print in several)."""
    return "".join(o.text for o in cell.outputs if o.output_type == "stream")


def _readable(source: str) -> str:
    """A cell's text as a student reads it, with each Python string as the parser joins its pieces (a lab writes a
    long text as ``"…both "`` / ``"brokers…"``, which a search of the raw source would miss)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a Markdown cell, or a magic
        return " ".join(source.split())
    texts = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return " ".join(" ".join(t.split()) for t in [source, *texts])


def checkpoint_leaks(texts: list[tuple[str, str]]) -> list[str]:
    """Each sentence of a checkpoint's explanation (English or Chinese, as ``tests/leak_search.py`` cuts them) found
    in ``(where, readable text)`` pairs."""
    from leak_search import SENTENCES

    mine = [(i, s) for i, s in SENTENCES if i.startswith("checkpoint ")]
    return [f"{i}: {s!r} in {where}" for where, text in texts for i, s in mine if s in text]


def test_the_checkpoint_leak_search_finds_an_explanation_split_over_lines() -> None:
    """The search above can fail: lab 00's folded cell as it was, its text in four string pieces."""
    why = next(w for w in CHECKPOINTS if w.id == "00.c2-gets-queues")
    pieces = [why.why[i : i + 70] for i in range(0, len(why.why), 70)]
    cell = "WHY_C2 = (\n" + "".join(f"    {p!r}\n" for p in pieces) + ")\n"
    assert len(checkpoint_leaks([("old 00", _readable(cell))])) >= 2
    zh = next(w for w in CHECKPOINTS if w.id == "00.c2-gets-queues").zh
    assert checkpoint_leaks([("old zh 00", _readable(f"WHY = ({zh[:40]!r}\n {zh[40:]!r})"))])


def test_no_checkpoint_explanation_in_either_languages_copy(tmp_path: Path) -> None:
    """Stop 34's review read checkpoint answers in the student copy ("gets M0001 again", "made its one attempt"):
    no sentence of any checkpoint's explanation is in any cell of the student copy, English or Chinese (the
    explanations are sealed in the bank; a lab names them by id)."""
    texts = []
    for folder in (LABS, LABS / "zh"):
        out = tmp_path / folder.name
        assert MAKE_STUDENT.main([str(folder), str(out)]) == 0
        for path in sorted(out.glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            texts += [(f"{folder.name}/{path.name} cell {c.id}", _readable(c.source)) for c in nb.cells]
    assert texts and checkpoint_leaks(texts) == []
