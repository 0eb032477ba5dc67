"""Each lab is a jupytext pair (``labs/NN_name.py`` + ``.ipynb``) in sync, with outputs made by executing it.

nbval (``pytest --nbval labs``, strict) re-executes every notebook and compares outputs; these tests
catch what nbval cannot: a source edited but not synced, outputs saved from other cells than the
current ones, scaffolding that shows (a stray ``True``, NBVAL comments), and an exercise whose
nbgrader cells do not match the bank in :mod:`rmqlab.course.bank`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import nbformat
import pytest

from rmqlab.course.exercises import exercises_of

LABS = Path(__file__).resolve().parent.parent / "labs"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, LABS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SYNC = _load("sync")
SOURCES = [p.name for p in SYNC.sources()]
SAVED = sorted(p.name for p in LABS.glob("*.ipynb"))
MEGABYTE = 1_000_000


def _read(name: str) -> Any:
    return nbformat.read(LABS / name, as_version=4)


def _nbgrader(cell: Any) -> dict[str, Any]:
    return dict(cell.metadata.get("nbgrader", {}))


def test_every_lab_is_a_pair() -> None:
    """Fourteen labs 00–09 (01, 02, 04, 07 in two parts), each a ``.py`` source with its ``.ipynb``, none alone."""
    assert [n.removesuffix(".py") for n in SOURCES] == [n.removesuffix(".ipynb") for n in SAVED]
    numbers = ["00", "01a", "01b", "02a", "02b", "03", "04", "04b", "05", "06", "07a", "07b", "08", "09"]
    assert [n.split("_", 1)[0] for n in SAVED] == numbers


@pytest.mark.parametrize("name", SOURCES)
def test_pair_is_in_sync(name: str) -> None:
    """The ``.py`` and the ``.ipynb`` have the same cells, sources and metadata (tags, nbgrader)."""
    assert SYNC.pair_differences(LABS / name) == [], "run: .venv/bin/python labs/sync.py"


@pytest.mark.parametrize("name", SAVED)
def test_outputs_come_from_executing_these_cells(name: str) -> None:
    """The saved outputs are one top-to-bottom run of the current cells, without errors or widget state."""
    nb = _read(name)
    assert nb.metadata["rmqlab"][SYNC.HASH_KEY] == SYNC.cells_hash(nb), "run: .venv/bin/python labs/sync.py"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    assert [c.id for c in code if any(o.output_type == "error" for o in c.outputs)] == []
    assert "widgets" not in nb.metadata
    assert (LABS / name).stat().st_size < MEGABYTE


@pytest.mark.parametrize("name", SAVED)
def test_no_scaffolding_shows(name: str) -> None:
    """No NBVAL comments (cell tags instead), no nbval opt-outs, no bare ``True``/``False`` result."""
    for cell in _read(name).cells:
        assert "NBVAL_" not in cell.source, cell.id
        tags = cell.metadata.get("tags", [])
        assert not {"nbval-skip", "nbval-raises-exception", "raises-exception"} & set(tags), cell.id
        if "nbval-ignore-output" in tags:
            assert "Dashboard(" in cell.source, f"{cell.id}: output ignored without a widget to show"
        results = [o for o in cell.get("outputs", []) if o.output_type == "execute_result"]
        assert [o for o in results if o.data.get("text/plain") in ("True", "False", "None")] == [], cell.id


HTML_TAG = re.compile(r"<[A-Za-z][^>]*>")
"""What Markdown hands to the browser as an HTML tag: ``<offset>`` or ``<its IP>`` in prose renders as nothing."""


@pytest.mark.parametrize("name", SAVED)
def test_markdown_shows_every_placeholder(name: str) -> None:
    """A ``<placeholder>`` in a Markdown cell sits in a code span; bare, JupyterLab drops it as an unknown tag."""
    for cell in _read(name).cells:
        if cell.cell_type == "markdown":
            prose = re.sub(r"`[^`]*`", "", cell.source)
            assert HTML_TAG.findall(prose) == [], f"{cell.id}: put the placeholder in backticks"


@pytest.mark.parametrize("name", SAVED)
def test_exercises_are_nbgrader_cells_of_the_bank(name: str) -> None:
    """Each bank exercise of the lab has an answer cell and a check cell, in that order, with its points."""
    nb = _read(name)
    lab = name.split("_", 1)[0]
    cells = {_nbgrader(c).get("grade_id"): (i, c) for i, c in enumerate(nb.cells) if _nbgrader(c)}
    declared = exercises_of(lab)
    assert len(declared) >= 2
    expected_ids = sorted(i for ex in declared for i in (ex.grade_id, f"{ex.grade_id}_answer"))
    assert sorted(str(k) for k in cells) == expected_ids
    for ex in declared:
        a, answer = cells[f"{ex.grade_id}_answer"]
        c, check = cells[ex.grade_id]
        assert a < c
        assert _nbgrader(answer) == {
            "grade": False, "grade_id": f"{ex.grade_id}_answer", "locked": False, "schema_version": 3,
            "solution": True, "task": False,
        }
        assert _nbgrader(check) == {
            "grade": True, "grade_id": ex.grade_id, "locked": True, "points": ex.points, "schema_version": 3,
            "solution": False, "task": False,
        }
        k = ex.id.split(".")[1]
        assert re.fullmatch(
            rf"answer_{k} = \.\.\.  # ← your prediction\n### BEGIN SOLUTION\nanswer_{k} = .+\n### END SOLUTION",
            answer.source,
        ), answer.id
        assert check.source.startswith(f'check("{ex.id}", answer_{k}, ')
        module = f"grading_{ex.id.replace('.', '_')}"
        assert check.source.endswith(
            f"\n### BEGIN HIDDEN TESTS\nimport rmqlab.course.grading as {module}\n"
            f'{module}.verify("{ex.id}", answer_{k})\n### END HIDDEN TESTS'
        )


@pytest.mark.parametrize("name", SAVED)
def test_solved_lab_answers_every_exercise_right(name: str) -> None:
    """In the teacher copy every check prints 'Right — ', and the closing score gives full points."""
    nb = _read(name)
    lab = name.split("_", 1)[0]
    checks = [c for c in nb.cells if _nbgrader(c).get("grade")]
    for cell in checks:
        assert [o.output_type for o in cell.outputs] == ["stream"], cell.id
        assert cell.outputs[0].text.startswith("Right — "), cell.id
    total = sum(ex.points for ex in exercises_of(lab))
    last = nb.cells[-1]
    assert last.source == f'score("{lab}")'
    printed = "".join(o.text for o in last.outputs if o.output_type == "stream")  # a kernel may split one print
    assert printed.splitlines()[-1] == f"Lab {lab}: {total} of {total} points"


def test_sync_check_reports_a_stale_pair(tmp_path: Path) -> None:
    """``pair_differences`` names the cell that differs and a missing notebook."""
    source = tmp_path / "00_x.py"
    source.write_text("# %% [markdown]\n# hello\n\n# %%\nx = 1\n")
    assert SYNC.pair_differences(source) == ["00_x.ipynb is missing: run labs/sync.py"]
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("hello"), nbformat.v4.new_code_cell("x = 2")],
        metadata={"jupytext": {"formats": "ipynb,py:percent"}},
    )
    nbformat.write(nb, tmp_path / "00_x.ipynb")
    assert SYNC.pair_differences(source) == [f"cell 1 ({nb.cells[1].id}) differs"]


def _copy_pair(tmp_path: Path, name: str) -> Path:
    for suffix in (".py", ".ipynb"):
        shutil.copy2(LABS / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
    return tmp_path / f"{name}.py"


def test_an_edit_in_jupyterlab_survives_a_sync(tmp_path: Path) -> None:
    """JupyterLab's jupytext contents manager saves both files; ``sync.py`` then keeps the edit and the outputs."""
    from jupytext import TextFileContentsManager  # type: ignore[import-untyped]

    source = _copy_pair(tmp_path, SOURCES[0].removesuffix(".py"))
    notebook = source.with_suffix(".ipynb").name
    manager = TextFileContentsManager(root_dir=str(tmp_path))
    nb = manager.get(notebook)["content"]
    outputs = [c.get("outputs") for c in nb.cells]
    title = next(c for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("# "))  # the lab's H1
    title.source += "\n\nEdited in JupyterLab."
    manager.save({"type": "notebook", "content": nb}, notebook)
    assert "# Edited in JupyterLab." in source.read_text()
    SYNC.sync_pair(source)
    saved = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    assert next(c for c in saved.cells if c.id == title.id).source.endswith("Edited in JupyterLab.")
    assert [c.get("outputs") for c in saved.cells] == outputs
    assert SYNC.pair_differences(source) == []
    assert SYNC.sync(source, force=False, run=False) == f"{notebook}: in sync, outputs stale (not executed)"


def test_an_edit_of_the_source_reaches_the_notebook(tmp_path: Path) -> None:
    """A ``.py`` edited in an editor: the sync carries the cell over and keeps every other cell's outputs."""
    source = _copy_pair(tmp_path, SOURCES[0].removesuffix(".py"))
    before = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    title = next(line for line in source.read_text().splitlines() if line.startswith("# # "))  # the lab's H1
    source.write_text(source.read_text().replace(title, f"{title} (edited)", 1))
    os.utime(source, (source.stat().st_atime, source.with_suffix(".ipynb").stat().st_mtime + 2))
    SYNC.sync_pair(source)
    after = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    assert [c.source.startswith(f"{title.removeprefix('# ')} (edited)") for c in after.cells].count(True) == 1
    assert [c.get("outputs") for c in after.cells] == [c.get("outputs") for c in before.cells]
    assert [c.id for c in after.cells] == [c.id for c in before.cells]


def test_sync_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """A lab number without a source → exit 2, naming it."""
    assert SYNC.main(["99"]) == 2
    assert capsys.readouterr().err.strip() == "no lab source starts with 99 (labs/NN_name.py)"
