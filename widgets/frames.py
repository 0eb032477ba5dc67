"""Frames: a whole run computed once by the engine, so the page can step, play and scrub it with no kernel.

After a build (or Rebuild, a knob, a fault button) :func:`build_run` walks the run from its start to its end
exactly as the controller's Step does (:class:`~widgets.stepper.Stepper`: one frame per meaningful step), and keeps
for every frame its trace position, virtual time, clock line, caption and snapshot. :meth:`RunFrames.scenes`
turns the snapshots into one view's scenes (only when that view is shown: a hidden tab costs nothing until it is
opened), and :func:`encode` sends them **delta-encoded by mark key**: frame 0 whole, then per frame only the marks
that are new, the fields that changed of the others (a token that moved sends its ``x`` and ``y``, a time axis that
grew the ``x`` of what it carries), the keys that went, and the drawing order when it changed. ``scene.js`` decodes them
and morphs the SVG frame to frame as it does for a live scene, so the picture at step k is the same whether the
kernel or the page drew it (:func:`decode` is the Python twin the tests compare with).
"""

from __future__ import annotations

import bisect
import gc
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from rmqlab import Lab, format_duration
from rmqlab.core.i18n import current_language, speaking
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .active_faults import FaultWindow, fault_windows
from .checkpoint_answered import Answered, answered_frames
from .checkpoint_lead import lead_pauses
from .checkpoint_mask import Mask, mask_frames, mask_model
from .checkpoints import AskedCheckpoint, Checkpoint, cuts_of, resolve
from .flow_view import FlowVM, flow_view_model
from .jump_default import HOUSEKEEPING, lesson_kind
from .replay import InjectedFault, Replay, RunOutline
from .run_intro import intro_caption
from .scene import Scene, SceneView
from .stepper import Stepper

__all__ = ["MAX_FRAMES", "RunFrames", "build_run", "clock_text", "decode", "encode", "encode_json", "one_build",
           "one_language"]  # fmt: skip

MAX_FRAMES = 120  # at most this many frames go to the page; past them Step asks the kernel (a run too long to watch)
_RUN_IDS = itertools.count(1)


@contextmanager
def one_language() -> Iterator[None]:
    """Speak the language of now for a whole build of frames, read once: otherwise each of the ~10,000 ``gettext``
    calls of a dashboard's frames (legends, tooltips, captions) reads ``RMQLAB_LANG`` from the environment again,
    a sixth of the time the views' frames take. The words are the same: the language does not change mid-build."""
    with speaking(current_language()):
        yield


@contextmanager
def one_build() -> Iterator[None]:
    """A build of frames (the run's walk, or one view's frames): :func:`one_language`, and the objects that were
    there before it (the notebook's: a quarter of a million in lab 03) out of the garbage collector's reach until
    it ends. The build makes tens of thousands of objects it keeps (snapshots, scenes, their JSON), which start the
    collector's full passes; each pass walked every object of the notebook again, in half the builds of lab 03 a
    fifth of their time. The new objects are collected as ever; the old ones are back in its reach afterwards (none
    is lost: a cycle that became garbage meanwhile is freed by the next full pass). Left as it is when the process
    froze objects of its own (:func:`gc.freeze`) or turned the collector off."""
    freeze = gc.isenabled() and gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        with one_language():
            yield
    finally:
        if freeze:
            gc.unfreeze()


def clock_text(now_ms: int, position: int, end: int | None, at_end: bool) -> str:
    """``t = 11 s (11000 ms) · event 40 / 52`` (the ms only when the short form hides them; ``· end`` last)."""
    short = format_duration(now_ms)
    ms = "" if short == f"{now_ms} ms" else f" ({now_ms} ms)"
    total = "" if end is None else f" / {end}"
    said = _("t = {time}{ms} · event {position}{total}").format(time=short, ms=ms, position=position, total=total)
    return said + (_(" · end") if at_end else "")


