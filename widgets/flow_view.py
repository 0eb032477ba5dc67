"""The message-flow view: every message is a token, drawn where the engine holds it right now.

The picture reads left to right, as a message travels::

    producers │ broker lanes, one column per broker        │ consumer instances │ outcome
              │   business topic queues   ── pull ──────►  │  ProcessQueues     │ consumed · cg
      send ──►│   SCHEDULE_TOPIC_XXXX     ◄── send back ── │  (one box per      │ dropped · cg
              │   %RETRY%<group> queues   ── pull ──────►  │   assigned queue)  │
              │   %DLQ%<group>            ◄── dead letter ─│                    │

**One token per message per consumer group** (per *instance* in BROADCASTING, where every instance
consumes every message on its own). Its key is ``msg:<owner>:<msg id>``. The msg id is the producer's
``UNIQ_KEY``, which RocketMQ keeps on every copy (the ``%RETRY%`` copy, the ``SCHEDULE_TOPIC_XXXX``
copy, the ``%DLQ%`` copy all carry it; the copies differ in topic and queue offset). So the *same*
key names the logical message wherever its live copy is, and the token travels queue → ProcessQueue →
delay slot → ``%RETRY%`` → ProcessQueue → … → ``%DLQ%`` instead of vanishing and reappearing. A
message no group subscribes to has owner ``""`` (key ``msg::<id>``).

Where a token is, for its owner, from the snapshot's *state* (first match wins, so a copy that is
briefly in two places — the broker stores the retry copy before the consumer hears the answer — is
drawn once, at the most advanced live place):

1. in a live ProcessQueue of an instance of the owner (``pulled``, or ``consuming`` while a listener runs);
2. stored in a business or ``%RETRY%`` ConsumeQueue offset not yet pulled (``stored``);
3. waiting in a ``SCHEDULE_TOPIC_XXXX`` level (``delayed``, with "due in …" from ``now`` and the due time);
4. in ``%DLQ%<group>`` (``dead``);
5. ``dropped``: a BROADCASTING failure, or a send-back the broker answered SUCCESS without storing a
   copy (``retryQueueNums`` 0) — drawn dashed and crossed in the owner's "dropped" tray, never as consumed;
6. ``done``: consumed (every copy acked), faded in the owner's "consumed" tray;
7. at its producer: ``sending`` (attempts under way, nothing stored yet) or ``send failed``.

Colours come from :func:`widgets.palette.token_colour` of the message id or, in an ordered lab (an
orderly consumer runs), of the message's sharding key, the ``KEYS`` its stored copy carries, so every
message of one order shares a colour. Views read only the snapshot and its trace, never engine objects.

The parts: :mod:`~widgets.flow_model` (the view-model and its text), :mod:`~widgets.flow_facts` (what the trace
adds to the state), :mod:`~widgets.flow_places` (the rules above, as code) and :mod:`~widgets.flow_layout` (the
picture).
"""

from __future__ import annotations

from rmqlab.core.i18n import N_
from rmqlab.snapshot import LabSnapshot

from .flow_layout import flow_scene
from .flow_model import (
    ConsumerVM,
    FlowVM,
    Place,
    PlaceKind,
    TokenState,
    TokenVM,
    countdown,
    flow_text,
    tokens_by_place,
)
from .flow_places import flow_view_model
from .scene import Scene, SceneView

__all__ = [
    "ConsumerVM",
    "FlowVM",
    "FlowView",
    "Place",
    "PlaceKind",
    "TokenState",
    "TokenVM",
    "countdown",
    "flow_scene",
    "flow_text",
    "flow_view_model",
    "tokens_by_place",
]


class FlowView(SceneView):
    """The message-flow picture of a dashboard: ``FlowView()``, then give it to a Controller's ``views``."""

    title = N_("Message flow")

    def model(self, snap: LabSnapshot) -> FlowVM:
        return flow_view_model(snap)

    def scene(self, vm: FlowVM) -> Scene:
        return flow_scene(vm)

    def to_text(self, vm: FlowVM) -> str:
        return flow_text(vm)
