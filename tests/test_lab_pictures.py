"""Every lab starts each section with its picture, and every picture is a run worth stepping through.

Structure (issue 30): the lessons are "the picture first, then the question while it waits, then the run
that answers it". Read from what the cells *are*, not where they are:

- a **picture cell** is a code cell that builds a ``Dashboard(...)``;
- a **check cell** is an nbgrader autograded cell (``grade: true``), the one that calls ``check(...)``;
- a **section** is what follows a Markdown cell whose first line is a level-2 heading (``## ...``).

Runs (headless): each lab's source is executed as a script with ``Dashboard`` recording every instance it
builds; each dashboard is then stepped from its start to its end with the controller's own Step (one
*meaningful* step each: :func:`rmqlab.narrate.is_meaningful` — a delivery, a consume result, a send-back,
a rebalance; not offset or lock bookkeeping). Between 8 and 60 steps: enough for Play to show something,
few enough to watch.
"""

from __future__ import annotations

import contextlib
import io
import re
import runpy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

LABS = Path(__file__).resolve().parent.parent / "labs"
NOTEBOOKS = sorted(p.name for p in LABS.glob("[0-9][0-9]*_*.ipynb"))
SOURCES = sorted(p.name for p in LABS.glob("[0-9][0-9]*_*.py"))
FEWEST_STEPS = 8
MOST_STEPS = 60
MOST_CELLS = 45
"""A lab a student does in one sitting (issue 30): short cells, one idea each, at most this many."""
MOST_EXERCISES = 5


def _is_picture(cell: Any) -> bool:
    return bool(cell.cell_type == "code" and "Dashboard(" in cell.source)


def _is_check(cell: Any) -> bool:
    return bool(cell.metadata.get("nbgrader", {}).get("grade"))


def _is_section_heading(cell: Any) -> bool:
    return bool(cell.cell_type == "markdown" and cell.source.lstrip().startswith("## "))


def _sections(cells: list[Any]) -> Iterator[tuple[str, list[Any]]]:
    """(heading, cells) for each level-2 section; cells before the first heading form the section "(top)"."""
    title, body = "(top)", []
    for cell in cells:
        if _is_section_heading(cell):
            yield title, body
            title, body = cell.source.lstrip().splitlines()[0], []
        else:
            body.append(cell)
    yield title, body


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_first_picture_comes_before_the_first_graded_exercise(name: str) -> None:
    """The lab's first Dashboard is built before its first check cell (and the lab has both)."""
    cells = nbformat.read(LABS / name, as_version=4).cells
    pictures = [i for i, c in enumerate(cells) if _is_picture(c)]
    checks = [i for i, c in enumerate(cells) if _is_check(c)]
    assert pictures, f"{name}: no Dashboard"
    assert checks, f"{name}: no graded exercise"
    assert pictures[0] < checks[0], f"{name}: the first exercise is asked before any picture"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_section_with_an_exercise_opens_with_its_picture(name: str) -> None:
    """In each ``##`` section that grades something, a Dashboard is built before the section's first check."""
    cells = nbformat.read(LABS / name, as_version=4).cells
    missing = []
    for title, body in _sections(cells):
        checks = [i for i, c in enumerate(body) if _is_check(c)]
        if checks and not any(_is_picture(c) for c in body[: checks[0]]):
            missing.append(title)
    assert missing == [], f"{name}: sections whose question comes without a picture"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_answer_cell_comes_before_the_outcome(name: str) -> None:
    """Each exercise's answer cell comes after the section's picture: the prediction is made on the picture."""
    cells = nbformat.read(LABS / name, as_version=4).cells
    late = []
    for title, body in _sections(cells):
        answers = [i for i, c in enumerate(body) if c.metadata.get("nbgrader", {}).get("solution")]
        pictures = [i for i, c in enumerate(body) if _is_picture(c)]
        if answers and (not pictures or pictures[0] > answers[0]):
            late.append(title)
    assert late == [], f"{name}: a prediction asked before the section's picture"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_lab_fits_one_sitting(name: str) -> None:
    """At most 45 cells and 5 graded exercises per lab (a longer lab is split, as 07 is into 07a and 07b)."""
    cells = nbformat.read(LABS / name, as_version=4).cells
    checks = [c for c in cells if _is_check(c)]
    assert (len(cells) <= MOST_CELLS, len(checks) <= MOST_EXERCISES) == (True, True), (len(cells), len(checks))