@dataclass
class RunFrames:
    """One run, frame by frame (frame ``i`` is the position the ``i``-th Step from the start reaches)."""

    run: str
    positions: list[int]
    now_ms: list[int]
    captions: list[tuple[str, ...]]
    snapshots: list[LabSnapshot]
    kinds: list[dict[str, int]]  # per frame: how many events of each kind its step appended (for Jump)
    end: int
    complete: bool
    """Every step of the run is a frame (``False``: the run had more than :data:`MAX_FRAMES`)."""
    outline: RunOutline
    checkpoints: tuple[AskedCheckpoint, ...] = ()
    masks: dict[int, Mask] = field(default_factory=dict)
    """Per paused frame of a checkpoint: for a "when", what states its answer, hidden in every view there; for a
    "where", the places it offers that are not there yet, drawn as placeholders (:mod:`widgets.checkpoint_mask`)."""
    answered: dict[int, Answered] = field(default_factory=dict)
    """Per masked paused frame: how it reads once answered (:mod:`widgets.checkpoint_answered`)."""
    summary_frame: bool = False
    """The last frame is the run's end, after its last event: the same position as the frame before, reached by one
    more Step (the replay then knows nothing follows), showing what the whole run showed — so the last event's own
    caption is not replaced by the summary (lab 07b's last step: the unlock timing out, the offsets persisted, c1
    stopped). A run whose last step only kept books shows the summary on that step instead."""
    faults: tuple[FaultWindow, ...] = ()
    """Every fault of the run (scripted or injected) with its window: the fault bar (:mod:`widgets.active_faults`)."""
    _models: dict[int, list[Any]] = field(default_factory=dict)
    _scenes: dict[int, list[Scene]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.positions)

    def clock(self, i: int) -> str:
        return clock_text(self.now_ms[i], self.positions[i], self.end, self.complete and i == len(self) - 1)

    def index_of(self, position: int, now_ms: int | None = None, *, ended: bool = False) -> int:
        """The frame at ``position`` (and virtual time ``now_ms``, when given), or -1 when no frame is there (a raw
        step, a jump between frames, or the last position reached by a seek before the run's idle end). At the
        last event's position, ``ended`` (the replay found that nothing follows) is the summary frame, if the run
        has one (:attr:`summary_frame`), else the event's frame."""
        found = [
            i for i, p in enumerate(self.positions) if p == position and (now_ms is None or self.now_ms[i] == now_ms)
        ]
        if not found:
            return -1
        summary = len(self) - 1 if self.summary_frame else -1
        if ended and summary in found:
            return summary
        return next((i for i in found if i != summary), found[0])

    def near(self, position: int) -> int:
        """The last frame at or before ``position`` (where Step and Back count from when no frame is shown)."""
        return max(0, bisect.bisect_right(self.positions, position) - 1)

    def models(self, view: SceneView) -> list[Any]:
        """The view's view-model at every frame (computed once per view)."""
        key = id(view)  # a cache key only, never an order
        if key not in self._models:
            masks = self.masks
            self._models[key] = [mask_model(vm, masks.get(i)) for i, vm in enumerate(view.models(self.snapshots))]
        return self._models[key]

    def scenes(self, view: SceneView) -> list[Scene]:
        """The view's scene at every frame (computed once per view, when the view is first shown).

        A frame whose view-model equals the previous frame's shows the previous frame's scene (the same object):
        a scene is drawn from its view-model alone, and a picture the step did not change (the Locks of a run
        with no orderly consumer, the Topology between faults) is then neither drawn nor encoded again."""
        key = id(view)
        if key not in self._scenes:
            scenes: list[Scene] = []
            models = self.models(view)
            for i, vm in enumerate(models):
                unchanged = i > 0 and vm == models[i - 1]
                scenes.append(scenes[-1] if unchanged else view.scene(vm))
            self._scenes[key] = scenes
        return self._scenes[key]

    def player_json(self) -> dict[str, Any]:
        """What the page's player needs: positions, clocks, captions, Jump counts, checkpoints."""
        kinds = sorted({k for per in self.kinds for k in per})
        return {
            "run": self.run,
            "positions": self.positions,
            "clocks": [self.clock(i) for i in range(len(self))],
            "captions": [list(c) for c in self.captions],
            "jumps": {k: [per.get(k, 0) for per in self.kinds] for k in kinds},
            # the kind the Jump box opens on, and the kinds it offers last (widgets.jump_default)
            "jump_main": lesson_kind(self.checkpoints, self.kinds),
            "housekeeping": list(HOUSEKEEPING),
            "checkpoints": [c.to_json() for c in self.checkpoints],
            "complete": self.complete,
        }


