"""What each lab's dashboards must show, computed in this process from the lab's own code and the engine.

The browser tests never hard-code a clock string, a caption, a token position or a count. They run the
lab's code cells here (as Run All does in the kernel), note every Controller the notebook *displays*
(a ``Dashboard``, or a box holding a Controller and its views), and ask those in-process controllers
for what the browser must show after Reset and after each Step: the clock readout, the caption lines,
every scene view's marks (key → role, and each FlowView token's ``transform``), and — from the engine's
live objects at that position — how many messages sit in each ProcessQueue, delay level and DLQ. The
retry timeline's delivery count comes from the *engine*: a fresh ``Lab`` from the dashboard's factory
(knobs and all), run to the controller's horizon, counting its DELIVERED events.

The engine is deterministic, so the kernel's controller and this one are in the same state after the
same calls; the lab cells that move a dashboard after building it (``jump_to_next`` …) run here too, so
the on-load picture (Voila) is the same as well.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import io
import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ipywidgets as W
import nbformat
from rmqlab.widgets.controller import Controller
from rmqlab.widgets.flow_view import FlowView, FlowVM
from rmqlab.widgets.scene import Scene, SceneView, _num
from test_flow_view import engine_places  # tests/ is on sys.path (pytest's prepend import mode)

from rmqlab import EventKind, parse_duration

MIN_STEPS = 3
"""Step clicks every lab gets after Reset, at least."""
MAX_STEPS = 40
"""Step clicks we are willing to make while waiting for a token to travel (a lab that only sends first)."""
FLOW_STATES = ("pulled", "consuming", "delayed", "dead")
"""Token states whose places the engine's live objects can be counted in (ProcessQueues, delay levels, DLQs)."""


@dataclass(frozen=True, slots=True)
class SceneMarks:
    """What one scene view draws: its ``data-testid`` and mark key → role (``""`` when none)."""

    testid: str
    roles: dict[str, str]
    title: str = ""
    """The view's title: the label of its tab button (or of the main picture)."""

    def role_counts(self) -> dict[str, int]:
        """Marks per role, e.g. ``{"token": 3, "arrow": 5, …}`` (the numbers a browser can count)."""
        return dict(sorted(Counter(self.roles.values()).items()))


@dataclass(frozen=True, slots=True)
class Frame:
    """The dashboard after Reset or after one Step, as the kernel draws it."""

    position: int
    clock: str
    """The clock span's text (``Controller.clock_text`` plus `` · end`` at the replay's end)."""
    caption: tuple[str, ...]
    """``Controller.caption_lines``: one ``<div>`` per line under ``[data-testid=rmq-caption]``."""
    tokens: dict[str, str] | None
    """FlowView token key → ``translate(x,y)`` (``None``: this controller has no FlowView)."""
    token_places: dict[str, str] | None
    """FlowView token key → the place it is drawn in, for the tokens in engine-countable states."""
    engine_counts: dict[str, int]
    """Messages the engine's live objects hold per place (``pq:…``, ``delay:…``, ``queue:%DLQ%…``)."""
    answered: Frame | None = None
    """At a checkpoint's pause: the same frame once its question is answered (its masked values said, which may
    move the picture's marks: a clock's text sets its box's width), as a page that answered it draws it."""


@dataclass(frozen=True, slots=True)
class CheckpointStop:
    """A checkpoint the page asks on one of ``frames``: Step and Play stop there until it is answered."""

    name: str
    frame: int
    """The frame (Steps from Reset) it pauses on: the step just before its event."""
    question: str
    answer: str
    """The key of the right choice (a ``button[data-key]`` in the question's box)."""
    wrong: str | None
    """The key of a wrong choice (``None``: it has only one)."""
    hint: str
    """What the page says to the ``wrong`` choice (its own near-miss hint)."""
    explain: str
    tab: str = ""
    """The tab the question is about (the page opens it when it asks), or ""."""


