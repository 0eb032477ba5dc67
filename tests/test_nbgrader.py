"""The labs are nbgrader assignments: generate_assignment → submissions → autograde gives exact scores, and the
tricks a student would try to fake a grade score 0.

A temp course directory gets one solved lab under ``source/`` and ``labs/nbgrader_config.py``; the ``nbgrader``
command line releases it, students submit the released notebook — right (full marks), wrong, blank, mixed
(partial) and one submission per cheat — and ``nbgrader autograde`` scores them from the check cells' hidden tests
(:func:`rmqlab.course.grading.verify`) and the grader's own look at each answer cell
(:func:`rmqlab.course.autograde.check_predictions`). This is what a teacher runs, so it runs nbgrader as a
subprocess in the course directory, exactly as a teacher would. The answer cells are found by their grade_id.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from snoop import snooped, snooping

from rmqlab.course.autograde import check_predictions, drop_widget_state, submitted_answer
from rmqlab.course.exercises import exercises_of
from teacher.compile import answers

ROOT = Path(__file__).resolve().parent.parent
LABS = ROOT / "labs"
LAB = "08_broadcasting_vs_clustering.ipynb"  # the quickest lab to execute; any lab works the same way
LAB_ID = LAB[:2]
ASSIGNMENT = "lab" + LAB_ID
KILOBYTE = 1000

pytestmark = pytest.mark.slow

RIGHT = {ex.id: repr(value) for ex_id, value in answers().items() for ex in exercises_of(LAB_ID) if ex.id == ex_id}
WRONG = {ex_id: '"no idea"' for ex_id in RIGHT}

EQUALS_EVERYTHING = """class Anything:
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__
{name} = Anything()"""

# Each cheat: (exercise id → the answer cell's new source, a prediction's place; extra source for the check cells).
CHEATS: dict[str, dict[str, str]] = {
    # rebind every name the visible and hidden parts of a check cell use
    "rebind": {
        ex_id: f"{{name}} = 0\ncheck = lambda *a: print('Right')\nassert_right = lambda *_: None\n"
        f"grading_{ex_id.replace('.', '_')} = None\nlen = lambda *_: 0\nverify = lambda *_: None\n"
        "AssertionError = Warning"
        for ex_id in RIGHT
    },
    # an answer object equal to everything
    "equal_to_everything": dict.fromkeys(RIGHT, EQUALS_EVERYTHING),
    # import the checking module and patch it (its verdict, its bank, the sealing it relies on)
    "patch_module": dict.fromkeys(
        RIGHT, "import rmqlab.course.grading as g\ng.verify = lambda *a: None\ng.judge = lambda *a: ('right', '')\n"
        "{name} = 0",
    ),
    # ... or what it relies on: every tag compares equal
    "patch_hashing": dict.fromkeys(RIGHT, "import hmac\nhmac.compare_digest = lambda a, b: True\n{name} = 0"),
}


LOOP_CALLS = 9
LOOPED = {
    ex_id: "from rmqlab.course.exercises import exercise\nfrom rmqlab.course.grading import judge\n"
    f"found = [judge(exercise({ex_id!r}), {value}) for _ in range({LOOP_CALLS})]\n{{name}} = {value}"
    for ex_id, value in RIGHT.items()
}
"""A loop over the bank left in the answer cells (here it judges the right value again and again), then the right
literal: full points, and the count in each check cell's output."""