_BUILT: dict[str, list[Any]] = {}
_LEFT_AT: dict[str, list[int]] = {}
"""Where each dashboard of a lab stands when the lab's cells have all run (what the student finds)."""


def _dashboards_of(source: Path, *, fresh: bool = False) -> list[Any]:
    """Run a lab's source top to bottom (output swallowed) and return every Dashboard it built, in order.

    Each lab runs once per test session: the step-count and the checkpoint tests share its dashboards, and step and
    answer them. ``fresh``: a run of its own, as the lab left it (for a test of what a page holds before any move).
    """
    if source.name in _BUILT and not fresh:
        return _BUILT[source.name]
    import rmqlab.widgets.dashboard as dashboard_module

    built: list[Any] = []
    original_init = dashboard_module.Dashboard.__init__

    def recording_init(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        built.append(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dashboard_module.Dashboard, "__init__", recording_init)
        patch.chdir(LABS)
        with contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(str(source), run_name="__lab__")
    if not fresh:
        _BUILT[source.name] = built
        _LEFT_AT[source.name] = [dash.controller.position for dash in built]
    return built


def _meaningful_steps(dash: Any) -> int:
    """Steps from Reset to the end with the Step button's method twin (meaningful steps, "every event" off),
    answering each checkpoint where Step stops at its question, as a student does."""
    controller = dash.controller
    assert controller.ok, controller.errors
    controller.reset()
    steps = 0
    while True:
        if controller.step_once():
            steps += 1
            assert steps <= MOST_STEPS * 10, "runaway run"
            continue
        assert controller.frames is not None
        asked = [cp for cp in controller.checkpoints if controller.frames.positions[cp.frame] == controller.position]
        waiting = [cp for cp in asked if cp.name not in controller.answered]
        if controller.at_end or not waiting:
            return steps
        for cp in waiting:
            controller.answer(cp.name, cp.answer)


@pytest.mark.parametrize("name", SOURCES)
def test_every_picture_is_a_run_worth_playing(name: str) -> None:
    """Every Dashboard a lab builds has between 8 and 60 meaningful steps from Reset to its end."""
    dashboards = _dashboards_of(LABS / name)
    assert dashboards, f"{name}: no Dashboard"
    counts = [_meaningful_steps(d) for d in dashboards]
    out_of_range = [n for n in counts if not FEWEST_STEPS <= n <= MOST_STEPS]
    assert out_of_range == [], f"{name}: meaningful steps per dashboard {counts}"


@pytest.mark.parametrize("name", SOURCES)
def test_every_lab_asks_on_its_picture(name: str) -> None:
    """At least one Dashboard of the lab has a checkpoint, and every checkpoint resolves against its run: it pauses
    on a step of the run, offers two or more choices, and the engine's answer is one of them."""
    asked = [cp for dash in _dashboards_of(LABS / name) for cp in dash.controller.checkpoints]
    assert asked, f"{name}: no checkpoint on any picture"
    declared = (LABS / name).read_text().count("Checkpoint(before=")
    assert len(asked) == declared, f"{name}: an optional checkpoint found no event in the lab's own run"
    for dash, left_at in zip(_dashboards_of(LABS / name), _LEFT_AT[name], strict=True):
        frames = dash.controller.frames
        passed = [cp.name for cp in dash.controller.checkpoints if left_at > frames.positions[cp.frame]]
        assert passed == [], f"{name}: the lab leaves its picture past {passed}, so Step never asks them"
    run_of = {id(cp): dash.controller.frames.snapshots[-1].events
              for dash in _dashboards_of(LABS / name) for cp in dash.controller.checkpoints}  # fmt: skip
    for cp in asked:
        keys = [choice.key for choice in cp.choices]
        assert len(keys) >= 2 and cp.answer in keys, (name, cp.name, keys, cp.answer)
        # the student steps the picture first: a checkpoint never asks on the opening frame (event 0), as lab 06's
        # did before its first send — save a yes/no about what an instance does as it starts (lab 08: does c1
        # subscribe %RETRY%cg?), when it starts in the run's first step: every later frame draws its queues, which
        # would tell the answer
        at_start = cp.ask == "whether" and cp.event.kind.value == "rebalanced" and not [
            e for e in run_of[id(cp)][: cp.event.seq - 1] if e.kind.value == "rebalanced" and e.actor == cp.event.actor]
        assert cp.frame >= 1 or at_start, (name, cp.name, cp.frame)


def test_every_where_answer_is_a_place_in_the_paused_picture() -> None:
    """Stop 31: labs 02a and 04 outlined the wrong places in the picture while the right one (a delay level not used
    yet, %DLQ%cg before its first write) was only a button. At every "where" checkpoint of every lab, each choice
    is a place of the paused picture, drawn with the choice's mark; a place not there yet is a placeholder, and the
    answer is never the only one."""
    asked = 0
    for name in SOURCES:
        for dash in _dashboards_of(LABS / name):
            frames = dash.controller.frames
            for cp in (cp for cp in dash.controller.checkpoints if cp.ask == "where"):
                asked += 1
                drawn = {m.key for m in frames.scenes(dash.main_view)[cp.frame].marks}
                missing = [c.key for c in cp.choices if c.mark != f"place:{c.key}" or c.mark not in drawn]
                assert missing == [], (name, cp.name, missing)
                new = [p.key for p in frames.models(dash.main_view)[cp.frame].places if p.placeholder]
                assert sorted(new) == sorted(p.key for p in cp.placeholders), (name, cp.name)
                assert cp.answer not in new or len(new) >= 2, (name, cp.name, new)
    assert asked >= 6


def test_the_right_choice_is_not_told_by_its_place() -> None:
    """Across every lab's checkpoints the buttons follow a rule that does not know the answer ("when": by time, "who":
    by name), and the right one is not always the first: its position varies, for "when" questions too (whose
    paused clock once read the answer, always the earliest time)."""
    asked = [(name, cp) for name in SOURCES for dash in _dashboards_of(LABS / name)
             for cp in dash.controller.checkpoints]  # fmt: skip
    for name, cp in asked:
        keys = [c.key for c in cp.choices]
        if cp.ask == "when":
            assert keys == sorted(keys, key=int), (name, cp.name)
        if cp.ask == "who":
            assert keys == sorted(keys), (name, cp.name)
    places = [[c.key for c in cp.choices].index(cp.answer) for _, cp in asked]
    when = [[c.key for c in cp.choices].index(cp.answer) for _, cp in asked if cp.ask == "when"]
    assert len(set(places)) >= 3 and places.count(0) < len(places) / 2, places
    assert when and 0 not in when, when


DESCRIBED = {("02a_consume_failure_send_back.py", "where the first unacknowledged message goes")}
"""Checkpoints whose question describes its message instead of naming it, because the id tells an answer: lab 02a's
"the first message it did not acknowledge" named M0003, which said that ackIndex 1 acknowledges M0001 and M0002 and
so that 2 of the batch of 4 are sent back (its Exercise 1)."""


def test_a_checkpoint_names_the_message_it_asks_about() -> None:
    """The picture labels a token by its id (M0002) while a lab's text calls it by its body (m1, ok2, bad): every
    checkpoint about a message names that id in its question, so the two can be matched (lab 01a's said m1 where
    the picture asked about M0002), unless the id would tell an answer (:data:`DESCRIBED`)."""
    asked = [(name, cp) for name in SOURCES for dash in _dashboards_of(LABS / name)
             for cp in dash.controller.checkpoints]  # fmt: skip
    unnamed = {(name, cp.name) for name, cp in asked if cp.event.msg_id and cp.event.msg_id not in cp.question}
    assert unnamed == DESCRIBED


@pytest.mark.parametrize("name", SOURCES)
def test_every_flow_picture_fits_the_output_area(name: str) -> None:
    """Every step of every lab's message-flow picture fits JupyterLab's output area with the file browser open (lab
    00's run at every step: ``tests/test_flow_fits.py``), so no picture scrolls sideways."""
    from rmqlab.widgets.flow_layout import flow_scene
    from rmqlab.widgets.flow_view import flow_view_model
    from test_flow_fits import OUTPUT_AREA_PX

    widths = [max(flow_scene(flow_view_model(snap)).width for snap in dash.controller.frames.snapshots)
              for dash in _dashboards_of(LABS / name)]  # fmt: skip
    assert max(widths) <= OUTPUT_AREA_PX, widths


def test_the_structure_checks_can_fail() -> None:
    """A notebook whose only Dashboard comes after its check fails the structural rule."""
    nb = nbformat.v4.new_notebook()
    check = nbformat.v4.new_code_cell('check("x.1", answer_1, 1)')
    check.metadata["nbgrader"] = {"grade": True}
    nb.cells = [
        nbformat.v4.new_markdown_cell("## Section"),
        check,
        nbformat.v4.new_code_cell("dash = Dashboard(make_lab)"),
    ]
    sections = dict(_sections(nb.cells))
    body = sections["## Section"]
    checks = [i for i, c in enumerate(body) if _is_check(c)]
    assert checks == [0]
    assert not any(_is_picture(c) for c in body[: checks[0]])


def _on_screen(dash: Any, frame: int) -> list[str]:
    """What the paused frame shows in words: its caption lines and every text of the main picture's view-model
    (places' labels and notes, tokens' countdowns), as the page gets them from the frames."""
    frames = dash.controller.frames
    texts = list(frames.captions[frame])
    vm = frames.models(dash.main_view)[frame]
    texts += [f"{p.label} {p.note}" for p in vm.places] + [t.countdown for t in vm.tokens if t.countdown]
    return texts


def _says_time(text: str, words: str) -> bool:
    return re.search(rf"(?<![0-9.,]){re.escape(words)}(?![0-9A-Za-z])", text) is not None


def _place_words(key: str) -> list[str]:
    """How a caption names the place ``key``: ``TopicTest queue 0 on broker-b``, ``%DLQ%cg``, ``delay level 3``."""
    kind, _, rest = key.partition(":")
    if kind == "queue":
        name, _, qid = rest.rpartition(":")
        topic, _, broker = name.partition("@")
        return [rest, f"{topic} queue {qid} on {broker}"] + ([topic] if topic.startswith("%DLQ%") else [])
    if kind == "delay":
        return [f"level {rest.rpartition(':')[2]}"]
    if kind in ("done", "dropped"):  # a tray: the sentence that puts the message there, not its owner's name
        return {"done": ["listener is done with"], "dropped": ["drops the failed"]}[kind]
    return [rest]


def test_while_a_checkpoint_waits_nothing_on_screen_states_its_answer() -> None:
    """Stop 30's screenshots: lab 07a paused on "c1 pauses TopicTest queue 0 on broker-a for 1 s" and "suspended ·
    again in 1 s" under "When is M0002 delivered next?" (3 s; answer 4 s), lab 09 the same, lab 02b on "local retry
    in 5 s", lab 03 on "returns in 30 s". At every checkpoint of every lab, the paused frame's caption and picture:
    for "when", state neither the answer's time nor the time left until it; for "where", no sentence about the
    message names its answer place; for "who", no sentence has the answer doing the event."""
    from rmqlab.widgets.checkpoint_when import happens
    from rmqlab.widgets.flow_model import countdown_time

    from rmqlab import format_duration

    told, asked = [], 0
    for name in SOURCES:
        for dash in _dashboards_of(LABS / name):
            frames = dash.controller.frames
            for cp in dash.controller.checkpoints:
                asked += 1
                texts = _on_screen(dash, cp.frame)
                if cp.ask == "when":
                    answer = int(cp.answer)
                    left = answer - frames.now_ms[cp.frame]
                    spans = {countdown_time(left), format_duration(left), f"{left} ms", f"{left:,} ms"}
                    moments = {f"t = {format_duration(answer)}", f"at {format_duration(answer)}", f"{answer} ms"}
                    told += [(name, cp.name, w, t) for t in texts for w in spans | moments if _says_time(t, w)]
                    continue
                sentences = [s for t in texts[:1] for s in re.split(r"(?<=\.) ", t)]
                if cp.ask == "where":
                    msg = str(cp.event.msg_id)
                    told += [(name, cp.name, w, s) for s in sentences if msg in s
                             for w in _place_words(cp.answer) if w in s]  # fmt: skip
                else:
                    told += [(name, cp.name, s) for s in sentences if happens(cp.event) in s]
    assert asked >= 12
    assert told == []


def test_the_answer_check_finds_a_told_answer() -> None:
    """The check above is not vacuous: lab 07a's caption as it was, unmasked, states the time left."""
    plain = "c1 pauses TopicTest queue 0 on broker-a for 1 s, then tries M0002 again there."
    assert _says_time(plain, "1 s") and not _says_time("for 11 s or 2.1 s", "1 s")
    assert "TopicTest queue 0 on broker-b" in _place_words("queue:TopicTest@broker-b:0")