@dataclass(frozen=True, slots=True)
class DashboardExpectation:
    """Everything the browser tests compare for one displayed controller."""

    index: int
    """Its place among the notebook's displayed controllers, in display order (= DOM order)."""
    cell: int
    """The code cell that displayed it (for messages only: the browser finds dashboards by test id)."""
    on_load: Frame
    """The state after the whole notebook ran (what Voila shows on load)."""
    on_load_scenes: tuple[SceneMarks, ...]
    after_load_step: Frame | None
    """One Step from the on-load state (``None``: already at the end)."""
    frames: tuple[Frame, ...]
    """``frames[0]`` after Reset, then one per Step click."""
    reset_scenes: tuple[SceneMarks, ...]
    end_clock: str
    retry_timeline: bool
    """It has a RetryTimeline view (titled "Retry timeline")."""
    retried: bool
    """The engine's run sends something back or suspends it: the lab has retries."""
    deliveries: int
    """DELIVERED events of the engine's own run of the dashboard's factory to its horizon."""
    timeline_hidden: int
    """Rows the kernel's timeline leaves out at the end (``max_lanes``); the delivery check needs 0."""
    consumers: int
    """Consumer instances in the scenario: with one, some token must travel (queue → ProcessQueue) in ``frames``."""
    positions: tuple[int, ...] = ()
    """The trace position of every frame of the run (``frames`` holds the first few only)."""
    checkpoints: tuple[CheckpointStop, ...] = ()
    """Every checkpoint of the run, in frame order (the page asks each once, until it is answered)."""

    def checkpoint_at(self, frame: int) -> CheckpointStop | None:
        """The checkpoint the page asks on ``frame`` (``None``: none there)."""
        return next((cp for cp in self.checkpoints if cp.frame == frame), None)

    @property
    def has_flow(self) -> bool:
        return self.frames[0].tokens is not None


# --------------------------------------------------------------------------- running a notebook here
def code_cells(path: Path) -> list[tuple[int, str]]:
    """(index among all cells, source) of every code cell."""
    nb = nbformat.read(path, as_version=4)
    return [(i, c.source) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def _controllers_in(obj: Any) -> Iterator[Controller]:
    """Every Controller inside a displayed widget tree, depth first (DOM order)."""
    if isinstance(obj, Controller):
        yield obj
        return
    if isinstance(obj, W.Box):
        for child in obj.children:
            yield from _controllers_in(child)


@dataclass
class NotebookRun:
    """A notebook executed in this process: its namespace and the controllers it displayed, in order."""

    ns: dict[str, Any]
    displayed: list[tuple[int, Controller]]
    stdout: dict[str, str]
    """Each code cell's source → what it printed (the kernel's stdout stream for that cell)."""


@functools.cache
def run_cells(path: Path) -> NotebookRun:
    """Execute the notebook's code cells here as a fresh kernel would, once per notebook (each cell's stdout kept).

    A cell's last expression is "displayed" as IPython displays it, and so is anything passed to
    ``IPython.display.display``; the controllers inside those, in order, are the notebook's dashboards.
    Checkpoint verdicts are forgotten first, as a fresh kernel starts: other tests in this process ran checks, and
    ``score()`` would otherwise count them. Cached: :func:`lab_expectations` and the Lite test (which compares each
    cell's stdout) share one run, which for lab 03 is half a minute on a busy machine.
    """
    import IPython.core.display_functions as display_functions
    import IPython.display

    from rmqlab.course import exercises

    exercises.reset()
    ns: dict[str, Any] = {"__name__": "__rmqlab_lab__"}
    displayed: list[tuple[int, Controller]] = []
    stdout: dict[str, str] = {}
    cell = -1

    def show(*objs: Any, **_: Any) -> None:
        for obj in objs:
            displayed.extend((cell, c) for c in _controllers_in(obj) if all(c is not d for _, d in displayed))

    saved = (IPython.display.display, display_functions.display)
    IPython.display.display = display_functions.display = show  # type: ignore[assignment]
    ns["display"] = show
    try:
        for index, source in code_cells(path):
            cell = index
            tree = ast.parse(source, f"{path.name}[{index}]")
            last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            body = tree.body[:-1] if last is not None else tree.body
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(ast.Module(body=body, type_ignores=[]), f"{path.name}[{index}]", "exec"), ns)
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), f"{path.name}[{index}]", "eval"), ns)
                    if value is not None and not source.rstrip().endswith(";"):
                        show(value)
            stdout[source] = out.getvalue()
    finally:
        IPython.display.display, display_functions.display = saved
    return NotebookRun(ns, displayed, stdout)