def nbgrader(course: Path, *args: str, home: Path | None = None) -> str:
    """Run ``nbgrader ARGS`` in the course directory (as a teacher whose home is ``home``); fail with its log if it
    fails."""
    env = {
        **os.environ,
        **({"HOME": str(home)} if home is not None else {}),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        # nbgrader runs the `alembic` command of its environment to set up the gradebook
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _grade_id(cell: Any) -> str:
    return str(cell.metadata.get("nbgrader", {}).get("grade_id", ""))


def submit(course: Path, student: str, sources: dict[str, str], checks: str | None = None) -> None:
    """The released notebook, where nbgrader collects it, with each exercise's answer cell set to ``sources[id]``
    (a value: ``answer_k = value``; or code, in which ``{name}`` is ``answer_k``) and, with ``checks``, every check
    cell's source replaced (editing a locked cell)."""
    nb = nbformat.read(course / "release" / ASSIGNMENT / LAB, as_version=4)
    for cell in nb.cells:
        gid = _grade_id(cell)
        for ex_id, source in sources.items():
            ex = next(e for e in exercises_of(LAB_ID) if e.id == ex_id)
            name = f"answer_{ex_id.split('.')[1]}"
            if gid == f"{ex.grade_id}_answer":
                cell.source = source.replace("{name}", name) if "{name}" in source else f"{name} = {source}"
            elif gid == ex.grade_id and checks is not None:
                cell.source = checks
    target = course / "submitted" / student / ASSIGNMENT
    target.mkdir(parents=True)
    nbformat.write(nb, target / LAB)


def score(course: Path, student: str) -> tuple[float, float]:
    """(score, max score) of ``student``'s autograded submission, from the gradebook."""
    from nbgrader.api import Gradebook  # type: ignore[import-untyped]

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(ASSIGNMENT, student)
        return float(submission.score), float(submission.max_score)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course directory with the lab released (``nbgrader generate_assignment``)."""
    root = tmp_path_factory.mktemp("course")
    shutil.copy(LABS / "nbgrader_config.py", root / "nbgrader_config.py")
    (root / "source" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(LABS / LAB, root / "source" / ASSIGNMENT / LAB)
    nbgrader(root, "generate_assignment", ASSIGNMENT, "--create", "--force")
    return root


def test_release_has_blank_predictions_no_hidden_tests_no_outputs(course: Path) -> None:
    """The released notebook: ``answer_k = ...`` cells, checks without their hidden test, no outputs, small."""
    released = course / "release" / ASSIGNMENT / LAB
    nb = nbformat.read(released, as_version=4)
    sources = "\n".join(c.source for c in nb.cells)
    assert "BEGIN SOLUTION" not in sources and "verify(" not in sources and "HIDDEN" not in sources
    # the empty stub leaves the region's line break (make student strips it; nbgrader keeps it)
    answers_ = [c.source.rstrip("\n") for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    assert answers_ == [f"answer_{k} = ...  # ← your prediction" for k in range(1, len(RIGHT) + 1)]
    assert all(not c.outputs for c in nb.cells if c.cell_type == "code")
    assert "widgets" not in nb.metadata and released.stat().st_size < 100 * KILOBYTE


def test_make_student_uses_the_same_stub_as_the_course_config() -> None:
    """``make student`` and ``nbgrader generate_assignment`` (with labs/nbgrader_config.py) agree."""
    config = (LABS / "nbgrader_config.py").read_text()
    assert 'c.ClearSolutions.code_stub = {"python": ""}' in config
    assert 'CODE_STUB = ""' in (LABS / "make_student.py").read_text()


@pytest.fixture(scope="module")
def graded(course: Path) -> Path:
    """Every submission autograded at once (one nbgrader run, as a teacher grades a class)."""
    points = {ex.id: ex.points for ex in exercises_of(LAB_ID)}
    assert len(points) >= 3
    first = min(RIGHT)
    reads, writes = snooped_paths(course)  # the right answers also look around the teacher's files
    submit(course, "right", {**RIGHT, first: snooping(reads, writes, answers()[first])})
    submit(course, "wrong", WRONG)
    submit(course, "blank", {})
    submit(course, "mixed", {**WRONG, first: RIGHT[first]})
    for name, sources in CHEATS.items():
        submit(course, f"cheat_{name}", sources)
    # edit the locked check cells: no hidden test, a printed "Right"
    submit(course, "cheat_locked_cell", WRONG, checks="print('Right — all of it')")
    submit(course, "looped", LOOPED)
    home = course / "home"  # the teacher's home, with their Jupyter runtime folder (the kernel's connection file)
    home.mkdir()
    (home / "secret.txt").write_text("the teacher's notes")
    nbgrader(course, "autograde", ASSIGNMENT, "--create", "--force", home=home)
    return course


def snooped_paths(course: Path) -> tuple[list[str], list[str]]:
    """What the snooping submission tries to read (the teacher's home and notes, the solved lab, the gradebook,
    another student's submission, the course and submissions folders) and to change (the solved lab)."""
    source = str(course / "source" / ASSIGNMENT / LAB)
    reads = [course / "home", course / "home" / "secret.txt", course / "gradebook.db",
             course / "submitted" / "wrong" / ASSIGNMENT / LAB, course, course / "submitted"]  # fmt: skip
    return [source, *map(str, reads)], [source]


def test_a_submission_finds_nothing_of_the_teachers_and_still_scores(graded: Path) -> None:
    """The autograde sandbox (rmqlab.course.sandbox): the right submission's kernel, which also snoops, sees only
    its own folder (nbgrader runs it in the autograded copy: the course folder shows nothing but the path to it, no
    submissions) and changes nothing; it scores in full."""
    nb = nbformat.read(graded / "autograded" / "right" / ASSIGNMENT / LAB, as_version=4)
    source, home, secret, gradebook, other, course, submitted = snooped_paths(graded)[0]
    found = snooped(nb)
    assert found.pop(home) in ([], "FileNotFoundError")  # at most an empty folder its libraries made in the sandbox
    assert found == {
        source: "FileNotFoundError", secret: "FileNotFoundError", gradebook: "FileNotFoundError",
        other: "FileNotFoundError", course: ["autograded"], submitted: "FileNotFoundError",
    }  # fmt: skip
    assert "changed by a submission" not in (graded / "source" / ASSIGNMENT / LAB).read_text()
    points = float(sum(ex.points for ex in exercises_of(LAB_ID)))
    assert score(graded, "right") == (points, points)


def test_right_full_marks_wrong_and_blank_zero_mixed_partial(graded: Path) -> None:
    points = float(sum(ex.points for ex in exercises_of(LAB_ID)))
    first = next(ex.points for ex in exercises_of(LAB_ID) if ex.id == min(RIGHT))
    assert score(graded, "right") == (points, points)
    assert score(graded, "wrong") == (0.0, points)
    assert score(graded, "blank") == (0.0, points)
    assert score(graded, "mixed") == (float(first), points)


@pytest.mark.parametrize("cheat", [*CHEATS, "locked_cell"])
def test_every_cheat_scores_zero(graded: Path, cheat: str) -> None:
    points = float(sum(ex.points for ex in exercises_of(LAB_ID)))
    assert score(graded, f"cheat_{cheat}") == (0.0, points)


def test_a_loop_over_the_bank_scores_its_final_answer_and_shows_in_the_check_cells(graded: Path) -> None:
    """A submission that judged each exercise in a loop before its check: the points of its final answers, and each
    check cell of the autograded copy says how many predictions the kernel judged (the loop's, then the check's,
    which gave no verdict)."""
    points = float(sum(ex.points for ex in exercises_of(LAB_ID)))
    assert score(graded, "looped") == (points, points)
    nb = nbformat.read(graded / "autograded" / "looped" / ASSIGNMENT / LAB, as_version=4)
    for ex in exercises_of(LAB_ID):
        (cell,) = [c for c in nb.cells if _grade_id(c) == ex.grade_id]
        text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        assert f"This is prediction {LOOP_CALLS + 1} judged for {ex.id!r} in this kernel" in " ".join(text.split())
        assert (f"Exercise {ex.id}: {LOOP_CALLS + 1} predictions were judged in this kernel before this test (the "
                "self-check judges 3); the points come from the answer cell as submitted.") in " ".join(text.split())


def test_the_patched_kernel_passes_its_own_test_but_not_the_graders(graded: Path) -> None:
    """Why the grader looks outside the kernel: patched in-kernel, the hidden test raises nothing."""
    nb = nbformat.read(graded / "autograded" / "cheat_patch_module" / ASSIGNMENT / LAB, as_version=4)
    checks = [c for c in nb.cells if _grade_id(c) in {ex.grade_id for ex in exercises_of(LAB_ID)}]
    errors = [[o.evalue for o in c.outputs if o.output_type == "error"] for c in checks]
    assert len(errors) == len(RIGHT) and all(len(e) == 1 for e in errors)
    for ex, (error,) in zip(exercises_of(LAB_ID), errors, strict=True):
        assert error.startswith(f"exercise {ex.id}: the prediction is not right ("), error


def test_autograded_copies_hold_no_widget_state_and_are_small(graded: Path) -> None:
    for path in sorted((graded / "autograded").glob(f"*/{ASSIGNMENT}/{LAB}")):
        nb = nbformat.read(path, as_version=4)
        assert "widgets" not in nb.metadata, path
        assert "application/vnd.jupyter.widget-view+json" not in path.read_text(), path
        assert path.stat().st_size < 100 * KILOBYTE, (path, path.stat().st_size)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("answer_2 = 17140  # ← your prediction", (True, 17140)),
        ("answer_2 = ...\nanswer_2 = ('%DLQ%cg', 1)", (True, ("%DLQ%cg", 1))),
        ("answer_2 = ...  # ← your prediction", (False, "no prediction")),
        ("answer_2 = len([1, 2])", (False, "answer_2 is not a plain value (a number, a text, True/False/None, a "
                                           "list of them)")),
        ("x = 3", (False, "the answer cell does not assign answer_2")),
        ("answer_2 = (", (False, "the answer cell is not valid Python")),
    ],
)
def test_the_grader_reads_a_prediction_as_a_literal(source: str, expected: tuple[bool, object]) -> None:
    assert submitted_answer(source, "2") == expected


