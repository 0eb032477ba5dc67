"""Every lab opens each section with its picture (issue 30); labs 07a and 07b within six lines of its heading (revF 9).

The revF review counted 21–37 lines of prose and scenario code between a ``##`` heading and its Dashboard. The
scenario factories now live in one setup cell under the imports, so each section opens with a sentence or two and
its picture. Read from the jupytext sources (English and Chinese): the lines of every cell between a section's
heading (its first line included) and the first cell that builds a ``Dashboard(``.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import pytest

LABS = Path(__file__).resolve().parent.parent / "labs"
MOST_LINES = 6
"""A heading and a short paragraph: the picture is on the first screen of its section."""
SOURCES = [f"{lang}{name}" for lang in ("", "zh/") for name in ("07a_orderly_locks.py", "07b_orderly_failover.py")]


def _lines_before_pictures(path: Path) -> dict[str, int]:
    """For each ``##`` section with a picture: how many lines its cells hold before the picture's cell."""
    counts: dict[str, int] = {}
    section, lines, seen = "", 0, True
    for cell in jupytext.read(path).cells:
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("## "):
            section, lines, seen = cell.source.lstrip().splitlines()[0], 0, False
        if seen:
            continue
        if cell.cell_type == "code" and "Dashboard(" in cell.source:
            counts[section], seen = lines, True
        else:
            lines += len(cell.source.splitlines())
    return counts


@pytest.mark.parametrize("name", SOURCES)
def test_each_section_opens_with_its_picture(name: str) -> None:
    counts = _lines_before_pictures(LABS / name)
    assert len(counts) == 5, counts
    assert {title: n for title, n in counts.items() if n > MOST_LINES} == {}


@pytest.mark.parametrize("name", SOURCES)
def test_the_scenarios_are_defined_before_the_first_section(name: str) -> None:
    """Every function a picture runs is defined in a cell above the first ``##`` heading."""
    cells = jupytext.read(LABS / name).cells
    first = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.lstrip().startswith("## "))
    later_defs = [c.source.split("(")[0] for c in cells[first:] if c.cell_type == "code" and "Dashboard(" in c.source
                  and "\ndef " in "\n" + c.source]  # fmt: skip
    assert later_defs == []


def _outputs_while_it_waits(notebook: Path, name: str) -> str:
    """The printed outputs of the cells after the picture that asks checkpoint ``name``, up to the next exercise,
    heading or picture: what a Run All shows under the picture while it waits."""
    import nbformat

    cells = nbformat.read(notebook, as_version=4).cells
    at = next(i for i, c in enumerate(cells) if f'name="{name}"' in c.source)
    out = []
    for cell in cells[at + 1 :]:
        if "### " in cell.source or "\n## " in "\n" + cell.source or "Dashboard(" in cell.source:
            break
        out += [o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream"]
    return "".join(out)


@pytest.mark.parametrize("name", SOURCES)
def test_no_table_under_a_picture_prints_its_when_answer(name: str) -> None:
    """revF defect 2: 07b's shutdown table printed ``9.001 s lifecycle event=shutdown`` under the picture asking when
    the shutdown ends. The tables under a picture stop at its question: no output there holds a "when" answer."""
    from test_lab_checkpoint_facts import _dashboards_of

    from rmqlab import format_duration

    notebook = (LABS / name).with_suffix(".ipynb")
    said = []
    for dash in _dashboards_of(LABS / name):
        for cp in dash.controller.checkpoints:
            if cp.ask == "when":
                shown = _outputs_while_it_waits(notebook, cp.name)
                said += [(cp.name, format_duration(int(cp.answer)))] if format_duration(int(cp.answer)) in shown else []
    assert said == []


CLOSING = ("Key points", "Your score", "Keeping what you saw", "要点", "你的得分", "保存你看到的内容")
"""The closing sections: a recap, the score, how to save a run — no mechanism of their own to picture."""
EVERY_LAB = sorted(str(p.relative_to(LABS)) for lang in (LABS, LABS / "zh") for p in lang.glob("[0-9][0-9]*.py"))


def _graded(cell: object) -> bool:
    return bool(getattr(cell, "metadata", {}).get("nbgrader", {}).get("grade"))


@pytest.mark.parametrize("name", EVERY_LAB)
def test_every_section_has_its_picture_and_the_first_comes_before_the_first_graded_exercise(name: str) -> None:
    """Issue 30's "done when": in every lab (en + zh) each ``##`` section but the closing ones builds a Dashboard,
    and the lab's first Dashboard comes before its first graded exercise (lab 00's cluster, lab 03's delay levels
    and lab 04's retention were text-only sections)."""
    cells = jupytext.read(LABS / name).cells
    pictured: dict[str, bool] = {}
    section = ""
    first_picture = first_graded = len(cells)
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("## "):
            section = cell.source.lstrip().splitlines()[0].removeprefix("## ")
            pictured.setdefault(section, False)
        if cell.cell_type == "code" and "Dashboard(" in cell.source:
            first_picture = min(first_picture, i)
            if section:
                pictured[section] = True
        if _graded(cell):
            first_graded = min(first_graded, i)
    without = [s for s, has in pictured.items() if not has and not s.startswith(CLOSING)]
    assert without == [], f"{name}: sections without a picture"
    assert first_picture < first_graded, name
