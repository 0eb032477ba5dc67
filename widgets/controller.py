"""Controller: Play / Pause / Step / Step back / Reset, speed, a scrubber, a caption, and injected faults.

Every button has a method twin (:meth:`step_once`, :meth:`step_back`, :meth:`reset`, :meth:`play`,
:meth:`pause`, :meth:`jump_to_next`, :meth:`seek`, :meth:`seek_time`, :meth:`inject`, :meth:`clear_faults`) so tests and
notebooks drive it without a browser. Play uses an ``ipywidgets.Play``: the browser ticks its ``value``
every ``interval`` ms and each tick is one :meth:`step_once`; headless, :meth:`play` steps ``n`` times.

**Steps are meaningful events.** Step, Step back and Play move to the next (previous) position whose
scheduler step appended a meaningful event (:func:`rmqlab.narrate.is_meaningful`: a delivery, a consume
result, a send-back, a schedule hop, a DLQ write, a lock change, a send, a fault, a rebalance), skipping
offset and lock-renewal bookkeeping; the "every event" toggle makes them move one raw position. The
caption under the clock (``data-testid="rmq-caption"``, twin :attr:`caption`) says what the step just
taken did in two lines: a plain sentence (this run's numbers, no Java names, cause before effect, repeats
counted once) and "in the source:" with RocketMQ's own class and method and the rule
(:func:`rmqlab.narrate.step_caption`). A run of identical events (a pull failing every second for hours) is one
step: a step lands only where a meaningful event is *fresh* (:attr:`rmqlab.narrate.Caption.fresh`). The caption
is a function of the position and the toggle only, so every route to a position shows the same words.

**Faults** (crash / restart a broker or a consumer, partition / heal a link) are injected at the
current virtual time: the run is rebuilt as "factory + faults" (:class:`~widgets.replay.InjectedFault`)
and continues from the step at which the fault took effect. Step back before it shows the run without
it; Clear faults returns to the factory's own run at the same virtual time.

Position changes go through one place (:meth:`_show`), which takes one snapshot and hands it to
every attached view. A factory that raises shows its error in the controller; nothing is raised
into the kernel from a callback.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import ipywidgets as W

from rmqlab import EventKind, Lab, parse_duration
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .base import SnapshotView, guarded
from .checkpoints import Checkpoint
from .controller_frames import PageFrames
from .framed import FramedView
from .frames import RunFrames, clock_text
from .player import PlayerWidget
from .replay import FAULT_KINDS, InjectedFault, Replay, ReplayError, RunOutline, fault_target
from .stepper import CAPTION_LINES, Stepper

__all__ = ["CAPTION_LINES", "Controller"]

JUMP_KINDS = (
    "dead_lettered",
    "lock_expired",
    "send_back",
    "delivered",
    "consumed",
    "scheduled",
    "delay_delivered",
    "suspended",
    "lock_refused",
    "rebalanced",
    "fault",
    "warning",
)
CAPTION_STYLE = (
    "border-left:3px solid var(--jp-brand-color1, #0072B2);padding:2px 8px;margin:2px 0;"
    "color:var(--jp-ui-font-color1, #222);font-size:var(--jp-ui-font-size1, 13px);line-height:1.4"
)
SOURCE_STYLE = "color:var(--jp-ui-font-color2, #555);font-size:var(--jp-ui-font-size0, 11px)"
"""The second line ("in the source: …") is quieter than the plain sentence above it."""
BROKER_FAULTS = tuple(kind for kind in FAULT_KINDS if fault_target(kind) == "broker")
CONSUMER_FAULTS = tuple(kind for kind in FAULT_KINDS if fault_target(kind) == "consumer")
LINK_FAULTS = tuple(kind for kind in FAULT_KINDS if fault_target(kind) == "client")
"""The dashboard's fault kinds by what their target names (rmqlab/lab/faults/kinds.py: a broker; a consumer; a client,
with a broker at the other end of the link)."""


def _button(label: str, tip: str, icon: str = "") -> W.Button:
    """A button named by its label alone. ``icon`` is not drawn: a Font Awesome glyph is CSS text that screen
    readers read as part of the name (Chromium names the button "\uf0e7 Crash broker")."""
    del icon
    # flex "0 0 auto": in an HBox the buttons keep their label's width instead of shrinking to "Re…"
    return W.Button(description=label, tooltip=tip, layout=W.Layout(width="auto", flex="0 0 auto"))


class Controller(PageFrames, W.VBox):
    """Step-through control over a deterministic replay of ``make_lab()`` (plus any injected faults)."""

    def __init__(
        self,
        make_lab: Callable[[], Lab],
        *,
        views: Iterable[SnapshotView] = (),
        horizon: int | str = "6h",
        run_ahead: bool = True,
        checkpoints: Sequence[Checkpoint] = (),
    ) -> None:
        super().__init__()
        self.debug = W.Output(layout=W.Layout(max_height="12em", overflow="auto"))
        self.errors: list[str] = []
        self.views: list[SnapshotView] = list(views)
        self.horizon = horizon
        self.run_ahead = run_ahead
        self.make_lab: Callable[[], Lab] | None = None
        self.replay: Replay | None = None
        self.snapshot: LabSnapshot | None = None
        self.outline: RunOutline | None = None
        """The whole run, known in advance when ``run_ahead``: its end, and which events are still to come."""
        self.caption_lines: tuple[str, ...] = ()
        self._syncing = False
        self.stepper: Stepper | None = None
        self.checkpoint_specs: tuple[Checkpoint, ...] = tuple(checkpoints)
        self.frames: RunFrames | None = None
        """The run's frames, sent to the page once per build (``run_ahead``); ``None`` when not run ahead."""
        self.player = PlayerWidget()
        self.lazy_views: set[int] = set()
        """``id()`` of views whose frames wait until they are shown (hidden tabs): :meth:`send_frames`."""
        self.answers: list[dict[str, Any]] = []
        """Checkpoint answers given through :meth:`answer` (the page's are in ``player.answers``)."""
        self._pending_frame: int | None = None
        """Meaningful steps and captions over :attr:`replay` (the frame builder walks a run the same way)."""

        self.reset_button = _button(_("Reset"), _("rebuild the scenario from its factory (t = 0)"), "fast-backward")
        self.back_button = _button(
            _("Step back"), _("back to the previous meaningful step (deterministic replay)"), "step-backward"
        )
        self.step_button = _button(_("Step"), _("advance to the next meaningful event"), "step-forward")
        self.play_widget = W.Play(
            value=0,
            min=0,
            max=10**9,
            step=1,
            interval=200,
            description=_("play"),
            tooltip=_("play: one step per tick"),
            show_repeat=False,
        )
        self.pause_button = _button(_("Pause"), _("stop playing"), "pause")
        self.every_event = W.ToggleButton(
            value=False,
            description=_("every event"),
            tooltip=_(
                "on: Step, Step back and Play move one raw trace position (offset and lock bookkeeping too); "
                "off: one meaningful event"
            ),
            layout=W.Layout(width="auto", flex="0 0 auto"),
        )
        self.speed = W.IntSlider(
            value=5, min=1, max=50, description=_("steps/s"), tooltip=_("playback speed"), continuous_update=False
        )
        self.scrubber = W.IntSlider(
            value=0,
            min=0,
            max=1,
            description=_("position"),
            tooltip=_("trace position"),
            continuous_update=False,
            layout=W.Layout(width="60%"),
        )
        self.kind_choice = W.Dropdown(
            options=JUMP_KINDS,
            value="dead_lettered",
            description=_("next"),
            tooltip=_("event kind to jump to (with the run known ahead: only the kinds still to come, and how many)"),
        )
        self.jump_button = _button(_("Jump"), _("advance to the next event of the chosen kind"), "forward")
        self.clock = W.HTML(value="")
        self.caption_html = W.HTML(value="")
        self.message = W.HTML(value="")

        style = {"description_width": "initial"}
        self.fault_broker = W.Dropdown(
            options=(), description=_("broker"), tooltip=_("broker for the fault buttons"), style=style
        )
        self.fault_client = W.Dropdown(
            options=(),
            description=_("client"),
            tooltip=_("consumer (crash / restart) or client of a link"),
            style=style,
        )
        self.fault_buttons: dict[str, W.Button] = {
            "broker_down": _button(_("Crash broker"), _("broker_down: the chosen broker stops now"), "bolt"),
            "broker_up": _button(_("Restart broker"), _("broker_up: the chosen broker comes back now"), "play-circle"),
            "consumer_crash": _button(
                _("Crash consumer"), _("the chosen consumer dies now, persisting nothing"), "bolt"
            ),
            "consumer_restart": _button(
                _("Restart consumer"), _("the chosen consumer starts again now"), "play-circle"
            ),
            "partition": _button(
                _("Partition"), _("cut the link between the chosen client and broker now"), "chain-broken"
            ),
            "heal": _button(_("Heal"), _("restore the link between the chosen client and broker now"), "link"),
        }
        self.clear_faults_button = _button(
            _("Clear faults"), _("forget every injected fault (same virtual time)"), "eraser"
        )
        self.fault_list = W.HTML(value="")

        g = guarded(self)
        self.reset_button.on_click(g(lambda _: self.reset()))
        self.back_button.on_click(g(lambda _: self.step_back()))
        self.step_button.on_click(g(lambda _: self.step_once()))
        self.pause_button.on_click(g(lambda _: self.pause()))
        self.jump_button.on_click(g(lambda _: self.jump_to_next(self.kind_choice.value)))
        self.clear_faults_button.on_click(g(lambda _: self.clear_faults()))
        for kind, button in self.fault_buttons.items():
            button.on_click(g(lambda _, kind=kind: self._on_fault_button(kind)))
        self.player.observe(g(self._on_player_position), names="position")
        self.player.on_msg(g(self._on_player_msg))
        self.play_widget.observe(g(self._on_tick), names="value")
        self.play_widget.observe(g(self._on_playing), names="playing")
        self.speed.observe(g(self._on_speed), names="value")
        self.scrubber.observe(g(self._on_scrub), names="value")
        self.every_event.observe(g(lambda _: self._show_caption()), names="value")
        self.fault_client.observe(g(lambda _: self._sync_fault_buttons()), names="value")
        self._on_speed({"new": self.speed.value})

        # DOM order is the tab order: move first, then what it shows, then the faults
        self.buttons = W.HBox(
            [
                self.reset_button,
                self.back_button,
                self.step_button,
                self.play_widget,
                self.pause_button,
                self.every_event,
                self.speed,
            ]
        )
        self.fault_box = W.VBox(
            [
                W.HBox([self.fault_broker, self.fault_buttons["broker_down"], self.fault_buttons["broker_up"]]),
                W.HBox(
                    [
                        self.fault_client,
                        self.fault_buttons["consumer_crash"],
                        self.fault_buttons["consumer_restart"],
                        self.fault_buttons["partition"],
                        self.fault_buttons["heal"],
                    ]
                ),
                W.HBox([self.clear_faults_button, self.fault_list]),
            ]
        )
        # run ahead: the page's player (scene.js) draws Reset … Jump, the clock, the caption and the checkpoints
        # over the run's frames; the ipywidgets twins stay for notebooks and tests that drive the kernel's run.
        # Not run ahead (no frames): the ipywidgets controls, each move a kernel round trip.
        kernel_controls = (
            (self.buttons, W.HBox([self.scrubber, self.kind_choice, self.jump_button]), self.clock, self.caption_html)
            if not run_ahead
            else (self.player, W.HBox([self.every_event]))
        )
        self.children = (*kernel_controls, self.message, self.fault_box, self.debug)
        self.load(make_lab)

    # ------------------------------------------------------------------ scenario
    def load(self, make_lab: Callable[[], Lab], faults: Iterable[InjectedFault] = ()) -> bool:
        """Use a new factory (e.g. after a knob changed), at t = 0; ``False`` and an error message if it fails.

        Injected faults are forgotten unless ``faults`` are given (a new factory may not have those brokers).
        """
        self.pause()
        self.make_lab = make_lab
        try:
            self.replay = Replay(make_lab, horizon=self.horizon, faults=faults)
            self.stepper = Stepper(self.replay)
            self._build_frames()
        except ReplayError as exc:
            self.replay, self.snapshot, self.outline, self.stepper = None, None, None, None
            self._set_disabled(True)
            self.message.value = f'<pre role="alert" style="color:#D55E00">⚠ {html.escape(str(exc))}</pre>'
            self.clock.value = _("no scenario")
            self.caption_lines = ()
            self.caption_html.value = ""
            return False
        self.message.value = ""
        self._set_disabled(False)
        self._show()
        self._sync_fault_targets()
        return True

    @property
    def end(self) -> int | None:
        """The run's final position, if it was run ahead (``run_ahead``); else ``None``."""
        return None if self.outline is None else self.outline.end

    @property
    def ok(self) -> bool:
        """A scenario is loaded (the factory worked)."""
        return self.replay is not None

    def _set_disabled(self, disabled: bool) -> None:
        for w in (
            self.reset_button,
            self.back_button,
            self.step_button,
            self.play_widget,
            self.pause_button,
            self.scrubber,
            self.kind_choice,
            self.jump_button,
            self.clear_faults_button,
            *self.fault_buttons.values(),
        ):
            w.disabled = disabled
        if not disabled:
            self._sync_fault_buttons()

    def attach(self, view: SnapshotView) -> None:
        """Add a view; it is drawn at the current position at once."""
        self.views.append(view)
        if self.snapshot is not None:
            view.update(self.snapshot)

    # ------------------------------------------------------------------ meaningful steps
    def _sync(self) -> None:
        """Caption every new trace event and remember every reachable position seen."""
        assert self.stepper is not None
        self.stepper.sync()

    @property
    def at_end(self) -> bool:
        """Nothing more happens before the horizon (stepped past the last event, or at the known end)."""
        if self.replay is None:
            return False
        return self.replay.at_end or (self.end is not None and self.position >= self.end)

    @property
    def raw_steps(self) -> bool:
        """Step / Play move one raw position ("every event" is on)."""
        return bool(self.every_event.value)

    # ------------------------------------------------------------------ method twins of the buttons
    @property
    def position(self) -> int:
        return self.replay.position if self.replay else 0

    @property
    def faults(self) -> tuple[InjectedFault, ...]:
        """The faults injected into the factory's run, in the order they were added."""
        return self.replay.faults if self.replay else ()

    def step_once(self) -> bool:
        """Advance to the next meaningful position (one raw position with "every event"); ``False`` at the end."""
        if self.replay is None or self.stepper is None:
            return False
        moved = self.stepper.step(raw=self.raw_steps)
        self._show()
        return moved

    def step_back(self) -> int:
        """Back to the previous meaningful position (raw: the previous one), by rebuild + replay."""
        if self.replay is None or self.stepper is None:
            return 0
        self.stepper.back(raw=self.raw_steps)
        self._show()
        return self.position

    def reset(self) -> int:
        """Rebuild the scenario, back to its start (t = 0)."""
        if self.replay is None:
            return 0
        self.pause()
        self.replay.rebuild()
        self._show()
        return self.position

    def seek(self, k: int) -> int:
        """Go to the first reachable position >= ``k``."""
        if self.replay is None:
            return 0
        self.replay.seek(k)
        self._show()
        return self.position

    def seek_time(self, time: int | str) -> int:
        """Go to the first reachable position at or after virtual ``time`` (ms or ``"10s"``), by replay."""
        if self.replay is None:
            return 0
        self.replay.seek_time(parse_duration(time, "time"))
        self._show()
        return self.position

    def play(self, n: int | None = None) -> int:
        """Headless: ``n`` steps now, each rendered. Without ``n``: start the Play widget (browser)."""
        if self.replay is None:
            return 0
        if n is None:
            self.play_widget.playing = True
            return self.position
        for _step in range(n):
            if not self.step_once():
                break
        return self.position

    def pause(self) -> None:
        """Stop the Play widget."""
        self.play_widget.playing = False

    def jump_to_next(self, kind: EventKind | str) -> bool:
        """Advance until an event of ``kind`` happens; ``False`` (and a note) if it never does.

        With the run known in advance, a kind that does not come again leaves the position where it is (the
        student keeps their place); otherwise the replay has to run to the horizon to find out.
        """
        if self.replay is None:
            return False
        wanted = EventKind(kind)
        if self.outline is not None and not self.outline.ahead(self.position)[wanted]:
            found = False
        else:
            found = self.replay.jump_to_next(wanted)
            self._show()
        if not found:
            self.message.value = f"no further {html.escape(wanted.value)} event before the horizon"
        return found

    # ------------------------------------------------------------------ faults
    def inject(self, kind: str, target: str, broker: str | None = None) -> bool:
        """Inject ``kind`` on ``target`` at the current virtual time and continue from where it took effect.

        ``kind`` is one of ``broker_down``, ``broker_up`` (target: a broker), ``consumer_crash``,
        ``consumer_restart`` (target: a consumer's client id), ``partition``, ``heal`` (target: a consumer
        or producer name, ``broker``: the other end). The run is rebuilt as factory + every injected
        fault, so it is as deterministic as the factory. ``False`` if no scenario is loaded.
        """
        if self.replay is None or self.snapshot is None or self.make_lab is None:
            return False
        self._check_fault(kind, target, broker)
        fault = InjectedFault(self.snapshot.now_ms, kind, target, broker if kind in LINK_FAULTS else None)
        faults = (*self.replay.faults, fault)
        self._rebuild_with(faults, lambda replay: replay.seek_fired(len(faults) - 1))
        return True

    def clear_faults(self) -> bool:
        """Forget every injected fault and go back to the factory's run at the same virtual time."""
        if self.replay is None or self.snapshot is None or self.make_lab is None:
            return False
        now = self.snapshot.now_ms
        self._rebuild_with((), lambda replay: replay.seek_time(now))
        return True

    def _rebuild_with(self, faults: tuple[InjectedFault, ...], go: Callable[[Replay], int]) -> None:
        assert self.make_lab is not None
        self.pause()
        replay = Replay(self.make_lab, horizon=self.horizon, faults=faults)
        go(replay)
        self.replay = replay
        self.stepper = Stepper(replay)
        self._build_frames()
        self.message.value = ""
        self._show()

    def _check_fault(self, kind: str, target: str, broker: str | None) -> None:
        """Bad input names the parameter, the value and what is allowed (the names come from the snapshot)."""
        assert self.snapshot is not None
        if kind not in FAULT_KINDS:
            raise ValueError(f"kind={kind!r} is not a fault; expected one of {sorted(FAULT_KINDS)}")
        brokers = sorted(b.name for b in self.snapshot.brokers)
        consumers = sorted(c.client_id for c in self.snapshot.consumers)
        clients = sorted({*consumers, *(name for name, _ in self.snapshot.producers)})
        allowed = brokers if kind in BROKER_FAULTS else consumers if kind in CONSUMER_FAULTS else clients
        if target not in allowed:
            raise ValueError(f"target={target!r} for {kind}; expected one of {allowed}")
        if kind in LINK_FAULTS and broker not in brokers:
            raise ValueError(f"broker={broker!r} for {kind}; expected one of {brokers}")

    def _on_fault_button(self, kind: str) -> None:
        target = self.fault_broker.value if kind in BROKER_FAULTS else self.fault_client.value
        if target is None:
            self.message.value = _("choose a broker / client first")
            return
        self.inject(kind, target, self.fault_broker.value)

    def _sync_fault_targets(self) -> None:
        """Fill the broker / client choices from the snapshot (the names of this scenario)."""
        snap = self.snapshot
        if snap is None:
            return
        brokers = tuple(sorted(b.name for b in snap.brokers))
        consumers = sorted(c.client_id for c in snap.consumers)
        producers = sorted(name for name, _ in snap.producers if name not in consumers)
        clients = tuple(consumers + producers)
        for choice, options in ((self.fault_broker, brokers), (self.fault_client, clients)):
            if choice.options != options:
                keep = choice.value
                choice.options = options
                choice.value = keep if keep in options else (options[0] if options else None)
        self._sync_fault_buttons()

    def _sync_fault_buttons(self) -> None:
        """Crash / restart consumer only apply to consumers; every fault needs a scenario and a target."""
        snap = self.snapshot
        consumers = {c.client_id for c in snap.consumers} if snap is not None else set()
        for kind, button in self.fault_buttons.items():
            if self.replay is None:
                button.disabled = True
            elif kind in BROKER_FAULTS:
                button.disabled = self.fault_broker.value is None
            elif kind in CONSUMER_FAULTS:
                button.disabled = self.fault_client.value not in consumers
            else:
                button.disabled = self.fault_client.value is None or self.fault_broker.value is None
        self.clear_faults_button.disabled = self.replay is None or not self.faults

    # ------------------------------------------------------------------ widget callbacks
    def _on_tick(self, change: dict[str, Any]) -> None:
        if self._syncing or change["new"] <= change["old"]:
            return
        if not self.step_once():
            self.pause()

    def _on_playing(self, change: dict[str, Any]) -> None:
        """Play at the end of the run starts it again from t = 0 (instead of doing nothing)."""
        if change["new"] and self.replay is not None and self.at_end:
            self.replay.rebuild()
            self._show()

    def _on_speed(self, change: dict[str, Any]) -> None:
        self.play_widget.interval = max(20, 1000 // int(change["new"]))

    def _on_scrub(self, change: dict[str, Any]) -> None:
        if not self._syncing and self.replay is not None and change["new"] != self.position:
            self.seek(int(change["new"]))

    # ------------------------------------------------------------------ drawing
    def _show(self) -> None:
        assert self.replay is not None
        self._sync()
        snap = self.replay.snapshot()
        self.snapshot = snap
        pos = snap.trace_len
        top = max(pos, self.end or 0, self.scrubber.max)
        self._syncing = True
        try:
            with self.scrubber.hold_trait_notifications():
                self.scrubber.min = self.replay.start
                self.scrubber.max = max(top, self.replay.start + 1)
                self.scrubber.value = pos
        finally:
            self._syncing = False
        self.clock.value = f'<span role="status" aria-live="off">{html.escape(self.clock_text)}</span>'
        self._show_caption()
        self._show_faults()
        self._sync_jump_choices(pos)
        if self.replay.at_end:
            self.pause()
        frame = self.frames.index_of(pos, snap.now_ms) if self.frames is not None and not self.raw_steps else -1
        for view in self.views:
            # a picture without its frames in the page yet (a hidden tab) is drawn by the kernel, as before
            was_live = isinstance(view, FramedView) and view.live
            if isinstance(view, FramedView):
                view.live = frame < 0 or not view.canvas.frames
            view.update(snap)
            if isinstance(view, FramedView) and view.live and not was_live:
                view.draw_live()
        self._syncing = True
        try:
            with self.player.hold_sync():
                if frame < 0:
                    self.player.live_near = self.frames.near(pos) if self.frames is not None else 0
                    self.player.live_clock = self.clock_text
                    self.player.live_caption = list(self.caption_lines)
                self.player.position = frame
        finally:
            self._syncing = False

    def _sync_jump_choices(self, position: int) -> None:
        """Offer in the Jump box only the kinds still to come, each with how many (all of them if the future is
        not known); keep the student's choice while it is still on offer."""
        if self.outline is None:
            choices: tuple[tuple[str, str], ...] = tuple((kind, kind) for kind in JUMP_KINDS)
        else:
            ahead = self.outline.ahead(position)
            counts = ((kind, ahead[EventKind(kind)]) for kind in JUMP_KINDS)
            choices = tuple((f"{kind} ({n})", kind) for kind, n in counts if n)
        offered = choices or ((_("nothing ahead"), ""),)
        if offered != self.kind_choice.options:
            chosen = self.kind_choice.value
            self.kind_choice.options = offered  # selects the first option
            if chosen in (value for _, value in choices):
                self.kind_choice.value = chosen
            elif self.outline is not None and choices:  # the rarest kind ahead: the outcome, not "delivered (599)"
                ahead = self.outline.ahead(position)
                self.kind_choice.value = min((value for _, value in choices), key=lambda k: ahead[EventKind(k)])
        self.kind_choice.disabled = self.jump_button.disabled = not choices

    def _caption_for_position(self) -> tuple[str, ...]:
        """The captions of the step that reached the current position (a function of position and toggle)."""
        if self.stepper is None:
            return ()
        return self.stepper.caption_lines(raw=self.raw_steps)

    def _show_caption(self) -> None:
        self.caption_lines = self._caption_for_position()
        body = "".join(
            f'<div style="{SOURCE_STYLE}">{html.escape(line)}</div>'
            if line.startswith("in the source:")
            else f"<div><b>{html.escape(line)}</b></div>"
            for line in self.caption_lines
        )
        named = _("what this step did")
        self.caption_html.value = (
            f'<div data-testid="rmq-caption" role="status" aria-live="polite" aria-label="{named}" '
            f'style="{CAPTION_STYLE}">{body}</div>'
        )

    def _show_faults(self) -> None:
        faults = self.faults
        if faults:
            items = "".join(f"<li>{html.escape(f.label)}</li>" for f in faults)
            named, injected = _("injected faults"), _("injected:")
            self.fault_list.value = (
                f'<div data-testid="rmq-faults" aria-label="{named}">{injected} '
                f'<ul style="display:inline;margin:0;padding-left:1.2em">{items}</ul></div>'
            )
        else:
            none = _("no injected faults")
            self.fault_list.value = f'<div data-testid="rmq-faults">{none}</div>'
        self._sync_fault_buttons()

    @property
    def caption(self) -> str:
        """The caption of the step just taken, as the browser shows it (one line per event)."""
        return "\n".join(self.caption_lines)

    @property
    def clock_text(self) -> str:
        """The clock readout as plain text."""
        if self.snapshot is None:
            return _("no scenario")
        return clock_text(self.snapshot.now_ms, self.position, self.end, self.at_end)