def test_check_predictions_only_ever_adds_failures() -> None:
    """Right answer cells leave the check cells as they are; a wrong, duplicated or missing one adds an error."""
    nb = nbformat.read(LABS / LAB, as_version=4)
    before = [c.get("outputs") for c in nb.cells]
    check_predictions(nb, {})
    assert [c.get("outputs") for c in nb.cells] == before  # the solved lab: every answer right
    ids = [ex.grade_id for ex in exercises_of(LAB_ID)]
    answer_cells = [c for c in nb.cells if _grade_id(c) in {f"{g}_answer" for g in ids}]
    answer_cells[0].source = "answer_1 = 'no idea'"
    nb.cells.append(nbformat.from_dict({**answer_cells[1], "id": "dup"}))
    nb.cells.remove(answer_cells[2])
    check_predictions(nb, {})
    errors = {_grade_id(c): [o.evalue for o in c.outputs if o.output_type == "error"] for c in nb.cells
              if _grade_id(c) in ids}  # fmt: skip
    first, second, third = (ex.id for ex in exercises_of(LAB_ID))
    assert errors == {
        ids[0]: [f"exercise {first}: the prediction is not right (unreadable)"],
        ids[1]: [f"exercise {second}: two answer cells for one exercise"],
        ids[2]: [f"exercise {third}: no answer cell for this exercise"],
    }


@pytest.mark.parametrize("name", sorted(p.name for p in LABS.glob("[0-9][0-9]*_*.ipynb")))
def test_every_lab_without_widget_state_is_under_100_kb(name: str) -> None:
    """What an autograded copy of each lab holds after drop_widget_state (the saved outputs are an executed run's):
    no widget view or state, no dashboard picture, each under 100 KB."""
    nb = nbformat.read(LABS / name, as_version=4)
    drop_widget_state(nb, {})
    text = nbformat.writes(nb)
    assert "widget-view+json" not in text and len(text.encode()) < 100 * KILOBYTE, len(text.encode())
