"""The append-only trace every view reads.

The engine appends one frozen :class:`TraceEvent` per observable step; widgets, the command line,
the invariant checker and the tests only read it. Events hold message *ids*, never bodies, so a long
run does not keep a second copy of every payload.

Read it by what happened, not by position: :meth:`Trace.where` (kind and fields), :meth:`Trace.first`,
:meth:`Trace.last`, :meth:`Trace.find` and :meth:`Trace.at` (one virtual millisecond).

Engine code records through the trace's methods: :meth:`Trace.record` for any kind, and one method per event
of a message's way through the cluster (:meth:`Trace.stored`, :meth:`Trace.delivered` …), which take the message,
the queue or the batch itself and build the event's details from them. A :class:`CountingTrace`
(``Lab(trace=False)``, for benchmarks of the bare engine) has the same methods and only counts each kind: it builds
no details, as 4.9.7 builds no ``SendMessageContext`` or ``ConsumeMessageContext`` when no hook is registered.

Mirrors: logging/src/main/java/org/apache/rocketmq/logging/InternalLogger.java
    (InternalLogger.info, InternalLogger.warn)
Mirrors: client/src/main/java/org/apache/rocketmq/client/hook/SendMessageHook.java
    (SendMessageHook.sendMessageBefore, SendMessageHook.sendMessageAfter)
Mirrors: client/src/main/java/org/apache/rocketmq/client/hook/ConsumeMessageHook.java
    (ConsumeMessageHook.consumeMessageBefore, ConsumeMessageHook.consumeMessageAfter)
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..common.message import DLQ_PREFIX, PROPERTY_REAL_TOPIC, PROPERTY_RETRY_TOPIC
from .trace_event import EventKind, TraceEvent

if TYPE_CHECKING:
    from ..common.message import MessageExt
    from ..common.message_queue import MessageQueue

__all__ = ["CountingTrace", "EventKind", "Trace", "TraceEvent"]


class Trace:
    """The append-only list of :class:`TraceEvent` every view reads, plus per-kind counters.

    Engine code calls :meth:`record` or one of the named methods of a message's way (:meth:`stored`,
    :meth:`delivered` …); whether the event is kept or only counted is the trace's business
    (:class:`CountingTrace`), never a branch at the call site.
    """

    enabled = True
    """``True``: events are kept. A :class:`CountingTrace` says ``False``."""

    def __init__(self) -> None:
        self._events: list[TraceEvent] = []
        self._counts: Counter[EventKind] = Counter()
        """Events of each kind so far."""
        self._reader: Callable[[TraceEvent], None] | None = None

    def watch(self, reader: Callable[[TraceEvent], None] | None) -> None:
        """Call ``reader`` with each event just before it is appended (``None``: stop). A reader's hook, like 4.9.7's
        ``SendMessageHook.sendMessageBefore``: the dashboard keeps the engine's state between two events of one
        scheduler step (a SYNC send's failed try and its retry). It only reads: the run is the same with or without."""
        self._reader = reader

    @property
    def counts(self) -> Counter[EventKind]:
        """How many events of each kind were recorded (kinds never recorded are left out), in :class:`EventKind`
        order: a copy, so a reader cannot change the trace's own tally."""
        return Counter({kind: self._counts[kind] for kind in EventKind if self._counts[kind]})

    def record(self, time_ms: int, kind: EventKind, actor: str, msg_id: str | None = None, /, **data: Any) -> None:
        """Append one event; the keywords are its details.

        The four fixed parameters are positional-only, so a detail may have any name, ``kind`` or ``actor``
        included.
        """
        self._counts[kind] += 1
        event = TraceEvent(len(self._events) + 1, time_ms, kind, actor, msg_id, data)
        if self._reader is not None:
            self._reader(event)
        self._events.append(event)

    # ------------------------------------------------------------------ a message's way, one method per event
    # The producer's attempts (SendMessageHook), the store, the delay service, the pull, the listener's call
    # (ConsumeMessageHook), the send-back and the offset: each takes what the event is about and builds its details.

    def send_attempt(
        self, time_ms: int, actor: str, *, msg_id: str, mq: MessageQueue, attempt: int, mode: str, timeout_ms: int,
        entry: str,
    ) -> None:  # fmt: skip
        """SEND_ATTEMPT of ``msg_id`` to ``mq``; ``mode`` is a ``CommunicationMode``, ``entry`` (the method driving
        the send) is shown when it is not ``sendDefaultImpl``."""
        via = {} if entry == "sendDefaultImpl" else {"entry": entry}
        self.record(
            time_ms, EventKind.SEND_ATTEMPT, actor, msg_id, broker=mq.broker_name, queue_id=mq.queue_id,
            attempt=attempt, mode=str(mode), topic=mq.topic, timeout_ms=timeout_ms, **via,
        )  # fmt: skip

    def send_result(
        self, time_ms: int, actor: str, *, msg_id: str, mq: MessageQueue, attempt: int, outcome: str,
        not_available_until: int | None, offset_msg_id: str | None,
    ) -> None:  # fmt: skip
        """SEND_RESULT of one attempt; ``not_available_until`` when the fault table lets the broker back in,
        ``offset_msg_id`` when the broker stored the message."""
        shown: dict[str, Any] = {}
        if not_available_until is not None:
            shown["not_available_until"] = not_available_until
        if offset_msg_id is not None:
            shown["offset_msg_id"] = offset_msg_id
        self.record(
            time_ms, EventKind.SEND_RESULT, actor, msg_id, broker=mq.broker_name, queue_id=mq.queue_id,
            attempt=attempt, outcome=outcome, **shown,
        )  # fmt: skip

    def stored(self, time_ms: int, actor: str, *, msg: MessageExt) -> None:
        """STORED: ``msg`` was appended to the CommitLog and its ConsumeQueue."""
        self.record(
            time_ms, EventKind.STORED, actor, msg.msg_id, topic=msg.topic, queue_id=msg.queue_id,
            queue_offset=msg.queue_offset, reconsume_times=msg.reconsume_times,
        )  # fmt: skip

    def scheduled(self, time_ms: int, actor: str, *, msg: MessageExt, level: int, due_ms: int) -> None:
        """SCHEDULED: ``msg`` was parked in ``SCHEDULE_TOPIC_XXXX`` at delay ``level``, due at ``due_ms``."""
        self.record(
            time_ms, EventKind.SCHEDULED, actor, msg.msg_id, level=level,
            real_topic=msg.properties[PROPERTY_REAL_TOPIC], due_ms=due_ms, reconsume_times=msg.reconsume_times,
        )  # fmt: skip

    def delay_delivered(self, time_ms: int, actor: str, *, msg: MessageExt, level: int, waited_ms: int) -> None:
        """DELAY_DELIVERED: the copy ``msg`` of a parked message leaves delay ``level`` for its real topic."""
        self.record(
            time_ms, EventKind.DELAY_DELIVERED, actor, msg.msg_id, level=level, topic=msg.topic,
            queue_id=msg.queue_id, waited_ms=waited_ms,
        )  # fmt: skip

    def dead_lettered(self, time_ms: int, actor: str, *, msg: MessageExt) -> None:
        """DEAD_LETTERED: ``msg`` was stored in its group's ``%DLQ%`` topic."""
        self.record(
            time_ms, EventKind.DEAD_LETTERED, actor, msg.msg_id, group=msg.topic[len(DLQ_PREFIX) :], topic=msg.topic,
            reconsume_times=msg.reconsume_times, original_topic=msg.properties.get(PROPERTY_RETRY_TOPIC, msg.topic),
        )  # fmt: skip

    def pulled(self, time_ms: int, actor: str, *, mq: MessageQueue, msgs: list[MessageExt], next_offset: int) -> None:
        """PULLED: a pull of ``mq`` brought ``msgs`` into its ProcessQueue."""
        self.record(
            time_ms, EventKind.PULLED, actor, None, queue=str(mq), offsets=[m.queue_offset for m in msgs],
            msg_ids=[m.msg_id for m in msgs], next_offset=next_offset,
        )  # fmt: skip

    def delivered(self, time_ms: int, actor: str, *, group: str, mq: MessageQueue, msgs: Sequence[MessageExt]) -> None:
        """``consumeMessageBefore``: one DELIVERED event per message of the batch handed to the listener."""
        for msg in msgs:
            self.record(
                time_ms, EventKind.DELIVERED, actor, msg.msg_id, group=group, topic=msg.topic, queue=str(mq),
                queue_offset=msg.queue_offset, reconsume_times=msg.reconsume_times, batch=len(msgs),
            )  # fmt: skip

    def consumed(
        self, time_ms: int, actor: str, *, mq: MessageQueue, msgs: Sequence[MessageExt], status: str,
        return_type: str, took_ms: int, auto_commit: bool = True,
    ) -> None:  # fmt: skip
        """``consumeMessageAfter``: one CONSUMED event per message of the batch, with the listener's ``status`` (a
        ``ConsumeConcurrentlyStatus`` or ``ConsumeOrderlyStatus``), the ``ConsumeReturnType`` and how long the call
        took; ``auto_commit=False`` (an orderly listener that turned ``ConsumeOrderlyContext.autoCommit`` off) is
        recorded, as it decides what the status does, and the default is left out (traces stay as they were)."""
        manual = {} if auto_commit else {"auto_commit": False}
        for msg in msgs:
            self.record(
                time_ms, EventKind.CONSUMED, actor, msg.msg_id, status=str(status), return_type=return_type,
                took_ms=took_ms, queue=str(mq), queue_offset=msg.queue_offset, **manual,
            )  # fmt: skip

    def send_back(
        self, time_ms: int, actor: str, *, msg: MessageExt, ok: bool, broker: str | None, delay_level: int,
        max_reconsume_times: int, **outcome: Any,
    ) -> None:  # fmt: skip
        """SEND_BACK of ``msg`` (``CONSUMER_SEND_MSG_BACK``, or the orderly path's retry message); ``outcome``: what
        went wrong, or the path."""
        self.record(
            time_ms, EventKind.SEND_BACK, actor, msg.msg_id, ok=ok, broker=broker, delay_level=delay_level,
            reconsume_times=msg.reconsume_times, max_reconsume_times=max_reconsume_times, **outcome,
        )  # fmt: skip

    def offset_updated(self, time_ms: int, actor: str, *, mq: MessageQueue, offset: int, previous: int | None) -> None:
        """OFFSET_UPDATED: the client's offset store moved ``mq`` from ``previous`` to ``offset``."""
        self.record(time_ms, EventKind.OFFSET_UPDATED, actor, None, queue=str(mq), offset=offset, previous=previous)

    def __len__(self) -> int:
        return len(self._events)

    def __repr__(self) -> str:
        """What a student sees on evaluating ``lab.trace``: its size, the virtual time it spans, and the count
        of each kind (in :class:`EventKind` order, so equal runs print equal text) instead of a bare address."""
        from .duration import format_duration

        kinds = ", ".join(f"{kind.value}={self._counts[kind]}" for kind in EventKind if self._counts[kind])
        if not self.enabled:
            return f"Trace(disabled, {self._counts.total()} events counted: {kinds or 'none'})"
        if not self._events:
            return "Trace(0 events)"
        first, last = self._events[0].time_ms, self._events[-1].time_ms
        span = f"{format_duration(first)} … {format_duration(last)}"
        return f"Trace({len(self._events)} events, {span}: {kinds})"

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(self._events)

    def __getitem__(self, index: int) -> TraceEvent:
        return self._events[index]

    @property
    def events(self) -> tuple[TraceEvent, ...]:
        """An immutable view of all events so far."""
        return tuple(self._events)

    def of_kind(self, *kinds: EventKind) -> list[TraceEvent]:
        """Events of the given kinds, in order."""
        wanted = set(kinds)
        return [e for e in self._events if e.kind in wanted]

    def for_message(self, msg_id: str) -> list[TraceEvent]:
        """Every event about one message id (the id is kept across retries)."""
        return [e for e in self._events if e.msg_id == msg_id]

    def where(self, *kinds: EventKind | str, **fields: Any) -> list[TraceEvent]:
        """The events of ``kinds`` (any kind if none is given) whose ``fields`` all match, in order.

        A field is one of the event's attributes (``time_ms``, ``actor``, ``msg_id``) or one of its details
        (``queue``, ``status``, ``reconsume_times`` …): ``where(EventKind.DELIVERED, msg_id="M0001",
        reconsume_times=1)``. An event without that detail does not match. Seeking by what happened, not by
        the position in the trace, keeps a question (and a test) right when an unrelated event is added.
        A kind may be given by its value (``"delivered"``); one that is no :class:`EventKind` is a ValueError.
        """
        return list(self._matching(kinds, fields, self._events))

    def find(self, *kinds: EventKind | str, **fields: Any) -> TraceEvent | None:
        """The first event :meth:`where` would list, or ``None`` if there is none."""
        return next(self._matching(kinds, fields, self._events), None)

    def first(self, *kinds: EventKind | str, **fields: Any) -> TraceEvent:
        """The first event :meth:`where` would list; :class:`LookupError` naming the query if there is none."""
        event = self.find(*kinds, **fields)
        if event is None:
            raise LookupError(f"no event {_query(kinds, fields)} in {self!r}")
        return event

    def last(self, *kinds: EventKind | str, **fields: Any) -> TraceEvent:
        """The last event :meth:`where` would list; :class:`LookupError` naming the query if there is none."""
        event = next(self._matching(kinds, fields, reversed(self._events)), None)
        if event is None:
            raise LookupError(f"no event {_query(kinds, fields)} in {self!r}")
        return event

    def at(self, time: int | str, *kinds: EventKind | str, **fields: Any) -> list[TraceEvent]:
        """The events of one virtual millisecond (``1500`` or ``"1.5s"``), filtered as by :meth:`where`."""
        from .duration import parse_duration

        return self.where(*kinds, time_ms=parse_duration(time, "time"), **fields)

    @staticmethod
    def _matching(
        kinds: tuple[EventKind | str, ...], fields: Mapping[str, Any], events: Iterable[TraceEvent]
    ) -> Iterator[TraceEvent]:
        wanted = {EventKind(k) for k in kinds}
        return (e for e in events if (not wanted or e.kind in wanted) and _matches(e, fields))

    def to_jsonl(self) -> str:
        """The whole trace as JSON lines; equal runs give equal strings, byte for byte."""
        return "".join(json.dumps(e.to_dict(), sort_keys=False, separators=(",", ":")) + "\n" for e in self._events)


_ATTRIBUTES = frozenset({"seq", "time_ms", "actor", "msg_id"})
"""Fields :meth:`Trace.where` reads from the event itself; any other field is a detail."""
_MISSING = object()


def _matches(event: TraceEvent, fields: Mapping[str, Any]) -> bool:
    for name, value in fields.items():
        got = getattr(event, name) if name in _ATTRIBUTES else event.details.get(name, _MISSING)
        if got is _MISSING or got != value:
            return False
    return True


def _query(kinds: tuple[EventKind | str, ...], fields: Mapping[str, Any]) -> str:
    """``kind=delivered|consumed msg_id='M0001'``: a lookup as an error message shows it."""
    parts = [f"kind={'|'.join(EventKind(k).value for k in kinds)}"] if kinds else []
    return " ".join(parts + [f"{name}={value!r}" for name, value in fields.items()]) or "at all"


class CountingTrace(Trace):
    """A trace that keeps no events, only :attr:`counts` (``Lab(trace=False)``).

    Same interface as :class:`Trace`, so the engine records the same way whether a student is watching or a
    benchmark is timing; readers that need the events check :attr:`enabled`. Each method counts its kind and
    builds nothing.
    """

    enabled = False

    def record(self, time_ms: int, kind: EventKind, actor: str, msg_id: str | None = None, /, **data: Any) -> None:
        """Count the event; keep nothing else."""
        self._counts[kind] += 1

    # the same signatures as Trace's, so a call reads the same whichever trace the lab has
    def send_attempt(
        self, time_ms: int, actor: str, *, msg_id: str, mq: MessageQueue, attempt: int, mode: str, timeout_ms: int,
        entry: str,
    ) -> None:  # fmt: skip
        self._counts[EventKind.SEND_ATTEMPT] += 1

    def send_result(
        self, time_ms: int, actor: str, *, msg_id: str, mq: MessageQueue, attempt: int, outcome: str,
        not_available_until: int | None, offset_msg_id: str | None,
    ) -> None:  # fmt: skip
        self._counts[EventKind.SEND_RESULT] += 1

    def stored(self, time_ms: int, actor: str, *, msg: MessageExt) -> None:
        self._counts[EventKind.STORED] += 1

    def scheduled(self, time_ms: int, actor: str, *, msg: MessageExt, level: int, due_ms: int) -> None:
        self._counts[EventKind.SCHEDULED] += 1

    def delay_delivered(self, time_ms: int, actor: str, *, msg: MessageExt, level: int, waited_ms: int) -> None:
        self._counts[EventKind.DELAY_DELIVERED] += 1

    def dead_lettered(self, time_ms: int, actor: str, *, msg: MessageExt) -> None:
        self._counts[EventKind.DEAD_LETTERED] += 1

    def pulled(self, time_ms: int, actor: str, *, mq: MessageQueue, msgs: list[MessageExt], next_offset: int) -> None:
        self._counts[EventKind.PULLED] += 1

    def delivered(self, time_ms: int, actor: str, *, group: str, mq: MessageQueue, msgs: Sequence[MessageExt]) -> None:
        self._counts[EventKind.DELIVERED] += len(msgs)

    def consumed(
        self, time_ms: int, actor: str, *, mq: MessageQueue, msgs: Sequence[MessageExt], status: str,
        return_type: str, took_ms: int, auto_commit: bool = True,
    ) -> None:  # fmt: skip
        self._counts[EventKind.CONSUMED] += len(msgs)

    def send_back(
        self, time_ms: int, actor: str, *, msg: MessageExt, ok: bool, broker: str | None, delay_level: int,
        max_reconsume_times: int, **outcome: Any,
    ) -> None:  # fmt: skip
        self._counts[EventKind.SEND_BACK] += 1

    def offset_updated(self, time_ms: int, actor: str, *, mq: MessageQueue, offset: int, previous: int | None) -> None:
        self._counts[EventKind.OFFSET_UPDATED] += 1
