"""The message-flow view-model: places (queues, delay levels, ProcessQueues, trays), the tokens in them (one per
message per owner) and the consumer boxes, with the plain-text rendering the labs print.

:mod:`widgets.flow_view` tells where a token is and why; :mod:`widgets.flow_places` computes this model from a
snapshot and :mod:`widgets.flow_layout` draws it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rmqlab import format_duration
from rmqlab.core.i18n import N_
from rmqlab.core.i18n import gettext as _

__all__ = [
    "BROADCAST_WHY",
    "NOT_STARTED",
    "NO_COPY_WHY",
    "TOKEN_STATE_WORDS",
    "ClockVM",
    "ConsumerVM",
    "FlowVM",
    "Place",
    "PlaceKind",
    "TokenState",
    "TokenVM",
    "countdown",
    "countdown_time",
    "flow_text",
    "tokens_by_place",
    "with_placeholders",
]

PlaceKind = Literal["producer", "send_failed", "business", "delay", "retry", "dlq", "process_queue", "done", "dropped"]
TokenState = Literal["sending", "send_failed", "stored", "pulled", "consuming", "delayed", "dead", "done", "dropped"]

TOKEN_STATE_WORDS: dict[str, str] = {
    "sending": N_("sending"),
    "send_failed": N_("send_failed"),
    "stored": N_("stored"),
    "pulled": N_("pulled"),
    "consuming": N_("consuming"),
    "delayed": N_("delayed"),
    "dead": N_("dead"),
    "done": N_("done"),
    "dropped": N_("dropped"),
}
"""A token's state as a token's tooltip says it (through ``_()``; in English the state's own name)."""

NOT_STARTED = N_("not started yet")
"""What a consumer box says before the consumer's first start (not "shut down": it never ran)."""
BROADCAST_WHY = N_("BROADCASTING: failed, never retried")
"""``ConsumeMessageConcurrentlyService.processConsumeResult`` logs and drops a failed broadcast message."""
NO_COPY_WHY = N_("send-back stored no copy (retryQueueNums 0)")
"""The broker answered SUCCESS to CONSUMER_SEND_MSG_BACK and stored nothing."""


@dataclass(frozen=True, slots=True)
class Place:
    """Somewhere a token can be: a queue, a delay level, a ProcessQueue, a tray.

    ``key`` is stable across frames (``queue:<TOPIC@BROKER:QID>``, ``delay:<broker>:<level>``,
    ``pq:<client>:<queue>``, ``done:<owner>``, ``dropped:<owner>``, ``producer:<name>``,
    ``failed:<name>``); ``column`` is ``producers`` / ``broker:<name>`` / ``consumers`` / ``outcome``.
    """

    key: str
    kind: PlaceKind
    label: str
    column: str
    owner: str = ""
    """The consumer instance of a ProcessQueue, the owner of a tray, the producer of a producer place."""
    note: str = ""
    """A short second line: ``not in route`` (a queue the route does not list), what a ProcessQueue waits for
    (``suspended · again in 0.8 s``, ``local retry in 4.2 s``), why a tray's messages were dropped."""
    locked: bool = False
    """A ProcessQueue whose broker lock its instance holds, lease live (``RebalanceLockManager``): a lock badge."""
    lock_owner: str = ""
    """A broker queue an orderly consumer locked: the client the broker's ``RebalanceLockManager`` table names for it
    (``c1``; ``cg: c1, og: c2`` when several groups lock it), drawn under the queue's name with a padlock."""
    lock_expired: bool = False
    """That entry is past its 60 s (``lockMaxLiveTime``): the next client that asks takes it over (a hollow padlock)."""
    deleted: int = 0
    """Entries at this queue's head that retention deleted (its ConsumeQueue's min offset, which only
    CleanCommitLogService moves): "2 deleted by retention" under its name, the tokens gone."""
    placeholder: bool = False
    """Not there yet: a place a "where" checkpoint offers before anything was ever written to it (the ``%DLQ%``
    queue before its first dead letter, a delay level not in use), drawn dim and dashed under its real name so
    that it can be clicked (:func:`with_placeholders`)."""


@dataclass(frozen=True, slots=True)
class TokenVM:
    """One logical message for one owner, and where it is now."""

    key: str
    msg_id: str
    owner: str
    place: str
    state: TokenState
    reconsume_times: int
    colour: str
    colour_by: str
    """What picked the colour: the sharding key (``KEYS``) in an ordered lab, else the msg id."""
    offset: int | None = None
    """Queue offset of the copy in its place (None in trays and at the producer)."""
    due_ms: int | None = None
    countdown: str = ""
    """``due in 7.3 s`` for a delayed token (from the snapshot's ``now`` and the due time), else ``""``."""
    why: str = ""
    """For a dropped token: why RocketMQ dropped it (BROADCASTING failure, or a send-back that stored nothing)."""
    put_status: str = ""
    """For a stored token whose send was answered with a status other than SEND_OK (``FLUSH_DISK_TIMEOUT`` …): that
    status. The broker has the message, but the producer was told it may not be safe (drawn with a "!")."""
    copy: int = 1
    """Which stored copy of the message this is (2: the broker stored the same message id a second time, drawn with
    a "copy 2" badge: :mod:`widgets.flow_copies`); for a failed try's ghost, the try's number."""
    uncommitted: str = ""
    """For a token in its group's tray: why its queue's next owner delivers it again (the broker's offset is not past
    it and its consumer no longer holds the queue: :mod:`widgets.flow_uncommitted`), drawn with a dashed ring."""


@dataclass(frozen=True, slots=True)
class ClockVM:
    """One pending clock of a consumer (:mod:`widgets.flow_clocks`): ``rebalance in 18 s``."""

    kind: str
    """The timer kind (``rebalance``, ``route_poll`` …), or ``yield`` / ``request`` / ``shutdown``."""
    words: str
    """Its words in the current language, ``{time}`` where the time goes."""
    time: str
    """The time (a countdown, or a moment); ``?`` at a paused "when" checkpoint."""
    due_ms: int | None
    """When it fires (None: a state, such as shutting down)."""

    @property
    def text(self) -> str:
        """What the box says."""
        return self.words.replace("{time}", self.time)


@dataclass(frozen=True, slots=True)
class ConsumerVM:
    """One consumer instance (client id) and what its box says."""

    client_id: str
    group: str
    running: bool
    detail: str
    """``CLUSTERING · concurrently`` / ``BROADCASTING`` / ``orderly`` …, or ``crashed`` / ``shut down``."""
    clocks: tuple[ClockVM, ...] = ()
    """Its pending clocks, soonest first (a running instance's)."""


@dataclass(frozen=True, slots=True)
class FlowVM:
    """Everything the flow picture shows at one controller position (a pure function of the snapshot)."""

    now_ms: int
    position: int
    brokers: tuple[tuple[str, bool], ...]
    """(broker name, up)."""
    producers: tuple[str, ...]
    consumers: tuple[ConsumerVM, ...]
    places: tuple[Place, ...]
    tokens: tuple[TokenVM, ...]
    ordered: bool = False
    """An orderly consumer runs: tokens are coloured by sharding key (``KEYS``)."""
    colour_note: str = "colour = message id"
    owners: tuple[str, ...] = field(default=())
    focus: str = ""
    """The message the latest event is about (the controller's caption): its tokens get a halo."""
    retry_paths: bool = True
    """Draw the send-back, retry-pull and dead-letter arrows: False when every consumer is BROADCASTING, which
    drops a failed message instead (ConsumeMessageConcurrentlyService.processConsumeResult) and uses none of them."""

    cut_links: tuple[tuple[str, str], ...] = ()
    """Partitioned links (client id, broker name): drawn cut."""
    kept_out: tuple[tuple[str, ClockVM, str], ...] = ()
    """(broker, clock, tooltip): a producer keeps the broker out of its queue choice until the clock's time
    (:mod:`widgets.flow_kept_out`)."""
    send_budgets: tuple[tuple[str, ClockVM, str], ...] = ()
    """(producer, clock, tooltip): a send waiting for its answer, and when the producer gives up on it
    (:mod:`widgets.flow_send_budget`)."""
    delay_offsets: tuple[tuple[str, tuple[str, ...], str], ...] = ()
    """(broker, lines, tooltip): ``delayOffset.json`` against the levels' offsets in memory, drawn under
    ``SCHEDULE_TOPIC_XXXX`` in a run with a broker crash (:mod:`widgets.flow_delay_offsets`)."""
    ghosts: tuple[TokenVM, ...] = ()
    """Send tries that failed at this moment, each a faded crossed ghost on the queue it was sent to (not a message
    anywhere: not in :attr:`tokens`, not counted; :func:`widgets.flow_copies.failed_try_ghosts`)."""

    def place(self, key: str) -> Place:
        """The place with this key (KeyError names a few known ones)."""
        for p in self.places:
            if p.key == key:
                return p
        raise KeyError(f"no place {key!r}; have {[p.key for p in self.places][:10]}")

    def token(self, msg_id: str, owner: str | None = None) -> TokenVM:
        """The token of ``msg_id`` (for ``owner``, when several groups see the message)."""
        found = [t for t in self.tokens if t.msg_id == msg_id and (owner is None or t.owner == owner)]
        if len(found) != 1:
            raise KeyError(f"{len(found)} tokens for {msg_id!r} owner={owner!r}; have {[t.key for t in self.tokens]}")
        return found[0]

    def tokens_at(self, place: str) -> tuple[TokenVM, ...]:
        """The tokens in one place, in drawing order."""
        return tuple(t for t in self.tokens if t.place == place)

    def counts(self) -> dict[str, int]:
        """Tokens per state (only states that have any)."""
        out: dict[str, int] = {}
        for t in self.tokens:
            out[t.state] = out.get(t.state, 0) + 1
        return dict(sorted(out.items()))


def countdown(ms: int) -> str:
    """``due in 10 s`` / ``due in 7.3 s`` / ``due in 2 m 5 s`` / ``due now``: what a delay slot shows."""
    if ms <= 0:
        return _("due now")
    return _("due in {time}").format(time=countdown_time(ms))


def countdown_time(ms: int) -> str:
    """The time part of :func:`countdown` (``10 s``, ``7.3 s``, ``2 m 5 s``): a tenth of a second under a minute."""
    if ms < 60_000:
        text = f"{ms / 1000:.1f}"
        return f"{text[:-2] if text.endswith('.0') else text} s"
    return format_duration(ms)


def flow_text(vm: FlowVM) -> str:
    """Plain text: one line per place that holds tokens, in drawing order (for nbconvert and a quick look).

    ``M0001×2`` is message M0001 with reconsume times 2; ``/cg`` names the owner when several groups or
    BROADCASTING instances see the message.
    """
    many_owners = len({t.owner for t in vm.tokens}) > 1
    lines = [f"message flow at t = {format_duration(vm.now_ms)} ({len(vm.tokens)} tokens)"]
    for p in vm.places:
        toks = vm.tokens_at(p.key)
        if not toks:
            continue
        items = ", ".join(
            t.msg_id
            + (f"/{t.owner}" if many_owners and t.owner else "")
            + f"×{t.reconsume_times}"
            + (f" ({t.countdown})" if t.countdown else "")
            for t in toks
        )
        where = p.column.removeprefix("broker:") + " " if p.column.startswith("broker:") else ""
        lines.append(f"  {where}{p.label} [{p.kind}]: {items}")
    return "\n".join(lines)


def tokens_by_place(vm: FlowVM) -> Mapping[str, int]:
    """How many tokens each place holds (places without tokens are left out)."""
    out: dict[str, int] = {}
    for t in vm.tokens:
        out[t.place] = out.get(t.place, 0) + 1
    return out


def with_placeholders(vm: FlowVM, places: Sequence[Place]) -> FlowVM:
    """``vm`` with each of ``places`` it does not draw yet added as a placeholder (the same ``vm`` when it draws them
    all). A checkpoint's paused frame gets one for every place it offers that is not there yet, right or wrong alike,
    so that no new outline tells the answer."""
    have = {p.key for p in vm.places}
    new = tuple(dataclasses.replace(p, placeholder=True, note="") for p in places if p.key not in have)
    return dataclasses.replace(vm, places=vm.places + new) if new else vm
