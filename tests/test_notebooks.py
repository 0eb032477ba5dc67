"""The lab notebooks are fresh (built from labs/build_notebooks.py), complete, and the student tool works.

nbval (``pytest --nbval labs``) re-executes every notebook and compares outputs; these tests catch
what nbval cannot: a notebook edited in the generator but not rebuilt, a notebook nbval would not see,
and a student copy that leaks answers.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

from rmqlab.exercises import check, table

LABS = Path(__file__).resolve().parent.parent / "labs"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, LABS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATOR = _load("build_notebooks")
STUDENT = _load("make_student")
SAVED = sorted(p.name for p in LABS.glob("*.ipynb"))


def test_notebook_list_matches_generator() -> None:
    """Every notebook in labs/ comes from the generator, and every generated one is saved (00–09)."""
    assert sorted(GENERATOR.NOTEBOOKS) == SAVED
    assert [n[:2] for n in SAVED] == [f"{i:02d}" for i in range(10)]


def test_no_notebook_hides_from_nbval() -> None:
    """No cell opts out of nbval; output-ignores are only for widget reprs."""
    for name in SAVED:
        for cell in nbformat.read(LABS / name, as_version=4).cells:
            assert "NBVAL_SKIP" not in cell.source, name
            assert "NBVAL_RAISES_EXCEPTION" not in cell.source, name
            if "NBVAL_IGNORE_OUTPUT" in cell.source:
                assert "widget" in cell.source.lower(), f"{name}: ignore-output without a widget reason"


@pytest.mark.parametrize("name", SAVED)
def test_saved_notebook_is_fresh(name: str) -> None:
    """Saved cells equal the generator's, and the outputs come from one top-to-bottom run."""
    saved = nbformat.read(LABS / name, as_version=4)
    built = GENERATOR.build(name)
    assert [c.source for c in saved.cells] == [c.source for c in built.cells], "rebuild: python labs/build_notebooks.py"
    assert saved.metadata["rmqlab"]["cells_sha256"] == GENERATOR.cells_hash(saved)
    code = [c for c in saved.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    for cell in code:
        assert all(o.output_type != "error" for o in cell.outputs), cell.id


@pytest.mark.parametrize("name", SAVED)
def test_each_notebook_has_two_self_checked_exercises(name: str) -> None:
    """At least two exercise cells, each answered right in the teacher copy (its check printed 'Right')."""
    nb = nbformat.read(LABS / name, as_version=4)
    exercises = [c for c in nb.cells if "exercise" in c.metadata.get("tags", [])]
    assert len(exercises) >= 2
    verdicts = [o.text for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("name") == "stdout"]
    assert sum(t.startswith("Right — ") for t in verdicts) == len(exercises)
    assert not any(t.startswith(("Not quite", "No prediction")) for t in verdicts)


def test_make_student_blanks_answers_and_outputs(tmp_path: Path) -> None:
    """The student copy has `answer… = ...`, no outputs, and the same notebooks plus README."""
    out = tmp_path / "student"
    done = subprocess.run(
        [sys.executable, str(LABS / "make_student.py"), str(LABS), str(out)], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == f"wrote {len(SAVED)} student notebooks to {out}"
    assert sorted(p.name for p in out.glob("*.ipynb")) == SAVED
    assert (out / "README.md").read_text() == (LABS / "README.md").read_text()
    nb = nbformat.read(out / "03_delay_levels_schedule.ipynb", as_version=4)
    answers = [c.source for c in nb.cells if "exercise" in c.metadata.get("tags", [])]
    assert answers == ["answer_1 = ...  # ← your prediction", "answer_2 = ...  # ← your prediction"]
    assert all(not c.outputs and c.execution_count is None for c in nb.cells if c.cell_type == "code")
    assert "17140" not in nb.cells[-1].source


def test_student_tool_usage_error(tmp_path: Path) -> None:
    """Wrong arguments → exit 2 and the usage line; an empty source dir → exit 1."""
    assert STUDENT.main([]) == 2
    assert STUDENT.main([str(tmp_path), str(tmp_path / "out")]) == 1


def test_student_source_rewrites_only_answer_lines() -> None:
    """Comments and other code in an answer cell survive; only `answer… = value` is blanked."""
    cell = "# Predict!\nanswer_1 = ('%DLQ%cg', 1)\nx = 3"
    assert GENERATOR.student_source(cell) == "# Predict!\nanswer_1 = ...  # ← your prediction\nx = 3"


def test_check_prints_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    """check() prints Right / Not quite / No prediction and never raises."""
    assert check(17140, 17140, "Sum of levels 3..18.") is True
    assert check("%dlq%CG", "%DLQ%cg", "x") is True
    assert check(16, 17, "Seventeen deliveries.") is False
    assert check(..., 1, "x") is False
    assert check(True, 1, "bool is not int here") is False
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Right — 17140. Sum of levels 3..18."
    assert lines[2] == "Not quite — you predicted 16, the run gives 17. Seventeen deliveries."
    assert lines[3].startswith("No prediction yet — ")


def test_table_is_fixed_width() -> None:
    """Columns are padded to the widest cell; booleans print as true/false."""
    assert table([[1, True], ["long", None]], ["a", "b"]) == "a     b\n----  ----\n1     true\nlong"