def build_run(
    make_lab: Callable[[], Lab],
    *,
    horizon: int | str = "6h",
    faults: Iterable[InjectedFault] = (),
    checkpoints: Sequence[Checkpoint] = (),
    max_frames: int = MAX_FRAMES,
    run: str | None = None,
) -> RunFrames:
    """Walk ``make_lab()``'s run Step by Step (meaningful steps) and keep every frame; resolve ``checkpoints``."""
    with one_build():
        return _build_run(make_lab, horizon, faults, checkpoints, max_frames, run)


def _build_run(
    make_lab: Callable[[], Lab],
    horizon: int | str,
    faults: Iterable[InjectedFault],
    checkpoints: Sequence[Checkpoint],
    max_frames: int,
    run: str | None,
) -> RunFrames:
    replay = Replay(make_lab, horizon=horizon, faults=faults, cuts=cuts_of(checkpoints))
    stepper = Stepper(replay)
    positions, times, captions, snaps, kinds = [], [], [], [], []
    trace = replay.lab.trace
    before = 0
    complete = True
    with replay.lab.stepping():  # one Ctrl-C handler for the whole walk, not one per step
        while True:
            position = replay.position
            positions.append(position)
            times.append(replay.lab.now)
            captions.append(stepper.caption_lines())
            snaps.append(replay.snapshot())
            counts: dict[str, int] = {}
            for k in range(before if positions[:-1] else position, position):
                counts[trace[k].kind.value] = counts.get(trace[k].kind.value, 0) + 1
            kinds.append(counts)
            before = position
            if len(positions) >= max_frames:
                complete = not stepper.step()
                break
            if not stepper.step():
                break
        summary = _end(stepper, captions, times, snaps) if complete else None
        replay.run_to_end()
    outline = RunOutline(tuple(e.kind for e in replay.lab.trace))
    captions[0] = intro_caption(snaps[0], list(replay.lab.trace)).lines  # what the picture shows, what will happen
    frames = RunFrames(
        run or f"rq-run-{next(_RUN_IDS)}", positions, times, captions, snaps, kinds, outline.end, complete, outline
    )
    frames.faults = fault_windows(replay.lab.trace)
    if checkpoints:
        flows: list[FlowVM] = [flow_view_model(s) for s in snaps]
        frames.checkpoints = resolve(checkpoints, trace=list(replay.lab.trace), positions=positions, snapshots=snaps,
                                     flows=flows, captions=captions)  # fmt: skip
        lead_pauses(stepper, frames.checkpoints, positions, captions)  # a pause speaks of what its question is about
        plain = {cp.frame: captions[cp.frame] for cp in frames.checkpoints}
        frames.masks = mask_frames(frames.checkpoints, times, frames.captions)
        frames.answered = answered_frames(frames.checkpoints, plain, frames.masks)
    if summary is not None:  # after the checkpoints: none pauses on it
        position, now, lines, snap = summary
        frames.positions.append(position)
        frames.now_ms.append(now)
        frames.captions.append(lines)
        frames.snapshots.append(snap)
        frames.kinds.append({})
        frames.summary_frame = True
    return frames


def _end(
    stepper: Stepper, captions: list[tuple[str, ...]], times: list[int], snaps: list[LabSnapshot]
) -> tuple[int, int, tuple[str, ...], LabSnapshot] | None:
    """The run's end, once the walk found it: a frame of its own (position, clock, summary, state) when the last step
    holds events, so their caption stays; else ``None``, and the last frame, which only kept books, says the summary
    at its own clock and state."""
    replay = stepper.replay
    if len(captions) > 1 and stepper.shows_events():
        now, snap = replay.lab.now, replay.snapshot()
        return replay.position, now, stepper.caption_lines(last=True, now_ms=now, state=snap), snap
    captions[-1] = stepper.caption_lines(last=True, now_ms=times[-1], state=snaps[-1])
    return None


