"""The controller's fault buttons: crash / restart a broker or a consumer, partition / heal a link, at the current time.

A mixin of :class:`widgets.controller.Controller` (kept apart so each module stays readable). A fault is injected
at the current virtual time: the run is rebuilt as "factory + faults" (:class:`~widgets.replay.InjectedFault`) and
continues from the step at which the fault took effect, so it is as deterministic as the factory. Step back before
it shows the run without it; Clear faults returns to the factory's own run at the same virtual time. The broker and
client choices are filled from the snapshot (the names of this scenario), and a button is enabled only when its
fault has a target.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

import ipywidgets as W

from rmqlab import Lab
from rmqlab.core.i18n import gettext as _
from rmqlab.snapshot import LabSnapshot

from .active_faults import fault_windows, faults_text
from .base import guarded
from .checkpoints import Checkpoint, cuts_of
from .controller_controls import button
from .frames import RunFrames
from .replay import FAULT_KINDS, InjectedFault, Replay, fault_target
from .stepper import Stepper

__all__ = ["BROKER_FAULTS", "CONSUMER_FAULTS", "LINK_FAULTS", "FaultPanel"]

BROKER_FAULTS = tuple(kind for kind in FAULT_KINDS if fault_target(kind) == "broker")
CONSUMER_FAULTS = tuple(kind for kind in FAULT_KINDS if fault_target(kind) == "consumer")
LINK_FAULTS = tuple(kind for kind in FAULT_KINDS if fault_target(kind) == "client")
"""The dashboard's fault kinds by what their target names (rmqlab/lab/faults/kinds.py: a broker; a consumer; a client,
with a broker at the other end of the link)."""


class FaultPanel:
    """The fault choices and buttons, and :meth:`inject` / :meth:`clear_faults`, for a controller that has the
    attributes declared here."""

    make_lab: Callable[[], Lab] | None
    replay: Replay | None
    snapshot: LabSnapshot | None
    stepper: Stepper | None
    frames: RunFrames | None
    horizon: int | str
    checkpoint_specs: tuple[Checkpoint, ...]
    message: W.HTML
    pause: Callable[[], None]
    _build_frames: Callable[[], None]
    _show: Callable[[], None]

    if TYPE_CHECKING:

        @property
        def faults(self) -> tuple[InjectedFault, ...]: ...

    def _build_fault_panel(self) -> W.VBox:
        """The broker and client choices, one button per fault kind, Clear faults and the list of injected faults."""
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
            "broker_down": button(_("Crash broker"), _("broker_down: the chosen broker stops now"), "bolt"),
            "broker_up": button(_("Restart broker"), _("broker_up: the chosen broker comes back now"), "play-circle"),
            "consumer_crash": button(
                _("Crash consumer"), _("the chosen consumer dies now, persisting nothing"), "bolt"
            ),
            "consumer_restart": button(_("Restart consumer"), _("the chosen consumer starts again now"), "play-circle"),
            "partition": button(
                _("Partition"), _("cut the link between the chosen client and broker now"), "chain-broken"
            ),
            "heal": button(_("Heal"), _("restore the link between the chosen client and broker now"), "link"),
        }
        self.clear_faults_button = button(
            _("Clear faults"), _("forget every injected fault (same virtual time)"), "eraser"
        )
        self.fault_list = W.HTML(value="")
        return W.VBox(
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

    def _wire_fault_panel(self) -> None:
        """Each button and choice calls its method twin; an error shows in the controller, never in the kernel."""
        g = guarded(self)
        self.clear_faults_button.on_click(g(lambda _: self.clear_faults()))
        for kind, fault_button in self.fault_buttons.items():
            fault_button.on_click(g(lambda _, kind=kind: self._on_fault_button(kind)))
        self.fault_client.observe(g(lambda _: self._sync_fault_buttons()), names="value")

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
        replay = Replay(self.make_lab, horizon=self.horizon, faults=faults, cuts=cuts_of(self.checkpoint_specs))
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
        for kind, fault_button in self.fault_buttons.items():
            if self.replay is None:
                fault_button.disabled = True
            elif kind in BROKER_FAULTS:
                fault_button.disabled = self.fault_broker.value is None
            elif kind in CONSUMER_FAULTS:
                fault_button.disabled = self.fault_client.value not in consumers
            else:
                fault_button.disabled = self.fault_client.value is None or self.fault_broker.value is None
        self.clear_faults_button.disabled = self.replay is None or not self.faults

    def _show_faults(self) -> None:
        """Beside Clear faults: every fault in force at this step, whatever injected it (a button, the lab's script,
        a scenario), with its window (:mod:`widgets.active_faults`: the whole run's when it is known ahead); then the
        faults the buttons injected, which Clear faults forgets."""
        replay = self.replay
        if replay is None:
            return
        windows = self.frames.faults if self.frames is not None else fault_windows(replay.lab.trace)
        active = html.escape(faults_text(windows, replay.position))
        injected = ""
        if self.faults:
            items = "".join(f"<li>{html.escape(f.label)}</li>" for f in self.faults)
            named, said = _("injected faults"), _("injected:")
            injected = (
                f' · <span aria-label="{named}">{said} '
                f'<ul style="display:inline;margin:0;padding-left:1.2em">{items}</ul></span>'
            )
        self.fault_list.value = f'<div data-testid="rmq-faults" role="status">{active}{injected}</div>'
        self._sync_fault_buttons()