# --------------------------------------------------------------------------- what the kernel draws
def clock_readout(controller: Controller) -> str:
    """The clock's text in the browser: ``clock_text`` (which says `` · end`` at the end of the run)."""
    assert controller.replay is not None
    return controller.clock_text


def _flow(controller: Controller) -> FlowView | None:
    return next((v for v in controller.views if isinstance(v, FlowView)), None)


def token_transforms(scene: Scene) -> dict[str, str]:
    """Token key → the ``transform`` scene.js writes for the kernel's scene (``translate(x,y)``)."""
    return {m.key: f"translate({_num(m.x)},{_num(m.y)})" for m in scene.marks if m.role == "token"}


def scene_marks(view: SceneView) -> SceneMarks:
    """The marks one scene view's current scene draws."""
    scene = view.current
    assert scene is not None, f"{type(view).__name__} has not drawn yet"
    return SceneMarks(scene.testid, {m.key: m.role for m in scene.marks}, view.title)


def scenes_of(controller: Controller) -> tuple[SceneMarks, ...]:
    """Every scene view's marks, in the controller's view order."""
    return tuple(scene_marks(v) for v in controller.views if isinstance(v, SceneView))


def frame_of(controller: Controller) -> Frame:
    """The controller's current readouts, its FlowView's tokens, and the engine's messages per place."""
    assert controller.replay is not None
    flow = _flow(controller)
    tokens = places = None
    if flow is not None:
        assert flow.current is not None and isinstance(flow.vm, FlowVM)
        tokens = token_transforms(flow.current)
        places = {t.key: t.place for t in flow.vm.tokens if t.state in FLOW_STATES}
    counts = {place: len(ids) for place, ids in engine_places(controller.replay.lab).items()}
    return Frame(controller.position, clock_readout(controller), controller.caption_lines, tokens, places, counts)


def moved(a: Frame, b: Frame) -> set[str]:
    """FlowView tokens drawn in both frames at different positions (they travelled)."""
    assert a.tokens is not None and b.tokens is not None
    return {k for k, t in b.tokens.items() if k in a.tokens and a.tokens[k] != t}


def _retry_facts(controller: Controller) -> tuple[bool, int]:
    """(the engine's run has retries, its DELIVERED count): a fresh Lab from the factory, run to the horizon."""
    assert controller.make_lab is not None
    lab = controller.make_lab()
    lab.run(until=parse_duration(controller.horizon, "horizon"))
    retried = bool(lab.trace.of_kind(EventKind.SEND_BACK) or lab.trace.of_kind(EventKind.SUSPENDED))
    return retried, len(lab.trace.of_kind(EventKind.DELIVERED))


def checkpoint_stops(controller: Controller) -> tuple[CheckpointStop, ...]:
    """The run's checkpoints as the page asks them, in frame order."""
    stops = []
    for cp in sorted(controller.checkpoints, key=lambda c: c.frame):
        wrong = next((c.key for c in cp.choices if c.key != cp.answer), None)
        hint = cp.check(wrong)[1] if wrong is not None else cp.hint  # the near-miss hint of that very choice
        stops.append(CheckpointStop(cp.name, cp.frame, cp.question, cp.answer, wrong, hint, cp.explain, cp.tab))
    return tuple(stops)


