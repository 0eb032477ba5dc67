"""What every view shares: a debug Output that shows callback errors, and update-on-change."""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import ipywidgets as W

from rmqlab.snapshot import LabSnapshot

__all__ = ["SnapshotView", "guarded"]

F = TypeVar("F", bound=Callable[..., Any])


def guarded(owner: Any) -> Callable[[F], F]:
    """Wrap a callback so an exception lands in ``owner.debug`` (an Output) and ``owner.errors``.

    ipywidgets swallows exceptions raised inside observers and button handlers (they go to the
    kernel log nobody reads); students must see them next to the widget instead.
    """

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                text = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}"
                owner.errors.append(text)
                owner.debug.append_stderr(text)
                return None

        return inner  # type: ignore[return-value]

    return wrap


class SnapshotView(W.VBox):
    """A view: ``model(snapshot)`` is pure; ``render(model)`` touches widgets only when it changed."""

    title = "view"
    main = False
    """The dashboard's main picture: drawn above the tabs (the message flow by default)."""
    legend = ""
    """Plain text naming every glyph the view draws, shown under it by the Dashboard. Scene views that draw
    their legend inside the picture leave it empty."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.debug = W.Output(layout=W.Layout(max_height="12em", overflow="auto"))
        self.errors: list[str] = []
        self.vm: Any = None
        self.text = ""
        self.snapshot: LabSnapshot | None = None
        self.mask: Callable[[Any], Any] | None = None
        """The mask :meth:`update` last applied (:meth:`refresh` keeps it)."""
        self.renders = 0
        self.update = guarded(self)(self.update)  # type: ignore[method-assign]

    def model(self, snap: LabSnapshot) -> Any:
        raise NotImplementedError

    def models(self, snaps: Sequence[LabSnapshot]) -> list[Any]:
        """:meth:`model` of each snapshot of a run, in order (a run's frames, :class:`~widgets.frames.RunFrames`).
        A view whose model folds the trace from its start gives its own, which folds each event once."""
        return [self.model(snap) for snap in snaps]

    def run_ends_at(self, end_ms: int | None) -> None:
        """The controller built a run whose last frame's clock is ``end_ms`` (None: no frames, a step-by-step run).
        A view whose time axis ends with the run keeps it (:class:`~widgets.lease_view.LeaseView`), so the kernel's
        picture and the page's frames share one axis; the others ignore it."""

    def render(self, vm: Any) -> None:
        raise NotImplementedError

    def to_text(self, vm: Any) -> str:
        raise NotImplementedError

    def update(self, snap: LabSnapshot, mask: Callable[[Any], Any] | None = None) -> None:
        """Recompute the view-model; re-render only if it differs from the last one.

        ``mask``: the view-model as a paused checkpoint shows it (the controller passes the run's mask at a
        checkpoint's frame, :func:`widgets.checkpoint_mask.mask_model`), so a picture the kernel draws there is the
        page's frame, "?" and placeholders included; ``None`` elsewhere."""
        self.snapshot = snap
        self.mask = mask
        vm = self.model(snap) if mask is None else mask(self.model(snap))
        if vm == self.vm:
            return
        self.vm = vm
        self.text = self.to_text(vm)
        self.render(vm)
        self.renders += 1

    def refresh(self) -> None:
        """Re-run the model on the last snapshot (after a UI option changed)."""
        if self.snapshot is not None:
            self.vm = None
            self.update(self.snapshot, self.mask)