def encode(scenes: Sequence[Scene]) -> dict[str, Any]:
    """Frame 0 whole, then per frame: ``set`` (new marks, whole), ``mod`` (changed marks: their key and only the
    fields that changed, ``None`` for a field back at its default, which :meth:`Scene.to_json` leaves out),
    ``del`` (keys gone), ``order`` (all keys, only when the drawing order changed) and ``head`` (size, label,
    CSS… only when they changed)."""
    return encode_json(_scenes_json(scenes))


def _scenes_json(scenes: Sequence[Scene]) -> Iterable[dict[str, Any]]:
    """Each scene's :meth:`Scene.to_json`, converted once when a frame shows the previous frame's scene, and each
    mark once in the whole run (a mark equal to one seen before reuses its JSON: the same dict, which
    :func:`encode_json` then finds unchanged without comparing it field by field)."""
    previous: Scene | None = None
    whole: dict[str, Any] = {}
    known: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
    for scene in scenes:
        if scene is not previous:
            whole, previous = scene.to_json(known), scene
        yield whole


def encode_json(wholes: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """:func:`encode` of frames already in JSON: each a dict whose ``marks`` are dicts with a ``key`` (a scene's
    marks, or the Events tab's rows), the rest its head."""
    frames: list[dict[str, Any]] = []
    prev_marks: dict[str, dict[str, Any]] = {}
    prev_order: list[str] = []
    prev_head: dict[str, Any] = {}
    for given in wholes:
        whole = dict(given)
        marks = {m["key"]: m for m in whole.pop("marks")}
        order = list(marks)
        delta: dict[str, Any] = {}
        head = {k: v for k, v in whole.items() if prev_head.get(k) != v}
        if head:
            delta["head"] = head
        new = [m for k, m in marks.items() if k not in prev_marks]
        if new:
            delta["set"] = new
        changed = [
            _changes(prev_marks[k], m)
            for k, m in marks.items()
            if k in prev_marks and prev_marks[k] is not m and prev_marks[k] != m
        ]
        if changed:
            delta["mod"] = changed
        gone = [k for k in prev_order if k not in marks]
        if gone:
            delta["del"] = gone
        kept_order = [k for k in prev_order if k in marks]
        new_keys = [k for k in order if k not in prev_marks]
        if order != kept_order + new_keys:
            delta["order"] = order
        frames.append(delta)
        prev_marks, prev_order, prev_head = marks, order, {**prev_head, **whole}
    return {"frames": frames}


def _changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """``after``'s key and the fields in which it differs from ``before`` (``None``: the field is gone)."""
    out: dict[str, Any] = {"key": after["key"]}
    out.update({name: value for name, value in after.items() if before.get(name) != value})
    out.update({name: None for name in before if name not in after})
    return out


def decode(encoded: dict[str, Any], i: int) -> dict[str, Any]:
    """Frame ``i`` as :meth:`Scene.to_json` gives it (the Python twin of ``scene.js``'s decoder)."""
    head: dict[str, Any] = {}
    marks: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for delta in encoded["frames"][: i + 1]:
        head.update(delta.get("head", {}))
        gone = set(delta.get("del", ()))
        for k in gone:
            marks.pop(k, None)
        order = [k for k in order if k not in gone]
        for m in delta.get("set", ()):
            if m["key"] not in marks:
                order.append(m["key"])
            marks[m["key"]] = m
        for change in delta.get("mod", ()):
            merged = {**marks[change["key"]], **change}
            marks[change["key"]] = {name: value for name, value in merged.items() if value is not None}
        if "order" in delta:
            order = list(delta["order"])
    return {**head, "marks": [marks[k] for k in order]}
