"""The labs are nbgrader assignments as they are: generate_assignment → submissions → autograde gives exact scores.

A temp course directory gets one solved lab under ``source/`` and ``labs/nbgrader_config.py``; the
``nbgrader`` command line releases it, two students submit the released notebook — one with a wrong
prediction in every answer cell, one with the solutions — and ``nbgrader autograde`` scores them from
the check cells' hidden ``assert_right`` tests. This is what a teacher runs, so it runs nbgrader as a
subprocess in the course directory, exactly as a teacher would.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from rmqlab.course.exercises import exercises_of

ROOT = Path(__file__).resolve().parent.parent
LABS = ROOT / "labs"
LAB = "08_broadcasting_vs_clustering.ipynb"  # the quickest lab to execute; any lab works the same way
ASSIGNMENT = "lab" + LAB[:2]
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(answer_\d+ = .+)\n### END SOLUTION")
MEGABYTE = 1_000_000

pytestmark = pytest.mark.slow


def nbgrader(course: Path, *args: str) -> str:
    """Run ``nbgrader ARGS`` in the course directory; fail with its log if it fails."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        # nbgrader runs the `alembic` command of its environment to set up the gradebook
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def submit(course: Path, student: str, answers: dict[int, str]) -> None:
    """Put the released notebook, with ``answers`` (cell index → source), where nbgrader collects it."""
    released = course / "release" / ASSIGNMENT / LAB
    nb = nbformat.read(released, as_version=4)
    for index, source in answers.items():
        nb.cells[index].source = source
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
    """The released notebook: ``answer_k = ...`` cells, checks without their hidden test, < 1 MB, no widget state."""
    released = course / "release" / ASSIGNMENT / LAB
    nb = nbformat.read(released, as_version=4)
    sources = "\n".join(c.source for c in nb.cells)
    assert "BEGIN SOLUTION" not in sources and 'assert_right("' not in sources
    # the empty stub leaves the region's line break (make student strips it; nbgrader keeps it)
    answers = [c.source.rstrip("\n") for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    assert answers == [f"answer_{k} = ...  # ← your prediction" for k in range(1, len(exercises_of(LAB[:2])) + 1)]
    assert all(not c.outputs for c in nb.cells if c.cell_type == "code")
    assert "widgets" not in nb.metadata and released.stat().st_size < MEGABYTE


def test_make_student_uses_the_same_stub_as_the_course_config() -> None:
    """``make student`` and ``nbgrader generate_assignment`` (with labs/nbgrader_config.py) agree."""
    config = (LABS / "nbgrader_config.py").read_text()
    assert 'c.ClearSolutions.code_stub = {"python": ""}' in config
    assert 'CODE_STUB = ""' in (LABS / "make_student.py").read_text()


def test_autograde_scores_a_wrong_and_a_right_submission_exactly(course: Path) -> None:
    """Every prediction wrong → 0 of N points; the solutions → N of N (N: the bank's points of the lab)."""
    source = nbformat.read(LABS / LAB, as_version=4)
    solved = {
        i: SOLUTION.search(c.source)[1]  # type: ignore[index]
        for i, c in enumerate(source.cells)
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    wrong = {i: line.split(" = ")[0] + ' = "no idea"' for i, line in solved.items()}
    submit(course, "wrong", wrong)
    submit(course, "right", solved)
    nbgrader(course, "autograde", ASSIGNMENT, "--create", "--force")
    points = float(sum(ex.points for ex in exercises_of(LAB[:2])))
    assert points >= 2
    assert score(course, "wrong") == (0.0, points)
    assert score(course, "right") == (points, points)
