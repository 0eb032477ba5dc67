"""What the end-of-run summary reads of the engine's state: where a message with no fate yet is at the frame's clock.

:mod:`rmqlab.narrate` imports nothing above ``rmqlab.core`` (``tests/test_import_graph.py``), so it names the parts
of :class:`rmqlab.snapshot.LabSnapshot` it reads as protocols: the running consumers' ProcessQueues (which messages
each holds, pulled and not consumed yet) and the topics' stored cells (which messages the broker holds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["EngineState"]


class _HeldQueue(Protocol):
    """A consumer's ProcessQueue as the engine's snapshot gives it (:class:`rmqlab.snapshot.ProcessQueueSnap`)."""

    @property
    def queue(self) -> str: ...
    @property
    def dropped(self) -> bool: ...
    @property
    def msg_tree_ids(self) -> tuple[str, ...]: ...
    @property
    def consuming_ids(self) -> tuple[str, ...]: ...


class _Consumer(Protocol):
    @property
    def client_id(self) -> str: ...
    @property
    def running(self) -> bool: ...
    @property
    def process_queues(self) -> Sequence[_HeldQueue]: ...


class _Cell(Protocol):
    @property
    def msg_id(self) -> str | None: ...


class _Queue(Protocol):
    @property
    def topic(self) -> str: ...
    @property
    def cells(self) -> Sequence[_Cell]: ...
    @property
    def listed(self) -> bool:
        """Whether the topic's route lists the queue (a queue id past ``readQueueNums`` is never pulled)."""
        ...


class EngineState(Protocol):
    """What :meth:`RunFates.see` reads of the engine's state (a :class:`rmqlab.snapshot.LabSnapshot` is one; narrate
    imports nothing above ``rmqlab.core``)."""

    @property
    def consumers(self) -> Sequence[_Consumer]: ...
    @property
    def queues(self) -> Sequence[_Queue]: ...