def _step_answering(controller: Controller, noted: list[Frame] | None = None) -> bool:
    """Step; a checkpoint asked where the Step stops is answered first, as the browser test answers it in the page
    (an unanswered checkpoint holds every move forward, in the kernel as in the page). ``noted``: the frames noted
    so far, the last of them this pause's: it gets its :attr:`Frame.answered`."""
    if controller.step_once():
        return True
    assert controller.frames is not None
    here = controller.position
    asked = [cp for cp in controller.checkpoints
             if controller.frames.positions[cp.frame] == here and cp.name not in controller.answered]  # fmt: skip
    if not asked:
        return False
    controller.answer(asked[0].name, asked[0].answer)
    if noted and noted[-1].position == here:
        noted[-1] = dataclasses.replace(noted[-1], answered=frame_of(controller))
    return controller.step_once()


def expect_controller(index: int, cell: int, controller: Controller) -> DashboardExpectation:
    """Reset, then Step until a FlowView token has travelled (at least MIN_STEPS), noting every frame.

    Every lab dashboard steps in the page: it is built run ahead (``run_ahead=True``, the default), so its frames
    are in the page and Step, Play and scrub need no kernel round trip. A checkpoint does not end the walk: in
    the page, Step stops on its frame until the student answers it, then goes on (the browser test answers it).
    """
    assert controller.run_ahead and controller.frames is not None, (
        f"dashboard {index} (cell {cell}) steps in the kernel (run_ahead=False): every lab dashboard must step "
        "with its frames in the page"
    )
    on_load, on_load_scenes = frame_of(controller), scenes_of(controller)
    after_load_step = frame_of(controller) if _step_answering(controller) else None  # a question on load: answered
    controller.reset()
    frames, reset_scenes = [frame_of(controller)], scenes_of(controller)
    for n in range(MAX_STEPS):
        if not _step_answering(controller, frames):
            break
        frames.append(frame_of(controller))
        travelled = frames[0].tokens is None or any(moved(a, b) for a, b in itertools.pairwise(frames))
        if n + 1 >= MIN_STEPS and travelled:
            break
    controller.reset()  # the browser test scrubs to the end from Reset
    for cp in controller.checkpoints:  # ... having answered every question on the way (a scrub stops at one)
        controller.answer(cp.name, cp.answer)
    assert controller.end is not None
    controller.seek(controller.end)
    # the page's scrubber moves between the run's frames: its end is the last Step's picture (stepping on past
    # the last event runs the idle timers to the horizon, a seek stops at the event)
    run = controller.frames
    end_clock = run.clock(len(run) - 1) if run is not None else clock_readout(controller)
    timeline = next((v for v in controller.views if v.title == "Retry timeline"), None)
    hidden = getattr(timeline.vm, "hidden", 0) if timeline is not None else 0
    retried, deliveries = _retry_facts(controller)
    assert controller.snapshot is not None
    consumers = len(controller.snapshot.consumers)
    controller.reset()
    return DashboardExpectation(
        index=index,
        cell=cell,
        on_load=on_load,
        on_load_scenes=on_load_scenes,
        after_load_step=after_load_step,
        frames=tuple(frames),
        reset_scenes=reset_scenes,
        end_clock=end_clock,
        retry_timeline=timeline is not None,
        retried=retried,
        deliveries=deliveries,
        timeline_hidden=int(hidden),
        consumers=consumers,
        positions=tuple(run.positions) if run is not None else (),
        checkpoints=checkpoint_stops(controller),
    )


@functools.cache
def lab_expectations(path: Path) -> tuple[DashboardExpectation, ...]:
    """One expectation per controller the notebook displays, in display order (empty: a lab without one)."""
    run = run_cells(path)
    return tuple(expect_controller(i, cell, c) for i, (cell, c) in enumerate(run.displayed))
